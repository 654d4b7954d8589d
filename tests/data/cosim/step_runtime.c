/* tests/data/aps/step_runtime.mlir on kiln's hardware (custom-3, funct7 4): @s runs a loop
 * from 0 to 4 with step rs1 (known only at run time; 1 to 4 iterations, none for a
 * negative step) and answers rs1. Many pseudo-random non-zero steps (0 is a run-time
 * error, not a result). */
#include "kiln_test.h"

int main(void) {
  for (int k = 0; k < 200; k++) {
    int32_t s = k < 10 ? k - 4 : k % 2 ? kiln_range(-8, 8) : (int32_t)kiln_rand();
    if (s == 0) s = 1;
    kiln_check("s", s, 0, KILN_INSN(0x7b, 4, s, 0), (uint32_t)s);
  }
  return kiln_done("step_runtime");
}
