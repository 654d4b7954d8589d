/* Bare-metal glue for Spike (HTIF), written for kiln's co-simulation programs: `tohost`
 * for the exit status and for picolibc's stdout (a SYS_write through HTIF's syscall proxy,
 * so `printf` works), and a trap handler that exits with 128 + mcause instead of spinning
 * (an instruction the design does not implement traps as illegal: exit 130). */
#include <stdint.h>
#include <stdio.h>

volatile uint64_t tohost __attribute__((aligned(64)));
volatile uint64_t fromhost __attribute__((aligned(64)));

/* Every message fits the low word: on RV32 the high word first, then the low one that
 * makes `tohost` non-zero. */
static void tohost_write(uintptr_t value) {
  volatile uint32_t *words = (volatile uint32_t *)(uintptr_t)&tohost;
  words[1] = 0;
  words[0] = (uint32_t)value;
}

void _exit(int code) {
  __sync_synchronize();
  for (;;) tohost_write(((uintptr_t)(uint32_t)code << 1) | 1);
}

/* SYS_write (64) to fd 1 on the host, through the syscall proxy's magic memory. */
static void htif_write(const char *buf, uintptr_t len) {
  static volatile uint64_t magic[8] __attribute__((aligned(64)));
  magic[0] = 64;
  magic[1] = 1;
  magic[2] = (uintptr_t)buf;
  magic[3] = len;
  __sync_synchronize();
  tohost_write((uintptr_t)magic);
  while (fromhost == 0)
    ;
  fromhost = 0;
  __sync_synchronize();
}

static char line[128];
static unsigned line_len;

static int htif_flush(FILE *f) {
  (void)f;
  if (line_len) htif_write(line, line_len);
  line_len = 0;
  return 0;
}

static int htif_putc(char c, FILE *f) {
  line[line_len++] = c;
  if (c == '\n' || line_len == sizeof line) htif_flush(f);
  return (unsigned char)c;
}

static FILE htif_stdio = FDEV_SETUP_STREAM(htif_putc, NULL, htif_flush, _FDEV_SETUP_WRITE);
FILE *const stdin = &htif_stdio;
FILE *const stdout = &htif_stdio;
FILE *const stderr = &htif_stdio;

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
