/* Runs the seed example's instruction but expects a wrong response (41, not 42): the
 * program exits with 7, which `kiln cosim` must report as a failure. */
#include <stdint.h>

static int32_t a[16] __attribute__((aligned(64)));
static int32_t b[16] __attribute__((aligned(64)));

int main(void) {
  uint32_t r;
  __asm__ volatile(".insn r 0x2b, 7, 0, %0, %1, %2" : "=r"(r) : "r"(a), "r"(b) : "memory");
  return r == 41 ? 0 : 7;
}
