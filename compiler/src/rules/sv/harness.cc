// kiln's Level-0 harness: drives a Verilated APS top (`Vkiln`, top module under any name)
// through the ports of APS's SoC port convention only, with the reference environment of
// docs/soc.md: commands presented in order, a DMA queue per channel and one burst engine
// moving one 8-byte beat per cycle, a HellaCache that answers the next cycle. The same
// model as the Icarus testbench (compiler/src/rules/sv/testbench.rs) and the rule
// simulator, cycle for cycle; it writes the testbench's `out.txt` format.
//
// Usage: harness CMDS MEM_HEX OUT MAX_CYCLES DMA_LATENCY
//   CMDS: `opcode funct7 rs1 rs2 rd` per line; MEM_HEX: `@addr byte` per byte.
//
// kiln_design.h (generated per design: `compiler::rules::sv::harness_header`) defines
// KILN_TOP_SIG(name) (the member of the Verilated root holding the top's signal `name`),
// KILN_FIFOS (FIFO occupancy counters for deadlock reports) and KILN_WATCH (the fault and
// hazard signals, in the simulator's order), all signals the top marks
// `verilator public_flat_rd`.

#include "Vkiln.h"
#include "Vkiln___024root.h"
#include "verilated.h"

#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <vector>

struct Fifo {
  const char *name;
  uint32_t (*count)(Vkiln___024root *);
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

#include "kiln_design.h"

namespace {

struct Cmd {
  uint32_t opcode, funct7, rs1, rs2, rd;
};

struct DmaReq {
  bool to_isax;
  uint32_t cpu, isax, length, sx, sy;
  uint64_t seq;
};

struct Memory {
  std::map<uint32_t, uint8_t> bytes;
  std::map<uint32_t, bool> written;
  uint8_t read8(uint32_t a) const {
    auto it = bytes.find(a);
    return it == bytes.end() ? 0 : it->second;
  }
  void write8(uint32_t a, uint8_t v) {
    bytes[a] = v;
    written[a] = true;
  }
  uint32_t read32(uint32_t a) const {
    uint32_t v = 0;
    for (int j = 3; j >= 0; --j) v = (v << 8) | read8(a + j);
    return v;
  }
};

struct Env {
  Vkiln &top;
  Memory mem;
  std::vector<Cmd> cmds;
  size_t cmd_i = 0;
  uint32_t dma_latency = 0;
  // DMA: a queue per channel, one engine.
  std::deque<DmaReq> dq[2];
  uint64_t dseq = 0;
  bool eng_active = false, eng_dir = false, eng_read = false;
  int eng_ch = 0;
  uint32_t eng_cpu = 0, eng_a = 0, eng_sx = 0, eng_sy = 0, eng_t = 0, eng_wait = 0;
  uint64_t eng_k = 0, eng_n = 0;
  // HellaCache: responses due, in order.
  struct HellaResp {
    uint64_t due;
    uint32_t data, tag, cmd, size;
  };
  std::deque<HellaResp> hresp;

  explicit Env(Vkiln &t) : top(t) {}

  // Step 1 of the reference environment: every input from the environment's state.
  void drive(uint64_t cyc) {
    bool pending = cmd_i < cmds.size();
    const Cmd c = pending ? cmds[cmd_i] : Cmd{0, 0, 0, 0, 0};
    top.rocc_cmd_enable = pending;
    top.rocc_cmd_rocc_cmd_funct = c.funct7 & 0x7f;
    top.rocc_cmd_rocc_cmd_rs1 = 0;
    top.rocc_cmd_rocc_cmd_rs2 = 0;
    top.rocc_cmd_rocc_cmd_rd = c.rd & 0x1f;
    top.rocc_cmd_rocc_cmd_xs1 = 1;
    top.rocc_cmd_rocc_cmd_xs2 = 1;
    top.rocc_cmd_rocc_cmd_xd = 1;
    top.rocc_cmd_rocc_cmd_opcode = c.opcode & 0x7f;
    top.rocc_cmd_rocc_cmd_rs1data = c.rs1;
    top.rocc_cmd_rocc_cmd_rs2data = c.rs2;
    top.rocc_resp_rocc_resp_to_bus_ready = 1;

    top.dma_cpu_to_isax_ch0_ready = dq[0].size() < 16;
    top.dma_isax_to_cpu_ch0_ready = dq[0].size() < 16;
    top.dma_cpu_to_isax_ch1_ready = dq[1].size() < 16;
    top.dma_isax_to_cpu_ch1_ready = dq[1].size() < 16;
    for (int ch = 0; ch < 2; ++ch) {
      bool idle = dq[ch].empty() && !(eng_active && eng_ch == ch);
      if (ch == 0) {
        top.dma_poll_for_idle_ch0_ready = idle;
        top.dma_poll_for_idle_ch0_res0 = idle;
      } else {
        top.dma_poll_for_idle_ch1_ready = idle;
        top.dma_poll_for_idle_ch1_res0 = idle;
      }
    }
    top.burst_write_enable = 0;
    top.burst_write_addr = 0;
    top.burst_write_data = 0;
    top.burst_read_0_enable = 0;
    top.burst_read_0_addr = 0;
    top.burst_read_1_enable = 0;
    if (eng_active && eng_wait == 0) {
      if (eng_dir) {
        uint64_t d = 0;
        for (int k = 7; k >= 0; --k) d = (d << 8) | mem.read8(eng_cpu + 8 * eng_k + k);
        top.burst_write_enable = 1;
        top.burst_write_addr = eng_a;
        top.burst_write_data = d;
      } else if (!eng_read) {
        top.burst_read_0_enable = 1;
        top.burst_read_0_addr = eng_a;
      } else {
        top.burst_read_1_enable = 1;
      }
    }

    top.hella_cmd_hella_cmd_to_bus_ready = 1;
    bool due = !hresp.empty() && hresp.front().due == cyc;
    top.hella_resp_enable = due;
    top.hella_resp_hella_resp_data = due ? hresp.front().data : 0;
    top.hella_resp_hella_resp_tag = due ? hresp.front().tag : 0;
    top.hella_resp_hella_resp_cmd = due ? hresp.front().cmd : 0;
    top.hella_resp_hella_resp_size = due ? hresp.front().size : 0;
    top.hella_resp_hella_resp_signed = 0;
  }

  void push_dma(int ch, bool to_isax, uint32_t cpu, uint32_t isax, uint32_t len, uint32_t sx,
                uint32_t sy) {
    dq[ch].push_back(DmaReq{to_isax, cpu, isax, len, sx, sy, ++dseq});
  }
};

}  // namespace

int main(int argc, char **argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s CMDS MEM_HEX OUT MAX_CYCLES DMA_LATENCY\n", argv[0]);
    return 2;
  }
  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vkiln>(ctx.get());
  Env env(*top);
  env.dma_latency = static_cast<uint32_t>(std::strtoul(argv[5], nullptr, 10));
  const uint64_t max_cycles = std::strtoull(argv[4], nullptr, 10);

  if (FILE *f = std::fopen(argv[1], "r")) {
    Cmd c;
    while (std::fscanf(f, "%u %u %u %u %u", &c.opcode, &c.funct7, &c.rs1, &c.rs2, &c.rd) == 5)
      env.cmds.push_back(c);
    std::fclose(f);
  } else {
    std::perror(argv[1]);
    return 2;
  }
  if (FILE *f = std::fopen(argv[2], "r")) {
    unsigned a, v;
    while (std::fscanf(f, " @%x %x", &a, &v) == 2) env.mem.bytes[a] = static_cast<uint8_t>(v);
    std::fclose(f);
  } else {
    std::perror(argv[2]);
    return 2;
  }
  FILE *out = std::fopen(argv[3], "w");
  if (!out) {
    std::perror(argv[3]);
    return 2;
  }

  Vkiln &t = *top;
  Vkiln___024root *root = t.rootp;
  // Reset: one clock edge with rst high.
  t.rst = 1;
  env.drive(0);
  t.clk = 0;
  t.eval();
  t.clk = 1;
  t.eval();
  t.rst = 0;

  uint64_t cyc = 0;
  int64_t last_fire = -1;
  int done = 0;
  bool stopped = false;
  while (!done) {
    env.drive(cyc);
    t.clk = 0;
    t.eval();
    // Step 2: sample every handshake before the edge; step 4: update the environment.
    bool fired = root->KILN_TOP_SIG(kiln_any_fire);
    bool busy = false;
    if (fired) last_fire = static_cast<int64_t>(cyc);
    for (const Watch &w : KILN_WATCH) {
      if (stopped || !w.on(root)) continue;
      if (w.kind == FAULT)
        std::fprintf(out, "fault %s %s %llu\n", w.inst, w.rule, (unsigned long long)cyc);
      else
        std::fprintf(out, "hazard %s %llu %u %u\n", w.rule, (unsigned long long)cyc,
                     w.addr(root), w.load(root));
      stopped = true;
    }
    if (t.rocc_cmd_enable && t.rocc_cmd_ready) {
      std::fprintf(out, "cmd %llu\n", (unsigned long long)cyc);
      env.cmd_i++;
      busy = true;
    }
    if (t.rocc_resp_rocc_resp_to_bus_enable && t.rocc_resp_rocc_resp_to_bus_ready)
      std::fprintf(out, "resp %u %u %llu\n", (unsigned)t.rocc_resp_rocc_resp_to_bus_result_rd,
                   (unsigned)t.rocc_resp_rocc_resp_to_bus_result_rddata,
                   (unsigned long long)cyc);
    // HellaCache: the response of this cycle is taken (ready is 1); a request that fired
    // reads memory as it is now, a store writes at the end of the cycle; answered next cycle.
    if (t.hella_resp_enable && !env.hresp.empty() && env.hresp.front().due == cyc)
      env.hresp.pop_front();
    if (t.hella_cmd_hella_cmd_to_bus_enable && t.hella_cmd_hella_cmd_to_bus_ready) {
      uint32_t a = t.hella_cmd_hella_cmd_to_bus_cmd_addr & ~3u;
      uint32_t cmd = t.hella_cmd_hella_cmd_to_bus_cmd_cmd;
      uint32_t data = cmd == 0 ? env.mem.read32(a) : 0;
      if (cmd == 1) {
        uint32_t d = t.hella_cmd_hella_cmd_to_bus_cmd_data;
        uint32_t m = t.hella_cmd_hella_cmd_to_bus_cmd_mask;
        for (int j = 0; j < 4; ++j)
          if (m >> j & 1) env.mem.write8(a + j, static_cast<uint8_t>(d >> (8 * j)));
      }
      env.hresp.push_back(Env::HellaResp{cyc + 1, data, t.hella_cmd_hella_cmd_to_bus_cmd_tag,
                                         cmd, t.hella_cmd_hella_cmd_to_bus_cmd_size});
    }
    if (!env.hresp.empty()) busy = true;
    // DMA: the beat's CPU write, the engine's step, this cycle's requests queued, an idle
    // engine taking the oldest.
    if (t.burst_read_1_enable && t.burst_read_1_ready) {
      uint64_t d = t.burst_read_1_res0;
      for (int k = 0; k < 8; ++k)
        env.mem.write8(env.eng_cpu + 8 * env.eng_k + k, static_cast<uint8_t>(d >> (8 * k)));
    }
    if (env.eng_active) {
      busy = true;
      if (env.eng_wait > 0) {
        env.eng_wait--;
      } else if (!env.eng_dir && !env.eng_read) {
        env.eng_read = true;
      } else {
        env.eng_read = false;
        env.eng_k++;
        if (env.eng_sx != 0 && env.eng_t + 8 >= env.eng_sx) {
          env.eng_a = env.eng_a + env.eng_sx * env.eng_sy - env.eng_t;
          env.eng_t = 0;
        } else {
          env.eng_a += 8;
          env.eng_t += 8;
        }
        if (env.eng_k >= env.eng_n) env.eng_active = false;
      }
    }
    if (t.dma_cpu_to_isax_ch0_enable && t.dma_cpu_to_isax_ch0_ready)
      env.push_dma(0, true, t.dma_cpu_to_isax_ch0_cpu_addr, t.dma_cpu_to_isax_ch0_isax_addr,
                   t.dma_cpu_to_isax_ch0_length, t.dma_cpu_to_isax_ch0_stride_x,
                   t.dma_cpu_to_isax_ch0_stride_y);
    if (t.dma_isax_to_cpu_ch0_enable && t.dma_isax_to_cpu_ch0_ready)
      env.push_dma(0, false, t.dma_isax_to_cpu_ch0_cpu_addr, t.dma_isax_to_cpu_ch0_isax_addr,
                   t.dma_isax_to_cpu_ch0_length, t.dma_isax_to_cpu_ch0_stride_x,
                   t.dma_isax_to_cpu_ch0_stride_y);
    if (t.dma_cpu_to_isax_ch1_enable && t.dma_cpu_to_isax_ch1_ready)
      env.push_dma(1, true, t.dma_cpu_to_isax_ch1_cpu_addr, t.dma_cpu_to_isax_ch1_isax_addr,
                   t.dma_cpu_to_isax_ch1_length, t.dma_cpu_to_isax_ch1_stride_x,
                   t.dma_cpu_to_isax_ch1_stride_y);
    if (t.dma_isax_to_cpu_ch1_enable && t.dma_isax_to_cpu_ch1_ready)
      env.push_dma(1, false, t.dma_isax_to_cpu_ch1_cpu_addr, t.dma_isax_to_cpu_ch1_isax_addr,
                   t.dma_isax_to_cpu_ch1_length, t.dma_isax_to_cpu_ch1_stride_x,
                   t.dma_isax_to_cpu_ch1_stride_y);
    if (!env.eng_active) {
      int pick = -1;
      for (int k = 0; k < 2; ++k)
        if (!env.dq[k].empty() && (pick < 0 || env.dq[k].front().seq < env.dq[pick].front().seq))
          pick = k;
      if (pick >= 0) {
        DmaReq r = env.dq[pick].front();
        env.dq[pick].pop_front();
        env.eng_active = true;
        env.eng_ch = pick;
        env.eng_dir = r.to_isax;
        env.eng_cpu = r.cpu;
        env.eng_a = r.isax;
        env.eng_sx = r.sx;
        env.eng_sy = r.sy;
        env.eng_n = ((uint64_t)1 << r.length) / 8;
        if (env.eng_n == 0) env.eng_n = 1;
        env.eng_k = 0;
        env.eng_t = 0;
        env.eng_read = false;
        env.eng_wait = env.dma_latency;
      }
    }
    if (env.eng_active || !env.dq[0].empty() || !env.dq[1].empty()) busy = true;
    // Step 3: the clock edge.
    t.clk = 1;
    t.eval();
    if (stopped)
      done = 3;
    else if (!fired && !busy)
      done = 1;
    else if (cyc + 1 >= max_cycles) {
      std::fprintf(out, "status timeout\n");
      done = 2;
    } else
      cyc++;
  }
  if (done == 1) std::fprintf(out, "status ok\n");
  if (done == 3) std::fprintf(out, "status stopped\n");
  unsigned long long left = env.cmds.size() - env.cmd_i + root->KILN_TOP_SIG(kiln_cmdq_valid);
  std::fprintf(out, "end %llu\n", (unsigned long long)cyc);
  std::fprintf(out, "cmds_left %llu\n", left);
  std::fprintf(out, "cycles %lld\n", (long long)(last_fire + 1));
  std::fprintf(out, "errors 0\n");
  for (const auto &b : env.mem.bytes)
    if (b.second != 0 || env.mem.written.count(b.first))
      std::fprintf(out, "mem %u %u\n", b.first, b.second);
  for (const Fifo &f : KILN_FIFOS) {
    uint32_t n = f.count(root);
    if (n != 0) std::fprintf(out, "fifo %s %u\n", f.name, n);
  }
  std::fclose(out);
  top->final();
  return 0;
}
