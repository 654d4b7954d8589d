//! Static schedule of a rule [`Circuit`] for the RTL backend: the per-cycle rule order and
//! the conflict analysis of the methods the rules call.
//!
//! The order is the one [`super::sim::simulate`] uses (the circuit's `schedule`, then any
//! rule it does not name, in definition order), because the simulator defines cycle
//! exactness. Within a cycle the rules compose *sequentially* in that order: a rule sees
//! the effects of earlier fired rules that the simulator makes visible in the same cycle
//! (FIFO dequeues free room and advance the head, a started DMA transfer makes the engine
//! busy, a register write blocks a second write), and nothing else (writes, enqueues and
//! bank updates commit at the clock edge).
//!
//! Method pairs are classified as
//! - *conflict*: the later call is not ready once the earlier one happened (register
//!   write/write, DMA start/start, DMA start/poll, RoCC command/command and
//!   response/response);
//! - *sequential*: both may fire, the later one sees the earlier one's effect on readiness
//!   (FIFO deq/deq, deq/enq, enq/enq; CPU-memory request lanes and response queue);
//! - *free*: no interaction (reads, bank writes, different instances).
//!
//! Precedence pairs declared by the handlers (`a` before `b`) are checked against the
//! order; a violated pair is reported, never silently reordered.
//!
//! The same order arbitrates the shared interfaces (RoCC command and response ports, DMA
//! request, CPU-memory request lanes): the first ready call site in the order wins.
//! [`mem_lanes`] gives the lane count `L` and the response-queue size both the simulator
//! and the RTL use.

use super::{Circuit, InstanceKind, Instances, Rule, Stmt};
use std::collections::BTreeMap;

/// Entries of the CPU-memory response buffer per request lane (see [`mem_lanes`]).
pub(crate) const MEM_QUEUE_PER_LANE: u32 = 4;

/// Entries of a CPU-memory port's request queue (`hella_cmd_fifo`) for `lanes` lanes: room
/// for one rule's requests while the head waits for the port.
pub(crate) fn mem_req_depth(lanes: u32) -> u32 {
    lanes.clamp(2, 255)
}

/// Entries of a CPU-memory port's response buffer for `lanes` lanes: the loads that may be
/// in flight (queued, at the cache or answered and not yet consumed), each with its own
/// tag (8 bits: at most 256).
pub(crate) fn mem_resp_entries(lanes: u32) -> u32 {
    (MEM_QUEUE_PER_LANE * lanes).clamp(1, 256)
}

/// Request lanes `L` of every CPU-memory port: the largest number of `load_req`/`store_req`
/// calls one rule makes on it (both arms of every `If` counted), at least 1. At most `L`
/// requests enter the port's request queue ([`mem_req_depth`] entries) per cycle and at
/// most [`mem_resp_entries`] loads may be in flight; the simulator and the RTL both use
/// these numbers.
pub fn mem_lanes(c: &Circuit) -> BTreeMap<String, u32> {
    let mut lanes = BTreeMap::new();
    for i in &c.instances {
        if matches!(i.kind, InstanceKind::MemPort) {
            lanes.insert(i.name.clone(), 1);
        }
    }
    let index = c.instance_index();
    for r in &c.rules {
        for (m, k) in mem_sites(&index, r) {
            let e = lanes.entry(m).or_insert(1);
            *e = (*e).max(k.reqs);
        }
    }
    lanes
}

/// The call sites one rule has on a CPU-memory port, both arms of every `If` counted. A
/// rule's readiness on the port is decided from these counts before it fires, never from
/// which of its sites its taken path enables (in CMT2 a rule's guard cannot see its own
/// calls): it may fire when the port has lanes and queue room for `reqs` requests after
/// earlier rules' requests, response-buffer room for `loads` more loads, and the next
/// `resps` responses (those in flight) have arrived.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MemSites {
    /// `load_req` and `store_req` sites.
    pub reqs: u32,
    /// `load_req` sites.
    pub loads: u32,
    /// `load_resp` sites.
    pub resps: u32,
}

/// [`MemSites`] of rule `r` per CPU-memory port it calls.
pub(crate) fn mem_sites(index: &Instances<'_>, r: &Rule) -> BTreeMap<String, MemSites> {
    let mut n = BTreeMap::new();
    if let Some((g, _)) = &r.guard {
        count_mem_sites(index, g, &mut n);
    }
    count_mem_sites(index, &r.body, &mut n);
    n
}

fn count_mem_sites(index: &Instances<'_>, stmts: &[Stmt], n: &mut BTreeMap<String, MemSites>) {
    for s in stmts {
        match s {
            Stmt::Call { inst, method, .. }
                if matches!(
                    index.get(inst.as_str()).map(|i| &i.kind),
                    Some(InstanceKind::MemPort)
                ) =>
            {
                let e = n.entry(inst.clone()).or_default();
                match method.as_str() {
                    "load_req" => {
                        e.reqs += 1;
                        e.loads += 1;
                    }
                    "store_req" => e.reqs += 1,
                    "load_resp" => e.resps += 1,
                    _ => {}
                }
            }
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                count_mem_sites(index, then_body, n);
                count_mem_sites(index, else_body, n);
            }
            _ => {}
        }
    }
}

/// How two method calls on the same instance interact within one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) enum Relation {
    Conflict,
    Sequential,
}

/// An instance through which rules interact: the rules calling each of its methods (in the
/// order), and the method pairs that interact. Two rules interact through it when an
/// earlier one calls `a` and a later one `b` for a listed `(a, b, relation)`. Listing the
/// callers per method keeps the description linear in the rules; the pairs themselves are
/// quadratic (every two instructions share the RoCC port).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct Shared {
    pub(crate) instance: String,
    /// (method, the rules calling it, in the order).
    pub(crate) callers: Vec<(String, Vec<String>)>,
    /// (earlier call's method, later call's method, relation).
    pub(crate) relations: Vec<(String, String, Relation)>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) struct Schedule {
    /// Indices into `circuit.rules`, in per-cycle evaluation order.
    pub(crate) order: Vec<usize>,
    pub(crate) shared: Vec<Shared>,
    /// Declared precedence pairs `(a, b)` that the order does not honour.
    pub(crate) violated_precedence: Vec<(String, String)>,
}

/// Derive the schedule; `Err` names a schedule entry without a rule.
pub(crate) fn analyse(c: &Circuit) -> Result<Schedule, String> {
    let order = rule_order(c)?;
    let pos: BTreeMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(p, &i)| (c.rules[i].name.as_str(), p))
        .collect();
    let violated_precedence = c
        .precedence
        .iter()
        .filter(|(a, b)| match (pos.get(a.as_str()), pos.get(b.as_str())) {
            (Some(pa), Some(pb)) => pa > pb,
            _ => false,
        })
        .cloned()
        .collect();
    let calls: Vec<Vec<(String, String)>> = order
        .iter()
        .map(|&i| {
            let mut v = Vec::new();
            let r = &c.rules[i];
            if let Some((g, _)) = &r.guard {
                collect_calls(g, &mut v);
            }
            collect_calls(&r.body, &mut v);
            v
        })
        .collect();
    // Per instance and method, the positions in the order of the rules calling it.
    let mut by_inst: BTreeMap<&str, BTreeMap<&str, Vec<usize>>> = BTreeMap::new();
    for (p, rule_calls) in calls.iter().enumerate() {
        for (inst, method) in rule_calls {
            let at = by_inst.entry(inst).or_default().entry(method).or_default();
            if at.last() != Some(&p) {
                at.push(p);
            }
        }
    }
    let index = c.instance_index();
    let mut shared = Vec::new();
    for (inst, methods) in by_inst {
        let Some(kind) = index.get(inst).map(|i| &i.kind) else {
            continue;
        };
        let mut relations = Vec::new();
        for (ma, pa) in &methods {
            for (mb, pb) in &methods {
                // Some caller of `ma` precedes some caller of `mb`.
                let ordered = matches!((pa.first(), pb.last()), (Some(a), Some(b)) if a < b);
                if let (true, Some(r)) = (ordered, method_relation(kind, ma, mb)) {
                    relations.push((ma.to_string(), mb.to_string(), r));
                }
            }
        }
        if relations.is_empty() {
            continue;
        }
        let name = |p: &usize| c.rules[order[*p]].name.clone();
        let callers = methods
            .iter()
            .map(|(m, at)| (m.to_string(), at.iter().map(name).collect()))
            .collect();
        shared.push(Shared {
            instance: inst.to_string(),
            callers,
            relations,
        });
    }
    Ok(Schedule {
        order,
        shared,
        violated_precedence,
    })
}

/// The simulator's order: the declared schedule, then unnamed rules in definition order
/// (indices into the circuit's rules).
pub(crate) fn rule_order(c: &Circuit) -> Result<Vec<usize>, String> {
    let by_name: BTreeMap<&str, usize> = c
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.as_str(), i))
        .collect();
    let mut order = Vec::new();
    for name in &c.schedule {
        let i = by_name
            .get(name.as_str())
            .ok_or_else(|| format!("schedule names unknown rule `{name}`"))?;
        order.push(*i);
    }
    // A search of the schedule per rule would grow with the square of the rules.
    let named: crate::fxhash::FxHashSet<&str> = c.schedule.iter().map(String::as_str).collect();
    for (i, r) in c.rules.iter().enumerate() {
        if !named.contains(r.name.as_str()) {
            order.push(i);
        }
    }
    Ok(order)
}

fn collect_calls(stmts: &[Stmt], out: &mut Vec<(String, String)>) {
    for s in stmts {
        match s {
            Stmt::Call { inst, method, .. } => out.push((inst.clone(), method.clone())),
            Stmt::If {
                then_body,
                else_body,
                ..
            } => {
                collect_calls(then_body, out);
                collect_calls(else_body, out);
            }
            Stmt::Let { .. } => {}
        }
    }
}

/// Same-cycle relation of an earlier call `a` and a later call `b` on one instance.
pub(crate) fn method_relation(kind: &InstanceKind, a: &str, b: &str) -> Option<Relation> {
    match kind {
        InstanceKind::Fifo { .. } => Some(Relation::Sequential),
        InstanceKind::Reg { .. } => (a == "write" && b == "write").then_some(Relation::Conflict),
        InstanceKind::Bank { .. } => None,
        InstanceKind::Rocc => {
            // Once a command is taken, the port shows nothing else this cycle.
            let cmd_taken = a == "cmd_deq" && (b == "cmd_deq" || b == "cmd");
            let both_resp = a == "resp_from_user" && b == "resp_from_user";
            (cmd_taken || both_resp).then_some(Relation::Conflict)
        }
        // One request per method (a port of the top) and cycle; polls are the environment's
        // state at the start of the cycle.
        InstanceKind::Dma { .. } => (a == b
            && matches!(super::dma_method(a), Some(super::DmaMethod::Request { .. })))
        .then_some(Relation::Conflict),
        InstanceKind::MemPort => Some(Relation::Sequential),
        // One write-back port per lane.
        InstanceKind::Csr { .. } => (a == "set" && b == "set").then_some(Relation::Conflict),
        InstanceKind::Fault { .. } => None,
    }
}

/// The comment block describing the schedule (each line starts with `// `).
pub(crate) fn describe(c: &Circuit, s: &Schedule) -> String {
    let mut out = String::new();
    out.push_str("// Static schedule (rules evaluated in this order every cycle; a rule fires\n");
    out.push_str("// when its guard holds and every method it calls on the taken path is ready\n");
    out.push_str("// given the effects of the rules fired before it in the same cycle):\n");
    for (p, &i) in s.order.iter().enumerate() {
        out.push_str(&format!("//   {p:3}  {}\n", c.rules[i].name));
    }
    if s.shared.is_empty() {
        out.push_str("// Interactions: none (all rules are conflict-free).\n");
    } else {
        out.push_str(
            "// Interactions: a rule calling the first method of a pair below interacts with\n",
        );
        out.push_str(
            "// every later rule (in the order) calling the second, on the same instance:\n",
        );
        for sh in &s.shared {
            let pairs: Vec<String> = sh
                .relations
                .iter()
                .map(|(a, b, r)| {
                    let r = match r {
                        Relation::Conflict => "conflict",
                        Relation::Sequential => "sequential",
                    };
                    format!("{a} -> {b} {r}")
                })
                .collect();
            out.push_str(&format!("//   {}: {}\n", sh.instance, pairs.join(", ")));
            for (m, rules) in &sh.callers {
                out.push_str(&format!("//     {m}: {}\n", rules.join(" ")));
            }
        }
    }
    out.push_str("// Interface arbitration (the rule simulator's model): one RoCC command is\n");
    out.push_str("// accepted and one response sent per cycle, and the DMA engine takes one\n");
    out.push_str("// request per cycle; the first ready call site in this order wins, later\n");
    out.push_str("// ones are not ready in that cycle. CPU-memory requests take lanes in this\n");
    out.push_str("// order; a load needs room in the response queue.\n");
    if s.violated_precedence.is_empty() {
        out.push_str("// Declared precedence: all pairs honoured by the order.\n");
    } else {
        for (a, b) in &s.violated_precedence {
            out.push_str(&format!(
                "// WARNING: declared precedence {a} < {b} is not honoured by the order\n"
            ));
        }
    }
    out
}
