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
const REPOSITORIES: &str = include_str!("../../../bazel/repositories.bzl");
const TOOLCHAIN_REPO: &str = include_str!("../../../bazel/toolchain_repo.bzl");
const EXTENSIONS: &str = include_str!("../../../bazel/extensions.bzl");
const EXAMPLE_MODULE: &str = include_str!("../../../examples/bazel/MODULE.bazel");
const EXAMPLE_WORKSPACE: &str = include_str!("../../../examples/bazel/WORKSPACE");
const HW_BUILD: &str = include_str!("../../../examples/bazel/hw/BUILD.bazel");
const E2E_MODULE: &str = include_str!("../../../bazel/e2e/MODULE.bazel");
const E2E_WORKSPACE: &str = include_str!("../../../bazel/e2e/WORKSPACE");
const E2E_BUILD: &str = include_str!("../../../bazel/e2e/BUILD.bazel");
const CHECK_RULES: &str = include_str!("check_bazel_rules.star");

fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// Evaluate the stubs followed by (file, repository, text) sections, their `load`s blanked
/// out (the loaded files are sections too); the record per file.
fn record(sections: &[(&str, &str, &str)]) -> Value {
    let mut program = String::from(BZLMOD_STUBS);
    for (file, repo, text) in sections {
        let (_, body) = split_loads(file, text).unwrap_or_else(|e| panic!("{e}"));
        program.push_str(&format!("\nbegin({file:?}, {repo:?})\n{body}\n"));
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

const MODULE_FILES: [(&str, &str, &str); 3] = [
    ("bazel/MODULE.bazel", "rules_kiln", RULES_MODULE),
    (
        "examples/bazel/MODULE.bazel",
        "kiln_example",
        EXAMPLE_MODULE,
    ),
    ("bazel/e2e/MODULE.bazel", "rules_kiln_e2e", E2E_MODULE),
];

/// Every MODULE.bazel and WORKSPACE, with the `.bzl` files WORKSPACE mode calls into.
fn modules() -> Value {
    for (name, _, text) in MODULE_FILES {
        parse_module_file(name, text).unwrap_or_else(|e| panic!("{e}"));
    }
    let mut sections = MODULE_FILES.to_vec();
    sections.extend([
        ("bazel/WORKSPACE", "rules_kiln", RULES_WORKSPACE),
        ("bazel/BUILD.bazel", "rules_kiln", RULES_BUILD),
        ("bazel/toolchain_repo.bzl", "rules_kiln", TOOLCHAIN_REPO),
        ("bazel/repositories.bzl", "rules_kiln", REPOSITORIES),
        ("bazel/extensions.bzl", "rules_kiln", EXTENSIONS),
        (
            "examples/bazel/WORKSPACE",
            "kiln_example",
            EXAMPLE_WORKSPACE,
        ),
        ("bazel/e2e/WORKSPACE", "rules_kiln_e2e", E2E_WORKSPACE),
    ]);
    record(&sections)
}

#[test]
fn rules_module_declares_rules_kiln_its_dependency_and_toolchain() {
    let rec = modules();
    let rules = "bazel/MODULE.bazel";
    let m = one(&rec, rules, "module");
    assert_eq!(
        (m["name"].as_str(), m["version"].as_str()),
        (Some("rules_kiln"), Some(env!("CARGO_PKG_VERSION"))),
        "the rules' version is kiln's"
    );
    let dep = one(&rec, rules, "bazel_dep");
    assert_eq!(
        (&dep["name"], &dep["version"]),
        (&"bazel_skylib".into(), &"1.0.3".into())
    );
    let ext = one(&rec, rules, "use_extension");
    assert_eq!(
        (&ext["bzl"], &ext["name"]),
        (&"//:extensions.bzl".into(), &"kiln".into())
    );
    assert_eq!(
        one(&rec, rules, "use_repo")["repos"],
        serde_json::json!(["kiln_toolchains"])
    );
    assert_eq!(
        one(&rec, rules, "register_toolchains")["labels"],
        serde_json::json!(["@kiln_toolchains//:toolchain"])
    );
    // The extension makes that repository, whose BUILD has that toolchain of the rules' type.
    assert!(EXTENSIONS.contains("kiln = module_extension("));
    assert!(EXTENSIONS.contains("kiln_toolchain_repository(name = \"kiln_toolchains\""));
    for build in ["_TOOLCHAIN_BUILD", "_MISSING_BUILD"] {
        let at = TOOLCHAIN_REPO.find(&format!("{build} = ")).expect(build);
        let text = &TOOLCHAIN_REPO[at..];
        let text = &text[..text.find("\"\"\"\n\n").expect("template end")];
        assert!(
            text.contains("toolchain(\n    name = \"toolchain\",")
                && text.contains("toolchain_type = \"@rules_kiln//:toolchain_type\","),
            "{build}: {text}"
        );
    }
    // Same name in WORKSPACE mode; the toolchain type and the build settings `defs.bzl` reads.
    assert_eq!(
        one(&rec, "bazel/WORKSPACE", "workspace")["name"],
        "rules_kiln"
    );
    let targets = calls(&rec, "bazel/BUILD.bazel", "target");
    let of = |rule: &str| -> Vec<&str> {
        targets
            .iter()
            .filter(|t| t["rule"] == rule)
            .map(|t| t["name"].as_str().unwrap())
            .collect()
    };
    assert_eq!(of("toolchain_type"), ["toolchain_type"]);
    assert!(DEFS.contains("Label(\"//:toolchain_type\")"));
    let mut flags = [of("string_flag"), of("bool_flag")].concat();
    flags.sort();
    assert_eq!(
        flags,
        [
            "daemon",
            "input_digests",
            "worker_log",
            "worker_multiplex",
            "worker_protocol"
        ]
    );
    assert!(DEFS.contains(&format!("for name in {flags:?}")));
}

/// A module that uses the rules: `bazel_dep` at the rules' version with a
/// `local_path_override` to `bazel/`, and its WORKSPACE declaring the same repository,
/// skylib at the module's version, and the same registered toolchain as bzlmod mode.
fn check_user(rec: &Value, module: &str, workspace: &str, dir: &str) {
    let rules = one(rec, "bazel/MODULE.bazel", "module");
    let dep = calls(rec, module, "bazel_dep")
        .into_iter()
        .find(|d| d["name"] == "rules_kiln")
        .expect("bazel_dep(rules_kiln)");
    assert_eq!(
        dep["version"], rules["version"],
        "{module}: the rules' version"
    );
    assert_eq!(dep["dev_dependency"], false);
    let over = one(rec, module, "local_path_override");
    assert_eq!(over["module_name"], "rules_kiln");
    let path = over["path"].as_str().unwrap();
    assert_eq!(
        std::fs::canonicalize(repo().join(dir).join(path).join("MODULE.bazel")).unwrap(),
        std::fs::canonicalize(repo().join("bazel/MODULE.bazel")).unwrap(),
        "{module}: local_path_override must point at the rules' module"
    );
    let local = one(rec, workspace, "local_repository");
    assert_eq!(
        (&local["name"], &local["path"]),
        (&dep["name"], &over["path"])
    );
    // (Repository rules are recorded with their implementation function.)
    let repos: Vec<_> = calls(rec, workspace, "repository")
        .iter()
        .map(|r| (r["impl"].as_str().unwrap(), r["name"].as_str().unwrap()))
        .collect();
    assert_eq!(repos.len(), 2, "{workspace}: {repos:?}");
    assert!(
        repos[0].0.contains("_skylib_repository_impl") && repos[0].1 == "bazel_skylib",
        "{repos:?}"
    );
    assert!(
        repos[1].0.contains("_kiln_toolchain_repository_impl") && repos[1].1 == "kiln_toolchains",
        "{repos:?}"
    );
    assert!(TOOLCHAIN_REPO.contains("/releases/download/1.0.3/bazel-skylib-1.0.3.tar.gz"));
    assert_eq!(
        one(rec, workspace, "register_toolchains")["labels"],
        one(rec, "bazel/MODULE.bazel", "register_toolchains")["labels"],
        "{workspace}: the toolchain bzlmod mode registers"
    );
}

#[test]
fn example_and_test_module_use_the_rules_alike_in_both_modes() {
    let rec = modules();
    assert_eq!(
        one(&rec, "examples/bazel/MODULE.bazel", "module")["name"],
        "kiln_example"
    );
    assert_eq!(
        one(&rec, "examples/bazel/WORKSPACE", "workspace")["name"],
        "kiln_example"
    );
    check_user(
        &rec,
        "examples/bazel/MODULE.bazel",
        "examples/bazel/WORKSPACE",
        "examples/bazel",
    );
    assert_eq!(
        one(&rec, "bazel/e2e/MODULE.bazel", "module")["name"],
        "rules_kiln_e2e"
    );
    assert_eq!(
        one(&rec, "bazel/e2e/WORKSPACE", "workspace")["name"],
        "rules_kiln_e2e"
    );
    check_user(
        &rec,
        "bazel/e2e/MODULE.bazel",
        "bazel/e2e/WORKSPACE",
        "bazel/e2e",
    );
    // The test module's own dependency on skylib (build_test) is the rules' version.
    let skylib = calls(&rec, "bazel/e2e/MODULE.bazel", "bazel_dep")
        .into_iter()
        .find(|d| d["name"] == "bazel_skylib")
        .expect("bazel_dep(bazel_skylib)");
    assert_eq!(
        skylib["version"],
        one(&rec, "bazel/MODULE.bazel", "bazel_dep")["version"]
    );
}

#[test]
fn build_files_load_the_rules_and_declare_their_targets() {
    let mut sections = vec![("bazel/defs.bzl", "rules_kiln", DEFS.to_string())];
    for (file, text) in [
        ("examples/bazel/hw/BUILD.bazel", HW_BUILD),
        ("bazel/e2e/BUILD.bazel", E2E_BUILD),
    ] {
        let (loads, body) = split_loads(file, text).unwrap();
        for (module, symbols) in &loads {
            // `@rules_kiln` is the repository name of the bazel_dep (and local_repository).
            assert!(
                module == "@rules_kiln//:defs.bzl"
                    || module == "@bazel_skylib//rules:build_test.bzl",
                "{file}: {module}"
            );
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
    let names = |file: &str| -> Vec<String> {
        let mut n: Vec<_> = calls(&rec, file, "target")
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect();
        n.sort();
        n
    };
    assert_eq!(
        names("examples/bazel/hw/BUILD.bazel"),
        [
            "addi",
            "burst",
            "gcd",
            "mux",
            "outputs_test",
            "unit_library"
        ]
    );
    assert_eq!(
        names("bazel/e2e/BUILD.bazel"),
        [
            "add",
            "double",
            "full_adder",
            "full_adder_strict",
            "rules_build",
            "units"
        ]
    );
}

fn check_rules(defs: &str) -> Result<String, String> {
    let (_, defs) = split_loads("defs.bzl", defs)?;
    run(
        "defs.bzl",
        &format!("{BZLMOD_STUBS}\nbegin(\"bazel/defs.bzl\")\n{defs}\n{CHECK_RULES}\n"),
    )
}

#[test]
fn rule_actions_are_hermetic_and_worker_ready() {
    let n = check_rules(DEFS).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        n, "11",
        "actions declared (burst, csr, burst_nosv, mux, mux_json, mux_log, mux_nodigests, mux_lints, mux_start, mux_never, gcd)"
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
