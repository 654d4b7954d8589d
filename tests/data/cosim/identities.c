/* tests/data/aps/identities.mlir on kiln's hardware (custom-1, two instructions told apart
 * by funct7): @sum (funct7 1) answers rs1 + rs2 + acc[0] and keeps it in acc[0] (a bank,
 * 7 at reset, kept across instructions); @store2 (funct7 2) stores rs1 + 1 and rs1 + 2
 * to the CPU words at rs2 and rs2 + 4 in one slot and answers their sum. Many
 * pseudo-random inputs; @store2 at varied words of a buffer, the whole buffer checked. */
#include "kiln_test.h"

#define WORDS 64

static uint32_t buf[WORDS], ref[WORDS];

int main(void) {
  uint32_t acc = 7;
  for (int k = 0; k < 200; k++) {
    uint32_t a = kiln_rand(), b = kiln_rand();
    acc += a + b;
    kiln_check("sum", a, b, KILN_INSN(0x2b, 1, a, b), acc);
  }
  for (int i = 0; i < WORDS; i++) buf[i] = ref[i] = kiln_rand();
  for (int k = 0; k < 200; k++) {
    uint32_t a = kiln_rand();
    int w = kiln_range(0, WORDS - 2);
    ref[w] = a + 1;
    ref[w + 1] = a + 2;
    kiln_check("store2", a, w, KILN_INSN(0x2b, 2, a, &buf[w]), 2 * a + 3);
    for (int i = 0; i < WORDS; i++) kiln_check("store2 memory", a, i, buf[i], ref[i]);
  }
  return kiln_done("identities");
}
