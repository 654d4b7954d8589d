//! MLIR textual format: lexer, parser and printer.
//!
//! [`parse`] turns MLIR text into the generic operation tree of [`ast`]; [`print`] writes a
//! tree back in generic form, such that `parse(print(parse(x))) == parse(x)` (ignoring spans).
//! [`split_input_file`] cuts a file at `// -----` lines as `mlir-opt --split-input-file` does.
//!
//! Architecture invariant: parsing is a pure function of the text; bad input yields one
//! [`Diagnostic`] with a byte span, never a panic.

pub mod ast;
pub(crate) mod handshake_ops;
pub mod items;
pub(crate) mod lexer;
pub(crate) mod ops;
pub(crate) mod parser;
pub(crate) mod printer;
pub mod split;
pub(crate) mod structural_ops;
#[cfg(any(test, feature = "generators"))]
pub mod synthetic;

use crate::diag::{Code, Diagnostic};
use crate::limits::Limits;

/// Parse MLIR text into the generic operation tree; the first error ends the parse.
pub fn parse(text: &str) -> Result<ast::ModuleAst, Diagnostic> {
    parse_with(text, &Limits::DEFAULT)
}

/// [`parse`] with the widths and result counts of the text checked against `limits`.
/// Errors without a more specific code are syntax errors ([`Code::Syntax`]).
pub fn parse_with(text: &str, limits: &Limits) -> Result<ast::ModuleAst, Diagnostic> {
    parser::Parser::with_limits(text, *limits)
        .parse_module()
        .map_err(|d| d.or_code(Code::Syntax))
}

/// Parse a file that may hold several `// -----`-separated inputs: one tree per chunk, with
/// every span (of trees and diagnostics) relative to the whole `text`. Errors: the first
/// error of each failing chunk.
pub fn parse_split(text: &str) -> Result<Vec<ast::ModuleAst>, Vec<Diagnostic>> {
    parse_split_with(text, &Limits::DEFAULT)
}

/// [`parse_split`] under `limits` (see [`parse_with`]).
pub fn parse_split_with(
    text: &str,
    limits: &Limits,
) -> Result<Vec<ast::ModuleAst>, Vec<Diagnostic>> {
    let mut modules = Vec::new();
    let mut errors = Vec::new();
    for (offset, chunk) in split_input_file(text) {
        match parse_with(chunk, limits) {
            Ok(mut m) => {
                shift_module(&mut m, offset as i64);
                modules.push(m);
            }
            Err(d) => errors.push(d.shifted(offset as i64)),
        }
    }
    if errors.is_empty() {
        Ok(modules)
    } else {
        Err(errors)
    }
}

fn shift_module(m: &mut ast::ModuleAst, delta: i64) {
    if delta == 0 {
        return;
    }
    m.span = m.span.shifted(delta);
    m.ops.iter_mut().for_each(|op| shift_op(op, delta));
}

fn shift_op(op: &mut ast::Operation, delta: i64) {
    op.span = op.span.shifted(delta);
    op.results
        .iter_mut()
        .for_each(|r| r.span = r.span.shifted(delta));
    op.operands
        .iter_mut()
        .for_each(|o| o.span = o.span.shifted(delta));
    op.attrs.iter_mut().for_each(|a| shift_attr(a, delta));
    for region in &mut op.regions {
        region.span = region.span.shifted(delta);
        for block in &mut region.blocks {
            block.span = block.span.shifted(delta);
            block
                .args
                .iter_mut()
                .for_each(|a| a.span = a.span.shifted(delta));
            block.ops.iter_mut().for_each(|o| shift_op(o, delta));
        }
    }
    for succ in &mut op.successors {
        succ.span = succ.span.shifted(delta);
        succ.args
            .iter_mut()
            .for_each(|o| o.span = o.span.shifted(delta));
    }
}

fn shift_attr(a: &mut ast::NamedAttr, delta: i64) {
    a.span = a.span.shifted(delta);
    shift_value(&mut a.value, delta);
}

fn shift_value(v: &mut ast::Attribute, delta: i64) {
    match v {
        ast::Attribute::Dict(entries) => entries.iter_mut().for_each(|e| shift_attr(e, delta)),
        ast::Attribute::Array(items) | ast::Attribute::Dense { elems: items, .. } => {
            items.iter_mut().for_each(|x| shift_value(x, delta))
        }
        _ => {}
    }
}

/// Calls `f` on every operation of `ops`, outer before inner, in source order.
pub fn walk<'a>(ops: &'a [ast::Operation], f: &mut impl FnMut(&'a ast::Operation)) {
    for op in ops {
        f(op);
        for region in &op.regions {
            for block in &region.blocks {
                walk(&block.ops, f);
            }
        }
    }
}

/// What `kiln parse` reports about parsed inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Summary {
    /// `(op name, symbol name)` of every `tor.func`, `handshake.func` and `func.func`.
    pub functions: Vec<(String, String)>,
    /// Operation count per dialect prefix (`builtin` for unqualified names).
    pub ops_per_dialect: std::collections::BTreeMap<String, usize>,
    pub total_ops: usize,
}

pub fn summarize(modules: &[ast::ModuleAst]) -> Summary {
    let mut s = Summary::default();
    for m in modules {
        walk(&m.ops, &mut |op| {
            s.total_ops += 1;
            *s.ops_per_dialect
                .entry(op.dialect().to_string())
                .or_default() += 1;
            if matches!(
                op.name.as_str(),
                "tor.func" | "handshake.func" | "func.func"
            ) {
                let name = op.attr("sym_name").and_then(|a| a.as_str()).unwrap_or("");
                s.functions.push((op.name.to_string(), name.to_string()));
            }
        });
    }
    s
}

/// Print a tree in generic form (see [`printer`]).
pub fn print(m: &ast::ModuleAst) -> String {
    printer::print_module(m)
}

/// Split `text` at lines consisting of `// -----` (surrounding whitespace allowed), as
/// `mlir-opt --split-input-file` does. Each chunk comes with its byte offset in `text`; the
/// marker lines themselves belong to no chunk.
pub fn split_input_file(text: &str) -> Vec<(usize, &str)> {
    let mut chunks = Vec::new();
    let mut chunk_start = 0;
    let mut pos = 0;
    // `/` is rare in MLIR (comments only), and `find(char)` is a fast memchr.
    while let Some(i) = text[pos..].find('/') {
        let at = pos + i;
        pos = at + 1;
        if !text[at..].starts_with("// -----") {
            continue;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        if line_start < chunk_start || text[line_start..line_end].trim() != "// -----" {
            continue;
        }
        chunks.push((chunk_start, &text[chunk_start..line_start]));
        chunk_start = line_end;
        pos = line_end;
    }
    chunks.push((chunk_start, &text[chunk_start..]));
    chunks
}

#[cfg(test)]
mod tests {
    use super::ast::*;
    use super::*;

    fn roundtrip(text: &str) -> ModuleAst {
        let m = parse(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
        let printed = print(&m);
        let again = parse(&printed).unwrap_or_else(|d| panic!("{}", d.render("p", &printed)));
        assert_eq!(again.without_spans(), m.without_spans(), "{printed}");
        m
    }

    fn first_op(m: &ModuleAst) -> &Operation {
        &m.ops[0]
    }

    #[test]
    fn tor_for_maps_bounds_and_induction_variable() {
        let m = roundtrip(
            "tor.for %i = (%a : i32) to (%b : i32) step (%c : i32)\n on (5 to 8){\n} {unroll = 4 : i32}",
        );
        let op = first_op(&m);
        assert_eq!(op.name, "tor.for");
        assert_eq!(op.operands.len(), 3);
        assert_eq!(op.operand_types, vec![Type::int(32); 3]);
        assert_eq!(op.regions[0].blocks[0].args[0].name, "%i");
        assert_eq!(op.attr("starttime").and_then(Attribute::as_int), Some(5));
        assert_eq!(op.attr("endtime").and_then(Attribute::as_int), Some(8));
        assert_eq!(op.attr("unroll").and_then(Attribute::as_int), Some(4));
    }

    #[test]
    fn tor_addi_on_clause_does_not_override_dict() {
        let m =
            roundtrip("%r = tor.addi %a %b on (7 to 8) {starttime = 1 : i32} : (i32, i32) -> i32");
        let op = first_op(&m);
        assert_eq!(op.attr("starttime").and_then(Attribute::as_int), Some(1));
        assert_eq!(op.attr("endtime").and_then(Attribute::as_int), Some(8));
        assert_eq!(op.result_types, vec![Type::int(32)]);
    }

    #[test]
    fn unknown_custom_op_is_located() {
        let e = parse("module {\n  foo.bar %x\n}").unwrap_err();
        assert_eq!(e.message, "unknown operation 'foo.bar' in custom form");
        assert_eq!(e.span, Some(crate::diag::Span::new(11, 18)));
    }

    #[test]
    fn split_input_file_keeps_offsets() {
        let text = "a\n// -----\nb\n  // -----  \nc";
        let chunks = split_input_file(text);
        assert_eq!(chunks, vec![(0, "a\n"), (11, "b\n"), (26, "c")]);
    }
}
