// kiln's reference environment for a Verilated APS top (`Vkiln`): the SoC behind the
// ports of APS's SoC port convention, as docs/soc.md specifies it and as the rule
// simulator and the Icarus testbench (compiler/src/rules/sv/testbench.rs) model it, cycle
// for cycle: commands presented in order, a DMA queue per channel and one burst engine
// moving one 8-byte beat per cycle, a HellaCache that answers the next cycle. Shared by
// the Level-0 harness (harness.cc) and the Spike extension (spike_ext.cc); only the CPU
// memory differs (`Memory`).
//
// kiln_design.h (generated per design: `compiler::rules::sv::harness_header`) defines
// KILN_TOP_SIG(name) (the member of the Verilated root holding the top's signal `name`),
// KILN_FIFOS (FIFO occupancy counters for deadlock reports), KILN_PCS (the instructions'
// program counters: 0 when no command is left unfinished), KILN_WATCH (the fault and
// hazard signals, in the simulator's order), all signals the top marks
// `verilator public_flat_rd`, and KILN_CSRS (the CSR lanes and their ports).

#pragma once

#include "Vkiln.h"
#include "Vkiln___024root.h"
#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <deque>
#include <vector>

struct Fifo {
  const char *name;
  uint32_t (*count)(Vkiln___024root *);
};
struct Instr {
  uint32_t opcode, funct7;
  const char *function;
};
enum WatchKind { FAULT, HAZARD };
struct Watch {
  WatchKind kind;
  const char *inst;
  const char *rule;
  uint32_t (*on)(Vkiln___024root *);
  uint32_t (*addr)(Vkiln___024root *);
  uint32_t (*load)(Vkiln___024root *);
};

struct Csr {
  const char *name;
  uint32_t id, mask, init;
  void (*drive)(Vkiln &, uint32_t);   // value_res0 = v, both readies 1
  bool (*set)(Vkiln &, uint32_t *);    // set_enable, with sdata
};

#include "kiln_design.h"

namespace kiln {

struct Cmd {
  uint32_t opcode, funct7, rs1, rs2, rd;
};

// A CPU write (`csrw`) of CSR lane `lane` before command `before` of the stream.
struct CsrWrite {
  size_t before;
  uint32_t lane, value;
};

// CPU memory, byte-addressed, little-endian.
class Memory {
 public:
  virtual ~Memory() = default;
  virtual uint8_t read8(uint32_t a) = 0;
  virtual void write8(uint32_t a, uint8_t v) = 0;
  uint32_t read32(uint32_t a) {
    uint32_t v = 0;
    for (int j = 3; j >= 0; --j) v = (v << 8) | read8(a + j);
    return v;
  }
  uint64_t read64(uint32_t a) {
    uint64_t v = 0;
    for (int j = 7; j >= 0; --j) v = (v << 8) | read8(a + j);
    return v;
  }
};

// What one cycle did.
struct Step {
  bool fired = false;     // some rule fired (`kiln_any_fire`)
  bool busy = false;      // the environment has work in flight
  bool stop = false;      // a fault or hazard signal was raised
  bool cmd_fired = false; // the command port took a command
  bool resp = false;      // a response fired: `rd`, `data`
  uint32_t rd = 0, data = 0;
};

class Env {
 public:
  Env(Vkiln &top, Memory &mem) : top_(top), mem_(mem) {
    for (const Csr &c : KILN_CSRS) csrs.push_back(c.init & c.mask);
  }

  std::vector<Cmd> cmds;  // commands to present, in order
  size_t cmd_i = 0;       // the next one
  uint32_t dma_latency = 0;
  // Rocket's CSR file: each lane's value (a CPU write or a write-back stores
  // `value & mask`, visible from the next cycle), and the CPU's writes between commands.
  std::vector<uint32_t> csrs;
  std::vector<CsrWrite> csr_writes;

  // The CPU's writes before command `k`.
  void cpu_csr_writes(size_t k) {
    for (const CsrWrite &w : csr_writes)
      if (w.before == k && w.lane < csrs.size()) csr_store(w.lane, w.value);
  }

  // Store `v` into lane `k` as Rocket's CSR file does (under the lane's mask).
  void csr_store(size_t k, uint32_t v) {
    const uint32_t m = KILN_CSRS[k].mask;
    csrs[k] = (v & m) | (csrs[k] & ~m);
  }

  // Reset: one clock edge with `rst` high.
  void reset() {
    top_.rst = 1;
    drive(0);
    top_.clk = 0;
    top_.eval();
    top_.clk = 1;
    top_.eval();
    top_.rst = 0;
  }

  // One cycle: drive every input from the environment's state, evaluate with the clock
  // low, sample every handshake and update the environment, clock edge. With `log`, the
  // testbench's `cmd`, `resp`, `fault` and `hazard` lines are written to it.
  Step cycle(uint64_t cyc, FILE *log) {
    Vkiln &t = top_;
    Vkiln___024root *root = t.rootp;
    Step s;
    drive(cyc);
    t.clk = 0;
    t.eval();
    s.fired = root->KILN_TOP_SIG(kiln_any_fire);
    for (const Watch &w : KILN_WATCH) {
      if (s.stop || !w.on(root)) continue;
      if (log && w.kind == FAULT)
        std::fprintf(log, "fault %s %s %llu\n", w.inst, w.rule, (unsigned long long)cyc);
      if (log && w.kind == HAZARD)
        std::fprintf(log, "hazard %s %llu %u %u\n", w.rule, (unsigned long long)cyc,
                     w.addr(root), w.load(root));
      s.stop = true;
    }
    if (t.rocc_cmd_enable && t.rocc_cmd_ready) {
      if (log) std::fprintf(log, "cmd %llu\n", (unsigned long long)cyc);
      cmd_i++;
      s.cmd_fired = true;
      s.busy = true;
    }
    if (t.rocc_resp_rocc_resp_to_bus_enable && t.rocc_resp_rocc_resp_to_bus_ready) {
      s.resp = true;
      s.rd = t.rocc_resp_rocc_resp_to_bus_result_rd;
      s.data = t.rocc_resp_rocc_resp_to_bus_result_rddata;
      if (log) std::fprintf(log, "resp %u %u %llu\n", s.rd, s.data, (unsigned long long)cyc);
    }
    hella(cyc, s);
    dma(s);
    // Write-backs, then the CPU's writes before the command that is presented next.
    for (size_t k = 0; k < KILN_CSRS.size(); ++k) {
      uint32_t d = 0;
      if (!KILN_CSRS[k].set(t, &d)) continue;
      if (log) std::fprintf(log, "csr_set %s %u %llu\n", KILN_CSRS[k].name, d, (unsigned long long)cyc);
      csr_store(k, d);
    }
    if (s.cmd_fired) cpu_csr_writes(cmd_i);
    t.clk = 1;
    t.eval();
    return s;
  }

  // Whether a command is waiting or unfinished work is in flight.
  bool pending() const { return cmd_i < cmds.size() || !hresp_.empty() || dma_busy(); }

  // Whether the command register holds a command no rule took.
  bool command_held() { return top_.rootp->KILN_TOP_SIG(kiln_cmdq_valid); }

 private:
  struct DmaReq {
    bool to_isax;
    uint32_t cpu, isax, length, sx, sy;
    uint64_t seq;
  };
  struct HellaResp {
    uint64_t due;
    uint32_t data, tag, cmd, size;
  };

  Vkiln &top_;
  Memory &mem_;
  std::deque<DmaReq> dq_[2];
  uint64_t dseq_ = 0;
  bool eng_active_ = false, eng_dir_ = false, eng_read_ = false;
  int eng_ch_ = 0;
  uint32_t eng_cpu_ = 0, eng_a_ = 0, eng_sx_ = 0, eng_sy_ = 0, eng_t_ = 0, eng_wait_ = 0;
  uint64_t eng_k_ = 0, eng_n_ = 0;
  std::deque<HellaResp> hresp_;

  bool dma_busy() const { return eng_active_ || !dq_[0].empty() || !dq_[1].empty(); }

  // Step 1 of the reference environment: every input from the environment's state at the
  // start of the cycle (never from the top's outputs in this cycle).
  void drive(uint64_t cyc) {
    Vkiln &t = top_;
    bool pending = cmd_i < cmds.size();
    const Cmd c = pending ? cmds[cmd_i] : Cmd{0, 0, 0, 0, 0};
    t.rocc_cmd_enable = pending;
    t.rocc_cmd_rocc_cmd_funct = c.funct7 & 0x7f;
    t.rocc_cmd_rocc_cmd_rs1 = 0;
    t.rocc_cmd_rocc_cmd_rs2 = 0;
    t.rocc_cmd_rocc_cmd_rd = c.rd & 0x1f;
    t.rocc_cmd_rocc_cmd_xs1 = 1;
    t.rocc_cmd_rocc_cmd_xs2 = 1;
    t.rocc_cmd_rocc_cmd_xd = 1;
    t.rocc_cmd_rocc_cmd_opcode = c.opcode & 0x7f;
    t.rocc_cmd_rocc_cmd_rs1data = c.rs1;
    t.rocc_cmd_rocc_cmd_rs2data = c.rs2;
    t.rocc_resp_rocc_resp_to_bus_ready = 1;
    for (size_t k = 0; k < KILN_CSRS.size(); ++k) KILN_CSRS[k].drive(t, csrs[k]);

    t.dma_cpu_to_isax_ch0_ready = dq_[0].size() < 16;
    t.dma_isax_to_cpu_ch0_ready = dq_[0].size() < 16;
    t.dma_cpu_to_isax_ch1_ready = dq_[1].size() < 16;
    t.dma_isax_to_cpu_ch1_ready = dq_[1].size() < 16;
    bool idle0 = dq_[0].empty() && !(eng_active_ && eng_ch_ == 0);
    bool idle1 = dq_[1].empty() && !(eng_active_ && eng_ch_ == 1);
    t.dma_poll_for_idle_ch0_ready = idle0;
    t.dma_poll_for_idle_ch0_res0 = idle0;
    t.dma_poll_for_idle_ch1_ready = idle1;
    t.dma_poll_for_idle_ch1_res0 = idle1;
    t.burst_write_enable = 0;
    t.burst_write_addr = 0;
    t.burst_write_data = 0;
    t.burst_read_0_enable = 0;
    t.burst_read_0_addr = 0;
    t.burst_read_1_enable = 0;
    if (eng_active_ && eng_wait_ == 0) {
      if (eng_dir_) {
        t.burst_write_enable = 1;
        t.burst_write_addr = eng_a_;
        t.burst_write_data = mem_.read64(eng_cpu_ + 8 * eng_k_);
      } else if (!eng_read_) {
        t.burst_read_0_enable = 1;
        t.burst_read_0_addr = eng_a_;
      } else {
        t.burst_read_1_enable = 1;
      }
    }

    t.hella_cmd_hella_cmd_to_bus_ready = 1;
    bool due = !hresp_.empty() && hresp_.front().due == cyc;
    t.hella_resp_enable = due;
    t.hella_resp_hella_resp_data = due ? hresp_.front().data : 0;
    t.hella_resp_hella_resp_tag = due ? hresp_.front().tag : 0;
    t.hella_resp_hella_resp_cmd = due ? hresp_.front().cmd : 0;
    t.hella_resp_hella_resp_size = due ? hresp_.front().size : 0;
    t.hella_resp_hella_resp_signed = 0;
  }

  // The HellaCache: this cycle's response is taken (ready is 1); a request that fired
  // reads memory as it is now, a store writes now (after the cycle's loads); each is
  // answered in the next cycle, in order.
  void hella(uint64_t cyc, Step &s) {
    Vkiln &t = top_;
    if (t.hella_resp_enable && !hresp_.empty() && hresp_.front().due == cyc) hresp_.pop_front();
    if (t.hella_cmd_hella_cmd_to_bus_enable && t.hella_cmd_hella_cmd_to_bus_ready) {
      uint32_t a = t.hella_cmd_hella_cmd_to_bus_cmd_addr & ~3u;
      uint32_t cmd = t.hella_cmd_hella_cmd_to_bus_cmd_cmd;
      uint32_t data = cmd == 0 ? mem_.read32(a) : 0;
      if (cmd == 1) {
        uint32_t d = t.hella_cmd_hella_cmd_to_bus_cmd_data;
        uint32_t m = t.hella_cmd_hella_cmd_to_bus_cmd_mask;
        for (int j = 0; j < 4; ++j)
          if (m >> j & 1) mem_.write8(a + j, static_cast<uint8_t>(d >> (8 * j)));
      }
      hresp_.push_back(HellaResp{cyc + 1, data, t.hella_cmd_hella_cmd_to_bus_cmd_tag, cmd,
                                 t.hella_cmd_hella_cmd_to_bus_cmd_size});
    }
    if (!hresp_.empty()) s.busy = true;
  }

  void push_dma(int ch, bool to_isax, uint32_t cpu, uint32_t isax, uint32_t len, uint32_t sx,
                uint32_t sy) {
    dq_[ch].push_back(DmaReq{to_isax, cpu, isax, len, sx, sy, ++dseq_});
  }

  // The DMA engine: the beat's CPU write (after the HellaCache's stores of the cycle), the
  // engine's step, this cycle's requests queued (channel 0 `cpu_to_isax`, `isax_to_cpu`,
  // then channel 1), an idle engine taking the oldest.
  void dma(Step &s) {
    Vkiln &t = top_;
    if (t.burst_read_1_enable && t.burst_read_1_ready) {
      uint64_t d = t.burst_read_1_res0;
      for (int k = 0; k < 8; ++k)
        mem_.write8(eng_cpu_ + 8 * eng_k_ + k, static_cast<uint8_t>(d >> (8 * k)));
    }
    if (eng_active_) {
      s.busy = true;
      if (eng_wait_ > 0) {
        eng_wait_--;
      } else if (!eng_dir_ && !eng_read_) {
        eng_read_ = true;
      } else {
        eng_read_ = false;
        eng_k_++;
        if (eng_sx_ != 0 && eng_t_ + 8 >= eng_sx_) {
          eng_a_ = eng_a_ + eng_sx_ * eng_sy_ - eng_t_;
          eng_t_ = 0;
        } else {
          eng_a_ += 8;
          eng_t_ += 8;
        }
        if (eng_k_ >= eng_n_) eng_active_ = false;
      }
    }
    if (t.dma_cpu_to_isax_ch0_enable && t.dma_cpu_to_isax_ch0_ready)
      push_dma(0, true, t.dma_cpu_to_isax_ch0_cpu_addr, t.dma_cpu_to_isax_ch0_isax_addr,
               t.dma_cpu_to_isax_ch0_length, t.dma_cpu_to_isax_ch0_stride_x,
               t.dma_cpu_to_isax_ch0_stride_y);
    if (t.dma_isax_to_cpu_ch0_enable && t.dma_isax_to_cpu_ch0_ready)
      push_dma(0, false, t.dma_isax_to_cpu_ch0_cpu_addr, t.dma_isax_to_cpu_ch0_isax_addr,
               t.dma_isax_to_cpu_ch0_length, t.dma_isax_to_cpu_ch0_stride_x,
               t.dma_isax_to_cpu_ch0_stride_y);
    if (t.dma_cpu_to_isax_ch1_enable && t.dma_cpu_to_isax_ch1_ready)
      push_dma(1, true, t.dma_cpu_to_isax_ch1_cpu_addr, t.dma_cpu_to_isax_ch1_isax_addr,
               t.dma_cpu_to_isax_ch1_length, t.dma_cpu_to_isax_ch1_stride_x,
               t.dma_cpu_to_isax_ch1_stride_y);
    if (t.dma_isax_to_cpu_ch1_enable && t.dma_isax_to_cpu_ch1_ready)
      push_dma(1, false, t.dma_isax_to_cpu_ch1_cpu_addr, t.dma_isax_to_cpu_ch1_isax_addr,
               t.dma_isax_to_cpu_ch1_length, t.dma_isax_to_cpu_ch1_stride_x,
               t.dma_isax_to_cpu_ch1_stride_y);
    if (!eng_active_) {
      int pick = -1;
      for (int k = 0; k < 2; ++k)
        if (!dq_[k].empty() && (pick < 0 || dq_[k].front().seq < dq_[pick].front().seq))
          pick = k;
      if (pick >= 0) {
        DmaReq r = dq_[pick].front();
        dq_[pick].pop_front();
        eng_active_ = true;
        eng_ch_ = pick;
        eng_dir_ = r.to_isax;
        eng_cpu_ = r.cpu;
        eng_a_ = r.isax;
        eng_sx_ = r.sx;
        eng_sy_ = r.sy;
        eng_n_ = ((uint64_t)1 << r.length) / 8;
        if (eng_n_ == 0) eng_n_ = 1;
        eng_k_ = 0;
        eng_t_ = 0;
        eng_read_ = false;
        eng_wait_ = dma_latency;
      }
    }
    if (dma_busy()) s.busy = true;
  }
};

}  // namespace kiln
