//! Shared helpers for the daemon tests: generated APS modules and spec construction.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `tests/data/<rel>` at the repository root.
pub fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(rel)
}

/// An APS module with `n` copies of `flow_burst_add` (`@f0` … `@f{n-1}`, distinct
/// opcode/funct7), separated by comment lines.
pub fn generated_module(n: usize) -> String {
    let base = std::fs::read_to_string(data("aps/flow_burst_add.mlir")).unwrap();
    let start = base.find("    tor.func @flow_burst_add").unwrap();
    let body_end = find_func_end(&base, start);
    let func = &base[start..body_end];
    let mut funcs = String::new();
    for i in 0..n {
        let f = func
            .replace("@flow_burst_add", &format!("@f{i}"))
            .replace("funct7 = 0 : i32", &format!("funct7 = {} : i32", i % 128))
            .replace(
                "opcode = 43 : i32",
                &format!("opcode = {} : i32", 43 + i / 128),
            );
        funcs.push_str(&format!("    // function {i}\n{f}\n"));
    }
    format!("{}{}{}", &base[..start], funcs, &base[body_end + 1..])
}

fn find_func_end(text: &str, start: usize) -> usize {
    let mut depth = 0;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    // The function's attribute dict closes at depth 0 too: stop only at the
                    // body's closing brace, which ends a line.
                    let rest = &text[start + i + 1..];
                    if rest.starts_with('\n') && text[..start + i].ends_with("    ") {
                        return start + i + 1;
                    }
                }
            }
            _ => {}
        }
    }
    panic!("unterminated function")
}
