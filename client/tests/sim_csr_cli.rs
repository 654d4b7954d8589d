//! `kiln sim` with CSRs: `--csr NAME=VALUE`, `--commands FILE` (a stream of commands and CPU
//! CSR writes) and `--aps-config FILE` (the SoC's CSR list), on tests/data/aps/csr.mlir. The
//! timed engines agree on a stream field by field (responses, CSR write-backs with their
//! cycles, final CSRs); wrong streams, names and configurations are located errors.

mod cli;
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use cli::{aps_data, fails, kiln, ok, temp_file};

fn run(args: &[&str]) -> serde_json::Value {
    let out = ok(kiln()
        .arg("sim")
        .arg(aps_data("csr.mlir"))
        .args(args)
        .arg("--json"));
    serde_json::from_slice(&out.stdout).unwrap()
}

const STREAM: &str = r#"[{"func": "scale", "rs1": 5},
 {"csr": "cfg", "value": 11},
 {"func": "stamp", "rs1": 9},
 {"func": "status_add", "rs1": 100},
 {"csr": "status", "value": 1000},
 {"func": "scale", "rs1": 2}]"#;

/// The stream's answers on every timed engine: scale keeps the cfg it latched (3) while
/// the CPU writes 11 right after it fired; stamp latches 11 and writes cfg := 9 back (cycle
/// 2); status_add latches status before scale writes it back; the last scale latched 9.
#[test]
fn a_stream_with_csr_writes_is_the_same_on_every_timed_engine() {
    let (_d, f) = temp_file("stream.json", STREAM);
    let f = f.to_str().unwrap();
    let rules = run(&["--commands", f]);
    let values: Vec<i64> = (rules["responses"].as_array().unwrap().iter())
        .map(|r| r["value"].as_i64().unwrap())
        .collect();
    assert_eq!(values, [11, 100, 27, 54], "{rules}");
    assert_eq!(rules["csrs"], serde_json::json!({"cfg": 9, "status": 54}));
    assert_eq!(
        rules["csr_writes"][0],
        serde_json::json!({"cycle": 2, "lane": "cfg", "value": 9})
    );
    let mut engines = vec!["cmt2"];
    if common::have_tool("iverilog") || common::strict() {
        engines.push("rtl");
    }
    for e in engines {
        assert_eq!(run(&["--commands", f, "--engine", e]), rules, "{e}");
    }
    // The untimed interpreter runs the commands one after another: status_add sees scale's
    // write-back (27 + 100).
    let tor = run(&["--commands", f, "--engine", "tor"]);
    assert_eq!(tor["responses"][2]["value"], 127, "{tor}");
    assert_eq!(tor["csrs"], rules["csrs"]);
}

/// `--csr` sets a lane before the command; `--aps-config` gives the lanes, their order,
/// masks and reset values (cfg resets to 9 here, status keeps 16 bits).
#[test]
fn csr_values_and_the_config() {
    let v = run(&["--func", "scale", "--rs1", "5", "--csr", "cfg=7"]);
    assert_eq!(v["responses"][0]["value"], 63);
    let (_d, cfg) = temp_file(
        "aps_config.yaml",
        "csrs:\n  - {id: 0x812, name: spare}\n  - {id: 0x811, name: status, mask: 0xffff}\n  - {id: 0x810, name: cfg, init: 9}\n",
    );
    let c = cfg.to_str().unwrap();
    let v = run(&["--func", "scale", "--rs1", "0x10000", "--aps-config", c]);
    // 0x10000·9 + 4·9 answered; status keeps its low 16 bits.
    assert_eq!(v["responses"][0]["value"], 0x90024);
    assert_eq!(
        v["csrs"],
        serde_json::json!({"cfg": 9, "spare": 0, "status": 0x24})
    );
}

#[test]
fn wrong_csr_inputs_are_errors() {
    let e = fails(
        kiln()
            .arg("sim")
            .arg(aps_data("csr.mlir"))
            .args(["--func", "scale", "--csr", "nope=1"]),
    );
    assert!(
        e.contains("no such CSR lane (its lanes: cfg, status)"),
        "{e}"
    );
    let (_d, bad) = temp_file(
        "s.json",
        r#"[{"func": "scale"}, {"csr": "cfg"}, {"rs1": 3}]"#,
    );
    let e = fails(
        kiln()
            .arg("sim")
            .arg(aps_data("csr.mlir"))
            .arg("--commands")
            .arg(&bad),
    );
    assert!(e.contains("entry 2: expected"), "{e}");
    for (config, want) in [
        (
            "csrs:\n  - {id: 0x811, name: status}\n",
            "`@cfg` has `csr_address` 0x810, which the CSR configuration does not list",
        ),
        (
            "csrs:\n  - {id: 0x810, name: cfg}\n  - {id: 0x810, name: again}\n",
            "c.yaml:3:5: error: a second CSR with id 0x810",
        ),
    ] {
        let (_d, cfg) = temp_file("c.yaml", config);
        let e = fails(
            kiln()
                .arg("sim")
                .arg(aps_data("csr.mlir"))
                .args(["--func", "scale"])
                .arg("--aps-config")
                .arg(&cfg),
        );
        assert!(e.contains(want), "{e}");
    }
}

/// `kiln build --aps-config` (and `aps_config` of kiln.toml): the SystemVerilog top has the
/// configuration's lanes in its order, the same bytes through the daemon and in process;
/// the daemon recomputes when the configuration changes, and a wrong one is a located
/// error.
#[test]
fn build_takes_the_csr_configuration() {
    let d = cli::Daemon::new();
    let src = d.ws().join("src/csr.mlir");
    std::fs::copy(aps_data("csr.mlir"), &src).unwrap();
    std::fs::write(
        d.ws().join("aps_config.yaml"),
        "csrs:\n  - {id: 0x812, name: spare}\n  - {id: 0x811, name: status}\n  - {id: 0x810, name: cfg}\n",
    )
    .unwrap();
    let build = |c: &mut std::process::Command, out: &str, cfg: bool| {
        c.args(["build", "src/csr.mlir", "--emit", "sv", "-o", out]);
        if cfg {
            c.args(["--aps-config", "aps_config.yaml"]);
        }
        ok(c);
        std::fs::read_to_string(d.ws().join(out).join("csr.sv")).unwrap()
    };
    let plain = build(&mut d.kiln(), "plain", false);
    let daemon = build(&mut d.kiln(), "daemon", true);
    let in_process = build(&mut d.kiln_no_daemon(), "in_process", true);
    assert_eq!(daemon, in_process);
    let lanes = |sv: &str| -> Vec<String> {
        (sv.lines())
            .filter_map(|l| l.trim().strip_prefix("input  logic [31:0] csr_"))
            .map(|l| l.trim_end_matches(',').to_string())
            .collect()
    };
    assert_eq!(lanes(&plain), ["cfg_value_res0", "status_value_res0"]);
    assert_eq!(
        lanes(&daemon),
        ["spare_value_res0", "status_value_res0", "cfg_value_res0"]
    );
    assert_eq!(
        build(&mut d.kiln(), "again", false),
        plain,
        "back without it"
    );
    // kiln.toml's aps_config.
    std::fs::write(
        d.ws().join("kiln.toml"),
        "aps_config = \"aps_config.yaml\"\n",
    )
    .unwrap();
    assert_eq!(build(&mut d.kiln_no_daemon(), "toml", false), in_process);
    std::fs::write(d.ws().join("kiln.toml"), "").unwrap();
    std::fs::write(
        d.ws().join("aps_config.yaml"),
        "csrs:\n  - {id: 0x810, name: cfg}\n  - {id: 0x810, name: b}\n",
    )
    .unwrap();
    let e = fails(
        d.kiln()
            .args(["build", "src/csr.mlir", "--aps-config", "aps_config.yaml"]),
    );
    assert!(
        e.contains("aps_config.yaml:3:5: error: a second CSR with id 0x810"),
        "{e}"
    );
}
