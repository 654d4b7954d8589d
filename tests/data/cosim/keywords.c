/* tests/data/aps/keywords.mlir on kiln's hardware (custom-0, funct7 5; names that are
 * SystemVerilog keywords): @dist answers (tri[0] + logic) * rs1 and keeps it in the
 * global register @logic (10 at reset, kept across instructions); tri[0] is 5. Many
 * pseudo-random inputs. */
#include "kiln_test.h"

int main(void) {
  uint32_t logic = 10;
  for (int k = 0; k < 200; k++) {
    int32_t x = k % 4 == 0 ? kiln_range(-3, 3) : (int32_t)kiln_rand();
    logic = (5u + logic) * (uint32_t)x;
    kiln_check("dist", x, 0, KILN_INSN(0x0b, 5, x, 0), logic);
  }
  return kiln_done("keywords");
}
