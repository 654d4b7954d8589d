//! SystemVerilog backend for the rule IR: one synthesizable top module per [`Circuit`] plus
//! the primitive modules it instantiates (emitted once per parameter set), and a behavioural
//! testbench that models CPU memory and the DMA engine with the latency model of
//! [`super::sim`].
//!
//! Lowering of guarded atomic actions: every rule gets `CAN_FIRE_<rule>` (guard ∧ readiness
//! of every method called on the taken path) and `WILL_FIRE_<rule>`. Rules compose
//! sequentially in the order of [`super::schedule`] (the simulator's order), so a method's
//! readiness is computed from the committed state plus the effects of the rules fired
//! earlier in the same cycle, exactly as the simulator applies them: FIFO `deq` reads entry
//! `k` where `k` counts earlier dequeues, `enq` needs `count − deqs + enqs < depth`, a second
//! register write or DMA start is not ready, a started transfer makes `poll_for_idle` not
//! ready for later rules. Conflicts are thereby resolved per call site (path-sensitive),
//! which is what the simulator does; `WILL_FIRE = CAN_FIRE`.
//!
//! Interfaces (top-module ports):
//! - RoCC command (`rocc_cmd_valid/ready`, funct/rs1/rs2/rd/opcode/rs1data/rs2data) and
//!   response (`rocc_resp_valid/ready`, rd/data). `cmd_to_user_<id>` takes the command on
//!   the port when its opcode is `id`; at most one command is accepted per cycle.
//! - Per DMA instance `<d>`: request `<d>_req_valid/ready` with direction (`to_isax`),
//!   `cpu_addr`, `isax_addr`, `log2_bytes`; input `<d>_idle`; and the scratchpad burst port
//!   `<d>_burst_{wen,addr,mask,wdata,rdata}`: one beat of up to 8 bytes at scratchpad byte
//!   address `addr`, decoded to banks with the memory map (cyclic or block placement).
//! - Per CPU-memory port `<m>` (HellaCache style): `L` request lanes
//!   `<m>_req_{valid,cmd,addr,data,tag}` + `<m>_req_ready`, `L` response lanes
//!   `<m>_resp_{valid,data}` (responses in request order, compacted from lane 0), and an
//!   internal response queue. `L` is the largest number of requests one rule issues.
//!
//! The interface limits are shared with the simulator ([`super::sim`] documents them): one
//! RoCC command and one response per cycle, arbitrated in rule order (the first ready call
//! site in the schedule wins, later ones are not ready); at most `L` memory requests per
//! cycle and a load request only when the `4·L`-entry response queue has room for it
//! ([`super::schedule::mem_lanes`]); DMA data in 64-bit beats at the end of the busy
//! window. Remaining assumption: burst lanes exist for element sizes 1, 2, 4, 8 bytes (an
//! entry with another element size moves no data in the RTL).

use super::schedule::{self, Schedule};
use super::{Circuit, Expr, InstanceKind, PrimOp, Rule, Stmt, Var};
use crate::diag::Diagnostic;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::schedule::MEM_QUEUE_PER_LANE;

/// Facts about the emitted top module that a testbench needs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TopInfo {
    pub top: String,
    pub(crate) dmas: Vec<String>,
    /// CPU-memory ports and their lane counts.
    pub(crate) memports: Vec<(String, u32)>,
    /// Banks: (instance name, depth).
    pub banks: Vec<(String, u32)>,
    pub regs: Vec<String>,
    /// FIFOs: (IR name, SystemVerilog identifier), for deadlock reports.
    pub(crate) fifos: Vec<(String, String)>,
    /// Fault instances (their `<ident>_fault` output ports).
    pub(crate) faults: Vec<String>,
    /// What stops a run, in the simulator's order (rule by rule, a rule's faults before
    /// its hazard): the top's signals a testbench watches.
    pub(crate) watch: Vec<Watch>,
}

/// A run-time error the top signals.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) enum Watch {
    /// Rule `rule` raises fault instance `inst` when `<signal>` is 1.
    Fault {
        inst: String,
        rule: String,
        signal: String,
    },
    /// Rule `rule` may store a CPU-memory word and access it again in one firing: the top
    /// has `<prefix>__hazard`, `__hazard_addr` and `__hazard_load`.
    Hazard { rule: String, prefix: String },
}

/// What `verilator --lint-only -Wall` is told to accept in an emitted file, and why; every
/// other warning is fixed in the emitter (explicit size casts, sized comparisons).
const LINT_WAIVERS: &str = "\
// Lint waivers (verilator -Wall), each for the whole file:
//   UNUSEDSIGNAL: every rule's values, every shared method's running enable sums and the
//     signals testbenches observe are declared uniformly, whether or not something reads
//     them (a value the program computes and never uses included); synthesis removes them.
//   DECLFILENAME: the file is self-contained: the top and every primitive module it
//     instantiates travel together in one file.
//   CMPCONST, UNSIGNED: comparisons are the source program's as written (say `x <= 255` or
//     `x > 255` of an 8-bit value); kiln does not fold them.
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off DECLFILENAME */
/* verilator lint_off CMPCONST */
/* verilator lint_off UNSIGNED */
";

/// Emit the SystemVerilog of `c`; the top module is named after the circuit.
pub fn emit_sv(c: &Circuit) -> Result<String, Diagnostic> {
    emit_sv_with_info(c).map(|(s, _)| s)
}

pub fn emit_sv_with_info(c: &Circuit) -> Result<(String, TopInfo), Diagnostic> {
    let parts = emit_sv_parts(c)?;
    let mut out = parts.top;
    out.reserve_exact(parts.primitives.values().map(String::len).sum());
    for text in parts.primitives.values() {
        out.push_str(text);
    }
    Ok((out, parts.info))
}

/// The emitted design in parts: the top module (with the schedule comment block) and the
/// primitive modules by name. Primitive text depends only on the name (its parameter set),
/// so designs compiled together (a batch of testbenches) share one copy of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvParts {
    pub top: String,
    pub primitives: BTreeMap<String, String>,
    pub info: TopInfo,
}

pub fn emit_sv_parts(c: &Circuit) -> Result<SvParts, Diagnostic> {
    let sched = schedule::analyse(c).map_err(Diagnostic::global_error)?;
    let mut e = Emitter::new(c);
    for &ri in &sched.order {
        e.rule(&c.rules[ri])?;
    }
    Ok(e.finish(&sched))
}

/// A legal SystemVerilog identifier for an IR name: other characters become `_`, a
/// leading digit gets a `_` prefix, and an IEEE 1800-2017 keyword a `_` suffix.
pub fn ident(s: &str) -> String {
    let mut o: String = s
        .chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' })
        .collect();
    if o.is_empty() || o.starts_with(|ch: char| ch.is_ascii_digit()) {
        o.insert(0, '_');
    }
    if SV_KEYWORDS.binary_search(&o.as_str()).is_ok() {
        o.push('_');
    }
    o
}

/// The reserved keywords of IEEE 1800-2017 (Annex B), sorted.
pub(crate) const SV_KEYWORDS: &[&str] = &[
    "accept_on",
    "alias",
    "always",
    "always_comb",
    "always_ff",
    "always_latch",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "bufif0",
    "bufif1",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "cmos",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endchecker",
    "endclass",
    "endclocking",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endgroup",
    "endinterface",
    "endmodule",
    "endpackage",
    "endprimitive",
    "endprogram",
    "endproperty",
    "endsequence",
    "endspecify",
    "endtable",
    "endtask",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "forkjoin",
    "function",
    "generate",
    "genvar",
    "global",
    "highz0",
    "highz1",
    "if",
    "iff",
    "ifnone",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "join_any",
    "join_none",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "rcmos",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "showcancelled",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "sync_accept_on",
    "sync_reject_on",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "until_with",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "weak0",
    "weak1",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

fn hex(v: u128, w: u32) -> String {
    format!("{w}'h{v:x}")
}

/// `name` (of width `w`) zero-extended or truncated to `t` bits.
fn fit(name: &str, w: u32, t: u32) -> String {
    match w.cmp(&t) {
        std::cmp::Ordering::Equal => name.to_string(),
        std::cmp::Ordering::Greater => format!("{name}[{}:0]", t - 1),
        std::cmp::Ordering::Less => format!("{{{}'d0, {name}}}", t - w),
    }
}

/// `name` (of width `w`) sign-extended to `t ≥ w` bits.
fn sext(name: &str, w: u32, t: u32) -> String {
    if t <= w {
        return name.to_string();
    }
    format!("{{{{{}{{{name}[{}]}}}}, {name}}}", t - w, w - 1)
}

/// `(8-bit count) = Σ terms`.
fn count(terms: &[String]) -> String {
    if terms.is_empty() {
        return "8'd0".into();
    }
    let parts: Vec<String> = terms.iter().map(|t| format!("{{7'd0, {t}}}")).collect();
    format!("({})", parts.join(" + "))
}

/// The enables of a shared method's call sites earlier in the schedule: `prefix` (named
/// wires summing up every earlier rule's, see [`Prefix`]) and this rule's earlier site
/// paths. Expressions over them name the wires, so each stays short however many rules share
/// the method (inlining every earlier enable made the text quadratic in the rules).
struct Before<'p> {
    prefix: Option<&'p Prefix>,
    local: Vec<String>,
}

impl Before<'_> {
    /// `(8-bit count)` of earlier enables.
    fn count(&self) -> String {
        let mut parts: Vec<String> = self.prefix.iter().map(|p| p.count.clone()).collect();
        parts.extend(self.local.iter().map(|t| format!("{{7'd0, {t}}}")));
        match parts.len() {
            0 => "8'd0".into(),
            _ => format!("({})", parts.join(" + ")),
        }
    }

    /// Whether any earlier enable holds (1 bit).
    fn any(&self) -> String {
        let mut parts: Vec<String> = self.prefix.iter().map(|p| p.any.clone()).collect();
        parts.extend(self.local.iter().cloned());
        any(&parts)
    }
}

/// Running wires over the enables of one (instance, class) of every rule emitted so far:
/// `count` (8 bits, their sum) and `any` (their OR); one new pair after each rule that
/// calls the method, built on the pair before.
struct Prefix {
    count: String,
    any: String,
    rules: usize,
}

/// `terms` joined by `sep`, or `empty` when there are none.
fn join_or(terms: &[String], sep: &str, empty: &str) -> String {
    if terms.is_empty() {
        return empty.into();
    }
    terms.join(sep)
}

fn any(terms: &[String]) -> String {
    if terms.is_empty() {
        return "1'b0".into();
    }
    format!("({})", terms.join(" | "))
}

fn clog2(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// Address bits of a bank index (`addr mod next_pow2(depth)`), at least 1.
fn bank_aw(depth: u32) -> u32 {
    clog2((depth.max(1) as u64).next_power_of_two()).max(1)
}

/// One enabled call site as the instance's drive logic sees it.
#[derive(Clone, Default)]
struct Site {
    en: String,
    /// Slot / lane / port index expression (8-bit) where relevant.
    slot: String,
    data: Vec<String>,
}

#[derive(Default)]
struct Uses {
    /// The running count and OR of the enables of earlier rules' call sites, as named
    /// wires, per (instance, class).
    prefix: BTreeMap<(String, &'static str), Prefix>,
    sites: BTreeMap<(String, &'static str), Vec<Site>>,
    /// Bank read ports: (bank, raddr expr) in port order.
    bank_reads: BTreeMap<String, Vec<String>>,
    /// Bank write ports: (we, waddr, wdata).
    bank_writes: BTreeMap<String, Vec<(String, String, String)>>,
}

struct Emitter<'a> {
    c: &'a Circuit,
    /// The instances by name: a call site looks its instance up (a search per site would
    /// grow with the product of sites and instances, both linear in a function's slots).
    instances: super::Instances<'a>,
    body: String,
    uses: Uses,
    mem_lanes: BTreeMap<String, u32>,
    fires: Vec<String>,
    watch: Vec<Watch>,
}

/// Per-rule walk state.
struct RuleCx {
    name: String,
    widths: BTreeMap<Var, u32>,
    /// (instance, class, path) of earlier call sites in this rule.
    local: Vec<(String, &'static str, String)>,
    /// (path, ready, site index) per call site.
    sites: Vec<(String, String)>,
    /// Pending drive entries: (instance, class, site) with `en` filled after WILL_FIRE.
    pending: Vec<(String, &'static str, Site, usize)>,
    bank_reads: Vec<(String, String)>,
    bank_writes: Vec<(String, String, String, usize)>,
    /// CPU-memory stores so far: (instance, address, path).
    mem_stores: Vec<(String, String, String)>,
    /// Same-firing CPU-memory hazards: (condition, word address, is a load).
    hazards: Vec<(String, String, bool)>,
}

impl<'a> Emitter<'a> {
    fn new(c: &'a Circuit) -> Emitter<'a> {
        let mem_lanes = schedule::mem_lanes(c);
        Emitter {
            c,
            instances: c.instance_index(),
            body: String::new(),
            uses: Uses::default(),
            mem_lanes,
            fires: Vec::new(),
            watch: Vec::new(),
        }
    }

    fn kind(&self, inst: &str) -> Result<&'a InstanceKind, Diagnostic> {
        self.instances
            .get(inst)
            .map(|i| &i.kind)
            .ok_or_else(|| Diagnostic::global_error(format!("unknown instance `{inst}`")))
    }

    fn rule(&mut self, r: &Rule) -> Result<(), Diagnostic> {
        let mut cx = RuleCx {
            name: ident(&r.name),
            widths: BTreeMap::new(),
            local: Vec::new(),
            sites: Vec::new(),
            pending: Vec::new(),
            bank_reads: Vec::new(),
            bank_writes: Vec::new(),
            mem_stores: Vec::new(),
            hazards: Vec::new(),
        };
        let _ = writeln!(
            self.body,
            "\n  // ---- rule {} ----\n  logic {n}__undef;\n  assign {n}__undef = 1'b0;",
            r.name,
            n = cx.name
        );
        let mut guard = "1'b1".to_string();
        if let Some((stmts, g)) = &r.guard {
            self.stmts(&mut cx, stmts, "1'b1")?;
            guard = self.var(&cx, *g).0 + "[0]";
        }
        self.stmts(&mut cx, &r.body, "1'b1")?;
        let n = &cx.name;
        let mut terms = vec![guard];
        for (path, ready) in &cx.sites {
            terms.push(format!("(~({path}) | {ready})"));
        }
        let _ = writeln!(
            self.body,
            "  logic CAN_FIRE_{n}, WILL_FIRE_{n};\n  assign CAN_FIRE_{n} = {};\n  assign WILL_FIRE_{n} = CAN_FIRE_{n};",
            terms.join("\n      & ")
        );
        self.fires.push(format!("WILL_FIRE_{n}"));
        let mut hazard = None;
        if !cx.hazards.is_empty() {
            // The first hazard on the taken path (in program order).
            let mut addr = "32'd0".to_string();
            let mut load = "1'b0".to_string();
            for (cond, a, l) in cx.hazards.iter().rev() {
                addr = format!("(({cond}) ? {a} : {addr})");
                load = format!("(({cond}) ? 1'b{} : {load})", u8::from(*l));
            }
            let any_h = any(&cx
                .hazards
                .iter()
                .map(|h| format!("({})", h.0))
                .collect::<Vec<_>>());
            let _ = writeln!(
                self.body,
                "  logic {n}__hazard, {n}__hazard_load;\n  logic [31:0] {n}__hazard_addr;\n  assign {n}__hazard = WILL_FIRE_{n} & {any_h};\n  assign {n}__hazard_addr = {addr};\n  assign {n}__hazard_load = {load};"
            );
            hazard = Some(Watch::Hazard {
                rule: r.name.clone(),
                prefix: n.clone(),
            });
        }
        let en_of = |k: usize, cx: &RuleCx| format!("(WILL_FIRE_{} & {})", cx.name, cx.sites[k].0);
        let mut fired: BTreeMap<(String, &'static str), Vec<String>> = BTreeMap::new();
        for (inst, class, mut site, k) in std::mem::take(&mut cx.pending) {
            site.en = en_of(k, &cx);
            if class == "raise" {
                let signal = format!("{}__fault{k}", cx.name);
                let _ = writeln!(
                    self.body,
                    "  logic {signal};\n  assign {signal} = {};",
                    site.en
                );
                self.watch.push(Watch::Fault {
                    inst: inst.clone(),
                    rule: r.name.clone(),
                    signal,
                });
            }
            fired
                .entry((inst.clone(), class))
                .or_default()
                .push(site.en.clone());
            self.uses.sites.entry((inst, class)).or_default().push(site);
        }
        for (key, ens) in fired {
            self.extend_prefix(key, &ens);
        }
        for (bank, addr) in std::mem::take(&mut cx.bank_reads) {
            self.uses.bank_reads.entry(bank).or_default().push(addr);
        }
        for (bank, addr, data, k) in std::mem::take(&mut cx.bank_writes) {
            let en = en_of(k, &cx);
            self.uses
                .bank_writes
                .entry(bank)
                .or_default()
                .push((en, addr, data));
        }
        self.watch.extend(hazard);
        Ok(())
    }

    fn var(&self, cx: &RuleCx, v: Var) -> (String, u32) {
        match cx.widths.get(&v) {
            Some(&w) => (format!("{}__v{v}", cx.name), w),
            None => (format!("{}__undef", cx.name), 1),
        }
    }

    fn declare(&mut self, cx: &mut RuleCx, v: Var, w: u32, expr: &str) -> String {
        let w = w.max(1);
        cx.widths.insert(v, w);
        let name = format!("{}__v{v}", cx.name);
        let _ = writeln!(self.body, "  logic [{}:0] {name};", w - 1);
        let _ = writeln!(self.body, "  assign {name} = {expr};");
        name
    }

    fn stmts(&mut self, cx: &mut RuleCx, stmts: &[Stmt], path: &str) -> Result<(), Diagnostic> {
        for s in stmts {
            match s {
                Stmt::Let { var, width, expr } => {
                    let e = self.expr(cx, expr, *width);
                    self.declare(cx, *var, *width, &e);
                }
                Stmt::Call {
                    result,
                    inst,
                    method,
                    args,
                } => self.call(cx, path, inst, method, args, *result)?,
                Stmt::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    let c = format!("{}[0]", self.var(cx, *cond).0);
                    self.stmts(cx, then_body, &format!("{path} & {c}"))?;
                    self.stmts(cx, else_body, &format!("{path} & ~{c}"))?;
                }
            }
        }
        Ok(())
    }

    fn expr(&self, cx: &RuleCx, e: &Expr, w: u32) -> String {
        let w = w.max(1);
        let (op, args) = match e {
            Expr::Const(v) => return hex(super::mask(*v, w), w),
            Expr::Prim(op, args) => (*op, args),
        };
        let a: Vec<(String, u32)> = args.iter().map(|x| self.var(cx, *x)).collect();
        let get = |i: usize| a.get(i).cloned().unwrap_or(("1'b0".into(), 1));
        let (x, wx) = get(0);
        let (y, wy) = get(1);
        let m = w.max(wx).max(wy);
        let sw = wx.max(wy);
        let bin = |o: &str| format!("{} {o} {}", fit(&x, wx, m), fit(&y, wy, m));
        let cmp = |o: &str| bool_w(&format!("({x} {o} {y})"), w);
        let scmp = |o: &str| {
            bool_w(
                &format!(
                    "($signed({}) {o} $signed({}))",
                    sext(&x, wx, sw),
                    sext(&y, wy, sw)
                ),
                w,
            )
        };
        let r = match op {
            PrimOp::Add => bin("+"),
            PrimOp::Sub => bin("-"),
            PrimOp::Mul => bin("*"),
            PrimOp::And => bin("&"),
            PrimOp::Or => bin("|"),
            PrimOp::Xor => bin("^"),
            PrimOp::Shl => format!("({y} >= {wx}) ? {m}'d0 : ({} << {y})", fit(&x, wx, m)),
            PrimOp::ShrU => format!("({y} >= {wx}) ? {m}'d0 : ({x} >> {y})"),
            PrimOp::ShrS => format!("$signed({}) >>> {y}", sext(&x, wx, m)),
            PrimOp::Eq => cmp("=="),
            PrimOp::Ne => cmp("!="),
            PrimOp::Ult => cmp("<"),
            PrimOp::Ule => cmp("<="),
            PrimOp::Ugt => cmp(">"),
            PrimOp::Uge => cmp(">="),
            PrimOp::Slt => scmp("<"),
            PrimOp::Sle => scmp("<="),
            PrimOp::Sgt => scmp(">"),
            PrimOp::Sge => scmp(">="),
            PrimOp::Mux => {
                let (z, wz) = get(2);
                let mm = w.max(wy).max(wz);
                format!("{x}[0] ? {} : {}", fit(&y, wy, mm), fit(&z, wz, mm))
            }
            PrimOp::Bits { lo } => format!("{} >> {lo}", fit(&x, wx, wx.max(w))),
            PrimOp::ZExt => fit(&x, wx, wx.max(w)),
            PrimOp::SExt => sext(&x, wx, wx.max(w)),
        };
        // The width the expression has on its own (Verilog sizes it from its operands);
        // wider than the target, it is truncated by an explicit size cast, so that lint
        // tools see the truncation is meant (the same bits as an implicit one).
        let natural = match op {
            PrimOp::Eq
            | PrimOp::Ne
            | PrimOp::Ult
            | PrimOp::Ule
            | PrimOp::Ugt
            | PrimOp::Uge
            | PrimOp::Slt
            | PrimOp::Sle
            | PrimOp::Sgt
            | PrimOp::Sge => w,
            PrimOp::Mux => w.max(wy).max(get(2).1),
            PrimOp::Bits { .. } | PrimOp::ZExt | PrimOp::SExt => wx.max(w),
            _ => m,
        };
        match natural > w {
            true => format!("{w}'({r})"),
            false => format!("({r})"),
        }
    }

    /// Earlier enables of `(inst, class)`: every earlier rule's (as the running wires) and
    /// this rule's earlier site paths.
    fn before(&self, cx: &RuleCx, inst: &str, class: &'static str) -> Before<'_> {
        let local = cx
            .local
            .iter()
            .filter(|(i, c, _)| i == inst && *c == class)
            .map(|(_, _, p)| format!("({p})"))
            .collect();
        Before {
            prefix: self.uses.prefix.get(&(inst.to_string(), class)),
            local,
        }
    }

    /// The running wires of `key` after a rule whose call sites have the enables `ens`.
    fn extend_prefix(&mut self, key: (String, &'static str), ens: &[String]) {
        let prev = self.uses.prefix.get(&key);
        let n = prev.map_or(0, |p| p.rules);
        let name = format!("{}__{}_before{n}", ident(&key.0), key.1);
        let mut sum: Vec<String> = prev.iter().map(|p| p.count.clone()).collect();
        sum.extend(ens.iter().map(|e| format!("{{7'd0, {e}}}")));
        let mut or: Vec<String> = prev.iter().map(|p| p.any.clone()).collect();
        or.extend(ens.iter().cloned());
        let _ = writeln!(
            self.body,
            "  logic [7:0] {name}_n;\n  assign {name}_n = {};\n  logic {name}_any;\n  assign {name}_any = {};",
            sum.join(" + "),
            or.join(" | ")
        );
        self.uses.prefix.insert(
            key,
            Prefix {
                count: format!("{name}_n"),
                any: format!("{name}_any"),
                rules: n + 1,
            },
        );
    }

    fn call(
        &mut self,
        cx: &mut RuleCx,
        path: &str,
        inst: &str,
        method: &str,
        args: &[Var],
        result: Option<(Var, u32)>,
    ) -> Result<(), Diagnostic> {
        let kind = self.kind(inst)?;
        let k = cx.sites.len();
        let i = ident(inst);
        let arg = |n: usize, t: u32| {
            let (name, w) = args
                .get(n)
                .map(|v| self.var(cx, *v))
                .unwrap_or((format!("{}__undef", cx.name), 1));
            fit(&name, w, t)
        };
        let raw = |n: usize| {
            args.get(n)
                .map(|v| self.var(cx, *v))
                .unwrap_or((format!("{}__undef", cx.name), 1))
        };
        let unknown =
            || Diagnostic::global_error(format!("unknown method `{inst}.{method}` in the rule IR"));
        let mut value: Option<(String, u32)> = None;
        let mut class: Option<&'static str> = None;
        // A second class a call counts under (load requests: the response queue's room).
        let mut also: Option<&'static str> = None;
        let mut site = Site::default();
        let mut new_hazards: Vec<(String, String, bool)> = Vec::new();
        let mut new_store: Option<(String, String, String)> = None;
        let ready: String = match (kind, method) {
            (InstanceKind::Fifo { width, depth }, "deq") => {
                let before = self.before(cx, inst, "deq").count();
                let kname = format!("{}__k{k}", cx.name);
                let _ = writeln!(
                    self.body,
                    "  logic [7:0] {kname};\n  assign {kname} = {before};"
                );
                let v = if *depth <= 1 {
                    format!("{i}__data")
                } else {
                    format!("{i}__data[{kname}*{width} +: {width}]")
                };
                value = Some((v, *width));
                class = Some("deq");
                format!("({i}__cnt > {kname})")
            }
            (InstanceKind::Fifo { width, depth }, "enq") => {
                let d = self.before(cx, inst, "deq").count();
                let q = self.before(cx, inst, "enq").count();
                site.slot = q.clone();
                site.data = vec![arg(0, *width)];
                class = Some("enq");
                format!("(({i}__cnt - {d} + {q}) < 8'd{})", (*depth).max(1))
            }
            (InstanceKind::Reg { width, .. }, "read") => {
                value = Some((format!("{i}__q"), *width));
                "1'b1".into()
            }
            (InstanceKind::Reg { width, .. }, "write") => {
                let b = self.before(cx, inst, "write").any();
                site.data = vec![arg(0, *width)];
                class = Some("write");
                format!("~{b}")
            }
            (InstanceKind::Bank { width, depth, .. }, "read" | "read_0") => {
                let port = self.uses.bank_reads.get(inst).map_or(0, Vec::len)
                    + cx.bank_reads.iter().filter(|(b, _)| b == inst).count();
                cx.bank_reads
                    .push((inst.to_string(), bank_addr(&raw(0), *depth)));
                let v = format!(
                    "{i}__rdata[{}:{}]",
                    (port as u32 + 1) * width - 1,
                    port as u32 * width
                );
                if method == "read" {
                    value = Some((v, *width));
                } else {
                    site.data = vec![v];
                    class = Some("latch");
                }
                "1'b1".into()
            }
            (InstanceKind::Bank { width, .. }, "read_1") => {
                value = Some((format!("{i}__latch"), *width));
                "1'b1".into()
            }
            (InstanceKind::Bank { width, depth, .. }, "write") => {
                cx.bank_writes.push((
                    inst.to_string(),
                    bank_addr(&raw(0), *depth),
                    arg(1, *width),
                    k,
                ));
                "1'b1".into()
            }
            (InstanceKind::Rocc, "resp_from_user") => {
                let b = self.before(cx, inst, "resp").any();
                site.data = vec![arg(0, 5), arg(1, 32)];
                class = Some("resp");
                format!("(rocc_resp_ready & ~{b})")
            }
            (InstanceKind::Rocc, "cmd" | "cmd_deq") => {
                let b = self.before(cx, inst, "cmd").any();
                if method == "cmd_deq" {
                    class = Some("cmd");
                }
                value = Some((
                    "{rocc_cmd_funct, rocc_cmd_rs1, rocc_cmd_rs2, rocc_cmd_rd, 3'b0, rocc_cmd_opcode, rocc_cmd_rs1data, rocc_cmd_rs2data}".into(),
                    96,
                ));
                format!("(rocc_cmd_valid & ~{b})")
            }
            (InstanceKind::Dma { .. }, "poll_for_idle") => {
                let b = self
                    .uses
                    .prefix
                    .get(&(inst.to_string(), "start"))
                    .map_or_else(|| "1'b0".to_string(), |p| p.any.clone());
                value = Some(("1'b1".into(), 1));
                format!("({i}_idle & ~{b})")
            }
            (InstanceKind::Dma { .. }, "cpu_to_isax" | "isax_to_cpu") => {
                let b = self.before(cx, inst, "start").any();
                let dir = if method == "cpu_to_isax" {
                    "1'b1"
                } else {
                    "1'b0"
                };
                site.data = vec![dir.into(), arg(0, 32), arg(1, 32), arg(2, 8)];
                class = Some("start");
                format!("({i}_idle & {i}_req_ready & ~{b})")
            }
            (InstanceKind::MemPort, "load_req" | "store_req") => {
                let lanes = self.mem_lanes.get(inst).copied().unwrap_or(1);
                let lane = self.before(cx, inst, "req").count();
                let st = method == "store_req";
                let word = format!("({} & 32'hfffffffc)", arg(0, 32));
                for (si, sa, sp) in &cx.mem_stores {
                    if si == inst {
                        new_hazards.push((
                            format!("({sp}) & ({path}) & ({sa} == {word})"),
                            word.clone(),
                            !st,
                        ));
                    }
                }
                if st {
                    new_store = Some((inst.to_string(), word.clone(), path.to_string()));
                }
                site.slot = lane.clone();
                site.data = vec![
                    if st { "1'b1" } else { "1'b0" }.into(),
                    arg(0, 32),
                    if st { arg(1, 32) } else { "32'd0".into() },
                ];
                class = Some("req");
                if st {
                    format!("({i}_req_ready & ({lane} < 8'd{lanes}))")
                } else {
                    // Room in the response queue for every load outstanding at the start of
                    // the cycle and every load issued before this one in the cycle.
                    also = Some("load");
                    let loads = self.before(cx, inst, "load").count();
                    format!(
                        "({i}_req_ready & ({lane} < 8'd{lanes}) & (({i}__q_cnt + {i}__in_n + {loads}) < 8'd{}))",
                        MEM_QUEUE_PER_LANE * lanes
                    )
                }
            }
            (InstanceKind::Fault { .. }, "raise") => {
                class = Some("raise");
                "1'b1".into()
            }
            (InstanceKind::MemPort, "load_resp") => {
                let kname = format!("{}__k{k}", cx.name);
                let before = self.before(cx, inst, "mresp").count();
                let _ = writeln!(
                    self.body,
                    "  logic [7:0] {kname};\n  assign {kname} = {before};"
                );
                value = Some((
                    format!(
                        "(({kname} < {i}__q_cnt) ? {i}__q_data[{kname}*32 +: 32] : {i}_resp_data[({kname} - {i}__q_cnt)*32 +: 32])"
                    ),
                    32,
                ));
                class = Some("mresp");
                format!("({kname} < ({i}__q_cnt + {i}__in_n))")
            }
            _ => return Err(unknown()),
        };
        cx.hazards.extend(new_hazards);
        cx.mem_stores.extend(new_store);
        let rname = format!("{}__rdy{k}", cx.name);
        let _ = writeln!(self.body, "  logic {rname};\n  assign {rname} = {ready};");
        cx.sites.push((path.to_string(), rname));
        if let Some(cl) = also {
            cx.local.push((inst.to_string(), cl, path.to_string()));
            cx.pending.push((inst.to_string(), cl, Site::default(), k));
        }
        if let Some(cl) = class {
            cx.local.push((inst.to_string(), cl, path.to_string()));
            cx.pending.push((inst.to_string(), cl, site, k));
        }
        if let (Some((var, w)), Some((v, vw))) = (result, value) {
            let vn = format!("{}__val{k}", cx.name);
            let _ = writeln!(
                self.body,
                "  logic [{}:0] {vn};\n  assign {vn} = {v};",
                vw.max(1) - 1
            );
            let e = fit(&vn, vw.max(1), w.max(1));
            self.declare(cx, var, w, &e);
        }
        Ok(())
    }

    fn sites(&self, inst: &str, class: &'static str) -> Vec<Site> {
        self.uses
            .sites
            .get(&(inst.to_string(), class))
            .cloned()
            .unwrap_or_default()
    }

    fn finish(mut self, sched: &Schedule) -> SvParts {
        let c = self.c;
        let top = ident(&c.name);
        let mut info = TopInfo {
            top: top.clone(),
            watch: std::mem::take(&mut self.watch),
            ..TopInfo::default()
        };
        let mut ports: Vec<String> = vec![
            "  input  logic        clk,        // clock".into(),
            "  input  logic        rst,        // synchronous reset, active high".into(),
        ];
        let mut inst_text = String::new();
        let mut prims: BTreeMap<String, String> = BTreeMap::new();
        for inst in &c.instances {
            let i = ident(&inst.name);
            match &inst.kind {
                InstanceKind::Fifo { width, depth } => {
                    info.fifos.push((inst.name.clone(), i.clone()));
                    self.fifo(&mut inst_text, &mut prims, &inst.name, &i, *width, *depth)
                }
                InstanceKind::Reg { width, init } => {
                    info.regs.push(inst.name.clone());
                    self.reg(&mut inst_text, &mut prims, &inst.name, &i, *width, *init)
                }
                InstanceKind::Bank { .. } => {}
                InstanceKind::Fault { message } => {
                    ports.push(format!(
                        "  output logic        {i}_fault   // run-time error: {}",
                        message.replace(['\n', '\r'], " ")
                    ));
                    info.faults.push(i.clone());
                    let en: Vec<String> = self
                        .sites(&inst.name, "raise")
                        .iter()
                        .map(|s| s.en.clone())
                        .collect();
                    let _ = writeln!(
                        inst_text,
                        "\n  // fault {}\n  assign {i}_fault = {};",
                        inst.name,
                        any(&en)
                    );
                }
                InstanceKind::Rocc => {
                    ports.extend(rocc_ports());
                    self.rocc(&mut inst_text, &inst.name);
                }
                InstanceKind::Dma { entries, .. } => {
                    info.dmas.push(i.clone());
                    ports.extend(dma_ports(&i));
                    self.dma(&mut inst_text, &inst.name, &i, entries);
                }
                InstanceKind::MemPort => {
                    let lanes = self.mem_lanes.get(&inst.name).copied().unwrap_or(1);
                    info.memports.push((i.clone(), lanes));
                    ports.extend(mem_ports(&i, lanes));
                    self.memport(&mut inst_text, &mut prims, &inst.name, &i, lanes);
                }
            }
        }
        // Banks last: their ports include the burst lanes of every DMA.
        for inst in &c.instances {
            if let InstanceKind::Bank { width, depth, init } = &inst.kind {
                info.banks.push((ident(&inst.name), *depth));
                self.bank(&mut inst_text, &mut prims, &inst.name, *width, *depth, init);
            }
        }
        let mut out = String::new();
        let _ = writeln!(
            out,
            "// Generated by kiln from rule circuit `{}`: SystemVerilog top `{top}`.",
            c.name
        );
        out.push_str(LINT_WAIVERS);
        out.push_str(&schedule::describe(c, sched));
        out.push_str(
            "//\n// Ports: clk/rst; RoCC command/response; per DMA channel a request/idle\n",
        );
        out.push_str("// interface and a scratchpad burst port; per CPU-memory port request and\n");
        out.push_str("// response lanes (see the comments at each port).\n\n");
        let _ = writeln!(out, "module {top} (\n{}\n);", ports.join(",\n"));
        // The rules' text is the largest string kiln writes: the header goes in front of it
        // in place rather than the text being copied after the header (two copies at once).
        let header = out;
        let mut out = std::mem::take(&mut self.body);
        out.insert_str(0, &header);
        drop(header);
        out.push_str(&inst_text);
        let any_fire = any(&self.fires);
        let _ = writeln!(
            out,
            "\n  // Observability for testbenches: some rule fired / memory responses pending.\n  logic kiln_any_fire;\n  assign kiln_any_fire = {any_fire};\nendmodule\n",
        );
        SvParts {
            top: out,
            primitives: prims,
            info,
        }
    }

    fn fifo(
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
            "\n  // FIFO {name} (width {w}, depth {d})\n  logic [7:0] {i}__cnt;\n  logic [{}:0] {i}__data;\n  {module} u_{i} (.clk(clk), .rst(rst), .cnt({i}__cnt), .data({i}__data),\n    .deq_n({deq_n}), .enq_n({enq_n}),\n    .enq_data({{{}}}));",
            d * w - 1,
            slots.join(", ")
        );
    }

    fn reg(
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
            "\n  // register {name}\n  logic [{}:0] {i}__q;\n  {module} #(.INIT({})) u_{i} (.clk(clk), .rst(rst), .wen({wen}), .wdata({wdata}), .q({i}__q));",
            w - 1,
            hex(super::mask(init, w), w)
        );
    }

    fn rocc(&self, out: &mut String, name: &str) {
        let cmds = self.sites(name, "cmd");
        let resps = self.sites(name, "resp");
        let _ = writeln!(
            out,
            "\n  // RoCC adapter {name}\n  assign rocc_cmd_ready = {};\n  assign rocc_resp_valid = {};\n  assign rocc_resp_rd = {};\n  assign rocc_resp_data = {};",
            any(&cmds.iter().map(|s| s.en.clone()).collect::<Vec<_>>()),
            any(&resps.iter().map(|s| s.en.clone()).collect::<Vec<_>>()),
            and_or(&resps, 5, |_| "1'b1".into(), 0),
            and_or(&resps, 32, |_| "1'b1".into(), 1),
        );
    }

    fn dma(&mut self, out: &mut String, name: &str, i: &str, entries: &[super::DmaEntry]) {
        let starts = self.sites(name, "start");
        let _ = writeln!(
            out,
            "\n  // DMA channel {name}\n  assign {i}_req_valid = {};\n  assign {i}_req_to_isax = {};\n  assign {i}_req_cpu_addr = {};\n  assign {i}_req_isax_addr = {};\n  assign {i}_req_log2_bytes = {};",
            any(&starts.iter().map(|s| s.en.clone()).collect::<Vec<_>>()),
            and_or(&starts, 1, |_| "1'b1".into(), 0),
            and_or(&starts, 32, |_| "1'b1".into(), 1),
            and_or(&starts, 32, |_| "1'b1".into(), 2),
            and_or(&starts, 8, |_| "1'b1".into(), 3),
        );
        // Burst lanes: decode each beat lane to (bank, offset) with the memory map.
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
                let p = format!("{i}__e{ei}_l{j}");
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
                    "  logic [31:0] {p}_a, {p}_el, {p}_bank, {p}_off;\n  logic {p}_hit;\n  logic [{}:0] {p}_wd;\n  assign {p}_wd = {i}_burst_wdata[{}:{}];\n  assign {p}_a = {i}_burst_addr + 32'd{};\n  assign {p}_hit = {i}_burst_mask[{}]{low} & ({p}_a < 32'd{});\n  assign {p}_el = ({p}_a - 32'd{}) >> {shift};\n  assign {p}_bank = {bank_expr};\n  assign {p}_off = {off_expr};",
                    eb * 8 - 1,
                    (j + 1) * eb * 8 - 1,
                    j * eb * 8,
                    j * eb,
                    j * eb,
                    e.base as u64 + e.size as u64,
                    e.base
                );
                let mut lane_terms = Vec::new();
                for (bi, bank) in e.banks.iter().enumerate() {
                    let Some(InstanceKind::Bank { width, depth, .. }) =
                        self.c.instance(bank).map(|x| &x.kind)
                    else {
                        continue;
                    };
                    let sel = format!("({i}_burst_wen & {p}_hit & ({p}_bank == 32'd{bi}))");
                    let data = fit(&format!("{p}_wd"), eb * 8, *width);
                    let addr = bank_addr(&(format!("{p}_off"), 32), *depth);
                    self.uses
                        .bank_writes
                        .entry(bank.clone())
                        .or_default()
                        .push((sel, addr.clone(), data));
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
                        lane_terms.join(" | ")
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
        let _ = writeln!(
            out,
            "  assign {i}_burst_rdata = {};",
            join_or(&rdata_terms, "\n      | ", "64'd0")
        );
    }

    fn memport(
        &self,
        out: &mut String,
        prims: &mut BTreeMap<String, String>,
        name: &str,
        i: &str,
        lanes: u32,
    ) {
        let q = MEM_QUEUE_PER_LANE * lanes;
        let module = format!("kiln_fifo_w32_d{q}");
        prims
            .entry(module.clone())
            .or_insert_with(|| fifo_module(&module, 32, q));
        let reqs = self.sites(name, "req");
        let resps = self.sites(name, "mresp");
        let mut valid = Vec::new();
        let mut cmd = Vec::new();
        let mut addr = Vec::new();
        let mut data = Vec::new();
        for l in (0..lanes).rev() {
            let on = |s: &Site| format!("({} == 8'd{l})", s.slot);
            let sel: Vec<String> = reqs
                .iter()
                .map(|s| format!("({} & {})", s.en, on(s)))
                .collect();
            valid.push(any(&sel));
            cmd.push(and_or(&reqs, 1, on, 0));
            addr.push(and_or(&reqs, 32, on, 1));
            data.push(and_or(&reqs, 32, on, 2));
        }
        let taken = count(&resps.iter().map(|s| s.en.clone()).collect::<Vec<_>>());
        let in_n = count(
            &(0..lanes)
                .map(|l| format!("{i}_resp_valid[{l}]"))
                .collect::<Vec<_>>(),
        );
        let _ = writeln!(
            out,
            "\n  // CPU memory port {name}: {lanes} request lane(s), response queue of {q}\n  assign {i}_req_valid = {{{}}};\n  assign {i}_req_cmd = {{{}}};\n  assign {i}_req_addr = {{{}}};\n  assign {i}_req_data = {{{}}};\n  assign {i}_req_tag = {{{}}};",
            valid.join(", "),
            cmd.join(", "),
            addr.join(", "),
            data.join(", "),
            (0..lanes)
                .rev()
                .map(|l| format!("{{2'd0, {i}_req_addr[{}:{}]}}", l * 32 + 5, l * 32))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let _ = writeln!(
            out,
            "  logic [7:0] {i}__q_cnt, {i}__in_n, {i}__taken, {i}__deq_n, {i}__used_in;\n  logic [{}:0] {i}__shifted;\n  assign {i}__shifted = {i}_resp_data >> ({i}__used_in*32);\n  logic [{}:0] {i}__q_data;\n  assign {i}__in_n = {in_n};\n  assign {i}__taken = {taken};\n  assign {i}__deq_n = ({i}__taken < {i}__q_cnt) ? {i}__taken : {i}__q_cnt;\n  assign {i}__used_in = {i}__taken - {i}__deq_n;\n  {module} u_{i}_respq (.clk(clk), .rst(rst), .cnt({i}__q_cnt), .data({i}__q_data),\n    .deq_n({i}__deq_n), .enq_n({i}__in_n - {i}__used_in),\n    .enq_data({}));\n  logic {i}__pending;\n  assign {i}__pending = ({i}__q_cnt + {i}__in_n - {i}__taken) != 8'd0;",
            lanes * 32 - 1,
            q * 32 - 1,
            fit(&format!("{i}__shifted"), lanes * 32, q * 32)
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn bank(
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
            let v = super::mask(init.get(k).copied().unwrap_or(0), w);
            init_v.push_str(&format!("{}'h{v:x}", w));
            if k > 0 {
                init_v.push_str(", ");
            }
        }
        let rev = |v: Vec<String>| v.into_iter().rev().collect::<Vec<_>>().join(", ");
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

/// `addr` (already 128 bits wide or any expression) reduced to a bank index:
/// `addr mod next_pow2(depth)` in [`bank_aw`] bits.
fn bank_addr(addr: &(String, u32), depth: u32) -> String {
    let aw = bank_aw(depth);
    if (depth.max(1) as u64).next_power_of_two() == 1 {
        return format!("{aw}'d0");
    }
    fit(&addr.0, addr.1, aw)
}

/// A comparison result (1 bit) zero-extended to `w` bits.
fn bool_w(cond: &str, w: u32) -> String {
    if w <= 1 {
        cond.to_string()
    } else {
        format!("{{{}'d0, {cond}}}", w - 1)
    }
}

/// AND-OR multiplexer over sites: `|(en_s & sel_s ? data_s[field] : 0)`.
fn and_or(sites: &[Site], w: u32, sel: impl Fn(&Site) -> String, field: usize) -> String {
    let terms: Vec<String> = sites
        .iter()
        .filter_map(|s| {
            let d = s.data.get(field)?;
            Some(format!("({{{w}{{{} & {}}}}} & {d})", s.en, sel(s)))
        })
        .collect();
    if terms.is_empty() {
        return format!("{w}'d0");
    }
    format!("({})", terms.join(" | "))
}

fn rocc_ports() -> Vec<String> {
    [
        "  // RoCC command (Decoupled): taken when valid & ready; ready depends on valid/opcode",
        "  input  logic        rocc_cmd_valid,",
        "  output logic        rocc_cmd_ready,",
        "  input  logic [6:0]  rocc_cmd_funct,",
        "  input  logic [4:0]  rocc_cmd_rs1,",
        "  input  logic [4:0]  rocc_cmd_rs2,",
        "  input  logic [4:0]  rocc_cmd_rd,",
        "  input  logic [6:0]  rocc_cmd_opcode,",
        "  input  logic [31:0] rocc_cmd_rs1data,",
        "  input  logic [31:0] rocc_cmd_rs2data,",
        "  // RoCC response (Decoupled): rd and the 32-bit result",
        "  output logic        rocc_resp_valid,",
        "  input  logic        rocc_resp_ready,",
        "  output logic [4:0]  rocc_resp_rd,",
        "  output logic [31:0] rocc_resp_data",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect::<Vec<_>>()
    .join("\n")
    .split(",\n")
    .map(|s| s.to_string())
    .collect()
}

fn dma_ports(i: &str) -> Vec<String> {
    vec![
        format!(
            "  // DMA channel `{i}` request: copy 2^log2_bytes bytes between CPU memory and the scratchpad\n  output logic        {i}_req_valid"
        ),
        format!("  input  logic        {i}_req_ready"),
        format!(
            "  // 1: CPU memory -> scratchpad, 0: scratchpad -> CPU memory\n  output logic        {i}_req_to_isax"
        ),
        format!("  output logic [31:0] {i}_req_cpu_addr"),
        format!("  output logic [31:0] {i}_req_isax_addr"),
        format!("  output logic [7:0]  {i}_req_log2_bytes"),
        format!(
            "  // DMA channel `{i}` idle: low while a transfer runs\n  input  logic        {i}_idle"
        ),
        format!(
            "  // DMA channel `{i}` scratchpad burst port: one beat of up to 8 bytes at byte address addr\n  input  logic        {i}_burst_wen"
        ),
        format!("  input  logic [31:0] {i}_burst_addr"),
        format!("  input  logic [7:0]  {i}_burst_mask"),
        format!("  input  logic [63:0] {i}_burst_wdata"),
        format!("  output logic [63:0] {i}_burst_rdata"),
    ]
}

fn mem_ports(i: &str, lanes: u32) -> Vec<String> {
    let l = lanes;
    vec![
        format!(
            "  // CPU memory `{i}` requests (HellaCache style), {l} lane(s); cmd 0 load, 1 store\n  output logic [{}:0]  {i}_req_valid",
            l - 1
        ),
        format!("  input  logic        {i}_req_ready"),
        format!("  output logic [{}:0]  {i}_req_cmd", l - 1),
        format!("  output logic [{}:0] {i}_req_addr", 32 * l - 1),
        format!("  output logic [{}:0] {i}_req_data", 32 * l - 1),
        format!("  output logic [{}:0] {i}_req_tag", 8 * l - 1),
        format!(
            "  // CPU memory `{i}` load responses, in request order from lane 0\n  input  logic [{}:0]  {i}_resp_valid",
            l - 1
        ),
        format!("  input  logic [{}:0] {i}_resp_data", 32 * l - 1),
    ]
}

fn fifo_module(name: &str, w: u32, d: u32) -> String {
    format!(
        "
// FIFO, {d} entries of {w} bits. Several dequeues and enqueues per cycle (counts deq_n,
// enq_n); entry 0 is the head; enqueued data becomes visible after the clock edge.
module {name} (
  input  logic clk,
  input  logic rst,
  output logic [7:0] cnt,
  output logic [{dw}:0] data,
  input  logic [7:0] deq_n,
  input  logic [7:0] enq_n,
  input  logic [{dw}:0] enq_data
);
  logic [7:0] keep;
  logic [{dw}:0] nxt;
  integer k;
  always_comb begin
    keep = cnt - deq_n;
    nxt = '0;
    for (k = 0; k < {d}; k = k + 1) begin
      if (k < 32'(keep)) nxt[k*{w} +: {w}] = data[(k + 32'(deq_n))*{w} +: {w}];
      else if (k - 32'(keep) < 32'(enq_n)) nxt[k*{w} +: {w}] = enq_data[(k - 32'(keep))*{w} +: {w}];
    end
  end
  always_ff @(posedge clk) begin
    if (rst) begin
      cnt <= 8'd0;
      data <= '0;
    end else begin
      cnt <= keep + enq_n;
      data <= nxt;
    end
  end
endmodule
",
        dw = d * w - 1
    )
}

fn reg_module(name: &str, w: u32) -> String {
    format!(
        "
// Register of {w} bits: reads see the value at the start of the cycle.
module {name} #(parameter logic [{m}:0] INIT = '0) (
  input  logic clk,
  input  logic rst,
  input  logic wen,
  input  logic [{m}:0] wdata,
  output logic [{m}:0] q
);
  always_ff @(posedge clk) begin
    if (rst) q <= INIT;
    else if (wen) q <= wdata;
  end
endmodule
",
        m = w - 1
    )
}

fn bank_module(name: &str, w: u32, d: u32, aw: u32, p: u32, r: u32) -> String {
    format!(
        "
// Scratchpad bank: {d} words of {w} bits, {p} write port(s) applied in port order (later
// wins), {r} combinational read port(s); indices at or beyond the depth read 0 and are
// not written. Reset loads INIT.
module {name} #(parameter logic [{iw}:0] INIT = '0) (
  input  logic clk,
  input  logic rst,
  input  logic [{pm}:0] we,
  input  logic [{pa}:0] waddr,
  input  logic [{pw}:0] wdata,
  input  logic [{ra}:0] raddr,
  output logic [{rw}:0] rdata
);
  logic [{wm}:0] mem [0:{dm}];
  integer i, j;
  always_ff @(posedge clk) begin
    if (rst) begin
      for (i = 0; i < {d}; i = i + 1) mem[i] <= INIT[i*{w} +: {w}];
    end else begin
      for (j = 0; j < {p}; j = j + 1)
        if (we[j] && {{1'b0, waddr[j*{aw} +: {aw}]}} < {aw1}'d{d}) mem[waddr[j*{aw} +: {aw}]] <= wdata[j*{w} +: {w}];
    end
  end
  genvar g;
  generate
    for (g = 0; g < {r}; g = g + 1) begin : rd
      assign rdata[g*{w} +: {w}] = ({{1'b0, raddr[g*{aw} +: {aw}]}} < {aw1}'d{d}) ? mem[raddr[g*{aw} +: {aw}]] : '0;
    end
  endgenerate
endmodule
",
        iw = d * w - 1,
        aw1 = aw + 1,
        pm = p - 1,
        pa = p * aw - 1,
        pw = p * w - 1,
        ra = r * aw - 1,
        rw = r * w - 1,
        wm = w - 1,
        dm = d - 1,
    )
}

/// Parameters of the generated testbench.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TbConfig {
    /// DMA cycles per started 64-byte burst (the simulator's `dma_latency` when the
    /// instance declares 0).
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
    /// Print every cycle's values of the [`super::waves`] signals (`w` lines).
    pub waves: bool,
}

impl Default for TbConfig {
    fn default() -> TbConfig {
        TbConfig {
            dma_latency: 16,
            max_cycles: 5_000_000,
            mem_bytes: 1 << 16,
            module: "kiln_tb".into(),
            file_prefix: String::new(),
            standalone: true,
            waves: false,
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
/// port (commands in order, one per cycle), answers CPU-memory loads one cycle after the
/// request, runs the DMA engine with the simulator's model (busy for
/// `max(bursts × latency, beats + 1)` cycles from the request cycle, one 64-bit beat per
/// cycle in the last cycles of that window; see [`super::sim`]), stops when nothing fired
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
    let has_rocc = c
        .instances
        .iter()
        .any(|i| matches!(i.kind, InstanceKind::Rocc));
    if has_rocc {
        decl.push_str(
            "  logic rocc_cmd_valid, rocc_resp_ready;\n  logic [6:0] rocc_cmd_funct, rocc_cmd_opcode;\n  logic [4:0] rocc_cmd_rs1, rocc_cmd_rs2, rocc_cmd_rd;\n  logic [31:0] rocc_cmd_rs1data, rocc_cmd_rs2data;\n  wire rocc_cmd_ready, rocc_resp_valid;\n  wire [4:0] rocc_resp_rd;\n  wire [31:0] rocc_resp_data;\n",
        );
        for p in [
            "rocc_cmd_valid",
            "rocc_cmd_ready",
            "rocc_cmd_funct",
            "rocc_cmd_rs1",
            "rocc_cmd_rs2",
            "rocc_cmd_rd",
            "rocc_cmd_opcode",
            "rocc_cmd_rs1data",
            "rocc_cmd_rs2data",
            "rocc_resp_valid",
            "rocc_resp_ready",
            "rocc_resp_rd",
            "rocc_resp_data",
        ] {
            conns.push(format!(".{p}({p})"));
        }
        drive.push_str(
            "    rocc_cmd_valid = cmd_i < ncmd;\n    rocc_cmd_rs1 = 5'd0; rocc_cmd_rs2 = 5'd0;\n    rocc_cmd_opcode = cmd_op[cmd_i][6:0];\n    rocc_cmd_funct = cmd_f7[cmd_i][6:0];\n    rocc_cmd_rd = cmd_rd[cmd_i][4:0];\n    rocc_cmd_rs1data = cmd_rs1[cmd_i];\n    rocc_cmd_rs2data = cmd_rs2[cmd_i];\n    rocc_resp_ready = 1'b1;\n",
        );
        sample.push_str(
            "    if (rocc_cmd_valid && rocc_cmd_ready) begin\n      $fdisplay(out, \"cmd %0d\", cyc);\n      cmd_i = cmd_i + 1;\n    end\n    if (rocc_resp_valid && rocc_resp_ready) $fdisplay(out, \"resp %0d %0d %0d\", rocc_resp_rd, rocc_resp_data, cyc);\n",
        );
    }
    for (m, lanes) in &info.memports {
        let l = *lanes;
        let _ = writeln!(
            decl,
            "  logic {m}_req_ready;\n  logic [{lm}:0] {m}_resp_valid;\n  logic [{dm}:0] {m}_resp_data, {m}_next_data;\n  integer {m}_nl;\n  wire [{lm}:0] {m}_req_valid, {m}_req_cmd;\n  wire [{dm}:0] {m}_req_addr, {m}_req_data;\n  wire [{tm}:0] {m}_req_tag;",
            lm = l - 1,
            dm = 32 * l - 1,
            tm = 8 * l - 1
        );
        for p in [
            "req_valid",
            "req_ready",
            "req_cmd",
            "req_addr",
            "req_data",
            "req_tag",
            "resp_valid",
            "resp_data",
        ] {
            conns.push(format!(".{m}_{p}({m}_{p})"));
        }
        // Each port's lane loops have their own variable (`<m>_k`); the byte tasks use
        // automatic locals, so no loop shares a variable with what it calls.
        let _ = writeln!(decl, "  integer {m}_k;");
        let _ = writeln!(
            drive,
            "    {m}_req_ready = 1'b1;\n    {m}_resp_data = {m}_next_data;\n    for ({m}_k = 0; {m}_k < {l}; {m}_k = {m}_k + 1) {m}_resp_valid[{m}_k] = {m}_k < {m}_nl;"
        );
        let _ = writeln!(
            sample,
            "    {m}_nl = 0;\n    {m}_next_data = '0;\n    for ({m}_k = 0; {m}_k < {l}; {m}_k = {m}_k + 1)\n      if ({m}_req_valid[{m}_k] && !{m}_req_cmd[{m}_k]) begin\n        {m}_next_data[{m}_nl*32 +: 32] = rdword({m}_req_addr[{m}_k*32 +: 32]);\n        {m}_nl = {m}_nl + 1;\n      end\n    for ({m}_k = 0; {m}_k < {l}; {m}_k = {m}_k + 1)\n      if ({m}_req_valid[{m}_k] && {m}_req_cmd[{m}_k]) wrword({m}_req_addr[{m}_k*32 +: 32], {m}_req_data[{m}_k*32 +: 32]);\n    if ({m}_nl > 0 || dut.{m}__pending) busy = 1;"
        );
    }
    for d in &info.dmas {
        let entries = c
            .instances
            .iter()
            .find(|i| ident(&i.name) == *d)
            .and_then(|i| match &i.kind {
                InstanceKind::Dma { latency, entries } => Some((*latency, entries.clone())),
                _ => None,
            });
        let Some((lat, entries)) = entries else {
            continue;
        };
        let lat = if lat == 0 { cfg.dma_latency } else { lat };
        let _ = writeln!(
            decl,
            "  logic {d}_req_ready, {d}_idle, {d}_burst_wen;\n  logic [31:0] {d}_burst_addr;\n  logic [7:0] {d}_burst_mask;\n  logic [63:0] {d}_burst_wdata;\n  wire {d}_req_valid, {d}_req_to_isax;\n  wire [31:0] {d}_req_cpu_addr, {d}_req_isax_addr;\n  wire [7:0] {d}_req_log2_bytes;\n  wire [63:0] {d}_burst_rdata;\n  integer {d}_until, {d}_beat0, {d}_nbytes;\n  logic {d}_active, {d}_dir;\n  logic [31:0] {d}_cpu, {d}_isax;"
        );
        for p in [
            "req_valid",
            "req_ready",
            "req_to_isax",
            "req_cpu_addr",
            "req_isax_addr",
            "req_log2_bytes",
            "idle",
            "burst_wen",
            "burst_addr",
            "burst_mask",
            "burst_wdata",
            "burst_rdata",
        ] {
            conns.push(format!(".{d}_{p}({d}_{p})"));
        }
        let _ = writeln!(
            drive,
            "    {d}_idle = !{d}_active;\n    {d}_req_ready = !{d}_active;\n    {d}_burst_wen = 1'b0; {d}_burst_mask = 8'd0; {d}_burst_addr = 32'd0; {d}_burst_wdata = 64'd0;\n    if ({d}_active && cyc >= {d}_beat0 && cyc < {d}_until) begin\n      b = cyc - {d}_beat0;\n      {d}_burst_addr = {d}_isax + 8*b;\n      {d}_burst_wen = {d}_dir;\n      for (k = 0; k < 8; k = k + 1) if (8*b + k < {d}_nbytes) begin\n        {d}_burst_mask[k] = 1'b1;\n        {d}_burst_wdata[k*8 +: 8] = rdbyte({d}_cpu + 8*b + k);\n      end\n    end"
        );
        // Bytes moved: whole elements of the entry holding isax_addr (the simulator's
        // `Dma::transfer`); `lim` counts elements, `ebv` is the element size. The engine
        // is busy until max(bursts * latency, beats + 1) cycles after the request; the
        // beats use the last cycles of that window.
        let mut clip = String::new();
        for e in entries.iter().filter(|e| !e.banks.is_empty()) {
            let eb = e.elem_bytes.max(1);
            let end = e.base as u64 + e.size as u64;
            let _ = writeln!(
                clip,
                "      if ({d}_isax >= {} && {d}_isax < {end}) begin lim = ({end} - {d}_isax + {eb} - 1) / {eb}; ebv = {eb}; end",
                e.base,
            );
        }
        let _ = write!(
            sample,
            "    if ({d}_active && cyc >= {d}_beat0 && cyc < {d}_until && !{d}_dir)
      for (k = 0; k < 8; k = k + 1) if ({d}_burst_mask[k]) wrbyte({d}_cpu + ({d}_burst_addr - {d}_isax) + k, {d}_burst_rdata[k*8 +: 8]);
    if ({d}_req_valid && {d}_req_ready) begin
      bytes = ({d}_req_log2_bytes < 32) ? (64'd1 << {d}_req_log2_bytes) : 0;
      bursts = (bytes + 63) / 64; if (bursts == 0) bursts = 1;
      {d}_active = 1'b1; {d}_dir = {d}_req_to_isax;
      {d}_cpu = {d}_req_cpu_addr; {d}_isax = {d}_req_isax_addr;
      lim = 0; ebv = 1;
{clip}      {d}_nbytes = ((bytes / ebv < lim) ? bytes / ebv : lim) * ebv;
      {d}_until = cyc + bursts * {lat};
      if ({d}_until < cyc + ({d}_nbytes + 7) / 8 + 1) {d}_until = cyc + ({d}_nbytes + 7) / 8 + 1;
      {d}_beat0 = {d}_until - ({d}_nbytes + 7) / 8;
    end
    if ({d}_active) begin
      busy = 1;
      if (cyc + 1 >= {d}_until) {d}_active = 1'b0;
    end
"
        );
    }
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
    for f in &info.faults {
        let _ = writeln!(decl, "  wire {f}_fault;");
        conns.push(format!(".{f}_fault({f}_fault)"));
    }
    for (f, i) in &info.fifos {
        let _ = writeln!(
            dump,
            "    if (dut.{i}__cnt != 0) $fdisplay(out, \"fifo {f} %0d\", dut.{i}__cnt);"
        );
    }
    let dma_init: String = info
        .dmas
        .iter()
        .map(|d| format!("    {d}_active = 1'b0; {d}_until = 0; {d}_beat0 = 0; {d}_nbytes = 0;\n"))
        .collect();
    let mem_init: String = info
        .memports
        .iter()
        .map(|(m, _)| format!("    {m}_nl = 0; {m}_next_data = '0;\n"))
        .collect();
    format!(
        "`timescale 1ns/1ps
// Testbench for `{top}`: CPU memory, DMA engine and RoCC driver (behavioural).
module {module};
  localparam integer MEMSZ = {memsz};
  logic clk, rst;
  logic [7:0] mem [0:MEMSZ-1];
  logic memw [0:MEMSZ-1];
  logic [31:0] cmd_op [0:255], cmd_f7 [0:255], cmd_rs1 [0:255], cmd_rs2 [0:255], cmd_rd [0:255];
  integer fd, out, ncmd, cmd_i, cyc, last_fire, k, b, errors, lim, ebv, busy, fired, done, hazard;
  logic finished = 1'b0;
  logic [63:0] bytes, bursts;
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

  task drive;
{drive}  endtask

  task sample;
{waves}    fired = dut.kiln_any_fire;
    busy = 0;
    if (fired) last_fire = cyc;
{watch}{sample}  endtask

  always #5 if (!finished) clk = ~clk;
  initial begin
    clk = 0; rst = 1; errors = 0; cmd_i = 0; ncmd = 0; cyc = 0; last_fire = -1; done = 0; hazard = 0;
{dma_init}{mem_init}    for (k = 0; k < MEMSZ; k = k + 1) begin
      mem[k] = 8'd0;
      memw[k] = 1'b0;
    end
    $readmemh(\"{prefix}mem.hex\", mem);
    fd = $fopen(\"{prefix}cmds.txt\", \"r\");
    while ($fscanf(fd, \"%d %d %d %d %d\\n\", a0, a1, a2, a3, a4) == 5) begin
      cmd_op[ncmd] = a0; cmd_f7[ncmd] = a1; cmd_rs1[ncmd] = a2; cmd_rs2[ncmd] = a3; cmd_rd[ncmd] = a4;
      ncmd = ncmd + 1;
    end
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
    $fdisplay(out, \"cmds_left %0d\", ncmd - cmd_i);
    $fdisplay(out, \"cycles %0d\", last_fire + 1);
    $fdisplay(out, \"errors %0d\", errors);
    for (k = 0; k < MEMSZ; k = k + 1) if (mem[k] != 0 || memw[k]) $fdisplay(out, \"mem %0d %0d\", k, mem[k]);
{dump}    $fclose(out);
    finished = 1'b1;
{finish}  end
endmodule
",
        top = info.top,
        module = cfg.module,
        prefix = cfg.file_prefix,
        finish = if cfg.standalone { "    $finish;\n" } else { "" },
        memsz = cfg.mem_bytes,
        maxc = cfg.max_cycles,
        waves = match cfg.waves {
            true => super::waves::tb_sample_line(&super::waves::circuit_signals(c), |m| {
                format!("8'($countones({m}_req_valid))")
            }),
            false => String::new(),
        },
        conns = conns.join(",\n    "),
    )
}

/// The testbench's `mem.hex` for an initial CPU memory.
pub fn mem_hex(mem: &BTreeMap<u32, u8>) -> String {
    mem.iter()
        .map(|(a, v)| format!("@{a:x} {v:02x}\n"))
        .collect()
}

/// The testbench's `cmds.txt` (`opcode funct7 rs1 rs2 rd` per line).
pub fn cmds_text(cmds: &[super::sim::Command]) -> String {
    cmds.iter()
        .map(|c| format!("{} {} {} {} {}\n", c.opcode, c.funct7, c.rs1, c.rs2, c.rd))
        .collect()
}

/// What a testbench run wrote to `out.txt`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TbOutput {
    /// `(rd, value, cycle)` in response order.
    pub responses: Vec<(u32, u32, u64)>,
    /// The cycle each command was accepted.
    pub accepted: Vec<u64>,
    pub cycles: u64,
    /// CPU memory bytes that are non-zero or were written.
    pub cpu_mem: BTreeMap<u32, u8>,
    /// Bank contents by SystemVerilog instance name ([`ident`] of the IR name).
    pub banks: BTreeMap<String, Vec<u128>>,
    pub regs: BTreeMap<String, u128>,
    /// `ok`, `timeout` or `stopped` (a hazard or a fault).
    pub status: String,
    /// CPU-memory accesses outside the modelled window.
    pub errors: u64,
    /// The cycle the run ended in (nothing fired, nothing in flight).
    pub end: u64,
    /// Commands never taken.
    pub cmds_left: u64,
    /// FIFOs (IR names) still holding entries at the end.
    pub pending: Vec<String>,
    /// The first same-firing CPU-memory hazard: (rule, cycle, word address, is a load).
    pub(crate) hazard: Option<(String, u64, u32, bool)>,
    /// The first raised fault: (fault instance, rule, cycle).
    pub(crate) fault: Option<(String, String, u64)>,
}

impl TbOutput {
    /// What the run means, as the rule simulator reports it: a hazard, a deadlock (work
    /// left in FIFOs or commands not taken, named with the simulator's [`super::sim::deadlock`])
    /// or a timeout; `None` for a clean end.
    pub fn failure(&self, c: &Circuit) -> Option<super::sim::SimError> {
        use super::sim::SimError;
        if let Some((inst, rule, cycle)) = &self.fault {
            let message = match c.instance(inst).map(|i| &i.kind) {
                Some(InstanceKind::Fault { message }) => message.clone(),
                _ => format!("fault `{inst}`"),
            };
            return Some(SimError::Fault {
                cycle: *cycle,
                rule: rule.clone(),
                message,
            });
        }
        if let Some((rule, cycle, addr, load)) = &self.hazard {
            return Some(SimError::Hazard {
                cycle: *cycle,
                rule: rule.clone(),
                addr: *addr,
                load: *load,
            });
        }
        if self.status == "timeout" {
            return Some(SimError::Timeout {
                cycles: self.end + 1,
            });
        }
        let order = super::sim::rule_order(c).ok()?;
        let pending: Vec<&str> = self.pending.iter().map(String::as_str).collect();
        super::sim::deadlock(&order, &pending, self.cmds_left as usize, self.end)
    }
}

/// Parse `out.txt`; malformed lines are an error naming the line.
pub fn parse_tb_output(text: &str) -> Result<TbOutput, String> {
    let mut r = TbOutput::default();
    for line in text.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("malformed testbench output line `{line}`");
        let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).ok_or_else(bad);
        let h = |i: usize| {
            f.get(i)
                .and_then(|x| u128::from_str_radix(x, 16).ok())
                .ok_or_else(bad)
        };
        let s = |i: usize| f.get(i).map(|x| x.to_string()).ok_or_else(bad);
        match f.first().copied() {
            Some("resp") => r.responses.push((n(1)? as u32, n(2)? as u32, n(3)?)),
            Some("cmd") => r.accepted.push(n(1)?),
            Some("cycles") => {
                let c: i64 = s(1)?.parse().map_err(|_| bad())?;
                r.cycles = c.max(0) as u64;
            }
            Some("status") => r.status = s(1)?,
            Some("errors") => r.errors = n(1)?,
            Some("end") => r.end = n(1)?,
            Some("cmds_left") => r.cmds_left = n(1)?,
            Some("fifo") => r.pending.push(s(1)?),
            Some("hazard") => {
                r.hazard = Some((s(1)?, n(2)?, n(3)? as u32, n(4)? != 0));
            }
            Some("fault") => r.fault = Some((s(1)?, s(2)?, n(3)?)),
            Some("mem") => {
                r.cpu_mem.insert(n(1)? as u32, n(2)? as u8);
            }
            Some("bank") => r.banks.entry(s(1)?).or_default().push(h(3)?),
            Some("reg") => {
                r.regs.insert(s(1)?, h(2)?);
            }
            _ => {}
        }
    }
    Ok(r)
}

/// The cell count of a `yosys ... synth ...; stat` log: the design total (the last
/// `Number of cells:` after the `=== design hierarchy ===` summary, or in the whole log when
/// there is one module). None when the log has no count.
pub fn yosys_cells(log: &str) -> Option<u64> {
    let stat = log.rsplit("=== design hierarchy ===").next().unwrap_or(log);
    stat.lines()
        .rev()
        .filter_map(|l| l.trim().strip_prefix("Number of cells:"))
        .find_map(|v| v.trim().parse().ok())
}
