/* Uses custom-1 with funct7 5, which the seed example does not implement: Spike traps it
 * as an illegal instruction (htif.c exits with 128 + mcause = 130). */
#include <stdint.h>

int main(void) {
  uint32_t r;
  __asm__ volatile(".insn r 0x2b, 7, 5, %0, %1, %2" : "=r"(r) : "r"(0), "r"(0));
  return r == 0 ? 0 : 1;
}
