/* The seed example's instruction (custom-1, funct7 0: tests/data/aps/flow_burst_add.mlir,
 * and its variants flow_burst_add_pipelined, bank_three_reads and bank_reads_pipelined,
 * whose extra reads change no result) on many pseudo-random buffers: it loads 16 words
 * at rs1 and 16 at rs2 by DMA, stores their sums to the 16 words at rs1 and answers 42.
 * The two arrays are at varied 8-byte-aligned places in a pool, sometimes overlapping;
 * the whole pool is checked after each instruction. */
#include "kiln_test.h"

#define N 16
#define WORDS 256

static int32_t pool[WORDS] __attribute__((aligned(64)));
static int32_t ref[WORDS], a[N], b[N];

int main(void) {
  for (int k = 0; k < 120; k++) {
    if (k % 4 == 0)
      for (int i = 0; i < WORDS; i++) pool[i] = ref[i] = (int32_t)kiln_rand();
    int pa = 2 * kiln_range(0, (WORDS - N) / 2), pb = 2 * kiln_range(0, (WORDS - N) / 2);
    if (k % 10 == 3) pb = pa;
    for (int i = 0; i < N; i++) {
      a[i] = ref[pa + i];
      b[i] = ref[pb + i];
    }
    for (int i = 0; i < N; i++) ref[pa + i] = (int32_t)((uint32_t)a[i] + (uint32_t)b[i]);
    kiln_check("flow_burst_add", pa, pb, KILN_INSN(0x2b, 0, &pool[pa], &pool[pb]), 42);
    for (int i = 0; i < WORDS; i++) kiln_check("flow_burst_add memory", pa, i, pool[i], ref[i]);
  }
  return kiln_done("burst_add");
}
