//! The rule circuit as a Graphviz DOT graph (`kiln graph`).

use super::{Circuit, Instance, InstanceKind, Rule, Stmt};
use crate::fxhash::FxHashSet;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Graphviz DOT: one cluster per block (rule origin), rules as boxes, FIFOs as ellipses,
/// an edge rule → FIFO for every `enq` and FIFO → rule for every `deq`.
pub fn to_dot(circuit: &Circuit) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", circuit.name);
    out.push_str("  rankdir=LR;\n  node [fontsize=10];\n");
    let mut by_origin: BTreeMap<&str, Vec<&Rule>> = BTreeMap::new();
    for r in &circuit.rules {
        by_origin.entry(r.origin.as_str()).or_default().push(r);
    }
    for (i, (origin, rules)) in by_origin.iter().enumerate() {
        let _ = writeln!(out, "  subgraph cluster_{i} {{\n    label=\"{origin}\";");
        for r in rules {
            let _ = writeln!(out, "    \"{}\" [shape=box];", r.name);
        }
        out.push_str("  }\n");
    }
    for inst in &circuit.instances {
        if let InstanceKind::Fifo { width, .. } = inst.kind {
            let _ = writeln!(
                out,
                "  \"{}\" [shape=ellipse, label=\"{}\\nw{width}\"];",
                inst.name, inst.name
            );
        }
    }
    let mut edges = Edges {
        instances: circuit.instance_index(),
        seen: FxHashSet::default(),
        list: Vec::new(),
    };
    for r in &circuit.rules {
        edges.collect(&r.body, &r.name);
    }
    for e in edges.list {
        let _ = writeln!(out, "  {e}");
    }
    out.push_str("}\n");
    out
}

/// The FIFO edges of [`to_dot`], each once, in the order first met.
struct Edges<'c> {
    instances: super::Instances<'c>,
    seen: FxHashSet<String>,
    list: Vec<String>,
}

impl Edges<'_> {
    fn collect(&mut self, stmts: &[Stmt], rule: &str) {
        for s in stmts {
            match s {
                Stmt::Call { inst, method, .. } => {
                    let is_fifo = matches!(
                        self.instances.get(inst.as_str()),
                        Some(Instance {
                            kind: InstanceKind::Fifo { .. },
                            ..
                        })
                    );
                    if !is_fifo {
                        continue;
                    }
                    let e = if method == "enq" {
                        format!("\"{rule}\" -> \"{inst}\";")
                    } else {
                        format!("\"{inst}\" -> \"{rule}\";")
                    };
                    if self.seen.insert(e.clone()) {
                        self.list.push(e);
                    }
                }
                Stmt::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.collect(then_body, rule);
                    self.collect(else_body, rule);
                }
                _ => {}
            }
        }
    }
}
