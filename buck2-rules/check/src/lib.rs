//! Evaluates Buck2 `.bzl` files with the `starlark` interpreter Buck2 embeds, against stub
//! Buck2 globals written in Starlark (`stubs.star`).
//!
//! Buck2 itself cannot run here, so this checks what the interpreter can: the rules parse
//! in Buck2's dialect (type annotations included), their names resolve, and their `impl`
//! functions, called with a fake `AnalysisContext`, declare the expected actions and return
//! the expected providers. The stubs record every `ctx.actions.run` call; the check script
//! asserts on them with `fail()`. Attribute coercion, configurations and the real
//! `cmd_args` semantics are outside what stubs can show.

use starlark::environment::{GlobalsBuilder, LibraryExtension, Module};
use starlark::eval::Evaluator;
use starlark::syntax::{AstModule, Dialect, DialectTypes};

/// The stub Buck2 globals (`rule`, `attrs`, providers, `cmd_args`, fake contexts).
pub const STUBS: &str = include_str!("../stubs.star");

/// Evaluate `stubs + rules + check` as one module; `Err` carries the interpreter's
/// diagnostic (syntax error, unresolved name, failed `fail()`).
pub fn evaluate(rules_name: &str, rules: &str, check: &str) -> Result<(), String> {
    let source = format!("{STUBS}\n{rules}\n{check}\n");
    let dialect = Dialect {
        enable_types: DialectTypes::Enable,
        ..Dialect::Extended
    };
    let ast = AstModule::parse(rules_name, source, &dialect).map_err(|e| e.to_string())?;
    let globals = GlobalsBuilder::extended_by(&[
        LibraryExtension::StructType,
        LibraryExtension::Print,
        LibraryExtension::Json,
        LibraryExtension::Typing,
        LibraryExtension::RecordType,
        LibraryExtension::EnumType,
    ])
    .build();
    Module::with_temp_heap(|module| {
        let mut eval = Evaluator::new(&module);
        eval.eval_module(ast, &globals).map(|_| ())
    })
    .map_err(|e| e.to_string())
}
