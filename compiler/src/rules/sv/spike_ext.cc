// kiln's Spike extension (Level 1 co-simulation, Spike v1.1.0's extension API): registers
// every custom instruction of the design (KILN_INSTRUCTIONS: custom-0..3 opcode x funct7,
// funct3 free for xd/xs1/xs2) and executes each on the Verilated top in the reference
// environment of kiln_env.h, whose DMA engine and HellaCache read and write Spike's
// memory. The top's clock keeps running across instructions (its state persists, as on a
// core). Per instruction it can append `opcode funct7 cycles_to_resp cycles_to_idle` to the
// file named by $KILN_COSIM_TRACE (cycles counted from the command's fire cycle). The
// design's CSR lanes (KILN_CSRS) are Rocket custom CSRs of the hart at their addresses:
// `csrr`/`csrw` read and write the environment's CSR file (under the lane's mask), which
// drives the top's `csr_<n>_value_res0` and takes its write-backs.
//
// Load with: spike --isa=... --extlib=libkiln.so --extension=kiln PROGRAM.elf

#include "csrs.h"
#include "extension.h"
#include "mmu.h"
#include "processor.h"

#include "kiln_env.h"

#include <cstdlib>
#include <memory>

namespace {

// Spike's memory through the hart's MMU (physical addresses in M-mode).
class SpikeMemory : public kiln::Memory {
 public:
  processor_t *p = nullptr;
  uint8_t read8(uint32_t a) override { return p->get_mmu()->load_uint8(a); }
  void write8(uint32_t a, uint8_t v) override { p->get_mmu()->store_uint8(a, v); }
};

struct Model {
  VerilatedContext ctx;
  Vkiln top{&ctx};
  SpikeMemory mem;
  kiln::Env env{top, mem};
  uint64_t cycle = 0;
  Model() { env.reset(); }
};

Model &model(processor_t *p) {
  static std::unique_ptr<Model> m;
  if (!m) m = std::make_unique<Model>();
  m->mem.p = p;
  return *m;
}

void attach_csrs(processor_t *p);

[[noreturn]] void fail(const char *what, uint32_t opcode, uint32_t funct7) {
  std::fprintf(stderr, "kiln: instruction opcode %#x funct7 %u: %s\n", opcode, funct7, what);
  std::exit(3);
}

// One custom instruction: its command to the top, then cycles until the response (when
// the instruction writes rd) and quiescence (no rule fired, nothing in flight).
reg_t execute(processor_t *p, insn_t insn, reg_t pc) {
  attach_csrs(p);
  Model &m = model(p);
  const uint32_t bits = static_cast<uint32_t>(insn.bits());
  const uint32_t opcode = bits & 0x7f, funct7 = bits >> 25 & 0x7f, funct3 = bits >> 12 & 7;
  const bool xd = funct3 & 4, xs1 = funct3 & 2, xs2 = funct3 & 1;
  state_t *st = p->get_state();
  kiln::Cmd c{opcode, funct7, xs1 ? static_cast<uint32_t>(st->XPR[insn.rs1()]) : 0u,
              xs2 ? static_cast<uint32_t>(st->XPR[insn.rs2()]) : 0u,
              static_cast<uint32_t>(insn.rd())};
  m.env.cmds.push_back(c);
  const uint64_t limit = m.cycle + 100000000ull;
  int64_t fired = -1, resp = -1;
  uint32_t data = 0;
  for (;;) {
    if (m.cycle >= limit) fail("no quiescence within 100,000,000 cycles", opcode, funct7);
    kiln::Step s = m.env.cycle(m.cycle, nullptr);
    if (s.stop) fail("a run-time fault or CPU-memory hazard", opcode, funct7);
    if (s.cmd_fired) fired = static_cast<int64_t>(m.cycle);
    if (s.resp) {
      if (resp >= 0) fail("two responses to one command", opcode, funct7);
      resp = static_cast<int64_t>(m.cycle);
      data = s.data;
      if (s.rd != c.rd) fail("the response's rd is not the instruction's", opcode, funct7);
    }
    m.cycle++;
    if (fired >= 0 && !s.fired && !s.busy && !m.env.command_held()) break;
  }
  for (const Fifo &f : KILN_PCS)
    if (f.count(m.top.rootp) != 0) fail("the design stopped before finishing the command", opcode, funct7);
  if (xd && resp < 0) fail("the design sent no response (issue it with xd = 0)", opcode, funct7);
  // RV64: the 32-bit result zero-extended, as the SoC wrapper widens it. RV32: Spike holds
  // a register sign-extended to 64 bits (a zero-extended word would compare unequal).
  if (xd && insn.rd() != 0)
    st->XPR.write(insn.rd(), p->get_xlen() == 32 ? static_cast<reg_t>(sext32(data))
                                                 : static_cast<reg_t>(data));
  if (const char *path = std::getenv("KILN_COSIM_TRACE")) {
    if (FILE *f = std::fopen(path, "a")) {
      std::fprintf(f, "%u %u %lld %lld\n", opcode, funct7,
                   resp < 0 ? -1ll : static_cast<long long>(resp - fired),
                   static_cast<long long>(m.cycle - 1 - fired));
      std::fclose(f);
    }
  }
  return pc + 4;
}

// A CSR lane as the hart sees it (a Rocket custom CSR at the lane's address, user-level
// read/write): the environment's CSR file, stored under the lane's mask.
class LaneCsr : public csr_t {
 public:
  LaneCsr(processor_t *p, size_t lane) : csr_t(p, KILN_CSRS[lane].id), lane_(lane) {}
  reg_t read() const noexcept override { return model(proc).env.csrs[lane_]; }

 protected:
  bool unlogged_write(const reg_t val) noexcept override {
    model(proc).env.csr_store(lane_, static_cast<uint32_t>(val));
    return true;
  }

 private:
  size_t lane_;
};

// Add the design's CSR lanes to the hart. Spike 1.1.0 gives an extension no hook between
// getting its hart and the program's first instruction: this runs on the extension's
// reset and before its first custom instruction executes, so a program's CSR accesses
// work from its first custom instruction on.
void attach_csrs(processor_t *p) {
  if (!p) return;
  for (size_t k = 0; k < KILN_CSRS.size(); ++k)
    if (!p->get_state()->csrmap.count(KILN_CSRS[k].id))
      p->get_state()->csrmap[KILN_CSRS[k].id] = std::make_shared<LaneCsr>(p, k);
}

class KilnExtension : public extension_t {
 public:
  const char *name() override { return "kiln"; }
  void reset() override { attach_csrs(p); }
  std::vector<insn_desc_t> get_instructions() override {
    std::vector<insn_desc_t> out;
    for (const Instr &i : KILN_INSTRUCTIONS) {
      const insn_bits_t match = (i.funct7 & 0x7f) << 25 | (i.opcode & 0x7f);
      out.push_back(insn_desc_t{match, 0xfe00007f, execute, execute});
    }

    return out;
  }
  std::vector<disasm_insn_t *> get_disasms() override { return {}; }
};

}  // namespace

REGISTER_EXTENSION(kiln, []() { return new KilnExtension; })
