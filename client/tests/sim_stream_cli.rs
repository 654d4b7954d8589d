//! `kiln sim --commands FILE --engine tor`: the untimed interpreter runs a stream's commands
//! one after another and hands each the scratchpad banks and global registers the one
//! before it left, as the hardware keeps them (the timed engines agree).

mod cli;

use cli::{aps_data, kiln, ok, temp_file};

fn run(stream: &std::path::Path, engine: &str, style: &str) -> serde_json::Value {
    let out = ok(kiln()
        .arg("sim")
        .arg(aps_data("features.mlir"))
        .args(["--commands", stream.to_str().unwrap()])
        .args(["--engine", engine, "--style", style, "--json"]));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `@global_if` with rs1 = 3 adds 3 to global register `@g` (100 at reset) and answers
/// `@g + 1`: three commands answer 104, 107, 110 on tor and on the rule simulator in
/// both styles (a tor run from reset state per command would answer 104 three times).
#[test]
fn a_stream_keeps_global_registers_from_one_command_to_the_next() {
    let stream = r#"[{"func": "global_if", "rs1": 3, "rd": 1},
 {"func": "global_if", "rs1": 3, "rd": 2},
 {"func": "global_if", "rs1": 3, "rd": 3}]"#;
    let (_d, f) = temp_file("stream.json", stream);
    let want = serde_json::json!([
        {"rd": 1, "value": 104},
        {"rd": 2, "value": 107},
        {"rd": 3, "value": 110}
    ]);
    for style in ["fsm", "fifo"] {
        for engine in ["tor", "rules"] {
            let r = run(&f, engine, style);
            assert_eq!(r["responses"], want, "{engine} ({style}): {r}");
        }
    }
}
