//! The library behind kiln's CMT2 output: the text of every module and interface the
//! emitted `main` instantiates, generated from the rule IR's instance kinds, so that a
//! `.cmt2.mlir` file is self-contained (`circt-opt --lower-cmt2-to-firrtl` needs the FIRRTL
//! module behind every `cmt2.module.extern.firrtl`).
//!
//! | IR instance kind | CMT2 | behind it |
//! |---|---|---|
//! | `Fifo { width, depth }` | `cmt2.module @FIFO<depth>_w<width>` | `Reg`/`Wire` externs |
//! | `Reg { width, init }` | `cmt2.module.extern.firrtl @Reg_w<width>_i<init>` | `firrtl.module` (`regreset`) |
//! | `Bank { width, depth, init }` | `cmt2.module.extern.firrtl @Bank_w<width>_d<depth>[_i<k>]` with a method per port | `firrtl.module` (vector `regreset` with the initial contents, ports per method) |
//! | `Rocc` | `cmt2.module.extern.firrtl @RoccCmd` (the command register), the top method `rocc_cmd` and the declaration `rocc_resp` | `firrtl.module` |
//! | `MemPort` | `cmt2.module.extern.firrtl @HellaMem` with a port per call site, the declaration `hella_cmd`, the top method `hella_resp` and the rules `hella_send`, `hella_bypass` ([`hella_mem_firrtl`]) | `firrtl.module` (request queue, tagged response buffer) |
//! | `Dma`, `Fault`, `Csr` | `cmt2.interface.decl` of `@BurstDMA`, `@Fault`, `@Csr_<lane>` | ports of the top (the SoC side) |
//!
//! A FIFO of depth `D` keeps its entries in `D` registers (`data_<i>`, oldest first) and
//! its fill level in `count`; `deq` and `enq` only write the wires `deqed`, `enqed` and
//! `enq_data` (a wire reads 0 when not written), and the rule `update` shifts and appends
//! once per cycle, so a full FIFO accepts an `enq` in the cycle of a `deq` (the STL
//! `FIFO1_PUSH` behaviour the rule simulator models). A bank answers reads of addresses at
//! or beyond its depth with 0 and ignores such writes (the simulator's bank model). Each
//! call site of `read`, `read_0` or `write` has a port of its own ([`super::bank_ports`]):
//! the method `@<method>.<rule>.<k>` (the `k`-th such call on the bank in the rule) bound
//! to the FIRRTL ports `read<j>_*`, `readreq<j>_*` or `write<j>_*`, declared in `conflict`
//! with itself (a port serves one call per cycle); writes apply in port order. A bank
//! module has the union of the ports of the instances it backs. The DMA engine reaches
//! the banks through the top's burst methods (APS's `burst_write`, `burst_read_0`,
//! `burst_read_1`; [`burst_methods`]): one 8-byte beat per fire, decoded with the memory
//! map (the `kiln.memory_map` attribute of the DMA's declaration) onto a `read`/`write`
//! port of its own per lane of each bank (`@write.burst_write.<k>`,
//! `@read.burst_read_0.<k>`, [`super::burst_lanes`]), declared after the rules' ports so
//! that a DMA write lands after a rule's write to the same word in one cycle.
//!
//! Every text here is a pure function of its parameters: the reader
//! ([`super::cmt2_read`]) regenerates each definition it finds and requires equality.

mod hella;

use super::mlir_text::{mlir_str, sym};
use super::{BankPort, DmaEntry, InstanceKind, bank_addr_width, methods, signature};
pub(crate) use hella::{
    HELLA_BYPASS, HELLA_CMD, HELLA_CMD_ITF, HELLA_MEM, HELLA_RESP, HELLA_SEND, hella_cmd_interface,
    hella_mem_extern, hella_mem_firrtl, hella_resp_method, hella_rules,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// `!firrtl.uint<w>`.
pub(crate) fn ty(w: u32) -> String {
    format!("!firrtl.uint<{}>", w.max(1))
}

/// A function type as MLIR prints it: `(A, B) -> ()`, `() -> R`.
pub(crate) fn fn_type(args: &[u32], result: Option<u32>) -> String {
    let a: Vec<String> = args.iter().map(|w| ty(*w)).collect();
    match result {
        Some(r) => format!("({}) -> {}", a.join(", "), ty(r)),
        None => format!("({}) -> ()", a.join(", ")),
    }
}

/// Width of a counter holding `0..=n`.
fn count_width(n: u32) -> u32 {
    (32 - n.leading_zeros()).max(1)
}

pub(crate) fn fifo_name(width: u32, depth: u32) -> String {
    format!("FIFO{}_w{}", depth.max(1), width.max(1))
}

pub(crate) fn reg_name(width: u32, init: u128) -> String {
    format!("Reg_w{}_i{init}", width.max(1))
}

pub(crate) fn wire_name(width: u32) -> String {
    format!("Wire_w{}", width.max(1))
}

/// `Bank_w<W>_d<D>` for a bank starting at zero, `Bank_w<W>_d<D>_i<k>` for the `k`-th
/// distinct initial contents of that shape (in instance order).
pub(crate) fn bank_name(width: u32, depth: u32, init_index: Option<usize>) -> String {
    match init_index {
        None => format!("Bank_w{width}_d{depth}"),
        Some(k) => format!("Bank_w{width}_d{depth}_i{k}"),
    }
}

/// The interface an environment-facing instance kind is declared with.
pub(crate) fn interface_name(kind: &InstanceKind) -> Option<&'static str> {
    match kind {
        InstanceKind::Rocc => Some("RoCC"),
        InstanceKind::Dma { .. } => Some("BurstDMA"),
        InstanceKind::Fault { .. } => Some("Fault"),
        InstanceKind::Csr { .. } => Some("Csr"),
        _ => None,
    }
}

/// Argument names of the catalogue's methods (the port name suffixes).
pub(crate) fn arg_names(kind: &InstanceKind, method: &str) -> &'static [&'static str] {
    match (kind, method) {
        (InstanceKind::Fifo { .. } | InstanceKind::Reg { .. }, "enq" | "write") => &["data"],
        (InstanceKind::Bank { .. }, "read" | "read_0") => &["addr"],
        (InstanceKind::Bank { .. }, "write") => &["addr", "data"],
        (InstanceKind::Rocc, "resp_from_user") => &["rd", "data"],
        (InstanceKind::Dma { .. }, m)
            if m.starts_with("cpu_to_isax") || m.starts_with("isax_to_cpu") =>
        {
            &["cpu_addr", "isax_addr", "length", "stride_x", "stride_y"]
        }
        (InstanceKind::Csr { .. }, "set") => &["sdata"],
        _ => &[],
    }
}

/// `cmt2.interface @<name> { ... }` for `kind` (at indentation 4), declarations only.
pub(crate) fn interface_text(kind: &InstanceKind) -> String {
    let mut out = String::new();
    let Some(name) = interface_name(kind) else {
        return out;
    };
    let _ = writeln!(out, "    cmt2.interface @{name} {{");
    for m in methods(kind) {
        let Some(sig) = signature(kind, m) else {
            continue;
        };
        let args: Vec<String> = arg_names(kind, m)
            .iter()
            .zip(&sig.args)
            .map(|(a, w)| format!("%{a}: {}", ty(*w)))
            .collect();
        let res = sig.result.map_or(String::new(), ty);
        let op = if sig.value { "value" } else { "method" };
        let _ = writeln!(
            out,
            "      cmt2.{op} @{m}({}) -> ({res}) {{\n        cmt2.return\n      }} {{\n        cmt2.return\n      }}",
            args.join(", ")
        );
    }
    out.push_str("    }\n");
    out
}

/// One `cmt2.bind.method`/`cmt2.bind.value` line (indentation 6).
fn bind(out: &mut String, name: &str, args: &[(&str, u32)], result: Option<u32>, value: bool) {
    bind_as(out, &format!("@{name}"), name, args, result, value);
}

/// [`bind`] of the method `symbol` to the FIRRTL ports `<name>_...`.
fn bind_as(
    out: &mut String,
    symbol: &str,
    name: &str,
    args: &[(&str, u32)],
    result: Option<u32>,
    value: bool,
) {
    let ws: Vec<u32> = args.iter().map(|a| a.1).collect();
    let ports: Vec<String> = args.iter().map(|a| format!("\"{name}_{}\"", a.0)).collect();
    let results = match result {
        Some(_) => format!("[\"{name}_data\"]"),
        None => "[]".to_string(),
    };
    let _ = write!(
        out,
        "      cmt2.bind.{} {symbol} : {} [",
        if value { "value" } else { "method" },
        fn_type(&ws, result)
    );
    if !value {
        let _ = write!(out, "enable = \"{name}_enable\", ");
    }
    let _ = writeln!(
        out,
        "ready = \"{name}_ready\", arguments = [{}], results = {results}]",
        ports.join(", ")
    );
}

const CLK_ARGS: &str = "(%clk: !firrtl.clock, %rst: !firrtl.uint<1>)";
const CLK_BINDS: &str = "      cmt2.bind.bare %clk, @clock : !firrtl.clock\n      cmt2.bind.bare %rst, @reset : !firrtl.uint<1>\n";

/// The extern binding of a register module.
pub(crate) fn reg_extern(name: &str, width: u32) -> String {
    let mut out =
        format!("    cmt2.module.extern.firrtl @{name} : @{name}{CLK_ARGS} {{\n{CLK_BINDS}");
    bind(&mut out, "read", &[], Some(width), true);
    bind(&mut out, "write", &[("data", width)], None, false);
    out.push_str("    } {conflict = [[@write, @write]], sequenceBefore = [[@read, @write]]}\n");
    out
}

/// The extern binding of a wire module (no clock).
pub(crate) fn wire_extern(name: &str, width: u32) -> String {
    let mut out = format!("    cmt2.module.extern.firrtl @{name} : @{name} {{\n");
    bind(&mut out, "write", &[("data", width)], None, false);
    bind(&mut out, "read", &[], Some(width), true);
    out.push_str("    } {conflict = [[@write, @write]], sequenceBefore = [[@write, @read]]}\n");
    out
}

/// The FIRRTL port names of a bank module's ports, in order: `read<j>`, `readreq<j>`
/// (`read_0`) and `write<j>`, `j` counting the ports of each method.
pub(crate) fn bank_port_prefixes(ports: &[BankPort]) -> Vec<String> {
    let mut n = [0u32; 3];
    ports
        .iter()
        .map(|p| {
            let (i, stem) = match p.method {
                "read" => (0, "read"),
                "read_0" => (1, "readreq"),
                _ => (2, "write"),
            };
            n[i] += 1;
            format!("{stem}{}", n[i] - 1)
        })
        .collect()
}

/// The extern binding of a bank module with `ports` (the union of the ports of the bank
/// instances it backs): each port a method of its own that a rule may call once per
/// cycle (`conflict` with itself), `read_1` (the latch) before every `read_0`, every write
/// before the DMA engine's. Reads and writes of different ports are otherwise
/// conflict-free (circt-cmt2's default): a read sees the state before the cycle's writes
/// whichever rule comes first, so no pair of them is listed (the text stays linear in the
/// ports).
pub(crate) fn bank_extern(name: &str, width: u32, depth: u32, ports: &[BankPort]) -> String {
    let aw = bank_addr_width(depth);
    let mut out =
        format!("    cmt2.module.extern.firrtl @{name} : @{name}{CLK_ARGS} {{\n{CLK_BINDS}");
    let prefixes = bank_port_prefixes(ports);
    for (p, prefix) in ports.iter().zip(&prefixes) {
        let (args, result): (&[(&str, u32)], _) = match p.method {
            "read" => (&[("addr", aw)], Some(width)),
            "read_0" => (&[("addr", aw)], None),
            _ => (&[("addr", aw), ("data", width)], None),
        };
        bind_as(&mut out, &sym(&p.name()), prefix, args, result, false);
    }
    bind(&mut out, "read_1", &[], Some(width), true);
    let syms: Vec<String> = ports.iter().map(|p| sym(&p.name())).collect();
    let of = |method: &str, burst: bool| -> Vec<&String> {
        ports
            .iter()
            .zip(&syms)
            .filter(|(p, _)| p.method == method && is_burst(p) == burst)
            .map(|(_, s)| s)
            .collect()
    };
    let conflict: Vec<String> = syms.iter().map(|s| format!("[{s}, {s}]")).collect();
    let mut before: Vec<String> = of("read_0", false)
        .into_iter()
        .map(|r| format!("[@read_1, {r}]"))
        .collect();
    for w in of("write", false) {
        for b in of("write", true) {
            before.push(format!("[{w}, {b}]"));
        }
    }
    let mut attrs = Vec::new();
    if !conflict.is_empty() {
        attrs.push(format!("conflict = [{}]", conflict.join(", ")));
    }
    if !before.is_empty() {
        attrs.push(format!("sequenceBefore = [{}]", before.join(", ")));
    }
    out.push_str("    }");
    if !attrs.is_empty() {
        let _ = write!(out, " {{{}}}", attrs.join(", "));
    }
    out.push('\n');
    out
}

/// A port of the DMA engine's burst decode ([`super::burst_ports`]) rather than a rule's.
pub(crate) fn is_burst(p: &BankPort) -> bool {
    p.rule == super::BURST_WRITE || p.rule == super::BURST_READ
}

/// SSA text of a function-like body: one op per line, fresh `%<prefix><n>` names.
struct Body {
    out: String,
    pad: &'static str,
    prefix: &'static str,
    next: u32,
}

impl Body {
    fn new(pad: &'static str) -> Body {
        Body::named(pad, "")
    }

    /// A body whose fresh names are `%<prefix><n>`.
    fn named(pad: &'static str, prefix: &'static str) -> Body {
        Body {
            out: String::new(),
            pad,
            prefix,
            next: 0,
        }
    }

    fn line(&mut self, text: &str) {
        self.out.push_str(self.pad);
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// `%<prefix><n> = <rhs>`; returns `%<prefix><n>`.
    fn def(&mut self, rhs: &str) -> String {
        let name = format!("%{}{}", self.prefix, self.next);
        self.next += 1;
        self.line(&format!("{name} = {rhs}"));
        name
    }

    fn constant(&mut self, v: u128, w: u32) -> String {
        self.def(&format!("firrtl.constant {v} : {}", ty(w)))
    }

    fn read(&mut self, inst: &str, w: u32) -> String {
        self.def(&format!("cmt2.call @{inst} @read() : () -> {}", ty(w)))
    }

    fn write(&mut self, inst: &str, x: &str, w: u32) {
        self.line(&format!(
            "cmt2.call @{inst} @write({x}) : ({}) -> ()",
            ty(w)
        ));
    }

    fn op2(&mut self, op: &str, a: &str, b: &str, wa: u32, wb: u32, wr: u32) -> String {
        self.def(&format!(
            "firrtl.{op} {a}, {b} : ({}, {}) -> {}",
            ty(wa),
            ty(wb),
            ty(wr)
        ))
    }

    fn mux(&mut self, c: &str, a: &str, b: &str, w: u32) -> String {
        self.def(&format!(
            "firrtl.mux({c}, {a}, {b}) : (!firrtl.uint<1>, {}, {}) -> {}",
            ty(w),
            ty(w),
            ty(w)
        ))
    }

    fn bits(&mut self, a: &str, wa: u32, w: u32) -> String {
        self.def(&format!(
            "firrtl.bits {a} {} to 0 : ({}) -> {}",
            w - 1,
            ty(wa),
            ty(w)
        ))
    }

    fn pad(&mut self, a: &str, wa: u32, w: u32) -> String {
        self.def(&format!("firrtl.pad {a}, {w} : ({}) -> {}", ty(wa), ty(w)))
    }
}

/// A function-like op (`cmt2.value`/`cmt2.method`/`cmt2.rule`) with its guard and body.
fn function(out: &mut String, head: &str, guard: Body, body: Body) {
    let _ = writeln!(out, "      {head} {{");
    out.push_str(&guard.out);
    out.push_str("      } {\n");
    out.push_str(&body.out);
    out.push_str("      }\n");
}

/// The always-true guard.
fn true_guard() -> Body {
    let mut g = Body::new("        ");
    let t = g.constant(1, 1);
    g.line(&format!("cmt2.return {t} : !firrtl.uint<1>"));
    g
}

/// The library modules a FIFO module instantiates: (module name, instance kind).
pub(crate) fn fifo_parts(width: u32, depth: u32) -> Vec<(String, LibPart)> {
    let cw = count_width(depth);
    vec![
        (reg_name(cw, 0), LibPart::Reg { width: cw, init: 0 }),
        (reg_name(width, 0), LibPart::Reg { width, init: 0 }),
        (wire_name(1), LibPart::Wire { width: 1 }),
        (wire_name(width), LibPart::Wire { width }),
    ]
}

/// A primitive behind the library's CMT2 modules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LibPart {
    Reg { width: u32, init: u128 },
    Wire { width: u32 },
}

/// The FIFO module of `depth` entries of `width` bits.
pub(crate) fn fifo_module(width: u32, depth: u32) -> String {
    let d = depth.max(1);
    let w = width.max(1);
    let cw = count_width(d);
    let mut out = String::new();
    let _ = writeln!(out, "    cmt2.module @{}{CLK_ARGS} {{", fifo_name(w, d));
    let inst = |out: &mut String, name: &str, module: String, clocked: bool| {
        let args = if clocked {
            "(%clk, %rst) : !firrtl.clock, !firrtl.uint<1>"
        } else {
            ""
        };
        let _ = writeln!(out, "      cmt2.instance @{name} = @{module}{args}");
    };
    inst(&mut out, "count", reg_name(cw, 0), true);
    for i in 0..d {
        inst(&mut out, &format!("data_{i}"), reg_name(w, 0), true);
    }
    inst(&mut out, "deqed", wire_name(1), false);
    inst(&mut out, "enqed", wire_name(1), false);
    inst(&mut out, "enq_data", wire_name(w), false);
    // full: count == depth.
    let mut b = Body::new("        ");
    let n = b.read("count", cw);
    let k = b.constant(d as u128, cw);
    let f = b.op2("eq", &n, &k, cw, cw, 1);
    b.line(&format!("cmt2.return {f} : !firrtl.uint<1>"));
    function(
        &mut out,
        "cmt2.value @full() -> (!firrtl.uint<1>)",
        true_guard(),
        b,
    );
    // deq: ready when not empty; returns the oldest entry.
    let mut g = Body::new("        ");
    let n = g.read("count", cw);
    let z = g.constant(0, cw);
    let ok = g.op2("neq", &n, &z, cw, cw, 1);
    g.line(&format!("cmt2.return {ok} : !firrtl.uint<1>"));
    let mut b = Body::new("        ");
    let one = b.constant(1, 1);
    b.write("deqed", &one, 1);
    let x = b.read("data_0", w);
    b.line(&format!("cmt2.return {x} : {}", ty(w)));
    function(
        &mut out,
        &format!("cmt2.method @deq() -> ({})", ty(w)),
        g,
        b,
    );
    // enq: ready when count - deqed < depth.
    let mut g = Body::new("        ");
    let n = g.read("count", cw);
    let dq = g.read("deqed", 1);
    let dqw = g.pad(&dq, 1, cw);
    let left = g.op2("sub", &n, &dqw, cw, cw, cw + 1);
    let left = g.bits(&left, cw + 1, cw);
    let k = g.constant(d as u128, cw);
    let ok = g.op2("lt", &left, &k, cw, cw, 1);
    g.line(&format!("cmt2.return {ok} : !firrtl.uint<1>"));
    let mut b = Body::new("        ");
    let one = b.constant(1, 1);
    b.write("enqed", &one, 1);
    b.write("enq_data", "%data", w);
    b.line("cmt2.return");
    function(
        &mut out,
        &format!("cmt2.method @enq(%data: {}) -> ()", ty(w)),
        g,
        b,
    );
    // update: shift out on deq, append on enq, new count.
    let mut b = Body::new("        ");
    let n = b.read("count", cw);
    let dq = b.read("deqed", 1);
    let eq_ = b.read("enqed", 1);
    let x = b.read("enq_data", w);
    let dqw = b.pad(&dq, 1, cw);
    let eqw = b.pad(&eq_, 1, cw);
    let pos = b.op2("sub", &n, &dqw, cw, cw, cw + 1);
    let pos = b.bits(&pos, cw + 1, cw);
    let cur: Vec<String> = (0..d).map(|i| b.read(&format!("data_{i}"), w)).collect();
    let zero = b.constant(0, w);
    for i in 0..d {
        let next = cur
            .get(i as usize + 1)
            .cloned()
            .unwrap_or_else(|| zero.clone());
        let kept = b.mux(&dq, &next, &cur[i as usize], w);
        let at = b.constant(i as u128, cw);
        let here = b.op2("eq", &pos, &at, cw, cw, 1);
        let put = b.op2("and", &eq_, &here, 1, 1, 1);
        let v = b.mux(&put, &x, &kept, w);
        b.write(&format!("data_{i}"), &v, w);
    }
    let grown = b.op2("add", &pos, &eqw, cw, cw, cw + 1);
    let grown = b.bits(&grown, cw + 1, cw);
    b.write("count", &grown, cw);
    b.line("cmt2.return");
    function(&mut out, "cmt2.rule @update() -> ()", true_guard(), b);
    out.push_str(
        "    } {precedence = [[@full, @deq], [@deq, @enq], [@enq, @update], [@full, @update]]}\n",
    );
    out
}

/// The register between the two phases of a burst read: `burst_read_0` fills it with the
/// beat at its address, `burst_read_1` returns it.
pub(crate) const BURST_Q: &str = "kiln_burst_q";

/// The module of [`BURST_Q`].
pub(crate) fn burst_q_module() -> String {
    reg_name(64, 0)
}

/// The decode of one lane of a beat at `%addr` (bytes `[lane·elem, (lane+1)·elem)`) for
/// one memory-map entry: whether it hits the entry, and the bank (index) and offset of its
/// element, both `ew` bits wide. The DMA engine's view of the map, as the SystemVerilog's
/// burst decode computes it.
struct LaneDecode {
    hit: String,
    bank: String,
    off: String,
    ew: u32,
    /// The offset fitted to a bank's address width, once per width.
    fitted: BTreeMap<u32, String>,
}

impl LaneDecode {
    /// The element's offset as an address of `aw` bits.
    fn offset(&mut self, b: &mut Body, aw: u32) -> String {
        let (off, ew) = (&self.off, self.ew);
        self.fitted
            .entry(aw)
            .or_insert_with(|| fit(b, off, ew, aw))
            .clone()
    }
}

fn lane_decode(b: &mut Body, e: &super::DmaEntry, lane: u32) -> LaneDecode {
    let eb = e.elem_bytes;
    let n = e.banks.len().max(1) as u32;
    let per_bank = e.size / eb / n;
    let shift = eb.trailing_zeros();
    let (u1, u32t, u33) = (ty(1), ty(32), ty(33));
    let jc = b.constant(u128::from(lane * eb), 32);
    let a = b.op2("add", "%addr", &jc, 32, 32, 33);
    let a = b.bits(&a, 33, 32);
    let end = b.constant(u128::from(e.base) + u128::from(e.size), 33);
    let base = b.constant(u128::from(e.base), 32);
    let mut hit = b.def(&format!("firrtl.lt {a}, {end} : ({u32t}, {u33}) -> {u1}"));
    if e.base != 0 {
        let low = b.def(&format!(
            "firrtl.geq {a}, {base} : ({u32t}, {u32t}) -> {u1}"
        ));
        hit = b.op2("and", &low, &hit, 1, 1, 1);
    }
    let d = b.op2("sub", &a, &base, 32, 32, 33);
    let d = b.bits(&d, 33, 32);
    let ew = 32 - shift;
    let el = if shift == 0 {
        d
    } else {
        b.def(&format!("firrtl.shr {d}, {shift} : ({u32t}) -> {}", ty(ew)))
    };
    let (bank, off) = if e.cyclic || per_bank == 0 {
        let nc = b.constant(u128::from(n), 32);
        let bank = b.op2("rem", &el, &nc, ew, 32, ew);
        let off = b.op2("div", &el, &nc, ew, 32, ew);
        (bank, off)
    } else {
        let pb = b.constant(u128::from(per_bank), 32);
        let q = b.op2("div", &el, &pb, ew, 32, ew);
        let last = b.constant(u128::from(n - 1), ew);
        let over = b.op2("gt", &q, &last, ew, ew, 1);
        let bank = b.mux(&over, &last, &q, ew);
        let off = b.op2("rem", &el, &pb, ew, 32, ew);
        (bank, off)
    };
    LaneDecode {
        hit,
        bank,
        off,
        ew,
        fitted: BTreeMap::new(),
    }
}

/// `x` (`from` bits) zero-extended or truncated to `to` bits.
fn fit(b: &mut Body, x: &str, from: u32, to: u32) -> String {
    match from.cmp(&to) {
        std::cmp::Ordering::Greater => b.bits(x, from, to),
        std::cmp::Ordering::Less => b.pad(x, from, to),
        std::cmp::Ordering::Equal => x.to_string(),
    }
}

/// Whether lane `l`'s element is in its bank: the decode hits and names that bank.
fn lane_select(b: &mut Body, d: &LaneDecode, bank: u32) -> String {
    let k = b.constant(u128::from(bank), d.ew);
    let eq = b.op2("eq", &d.bank, &k, d.ew, d.ew, 1);
    b.op2("and", &d.hit, &eq, 1, 1, 1)
}

/// The scratchpad's burst methods of the top (APS's `burst_write_*`, `burst_read_0_*`,
/// `burst_read_1_*`): one 8-byte beat per fire, decoded with the memory map onto the
/// banks' burst ports ([`super::burst_lanes`]); bytes outside every entry read 0 and are
/// not written. A read's beat is registered in [`BURST_Q`] for the second phase.
pub(crate) fn burst_methods(instances: &[super::Instance]) -> [(String, String); 3] {
    let lanes = super::burst_lanes(instances);
    // The lanes of one (entry, lane) decode together.
    let mut groups: Vec<Vec<&super::BurstLane>> = Vec::new();
    for l in &lanes {
        match groups.last_mut() {
            Some(g) if std::ptr::eq(g[0].entry, l.entry) && g[0].lane == l.lane => g.push(l),
            _ => groups.push(vec![l]),
        }
    }
    let port = |l: &super::BurstLane, method: &'static str, rule: &str| {
        sym(&BankPort {
            method,
            rule: rule.to_string(),
            k: l.k,
        }
        .name())
    };

    let mut b = Body::new("        ");
    for g in &groups {
        let e = g[0].entry;
        let eb = e.elem_bytes;
        let mut d = lane_decode(&mut b, e, g[0].lane);
        let lo = g[0].lane * eb * 8;
        let wd = b.def(&format!(
            "firrtl.bits %data {} to {lo} : ({}) -> {}",
            lo + eb * 8 - 1,
            ty(64),
            ty(eb * 8)
        ));
        // The lane's data fitted to a bank's width, once per width.
        let mut data_of: BTreeMap<u32, String> = BTreeMap::new();
        for l in g {
            let sel = lane_select(&mut b, &d, l.bank);
            let aw = bank_addr_width(l.depth);
            let off = d.offset(&mut b, aw);
            let data = data_of
                .entry(l.width)
                .or_insert_with(|| fit(&mut b, &wd, eb * 8, l.width))
                .clone();
            b.line(&format!("cmt2.if {sel} : {} {{", ty(1)));
            b.line(&format!(
                "  cmt2.call {} {}({off}, {data}) : ({}, {}) -> ()",
                sym(l.name),
                port(l, "write", super::BURST_WRITE),
                ty(aw),
                ty(l.width)
            ));
            b.line("  cmt2.yield");
            b.line("}");
        }
    }
    b.line("cmt2.return");
    let mut write = String::new();
    function(
        &mut write,
        &format!(
            "cmt2.method @{}(%addr: {}, %data: {}) -> ()",
            super::BURST_WRITE,
            ty(32),
            ty(64)
        ),
        true_guard(),
        b,
    );

    let mut b = Body::new("        ");
    // Each entry's beat (its lanes, lowest first), then the OR of the entries'.
    let mut beats: Vec<String> = Vec::new();
    let mut i = 0;
    while i < groups.len() {
        let e = groups[i][0].entry;
        let eb = e.elem_bytes;
        let mut parts: Vec<String> = Vec::new();
        while i < groups.len() && std::ptr::eq(groups[i][0].entry, e) {
            let g = &groups[i];
            let mut d = lane_decode(&mut b, e, g[0].lane);
            let mut lane = b.constant(0, eb * 8);
            for l in g {
                let sel = lane_select(&mut b, &d, l.bank);
                let aw = bank_addr_width(l.depth);
                let off = d.offset(&mut b, aw);
                let rd = b.def(&format!(
                    "cmt2.call {} {}({off}) : ({}) -> {}",
                    sym(l.name),
                    port(l, "read", super::BURST_READ),
                    ty(aw),
                    ty(l.width)
                ));
                let rd = fit(&mut b, &rd, l.width, eb * 8);
                lane = b.mux(&sel, &rd, &lane, eb * 8);
            }
            // Lanes without a bank (none of this entry's banks is a bank) read 0.
            while (parts.len() as u32) < g[0].lane {
                parts.push(b.constant(0, eb * 8));
            }
            parts.push(lane);
            i += 1;
        }
        while (parts.len() as u32) < 8 / eb {
            parts.push(b.constant(0, eb * 8));
        }
        // `cat` puts its first operand high: the highest lane first.
        let mut beat = parts.pop().unwrap_or_default();
        let mut w = eb * 8;
        while let Some(p) = parts.pop() {
            beat = b.op2("cat", &beat, &p, w, eb * 8, w + eb * 8);
            w += eb * 8;
        }
        beats.push(beat);
    }
    let mut beat = match beats.first() {
        Some(x) => x.clone(),
        None => b.constant(0, 64),
    };
    for x in beats.iter().skip(1) {
        beat = b.op2("or", &beat, x, 64, 64, 64);
    }
    b.line(&format!(
        "cmt2.call {} @write({beat}) : ({}) -> ()",
        sym(BURST_Q),
        ty(64)
    ));
    b.line("cmt2.return");
    let mut read0 = String::new();
    function(
        &mut read0,
        &format!(
            "cmt2.method @{}(%addr: {}) -> ()",
            super::BURST_READ,
            ty(32)
        ),
        true_guard(),
        b,
    );

    let mut b = Body::new("        ");
    let q = b.def(&format!(
        "cmt2.call {} @read() : () -> {}",
        sym(BURST_Q),
        ty(64)
    ));
    b.line(&format!("cmt2.return {q} : {}", ty(64)));
    let mut read1 = String::new();
    function(
        &mut read1,
        &format!("cmt2.method @burst_read_1() -> ({})", ty(64)),
        true_guard(),
        b,
    );
    [
        (super::BURST_WRITE.to_string(), write),
        (super::BURST_READ.to_string(), read0),
        ("burst_read_1".to_string(), read1),
    ]
}

/// The attributes of a DMA instance's interface declaration.
pub(crate) fn dma_attrs(entries: &[DmaEntry]) -> String {
    let mut out = String::from("{kiln.memory_map = [");
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let banks: Vec<String> = e.banks.iter().map(|b| mlir_str(b)).collect();
        let _ = write!(
            out,
            "{{banks = [{}], base = {} : i64, cyclic = {}, elem_bytes = {} : i64, name = {}, size = {} : i64}}",
            banks.join(", "),
            e.base,
            e.cyclic,
            e.elem_bytes,
            mlir_str(&e.name),
            e.size
        );
    }
    out.push_str("]}");
    out
}

// ---------------------------------------------------------------------------------------
// FIRRTL modules behind the externs (indentation 4 inside `firrtl.circuit`).

fn port_list(ports: &[(&str, String, String)]) -> String {
    let p: Vec<String> = ports
        .iter()
        .map(|(dir, name, t)| format!("{dir} %{name}: {t}"))
        .collect();
    p.join(", ")
}

pub(crate) fn reg_firrtl(name: &str, width: u32, init: u128) -> String {
    let t = ty(width);
    let ports = port_list(&[
        ("in", "clock".into(), "!firrtl.clock".into()),
        ("in", "reset".into(), ty(1)),
        ("out", "read_ready".into(), ty(1)),
        ("out", "read_data".into(), t.clone()),
        ("in", "write_enable".into(), ty(1)),
        ("out", "write_ready".into(), ty(1)),
        ("in", "write_data".into(), t.clone()),
    ]);
    format!(
        "    firrtl.module @{name}({ports}) {{
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %init = firrtl.constant {init} : {t}
      %r = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, {t}, {t}
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %r : {t}
      firrtl.when %write_enable : !firrtl.uint<1> {{
        firrtl.matchingconnect %r, %write_data : {t}
      }}
    }}
"
    )
}

pub(crate) fn wire_firrtl(name: &str, width: u32) -> String {
    let t = ty(width);
    let ports = port_list(&[
        ("in", "write_enable".into(), ty(1)),
        ("out", "write_ready".into(), ty(1)),
        ("in", "write_data".into(), t.clone()),
        ("out", "read_ready".into(), ty(1)),
        ("out", "read_data".into(), t.clone()),
    ]);
    format!(
        "    firrtl.module @{name}({ports}) {{
      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : {t}
      %v = firrtl.mux(%write_enable, %write_data, %zero) : (!firrtl.uint<1>, {t}, {t}) -> {t}
      firrtl.matchingconnect %write_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_ready, %one : !firrtl.uint<1>
      firrtl.matchingconnect %read_data, %v : {t}
    }}
"
    )
}

pub(crate) fn bank_firrtl(
    name: &str,
    width: u32,
    depth: u32,
    init: &[u128],
    ports: &[BankPort],
) -> String {
    let d = depth.max(1);
    let aw = bank_addr_width(d);
    let (t, a) = (ty(width), ty(aw));
    let dt = ty(aw + 1);
    let vt = format!("!firrtl.vector<uint<{width}>, {d}>");
    // (FIRRTL port prefix, method, a burst port) of every port, the latch's last.
    let mut all: Vec<(String, &str, bool)> = bank_port_prefixes(ports)
        .into_iter()
        .zip(ports)
        .map(|(prefix, p)| (prefix, p.method, is_burst(p)))
        .collect();
    all.push(("read_1".into(), "read_1", false));
    let mut decls: Vec<(&str, String, String)> = vec![
        ("in", "clock".into(), "!firrtl.clock".into()),
        ("in", "reset".into(), ty(1)),
    ];
    for (p, m, _) in &all {
        if *m != "read_1" {
            decls.push(("in", format!("{p}_enable"), ty(1)));
        }
        decls.push(("out", format!("{p}_ready"), ty(1)));
        if *m != "read_1" {
            decls.push(("in", format!("{p}_addr"), a.clone()));
        }
        if *m == "write" {
            decls.push(("in", format!("{p}_data"), t.clone()));
        }
        if matches!(*m, "read" | "read_1") {
            decls.push(("out", format!("{p}_data"), t.clone()));
        }
    }
    let mut vals = String::new();
    for i in 0..d as usize {
        if i > 0 {
            vals.push_str(", ");
        }
        let _ = write!(vals, "{}", init.get(i).copied().unwrap_or(0));
    }
    let mut out = String::new();
    let _ = writeln!(out, "    firrtl.module @{name}({}) {{", port_list(&decls));
    let _ = writeln!(
        out,
        "      %one = firrtl.constant 1 : !firrtl.uint<1>
      %zero = firrtl.constant 0 : {t}
      %depth = firrtl.constant {d} : {dt}
      %init = firrtl.aggregateconstant [{vals}] : {vt}
      %mem = firrtl.regreset %clock, %reset, %init : !firrtl.clock, !firrtl.uint<1>, {vt}, {vt}
      %latch = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, !firrtl.uint<1>, {t}, {t}"
    );
    for (p, _, _) in &all {
        let _ = writeln!(
            out,
            "      firrtl.matchingconnect %{p}_ready, %one : !firrtl.uint<1>"
        );
    }
    // Reads: in-range element or 0, of the state before this cycle's writes.
    for (p, m, _) in &all {
        if !matches!(*m, "read" | "read_0") {
            continue;
        }
        let _ = writeln!(
            out,
            "      %{p}_ok = firrtl.lt %{p}_addr, %depth : ({a}, {dt}) -> !firrtl.uint<1>
      %{p}_el = firrtl.subaccess %mem[%{p}_addr] : {vt}, {a}
      %{p}_v = firrtl.mux(%{p}_ok, %{p}_el, %zero) : (!firrtl.uint<1>, {t}, {t}) -> {t}"
        );
        if *m == "read_0" {
            let _ = writeln!(
                out,
                "      firrtl.when %{p}_enable : !firrtl.uint<1> {{
        firrtl.matchingconnect %latch, %{p}_v : {t}
      }}"
            );
        } else {
            let _ = writeln!(out, "      firrtl.matchingconnect %{p}_data, %{p}_v : {t}");
        }
    }
    let _ = writeln!(
        out,
        "      firrtl.matchingconnect %read_1_data, %latch : {t}"
    );
    // Writes in port order, the burst's after the rules' (a later connect wins).
    let writes = all
        .iter()
        .filter(|(_, _, b)| !b)
        .chain(all.iter().filter(|(_, _, b)| *b));
    for (p, m, _) in writes {
        if *m != "write" {
            continue;
        }
        let _ = writeln!(
            out,
            "      %{p}_ok = firrtl.lt %{p}_addr, %depth : ({a}, {dt}) -> !firrtl.uint<1>
      %{p}_go = firrtl.and %{p}_enable, %{p}_ok : (!firrtl.uint<1>, !firrtl.uint<1>) -> !firrtl.uint<1>
      firrtl.when %{p}_go : !firrtl.uint<1> {{
        %{p}_el = firrtl.subaccess %mem[%{p}_addr] : {vt}, {a}
        firrtl.matchingconnect %{p}_el, %{p}_data : {t}
      }}"
        );
    }
    out.push_str("    }\n");
    out
}

// ---------------------------------------------------------------------------------------
// The top's SoC side under APS's port convention. circt-cmt2 names a top method `m`'s
// ports `m_enable`, `m_ready`, `m_<arg>`, `m_res<k>`, and a method `m` of an interface
// declaration `d` `d_m_enable`, ... (directions reversed); these names are chosen so that
// the ports come out as the convention's.

/// The declaration of the RoCC response interface: its method `rocc_resp_to_bus` lowers
/// to `rocc_resp_rocc_resp_to_bus_{enable,ready,result_rd,result_rddata}`.
pub(crate) const ROCC_RESP: &str = "rocc_resp";
/// The interface of [`ROCC_RESP`].
pub(crate) const ROCC_RESP_ITF: &str = "RoccResp";
/// The command register behind a `Rocc` instance: `enq` (the top method `rocc_cmd`),
/// `cmd`, `cmd_deq`.
pub(crate) const ROCC_CMD_MODULE: &str = "RoccCmd";

/// `cmt2.interface @RoccResp { ... }`.
pub(crate) fn rocc_resp_interface() -> String {
    format!(
        "    cmt2.interface @{ROCC_RESP_ITF} {{\n      cmt2.method @rocc_resp_to_bus(%result_rd: {}, %result_rddata: {}) -> () {{\n        cmt2.return\n      }} {{\n        cmt2.return\n      }}\n    }}\n",
        ty(5),
        ty(32)
    )
}

/// The lane name of a CSR instance (`csr_<lane>`).
pub(crate) fn csr_lane(inst: &str) -> &str {
    inst.strip_prefix("csr_").unwrap_or(inst)
}

/// The interface of the CSR instance `inst` (one per lane: the write's argument carries
/// the lane's name, `csr_<lane>_set_<lane>_sdata`).
pub(crate) fn csr_interface_name(inst: &str) -> String {
    format!("Csr_{}", csr_lane(inst))
}

/// `cmt2.interface @Csr_<lane>`: the value `value` (Rocket's committed value,
/// `csr_<lane>_value_{res0,ready}`) and the method `set` (a one-cycle write,
/// `csr_<lane>_set_{enable,ready,<lane>_sdata}`).
pub(crate) fn csr_interface(inst: &str) -> String {
    let w = ty(32);
    format!(
        "    cmt2.interface @{} {{\n      cmt2.value @value() -> ({w}) {{\n        cmt2.return\n      }} {{\n        cmt2.return\n      }}\n      cmt2.method @set(%{}_sdata: {w}) -> () {{\n        cmt2.return\n      }} {{\n        cmt2.return\n      }}\n    }}\n",
        csr_interface_name(inst),
        csr_lane(inst)
    )
}

/// The register holding CSR `inst`'s value as the last command latched it (the IR's
/// `latched`); the top method `rocc_cmd` writes it.
pub(crate) fn csr_latch(inst: &str) -> String {
    format!("{inst}_latch")
}

/// The module of every CSR latch.
pub(crate) fn csr_latch_module() -> String {
    reg_name(32, 0)
}

/// The extern binding of the command register.
pub(crate) fn rocc_cmd_extern() -> String {
    let n = ROCC_CMD_MODULE;
    let mut out = format!("    cmt2.module.extern.firrtl @{n} : @{n}{CLK_ARGS} {{\n{CLK_BINDS}");
    bind(&mut out, "enq", &[("data", 96)], None, false);
    bind(&mut out, "cmd", &[], Some(96), true);
    bind(&mut out, "cmd_deq", &[], Some(96), false);
    out.push_str("    } {conflict = [[@enq, @enq], [@cmd_deq, @cmd_deq]], sequenceBefore = [[@cmd, @cmd_deq], [@cmd_deq, @enq]]}\n");
    out
}

/// The command register: one command (the 96-bit bundle of [`super::rocc_field`]) and
/// its valid bit. `cmd` is ready while it holds one that no call of `cmd_deq` takes this
/// cycle; `enq` while it is empty or being taken (the convention's `rocc_cmd_ready`).
pub(crate) fn rocc_cmd_firrtl() -> String {
    let t = ty(96);
    let b = ty(1);
    let ports = port_list(&[
        ("in", "clock".into(), "!firrtl.clock".into()),
        ("in", "reset".into(), b.clone()),
        ("in", "enq_enable".into(), b.clone()),
        ("out", "enq_ready".into(), b.clone()),
        ("in", "enq_data".into(), t.clone()),
        ("out", "cmd_ready".into(), b.clone()),
        ("out", "cmd_data".into(), t.clone()),
        ("in", "cmd_deq_enable".into(), b.clone()),
        ("out", "cmd_deq_ready".into(), b.clone()),
        ("out", "cmd_deq_data".into(), t.clone()),
    ]);
    format!(
        "    firrtl.module @{ROCC_CMD_MODULE}({ports}) {{
      %zero = firrtl.constant 0 : {b}
      %one = firrtl.constant 1 : {b}
      %none = firrtl.constant 0 : {t}
      %valid = firrtl.regreset %clock, %reset, %zero : !firrtl.clock, {b}, {b}, {b}
      %data = firrtl.regreset %clock, %reset, %none : !firrtl.clock, {b}, {t}, {t}
      %taken = firrtl.not %cmd_deq_enable : ({b}) -> {b}
      %free = firrtl.not %valid : ({b}) -> {b}
      %held = firrtl.and %valid, %taken : ({b}, {b}) -> {b}
      %room = firrtl.or %free, %cmd_deq_enable : ({b}, {b}) -> {b}
      firrtl.matchingconnect %cmd_ready, %held : {b}
      firrtl.matchingconnect %cmd_data, %data : {t}
      firrtl.matchingconnect %cmd_deq_ready, %valid : {b}
      firrtl.matchingconnect %cmd_deq_data, %data : {t}
      firrtl.matchingconnect %enq_ready, %room : {b}
      firrtl.when %cmd_deq_enable : {b} {{
        firrtl.matchingconnect %valid, %zero : {b}
      }}
      firrtl.when %enq_enable : {b} {{
        firrtl.matchingconnect %valid, %one : {b}
        firrtl.matchingconnect %data, %enq_data : {t}
      }}
    }}
"
    )
}

/// The fields of the convention's `rocc_cmd` (name, width), most significant first in
/// the command bundle; the three bits after `rd` (`xs1`, `xs2`, `xd`) are not kept.
const ROCC_CMD_FIELDS: [(&str, u32); 10] = [
    ("funct", 7),
    ("rs1", 5),
    ("rs2", 5),
    ("rd", 5),
    ("xs1", 1),
    ("xs2", 1),
    ("xd", 1),
    ("opcode", 7),
    ("rs1data", 32),
    ("rs2data", 32),
];

/// The top method `rocc_cmd` (the convention's `rocc_cmd_enable`, `rocc_cmd_ready`,
/// `rocc_cmd_rocc_cmd_<field>`): packs the fields into the command bundle of `rocc`'s
/// register, and latches each CSR of `csrs` (their instances) in the same cycle.
pub(crate) fn rocc_cmd_method(rocc: &str, csrs: &[&str]) -> (String, String) {
    let args: Vec<String> = ROCC_CMD_FIELDS
        .iter()
        .map(|(f, w)| format!("%rocc_cmd_{f}: {}", ty(*w)))
        .collect();
    let mut b = Body::new("        ");
    let mut acc = String::new();
    let mut width = 0;
    for (f, w) in ROCC_CMD_FIELDS {
        let part = if matches!(f, "xs1" | "xs2" | "xd") {
            b.constant(0, w)
        } else {
            format!("%rocc_cmd_{f}")
        };
        if acc.is_empty() {
            acc = part;
        } else {
            acc = b.op2("cat", &acc, &part, width, w, width + w);
        }
        width += w;
    }
    for csr in csrs {
        let v = b.def(&format!(
            "cmt2.call {} @value() : () -> {}",
            sym(csr),
            ty(32)
        ));
        b.write(&csr_latch(csr), &v, 32);
    }
    b.line(&format!(
        "cmt2.call {} @enq({acc}) : ({}) -> ()",
        sym(rocc),
        ty(96)
    ));
    b.line("cmt2.return");
    let mut text = String::new();
    function(
        &mut text,
        &format!("cmt2.method @rocc_cmd({}) -> ()", args.join(", ")),
        true_guard(),
        b,
    );
    ("rocc_cmd".into(), text)
}

/// The convention's interface declaration `main` makes beside an instance of `kind`
/// (declaration, interface): the RoCC response beside the command register, the HellaCache
/// request beside the CPU-memory port.
pub(crate) fn soc_decl(kind: &InstanceKind) -> Option<(&'static str, &'static str)> {
    match kind {
        InstanceKind::Rocc => Some((ROCC_RESP, ROCC_RESP_ITF)),
        InstanceKind::MemPort => Some((HELLA_CMD, HELLA_CMD_ITF)),
        _ => None,
    }
}

/// How a rule's call of `method` on an instance of `kind` named `inst` is written in the
/// CMT2 text when the convention names it differently: (callee, method).
pub(crate) fn glue_call(
    kind: &InstanceKind,
    inst: &str,
    method: &str,
) -> Option<(String, &'static str)> {
    match (kind, method) {
        (InstanceKind::Rocc, "resp_from_user") => Some((ROCC_RESP.into(), "rocc_resp_to_bus")),
        (InstanceKind::Csr { .. }, "latched") => Some((csr_latch(inst), "read")),
        _ => None,
    }
}

/// The top method `rocc_cmd` of a circuit with `instances` ([`rocc_cmd_method`]), if it
/// has a `Rocc` instance.
pub(crate) fn top_rocc_cmd(instances: &[super::Instance]) -> Option<(String, String)> {
    let rocc = instances.iter().find(|i| i.kind == InstanceKind::Rocc)?;
    let csrs: Vec<&str> = instances
        .iter()
        .filter(|i| matches!(i.kind, InstanceKind::Csr { .. }))
        .map(|i| i.name.as_str())
        .collect();
    Some(rocc_cmd_method(&rocc.name, &csrs))
}
