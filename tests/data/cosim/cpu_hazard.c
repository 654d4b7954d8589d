/* tests/data/aps/cpu_hazard.mlir on kiln's hardware (custom-3, funct7 9): @h stores rs1 to
 * the CPU word at rs1 and loads the word at rs2 in the same slot, answering the loaded
 * word. Different words only (the same word is a hazard, a run-time error): the load sees
 * the memory before the slot. Many pseudo-random pairs; the whole buffer is checked. */
#include "kiln_test.h"

#define WORDS 64

static uint32_t buf[WORDS], ref[WORDS];

int main(void) {
  for (int i = 0; i < WORDS; i++) buf[i] = ref[i] = kiln_rand();
  for (int k = 0; k < 250; k++) {
    if (k % 8 == 0)
      for (int i = 0; i < WORDS; i++) buf[i] = ref[i] = kiln_rand();
    int p = kiln_range(0, WORDS - 1), q = kiln_range(0, WORDS - 2);
    if (q >= p) q++;
    uint32_t want = ref[q];
    ref[p] = (uint32_t)(uintptr_t)&buf[p];
    kiln_check("h", p, q, KILN_INSN(0x7b, 9, &buf[p], &buf[q]), want);
    for (int i = 0; i < WORDS; i++) kiln_check("h memory", p, i, buf[i], ref[i]);
  }
  return kiln_done("cpu_hazard");
}
