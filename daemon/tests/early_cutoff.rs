//! Early cutoff, asserted through the per-query-kind execution counters, on in-process
//! builders (the daemon serves every request with the same builder).

mod common;

use common::count;
use kiln_daemon::build::Builder;
use kiln_daemon::build::{LARGE, Spares};
use kiln_daemon::request::BuildSpec;
use std::fs;

#[test]
fn flow_burst_add_matches_the_whole_module_flow() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("flow_burst_add.mlir");
    fs::copy(common::data("aps/flow_burst_add.mlir"), &src).unwrap();
    let spec = common::spec(&src, dir.path());
    let reply = Builder::in_process(None).build(&spec);
    assert!(reply.ok(), "{}", reply.rendered());
    let module = compiler::mlir::parse(&fs::read_to_string(&src).unwrap()).unwrap();
    let circuit = compiler::aps::build_file_circuit(
        "flow_burst_add",
        compiler::aps::build_module(&module).unwrap(),
    );
    let out = |s: &str| fs::read_to_string(dir.path().join("out").join(s)).unwrap();
    assert_eq!(
        out("flow_burst_add.cmt2.mlir"),
        compiler::rules::emit_cmt2(&circuit)
    );
    assert_eq!(
        out("flow_burst_add.rules.json"),
        compiler::rules::to_json(&circuit)
    );
}

/// A bank's ports follow its rules' calls ([`compiler::flow::aps::frame_of`] keeps them):
/// an edit that removes a read of a bank, or adds one, rebuilds the bank's module with its
/// ports, byte for byte the whole-file flow.
#[test]
fn an_edit_of_a_bank_read_rebuilds_the_bank_ports() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("gen.mlir");
    let three = fs::read_to_string(common::data("aps/bank_three_reads.mlir")).unwrap();
    let line = three
        .lines()
        .find(|l| l.contains("%r2 = aps.memload"))
        .unwrap();
    let two = three.replacen(&format!("{line}\n"), "", 1);
    let spec = common::spec(&src, dir.path());
    let builder = Builder::in_process(None);
    let port = "@read.inst2b00_loop_1_loop_block_0_slot_6_rule.2 :";
    for (t, ports) in [(&three, 1), (&two, 0), (&three, 1)] {
        fs::write(&src, t).unwrap();
        let reply = builder.build(&spec);
        assert!(reply.ok(), "{}", reply.rendered());
        let out = fs::read_to_string(dir.path().join("out/gen.cmt2.mlir")).unwrap();
        assert!(out == whole_file(t, compiler::flow::OutputKind::Cmt2));
        assert_eq!(out.matches(port).count(), ports);
    }
}

/// The outputs assembled from per-function parts equal the whole-file flow
/// (`compiler::flow::aps::build`) on a generated module, also after an edit; with spares
/// made on the first rewrite or prepared ahead in the background (as the daemon does).
#[test]
fn generated_module_matches_the_whole_file_flow() {
    generated_module_matches_with(Spares::OnRewrite);
    generated_module_matches_with(Spares::Ahead);
}

/// The whole-file flow's output `kind` of `text`, as one text.
fn whole_file(text: &str, kind: compiler::flow::OutputKind) -> String {
    let outcome = compiler::flow::aps::build(text, "gen", None, &compiler::limits::Limits::DEFAULT);
    let pieces = outcome.output(kind).expect("the flow builds");
    String::from_utf8(pieces.concat()).unwrap()
}

fn generated_module_matches_with(spares: Spares) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("gen.mlir");
    let text = compiler::aps::workload::generate(40, 7);
    let spec = BuildSpec {
        inputs: vec![src.clone()],
        out_dir: dir.path().join("out"),
        digests: true,
        ..BuildSpec::default()
    };
    let builder = Builder::new(None, None, spares);
    // Edits of one function and then another, and back: after the first edit the large
    // outputs are rewritten in place in their spares (from the first changed function on).
    let edit = |t: &str, f: &str, from: &str, to: &str| {
        let f = t.find(f).unwrap();
        let k = f + t[f..].find(from).unwrap();
        format!("{}{to}{}", &t[..k], &t[k + from.len()..])
    };
    let e1 = edit(&text, "tor.func @f20(", "tor.addi ", "tor.subi  ");
    let e2 = edit(&e1, "tor.func @f5(", "tor.addi ", "tor.muli ");
    let e3 = edit(&e2, "tor.func @f33(", "\n", " // edited\n");
    let e4 = edit(&e3, "tor.func @f20(", "tor.subi  ", "tor.addi ");
    for t in [&text, &e1, &e2, &e3, &e4, &e1] {
        fs::write(&src, t).unwrap();
        let reply = builder.build(&spec);
        assert!(reply.ok(), "{}", reply.rendered());
        use compiler::flow::OutputKind::{Cmt2, RulesJson};
        let out = |s: &str| fs::read_to_string(dir.path().join("out").join(s)).unwrap();
        assert!(out("gen.cmt2.mlir") == whole_file(t, Cmt2), "cmt2 differs");
        assert!(
            out("gen.rules.json") == whole_file(t, RulesJson),
            "json differs"
        );
        for f in &reply.files {
            let bytes = fs::read(&f.path).unwrap();
            assert_eq!(f.sha256, Some(kiln_cache::digest(&bytes)));
        }
    }
    assert!(whole_len(&dir.path().join("out/gen.cmt2.mlir")) >= LARGE);
    assert!(
        dir.path()
            .join("out/.kiln-spare/gen.cmt2.mlir.spare")
            .is_file()
    );
}

fn whole_len(p: &std::path::Path) -> usize {
    fs::metadata(p).unwrap().len() as usize
}

#[test]
fn edits_recompute_only_what_they_touch() {
    // 512 functions: the most one RISC-V design holds (4 custom opcodes × 128 funct7).
    let n = 512;
    let common::Generated {
        dir,
        src,
        text,
        spec,
    } = common::generated_input("big.mlir", n);
    let ws = Builder::in_process(None);
    let reply = ws.build(&spec);
    assert!(reply.ok(), "{}", reply.rendered());
    let d = reply.counts;
    assert_eq!(count(&d, "segmentation"), n as u64);
    let blocks_per_fn = count(&d, "handler") / n as u64;
    assert!(blocks_per_fn >= 2);

    // No-op rebuild: nothing executes.
    let noop = ws.build(&spec).counts;
    assert!(noop.values().all(|c| c.executions == 0), "{noop:?}");

    // A comment: no segmentation, no handler.
    fs::write(
        &src,
        text.replace("// function 500\n", "// function 500, edited\n"),
    )
    .unwrap();
    let d = ws.build(&spec).counts;
    assert_eq!(count(&d, "segmentation"), 0, "{d:?}");
    assert_eq!(count(&d, "handler"), 0, "{d:?}");
    assert_eq!(count(&d, "parse"), 0, "{d:?}");
    assert_eq!(count(&d, "emit_function"), 0, "{d:?}");

    // One function body: exactly one segmentation, handlers only for its blocks.
    let (edited, _) = common::rename_op(&text, "f500");
    fs::write(&src, &edited).unwrap();
    let d = common::build_counted(&ws, &spec);
    assert_eq!(count(&d, "parse"), 1, "{d:?}");
    assert_eq!(count(&d, "segmentation"), 1, "{d:?}");
    assert!(count(&d, "handler") >= 1, "{d:?}");
    assert!(count(&d, "handler") <= blocks_per_fn, "{d:?}");
    assert_eq!(count(&d, "assemble"), 1, "{d:?}");
    assert_eq!(
        count(&d, "emit_function"),
        1,
        "only its rules are re-emitted: {d:?}"
    );

    // The incremental result equals a cold build of the edited file.
    let cold_dir = tempfile::tempdir().unwrap();
    let cold_spec = BuildSpec {
        out_dir: cold_dir.path().to_path_buf(),
        ..spec.clone()
    };
    Builder::in_process(None).build(&cold_spec);
    for name in ["big.cmt2.mlir", "big.rules.json"] {
        assert_eq!(
            fs::read(dir.path().join("out").join(name)).unwrap(),
            fs::read(cold_dir.path().join(name)).unwrap(),
            "{name}"
        );
    }
}

/// What `kiln aig` writes for a BLIF text: the whole file lowered at once.
fn whole_file_aig(text: &str) -> Vec<u8> {
    let parsed = compiler::blif::parse(text).unwrap();
    let mut lowered = compiler::aig::lower_file(&parsed.file).unwrap();
    let top = lowered.top.clone();
    compiler::aig::write_aiger_binary(&lowered.models.remove(&top).unwrap().aig)
}

fn blif_library_edit(lib: &std::path::Path, check_every: usize) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("lib");
    common::copy_tree(lib, &root);
    let spec = common::spec(&root, dir.path());
    let ws = Builder::in_process(None);
    let reply = ws.build(&spec);
    assert!(reply.ok(), "{}", reply.rendered());
    assert!(!reply.files.is_empty());

    // Model-by-model lowering equals whole-file lowering, byte for byte.
    for f in reply.files.iter().step_by(check_every) {
        let out = f.path.as_path();
        let rel = out.strip_prefix(dir.path().join("out")).unwrap();
        let src = root.join(rel).with_extension("blif");
        let text = fs::read_to_string(&src).unwrap();
        assert_eq!(
            fs::read(out).unwrap(),
            whole_file_aig(&text),
            "{}",
            f.path.display()
        );
    }

    // Edit one file (one model): exactly one AIG is recomputed.
    let victim = root.join("addi/4/addi.blif");
    let text = fs::read_to_string(&victim).unwrap();
    fs::write(&victim, format!("# edited\n{text}")).unwrap();
    let d = ws.build(&spec).counts;
    assert_eq!(count(&d, "aig"), 0, "a comment changes no model: {d:?}");

    // Flip the first cover row that starts with `1`.
    let k = text.find("\n1").unwrap();
    let edited = format!("{}\n0{}", &text[..k], &text[k + 2..]);
    fs::write(&victim, &edited).unwrap();
    let d = common::build_counted(&ws, &spec);
    assert_eq!(count(&d, "aig"), 1, "{d:?}");
    assert_eq!(count(&d, "blif_models"), 1, "{d:?}");
    let out = dir.path().join("out/addi/4/addi.aig");
    assert_eq!(fs::read(out).unwrap(), whole_file_aig(&edited));
}

#[test]
fn editing_one_library_file_recomputes_one_aig() {
    blif_library_edit(&common::data("daemon/blif_lib"), 1);
}

#[test]
fn editing_one_file_of_the_dynamatic_library_recomputes_one_aig() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    blif_library_edit(&shared.join("dynamatic_blif/library"), 50);
}

/// An edit that changes a function's length (a longer line in its body) leaves the design
/// context as it was: the context is not re-parsed, the other functions are not looked at
/// again, and the outputs equal a cold build's.
#[test]
fn a_longer_function_body_keeps_the_design_context() {
    let g = common::input("gen.mlir", compiler::aps::workload::generate(60, 11));
    let ws = g.built();
    let (edited, _) = common::replace_in_function(&g.text, "f30", "tor.addi ", "tor.subi  ");
    assert_ne!(edited.len(), g.text.len());
    fs::write(&g.src, &edited).unwrap();
    let d = common::build_counted(&ws, &g.spec);
    assert_eq!(count(&d, "context"), 0, "{d:?}");
    assert_eq!(count(&d, "segmentation"), 1, "{d:?}");
    assert_eq!(count(&d, "function_text"), 1, "{d:?}");
    use compiler::flow::OutputKind::{Cmt2, RulesJson};
    let out = |s: &str| fs::read_to_string(g.dir.path().join("out").join(s)).unwrap();
    assert!(
        out("gen.cmt2.mlir") == whole_file(&edited, Cmt2),
        "cmt2 differs"
    );
    assert!(
        out("gen.rules.json") == whole_file(&edited, RulesJson),
        "json differs"
    );
}

/// An error in the design context after the functions is reported once (not once more per
/// function), at its place in the file, and leaves the previous outputs in place.
#[test]
fn a_design_context_error_is_reported_once_where_it_is() {
    let g = common::input("gen.mlir", compiler::aps::workload::generate(8, 2));
    let ws = g.built();
    let cmt2 = fs::read(g.dir.path().join("out/gen.cmt2.mlir")).unwrap();
    // Just before the design's closing brace, after every function.
    let close = g.text.trim_end().trim_end_matches('}').trim_end().len() - 1;
    let bad = "    %zz = arith.constant 1 : i99x\n";
    let line = g.text[..close].lines().count();
    let edited = format!("{}{bad}{}", &g.text[..close - 2], &g.text[close - 2..]);
    assert!(edited[..edited.find("%zz").unwrap()].ends_with("\n    "));
    fs::write(&g.src, &edited).unwrap();
    for ws in [&ws, &Builder::in_process(None)] {
        let reply = ws.build(&g.spec);
        assert!(!reply.ok());
        let rendered = reply.rendered();
        assert_eq!(rendered.matches("error:").count(), 1, "{rendered}");
        let at = format!("gen.mlir:{line}:30: error: expected type");
        assert!(rendered.contains(&at), "want {at} in:\n{rendered}");
        assert!(rendered.contains("i99x"), "{rendered}");
    }
    assert_eq!(
        fs::read(g.dir.path().join("out/gen.cmt2.mlir")).unwrap(),
        cmt2
    );
}
