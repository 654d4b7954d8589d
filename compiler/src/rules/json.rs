//! The rules JSON: serde's shape of [`Circuit`], written by hand so that a design's JSON
//! can be assembled from per-function pieces (the rules of each function, the head and
//! tail of the merged circuit) without a serde pass over the whole.
//!
//! A pure function of the circuit: equal circuits give byte-identical text, and the text
//! is serde_json's for the same value (a test holds them equal).

use super::emit::rule_capacity;
use super::{Circuit, Expr, PrimOp, Rule, Stmt};

/// The circuit as compact JSON (serde's shape of [`Circuit`]) and a final newline.
pub fn to_json(circuit: &Circuit) -> String {
    let (head, tail) = json_head_tail(circuit);
    let mut out = Vec::with_capacity(json_capacity(circuit));
    out.extend_from_slice(head.as_bytes());
    write_rules_json(&mut out, &circuit.rules);
    out.extend_from_slice(tail.as_bytes());
    String::from_utf8(out).unwrap_or_default()
}

/// What [`to_json`] writes before the first rule and after the last one; the rules go in
/// between, comma-separated.
pub(crate) fn json_head_tail(circuit_without_rules: &Circuit) -> (String, String) {
    let c = circuit_without_rules;
    let mut head = Vec::with_capacity(64 + 96 * c.instances.len());
    head.extend_from_slice(b"{\"name\":");
    let _ = serde_json::to_writer(&mut head, &c.name);
    head.extend_from_slice(b",\"instructions\":");
    let _ = serde_json::to_writer(&mut head, &c.instructions);
    head.extend_from_slice(b",\"instances\":");
    let _ = serde_json::to_writer(&mut head, &c.instances);
    head.extend_from_slice(b",\"rules\":[");
    let names: usize = c.schedule.iter().map(|n| n.len() + 3).sum::<usize>()
        + c.precedence
            .iter()
            .map(|(a, b)| a.len() + b.len() + 8)
            .sum::<usize>();
    let mut tail = Vec::with_capacity(64 + names);
    tail.extend_from_slice(b"],\"precedence\":");
    let _ = serde_json::to_writer(&mut tail, &c.precedence);
    tail.extend_from_slice(b",\"schedule\":");
    let _ = serde_json::to_writer(&mut tail, &c.schedule);
    tail.extend_from_slice(b"}\n");
    let text = |v: Vec<u8>| String::from_utf8(v).unwrap_or_default();
    (text(head), text(tail))
}

/// JSON of each rule, comma-joined (the inside of the `rules` array of [`to_json`]).
pub(crate) fn rules_json(rules: &[Rule]) -> String {
    let mut out = Vec::with_capacity(rules.iter().map(rule_capacity).sum());
    write_rules_json(&mut out, rules);
    String::from_utf8(out).unwrap_or_default()
}

/// Append the JSON of each rule, comma-joined, to `out`: byte for byte what `serde_json`
/// writes for [`Rule`] (checked by tests), without going through serde's data model.
pub(crate) fn write_rules_json(out: &mut Vec<u8>, rules: &[Rule]) {
    for (i, r) in rules.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        rule_json(out, r);
    }
}

fn rule_json(out: &mut Vec<u8>, r: &Rule) {
    out.extend_from_slice(b"{\"name\":");
    json_str(out, &r.name);
    out.extend_from_slice(b",\"origin\":");
    json_str(out, &r.origin);
    out.extend_from_slice(b",\"guard\":");
    match &r.guard {
        None => out.extend_from_slice(b"null"),
        Some((stmts, var)) => {
            out.push(b'[');
            stmts_json(out, stmts);
            out.push(b',');
            json_u128(out, u128::from(*var));
            out.push(b']');
        }
    }
    out.extend_from_slice(b",\"body\":");
    stmts_json(out, &r.body);
    out.push(b'}');
}

/// A JSON array of `items`, each written by `item`.
fn list_json<T>(out: &mut Vec<u8>, items: &[T], item: impl Fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item(out, x);
    }
    out.push(b']');
}

fn stmts_json(out: &mut Vec<u8>, stmts: &[Stmt]) {
    list_json(out, stmts, stmt_json);
}

fn vars_json(out: &mut Vec<u8>, vars: &[u32]) {
    list_json(out, vars, |out, v| json_u128(out, u128::from(*v)));
}

fn stmt_json(out: &mut Vec<u8>, s: &Stmt) {
    match s {
        Stmt::Let { var, width, expr } => {
            out.extend_from_slice(b"{\"let\":{\"var\":");
            json_u128(out, u128::from(*var));
            out.extend_from_slice(b",\"width\":");
            json_u128(out, u128::from(*width));
            out.extend_from_slice(b",\"expr\":");
            match expr {
                Expr::Const(c) => {
                    out.extend_from_slice(b"{\"const\":");
                    json_u128(out, *c);
                    out.push(b'}');
                }
                Expr::Prim(op, args) => {
                    out.extend_from_slice(b"{\"prim\":[");
                    prim_json(out, *op);
                    out.push(b',');
                    vars_json(out, args);
                    out.extend_from_slice(b"]}");
                }
            }
            out.extend_from_slice(b"}}");
        }
        Stmt::Call {
            result,
            inst,
            method,
            args,
        } => {
            out.extend_from_slice(b"{\"call\":{\"result\":");
            match result {
                None => out.extend_from_slice(b"null"),
                Some((var, width)) => {
                    out.push(b'[');
                    json_u128(out, u128::from(*var));
                    out.push(b',');
                    json_u128(out, u128::from(*width));
                    out.push(b']');
                }
            }
            out.extend_from_slice(b",\"inst\":");
            json_str(out, inst);
            out.extend_from_slice(b",\"method\":");
            json_str(out, method);
            out.extend_from_slice(b",\"args\":");
            vars_json(out, args);
            out.extend_from_slice(b"}}");
        }
        Stmt::If {
            cond,
            then_body,
            else_body,
        } => {
            out.extend_from_slice(b"{\"if\":{\"cond\":");
            json_u128(out, u128::from(*cond));
            out.extend_from_slice(b",\"then_body\":");
            stmts_json(out, then_body);
            out.extend_from_slice(b",\"else_body\":");
            stmts_json(out, else_body);
            out.extend_from_slice(b"}}");
        }
    }
}

/// serde's `snake_case` names of the unit variants; `Bits` is a struct variant.
fn prim_json(out: &mut Vec<u8>, op: PrimOp) {
    let name: &[u8] = match op {
        PrimOp::Add => b"\"add\"",
        PrimOp::Sub => b"\"sub\"",
        PrimOp::Mul => b"\"mul\"",
        PrimOp::And => b"\"and\"",
        PrimOp::Or => b"\"or\"",
        PrimOp::Xor => b"\"xor\"",
        PrimOp::Shl => b"\"shl\"",
        PrimOp::ShrU => b"\"shr_u\"",
        PrimOp::ShrS => b"\"shr_s\"",
        PrimOp::Eq => b"\"eq\"",
        PrimOp::Ne => b"\"ne\"",
        PrimOp::Ult => b"\"ult\"",
        PrimOp::Ule => b"\"ule\"",
        PrimOp::Ugt => b"\"ugt\"",
        PrimOp::Uge => b"\"uge\"",
        PrimOp::Slt => b"\"slt\"",
        PrimOp::Sle => b"\"sle\"",
        PrimOp::Sgt => b"\"sgt\"",
        PrimOp::Sge => b"\"sge\"",
        PrimOp::Mux => b"\"mux\"",
        PrimOp::Bits { lo } => {
            out.extend_from_slice(b"{\"bits\":{\"lo\":");
            json_u128(out, u128::from(lo));
            out.extend_from_slice(b"}}");
            return;
        }
        PrimOp::ZExt => b"\"z_ext\"",
        PrimOp::SExt => b"\"s_ext\"",
    };
    out.extend_from_slice(name);
}

fn json_u128(out: &mut Vec<u8>, v: u128) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// A JSON string; names rarely need escapes, and those that do go through `serde_json`.
fn json_str(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        return;
    }
    let _ = serde_json::to_writer(&mut *out, s);
}

fn json_capacity(c: &Circuit) -> usize {
    let head: usize = c.instances.iter().map(|i| 96 + i.name.len()).sum();
    let tail: usize = c.schedule.iter().map(|n| n.len() + 3).sum::<usize>()
        + c.precedence
            .iter()
            .map(|(a, b)| a.len() + b.len() + 8)
            .sum::<usize>();
    head + tail + c.rules.iter().map(rule_capacity).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::emit::tests::odd_rule;

    #[test]
    fn hand_written_rule_json_is_serde_json() {
        let mut rules = vec![odd_rule()];
        for seed in 0..6 {
            let text = crate::aps::workload::generate(5, seed);
            let m = crate::mlir::parse(&text).unwrap();
            for c in crate::aps::build_module(&m).unwrap() {
                rules.extend(c.rules);
            }
        }
        for r in &rules {
            let mut ours = Vec::new();
            write_rules_json(&mut ours, std::slice::from_ref(r));
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(r).unwrap()
            );
        }
        let c = Circuit {
            name: "n\"".into(),
            rules,
            precedence: vec![("a".into(), "b".into())],
            schedule: vec!["a".into()],
            ..Circuit::default()
        };
        assert_eq!(to_json(&c), serde_json::to_string(&c).unwrap() + "\n");
    }
}
