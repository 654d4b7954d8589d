//! The behavioural testbench: CPU memory, the DMA engine with the simulator's latency
//! model, the RoCC driver, and what it prints for [`super::parse_tb_output`] (and, with
//! [`TbConfig::waves`], each cycle's waveform values).

use super::*;

/// Parameters of the generated testbench.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TbConfig {
    /// Idle cycles of the DMA engine before each request's first beat (the simulator's
    /// `dma_latency`).
    pub dma_latency: u32,
    pub max_cycles: u64,
    /// CPU memory window `[0, mem_bytes)` modelled by the testbench.
    pub mem_bytes: u32,
    /// Module name of the testbench and the prefix of its files (`<prefix>cmds.txt`,
    /// `<prefix>mem.hex`, `<prefix>out.txt`): several testbenches can share one
    /// simulation (see [`batch_top`]).
    pub module: String,
    pub file_prefix: String,
    /// Whether the testbench ends the simulation (`$finish`) when done; otherwise it sets
    /// `finished` and a [`batch_top`] ends the run once every testbench is done.
    pub standalone: bool,
    /// Print every cycle's values of the [`crate::rules::waves`] signals (`w` lines).
    pub waves: bool,
    /// Answer HellaCache requests out of order: a load with an even tag `hella_delay`
    /// cycles later than the reference environment does (0: the reference environment).
    /// Results stay the same, timing does not (the simulator models only the reference).
    pub hella_delay: u32,
}

impl Default for TbConfig {
    fn default() -> TbConfig {
        TbConfig {
            dma_latency: 0,
            max_cycles: 5_000_000,
            mem_bytes: 1 << 16,
            module: "kiln_tb".into(),
            file_prefix: String::new(),
            standalone: true,
            waves: false,
            hella_delay: 0,
        }
    }
}

/// A top module `kiln_batch` instantiating the (non-standalone) testbench modules
/// `modules` and finishing the simulation once all of them are done.
pub fn batch_top(modules: &[String]) -> String {
    let mut out = String::from(
        "`timescale 1ns/1ps\n// Runs several kiln testbenches in one simulation.\nmodule kiln_batch;\n",
    );
    for (k, m) in modules.iter().enumerate() {
        let _ = writeln!(out, "  {m} tb{k} ();");
    }
    let all: Vec<String> = (0..modules.len())
        .map(|k| format!("tb{k}.finished"))
        .collect();
    let _ = writeln!(
        out,
        "  initial begin\n    wait ({});\n    $finish;\n  end\nendmodule",
        join_or(&all, " && ", "1'b1")
    );
    out
}

/// A behavioural testbench for the top of `c` (module `kiln_tb`). It reads `cmds.txt`
/// (`opcode funct7 rs1 rs2 rd` per line) and `mem.hex` (`$readmemh` bytes), drives the RoCC command
/// port (commands in order, one per cycle), answers HellaCache requests one cycle after
/// they fire, runs the DMA engine (a queue per channel, one burst engine driving one beat
/// per cycle on the burst ports) — the reference environment of `docs/soc.md`, as
/// [`crate::rules::sim`] models it —, stops when nothing fired
/// and nothing is in flight (or a rule fired with a CPU-memory hazard), and writes
/// `out.txt`: `cmd cycle` (per accepted command), `resp rd value cycle`, `status`, `end
/// cycle`, `cmds_left n`, `cycles`, `mem addr byte` (bytes non-zero or written), `bank name
/// index value`, `reg name value`, `fifo name count` (FIFOs not empty at the end) and
/// `hazard rule cycle addr is_load`.
pub fn testbench(c: &Circuit, info: &TopInfo, cfg: &TbConfig) -> String {
    let mut decl = String::new();
    let mut conns: Vec<String> = vec![".clk(clk)".into(), ".rst(rst)".into()];
    let mut drive = String::new();
    let mut sample = String::new();
    let mut dump = String::new();
    let mut csr_init = String::new();
    let mut csr_dump = String::new();
    let has_rocc = c
        .instances
        .iter()
        .any(|i| matches!(i.kind, InstanceKind::Rocc));
    if has_rocc {
        decl.push_str(
            "  logic rocc_cmd_enable, rocc_resp_rocc_resp_to_bus_ready;\n  logic rocc_cmd_rocc_cmd_xs1, rocc_cmd_rocc_cmd_xs2, rocc_cmd_rocc_cmd_xd;\n  logic [6:0] rocc_cmd_rocc_cmd_funct, rocc_cmd_rocc_cmd_opcode;\n  logic [4:0] rocc_cmd_rocc_cmd_rs1, rocc_cmd_rocc_cmd_rs2, rocc_cmd_rocc_cmd_rd;\n  logic [31:0] rocc_cmd_rocc_cmd_rs1data, rocc_cmd_rocc_cmd_rs2data;\n  wire rocc_cmd_ready, rocc_resp_rocc_resp_to_bus_enable;\n  wire [4:0] rocc_resp_rocc_resp_to_bus_result_rd;\n  wire [31:0] rocc_resp_rocc_resp_to_bus_result_rddata;\n",
        );
        for p in [
            "rocc_cmd_enable",
            "rocc_cmd_ready",
            "rocc_cmd_rocc_cmd_funct",
            "rocc_cmd_rocc_cmd_rs1",
            "rocc_cmd_rocc_cmd_rs2",
            "rocc_cmd_rocc_cmd_rd",
            "rocc_cmd_rocc_cmd_xs1",
            "rocc_cmd_rocc_cmd_xs2",
            "rocc_cmd_rocc_cmd_xd",
            "rocc_cmd_rocc_cmd_opcode",
            "rocc_cmd_rocc_cmd_rs1data",
            "rocc_cmd_rocc_cmd_rs2data",
            "rocc_resp_rocc_resp_to_bus_result_rd",
            "rocc_resp_rocc_resp_to_bus_result_rddata",
            "rocc_resp_rocc_resp_to_bus_ready",
            "rocc_resp_rocc_resp_to_bus_enable",
        ] {
            conns.push(format!(".{p}({p})"));
        }
        // xs1/xs2/xd: the top takes the register values it reads and answers when its
        // function writes rd, whatever the instruction's funct3 says.
        drive.push_str(
            "    rocc_cmd_enable = cmd_i < ncmd;\n    rocc_cmd_rocc_cmd_rs1 = 5'd0; rocc_cmd_rocc_cmd_rs2 = 5'd0;\n    rocc_cmd_rocc_cmd_xs1 = 1'b1; rocc_cmd_rocc_cmd_xs2 = 1'b1; rocc_cmd_rocc_cmd_xd = 1'b1;\n    rocc_cmd_rocc_cmd_opcode = cmd_op[cmd_i][6:0];\n    rocc_cmd_rocc_cmd_funct = cmd_f7[cmd_i][6:0];\n    rocc_cmd_rocc_cmd_rd = cmd_rd[cmd_i][4:0];\n    rocc_cmd_rocc_cmd_rs1data = cmd_rs1[cmd_i];\n    rocc_cmd_rocc_cmd_rs2data = cmd_rs2[cmd_i];\n    rocc_resp_rocc_resp_to_bus_ready = 1'b1;\n",
        );
        sample.push_str(
            "    if (rocc_cmd_enable && rocc_cmd_ready) begin\n      $fdisplay(out, \"cmd %0d\", cyc);\n      cmd_i = cmd_i + 1;\n      cmd_fired = 1;\n      busy = 1;\n    end\n    if (rocc_resp_rocc_resp_to_bus_enable && rocc_resp_rocc_resp_to_bus_ready) $fdisplay(out, \"resp %0d %0d %0d\", rocc_resp_rocc_resp_to_bus_result_rd, rocc_resp_rocc_resp_to_bus_result_rddata, cyc);\n",
        );
    }
    // Rocket's CSR file, one lane per CSR: value state (`csrv`), both readies 1; a
    // write-back (set_enable) and the CPU's writes before a command (`csrw`, from the
    // commands file) store `value & mask`, visible from the next cycle.
    let mut csr_apply = String::new();
    for (k, (lane, _, mask, init)) in info.csrs.iter().enumerate() {
        let i = format!("csr_{lane}");
        let _ = writeln!(
            decl,
            "  logic [31:0] {i}_value_res0;\n  logic {i}_value_ready, {i}_set_ready;\n  wire [31:0] {i}_set_{lane}_sdata;\n  wire {i}_set_enable;"
        );
        for p in [
            "value_res0".to_string(),
            "value_ready".into(),
            format!("set_{lane}_sdata"),
            "set_ready".into(),
            "set_enable".into(),
        ] {
            conns.push(format!(".{i}_{p}({i}_{p})"));
        }
        let _ = writeln!(
            drive,
            "    {i}_value_res0 = csrv[{k}]; {i}_value_ready = 1'b1; {i}_set_ready = 1'b1;"
        );
        let _ = writeln!(
            sample,
            "    if ({i}_set_enable && {i}_set_ready) begin\n      $fdisplay(out, \"csr_set {lane} %0d %0d\", {i}_set_{lane}_sdata, cyc);\n      csrv[{k}] = ({i}_set_{lane}_sdata & 32'h{mask:x}) | (csrv[{k}] & ~32'h{mask:x});\n    end"
        );
        let _ = writeln!(
            csr_apply,
            "      if (csrw_lane[k] == {k}) csrv[{k}] = (csrw_val[k] & 32'h{mask:x}) | (csrv[{k}] & ~32'h{mask:x});"
        );
        let _ = writeln!(csr_init, "    csrv[{k}] = 32'h{:x};", init & mask);
        let _ = writeln!(
            csr_dump,
            "    $fdisplay(out, \"csr {lane} %0d\", csrv[{k}]);"
        );
    }
    // The reference environment's HellaCache: always ready; the request fired in a cycle
    // is answered in the next (a load with memory as that cycle starts, a store written
    // at its end, before the DMA's CPU writes).
    for (m, _) in info.memports.iter().take(1) {
        decl.push_str(
            "  logic hella_cmd_hella_cmd_to_bus_ready, hella_resp_enable, hella_resp_hella_resp_signed;\n  logic [31:0] hella_resp_hella_resp_data;\n  logic [7:0] hella_resp_hella_resp_tag;\n  logic [4:0] hella_resp_hella_resp_cmd;\n  logic [1:0] hella_resp_hella_resp_size;\n  wire hella_cmd_hella_cmd_to_bus_enable, hella_resp_ready;\n  wire [31:0] hella_cmd_hella_cmd_to_bus_cmd_addr, hella_cmd_hella_cmd_to_bus_cmd_data;\n  wire [7:0] hella_cmd_hella_cmd_to_bus_cmd_tag;\n  wire [4:0] hella_cmd_hella_cmd_to_bus_cmd_cmd;\n  wire [1:0] hella_cmd_hella_cmd_to_bus_cmd_size;\n  wire hella_cmd_hella_cmd_to_bus_cmd_signed, hella_cmd_hella_cmd_to_bus_cmd_phys;\n  wire [3:0] hella_cmd_hella_cmd_to_bus_cmd_mask;\n  logic hella_rv [0:15];\n  logic [31:0] hella_rdata [0:15];\n  logic [7:0] hella_rtag [0:15];\n  logic [4:0] hella_rcmd [0:15];\n  integer hella_due [0:15];\n  integer hella_cur, hella_j;\n",
        );
        for p in [
            "hella_cmd_hella_cmd_to_bus_cmd_addr",
            "hella_cmd_hella_cmd_to_bus_cmd_tag",
            "hella_cmd_hella_cmd_to_bus_cmd_cmd",
            "hella_cmd_hella_cmd_to_bus_cmd_size",
            "hella_cmd_hella_cmd_to_bus_cmd_signed",
            "hella_cmd_hella_cmd_to_bus_cmd_phys",
            "hella_cmd_hella_cmd_to_bus_cmd_data",
            "hella_cmd_hella_cmd_to_bus_cmd_mask",
            "hella_cmd_hella_cmd_to_bus_ready",
            "hella_cmd_hella_cmd_to_bus_enable",
            "hella_resp_enable",
            "hella_resp_ready",
            "hella_resp_hella_resp_data",
            "hella_resp_hella_resp_tag",
            "hella_resp_hella_resp_cmd",
            "hella_resp_hella_resp_size",
            "hella_resp_hella_resp_signed",
        ] {
            conns.push(format!(".{p}({p})"));
        }
        // Answers wait in a table (due cycle, tag, cmd, data); each cycle presents the one
        // due earliest (lowest entry on ties), at most one.
        drive.push_str(
            "    hella_cmd_hella_cmd_to_bus_ready = 1'b1;\n    hella_cur = -1;\n    for (hella_j = 0; hella_j < 16; hella_j = hella_j + 1)\n      if (hella_rv[hella_j] && hella_due[hella_j] <= cyc && (hella_cur < 0 || hella_due[hella_j] < hella_due[hella_cur])) hella_cur = hella_j;\n    hella_resp_enable = hella_cur >= 0;\n    hella_resp_hella_resp_data = hella_cur >= 0 ? hella_rdata[hella_cur] : 32'd0;\n    hella_resp_hella_resp_tag = hella_cur >= 0 ? hella_rtag[hella_cur] : 8'd0;\n    hella_resp_hella_resp_cmd = hella_cur >= 0 ? hella_rcmd[hella_cur] : 5'd0;\n    hella_resp_hella_resp_size = 2'd2;\n    hella_resp_hella_resp_signed = 1'b0;\n",
        );
        let _ = writeln!(
            sample,
            "    if (hella_resp_enable && hella_resp_ready) hella_rv[hella_cur] = 1'b0;\n    if (hella_cmd_hella_cmd_to_bus_enable && hella_cmd_hella_cmd_to_bus_ready) begin\n      hella_j = 0;\n      while (hella_j < 15 && hella_rv[hella_j]) hella_j = hella_j + 1;\n      hella_rv[hella_j] = 1'b1;\n      hella_due[hella_j] = cyc + 1 + ((hella_cmd_hella_cmd_to_bus_cmd_cmd == 5'd0 && !hella_cmd_hella_cmd_to_bus_cmd_tag[0]) ? {delay} : 0);\n      hella_rtag[hella_j] = hella_cmd_hella_cmd_to_bus_cmd_tag;\n      hella_rcmd[hella_j] = hella_cmd_hella_cmd_to_bus_cmd_cmd;\n      hella_rdata[hella_j] = 32'd0;\n      if (hella_cmd_hella_cmd_to_bus_cmd_cmd == 5'd0) hella_rdata[hella_j] = rdword(hella_cmd_hella_cmd_to_bus_cmd_addr);\n      else for (k = 0; k < 4; k = k + 1)\n        if (hella_cmd_hella_cmd_to_bus_cmd_mask[k]) wrbyte(hella_cmd_hella_cmd_to_bus_cmd_addr + k, hella_cmd_hella_cmd_to_bus_cmd_data[k*8 +: 8]);\n    end\n    for (hella_j = 0; hella_j < 16; hella_j = hella_j + 1) if (hella_rv[hella_j]) busy = 1;\n    if (dut.{m}__pending) busy = 1;",
            delay = cfg.hella_delay
        );
    }
    // The SoC's DMA engine (docs/soc.md, the reference environment): a queue per channel,
    // one burst engine taking the oldest request, driving the top's burst ports.
    let _ = writeln!(
        decl,
        "  logic burst_read_0_enable, burst_read_1_enable, burst_write_enable;\n  logic [31:0] burst_read_0_addr, burst_write_addr;\n  logic [63:0] burst_write_data;\n  wire burst_read_0_ready, burst_read_1_ready, burst_write_ready;\n  wire [63:0] burst_read_1_res0;\n  integer dq_n [0:1], dq_h [0:1], eng_k, eng_n, eng_wait, eng_ch, eng_t, dseq, pick;\n  logic dq_dir [0:1][0:31];\n  logic [31:0] dq_cpu [0:1][0:31], dq_isax [0:1][0:31];\n  logic [3:0] dq_len [0:1][0:31];\n  logic [7:0] dq_sx [0:1][0:31], dq_sy [0:1][0:31];\n  integer dq_seq [0:1][0:31];\n  logic eng_active, eng_dir, eng_read;\n  logic [31:0] eng_cpu, eng_a;\n  logic [7:0] eng_sx, eng_sy;"
    );
    for p in [
        "burst_read_0_enable",
        "burst_read_0_ready",
        "burst_read_0_addr",
        "burst_read_1_enable",
        "burst_read_1_ready",
        "burst_read_1_res0",
        "burst_write_enable",
        "burst_write_ready",
        "burst_write_addr",
        "burst_write_data",
    ] {
        conns.push(format!(".{p}({p})"));
    }
    let mut dma_drive = String::new();
    let mut dma_push = String::new();
    for ch in 0..crate::rules::DMA_CHANNELS {
        for to_isax in [true, false] {
            let m = DmaMethod::Request {
                to_isax,
                channel: ch,
            }
            .name();
            let _ = writeln!(
                decl,
                "  logic dma_{m}_ready;\n  wire dma_{m}_enable;\n  wire [31:0] dma_{m}_cpu_addr, dma_{m}_isax_addr;\n  wire [3:0] dma_{m}_length;\n  wire [7:0] dma_{m}_stride_x, dma_{m}_stride_y;"
            );
            for f in [
                "cpu_addr",
                "isax_addr",
                "length",
                "stride_x",
                "stride_y",
                "ready",
                "enable",
            ] {
                conns.push(format!(".dma_{m}_{f}(dma_{m}_{f})"));
            }
            let _ = writeln!(dma_drive, "    dma_{m}_ready = dq_n[{ch}] < 16;");
            let _ = writeln!(
                dma_push,
                "    if (dma_{m}_enable && dma_{m}_ready) begin\n      k = (dq_h[{ch}] + dq_n[{ch}]) % 32;\n      dq_dir[{ch}][k] = 1'b{}; dq_cpu[{ch}][k] = dma_{m}_cpu_addr; dq_isax[{ch}][k] = dma_{m}_isax_addr;\n      dq_len[{ch}][k] = dma_{m}_length; dq_sx[{ch}][k] = dma_{m}_stride_x; dq_sy[{ch}][k] = dma_{m}_stride_y;\n      dseq = dseq + 1; dq_seq[{ch}][k] = dseq; dq_n[{ch}] = dq_n[{ch}] + 1;\n    end",
                u8::from(to_isax)
            );
        }
        let _ = writeln!(
            decl,
            "  logic dma_poll_for_idle_ch{ch}_res0, dma_poll_for_idle_ch{ch}_ready;"
        );
        conns.push(format!(
            ".dma_poll_for_idle_ch{ch}_res0(dma_poll_for_idle_ch{ch}_res0)"
        ));
        conns.push(format!(
            ".dma_poll_for_idle_ch{ch}_ready(dma_poll_for_idle_ch{ch}_ready)"
        ));
        let _ = writeln!(
            dma_drive,
            "    dma_poll_for_idle_ch{ch}_ready = dq_n[{ch}] == 0 && !(eng_active && eng_ch == {ch});\n    dma_poll_for_idle_ch{ch}_res0 = dma_poll_for_idle_ch{ch}_ready;"
        );
    }
    let _ = writeln!(
        drive,
        "{dma_drive}    burst_write_enable = 1'b0; burst_write_addr = 32'd0; burst_write_data = 64'd0;\n    burst_read_0_enable = 1'b0; burst_read_0_addr = 32'd0; burst_read_1_enable = 1'b0;\n    if (eng_active && eng_wait == 0) begin\n      if (eng_dir) begin\n        burst_write_enable = 1'b1; burst_write_addr = eng_a;\n        for (k = 0; k < 8; k = k + 1) burst_write_data[k*8 +: 8] = rdbyte(eng_cpu + 8*eng_k + k);\n      end else if (!eng_read) begin\n        burst_read_0_enable = 1'b1; burst_read_0_addr = eng_a;\n      end else burst_read_1_enable = 1'b1;\n    end"
    );
    // After the CPU-memory port's stores of the cycle: the beat's CPU write, the engine's
    // step, the requests fired this cycle queued, an idle engine taking the oldest.
    let lat = cfg.dma_latency;
    let _ = write!(
        sample,
        "    if (burst_read_1_enable && burst_read_1_ready)
      for (k = 0; k < 8; k = k + 1) wrbyte(eng_cpu + 8*eng_k + k, burst_read_1_res0[k*8 +: 8]);
    if (eng_active) busy = 1;
    if (eng_active) begin
      if (eng_wait > 0) eng_wait = eng_wait - 1;
      else if (!eng_dir && !eng_read) eng_read = 1'b1;
      else begin
        eng_read = 1'b0;
        eng_k = eng_k + 1;
        if (eng_sx != 0 && eng_t + 8 >= eng_sx) begin
          eng_a = eng_a + eng_sx * eng_sy - eng_t; eng_t = 0;
        end else begin
          eng_a = eng_a + 8; eng_t = eng_t + 8;
        end
        if (eng_k >= eng_n) eng_active = 1'b0;
      end
    end
{dma_push}    if (!eng_active) begin
      pick = -1;
      for (k = 0; k < 2; k = k + 1)
        if (dq_n[k] > 0 && (pick < 0 || dq_seq[k][dq_h[k]] < dq_seq[pick][dq_h[pick]])) pick = k;
      if (pick >= 0) begin
        eng_active = 1'b1; eng_ch = pick; eng_dir = dq_dir[pick][dq_h[pick]];
        eng_cpu = dq_cpu[pick][dq_h[pick]]; eng_a = dq_isax[pick][dq_h[pick]];
        eng_sx = dq_sx[pick][dq_h[pick]]; eng_sy = dq_sy[pick][dq_h[pick]];
        eng_n = (64'd1 << dq_len[pick][dq_h[pick]]) / 8; if (eng_n == 0) eng_n = 1;
        eng_k = 0; eng_t = 0; eng_read = 1'b0; eng_wait = {lat};
        dq_h[pick] = (dq_h[pick] + 1) % 32; dq_n[pick] = dq_n[pick] - 1;
      end
    end
    if (eng_active || dq_n[0] > 0 || dq_n[1] > 0) busy = 1;
"
    );
    for (b, depth) in &info.banks {
        let _ = writeln!(
            dump,
            "    for (k = 0; k < {depth}; k = k + 1) $fdisplay(out, \"bank {b} %0d %0h\", k, dut.u_{b}.mem[k]);"
        );
    }
    for r in &info.regs {
        let ri = ident(r);
        let _ = writeln!(dump, "    $fdisplay(out, \"reg {r} %0h\", dut.u_{ri}.q);");
    }
    let mut watch = String::new();
    for w in &info.watch {
        match w {
            Watch::Hazard { rule, prefix: n } => {
                let _ = writeln!(
                    watch,
                    "    if (!hazard && dut.{n}__hazard) begin\n      $fdisplay(out, \"hazard {rule} %0d %0d %0d\", cyc, dut.{n}__hazard_addr, dut.{n}__hazard_load);\n      hazard = 1;\n    end"
                );
            }
            Watch::Fault { inst, rule, signal } => {
                let _ = writeln!(
                    watch,
                    "    if (!hazard && dut.{signal}) begin\n      $fdisplay(out, \"fault {inst} {rule} %0d\", cyc);\n      hazard = 1;\n    end"
                );
            }
        }
    }
    for (f, i) in &info.fifos {
        let _ = writeln!(
            dump,
            "    if (dut.{i}__cnt != 0) $fdisplay(out, \"fifo {f} %0d\", dut.{i}__cnt);"
        );
    }
    let dma_init = "    eng_active = 1'b0; eng_read = 1'b0; eng_k = 0; eng_n = 0; eng_wait = 0; eng_ch = 0; eng_t = 0; dseq = 0;\n    dq_n[0] = 0; dq_n[1] = 0; dq_h[0] = 0; dq_h[1] = 0;\n";
    let mem_init: String = match info.memports.is_empty() {
        true => String::new(),
        false => "    for (k = 0; k < 16; k = k + 1) begin\n      hella_rv[k] = 1'b0; hella_due[k] = 0; hella_rdata[k] = 32'd0; hella_rtag[k] = 8'd0; hella_rcmd[k] = 5'd0;\n    end\n    hella_cur = -1;\n".into(),
    };
    format!(
        "`timescale 1ns/1ps
// Testbench for `{top}`: CPU memory, DMA engine and RoCC driver (behavioural).
module {module};
  localparam integer MEMSZ = {memsz};
  logic clk, rst;
  logic [7:0] mem [0:MEMSZ-1];
  logic memw [0:MEMSZ-1];
  logic [31:0] cmd_op [0:255], cmd_f7 [0:255], cmd_rs1 [0:255], cmd_rs2 [0:255], cmd_rd [0:255];
  logic [31:0] csrv [0:{csrn}], csrw_lane [0:255], csrw_val [0:255], csrw_before [0:255];
  integer fd, out, ncmd, ncsrw, cmd_i, cmd_fired, cyc, last_fire, k, b, errors, busy, fired, done, hazard;
  logic finished = 1'b0;
  integer a0, a1, a2, a3, a4;
{decl}
  {top} dut (
    {conns}
  );

  function automatic [7:0] rdbyte(input [31:0] a);
    rdbyte = (a < MEMSZ) ? mem[a] : 8'd0;
  endfunction
  function automatic [31:0] rdword(input [31:0] a);
    rdword = {{rdbyte({{a[31:2], 2'b00}} + 3), rdbyte({{a[31:2], 2'b00}} + 2), rdbyte({{a[31:2], 2'b00}} + 1), rdbyte({{a[31:2], 2'b00}})}};
  endfunction
  task automatic wrbyte(input [31:0] a, input [7:0] v);
    if (a < MEMSZ) begin
      mem[a] = v;
      memw[a] = 1'b1;
    end else errors = errors + 1;
  endtask
  task automatic wrword(input [31:0] a, input [31:0] v);
    integer j;
    for (j = 0; j < 4; j = j + 1) wrbyte({{a[31:2], 2'b00}} + j, v[j*8 +: 8]);
  endtask

  // The CPU's CSR writes before command `c` (`csrw`).
  task csr_cpu(input integer c);
    for (k = 0; k < ncsrw; k = k + 1)
      if (csrw_before[k] == c) begin
{csr_apply}      end
  endtask

  task drive;
{drive}  endtask

  task sample;
{waves}    fired = dut.kiln_any_fire;
    busy = 0;
    cmd_fired = 0;
    if (fired) last_fire = cyc;
{watch}{sample}    if (cmd_fired) csr_cpu(cmd_i);
  endtask

  always #5 if (!finished) clk = ~clk;
  initial begin
    clk = 0; rst = 1; errors = 0; cmd_i = 0; ncmd = 0; ncsrw = 0; cyc = 0; last_fire = -1; done = 0; hazard = 0;
{csr_init}{dma_init}{mem_init}    for (k = 0; k < MEMSZ; k = k + 1) begin
      mem[k] = 8'd0;
      memw[k] = 1'b0;
    end
    $readmemh(\"{prefix}mem.hex\", mem);
    fd = $fopen(\"{prefix}cmds.txt\", \"r\");
    while ($fscanf(fd, \"%d %d %d %d %d\\n\", a0, a1, a2, a3, a4) == 5) begin
      if (a0 == {csr_tag}) begin
        csrw_lane[ncsrw] = a1; csrw_val[ncsrw] = a2; csrw_before[ncsrw] = a3;
        ncsrw = ncsrw + 1;
      end else begin
        cmd_op[ncmd] = a0; cmd_f7[ncmd] = a1; cmd_rs1[ncmd] = a2; cmd_rs2[ncmd] = a3; cmd_rd[ncmd] = a4;
        ncmd = ncmd + 1;
      end
    end
    csr_cpu(0);
    $fclose(fd);
    out = $fopen(\"{prefix}out.txt\", \"w\");
    drive;
    @(posedge clk);
    #1 rst = 0;
    while (!done) begin
      @(posedge clk);
      sample;
      if (hazard) done = 3;
      else if (!fired && !busy) done = 1;
      else if (cyc + 1 >= {maxc}) begin
        $fdisplay(out, \"status timeout\");
        done = 2;
      end else begin
        cyc = cyc + 1;
        #1 drive;
      end
    end
    if (done == 1) $fdisplay(out, \"status ok\");
    if (done == 3) $fdisplay(out, \"status stopped\");
    $fdisplay(out, \"end %0d\", cyc);
    $fdisplay(out, \"cmds_left %0d\", ncmd - cmd_i{held});
    $fdisplay(out, \"cycles %0d\", last_fire + 1);
    $fdisplay(out, \"errors %0d\", errors);
    for (k = 0; k < MEMSZ; k = k + 1) if (mem[k] != 0 || memw[k]) $fdisplay(out, \"mem %0d %0d\", k, mem[k]);
{csr_dump}{dump}    $fclose(out);
    finished = 1'b1;
{finish}  end
endmodule
",
        top = info.top,
        module = cfg.module,
        csrn = info.csrs.len().max(1) - 1,
        csr_tag = CSR_WRITE_TAG,
        prefix = cfg.file_prefix,
        finish = if cfg.standalone { "    $finish;\n" } else { "" },
        memsz = cfg.mem_bytes,
        maxc = cfg.max_cycles,
        waves = match cfg.waves {
            true => crate::rules::waves::tb_sample_line(&crate::rules::waves::circuit_signals(c)),
            false => String::new(),
        },
        conns = conns.join(",\n    "),
        // A command the register holds is not taken either.
        held = if has_rocc { " + dut.kiln_cmdq_valid" } else { "" },
    )
}

/// The testbench's `mem.hex` for an initial CPU memory.
pub fn mem_hex(mem: &BTreeMap<u32, u8>) -> String {
    mem.iter()
        .map(|(a, v)| format!("@{a:x} {v:02x}\n"))
        .collect()
}

/// The first field of a `cmds.txt` line that is a CPU CSR write, not a command (opcodes
/// have 7 bits).
const CSR_WRITE_TAG: u32 = 1000;

/// The testbench's `cmds.txt`: `opcode funct7 rs1 rs2 rd` per command, then
/// `1000 lane value before 0` per CPU CSR write (`lane` the index in `info.csrs`; writes of
/// lanes the top does not have are left out).
pub fn cmds_text(
    cmds: &[crate::rules::sim::Command],
    csr_writes: &[crate::rules::sim::CsrWrite],
    info: &TopInfo,
) -> String {
    let mut out: String = cmds
        .iter()
        .map(|c| format!("{} {} {} {} {}\n", c.opcode, c.funct7, c.rs1, c.rs2, c.rd))
        .collect();
    for w in csr_writes {
        if let Some(k) = info.csrs.iter().position(|(l, _, _, _)| *l == w.lane) {
            let _ = writeln!(out, "{CSR_WRITE_TAG} {k} {} {} 0", w.value, w.before);
        }
    }
    out
}

/// The Level-0 harness (`harness.cc`): drives the top through the convention's ports with
/// the reference environment, as [`testbench`] does, under Verilator.
pub const HARNESS_CC: &str = include_str!("harness.cc");

/// The reference environment in C++ (`kiln_env.h`), shared by [`HARNESS_CC`] and
/// [`SPIKE_EXT_CC`].
pub const KILN_ENV_H: &str = include_str!("kiln_env.h");

/// The Spike extension (`spike_ext.cc`): each custom instruction of the design runs on the
/// Verilated top in the reference environment, over Spike's memory.
pub const SPIKE_EXT_CC: &str = include_str!("spike_ext.cc");

/// `kiln_design.h` for [`HARNESS_CC`]: where the Verilated top (`--prefix Vkiln`) keeps the
/// signals the harness watches (each marked `verilator public_flat_rd` by the emitter).
pub fn harness_header(info: &TopInfo, instructions: &[crate::rules::Instruction]) -> String {
    let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let sig = |s: &str| {
        format!(
            "[](Vkiln___024root *r) -> uint32_t {{ return r->KILN_TOP_SIG({}); }}",
            verilated_name(s)
        )
    };
    let mut out = format!(
        "// Generated by kiln for the top `{top}`.\n#define KILN_TOP_SIG(name) {}__DOT__##name\n\nstatic const std::vector<Fifo> KILN_FIFOS = {{\n",
        verilated_name(&info.top),
        top = info.top
    );
    for (name, i) in &info.fifos {
        let _ = writeln!(out, "  {{{}, {}}},", q(name), sig(&format!("{i}__cnt")));
    }
    out.push_str("};\n\nstatic const std::vector<Instr> KILN_INSTRUCTIONS = {\n");
    for ins in instructions {
        let _ = writeln!(
            out,
            "  {{{:#04x}, {}, {}}},",
            ins.opcode,
            ins.funct7,
            q(&ins.function)
        );
    }
    out.push_str("};\n\nstatic const std::vector<Fifo> KILN_PCS = {\n");
    for (name, i) in &info.pcs {
        let _ = writeln!(out, "  {{{}, {}}},", q(name), sig(&format!("{i}__q")));
    }
    out.push_str("};\n\nstatic const std::vector<Watch> KILN_WATCH = {\n");
    for w in &info.watch {
        let _ = match w {
            Watch::Fault { inst, rule, signal } => writeln!(
                out,
                "  {{FAULT, {}, {}, {}, nullptr, nullptr}},",
                q(inst),
                q(rule),
                sig(signal)
            ),
            Watch::Hazard { rule, prefix } => writeln!(
                out,
                "  {{HAZARD, \"\", {}, {}, {}, {}}},",
                q(rule),
                sig(&format!("{prefix}__hazard")),
                sig(&format!("{prefix}__hazard_addr")),
                sig(&format!("{prefix}__hazard_load"))
            ),
        };
    }
    // The CSR lanes: Rocket's address, mask and reset value, how the environment drives
    // the lane's inputs and reads its write-back.
    out.push_str("};\n\nstatic const std::vector<Csr> KILN_CSRS = {\n");
    for (lane, id, mask, init) in &info.csrs {
        let p = |s: &str| verilated_name(&format!("csr_{lane}_{s}"));
        let _ = writeln!(
            out,
            "  {{{}, {id:#x}u, {mask:#x}u, {init:#x}u,\n   [](Vkiln &t, uint32_t v) {{ t.{} = v; t.{} = 1; t.{} = 1; }},\n   [](Vkiln &t, uint32_t *d) -> bool {{ *d = t.{}; return t.{}; }}}},",
            q(lane),
            p("value_res0"),
            p("value_ready"),
            p("set_ready"),
            p(&format!("set_{lane}_sdata")),
            p("set_enable"),
        );
    }
    out.push_str("};\n");
    out
}

/// The name Verilator gives a signal in its C++ model: of every `__` in the SystemVerilog
/// name, the second `_` is written `__05F` (`a__b` is `a___05Fb`, `c___d` is `c___05F_d`).
fn verilated_name(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut after_underscore = false;
    for ch in s.chars() {
        match (ch, after_underscore) {
            ('_', true) => {
                out.push_str("__05F");
                after_underscore = false;
            }
            ('_', false) => {
                out.push('_');
                after_underscore = true;
            }
            _ => {
                out.push(ch);
                after_underscore = false;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// Checked against the names Verilator 5.006 writes into `V<prefix>___024root.h`.
    #[test]
    fn verilated_names_encode_double_underscores() {
        assert_eq!(super::verilated_name("a__b"), "a___05Fb");
        assert_eq!(super::verilated_name("c___d"), "c___05F_d");
        assert_eq!(super::verilated_name("e____f"), "e___05F___05Ff");
        assert_eq!(super::verilated_name("g_"), "g_");
        assert_eq!(super::verilated_name("kiln_any_fire"), "kiln_any_fire");
    }
}
