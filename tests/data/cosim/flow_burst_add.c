/* The seed example's instruction (examples/aps/flow_burst_add.mlir: custom-1, funct7 0)
 * on kiln's hardware: it loads a[0..16) and b[0..16) by DMA, stores a[i] + b[i] into
 * a[0..16) and answers 42. The program checks both and calls it a second time on the
 * results (the accelerator keeps running between instructions). Exit 0: pass. */
#include <stdint.h>

#define N 16

static int32_t a[N] __attribute__((aligned(64)));
static int32_t b[N] __attribute__((aligned(64)));

static uint32_t burst_add(int32_t *x, int32_t *y) {
  uint32_t r;
  /* funct3 7: xd, xs1, xs2 */
  __asm__ volatile(".insn r 0x2b, 7, 0, %0, %1, %2" : "=r"(r) : "r"(x), "r"(y) : "memory");
  return r;
}

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = i + 1;
    b[i] = 10 * (i + 1) - 3 * i * i;
  }
  if (burst_add(a, b) != 42) return 1;
  for (int i = 0; i < N; i++)
    if (a[i] != 11 * (i + 1) - 3 * i * i) return 2;
  if (burst_add(a, b) != 42) return 3;
  for (int i = 0; i < N; i++)
    if (a[i] != 21 * (i + 1) - 6 * i * i) return 4;
  for (int i = 0; i < N; i++)
    if (b[i] != 10 * (i + 1) - 3 * i * i) return 5;
  return 0;
}
