/* tests/data/aps/loads2.mlir on kiln's hardware (custom-1, funct7 3): @load2 loads the
 * CPU words at rs1 and rs1 + 4 (two requests in one slot), stores their difference to the
 * word at rs2 and answers it. Many pseudo-random buffers and positions (the stored word
 * may be one of the loaded ones); the whole buffer is checked after each. */
#include "kiln_test.h"

#define WORDS 64

static uint32_t buf[WORDS], ref[WORDS];

int main(void) {
  for (int i = 0; i < WORDS; i++) buf[i] = ref[i] = kiln_rand();
  for (int k = 0; k < 250; k++) {
    int p = kiln_range(0, WORDS - 2), q = k % 8 == 0 ? p + (k & 16 ? 1 : 0) : kiln_range(0, WORDS - 1);
    if (k % 5 == 0)
      for (int i = 0; i < WORDS; i++) buf[i] = ref[i] = kiln_rand();
    uint32_t s = ref[p] - ref[p + 1];
    ref[q] = s;
    kiln_check("load2", p, q, KILN_INSN(0x2b, 3, &buf[p], &buf[q]), s);
    for (int i = 0; i < WORDS; i++) kiln_check("load2 memory", p, i, buf[i], ref[i]);
  }
  return kiln_done("loads2");
}
