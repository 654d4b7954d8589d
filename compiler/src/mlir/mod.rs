//! MLIR textual format: lexer, parser and printer.
//!
//! [`parse`] turns MLIR text into the generic operation tree of [`ast`]; [`print`] writes a
//! tree back in generic form, such that `parse(print(parse(x))) == parse(x)` (ignoring spans).
//! [`split_input_file`] cuts a file at `// -----` lines as `mlir-opt --split-input-file` does.
//!
//! Architecture invariant: parsing is a pure function of the text; bad input yields one
//! [`Diagnostic`] with a byte span, never a panic.

pub mod ast;
pub mod lexer;
pub mod ops;
pub mod parser;
pub mod printer;

use crate::diag::Diagnostic;

/// Parse MLIR text into the generic operation tree; the first error ends the parse.
pub fn parse(text: &str) -> Result<ast::ModuleAst, Diagnostic> {
    parser::Parser::new(text).parse_module()
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
    let mut line_start = 0;
    while line_start < text.len() {
        let line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i + 1);
        if text[line_start..line_end].trim() == "// -----" {
            chunks.push((chunk_start, &text[chunk_start..line_start]));
            chunk_start = line_end;
        }
        line_start = line_end;
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
