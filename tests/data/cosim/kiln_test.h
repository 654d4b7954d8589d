/* Shared by kiln's co-simulation programs: a custom instruction through `.insn r` (funct3
 * 7: xd, xs1, xs2, as the RoCC convention has it), a deterministic pseudo-random sequence,
 * and the checks: each program compares every response (and the memory an instruction
 * wrote) with a C reference written from its design's MLIR, prints PASS or FAIL with its
 * name and the number of checks, and returns 0 on pass (1 on failure) from main. */
#ifndef KILN_TEST_H
#define KILN_TEST_H

#include <stdint.h>
#include <stdio.h>

/* Custom instruction `opcode` (0x0b, 0x2b, 0x5b, 0x7b), `funct7`, on rs1 = a and rs2 = b:
 * the 32-bit response (RV64 zero-extends it; the low word is what is compared). The
 * opcode and funct7 may be macros (expanded before they reach the assembler). */
#define KILN_INSN(opcode, funct7, a, b) KILN_INSN_(opcode, funct7, a, b)
#define KILN_INSN_(opcode, funct7, a, b)                                             \
  __extension__({                                                                    \
    unsigned long kiln_rd_;                                                          \
    __asm__ volatile(".insn r " #opcode ", 7, " #funct7 ", %0, %1, %2"               \
                     : "=r"(kiln_rd_)                                                \
                     : "r"((unsigned long)(a)), "r"((unsigned long)(b))              \
                     : "memory");                                                    \
    (uint32_t)kiln_rd_;                                                              \
  })

/* xorshift32 from a fixed seed: the same inputs on every run and XLEN. */
static uint32_t kiln_state = 0x2545f491u;
static inline uint32_t kiln_rand(void) {
  uint32_t x = kiln_state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return kiln_state = x;
}
/* A value in [lo, hi] (hi - lo < 2^32 - 1). */
static inline int32_t kiln_range(int32_t lo, int32_t hi) {
  return (int32_t)((uint32_t)lo + kiln_rand() % ((uint32_t)hi - (uint32_t)lo + 1u));
}

static unsigned kiln_checks, kiln_failures;

/* One comparison; the first few mismatches are printed with what was computed. */
static inline void kiln_check(const char *what, uint32_t a, uint32_t b, uint32_t got,
                              uint32_t want) {
  kiln_checks++;
  if (got == want) return;
  if (kiln_failures++ < 8)
    printf("mismatch: %s(%#lx, %#lx) = %#lx, expected %#lx\n", what, (unsigned long)a,
           (unsigned long)b, (unsigned long)got, (unsigned long)want);
}

/* PASS or FAIL, and the exit status. */
static inline int kiln_done(const char *program) {
  if (kiln_failures) {
    printf("FAIL %s: %u of %u checks\n", program, kiln_failures, kiln_checks);
    return 1;
  }
  printf("PASS %s: %u checks\n", program, kiln_checks);
  return 0;
}

#endif
