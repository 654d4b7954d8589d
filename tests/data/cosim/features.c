/* tests/data/aps/features.mlir on kiln's hardware (custom-0): @sum_to_n (funct7 1,
 * 0 + 1 + ... + rs1, a loop with a run-time bound), @nested (funct7 2, nested loops, one
 * descending, with iter_args and a `tor.if`), @global_if (funct7 3, a global register
 * updated under a condition, kept across instructions) and @count (funct7 4, 5 per
 * iteration from rs1 to rs2), each on many pseudo-random inputs. Loops are inclusive of
 * their upper bound (compiler/src/aps/interp.rs). */
#include "kiln_test.h"

static uint32_t sum_to_n(int32_t n) {
  uint32_t acc = 0;
  for (int64_t i = 0; i <= n; i++) acc += (uint32_t)i;
  return acc;
}

static uint32_t nested(int32_t x, int32_t y) {
  uint32_t acc = (uint32_t)y;
  for (int32_t i = 5; i >= 1; i--)
    for (int32_t j = 0; j <= i; j++)
      if (j < x) acc += (uint32_t)i;
  return acc;
}

static uint32_t g = 100; /* @g */

static uint32_t global_if(int32_t x) {
  if (x > 0) g += (uint32_t)x;
  return g + (uint32_t)(x >> 1);
}

static uint32_t count(int32_t lo, int32_t hi) {
  return hi >= lo ? 5u * (uint32_t)((int64_t)hi - lo + 1) : 0u;
}

int main(void) {
  for (int k = 0; k < 120; k++) {
    int32_t n = k < 4 ? k - 2 : kiln_range(-20, 200);
    kiln_check("sum_to_n", n, 0, KILN_INSN(0x0b, 1, n, 0), sum_to_n(n));
  }
  for (int k = 0; k < 120; k++) {
    int32_t x = kiln_range(-3, 8), y = (int32_t)kiln_rand();
    kiln_check("nested", x, y, KILN_INSN(0x0b, 2, x, y), nested(x, y));
  }
  for (int k = 0; k < 120; k++) {
    int32_t x = k % 3 == 0 ? kiln_range(-1000, 1000) : (int32_t)kiln_rand();
    kiln_check("global_if", x, 0, KILN_INSN(0x0b, 3, x, 0), global_if(x));
  }
  for (int k = 0; k < 120; k++) {
    int32_t lo = k % 4 == 0 ? 2147483647 - kiln_range(0, 40) : (int32_t)kiln_rand();
    int32_t hi = lo > 2147483647 - 60 ? 2147483647 : lo + kiln_range(-5, 60);
    kiln_check("count", lo, hi, KILN_INSN(0x0b, 4, lo, hi), count(lo, hi));
  }
  return kiln_done("features");
}
