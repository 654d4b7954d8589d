//! The CPU-memory port (APS's HellaCache path): a `HellaMem` module in place of the IR's
//! `MemPort` instance, holding the request queue and the tagged response buffer, with a port
//! per call site ([`crate::rules::mem_ports`], grouped by rule in firing order); the interface
//! declaration `hella_cmd` and the top method `hella_resp` carry the convention's
//! `hella_cmd_hella_cmd_to_bus_*` and `hella_resp_*` ports; two glue rules move the queue's
//! head (`hella_send`, first in the schedule) or, with an empty queue, the cycle's first
//! request (`hella_bypass`, last) to `hella_cmd`. Readiness per rule, decided before the
//! rule fires from the enables of earlier rules' ports only (`schedule::MemSites`), as the
//! rule simulator and the SystemVerilog `memport` decide it.

use super::*;

/// The module behind a `MemPort` instance.
pub(crate) const HELLA_MEM: &str = "HellaMem";
/// The declaration of the HellaCache request interface: its method `hella_cmd_to_bus`
/// lowers to `hella_cmd_hella_cmd_to_bus_{enable,ready,cmd_*}`.
pub(crate) const HELLA_CMD: &str = "hella_cmd";
/// The interface of [`HELLA_CMD`].
pub(crate) const HELLA_CMD_ITF: &str = "HellaCmd";
/// The top method taking the HellaCache's responses (`hella_resp_*`).
pub(crate) const HELLA_RESP: &str = "hella_resp";
/// The glue rule sending the request queue's head (first in the schedule: its fire, the
/// dequeue, frees room the rules' readiness counts).
pub(crate) const HELLA_SEND: &str = "hella_send";
/// The glue rule sending the cycle's first request past an empty queue (last in the
/// schedule: it sees every rule's requests).
pub(crate) const HELLA_BYPASS: &str = "hella_bypass";

/// A request-queue entry: `{store, tag[8], addr[32], data[32]}`.
const ENTRY: u32 = 73;
/// Counters inside `HellaMem` (room, lanes, tags and buffer positions stay far below).
const CW: u32 = 16;

/// The convention's request fields (name, width), in argument order.
const HELLA_CMD_FIELDS: [(&str, u32); 8] = [
    ("cmd_addr", 32),
    ("cmd_tag", 8),
    ("cmd_cmd", 5),
    ("cmd_size", 2),
    ("cmd_signed", 1),
    ("cmd_phys", 1),
    ("cmd_data", 32),
    ("cmd_mask", 4),
];

/// The convention's response fields (name, width), in argument order.
const HELLA_RESP_FIELDS: [(&str, u32); 5] = [
    ("data", 32),
    ("tag", 8),
    ("cmd", 5),
    ("size", 2),
    ("signed", 1),
];

/// `cmt2.interface @HellaCmd { ... }`.
pub(crate) fn hella_cmd_interface() -> String {
    let args: Vec<String> = HELLA_CMD_FIELDS
        .iter()
        .map(|(n, w)| format!("%{n}: {}", ty(*w)))
        .collect();
    format!(
        "    cmt2.interface @{HELLA_CMD_ITF} {{\n      cmt2.method @hella_cmd_to_bus({}) -> () {{\n        cmt2.return\n      }} {{\n        cmt2.return\n      }}\n    }}\n",
        args.join(", ")
    )
}

/// The FIRRTL port prefix of each site port: `load_req<j>`, `store_req<j>`,
/// `load_resp<j>`, `j` counting the ports of each method.
fn hella_prefixes(ports: &[BankPort]) -> Vec<String> {
    let mut n: BTreeMap<&str, u32> = BTreeMap::new();
    ports
        .iter()
        .map(|p| {
            let j = n.entry(p.method).or_insert(0);
            *j += 1;
            format!("{}{}", p.method, *j - 1)
        })
        .collect()
}

/// The extern binding of the `HellaMem` module with site ports `ports` (in firing order).
pub(crate) fn hella_mem_extern(ports: &[BankPort]) -> String {
    let n = HELLA_MEM;
    let mut out = format!("    cmt2.module.extern.firrtl @{n} : @{n}{CLK_ARGS} {{\n{CLK_BINDS}");
    let prefixes = hella_prefixes(ports);
    for (p, prefix) in ports.iter().zip(&prefixes) {
        let (args, result): (&[(&str, u32)], _) = match p.method {
            "load_req" => (&[("addr", 32)], None),
            "store_req" => (&[("addr", 32), ("data", 32)], None),
            _ => (&[], Some(32)),
        };
        bind_as(&mut out, &sym(&p.name()), prefix, args, result, false);
    }
    bind(&mut out, "head", &[], Some(ENTRY), true);
    bind(&mut out, "deq", &[], None, false);
    bind(&mut out, "first", &[], Some(ENTRY), true);
    bind(&mut out, "bypass", &[], None, false);
    let resp: Vec<(&str, u32)> = HELLA_RESP_FIELDS.to_vec();
    bind(&mut out, "resp", &resp, None, false);
    let syms: Vec<String> = ports.iter().map(|p| sym(&p.name())).collect();
    let mut conflict: Vec<String> = syms.iter().map(|s| format!("[{s}, {s}]")).collect();
    for m in ["@deq", "@bypass", "@resp"] {
        conflict.push(format!("[{m}, {m}]"));
    }
    let mut before = vec!["[@head, @deq]".to_string()];
    for (p, s) in ports.iter().zip(&syms) {
        if p.method == "load_resp" {
            before.push(format!("[@resp, {s}]"));
        } else {
            before.push(format!("[@deq, {s}]"));
            before.push(format!("[{s}, @first]"));
        }
    }
    before.push("[@first, @bypass]".into());
    let _ = writeln!(
        out,
        "    }} {{conflict = [{}], sequenceBefore = [{}]}}",
        conflict.join(", "),
        before.join(", ")
    );
    out
}

/// The FIRRTL ops of the `HellaMem` module, on a [`Body`] at the module's indentation whose
/// fresh names are `%t<n>`.
impl Body {
    fn k(&mut self, v: u32, w: u32) -> String {
        self.constant(u128::from(v), w)
    }

    /// A 1-bit op of two operands of width `w`.
    fn cmp(&mut self, op: &str, a: &str, b: &str, w: u32) -> String {
        self.op2(op, a, b, w, w, 1)
    }

    fn and(&mut self, a: &str, b: &str) -> String {
        self.op2("and", a, b, 1, 1, 1)
    }

    fn or(&mut self, a: &str, b: &str) -> String {
        self.op2("or", a, b, 1, 1, 1)
    }

    fn not(&mut self, a: &str) -> String {
        self.def(&format!("firrtl.not {a} : ({}) -> {}", ty(1), ty(1)))
    }

    /// `a + b` or `a - b` of counters, kept at [`CW`] bits.
    fn arith(&mut self, op: &str, a: &str, b: &str) -> String {
        let s = self.op2(op, a, b, CW, CW, CW + 1);
        self.bits(&s, CW + 1, CW)
    }

    fn add(&mut self, a: &str, b: &str) -> String {
        self.arith("add", a, b)
    }

    fn sub(&mut self, a: &str, b: &str) -> String {
        self.arith("sub", a, b)
    }

    /// Bits `hi` down to `lo` of `a` (`wa` bits wide).
    fn slice(&mut self, a: &str, wa: u32, hi: u32, lo: u32) -> String {
        self.def(&format!(
            "firrtl.bits {a} {hi} to {lo} : ({}) -> {}",
            ty(wa),
            ty(hi - lo + 1)
        ))
    }

    /// A 1-bit value as a counter.
    fn count(&mut self, a: &str) -> String {
        self.pad(a, 1, CW)
    }

    fn cat(&mut self, a: &str, b: &str, wa: u32, wb: u32) -> String {
        self.op2("cat", a, b, wa, wb, wa + wb)
    }

    /// `(base + k) mod size` for `base < size`, `k ≤ size`.
    fn wrap(&mut self, base: &str, k: &str, size: &str) -> String {
        let s = self.add(base, k);
        let over = self.cmp("geq", &s, size, CW);
        let less = self.sub(&s, size);
        self.mux(&over, &less, &s, CW)
    }
}

/// The `HellaMem` module: `L` lanes (the most request sites of one rule), a request queue of
/// `schedule::mem_req_depth(L)` entries and a response buffer of
/// `schedule::mem_resp_entries(L)` tags; the semantics of the SystemVerilog `memport`.
pub(crate) fn hella_mem_firrtl(ports: &[BankPort]) -> String {
    // The rules' groups of ports, in firing order: (first port, request, load, response
    // sites).
    let mut groups: Vec<(usize, u32, u32, u32)> = Vec::new();
    for (j, p) in ports.iter().enumerate() {
        if j == 0 || ports[j - 1].rule != p.rule {
            groups.push((j, 0, 0, 0));
        }
        let g = groups.last_mut().expect("a group");
        match p.method {
            "load_req" => {
                g.1 += 1;
                g.2 += 1;
            }
            "store_req" => g.1 += 1,
            _ => g.3 += 1,
        }
    }
    let lanes = groups.iter().map(|g| g.1).max().unwrap_or(0).max(1);
    let depth = crate::rules::schedule::mem_req_depth(lanes);
    let size = crate::rules::schedule::mem_resp_entries(lanes);
    let prefixes = hella_prefixes(ports);
    let (b, c, e) = (ty(1), ty(CW), ty(ENTRY));
    let qt = format!("!firrtl.vector<uint<{ENTRY}>, {depth}>");
    let vt = format!("!firrtl.vector<uint<1>, {size}>");
    let dt = format!("!firrtl.vector<uint<32>, {size}>");
    let mut decls: Vec<(&str, String, String)> = vec![
        ("in", "clock".into(), "!firrtl.clock".into()),
        ("in", "reset".into(), b.clone()),
    ];
    for (p, prefix) in ports.iter().zip(&prefixes) {
        decls.push(("in", format!("{prefix}_enable"), b.clone()));
        decls.push(("out", format!("{prefix}_ready"), b.clone()));
        match p.method {
            "load_req" => decls.push(("in", format!("{prefix}_addr"), ty(32))),
            "store_req" => {
                decls.push(("in", format!("{prefix}_addr"), ty(32)));
                decls.push(("in", format!("{prefix}_data"), ty(32)));
            }
            _ => decls.push(("out", format!("{prefix}_data"), ty(32))),
        }
    }
    for (v, en) in [
        ("head", false),
        ("deq", true),
        ("first", false),
        ("bypass", true),
    ] {
        if en {
            decls.push(("in", format!("{v}_enable"), b.clone()));
        }
        decls.push(("out", format!("{v}_ready"), b.clone()));
        if !en {
            decls.push(("out", format!("{v}_data"), e.clone()));
        }
    }
    decls.push(("in", "resp_enable".into(), b.clone()));
    decls.push(("out", "resp_ready".into(), b.clone()));
    for (n, w) in HELLA_RESP_FIELDS {
        decls.push(("in", format!("resp_{n}"), ty(w)));
    }
    let mut f = Body::named("      ", "t");
    let _ = writeln!(
        f.out,
        "    firrtl.module @{HELLA_MEM}({}) {{",
        port_list(&decls)
    );
    let zeros = |n: u32| vec!["0"; n as usize].join(", ");
    f.line(&format!("%one = firrtl.constant 1 : {b}"));
    f.line(&format!("%off = firrtl.constant 0 : {b}"));
    f.line(&format!("%c0 = firrtl.constant 0 : {c}"));
    f.line(&format!("%lanes = firrtl.constant {lanes} : {c}"));
    f.line(&format!("%depth = firrtl.constant {depth} : {c}"));
    f.line(&format!("%size = firrtl.constant {size} : {c}"));
    f.line(&format!(
        "%q0 = firrtl.aggregateconstant [{}] : {qt}",
        zeros(depth)
    ));
    f.line(&format!(
        "%v0 = firrtl.aggregateconstant [{}] : {vt}",
        zeros(size)
    ));
    f.line(&format!(
        "%d0 = firrtl.aggregateconstant [{}] : {dt}",
        zeros(size)
    ));
    let reg = |f: &mut Body, n: &str, t: &str, init: &str| {
        f.line(&format!(
            "%{n} = firrtl.regreset %clock, %reset, {init} : !firrtl.clock, {b}, {t}, {t}"
        ));
    };
    reg(&mut f, "q", &qt, "%q0");
    reg(&mut f, "cnt", &c, "%c0");
    reg(&mut f, "rb_valid", &vt, "%v0");
    reg(&mut f, "rb_data", &dt, "%d0");
    reg(&mut f, "head", &c, "%c0");
    reg(&mut f, "alloc", &c, "%c0");
    reg(&mut f, "used", &c, "%c0");
    // The queue's head; `kept`: the entries left after this cycle's dequeue.
    let busy = f.cmp("neq", "%cnt", "%c0", CW);
    let q_head = f.def(&format!("firrtl.subindex %q[0] : {qt}"));
    f.line(&format!("firrtl.matchingconnect %head_ready, {busy} : {b}"));
    f.line(&format!(
        "firrtl.matchingconnect %head_data, {q_head} : {e}"
    ));
    f.line(&format!("firrtl.matchingconnect %deq_ready, {busy} : {b}"));
    let deq = f.count("%deq_enable");
    let kept = f.sub("%cnt", &deq);
    // Responses: `cmd = 0` fills its tag's entry; the rest are dropped.
    let cmd0 = f.k(0, 5);
    let is_load = f.cmp("eq", "%resp_cmd", &cmd0, 5);
    let resp_in = f.and("%resp_enable", &is_load);
    let tag16 = f.def(&format!("firrtl.pad %resp_tag, {CW} : ({}) -> {c}", ty(8)));
    f.line(&format!("firrtl.matchingconnect %resp_ready, %one : {b}"));
    // The site ports, rule by rule: `e`, `el`, `ec` count the enabled request, load and
    // response ports before the current one.
    let (mut en_req, mut en_load, mut en_resp) =
        ("%c0".to_string(), "%c0".to_string(), "%c0".to_string());
    let mut first = f.k(0, ENTRY);
    let mut enqueue: Vec<(String, String, String)> = Vec::new();
    for (gi, g) in groups.iter().enumerate() {
        let end = groups.get(gi + 1).map_or(ports.len(), |n| n.0);
        let (n_req, n_load) = (f.k(g.1, CW), f.k(g.2, CW));
        // Lanes and queue room for all the rule's requests after earlier rules'.
        let after = f.add(&en_req, &n_req);
        let lanes_ok = f.cmp("leq", &after, "%lanes", CW);
        let fill = f.add(&kept, &after);
        let room_ok = f.cmp("leq", &fill, "%depth", CW);
        let req_rdy = f.and(&lanes_ok, &room_ok);
        // Response-buffer room for all its loads after the loads in flight and earlier
        // rules'.
        let inflight = f.add("%used", &en_load);
        let loads = f.add(&inflight, &n_load);
        let buf_ok = f.cmp("leq", &loads, "%size", CW);
        let load_rdy = f.and(&req_rdy, &buf_ok);
        // The responses its sites may take, of those in flight after earlier rules', have
        // arrived (or arrive this cycle).
        let mut resp_rdy = "%one".to_string();
        for k in 0..g.3 {
            let kk = f.k(k, CW);
            let at = f.add(&en_resp, &kk);
            let none = f.cmp("geq", &at, "%used", CW);
            let t = f.wrap("%head", &at, "%size");
            let v = f.def(&format!("firrtl.subaccess %rb_valid[{t}] : {vt}, {c}"));
            let hit = f.cmp("eq", &tag16, &t, CW);
            let now = f.and(&resp_in, &hit);
            let a = f.or(&none, &v);
            let a = f.or(&a, &now);
            resp_rdy = f.and(&resp_rdy, &a);
        }
        for j in g.0..end {
            let (p, prefix) = (&ports[j], &prefixes[j]);
            let en = f.count(&format!("%{prefix}_enable"));
            match p.method {
                "load_resp" => {
                    let t = f.wrap("%head", &en_resp, "%size");
                    let v = f.def(&format!("firrtl.subaccess %rb_valid[{t}] : {vt}, {c}"));
                    let d = f.def(&format!("firrtl.subaccess %rb_data[{t}] : {dt}, {c}"));
                    let data = f.mux(&v, &d, "%resp_data", 32);
                    f.line(&format!(
                        "firrtl.matchingconnect %{prefix}_ready, {resp_rdy} : {b}"
                    ));
                    f.line(&format!(
                        "firrtl.matchingconnect %{prefix}_data, {data} : {}",
                        ty(32)
                    ));
                    en_resp = f.add(&en_resp, &en);
                }
                m => {
                    let store = m == "store_req";
                    let rdy = if store { &req_rdy } else { &load_rdy };
                    f.line(&format!(
                        "firrtl.matchingconnect %{prefix}_ready, {rdy} : {b}"
                    ));
                    let (bit, tag, data) = if store {
                        (f.k(1, 1), f.k(0, 8), format!("%{prefix}_data"))
                    } else {
                        let t = f.wrap("%alloc", &en_load, "%size");
                        (f.k(0, 1), f.slice(&t, CW, 7, 0), f.k(0, 32))
                    };
                    let x = f.cat(&bit, &tag, 1, 8);
                    let x = f.cat(&x, &format!("%{prefix}_addr"), 9, 32);
                    let entry = f.cat(&x, &data, 41, 32);
                    // The cycle's first request, for the bypass.
                    let zero = f.cmp("eq", &en_req, "%c0", CW);
                    let lead = f.and(&format!("%{prefix}_enable"), &zero);
                    first = f.mux(&lead, &entry, &first, ENTRY);
                    // Queued at `kept + e`, one lower when the first went past the queue.
                    let slot = f.add(&kept, &en_req);
                    let byp = f.count("%bypass_enable");
                    let idx = f.sub(&slot, &byp);
                    let passed = f.and("%bypass_enable", &zero);
                    let stays = f.not(&passed);
                    let go = f.and(&format!("%{prefix}_enable"), &stays);
                    enqueue.push((go, idx, entry));
                    en_req = f.add(&en_req, &en);
                    if !store {
                        en_load = f.add(&en_load, &en);
                    }
                }
            }
        }
    }
    // The bypass: an empty queue and a request this cycle.
    let empty = f.not(&busy);
    let any = f.cmp("neq", &en_req, "%c0", CW);
    let pass = f.and(&empty, &any);
    f.line(&format!(
        "firrtl.matchingconnect %first_ready, {pass} : {b}"
    ));
    f.line(&format!(
        "firrtl.matchingconnect %first_data, {first} : {e}"
    ));
    f.line(&format!(
        "firrtl.matchingconnect %bypass_ready, {pass} : {b}"
    ));
    // The queue: shift out the dequeued head, then append the cycle's requests.
    let byp = f.count("%bypass_enable");
    let grown = f.add(&kept, &en_req);
    let cnt_next = f.sub(&grown, &byp);
    f.line(&format!("firrtl.matchingconnect %cnt, {cnt_next} : {c}"));
    f.line(&format!("firrtl.when %deq_enable : {b} {{"));
    for p in 0..depth.saturating_sub(1) {
        let _ = writeln!(
            f.out,
            "        %s{p} = firrtl.subindex %q[{p}] : {qt}\n        %n{p} = firrtl.subindex %q[{}] : {qt}\n        firrtl.matchingconnect %s{p}, %n{p} : {e}",
            p + 1
        );
    }
    f.line("}");
    for (go, idx, entry) in &enqueue {
        f.line(&format!("firrtl.when {go} : {b} {{"));
        let _ = writeln!(
            f.out,
            "        %q_{n} = firrtl.subaccess %q[{idx}] : {qt}, {c}\n        firrtl.matchingconnect %q_{n}, {entry} : {e}",
            n = &idx[1..]
        );
        f.line("}");
    }
    // The response buffer: fill the arriving tag's entry, then clear the entries taken.
    let in_range = f.cmp("lt", &tag16, "%size", CW);
    let fill = f.and(&resp_in, &in_range);
    f.line(&format!("firrtl.when {fill} : {b} {{"));
    let _ = writeln!(
        f.out,
        "        %rv = firrtl.subaccess %rb_valid[{tag16}] : {vt}, {c}\n        firrtl.matchingconnect %rv, %one : {b}\n        %rd = firrtl.subaccess %rb_data[{tag16}] : {dt}, {c}\n        firrtl.matchingconnect %rd, %resp_data : {}",
        ty(32)
    );
    f.line("}");
    for i in 0..size {
        // Entry `i` is taken when `(i - head) mod size < taken`.
        let ii = f.k(i + size, CW);
        let dist = f.sub(&ii, "%head");
        let dist = f.wrap(&dist, "%c0", "%size");
        let taken = f.cmp("lt", &dist, &en_resp, CW);
        f.line(&format!("firrtl.when {taken} : {b} {{"));
        let _ = writeln!(
            f.out,
            "        %x{i} = firrtl.subindex %rb_valid[{i}] : {vt}\n        firrtl.matchingconnect %x{i}, %off : {b}"
        );
        f.line("}");
    }
    let head_next = f.wrap("%head", &en_resp, "%size");
    let alloc_next = f.wrap("%alloc", &en_load, "%size");
    let used_more = f.add("%used", &en_load);
    let used_next = f.sub(&used_more, &en_resp);
    f.line(&format!("firrtl.matchingconnect %head, {head_next} : {c}"));
    f.line(&format!(
        "firrtl.matchingconnect %alloc, {alloc_next} : {c}"
    ));
    f.line(&format!("firrtl.matchingconnect %used, {used_next} : {c}"));
    f.out.push_str("    }\n");
    f.out
}

/// The top method `hella_resp` (the convention's `hella_resp_enable`, `hella_resp_ready`,
/// `hella_resp_hella_resp_<field>`): hands the response to `mem`'s response buffer.
pub(crate) fn hella_resp_method(mem: &str) -> String {
    let args: Vec<String> = HELLA_RESP_FIELDS
        .iter()
        .map(|(n, w)| format!("%{HELLA_RESP}_{n}: {}", ty(*w)))
        .collect();
    let names: Vec<String> = HELLA_RESP_FIELDS
        .iter()
        .map(|(n, _)| format!("%{HELLA_RESP}_{n}"))
        .collect();
    let tys: Vec<String> = HELLA_RESP_FIELDS.iter().map(|(_, w)| ty(*w)).collect();
    let mut b = Body::new("        ");
    b.line(&format!(
        "cmt2.call {} @resp({}) : ({}) -> ()",
        sym(mem),
        names.join(", "),
        tys.join(", ")
    ));
    b.line("cmt2.return");
    let mut text = String::new();
    function(
        &mut text,
        &format!("cmt2.method @{HELLA_RESP}({}) -> ()", args.join(", ")),
        true_guard(),
        b,
    );
    text
}

/// A glue rule sending an entry of `mem` (its value `value`, then its method `take`) to
/// `hella_cmd`: `addr & ~3`, the tag, `cmd` 1 for a store and 0 for a load, `size` 2
/// (a word), `signed` and `phys` 0, the data, `mask` 0xf for a store and 0 for a load.
fn hella_send_rule(name: &str, mem: &str, value: &str, take: &str) -> String {
    let mut b = Body::new("        ");
    let x = b.def(&format!(
        "cmt2.call {} @{value}() : () -> {}",
        sym(mem),
        ty(ENTRY)
    ));
    let field = |b: &mut Body, hi: u32, lo: u32| {
        b.def(&format!(
            "firrtl.bits {x} {hi} to {lo} : ({}) -> {}",
            ty(ENTRY),
            ty(hi - lo + 1)
        ))
    };
    let word = field(&mut b, 63, 34);
    let low = b.constant(0, 2);
    let addr = b.op2("cat", &word, &low, 30, 2, 32);
    let tag = field(&mut b, 71, 64);
    let store = field(&mut b, 72, 72);
    let cmd = b.pad(&store, 1, 5);
    let size = b.constant(2, 2);
    let zero = b.constant(0, 1);
    let data = field(&mut b, 31, 0);
    let two = b.op2("cat", &store, &store, 1, 1, 2);
    let mask = b.op2("cat", &two, &two, 2, 2, 4);
    let args = [addr, tag, cmd, size, zero.clone(), zero, data, mask];
    let tys: Vec<String> = HELLA_CMD_FIELDS.iter().map(|(_, w)| ty(*w)).collect();
    b.line(&format!(
        "cmt2.call @{HELLA_CMD} @hella_cmd_to_bus({}) : ({}) -> ()",
        args.join(", "),
        tys.join(", ")
    ));
    b.line(&format!("cmt2.call {} @{take}() : () -> ()", sym(mem)));
    b.line("cmt2.return");
    let mut text = String::new();
    function(
        &mut text,
        &format!("cmt2.rule @{name}() -> ()"),
        true_guard(),
        b,
    );
    text
}

/// The glue rules of the CPU-memory port `mem`, `hella_send` and `hella_bypass`, as (name,
/// text).
pub(crate) fn hella_rules(mem: &str) -> [(String, String); 2] {
    [
        (
            HELLA_SEND.to_string(),
            hella_send_rule(HELLA_SEND, mem, "head", "deq"),
        ),
        (
            HELLA_BYPASS.to_string(),
            hella_send_rule(HELLA_BYPASS, mem, "first", "bypass"),
        ),
    ]
}
