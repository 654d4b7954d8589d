//! The top's instances and SoC ports in SystemVerilog: each FIFO, register, bank and
//! CSR lane as the rules use them, the RoCC adapter, the DMA requests with the
//! scratchpad's burst decode, the CPU-memory port's request queue and response buffer,
//! and the port lists of the convention (`docs/soc.md`).

use super::*;

impl Emitter<'_> {
    pub(super) fn fifo(
        &self,
        out: &mut String,
        prims: &mut BTreeMap<String, String>,
        name: &str,
        i: &str,
        width: u32,
        depth: u32,
    ) {
        let (w, d) = (width.max(1), depth.max(1));
        let module = format!("kiln_fifo_w{w}_d{d}");
        prims
            .entry(module.clone())
            .or_insert_with(|| fifo_module(&module, w, d));
        let deqs = self.sites(name, "deq");
        let enqs = self.sites(name, "enq");
        let deq_n = count(&deqs.iter().map(|s| s.en.clone()).collect::<Vec<_>>());
        let enq_n = count(&enqs.iter().map(|s| s.en.clone()).collect::<Vec<_>>());
        let slots: Vec<String> = (0..d)
            .rev()
            .map(|j| and_or(&enqs, w, |s| format!("({} == 8'd{j})", s.slot), 0))
            .collect();
        let _ = writeln!(
            out,
            "\n  // FIFO {name} (width {w}, depth {d})\n  logic [7:0] {i}__cnt /*verilator public_flat_rd*/;\n  logic [{}:0] {i}__data;\n  {module} u_{i} (.clk(clk), .rst(rst), .cnt({i}__cnt), .data({i}__data),\n    .deq_n({deq_n}), .enq_n({enq_n}),\n    .enq_data({{{}}}));",
            d * w - 1,
            lines(&slots, ", ")
        );
    }

    pub(super) fn reg(
        &self,
        out: &mut String,
        prims: &mut BTreeMap<String, String>,
        name: &str,
        i: &str,
        width: u32,
        init: u128,
    ) {
        let w = width.max(1);
        let module = format!("kiln_reg_w{w}");
        prims
            .entry(module.clone())
            .or_insert_with(|| reg_module(&module, w));
        let ws = self.sites(name, "write");
        let wen = any(&ws.iter().map(|s| s.en.clone()).collect::<Vec<_>>());
        let wdata = and_or(&ws, w, |_| "1'b1".into(), 0);
        let _ = writeln!(
            out,
            "\n  // register {name}\n  logic [{}:0] {i}__q /*verilator public_flat_rd*/;\n  {module} #(.INIT({})) u_{i} (.clk(clk), .rst(rst), .wen({wen}), .wdata({wdata}), .q({i}__q));",
            w - 1,
            hex(crate::rules::mask(init, w), w)
        );
    }

    /// The RoCC adapter: the command register (one entry; the port takes a command when
    /// the register is empty or a rule takes its command in the same cycle, so
    /// `rocc_cmd_ready` never depends on `rocc_cmd_enable`; rules see the command from the
    /// next cycle) and the response port.
    pub(super) fn rocc(&self, out: &mut String, name: &str) {
        let cmds = self.sites(name, "cmd");
        let resps = self.sites(name, "resp");
        let _ = writeln!(
            out,
            "\n  // RoCC adapter {name}\n  logic kiln_cmdq_taken;\n  assign kiln_cmdq_taken = {};\n  assign rocc_cmd_ready = ~kiln_cmdq_valid | kiln_cmdq_taken;\n  always_ff @(posedge clk)\n    if (rst) kiln_cmdq_valid <= 1'b0;\n    else if (rocc_cmd_enable & rocc_cmd_ready) begin\n      kiln_cmdq_valid <= 1'b1;\n      kiln_cmdq_data <= {{rocc_cmd_rocc_cmd_funct, rocc_cmd_rocc_cmd_rs1, rocc_cmd_rocc_cmd_rs2, rocc_cmd_rocc_cmd_rd, 3'b0, rocc_cmd_rocc_cmd_opcode, rocc_cmd_rocc_cmd_rs1data, rocc_cmd_rocc_cmd_rs2data}};\n    end else if (kiln_cmdq_taken) kiln_cmdq_valid <= 1'b0;\n  assign rocc_resp_rocc_resp_to_bus_enable = {};\n  assign rocc_resp_rocc_resp_to_bus_result_rd = {};\n  assign rocc_resp_rocc_resp_to_bus_result_rddata = {};",
            any(&cmds.iter().map(|s| s.en.clone()).collect::<Vec<_>>()),
            any(&resps.iter().map(|s| s.en.clone()).collect::<Vec<_>>()),
            and_or(&resps, 5, |_| "1'b1".into(), 0),
            and_or(&resps, 32, |_| "1'b1".into(), 1),
        );
    }

    /// The DMA requests (per channel and direction: enable = some call site fires, its
    /// arguments AND-OR'ed) and the scratchpad burst ports: `burst_write` decodes its beat
    /// onto bank write ports, `burst_read_0` decodes its beat onto bank read ports and
    /// registers it for `burst_read_1` (always ready).
    pub(super) fn dma(&mut self, out: &mut String, name: &str, entries: &[crate::rules::DmaEntry]) {
        let _ = writeln!(out, "\n  // DMA requests ({name})");
        for channel in 0..crate::rules::DMA_CHANNELS {
            for to_isax in [true, false] {
                let m = DmaMethod::Request { to_isax, channel }.name();
                let sites = self.sites(name, m);
                let _ = writeln!(
                    out,
                    "  assign dma_{m}_enable = {};\n  assign dma_{m}_cpu_addr = {};\n  assign dma_{m}_isax_addr = {};\n  assign dma_{m}_length = {};\n  assign dma_{m}_stride_x = {};\n  assign dma_{m}_stride_y = {};",
                    any(&sites.iter().map(|s| s.en.clone()).collect::<Vec<_>>()),
                    and_or(&sites, 32, |_| "1'b1".into(), 0),
                    and_or(&sites, 32, |_| "1'b1".into(), 1),
                    and_or(&sites, 4, |_| "1'b1".into(), 2),
                    and_or(&sites, 8, |_| "1'b1".into(), 3),
                    and_or(&sites, 8, |_| "1'b1".into(), 4),
                );
            }
        }
        let _ = writeln!(
            out,
            "\n  // Scratchpad burst ports: one 8-byte beat per fire, decoded with the memory map\n  assign burst_write_ready = 1'b1;\n  assign burst_read_0_ready = 1'b1;\n  assign burst_read_1_ready = 1'b1;"
        );
        self.burst_decode(out, entries, "kiln_bw", "burst_write_addr", true);
        let rdata = self.burst_decode(out, entries, "kiln_br", "burst_read_0_addr", false);
        let _ = writeln!(
            out,
            "  logic [63:0] kiln_burst_q /*verilator public_flat_rd*/;\n  always_ff @(posedge clk)\n    if (rst) kiln_burst_q <= 64'd0;\n    else if (burst_read_0_enable) kiln_burst_q <= {rdata};\n  assign burst_read_1_res0 = kiln_burst_q;"
        );
    }

    /// Decode the beat at `addr` onto the banks of `entries`: write ports (`write`: the
    /// beat `burst_write_data` when `burst_write_enable`) or read ports, whose beat is the
    /// returned expression (bytes outside every entry read 0).
    pub(super) fn burst_decode(
        &mut self,
        out: &mut String,
        entries: &[crate::rules::DmaEntry],
        prefix: &str,
        addr: &str,
        write: bool,
    ) -> String {
        let mut rdata_terms = Vec::new();
        for (ei, e) in entries.iter().enumerate() {
            let eb = e.elem_bytes;
            if !matches!(eb, 1 | 2 | 4 | 8) {
                let _ = writeln!(
                    out,
                    "  // entry {}: element size {eb} bytes has no burst lanes",
                    e.name
                );
                continue;
            }
            let n = e.banks.len().max(1) as u32;
            let per_bank = e.size / eb / n;
            let shift = eb.trailing_zeros();
            for j in 0..8 / eb {
                let p = format!("{prefix}_e{ei}_l{j}");
                let (bank_expr, off_expr) = if e.cyclic || per_bank == 0 {
                    (format!("{p}_el % 32'd{n}"), format!("{p}_el / 32'd{n}"))
                } else {
                    (
                        format!(
                            "(({p}_el / 32'd{per_bank}) > 32'd{}) ? 32'd{} : ({p}_el / 32'd{per_bank})",
                            n - 1,
                            n - 1
                        ),
                        format!("{p}_el % 32'd{per_bank}"),
                    )
                };
                // An entry at address 0 has no lower bound to check (it would compare an
                // unsigned address with 0).
                let low = match e.base {
                    0 => String::new(),
                    b => format!(" & ({p}_a >= 32'd{b})"),
                };
                let _ = writeln!(
                    out,
                    "  logic [31:0] {p}_a, {p}_el, {p}_bank, {p}_off;\n  logic {p}_hit;\n  assign {p}_a = {addr} + 32'd{};\n  assign {p}_hit = 1'b1{low} & ({p}_a < 32'd{});\n  assign {p}_el = ({p}_a - 32'd{}) >> {shift};\n  assign {p}_bank = {bank_expr};\n  assign {p}_off = {off_expr};",
                    j * eb,
                    e.base as u64 + e.size as u64,
                    e.base
                );
                if write {
                    let _ = writeln!(
                        out,
                        "  logic [{}:0] {p}_wd;\n  assign {p}_wd = burst_write_data[{}:{}];",
                        eb * 8 - 1,
                        (j + 1) * eb * 8 - 1,
                        j * eb * 8,
                    );
                }
                let mut lane_terms = Vec::new();
                for (bi, bank) in e.banks.iter().enumerate() {
                    let Some(InstanceKind::Bank { width, depth, .. }) =
                        self.c.instance(bank).map(|x| &x.kind)
                    else {
                        continue;
                    };
                    let addr = bank_addr(&(format!("{p}_off"), 32), *depth);
                    if write {
                        let sel =
                            format!("(burst_write_enable & {p}_hit & ({p}_bank == 32'd{bi}))");
                        let data = fit(&format!("{p}_wd"), eb * 8, *width);
                        self.uses
                            .bank_writes
                            .entry(bank.clone())
                            .or_default()
                            .push((sel, addr, data));
                        continue;
                    }
                    let reads = self.uses.bank_reads.entry(bank.clone()).or_default();
                    let port = reads.len() as u32;
                    reads.push(addr);
                    let _ = writeln!(
                        out,
                        "  logic [{}:0] {p}_rd{bi};\n  assign {p}_rd{bi} = {}__rdata[{}:{}];",
                        width - 1,
                        ident(bank),
                        (port + 1) * width - 1,
                        port * width
                    );
                    let rd = fit(&format!("{p}_rd{bi}"), *width, eb * 8);
                    lane_terms.push(format!(
                        "({{{}{{{p}_hit & ({p}_bank == 32'd{bi})}}}} & {rd})",
                        eb * 8
                    ));
                }
                if !lane_terms.is_empty() {
                    let lane = format!("{p}_rdata");
                    let _ = writeln!(
                        out,
                        "  logic [{}:0] {lane};\n  assign {lane} = {};",
                        eb * 8 - 1,
                        lines(&lane_terms, " | ")
                    );
                    let lo = j * eb * 8;
                    rdata_terms.push(if lo == 0 {
                        fit(&lane, eb * 8, 64)
                    } else {
                        format!("({} << {lo})", fit(&lane, eb * 8, 64))
                    });
                }
            }
        }
        join_or(&rdata_terms, "\n      | ", "64'd0")
    }

    /// The CPU-memory port (HellaCache convention): the request queue the rules fill
    /// (73-bit entries `{store, tag, addr, data}`), its head on `hella_cmd_*`, and the
    /// response buffer indexed by tag (`hella_resp_*`, always ready; store
    /// acknowledgements, `cmd != 0`, dropped).
    pub(super) fn memport(
        &self,
        out: &mut String,
        prims: &mut BTreeMap<String, String>,
        name: &str,
        i: &str,
        lanes: u32,
    ) {
        let depth = schedule::mem_req_depth(lanes);
        let size = schedule::mem_resp_entries(lanes);
        let module = format!("kiln_fifo_w73_d{depth}");
        prims
            .entry(module.clone())
            .or_insert_with(|| fifo_module(&module, 73, depth));
        let reqs = self.sites(name, "req");
        let loads = self.sites(name, "load");
        let resps = self.sites(name, "mresp");
        let en = |v: &[Site]| count(&v.iter().map(|s| s.en.clone()).collect::<Vec<_>>());
        let slots: Vec<String> = (0..depth)
            .rev()
            .map(|j| and_or(&reqs, 73, |s| format!("({} == 8'd{j})", s.slot), 0))
            .collect();
        let _ = writeln!(
            out,
            "
  // CPU memory port {name}: up to {lanes} request(s) per cycle into a request queue of
  // {depth}; its head (with an empty queue: this cycle's first request) goes out on
  // hella_cmd; {size} response buffer entries (tags)
  logic [7:0] {i}__reqq_cnt, {i}__reqq_deq, {i}__enq_n, {i}__loads, {i}__taken, {i}__used, {i}__head, {i}__alloc;
  logic [{qw}:0] {i}__reqq_data, {i}__reqq_in;
  logic [72:0] {i}__reqq_head;
  logic {i}__bypass;
  assign {i}__enq_n = {enq_n};
  assign {i}__reqq_in = {{{slots}}};
  assign {i}__bypass = ({i}__reqq_cnt == 8'd0) & ({i}__enq_n != 8'd0) & hella_cmd_hella_cmd_to_bus_ready;
  {module} u_{i}_reqq (.clk(clk), .rst(rst), .cnt({i}__reqq_cnt), .data({i}__reqq_data),
    .deq_n({i}__reqq_deq), .enq_n({i}__enq_n - {{7'd0, {i}__bypass}}),
    .enq_data({i}__bypass ? ({i}__reqq_in >> 73) : {i}__reqq_in));
  assign {i}__reqq_head = ({i}__reqq_cnt != 8'd0) ? {i}__reqq_data[72:0] : {i}__reqq_in[72:0];
  assign hella_cmd_hella_cmd_to_bus_enable = (({i}__reqq_cnt != 8'd0) & hella_cmd_hella_cmd_to_bus_ready) | {i}__bypass;
  assign {i}__reqq_deq = {{7'd0, ({i}__reqq_cnt != 8'd0) & hella_cmd_hella_cmd_to_bus_ready}};
  assign hella_cmd_hella_cmd_to_bus_cmd_addr = {{{i}__reqq_head[63:34], 2'b00}};
  assign hella_cmd_hella_cmd_to_bus_cmd_tag = {i}__reqq_head[71:64];
  assign hella_cmd_hella_cmd_to_bus_cmd_cmd = {{4'd0, {i}__reqq_head[72]}};
  assign hella_cmd_hella_cmd_to_bus_cmd_size = 2'd2;
  assign hella_cmd_hella_cmd_to_bus_cmd_signed = 1'b0;
  assign hella_cmd_hella_cmd_to_bus_cmd_phys = 1'b0;
  assign hella_cmd_hella_cmd_to_bus_cmd_data = {i}__reqq_head[31:0];
  assign hella_cmd_hella_cmd_to_bus_cmd_mask = {{4{{{i}__reqq_head[72]}}}};
  assign hella_resp_ready = 1'b1;
  logic {i}__resp_in;
  assign {i}__resp_in = hella_resp_enable & (hella_resp_hella_resp_cmd == 5'd0);
  assign {i}__loads = {loads_n};
  assign {i}__taken = {taken_n};
  logic [{sm}:0] {i}__rb_valid, {i}__rb_next;
  logic [{dm}:0] {i}__rb_data;
  integer {i}__j;
  always_comb begin
    {i}__rb_next = {i}__rb_valid;
    if ({i}__resp_in) {i}__rb_next = {i}__rb_next | ({size}'(1) << hella_resp_hella_resp_tag);
    for ({i}__j = 0; {i}__j < {size}; {i}__j = {i}__j + 1)
      if (((32'({i}__j) + 32'd{size} - 32'({i}__head)) % 32'd{size}) < 32'({i}__taken))
        {i}__rb_next = {i}__rb_next & ~({size}'(1) << {i}__j);
  end
  always_ff @(posedge clk)
    if (rst) begin
      {i}__rb_valid <= '0;
      {i}__head <= 8'd0;
      {i}__alloc <= 8'd0;
      {i}__used <= 8'd0;
    end else begin
      {i}__rb_valid <= {i}__rb_next;
      if ({i}__resp_in) {i}__rb_data[hella_resp_hella_resp_tag*32 +: 32] <= hella_resp_hella_resp_data;
      {i}__head <= {head_next};
      {i}__alloc <= {alloc_next};
      {i}__used <= {i}__used + {i}__loads - {i}__taken;
    end
  // Work in flight after this cycle (requests queued, loads not consumed).
  logic {i}__pending;
  assign {i}__pending = (({i}__reqq_cnt - {i}__reqq_deq + {i}__enq_n - {{7'd0, {i}__bypass}}) != 8'd0) | (({i}__used + {i}__loads - {i}__taken) != 8'd0);",
            qw = depth * 73 - 1,
            enq_n = en(&reqs),
            slots = lines(&slots, ", "),
            loads_n = en(&loads),
            taken_n = en(&resps),
            sm = size - 1,
            dm = size * 32 - 1,
            head_next = wrap(&format!("{i}__head"), &format!("{i}__taken"), size),
            alloc_next = wrap(&format!("{i}__alloc"), &format!("{i}__loads"), size),
        );
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn bank(
        &self,
        out: &mut String,
        prims: &mut BTreeMap<String, String>,
        name: &str,
        width: u32,
        depth: u32,
        init: &[u128],
    ) {
        let i = ident(name);
        let (w, d) = (width.max(1), depth.max(1));
        let aw = bank_aw(d);
        let mut writes = self.uses.bank_writes.get(name).cloned().unwrap_or_default();
        let mut reads = self.uses.bank_reads.get(name).cloned().unwrap_or_default();
        if writes.is_empty() {
            writes.push(("1'b0".into(), format!("{aw}'d0"), format!("{w}'d0")));
        }
        if reads.is_empty() {
            reads.push(format!("{aw}'d0"));
        }
        let (p, r) = (writes.len() as u32, reads.len() as u32);
        let module = format!("kiln_bank_w{w}_d{d}_p{p}_r{r}");
        prims
            .entry(module.clone())
            .or_insert_with(|| bank_module(&module, w, d, aw, p, r));
        let mut init_v = String::new();
        for k in (0..d as usize).rev() {
            let v = crate::rules::mask(init.get(k).copied().unwrap_or(0), w);
            init_v.push_str(&format!("{}'h{v:x}", w));
            if k > 0 {
                init_v.push_str(", ");
            }
        }
        let rev = |v: Vec<String>| lines(&v.into_iter().rev().collect::<Vec<_>>(), ", ");
        let latch = self.sites(name, "latch");
        let mut latch_ff = String::new();
        for s in &latch {
            let _ = write!(
                latch_ff,
                "\n      if ({}) {i}__latch <= {};",
                s.en, s.data[0]
            );
        }
        let _ = writeln!(
            out,
            "\n  // scratchpad bank {name} ({d} x {w} bits; {p} write port(s), {r} read port(s))\n  logic [{}:0] {i}__rdata;\n  logic [{}:0] {i}__latch;\n  {module} #(.INIT({{{init_v}}})) u_{i} (.clk(clk), .rst(rst),\n    .we({{{}}}),\n    .waddr({{{}}}),\n    .wdata({{{}}}),\n    .raddr({{{}}}), .rdata({i}__rdata));\n  always_ff @(posedge clk) begin\n    if (rst) {i}__latch <= '0;\n    else begin{latch_ff}\n    end\n  end",
            r * w - 1,
            w - 1,
            rev(writes.iter().map(|x| x.0.clone()).collect()),
            rev(writes.iter().map(|x| x.1.clone()).collect()),
            rev(writes.iter().map(|x| x.2.clone()).collect()),
            rev(reads),
        );
    }
}

pub(super) fn rocc_ports() -> Vec<String> {
    [
        "  // RoCC command (APS port convention): taken when enable & ready; fields used in that cycle",
        "  input  logic        rocc_cmd_enable,",
        "  output logic        rocc_cmd_ready,",
        "  input  logic [6:0]  rocc_cmd_rocc_cmd_funct,",
        "  input  logic [4:0]  rocc_cmd_rocc_cmd_rs1,",
        "  input  logic [4:0]  rocc_cmd_rocc_cmd_rs2,",
        "  input  logic [4:0]  rocc_cmd_rocc_cmd_rd,",
        "  input  logic        rocc_cmd_rocc_cmd_xs1,",
        "  input  logic        rocc_cmd_rocc_cmd_xs2,",
        "  input  logic        rocc_cmd_rocc_cmd_xd,",
        "  input  logic [6:0]  rocc_cmd_rocc_cmd_opcode,",
        "  input  logic [31:0] rocc_cmd_rocc_cmd_rs1data,",
        "  input  logic [31:0] rocc_cmd_rocc_cmd_rs2data,",
        "  // RoCC response (APS port convention): rd and the result, sent when enable & ready",
        "  output logic [4:0]  rocc_resp_rocc_resp_to_bus_result_rd,",
        "  output logic [31:0] rocc_resp_rocc_resp_to_bus_result_rddata,",
        "  input  logic        rocc_resp_rocc_resp_to_bus_ready,",
        "  output logic        rocc_resp_rocc_resp_to_bus_enable",
    ]
    .join("\n")
    .split(",\n")
    .map(|s| s.to_string())
    .collect()
}

/// The convention's five ports of CSR lane `lane` (instance `i` = `csr_<lane>`).
pub(super) fn csr_lane_ports(i: &str, lane: &str) -> Vec<String> {
    vec![
        format!(
            "  // CSR lane {lane} (Rocket custom CSR): its committed value, and a one-cycle write-back\n  input  logic [31:0] {i}_value_res0"
        ),
        format!("  input  logic        {i}_value_ready"),
        format!("  output logic [31:0] {i}_set_{lane}_sdata"),
        format!("  input  logic        {i}_set_ready"),
        format!("  output logic        {i}_set_enable"),
    ]
}

/// The convention's scratchpad burst ports and DMA ports (both channels, both directions).
pub(super) fn dma_ports() -> Vec<String> {
    let mut out = vec![
        "  // Scratchpad burst ports (the SoC's DMA engine moves 8-byte beats through them)\n  input  logic        burst_read_0_enable".to_string(),
        "  output logic        burst_read_0_ready".into(),
        "  input  logic [31:0] burst_read_0_addr".into(),
        "  input  logic        burst_read_1_enable".into(),
        "  output logic        burst_read_1_ready".into(),
        "  output logic [63:0] burst_read_1_res0".into(),
        "  input  logic        burst_write_enable".into(),
        "  output logic        burst_write_ready".into(),
        "  input  logic [31:0] burst_write_addr".into(),
        "  input  logic [63:0] burst_write_data".into(),
    ];
    for channel in 0..crate::rules::DMA_CHANNELS {
        for to_isax in [true, false] {
            let m = DmaMethod::Request { to_isax, channel }.name();
            out.push(format!(
                "  // DMA request {m}: 2^length bytes, scratchpad rows of stride_x bytes every stride_x*stride_y (stride_x 0: linear)\n  output logic [31:0] dma_{m}_cpu_addr"
            ));
            out.push(format!("  output logic [31:0] dma_{m}_isax_addr"));
            out.push(format!("  output logic [3:0]  dma_{m}_length"));
            out.push(format!("  output logic [7:0]  dma_{m}_stride_x"));
            out.push(format!("  output logic [7:0]  dma_{m}_stride_y"));
            out.push(format!("  input  logic        dma_{m}_ready"));
            out.push(format!("  output logic        dma_{m}_enable"));
        }
        out.push(format!(
            "  // DMA channel {channel} idle: nothing of it queued or moving\n  input  logic        dma_poll_for_idle_ch{channel}_res0"
        ));
        out.push(format!(
            "  input  logic        dma_poll_for_idle_ch{channel}_ready"
        ));
    }
    out
}

pub(super) fn mem_ports() -> Vec<String> {
    [
        "  // HellaCache request (APS port convention): the request queue's head, sent when enable & ready;",
        "  // cmd 0 load, 1 store; size 2 (a word at addr & ~3); tag: a load's response buffer entry",
        "  output logic [31:0] hella_cmd_hella_cmd_to_bus_cmd_addr,",
        "  output logic [7:0]  hella_cmd_hella_cmd_to_bus_cmd_tag,",
        "  output logic [4:0]  hella_cmd_hella_cmd_to_bus_cmd_cmd,",
        "  output logic [1:0]  hella_cmd_hella_cmd_to_bus_cmd_size,",
        "  output logic        hella_cmd_hella_cmd_to_bus_cmd_signed,",
        "  output logic        hella_cmd_hella_cmd_to_bus_cmd_phys,",
        "  output logic [31:0] hella_cmd_hella_cmd_to_bus_cmd_data,",
        "  output logic [3:0]  hella_cmd_hella_cmd_to_bus_cmd_mask,",
        "  input  logic        hella_cmd_hella_cmd_to_bus_ready,",
        "  output logic        hella_cmd_hella_cmd_to_bus_enable,",
        "  // HellaCache response (APS port convention): always taken; matched by tag; cmd != 0 dropped",
        "  input  logic        hella_resp_enable,",
        "  output logic        hella_resp_ready,",
        "  input  logic [31:0] hella_resp_hella_resp_data,",
        "  input  logic [7:0]  hella_resp_hella_resp_tag,",
        "  input  logic [4:0]  hella_resp_hella_resp_cmd,",
        "  input  logic [1:0]  hella_resp_hella_resp_size,",
        "  input  logic        hella_resp_hella_resp_signed",
    ]
    .join("\n")
    .split(",\n")
    .map(|s| s.to_string())
    .collect()
}
