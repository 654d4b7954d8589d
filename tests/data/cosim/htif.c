/* Bare-metal glue for Spike (HTIF), written for kiln's co-simulation programs: `tohost`
 * for the exit status, and a trap handler that exits with 128 + mcause instead of spinning
 * (an instruction the design does not implement traps as illegal: exit 130). */
#include <stdint.h>

volatile uint64_t tohost __attribute__((section(".htif"), aligned(64)));
volatile uint64_t fromhost __attribute__((section(".htif"), aligned(64)));

void _exit(int code) {
  for (;;) tohost = ((uint64_t)(uint32_t)code << 1) | 1;
}

static void __attribute__((naked, aligned(4))) trap_entry(void) {
  __asm__ volatile(
      ".option push\n.option arch, +zicsr\n"
      "csrr a0, mcause\n"
      ".option pop\n"
      "andi a0, a0, 0x7f\n"
      "addi a0, a0, 128\n"
      "j _exit\n");
}

static void __attribute__((constructor)) set_trap(void) {
  __asm__ volatile(".option push\n.option arch, +zicsr\ncsrw mtvec, %0\n.option pop" ::"r"(trap_entry));
}
