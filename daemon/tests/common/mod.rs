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
                // RISC-V custom-0..3 (0x0b, 0x2b, 0x5b, 0x7b): 4 × 128 identities.
                &format!("opcode = {} : i32", [43, 11, 91, 123][(i / 128) % 4]),
            );
        funcs.push_str(&format!("    // function {i}\n{f}\n"));
    }
    format!("{}{}{}", &base[..start], funcs, &base[body_end + 1..])
}

/// `text` with the first `tor.addi` of function `@symbol` renamed `tor.subi` (a valid edit
/// of that function only), and the offset of the renamed op.
pub fn rename_op(text: &str, symbol: &str) -> (String, usize) {
    let f = text.find(&format!("tor.func @{symbol}(")).unwrap();
    let k = f + text[f..].find("tor.addi").unwrap();
    let edited = format!("{}tor.subi{}", &text[..k], &text[k + "tor.addi".len()..]);
    (edited, k)
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

/// The shared corpus (`../shared` or `$KILN_SHARED_DIR`): `None` outside CI when absent;
/// under `CI=true` its absence is a failure.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("KILN_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"));
    if dir.is_dir() {
        return Some(dir);
    }
    let strict = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
        || std::env::var("KILN_REQUIRE_EXTERNAL").is_ok_and(|v| v == "1");
    assert!(
        !strict,
        "shared corpus {} is required under CI",
        dir.display()
    );
    eprintln!("skipping: shared corpus {} not present", dir.display());
    None
}

/// Copy a directory tree.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Executions of `kind` in a counter snapshot (0 when it never ran).
pub fn count(s: &kiln_daemon::counters::Snapshot, kind: &str) -> u64 {
    s.get(kind).map_or(0, |c| c.executions)
}

/// A build of `input` into `<dir>/out` with the default output kinds.
pub fn spec(input: &Path, dir: &Path) -> kiln_daemon::spec::BuildSpec {
    kiln_daemon::spec::BuildSpec {
        inputs: vec![input.to_path_buf()],
        out_dir: dir.join("out"),
        ..Default::default()
    }
}
