/* tests/data/aps/csr.mlir on kiln's hardware, with Rocket custom CSRs 0x810 (cfg, reset 3)
 * and 0x811 (status): @scale (custom-1, funct7 8) answers rs1*cfg + 4*cfg and writes the
 * answer back to status; @status_add (funct7 9) answers status + rs1; @stamp (funct7 10)
 * writes cfg := rs1 and answers the cfg it latched. The program drives them through
 * csrr/csrw over many inputs against a C reference. Exit 0: pass. */
#include <stdint.h>

#define CSR_CFG 0x810
#define CSR_STATUS 0x811

/* Zicsr for these instructions only (`-march=rv32imac` picks picolibc's multilib). */
#define csr_read(id)                                                                    \
  ({                                                                                    \
    uint32_t v_;                                                                        \
    __asm__ volatile(".option push\n.option arch, +zicsr\ncsrr %0, " #id "\n.option pop" \
                     : "=r"(v_));                                                       \
    v_;                                                                                 \
  })
#define csr_write(id, v)                                                                  \
  __asm__ volatile(".option push\n.option arch, +zicsr\ncsrw " #id ", %0\n.option pop" \
                   :                                                                      \
                   : "r"((uintptr_t)(v)))

static uint32_t scale(uint32_t x) {
  uint32_t r;
  __asm__ volatile(".insn r 0x2b, 6, 8, %0, %1, x0" : "=r"(r) : "r"(x));
  return r;
}
static uint32_t status_add(uint32_t x) {
  uint32_t r;
  __asm__ volatile(".insn r 0x2b, 6, 9, %0, %1, x0" : "=r"(r) : "r"(x));
  return r;
}
static uint32_t stamp(uint32_t x) {
  uint32_t r;
  __asm__ volatile(".insn r 0x2b, 6, 10, %0, %1, x0" : "=r"(r) : "r"(x));
  return r;
}

static uint32_t seed; /* set in main: the programs keep .data empty (htif.c owns the only section) */
static uint32_t next(void) {
  seed = seed * 1103515245u + 12345u;
  return seed >> 3;
}

int main(void) {
  seed = 12345;
  /* cfg's reset value is 3 (the global's initial value): 5*3 + 4*3. The first custom
   * instruction comes before the first CSR access (see spike_ext.cc's attach_csrs). */
  if (scale(5) != 27) return 2;
  if (csr_read(0x810) != 3) return 1;
  if (csr_read(0x811) != 27) return 3;
  if (status_add(1) != 28) return 4;
  for (int i = 0; i < 64; i++) {
    uint32_t k = next(), x = next();
    csr_write(0x810, k);
    if (csr_read(0x810) != k) return 9;
    uint32_t want = x * k + 4 * k;
    if (scale(x) != want) return 10;
    if (csr_read(0x811) != want) return 11;
    uint32_t y = next();
    if (status_add(y) != want + y) return 12;
    /* stamp writes cfg and answers the value it latched before its own write. */
    uint32_t z = next();
    if (stamp(z) != k) return 13;
    if (csr_read(0x810) != z) return 14;
  }
  return 0;
}
