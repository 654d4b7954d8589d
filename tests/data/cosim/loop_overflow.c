/* tests/data/aps/loop_overflow.mlir on kiln's hardware (custom-0): loops that end when
 * their induction variable's next value would leave its type. @up_to_max (funct7 1),
 * @down_to_min (3) and @narrow (4, an i8 variable from the low byte of rs1) answer their
 * iteration counts, @step_past_max (2) the count with step rs1, @pipelined (5) the last
 * induction value (an II = 1 loop storing it to a global). Starts near the limits keep
 * the loops short; @narrow sees every i8 start. The reference is the loop of
 * compiler/src/aps/interp.rs run in 64 bits. */
#include "kiln_test.h"

#define MAX 2147483647
#define MIN (-MAX - 1)

/* Iterations of `for i = lb to ub step s` (inclusive) on a variable in [min, max], and
 * its last value in *last. */
static uint32_t trips(int64_t lb, int64_t ub, int64_t s, int64_t min, int64_t max, int64_t *last) {
  uint32_t n = 0;
  for (int64_t i = lb; s < 0 ? i >= ub : i <= ub; i += s) {
    n++;
    *last = i;
    if (i + s < min || i + s > max) break;
  }
  return n;
}

int main(void) {
  int64_t last = 0;
  for (int k = 0; k < 100; k++) {
    int32_t x = MAX - kiln_range(0, 60);
    kiln_check("up_to_max", x, 0, KILN_INSN(0x0b, 1, x, 0), trips(x, MAX, 1, MIN, MAX, &last));
  }
  for (int k = 0; k < 100; k++) {
    int32_t s = k % 5 == 0 ? kiln_range(MIN, -1) : kiln_range(MAX / 50, MAX);
    kiln_check("step_past_max", s, 0, KILN_INSN(0x0b, 2, s, 0), trips(0, MAX, s, MIN, MAX, &last));
  }
  for (int k = 0; k < 100; k++) {
    int32_t x = MIN + kiln_range(0, 60);
    kiln_check("down_to_min", x, 0, KILN_INSN(0x0b, 3, x, 0), trips(x, MIN, -1, MIN, MAX, &last));
  }
  for (int k = 0; k < 256; k++) {
    int32_t x = (int32_t)(kiln_rand() & ~0xffu) | k;
    kiln_check("narrow", x, 0, KILN_INSN(0x0b, 4, x, 0), trips((int8_t)x, 127, 1, -128, 127, &last));
  }
  for (int k = 0; k < 100; k++) {
    int32_t x = MAX - kiln_range(0, 60);
    trips(x, MAX, 1, MIN, MAX, &last);
    kiln_check("pipelined", x, 0, KILN_INSN(0x0b, 5, x, 0), (uint32_t)last);
  }
  return kiln_done("loop_overflow");
}
