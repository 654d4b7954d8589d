//! The Bazel side that Bazel 4.2.3 cannot load (it has no bzlmod): `MODULE.bazel` of the
//! rules and of the example, parsed in Bazel's restricted MODULE dialect and evaluated with
//! stub bzlmod globals, asserting what they declare and that it agrees with the WORKSPACE
//! setup CI builds with and with the BUILD files (the registered toolchain exists and has
//! the rules' toolchain type; the repository name the BUILD files load from is the module's
//! dependency). The rules' implementations (`bazel/defs.bzl`, loaded in both modes) are
//! called with fake contexts: the actions they declare are hermetic and worker-ready.

use kiln_buck2_check::{BZLMOD_STUBS, parse_module_file, run, split_loads};
use serde_json::Value;
use std::path::Path;

const RULES_MODULE: &str = include_str!("../../../bazel/MODULE.bazel");
const RULES_WORKSPACE: &str = include_str!("../../../bazel/WORKSPACE");
const RULES_BUILD: &str = include_str!("../../../bazel/BUILD.bazel");
const DEFS: &str = include_str!("../../../bazel/defs.bzl");
const EXAMPLE_MODULE: &str = include_str!("../../../examples/bazel/MODULE.bazel");
const EXAMPLE_WORKSPACE: &str = include_str!("../../../examples/bazel/WORKSPACE");
const TOOLS_BUILD: &str = include_str!("../../../examples/bazel/tools/BUILD.bazel");
const HW_BUILD: &str = include_str!("../../../examples/bazel/hw/BUILD.bazel");
const CHECK_RULES: &str = include_str!("check_bazel_rules.star");

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Evaluate the stubs followed by (file, repository, text) sections; the record per file.
fn record(sections: &[(&str, &str, &str)]) -> Value {
    let mut program = String::from(BZLMOD_STUBS);
    for (file, repo, text) in sections {
        program.push_str(&format!("\nbegin({file:?}, {repo:?})\n{text}\n"));
    }
    program.push_str("\njson.encode(RECORD)\n");
    let json = run("bazel-files", &program).unwrap_or_else(|e| panic!("{e}"));
    serde_json::from_str(&json).unwrap()
}

/// The calls of one kind in a file's record.
fn calls<'a>(rec: &'a Value, file: &str, kind: &str) -> Vec<&'a Value> {
    rec[file]
        .as_array()
        .unwrap_or_else(|| panic!("no record for {file}"))
        .iter()
        .filter(|c| c["kind"] == kind)
        .collect()
}

fn one<'a>(rec: &'a Value, file: &str, kind: &str) -> &'a Value {
    let c = calls(rec, file, kind);
    assert_eq!(c.len(), 1, "{file}: expected one {kind}: {c:?}");
    c[0]
}

fn modules() -> Value {
    for (name, text) in [
        ("bazel/MODULE.bazel", RULES_MODULE),
        ("examples/bazel/MODULE.bazel", EXAMPLE_MODULE),
    ] {
        parse_module_file(name, text).unwrap_or_else(|e| panic!("{e}"));
    }
    record(&[
        ("bazel/MODULE.bazel", "rules_kiln", RULES_MODULE),
        ("bazel/WORKSPACE", "rules_kiln", RULES_WORKSPACE),
        ("bazel/BUILD.bazel", "rules_kiln", RULES_BUILD),
        (
            "examples/bazel/MODULE.bazel",
            "kiln_example",
            EXAMPLE_MODULE,
        ),
        (
            "examples/bazel/WORKSPACE",
            "kiln_example",
            EXAMPLE_WORKSPACE,
        ),
    ])
}

#[test]
fn rules_module_declares_rules_kiln() {
    let rec = modules();
    let m = one(&rec, "bazel/MODULE.bazel", "module");
    assert_eq!(
        (m["name"].as_str(), m["version"].as_str()),
        (Some("rules_kiln"), Some("0.1.0"))
    );
    // Same name in WORKSPACE mode, and the toolchain type `defs.bzl` names exists.
    assert_eq!(
        one(&rec, "bazel/WORKSPACE", "workspace")["name"],
        "rules_kiln"
    );
    let types: Vec<_> = calls(&rec, "bazel/BUILD.bazel", "target")
        .into_iter()
        .filter(|t| t["rule"] == "toolchain_type")
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["toolchain_type"]);
    assert!(DEFS.contains("Label(\"//:toolchain_type\")"));
}

#[test]
fn example_module_depends_on_the_rules_and_registers_its_toolchain() {
    let rec = modules();
    let ex = "examples/bazel/MODULE.bazel";
    let rules = one(&rec, "bazel/MODULE.bazel", "module");
    assert_eq!(one(&rec, ex, "module")["name"], "kiln_example");
    let dep = one(&rec, ex, "bazel_dep");
    assert_eq!(dep["name"], "rules_kiln");
    assert_eq!(
        dep["version"], rules["version"],
        "the dependency names the rules' version"
    );
    assert_eq!(dep["dev_dependency"], false);
    let over = one(&rec, ex, "local_path_override");
    assert_eq!(over["module_name"], "rules_kiln");
    let path = over["path"].as_str().unwrap();
    let target = repo()
        .join("examples/bazel")
        .join(path)
        .join("MODULE.bazel");
    assert_eq!(
        std::fs::canonicalize(&target).unwrap(),
        std::fs::canonicalize(repo().join("bazel/MODULE.bazel")).unwrap(),
        "local_path_override must point at the rules' module"
    );
    let regs = one(&rec, ex, "register_toolchains");
    assert_eq!(
        regs["labels"],
        serde_json::json!(["//tools:kiln_toolchain"])
    );

    // WORKSPACE mode (what CI's Bazel 4 builds with) declares the same things.
    let ws = "examples/bazel/WORKSPACE";
    assert_eq!(one(&rec, ws, "workspace")["name"], "kiln_example");
    let local = one(&rec, ws, "local_repository");
    assert_eq!(
        (&local["name"], &local["path"]),
        (&dep["name"], &over["path"])
    );
    assert_eq!(
        one(&rec, ws, "register_toolchains")["labels"],
        regs["labels"]
    );
}

#[test]
fn build_files_load_the_module_and_define_the_registered_toolchain() {
    let mut sections = vec![("bazel/defs.bzl", "rules_kiln", DEFS.to_string())];
    for (file, text) in [
        ("examples/bazel/tools/BUILD.bazel", TOOLS_BUILD),
        ("examples/bazel/hw/BUILD.bazel", HW_BUILD),
    ] {
        let (loads, body) = split_loads(file, text).unwrap();
        for (module, symbols) in &loads {
            // `@rules_kiln` is the repository name of the bazel_dep (and local_repository).
            assert_eq!(module, "@rules_kiln//:defs.bzl", "{file}");
            assert!(
                symbols.iter().all(|s| !s.starts_with('_')),
                "{file}: {symbols:?}"
            );
        }
        sections.push((file, "kiln_example", body));
    }
    let refs: Vec<(&str, &str, &str)> = sections
        .iter()
        .map(|(f, r, t)| (*f, *r, t.as_str()))
        .collect();
    let rec = record(&refs);
    let targets = |file: &str| calls(&rec, file, "target");
    let tools = targets("examples/bazel/tools/BUILD.bazel");
    // `//tools:kiln_toolchain` (registered above) is a toolchain of the rules' type whose
    // implementation is a kiln_toolchain target of the same package.
    let tc = tools
        .iter()
        .find(|t| t["name"] == "kiln_toolchain")
        .expect("//tools:kiln_toolchain");
    assert_eq!(tc["rule"], "toolchain");
    assert_eq!(
        tc["attrs"]["toolchain_type"],
        "@rules_kiln//:toolchain_type"
    );
    let imp = tc["attrs"]["toolchain"]
        .as_str()
        .unwrap()
        .trim_start_matches(':');
    let imp = tools
        .iter()
        .find(|t| t["name"] == imp)
        .expect("toolchain impl");
    assert_eq!(imp["rule"], "starlark");
    assert_eq!(imp["attrs"]["kiln"], "kiln");
    let mut hw: Vec<_> = targets("examples/bazel/hw/BUILD.bazel")
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    hw.sort();
    assert_eq!(
        hw,
        [
            "addi",
            "burst",
            "gcd",
            "mux",
            "outputs_test",
            "unit_library"
        ]
    );
}

fn check_rules(defs: &str) -> Result<String, String> {
    run(
        "defs.bzl",
        &format!("{BZLMOD_STUBS}\nbegin(\"bazel/defs.bzl\")\n{defs}\n{CHECK_RULES}\n"),
    )
}

#[test]
fn rule_actions_are_hermetic_and_worker_ready() {
    let n = check_rules(DEFS).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        n, "7",
        "actions declared (burst, burst_nosv, mux, mux_json, mux_log, mux_nodigests, gcd)"
    );
}

#[test]
fn a_rule_kept_off_remote_executors_is_caught() {
    let broken = DEFS.replace(
        "\"supports-workers\": \"1\",",
        "\"supports-workers\": \"1\",\n        \"no-remote\": \"1\",",
    );
    assert_ne!(broken, DEFS);
    let err = check_rules(&broken).unwrap_err();
    assert!(err.contains("`no-remote` keeps the action off"), "{err}");
}

#[test]
fn module_dialect_and_stubs_reject_what_bazel_rejects() {
    let def = "module(name = \"x\")\ndef f():\n    pass\n";
    assert!(parse_module_file("MODULE.bazel", def).is_err());
    let load = "load(\"//:x.bzl\", \"y\")\nmodule(name = \"x\")\n";
    assert!(parse_module_file("MODULE.bazel", load).is_err());
    let run_module = |text: &str| {
        run(
            "MODULE.bazel",
            &format!("{BZLMOD_STUBS}\nbegin(\"MODULE.bazel\")\n{text}\njson.encode(RECORD)\n"),
        )
    };
    let cases = [
        (
            "bazel_dep(name = \"a\")\nmodule(name = \"x\")\n",
            "must be the first call",
        ),
        ("module(name = \"X\")\n", "invalid module name"),
        (
            "module(name = \"x\", version = \"1..0\")\n",
            "invalid version",
        ),
        (
            "module(name = \"x\")\nlocal_path_override(module_name = \"y\", path = \"..\")\n",
            "not a bazel_dep",
        ),
        (
            "module(name = \"x\")\nbazel_dep(name = \"y\", versoin = \"1\")\n",
            "versoin",
        ),
        (
            "module(name = \"x\")\nregister_toolchains(\"tools:t\")\n",
            "not an absolute label",
        ),
    ];
    for (text, want) in cases {
        let err = run_module(text).expect_err(text);
        assert!(err.contains(want), "{text}: {err}");
    }
}
