//! Evaluates Buck2 `.bzl` files with the `starlark` interpreter Buck2 embeds, against stub
//! Buck2 globals written in Starlark (`stubs.star`).
//!
//! Buck2 itself cannot run here, so this checks what the interpreter can: the rules parse
//! in Buck2's dialect (type annotations included), their names resolve, and their `impl`
//! functions, called with a fake `AnalysisContext`, declare the expected actions and return
//! the expected providers. The stubs record every `ctx.actions.run` call; the check script
//! asserts on them with `fail()`. Attribute coercion, configurations and the real
//! `cmd_args` semantics are outside what stubs can show.
//!
//! The same interpreter checks the Bazel side that Bazel 4.2.3 cannot load (bzlmod):
//! [`parse_module_file`] parses a `MODULE.bazel` in the restricted dialect Bazel uses for
//! it (no `def`, `lambda` or `load`), and [`run`] evaluates a program made of the stub
//! Bazel/bzlmod globals ([`BZLMOD_STUBS`]) followed by MODULE.bazel, WORKSPACE, BUILD and
//! `.bzl` texts, returning the JSON of what they declared.

use starlark::environment::{GlobalsBuilder, LibraryExtension, Module};
use starlark::eval::Evaluator;
use starlark::syntax::{AstModule, Dialect, DialectTypes};

/// The stub Buck2 globals (`rule`, `attrs`, providers, `cmd_args`, fake contexts).
pub const STUBS: &str = include_str!("../stubs.star");

/// The stub Bazel and bzlmod globals (`module`, `bazel_dep`, `rule`, `attr`, ...).
pub const BZLMOD_STUBS: &str = include_str!("../bzlmod_stubs.star");

/// Parse a `MODULE.bazel` as Bazel does: plain Starlark without `def`, `lambda` or `load`.
pub fn parse_module_file(name: &str, text: &str) -> Result<(), String> {
    let dialect = Dialect {
        enable_def: false,
        enable_lambda: false,
        enable_load: false,
        enable_keyword_only_arguments: false,
        enable_positional_only_arguments: false,
        enable_types: DialectTypes::Disable,
        enable_load_reexport: false,
        enable_top_level_stmt: true,
        enable_f_strings: false,
        ..Dialect::Standard
    };
    AstModule::parse(name, text.to_owned(), &dialect)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// One `load` statement: the module and the symbols it loads.
pub type Load = (String, Vec<String>);

/// The `load` statements of a BUILD or `.bzl` file, and the text with them blanked out (so
/// it can follow the stubs and the loaded file in one program).
pub fn split_loads(name: &str, text: &str) -> Result<(Vec<Load>, String), String> {
    let ast =
        AstModule::parse(name, text.to_owned(), &Dialect::Extended).map_err(|e| e.to_string())?;
    let loads = ast
        .loads()
        .iter()
        .map(|l| {
            let syms = l.symbols.values().map(|s| s.to_string()).collect();
            (l.module_id.to_string(), syms)
        })
        .collect();
    let mut out = String::new();
    let mut in_load = false;
    for line in text.lines() {
        if line.starts_with("load(") {
            in_load = true;
        }
        if in_load {
            in_load = !line.trim_end().ends_with(')');
            out.push('\n');
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok((loads, out))
}

/// Evaluate one program (Buck2's dialect, extended globals); returns the value of its
/// last expression statement as a string (the stubs' programs end with
/// `json.encode(RECORD)`).
pub fn run(name: &str, program: &str) -> Result<String, String> {
    let dialect = Dialect {
        enable_types: DialectTypes::Enable,
        ..Dialect::Extended
    };
    let ast = AstModule::parse(name, program.to_owned(), &dialect).map_err(|e| e.to_string())?;
    Module::with_temp_heap(|module| {
        let mut eval = Evaluator::new(&module);
        eval.eval_module(ast, &globals()).map(|v| v.to_str())
    })
    .map_err(|e| e.to_string())
}

fn globals() -> starlark::environment::Globals {
    GlobalsBuilder::extended_by(&[
        LibraryExtension::StructType,
        LibraryExtension::Print,
        LibraryExtension::Json,
        LibraryExtension::Typing,
        LibraryExtension::RecordType,
        LibraryExtension::EnumType,
    ])
    .build()
}

/// Evaluate `stubs + rules + check` as one module; `Err` carries the interpreter's
/// diagnostic (syntax error, unresolved name, failed `fail()`).
pub fn evaluate(rules_name: &str, rules: &str, check: &str) -> Result<(), String> {
    let source = format!("{STUBS}\n{rules}\n{check}\n");
    let dialect = Dialect {
        enable_types: DialectTypes::Enable,
        ..Dialect::Extended
    };
    let ast = AstModule::parse(rules_name, source, &dialect).map_err(|e| e.to_string())?;
    Module::with_temp_heap(|module| {
        let mut eval = Evaluator::new(&module);
        eval.eval_module(ast, &globals()).map(|_| ())
    })
    .map_err(|e| e.to_string())
}
