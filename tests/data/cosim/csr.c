/* tests/data/aps/csr.mlir on kiln's hardware, with Rocket custom CSRs 0x810 (cfg, reset 3)
 * and 0x811 (status): @scale (custom-1, funct7 8) answers rs1·cfg + 4·cfg and writes the
 * answer back to status; @status_add (funct7 9) answers status + rs1; @stamp (funct7 10)
 * writes cfg := rs1 and answers the cfg it latched. The program configures cfg with csrw
 * and reads status with csrr around many pseudo-random calls, against a C reference. The
 * first custom instruction comes before the first CSR access (Spike 1.1.0 gets the lanes
 * from then on: see spike_ext.cc's attach_csrs). */
#include "kiln_test.h"

/* Zicsr for these instructions only (`-march=rv32imac` picks picolibc's multilib). */
#define CSR_READ(id)                                                                    \
  __extension__({                                                                       \
    unsigned long v_;                                                                   \
    __asm__ volatile(".option push\n.option arch, +zicsr\ncsrr %0, " #id "\n.option pop" \
                     : "=r"(v_));                                                       \
    (uint32_t)v_;                                                                       \
  })
#define CSR_WRITE(id, v)                                                                  \
  __asm__ volatile(".option push\n.option arch, +zicsr\ncsrw " #id ", %0\n.option pop" \
                   :                                                                      \
                   : "r"((unsigned long)(v)))

int main(void) {
  kiln_check("scale (reset cfg)", 5, 3, KILN_INSN(0x2b, 8, 5, 0), 27);
  kiln_check("csrr cfg", 0, 0, CSR_READ(0x810), 3);
  kiln_check("csrr status", 0, 0, CSR_READ(0x811), 27);
  kiln_check("status_add", 1, 27, KILN_INSN(0x2b, 9, 1, 0), 28);
  for (int i = 0; i < 100; i++) {
    uint32_t k = kiln_rand(), x = kiln_rand();
    CSR_WRITE(0x810, k);
    kiln_check("csrr cfg", k, 0, CSR_READ(0x810), k);
    uint32_t want = x * k + 4 * k;
    kiln_check("scale", x, k, KILN_INSN(0x2b, 8, x, 0), want);
    kiln_check("csrr status", x, k, CSR_READ(0x811), want);
    uint32_t y = kiln_rand();
    kiln_check("status_add", y, want, KILN_INSN(0x2b, 9, y, 0), want + y);
    /* stamp answers the cfg it latched, before its own write-back. */
    uint32_t z = kiln_rand();
    kiln_check("stamp", z, k, KILN_INSN(0x2b, 10, z, 0), k);
    kiln_check("csrr cfg after stamp", z, 0, CSR_READ(0x810), z);
  }
  return kiln_done("csr");
}
