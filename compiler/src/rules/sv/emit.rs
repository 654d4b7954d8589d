//! The top module's emitter: each rule's guard, body and call sites, the shared-port
//! arbitration through running enable sums, and the module around them; the instances and
//! the port lists are [`instances`].

use super::*;

mod instances;
use instances::{csr_lane_ports, dma_ports, mem_ports, rocc_ports};

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

/// `terms` joined by `sep`, a line break after every [`TERMS_PER_LINE`]: an expression over
/// every caller of a shared method (a design's thousands of rules) stays on lines a tool
/// reads (Verilator stops at 40,000 tokens on a line).
pub(super) fn lines(terms: &[String], sep: &str) -> String {
    let mut out = String::with_capacity(terms.iter().map(|t| t.len() + sep.len() + 8).sum());
    for (i, t) in terms.iter().enumerate() {
        if i > 0 {
            out.push_str(sep.trim_end());
            match i % TERMS_PER_LINE {
                0 => out.push_str("\n      "),
                _ => out.push(' '),
            }
        }
        out.push_str(t);
    }
    out
}

/// See [`lines`].
const TERMS_PER_LINE: usize = 8;

/// `(8-bit count) = Σ terms`.
fn count(terms: &[String]) -> String {
    if terms.is_empty() {
        return "8'd0".into();
    }
    let parts: Vec<String> = terms.iter().map(|t| format!("{{7'd0, {t}}}")).collect();
    format!("({})", lines(&parts, " + "))
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
            _ => format!("({})", lines(&parts, " + ")),
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

/// `(base + k) mod size` as 8 bits, for an 8-bit `base < size` and `k <= size` (`size`
/// at most 256): a tag of a CPU-memory response buffer.
fn wrap(base: &str, k: &str, size: u32) -> String {
    let sum = format!("(9'({base}) + 9'({k}))");
    format!("(({sum} >= 9'd{size}) ? 8'({sum} - 9'd{size}) : 8'{sum})")
}

/// `terms` joined by `sep`, or `empty` when there are none.
pub(super) fn join_or(terms: &[String], sep: &str, empty: &str) -> String {
    if terms.is_empty() {
        return empty.into();
    }
    terms.join(sep)
}

fn any(terms: &[String]) -> String {
    if terms.is_empty() {
        return "1'b0".into();
    }
    format!("({})", lines(terms, " | "))
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

pub(super) struct Emitter<'a> {
    c: &'a Circuit,
    /// The instances by name: a call site looks its instance up (a search per site would
    /// grow with the product of sites and instances, both linear in a function's slots).
    instances: crate::rules::Instances<'a>,
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
    /// The rule's call sites per CPU-memory port, and the wire of its readiness to take
    /// responses once emitted.
    mem_sites: BTreeMap<String, schedule::MemSites>,
    resp_ready: BTreeMap<String, String>,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(c: &'a Circuit) -> Emitter<'a> {
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

    pub(super) fn rule(&mut self, r: &Rule) -> Result<(), Diagnostic> {
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
            mem_sites: schedule::mem_sites(&self.instances, r),
            resp_ready: BTreeMap::new(),
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
                "  logic {n}__hazard /*verilator public_flat_rd*/;\n  logic {n}__hazard_load /*verilator public_flat_rd*/;\n  logic [31:0] {n}__hazard_addr /*verilator public_flat_rd*/;\n  assign {n}__hazard = WILL_FIRE_{n} & {any_h};\n  assign {n}__hazard_addr = {addr};\n  assign {n}__hazard_load = {load};"
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
                    "  logic {signal} /*verilator public_flat_rd*/;\n  assign {signal} = {};",
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
            Expr::Const(v) => return hex(crate::rules::mask(*v, w), w),
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
            local,
            ..self.before_rules(inst, class)
        }
    }

    /// Enables of `(inst, class)` in earlier rules only (as the running wires): what a
    /// rule's readiness on a CPU-memory port counts ([`schedule::MemSites`]).
    fn before_rules(&self, inst: &str, class: &'static str) -> Before<'_> {
        Before {
            prefix: self.uses.prefix.get(&(inst.to_string(), class)),
            local: Vec::new(),
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
            lines(&sum, " + "),
            lines(&or, " | ")
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
            (InstanceKind::Csr { .. }, "latched") => {
                value = Some((format!("{i}__latch"), 32));
                "1'b1".into()
            }
            (InstanceKind::Csr { .. }, "set") => {
                let b = self.before(cx, inst, "set").any();
                site.data = vec![arg(0, 32)];
                class = Some("set");
                format!("({i}_set_ready & ~{b})")
            }
            (InstanceKind::Rocc, "resp_from_user") => {
                let b = self.before(cx, inst, "resp").any();
                site.data = vec![arg(0, 5), arg(1, 32)];
                class = Some("resp");
                format!("(rocc_resp_rocc_resp_to_bus_ready & ~{b})")
            }
            (InstanceKind::Rocc, "cmd" | "cmd_deq") => {
                let b = self.before(cx, inst, "cmd").any();
                if method == "cmd_deq" {
                    class = Some("cmd");
                }
                value = Some(("kiln_cmdq_data".into(), 96));
                format!("(kiln_cmdq_valid & ~{b})")
            }
            (InstanceKind::Dma { .. }, m) => match crate::rules::dma_method(m) {
                Some(DmaMethod::Poll { channel }) => {
                    value = Some((format!("dma_poll_for_idle_ch{channel}_res0"), 1));
                    format!("dma_poll_for_idle_ch{channel}_ready")
                }
                Some(DmaMethod::Request { to_isax, channel }) => {
                    let cl = DmaMethod::Request { to_isax, channel }.name();
                    let b = self.before(cx, inst, cl).any();
                    site.data = vec![arg(0, 32), arg(1, 32), arg(2, 4), arg(3, 8), arg(4, 8)];
                    class = Some(cl);
                    format!("(dma_{m}_ready & ~{b})")
                }
                None => return Err(unknown()),
            },
            (InstanceKind::MemPort, "load_req" | "store_req") => {
                let lanes = self.mem_lanes.get(inst).copied().unwrap_or(1);
                let depth = schedule::mem_req_depth(lanes);
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
                // The rule's readiness (`schedule::MemSites`): lanes for all its request
                // sites after earlier rules' requests, and room for them in the request
                // queue after the dequeue of an entry queued before this cycle.
                let n = cx.mem_sites.get(inst).copied().unwrap_or_default();
                let earlier = self.before_rules(inst, "req").count();
                let room = format!(
                    "((9'({earlier}) + 9'd{r}) <= 9'd{lanes}) & ((9'({i}__reqq_cnt) - 9'({i}__reqq_deq) + 9'({earlier}) + 9'd{r}) <= 9'd{depth})",
                    r = n.reqs
                );
                class = Some("req");
                if st {
                    site.data = vec![format!("{{1'b1, 8'd0, {}, {}}}", arg(0, 32), arg(1, 32))];
                    format!("({room})")
                } else {
                    // Room in the response buffer for the loads in flight at the start of
                    // the cycle, earlier rules' loads and all the rule's load sites; the
                    // tag is the load's entry.
                    also = Some("load");
                    let loads = self.before(cx, inst, "load").count();
                    let earlier_loads = self.before_rules(inst, "load").count();
                    let size = schedule::mem_resp_entries(lanes);
                    let tag = format!("{}__tag{k}", cx.name);
                    let addr = arg(0, 32);
                    let _ = writeln!(
                        self.body,
                        "  logic [7:0] {tag};\n  assign {tag} = {};",
                        wrap(&format!("{i}__alloc"), &loads, size)
                    );
                    site.data = vec![format!("{{1'b0, {tag}, {addr}, 32'd0}}")];
                    format!(
                        "({room} & ((9'({i}__used) + 9'({earlier_loads}) + 9'd{}) <= 9'd{size}))",
                        n.loads
                    )
                }
            }
            (InstanceKind::Fault { .. }, "raise") => {
                class = Some("raise");
                "1'b1".into()
            }
            (InstanceKind::MemPort, "load_resp") => {
                // The k-th response consumed this cycle is tag `head + k`: from the buffer,
                // or from the port in the cycle it arrives.
                let lanes = self.mem_lanes.get(inst).copied().unwrap_or(1);
                let size = schedule::mem_resp_entries(lanes);
                let kname = format!("{}__k{k}", cx.name);
                let tag = format!("{}__rtag{k}", cx.name);
                let before = self.before(cx, inst, "mresp").count();
                let _ = writeln!(
                    self.body,
                    "  logic [7:0] {kname}, {tag};\n  assign {kname} = {before};\n  assign {tag} = {};",
                    wrap(&format!("{i}__head"), &kname, size)
                );
                value = Some((
                    format!(
                        "(1'({i}__rb_valid >> {tag}) ? {i}__rb_data[{tag}*32 +: 32] : hella_resp_hella_resp_data)"
                    ),
                    32,
                ));
                class = Some("mresp");
                // The rule's readiness, one wire per rule and port: the responses its
                // sites may take, of those in flight after earlier rules', have arrived.
                if !cx.resp_ready.contains_key(inst) {
                    let n = cx.mem_sites.get(inst).copied().unwrap_or_default();
                    let earlier = self.before_rules(inst, "mresp").count();
                    let c = format!("{}__c{k}", cx.name);
                    let mut due = Vec::new();
                    for j in 0..n.resps {
                        let t = wrap(&format!("{i}__head"), &format!("({c} + 8'd{j})"), size);
                        due.push(format!(
                            "((9'({c}) + 9'd{j}) >= 9'({i}__used)) | 1'({i}__rb_valid >> {t}) | ({i}__resp_in & (hella_resp_hella_resp_tag == {t}))"
                        ));
                    }
                    let name = format!("{}__{}_resp_rdy", cx.name, i);
                    let _ = writeln!(
                        self.body,
                        "  logic [7:0] {c};\n  assign {c} = {earlier};\n  logic {name};\n  assign {name} = {};",
                        lines(
                            &due.iter().map(|d| format!("({d})")).collect::<Vec<_>>(),
                            " & "
                        )
                    );
                    cx.resp_ready.insert(inst.to_string(), name);
                }
                cx.resp_ready[inst].clone()
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

    pub(super) fn finish(mut self, sched: &Schedule, top: &str) -> SvParts {
        let c = self.c;
        let top = top.to_string();
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
        let mut decls = String::new();
        let mut dma: Option<(String, Vec<crate::rules::DmaEntry>)> = None;
        let mut prims: BTreeMap<String, String> = BTreeMap::new();
        let mut csr_ports: Vec<String> = Vec::new();
        for inst in &c.instances {
            let i = ident(&inst.name);
            match &inst.kind {
                InstanceKind::Fifo { width, depth } => {
                    info.fifos.push((inst.name.clone(), i.clone()));
                    self.fifo(&mut inst_text, &mut prims, &inst.name, &i, *width, *depth)
                }
                InstanceKind::Reg { width, init } => {
                    info.regs.push(inst.name.clone());
                    if c.instructions.iter().any(|x| x.pc_register() == inst.name) {
                        info.pcs.push((inst.name.clone(), i.clone()));
                    }
                    self.reg(&mut inst_text, &mut prims, &inst.name, &i, *width, *init)
                }
                InstanceKind::Bank { .. } => {}
                InstanceKind::Fault { message } => {
                    // Not a port (the convention has none): harnesses read it.
                    info.faults.push(i.clone());
                    let en: Vec<String> = self
                        .sites(&inst.name, "raise")
                        .iter()
                        .map(|s| s.en.clone())
                        .collect();
                    let _ = writeln!(
                        inst_text,
                        "\n  // fault {}: run-time error: {}\n  logic {i}_fault /*verilator public_flat_rd*/;\n  assign {i}_fault = {};",
                        inst.name,
                        message.replace(['\n', '\r'], " "),
                        any(&en)
                    );
                }
                InstanceKind::Rocc => {
                    ports.extend(rocc_ports());
                    // Declared ahead of the rules, which read them.
                    decls.push_str("  // The RoCC command register (see the RoCC adapter below).\n  logic kiln_cmdq_valid /*verilator public_flat_rd*/;\n  logic [95:0] kiln_cmdq_data;\n");
                    self.rocc(&mut inst_text, &inst.name);
                }
                InstanceKind::Csr { id, mask, init } => {
                    let lane = inst.name.strip_prefix("csr_").unwrap_or(&inst.name);
                    info.csrs.push((lane.to_string(), *id, *mask, *init));
                    csr_ports.extend(csr_lane_ports(&i, lane));
                    let _ = writeln!(
                        decls,
                        "  // CSR lane {lane}: its value as the command register's command fired.\n  logic [31:0] {i}__latch;"
                    );
                    let sets = self.sites(&inst.name, "set");
                    let _ = writeln!(
                        inst_text,
                        "\n  // CSR lane {lane}: latched with each command; written back by set_enable/sdata\n  always_ff @(posedge clk)\n    if (rocc_cmd_enable & rocc_cmd_ready) {i}__latch <= {i}_value_res0;\n  assign {i}_set_enable = {};\n  assign {i}_set_{lane}_sdata = {};",
                        any(&sets.iter().map(|s| s.en.clone()).collect::<Vec<_>>()),
                        and_or(&sets, 32, |_| "1'b1".into(), 0),
                    );
                }
                InstanceKind::Dma { entries } => {
                    info.dmas.push(i.clone());
                    dma = Some((inst.name.clone(), entries.clone()));
                }
                InstanceKind::MemPort => {
                    let lanes = self.mem_lanes.get(&inst.name).copied().unwrap_or(1);
                    info.memports.push((i.clone(), lanes));
                    ports.extend(mem_ports());
                    self.memport(&mut inst_text, &mut prims, &inst.name, &i, lanes);
                }
            }
        }
        // The DMA ports and the scratchpad burst ports are the convention's whatever the
        // design uses: unused requests are tied off.
        ports.extend(dma_ports());
        match &dma {
            Some((name, entries)) => self.dma(&mut inst_text, name, entries),
            None => self.dma(&mut inst_text, "", &[]),
        }
        // CSR lanes last, in lane order (the convention's order).
        ports.extend(csr_ports);
        // Banks last: their ports include the burst lanes.
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
        out.push_str("// interface and a scratchpad burst port; the HellaCache request and\n");
        out.push_str("// response (see the comments at each port).\n\n");
        let _ = writeln!(out, "module {top} (\n{}\n);", ports.join(",\n"));
        out.push_str(&decls);
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
            "\n  // Observability for testbenches: some rule fired / memory responses pending.\n  logic kiln_any_fire /*verilator public_flat_rd*/;\n  assign kiln_any_fire = {any_fire};\nendmodule\n",
        );
        SvParts {
            top: out,
            primitives: prims,
            info,
        }
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
    format!("({})", lines(&terms, " | "))
}
