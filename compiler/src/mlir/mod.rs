//! MLIR textual format: lexer, parser and printer.
//!
//! `parse` turns MLIR text into the generic operation tree of [`ast`]; `print` writes a tree
//! back in generic form, such that `parse(print(parse(x))) == parse(x)` (ignoring spans).

pub mod ast;
