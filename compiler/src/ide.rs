//! Editor support over one text: where names are defined and used — SSA values of a parsed
//! op tree, `@symbols` of an MLIR text, nets and models of a BLIF model — and the op at an
//! offset. Byte offsets throughout; a language server converts them to its positions.
//!
//! The indexes are built per function or per model (position-independent, like the flows'
//! steps), so an editor's daemon rebuilds only the edited item's.

use crate::diag::Span;
use crate::mlir::ast::{Operation, Region};
use serde::{Deserialize, Serialize};

/// What kind of name an occurrence is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NameKind {
    /// `%v` (an SSA value; `%v#1` is a use of `%v`).
    Value,
    /// `@f` (a function, a global).
    Symbol,
    /// A BLIF net.
    Net,
    /// A BLIF model (`.model m`, `.subckt m`).
    Model,
}

/// One occurrence of a name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Occurrence {
    pub kind: NameKind,
    /// With its sigil for MLIR names (`%v`, `@f`).
    pub name: String,
    pub span: Span,
    /// A definition (else a use).
    pub def: bool,
}

/// The occurrences of names in one text, in source order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NameIndex {
    pub occurrences: Vec<Occurrence>,
}

impl NameIndex {
    fn sorted(mut occurrences: Vec<Occurrence>) -> NameIndex {
        occurrences.sort_by_key(|o| (o.span.start, o.span.end));
        NameIndex { occurrences }
    }

    /// The occurrence covering byte `offset` (its end included: a cursor after a name).
    pub fn at(&self, offset: usize) -> Option<&Occurrence> {
        let o = offset as u32;
        let i = self.occurrences.partition_point(|x| x.span.end < o);
        self.occurrences[i..]
            .iter()
            .take_while(|x| x.span.start <= o)
            .find(|x| x.span.start <= o && o <= x.span.end)
    }

    /// The occurrences of `name` of `kind`.
    pub fn of<'a>(&'a self, kind: NameKind, name: &'a str) -> impl Iterator<Item = &'a Occurrence> {
        self.occurrences
            .iter()
            .filter(move |o| o.kind == kind && o.name == name)
    }
}

/// The SSA values of an op tree: results and block arguments are definitions, operands
/// and successor arguments uses. Spans as in the tree.
pub fn values(op: &Operation) -> NameIndex {
    let mut out = Vec::new();
    walk(op, &mut out);
    NameIndex::sorted(out)
}

fn walk(op: &Operation, out: &mut Vec<Occurrence>) {
    let value = |name: &str, span: Span, def: bool| Occurrence {
        kind: NameKind::Value,
        name: name.to_string(),
        span: Span::new(span.start as usize, span.start as usize + name.len()),
        def,
    };
    out.extend(op.results.iter().map(|r| value(&r.name, r.span, true)));
    out.extend(op.operands.iter().map(|o| value(&o.name, o.span, false)));
    for s in &op.successors {
        out.extend(s.args.iter().map(|o| value(&o.name, o.span, false)));
    }
    for Region { blocks, .. } in &op.regions {
        for b in blocks {
            out.extend(b.args.iter().map(|a| value(&a.name, a.span, true)));
            b.ops.iter().for_each(|o| walk(o, out));
        }
    }
}

/// The innermost op of `op`'s tree whose span holds `offset`, with its ancestors' names
/// outermost first.
pub fn op_at(op: &Operation, offset: usize) -> Option<&Operation> {
    let o = offset as u32;
    if !(op.span.start <= o && o <= op.span.end) {
        return None;
    }
    let inner = op
        .regions
        .iter()
        .flat_map(|r| r.blocks.iter())
        .flat_map(|b| b.ops.iter())
        .find_map(|c| op_at(c, offset));
    Some(inner.unwrap_or(op))
}

/// Ops whose line defines the `@symbol` that follows them.
const DEFINING: &[&str] = &[
    "tor.func",
    "func.func",
    "handshake.func",
    "memref.global",
    "hw.module",
    "tor.design",
];

/// The `@symbol` tokens of an MLIR text (outside strings and `//` comments); the first
/// one of a line that starts with a defining op (`tor.func @f`, `memref.global ... @g`) is
/// its definition.
pub fn symbols(text: &str) -> NameIndex {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut line_start, mut first_on_line) = (0, 0, true);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                line_start = i + 1;
                first_on_line = true;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += memchr::memchr(b'\n', &bytes[i..]).unwrap_or(bytes.len() - i);
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'@' => {
                let end = i + 1 + ident_len(&bytes[i + 1..]);
                if end > i + 1 {
                    let line = text[line_start..i].trim_start();
                    let def = first_on_line && DEFINING.iter().any(|d| line.starts_with(d));
                    out.push(Occurrence {
                        kind: NameKind::Symbol,
                        name: text[i..end].to_string(),
                        span: Span::new(i, end),
                        def,
                    });
                    first_on_line = false;
                    i = end;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    NameIndex::sorted(out)
}

fn ident_len(b: &[u8]) -> usize {
    b.iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$' | b'-'))
        .count()
}

/// The nets and models named in one BLIF model's text: `.inputs`, the output of `.names`
/// and `.latch`, and the actuals of a `.subckt` bound to an output of the child (whose
/// outputs `outputs_of` gives, when it knows the child) define nets; every other mention
/// uses one. `.model m` defines `m`; `.subckt m` uses it.
pub fn blif_names(text: &str, outputs_of: &dyn Fn(&str) -> Option<Vec<String>>) -> NameIndex {
    let mut out = Vec::new();
    for line in logical_lines(text) {
        let Some((head, args)) = line.split_first() else {
            continue;
        };
        let name = head.0;
        let net = |(t, s): &(&str, usize), def: bool| Occurrence {
            kind: NameKind::Net,
            name: t.to_string(),
            span: Span::new(*s, s + t.len()),
            def,
        };
        let model = |(t, s): &(&str, usize), def: bool| Occurrence {
            kind: NameKind::Model,
            name: t.to_string(),
            span: Span::new(*s, s + t.len()),
            def,
        };
        match name {
            ".model" => out.extend(args.first().map(|a| model(a, true))),
            ".inputs" => out.extend(args.iter().map(|a| net(a, true))),
            ".outputs" => out.extend(args.iter().map(|a| net(a, false))),
            ".names" => {
                let n = args.len();
                out.extend(args.iter().enumerate().map(|(k, a)| net(a, k + 1 == n)));
            }
            ".latch" => {
                out.extend(args.first().map(|a| net(a, false)));
                out.extend(args.get(1).map(|a| net(a, true)));
                if let Some(c) = args.get(3).filter(|c| c.0 != "NIL") {
                    out.push(net(c, false));
                }
            }
            ".conn" => {
                out.extend(args.first().map(|a| net(a, false)));
                out.extend(args.get(1).map(|a| net(a, true)));
            }
            ".subckt" | ".gate" => {
                let Some(child) = args.first() else { continue };
                out.push(model(child, false));
                let outputs = outputs_of(child.0).unwrap_or_default();
                for &(t, s) in &args[1..] {
                    let Some((formal, actual)) = t.split_once('=') else {
                        continue;
                    };
                    let def = outputs.iter().any(|o| o == formal);
                    out.push(net(&(actual, s + formal.len() + 1), def));
                }
            }
            _ => {}
        }
    }
    NameIndex::sorted(out)
}

/// The `.outputs` of a BLIF model's text.
pub fn blif_outputs(text: &str) -> Vec<String> {
    logical_lines(text)
        .into_iter()
        .filter(|l| l.first().is_some_and(|h| h.0 == ".outputs"))
        .flat_map(|l| l.into_iter().skip(1).map(|t| t.0.to_string()))
        .collect()
}

/// The tokens of each logical line (`\` continues a line; `#` starts a comment), with
/// their byte offsets.
fn logical_lines(text: &str) -> Vec<Vec<(&str, usize)>> {
    let mut lines = Vec::new();
    let mut cur: Vec<(&str, usize)> = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        let body = raw.trim_end_matches(['\n', '\r']);
        let body = body.split('#').next().unwrap_or("");
        let (body, continued) = match body.trim_end().strip_suffix('\\') {
            Some(b) => (b, true),
            None => (body, false),
        };
        let mut pos = 0;
        for tok in body.split_ascii_whitespace() {
            let k = body[pos..].find(tok).map_or(pos, |k| pos + k);
            cur.push((tok, offset + k));
            pos = k + tok.len();
        }
        if !continued && !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
        }
        offset += raw.len();
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_of_a_function() {
        let text = "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  return %0 : i32\n}\n";
        let m = crate::mlir::parse(text).unwrap();
        let idx = values(&m.ops[0]);
        let defs: Vec<_> = idx
            .occurrences
            .iter()
            .filter(|o| o.def)
            .map(|o| o.name.as_str())
            .collect();
        assert_eq!(defs, ["%a", "%0"]);
        let at = text.find("%a,").unwrap();
        let o = idx.at(at + 1).unwrap();
        assert_eq!((o.name.as_str(), o.def), ("%a", false));
        assert_eq!(idx.of(NameKind::Value, "%a").count(), 3);
        let def = idx.of(NameKind::Value, "%0").find(|o| o.def).unwrap();
        assert_eq!(&text[def.span.start as usize..def.span.end as usize], "%0");
    }

    #[test]
    fn symbols_definitions_and_uses() {
        let text = "memref.global \"private\" @g : memref<4xi32>\n// @not_me\ntor.func @f() {\n  %0 = memref.get_global @g : memref<4xi32>\n}\n";
        let idx = symbols(text);
        let all: Vec<_> = idx
            .occurrences
            .iter()
            .map(|o| (o.name.as_str(), o.def))
            .collect();
        assert_eq!(all, [("@g", true), ("@f", true), ("@g", false)]);
    }

    #[test]
    fn blif_nets_and_models() {
        let text = ".model top\n.inputs a b\n.outputs y\n.subckt and2 x=a w=b \\\n  o=t\n.names t y\n1 1\n.end\n";
        let outs = |m: &str| (m == "and2").then(|| vec!["o".to_string()]);
        let idx = blif_names(text, &outs);
        let t: Vec<_> = idx.of(NameKind::Net, "t").map(|o| o.def).collect();
        assert_eq!(t, [true, false]);
        let o = idx.of(NameKind::Net, "t").next().unwrap();
        assert_eq!(&text[o.span.start as usize..o.span.end as usize], "t");
        assert_eq!(idx.of(NameKind::Model, "and2").count(), 1);
        assert_eq!(blif_outputs(text), ["y"]);
    }
}
