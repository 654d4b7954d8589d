// kiln's Level-0 harness: runs a Verilated APS top (`Vkiln`) on a stream of commands in
// the reference environment of kiln_env.h, driving it through the ports of APS's SoC port
// convention only, and writes the Icarus testbench's `out.txt` format (read by
// `compiler::rules::sv::parse_tb_output`).
//
// Usage: harness CMDS MEM_HEX OUT MAX_CYCLES DMA_LATENCY
//   CMDS: `opcode funct7 rs1 rs2 rd` per line, or `1000 lane value before 0` for a CPU CSR
//   write; MEM_HEX: `@addr byte` per byte.

#include "kiln_env.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <set>

namespace {

// Host memory: sparse, remembering which bytes were written.
class HostMemory : public kiln::Memory {
 public:
  std::map<uint32_t, uint8_t> bytes;
  std::set<uint32_t> written;
  uint8_t read8(uint32_t a) override {
    auto it = bytes.find(a);
    return it == bytes.end() ? 0 : it->second;
  }
  void write8(uint32_t a, uint8_t v) override {
    bytes[a] = v;
    written.insert(a);
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
  HostMemory mem;
  kiln::Env env(*top, mem);
  env.dma_latency = static_cast<uint32_t>(std::strtoul(argv[5], nullptr, 10));
  const uint64_t max_cycles = std::strtoull(argv[4], nullptr, 10);
  if (FILE *f = std::fopen(argv[1], "r")) {
    kiln::Cmd c;
    while (std::fscanf(f, "%u %u %u %u %u", &c.opcode, &c.funct7, &c.rs1, &c.rs2, &c.rd) == 5) {
      if (c.opcode == 1000)
        env.csr_writes.push_back(kiln::CsrWrite{c.rs2, c.funct7, c.rs1});
      else
        env.cmds.push_back(c);
    }
    std::fclose(f);
  } else {
    std::perror(argv[1]);
    return 2;
  }
  if (FILE *f = std::fopen(argv[2], "r")) {
    unsigned a, v;
    while (std::fscanf(f, " @%x %x", &a, &v) == 2) mem.bytes[a] = static_cast<uint8_t>(v);
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

  env.cpu_csr_writes(0);
  env.reset();
  uint64_t cyc = 0;
  int64_t last_fire = -1;
  int done = 0;
  while (!done) {
    kiln::Step s = env.cycle(cyc, out);
    if (s.fired) last_fire = static_cast<int64_t>(cyc);
    if (s.stop)
      done = 3;
    else if (!s.fired && !s.busy)
      done = 1;
    else if (cyc + 1 >= max_cycles) {
      std::fprintf(out, "status timeout\n");
      done = 2;
    } else
      cyc++;
  }
  if (done == 1) std::fprintf(out, "status ok\n");
  if (done == 3) std::fprintf(out, "status stopped\n");
  unsigned long long left = env.cmds.size() - env.cmd_i + (env.command_held() ? 1 : 0);
  Vkiln___024root *root = top->rootp;
  std::fprintf(out, "end %llu\n", (unsigned long long)cyc);
  std::fprintf(out, "cmds_left %llu\n", left);
  std::fprintf(out, "cycles %lld\n", (long long)(last_fire + 1));
  std::fprintf(out, "errors 0\n");
  for (const auto &b : mem.bytes)
    if (b.second != 0 || mem.written.count(b.first))
      std::fprintf(out, "mem %u %u\n", b.first, b.second);
  for (const Fifo &f : KILN_FIFOS) {
    uint32_t n = f.count(root);
    if (n != 0) std::fprintf(out, "fifo %s %u\n", f.name, n);
  }
  for (const Fifo &p : KILN_PCS) std::fprintf(out, "reg %s %x\n", p.name, p.count(root));
  for (size_t k = 0; k < KILN_CSRS.size(); ++k)
    std::fprintf(out, "csr %s %u\n", KILN_CSRS[k].name, env.csrs[k]);
  std::fclose(out);
  top->final();
  return 0;
}
