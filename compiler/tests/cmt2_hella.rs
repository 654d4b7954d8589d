//! The CMT2 text's `HellaMem` module (the CPU-memory port's FIRRTL, what circt-cmt2 would
//! lower) run cycle by cycle by a small FIRRTL interpreter, against a model of the port
//! written from `docs/soc-mapping.md` ("HellaCache", the semantics the rule simulator and the
//! SystemVerilog `memport` implement): on random rule shapes, random firing choices, a
//! random `hella_cmd` ready and out-of-order responses, every cycle's site readiness, load
//! data, request tags and the request sent on `hella_cmd` agree.
//!
//! No FIRRTL tool is on this machine (the CIRCT Python wheel has no FIRRTL dialect), so
//! the interpreter implements the subset kiln's library writes: `constant`,
//! `aggregateconstant`, `regreset`, `subindex`/`subaccess` (read and connect), `add`,
//! `sub`, `and`, `or`, `not`, `eq`, `neq`, `lt`, `leq`, `geq`, `bits`, `pad`, `cat`,
//! `mux`, `matchingconnect` and `when` (the last connect wins; registers update at the
//! edge).

mod common;

use common::Rng;
use compiler::rules::{self, Circuit, Instance, InstanceKind, Rule, Stmt};
use std::collections::{BTreeMap, HashMap};

// ---------------------------------------------------------------------------------------
// The interpreter.

#[derive(Clone, Debug)]
enum Val {
    U(u128),
    V(Vec<u128>),
}

impl Val {
    fn u(&self) -> u128 {
        match self {
            Val::U(x) => *x,
            Val::V(_) => panic!("a vector where a scalar is expected"),
        }
    }
}

fn mask(v: u128, w: u32) -> u128 {
    if w >= 128 { v } else { v & ((1u128 << w) - 1) }
}

/// The width of `!firrtl.uint<W>` at the start of `t`.
fn width(t: &str) -> u32 {
    let t = t.trim();
    let a = t.find("uint<").expect("a uint type") + 5;
    let b = a + t[a..].find('>').unwrap();
    t[a..b].parse().unwrap()
}

/// The result type after `->`.
fn result_width(line: &str) -> u32 {
    width(&line[line.rfind("->").unwrap() + 2..])
}

struct Module {
    lines: Vec<String>,
    /// Register values.
    regs: HashMap<String, Val>,
}

/// Where a name defined by `subindex`/`subaccess` points: (register, index).
type Place = (String, usize);

impl Module {
    fn new(text: &str) -> Module {
        let lines: Vec<String> = text.lines().skip(1).map(|l| l.trim().to_string()).collect();
        let mut m = Module {
            lines,
            regs: HashMap::new(),
        };
        // Registers start at their reset values: one evaluation with no inputs.
        let (_, _, next) = m.eval(&HashMap::new(), true);
        m.regs = next;
        m
    }

    /// One evaluation: the outputs, the register values after the edge. With `reset`, each
    /// register takes its initial value.
    #[allow(clippy::type_complexity)]
    fn eval(
        &self,
        inputs: &HashMap<String, u128>,
        reset: bool,
    ) -> (
        HashMap<String, u128>,
        HashMap<String, Val>,
        HashMap<String, Val>,
    ) {
        let mut env: HashMap<String, Val> = HashMap::new();
        let mut places: HashMap<String, Place> = HashMap::new();
        let mut outs: HashMap<String, u128> = HashMap::new();
        let mut next: HashMap<String, Val> = self.regs.clone();
        let mut conds: Vec<bool> = Vec::new();
        let get = |env: &HashMap<String, Val>, n: &str| -> Val {
            let n = n.trim().trim_end_matches(',');
            let key = n.trim_start_matches('%');
            if let Some(v) = env.get(key) {
                return v.clone();
            }
            if let Some(v) = self.regs.get(key) {
                return v.clone();
            }
            Val::U(*inputs.get(key).unwrap_or(&0))
        };
        for line in &self.lines {
            if line == "}" {
                conds.pop();
                continue;
            }
            if let Some(rest) = line.strip_prefix("firrtl.when ") {
                let c = rest.split(' ').next().unwrap();
                conds.push(get(&env, c).u() != 0);
                continue;
            }
            let active = conds.iter().all(|c| *c);
            if let Some(rest) = line.strip_prefix("firrtl.matchingconnect ") {
                let (dst, rest) = rest.split_once(", ").unwrap();
                let src = rest.split(" : ").next().unwrap();
                let v = get(&env, src);
                let d = dst.trim_start_matches('%');
                if !active {
                    continue;
                }
                if let Some((reg, i)) = places.get(d) {
                    if let Some(Val::V(vs)) = next.get_mut(reg)
                        && *i < vs.len()
                    {
                        vs[*i] = v.u();
                    }
                } else if self.regs.contains_key(d) {
                    next.insert(d.to_string(), v);
                } else {
                    outs.insert(d.to_string(), v.u());
                }
                continue;
            }
            let (name, rhs) = line.split_once(" = ").expect("a definition");
            let name = name.trim_start_matches('%').to_string();
            let op = rhs.split([' ', '(']).next().unwrap();
            let args = || -> Vec<String> {
                let a = rhs[op.len()..].split(" : ").next().unwrap();
                let a = a.trim().trim_start_matches('(').trim_end_matches(')');
                a.split(", ").map(|s| s.trim().to_string()).collect()
            };
            let val = match op {
                "firrtl.constant" => {
                    let v: u128 = rhs.split(' ').nth(1).unwrap().parse().unwrap();
                    Val::U(v)
                }
                "firrtl.aggregateconstant" => {
                    let a = rhs.find('[').unwrap() + 1;
                    let b = rhs.find(']').unwrap();
                    Val::V(rhs[a..b].split(", ").map(|x| x.parse().unwrap()).collect())
                }
                "firrtl.regreset" => {
                    if !reset {
                        continue;
                    }
                    // Reset: the register holds its initial value.
                    let init = get(&env, &args()[2]);
                    next.insert(name.clone(), init.clone());
                    init
                }
                "firrtl.subindex" | "firrtl.subaccess" => {
                    let a = rhs[op.len()..].trim();
                    let (v, rest) = a.split_once('[').unwrap();
                    let idx = rest.split(']').next().unwrap();
                    let i = if op == "firrtl.subindex" {
                        idx.parse::<usize>().unwrap()
                    } else {
                        get(&env, idx).u() as usize
                    };
                    let reg = v.trim().trim_start_matches('%').to_string();
                    places.insert(name.clone(), (reg.clone(), i));
                    match get(&env, &reg) {
                        Val::V(vs) => Val::U(vs.get(i).copied().unwrap_or(0)),
                        Val::U(_) => panic!("{reg} is not a vector"),
                    }
                }
                "firrtl.mux" => {
                    let a = args();
                    if get(&env, &a[0]).u() != 0 {
                        get(&env, &a[1])
                    } else {
                        get(&env, &a[2])
                    }
                }
                "firrtl.not" => Val::U(mask(!get(&env, &args()[0]).u(), 1)),
                "firrtl.pad" => get(&env, &args()[0]),
                "firrtl.bits" => {
                    let a = rhs[op.len()..].trim();
                    let parts: Vec<&str> = a.split(' ').collect();
                    let (hi, lo): (u32, u32) =
                        (parts[1].parse().unwrap(), parts[3].parse().unwrap());
                    Val::U(mask(get(&env, parts[0]).u() >> lo, hi - lo + 1))
                }
                _ => {
                    let a = args();
                    let (x, y) = (get(&env, &a[0]).u(), get(&env, &a[1]).u());
                    let w = result_width(rhs);
                    let b = |c: bool| Val::U(u128::from(c));
                    match op {
                        "firrtl.add" => Val::U(mask(x + y, w)),
                        "firrtl.sub" => Val::U(mask(x.wrapping_sub(y), w)),
                        "firrtl.and" => Val::U(x & y),
                        "firrtl.or" => Val::U(x | y),
                        "firrtl.eq" => b(x == y),
                        "firrtl.neq" => b(x != y),
                        "firrtl.lt" => b(x < y),
                        "firrtl.leq" => b(x <= y),
                        "firrtl.geq" => b(x >= y),
                        "firrtl.cat" => {
                            let types = rhs.split(" : (").nth(1).unwrap();
                            let wb = width(types.split(", ").nth(1).unwrap());
                            Val::U((x << wb) | y)
                        }
                        _ => panic!("op {op} is outside the interpreter's subset: {line}"),
                    }
                }
            };
            env.insert(name, val);
        }
        (outs, env, next)
    }
}

// ---------------------------------------------------------------------------------------
// The model (docs/soc-mapping.md, "HellaCache").

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    Load,
    Store,
    Resp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    store: bool,
    tag: u32,
    addr: u32,
    data: u32,
}

impl Entry {
    fn bits(self) -> u128 {
        (u128::from(self.store) << 72)
            | (u128::from(self.tag) << 64)
            | (u128::from(self.addr) << 32)
            | u128::from(self.data)
    }
}

struct Model {
    lanes: u32,
    depth: u32,
    size: u32,
    queue: Vec<Entry>,
    valid: Vec<bool>,
    data: Vec<u32>,
    head: u32,
    alloc: u32,
    used: u32,
}

/// A circuit with one CPU-memory port and rules of the given sites, scheduled in reverse
/// definition order (so the module's firing order is not the definition order).
fn circuit(shapes: &[Vec<Site>]) -> Circuit {
    let mut rules_out = Vec::new();
    for (r, sites) in shapes.iter().enumerate() {
        let mut body = Vec::new();
        let mut var = 0;
        for s in sites {
            let (method, args, result) = match s {
                Site::Load => ("load_req", 1, None),
                Site::Store => ("store_req", 2, None),
                Site::Resp => ("load_resp", 0, Some((1000 + var, 32))),
            };
            if *s == Site::Resp {
                var += 1;
            }
            let mut vars = Vec::new();
            for _ in 0..args {
                body.push(Stmt::Let {
                    var,
                    width: 32,
                    expr: rules::Expr::Const(u128::from(var)),
                });
                vars.push(var);
                var += 1;
            }
            body.push(Stmt::Call {
                result,
                inst: "mem".into(),
                method: method.into(),
                args: vars,
            });
        }
        rules_out.push(Rule {
            name: format!("r{r}"),
            origin: String::new(),
            guard: None,
            body,
        });
    }
    let schedule: Vec<String> = (0..shapes.len()).rev().map(|r| format!("r{r}")).collect();
    Circuit {
        name: "hella".into(),
        instructions: Vec::new(),
        instances: vec![Instance {
            name: "mem".into(),
            kind: InstanceKind::MemPort,
        }],
        rules: rules_out,
        precedence: Vec::new(),
        schedule,
    }
}

/// The `HellaMem` FIRRTL module of `text`, and its site ports in order: (FIRRTL prefix,
/// rule, site).
fn hella_module(text: &str) -> (String, Vec<(String, String)>) {
    let a = text
        .find("    firrtl.module @HellaMem(")
        .expect("a HellaMem module");
    let b = a + text[a..].find("\n    }\n").unwrap();
    let mut ports = Vec::new();
    let ext = text.find("cmt2.module.extern.firrtl @HellaMem").unwrap();
    let end = ext + text[ext..].find("\n    }").unwrap();
    for line in text[ext..end].lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("cmt2.bind.method @") else {
            continue;
        };
        let sym = rest.split(' ').next().unwrap().trim_matches('"');
        if !sym.contains('.') {
            continue;
        }
        let rule = sym.split('.').nth(1).unwrap().to_string();
        let e = line.find("enable = \"").unwrap() + 10;
        let prefix = line[e..].split("_enable").next().unwrap().to_string();
        ports.push((prefix, rule));
    }
    (text[a..b].to_string(), ports)
}

fn run(seed: u64, shapes: &[Vec<Site>], cycles: usize) {
    let c = circuit(shapes);
    let text = rules::emit_cmt2(&c);
    rules::read_cmt2(&text).expect("the text reads back");
    let (fir, ports) = hella_module(&text);
    let mut m = Module::new(&fir);
    // Groups in firing order: the schedule.
    let order: Vec<usize> = (0..shapes.len()).rev().collect();
    let n_ports: usize = shapes.iter().map(Vec::len).sum();
    assert_eq!(ports.len(), n_ports, "a port per site");
    let lanes = shapes
        .iter()
        .map(|s| s.iter().filter(|x| **x != Site::Resp).count() as u32)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut model = Model {
        lanes,
        depth: lanes.clamp(2, 255),
        size: (4 * lanes).clamp(1, 256),
        queue: Vec::new(),
        valid: vec![false; (4 * lanes).clamp(1, 256) as usize],
        data: vec![0; (4 * lanes).clamp(1, 256) as usize],
        head: 0,
        alloc: 0,
        used: 0,
    };
    let mut rng = Rng(seed | 1);
    // Loads sent to the cache and not answered: tags.
    let mut at_cache: Vec<u32> = Vec::new();
    let mut fired_sites = 0;
    for cycle in 0..cycles {
        let mut inputs: HashMap<String, u128> = HashMap::new();
        let ready = rng.below(4) != 0;
        // A response: an outstanding load in any order, or a store acknowledgement.
        let resp = if !at_cache.is_empty() && rng.below(3) != 0 {
            let i = rng.below(at_cache.len() as u64) as usize;
            let tag = at_cache.remove(i);
            Some((tag, 0u32, rng.next() as u32))
        } else if rng.below(8) == 0 {
            Some((0, 1, 7))
        } else {
            None
        };
        if let Some((tag, cmd, data)) = resp {
            inputs.insert("resp_enable".into(), 1);
            inputs.insert("resp_tag".into(), u128::from(tag));
            inputs.insert("resp_cmd".into(), u128::from(cmd));
            inputs.insert("resp_data".into(), u128::from(data));
        }
        let resp_in = resp.filter(|r| r.1 == 0);
        // hella_send (first): the queue's head when the cache is ready.
        let (outs, _, _) = m.eval(&inputs, false);
        let deq = !model.queue.is_empty() && ready;
        assert_eq!(
            outs["head_ready"] != 0,
            !model.queue.is_empty(),
            "cycle {cycle}"
        );
        if deq {
            assert_eq!(
                outs["head_data"],
                model.queue[0].bits(),
                "cycle {cycle}: head"
            );
            inputs.insert("deq_enable".into(), 1);
        }
        let kept = model.queue.len() as u32 - u32::from(deq);
        let (mut e, mut el, mut ec) = (0u32, 0u32, 0u32);
        let mut new: Vec<Entry> = Vec::new();
        let mut port = 0;
        let mut first_port = vec![0usize; shapes.len()];
        for &r in &order {
            first_port[r] = port;
            port += shapes[r].len();
        }
        for &r in &order {
            let sites = &shapes[r];
            let p0 = first_port[r];
            let (outs, _, _) = m.eval(&inputs, false);
            let n = sites.iter().filter(|s| **s != Site::Resp).count() as u32;
            let nl = sites.iter().filter(|s| **s == Site::Load).count() as u32;
            let req_rdy = e + n <= model.lanes && kept + e + n <= model.depth;
            let load_rdy = req_rdy && model.used + el + nl <= model.size;
            let mut resp_rdy = true;
            for j in 0..sites.iter().filter(|s| **s == Site::Resp).count() as u32 {
                let t = (model.head + ec + j) % model.size;
                resp_rdy &= ec + j >= model.used
                    || model.valid[t as usize]
                    || resp_in.is_some_and(|x| x.0 == t);
            }
            for (i, s) in sites.iter().enumerate() {
                let (prefix, rule) = &ports[p0 + i];
                assert_eq!(rule, &format!("r{r}"), "port order");
                let want = match s {
                    Site::Load => load_rdy,
                    Site::Store => req_rdy,
                    Site::Resp => resp_rdy,
                };
                assert_eq!(
                    outs[&format!("{prefix}_ready")] != 0,
                    want,
                    "seed {seed} cycle {cycle}: ready of {prefix} (rule r{r})"
                );
            }
            // The rule fires (if ready) with a random subset of its sites, taking only
            // responses that are due.
            if rng.below(3) == 0 || !(req_rdy && load_rdy && resp_rdy) {
                continue;
            }
            let mut taken_resps = 0;
            let mut fire = Vec::new();
            for s in sites {
                let on = rng.below(3) != 0 && (*s != Site::Resp || ec + taken_resps < model.used);
                if *s == Site::Resp && on {
                    taken_resps += 1;
                }
                fire.push(on);
            }
            let (outs, _, _) = {
                for (i, on) in fire.iter().enumerate() {
                    if *on {
                        let (prefix, _) = &ports[p0 + i];
                        inputs.insert(format!("{prefix}_enable"), 1);
                        let s = sites[i];
                        if s != Site::Resp {
                            let addr = rng.next() as u32;
                            inputs.insert(format!("{prefix}_addr"), u128::from(addr));
                            let data = if s == Site::Store {
                                rng.next() as u32
                            } else {
                                0
                            };
                            if s == Site::Store {
                                inputs.insert(format!("{prefix}_data"), u128::from(data));
                            }
                        }
                    }
                }
                m.eval(&inputs, false)
            };
            for (i, on) in fire.iter().enumerate() {
                if !*on {
                    continue;
                }
                fired_sites += 1;
                let (prefix, _) = &ports[p0 + i];
                match sites[i] {
                    Site::Resp => {
                        let t = ((model.head + ec) % model.size) as usize;
                        let want = if model.valid[t] {
                            model.data[t]
                        } else {
                            resp_in.expect("a due response arrives").2
                        };
                        assert_eq!(
                            outs[&format!("{prefix}_data")],
                            u128::from(want),
                            "seed {seed} cycle {cycle}: data of {prefix}"
                        );
                        ec += 1;
                    }
                    s => {
                        let store = s == Site::Store;
                        let tag = if store {
                            0
                        } else {
                            (model.alloc + el) % model.size
                        };
                        new.push(Entry {
                            store,
                            tag,
                            addr: inputs[&format!("{prefix}_addr")] as u32,
                            data: if store {
                                inputs[&format!("{prefix}_data")] as u32
                            } else {
                                0
                            },
                        });
                        e += 1;
                        if !store {
                            el += 1;
                        }
                    }
                }
            }
        }
        // hella_bypass (last): an empty queue and a request this cycle.
        let (outs, _, _) = m.eval(&inputs, false);
        let bypass = model.queue.is_empty() && !new.is_empty() && ready;
        assert_eq!(
            outs["first_ready"] != 0,
            model.queue.is_empty() && !new.is_empty(),
            "seed {seed} cycle {cycle}: first_ready"
        );
        let sent = if deq {
            Some(model.queue[0])
        } else if bypass {
            assert_eq!(outs["first_data"], new[0].bits(), "cycle {cycle}: first");
            inputs.insert("bypass_enable".into(), 1);
            Some(new[0])
        } else {
            None
        };
        if let Some(s) = sent
            && !s.store
        {
            at_cache.push(s.tag);
        }
        // The edge.
        let (_, _, next) = m.eval(&inputs, false);
        m.regs = next;
        model.queue.drain(..usize::from(deq));
        model
            .queue
            .extend(new.into_iter().skip(usize::from(bypass)));
        if let Some((tag, _, data)) = resp_in
            && tag < model.size
        {
            model.valid[tag as usize] = true;
            model.data[tag as usize] = data;
        }
        for i in 0..model.size {
            if (i + model.size - model.head) % model.size < ec {
                model.valid[i as usize] = false;
            }
        }
        model.head = (model.head + ec) % model.size;
        model.alloc = (model.alloc + el) % model.size;
        model.used = model.used + el - ec;
        // The module's state is the model's.
        assert_eq!(
            m.regs["cnt"].u(),
            model.queue.len() as u128,
            "seed {seed} cycle {cycle}: queue length"
        );
        if let Val::V(q) = &m.regs["q"] {
            for (i, entry) in model.queue.iter().enumerate() {
                assert_eq!(
                    q[i],
                    entry.bits(),
                    "seed {seed} cycle {cycle}: queue entry {i}"
                );
            }
        }
        assert_eq!(
            m.regs["used"].u(),
            u128::from(model.used),
            "cycle {cycle}: used"
        );
    }
    assert!(
        fired_sites > cycles / 2,
        "seed {seed}: the stimulus exercises the sites"
    );
}

#[test]
fn hella_mem_firrtl_agrees_with_the_port_model() {
    use Site::*;
    let shapes: Vec<Vec<Vec<Site>>> = vec![
        vec![vec![Load], vec![Resp]],
        vec![vec![Load, Load], vec![Resp, Resp], vec![Store]],
        vec![
            vec![Store, Load, Resp],
            vec![Load, Load, Load],
            vec![Resp],
            vec![Resp, Resp, Resp],
            vec![Store, Store],
        ],
        vec![
            vec![Load],
            vec![Load],
            vec![Load],
            vec![Resp],
            vec![Resp, Store],
        ],
    ];
    let mut cases = BTreeMap::new();
    for (i, s) in shapes.iter().enumerate() {
        for seed in 1..=4u64 {
            run(seed * 7919 + i as u64, s, 400);
        }
        cases.insert(i, s.len());
    }
    assert_eq!(cases.len(), shapes.len());
}
