//! The MLIR front end on real inputs: every sample parses (chunk by chunk at `// -----`),
//! prints in generic form and parses back to an equal tree; specific facts about the APS and
//! Handshake samples; malformed inputs give a diagnostic at the recorded line and column.

mod common;

use compiler::diag::{Diagnostic, LineIndex};
use compiler::mlir::{self, ast::*};
use std::path::{Path, PathBuf};

/// Files that are not MLIR (design sketches): the line, column and message of their error.
const NOT_MLIR: &[(&str, usize, usize, &str)] = &[
    (
        "LOWER_TO_CMT2_TOR_TO_CMT2_IMPLEMENTATION_2mlir_simplified.mlir",
        3,
        37,
        "expected ':', found '{'",
    ),
    (
        "LOWER_TO_CMT2_TOR_TO_CMT2_IMPLEMENTATION_planned_cmt2_sketch.mlir",
        3,
        62,
        "expected operation name, found '...'",
    ),
];

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn mlir_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    files
}

fn render(d: &Diagnostic, path: &Path, text: &str) -> String {
    d.render(&path.display().to_string(), text)
}

/// Parse every chunk, check the generic-print round trip; returns the trees.
fn parse_and_roundtrip(path: &Path) -> Vec<ModuleAst> {
    let text = read(path);
    let modules = mlir::parse_split(&text).unwrap_or_else(|ds| {
        let msgs: String = ds.iter().map(|d| render(d, path, &text)).collect();
        panic!("{msgs}")
    });
    for m in &modules {
        let printed = mlir::print(m);
        let again = mlir::parse(&printed).unwrap_or_else(|d| {
            panic!(
                "{}: reparse: {}",
                path.display(),
                d.render("printed", &printed)
            )
        });
        assert_eq!(
            again.without_spans(),
            m.without_spans(),
            "{}: round trip changed the tree",
            path.display()
        );
    }
    modules
}

/// The error of a file that must not parse, as (line, col, message).
fn first_error(path: &Path) -> (usize, usize, String) {
    let text = read(path);
    let errs = match mlir::parse_split(&text) {
        Ok(_) => panic!("{} parsed but must fail", path.display()),
        Err(e) => e,
    };
    let d = &errs[0];
    let span = d.span.expect("located diagnostic");
    let pos = LineIndex::new(&text).position(&text, span.start as usize);
    (pos.line, pos.col, d.message.clone())
}

fn check_corpus(dir: &Path) -> usize {
    let mut n = 0;
    for path in mlir_files(dir) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some((_, line, col, msg)) = NOT_MLIR.iter().find(|(f, ..)| *f == name) {
            let (l, c, m) = first_error(&path);
            assert_eq!((l, c), (*line, *col), "{name}: {m}");
            assert!(m.contains(msg), "{name}: {m}");
            continue;
        }
        let modules = parse_and_roundtrip(&path);
        assert!(
            !modules.is_empty() && modules.iter().all(|m| !m.ops.is_empty()),
            "{name}"
        );
        n += 1;
    }
    n
}

fn ops_named<'a>(m: &'a ModuleAst, name: &str) -> Vec<&'a Operation> {
    let mut out = Vec::new();
    mlir::walk(&m.ops, &mut |op| {
        if op.name == name {
            out.push(op)
        }
    });
    out
}

fn count_ops(m: &ModuleAst) -> usize {
    let mut n = 0;
    mlir::walk(&m.ops, &mut |_| n += 1);
    n
}

#[test]
fn repository_samples_parse_and_roundtrip() {
    assert_eq!(check_corpus(&common::data("mlir/aps")), 6);
    assert_eq!(check_corpus(&common::data("mlir/handshake")), 11);
}

#[test]
fn shared_corpus_parses_and_roundtrips() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    assert!(check_corpus(&shared.join("aps_examples")) >= 6);
    assert_eq!(check_corpus(&shared.join("handshake_examples")), 40);
}

#[test]
fn flow_burst_add_facts() {
    let path = common::data("mlir/aps/LOWER_TO_CMT2_Blockgen_flow_burst_add.mlir");
    let m = &parse_and_roundtrip(&path)[0];
    assert_eq!(count_ops(m), 82);
    let funcs = ops_named(m, "tor.func");
    assert_eq!(funcs.len(), 1);
    let f = funcs[0];
    assert_eq!(
        f.attr("sym_name").and_then(Attribute::as_str),
        Some("flow_burst_add")
    );
    assert_eq!(f.attr("variadic"), Some(&Attribute::Unit));
    assert_eq!(f.attr("opcode").and_then(Attribute::as_int), Some(43));
    assert_eq!(f.attr("scheduled"), Some(&Attribute::Bool(true)));
    let entry = &f.regions[0].blocks[0];
    let arg_names: Vec<&str> = entry.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(arg_names, ["%arg0", "%arg1", "%arg2"]);
    assert!(entry.args.iter().all(|a| a.ty == Type::int(5)));

    let fors = ops_named(m, "tor.for");
    assert_eq!(fors.len(), 1);
    let l = fors[0];
    let operands: Vec<&str> = l.operands.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(operands, ["%c0_i32", "%c3_i32", "%c1_i32"]);
    assert_eq!(l.regions[0].blocks[0].args[0].name, "%arg3");
    assert_eq!(l.attr("starttime").and_then(Attribute::as_int), Some(5));
    assert_eq!(l.attr("endtime").and_then(Attribute::as_int), Some(8));
    assert_eq!(l.attr("unroll").and_then(Attribute::as_int), Some(4));
    assert_eq!(l.regions[0].blocks[0].ops.len(), 20);

    let adds = ops_named(m, "tor.addi");
    assert_eq!(adds.len(), 4);
    assert_eq!(
        adds[0].attr("starttime").and_then(Attribute::as_int),
        Some(7)
    );
    assert_eq!(adds[0].operand_types, vec![Type::int(32); 2]);
    assert_eq!(adds[0].result_types, vec![Type::int(32)]);

    let succs = ops_named(m, "tor.succ");
    assert_eq!(succs.len(), 13);
    assert_eq!(succs[8].attr("name").and_then(Attribute::as_int), Some(9));

    let req = ops_named(m, "aps.itfc.burst_load_req")[0];
    assert_eq!(req.operands.len(), 7);
    assert_eq!(req.operand_types.len(), 7);
    assert_eq!(req.result_types, vec![Type::None]);
    let load = ops_named(m, "aps.memload")[0];
    assert_eq!(load.operands.len(), 2);
    assert_eq!(load.operands[1].name, "%arg3");

    let entries = ops_named(m, "aps.mem_entry");
    assert_eq!(entries.len(), 3);
    let e = entries[1];
    assert_eq!(e.attr("name").and_then(Attribute::as_str), Some("mem_b"));
    assert_eq!(e.attr("base").and_then(Attribute::as_int), Some(64));
    match e.attr("banks") {
        Some(Attribute::Array(banks)) => {
            assert_eq!(banks.len(), 4);
            assert_eq!(banks[0], Attribute::SymbolRef(vec!["mem_b_0".into()]));
        }
        other => panic!("banks: {other:?}"),
    }
    let globals = ops_named(m, "memref.global");
    assert_eq!(globals.len(), 12);
    assert!(
        matches!(globals[0].attr("initial_value"), Some(Attribute::Dense { elems, .. }) if elems.len() == 4)
    );
    assert_eq!(
        globals[4].attr("initial_value"),
        Some(&Attribute::Uninitialized)
    );
    let get = ops_named(m, "memref.get_global")[0];
    assert_eq!(
        get.attr("name"),
        Some(&Attribute::SymbolRef(vec!["mem_a_0".into()]))
    );
    let design = ops_named(m, "tor.design")[0];
    assert_eq!(
        design
            .attr("HoistConstCondIfOp")
            .and_then(Attribute::as_int),
        Some(1)
    );
}

#[test]
fn cordic_and_tor_if_facts() {
    let m = &parse_and_roundtrip(&common::data(
        "mlir/aps/dev_scripts_test_mlir_valid_flow_cordic_unscheduled.mlir",
    ))[0];
    let w = ops_named(m, "scf.while")[0];
    assert_eq!(w.operands.len(), 6);
    assert_eq!(w.result_types.len(), 6);
    assert_eq!(w.regions.len(), 2);
    assert_eq!(w.regions[0].blocks[0].args.len(), 6);
    assert_eq!(w.regions[1].blocks[0].args[5].ty, Type::int(1));
    let ext = ops_named(m, "comb.extract")[0];
    assert_eq!(ext.attr("lowBit").and_then(Attribute::as_int), Some(31));
    let cmp = ops_named(m, "arith.cmpi")[0];
    assert_eq!(
        cmp.attr("predicate"),
        Some(&Attribute::Keyword("slt".into()))
    );
    let ret = ops_named(m, "func.return");
    assert_eq!(ret.len(), 1);
    let wr = ops_named(m, "aps.writerf")[0];
    assert_eq!(wr.operands[1].index, Some(2));

    let m = &parse_and_roundtrip(&common::data(
        "mlir/aps/tests_test_mlir_test_tor_schedule_pass_flow_tor_if_nested.mlir",
    ))[0];
    let tif = ops_named(m, "tor.if")[0];
    assert_eq!(tif.operands[0].name, "%true");
    assert_eq!(tif.regions.len(), 1);
    assert_eq!(tif.attr("endtime").and_then(Attribute::as_int), Some(0));
    assert_eq!(tif.regions[0].blocks[0].ops[1].name, "tor.yield");
}

#[test]
fn handshake_gcd_facts() {
    let m = &parse_and_roundtrip(&common::data("mlir/handshake/export_gcd.mlir"))[0];
    let s = mlir::summarize(std::slice::from_ref(m));
    assert_eq!(
        s.functions,
        vec![("handshake.func".to_string(), "gcd".to_string())]
    );
    let count = |n: &str| ops_named(m, n).len();
    assert_eq!(count("handshake.buffer"), 90);
    assert_eq!(count("handshake.fork"), 30);
    assert_eq!(count("handshake.mux"), 16);
    assert_eq!(count("handshake.cond_br"), 25);
    assert_eq!(count("handshake.control_merge"), 6);
    assert_eq!(count("handshake.end"), 1);
    let f = ops_named(m, "handshake.func")[0];
    assert_eq!(f.regions[0].blocks[0].args.len(), 3);
    let fork = ops_named(m, "handshake.fork")[0];
    assert_eq!(fork.attr("size").and_then(Attribute::as_int), Some(3));
    assert_eq!(fork.result_types.len(), 3);
    let end = ops_named(m, "handshake.end")[0];
    assert_eq!(end.operands.len(), 2);
    assert_eq!(
        end.attr("handshake.name").and_then(Attribute::as_str),
        Some("end0")
    );
    assert_eq!(end.operand_types[1], Type::Control { extra: vec![] });
    let mux = ops_named(m, "handshake.mux")[0];
    assert_eq!(mux.operands.len(), 3);
    assert_eq!(mux.operand_types.len(), 3);
    let cmerge = ops_named(m, "handshake.control_merge")[0];
    assert_eq!(cmerge.result_types[1], channel(Type::int(1), vec![]));
    let buf = ops_named(m, "handshake.buffer")[0];
    assert!(
        matches!(buf.attr("hw.parameters"), Some(Attribute::Dict(d)) if d.iter().any(|a| a.name == "TIMING"))
    );
}

fn channel(data: Type, extra: Vec<ExtraSignal>) -> Type {
    Type::Channel {
        data: Box::new(data),
        extra,
    }
}

#[test]
fn handshake_syntax_variants() {
    let fwd = parse_and_roundtrip(&common::data(
        "mlir/handshake/test_HandshakeOptimizeBitwidths_handshake-forward.mlir",
    ));
    assert_eq!(fwd.len(), 11);
    let buf = fwd
        .iter()
        .flat_map(|m| ops_named(m, "handshake.buffer"))
        .next()
        .expect("a buffer");
    assert_eq!(
        buf.attr("bufferType"),
        Some(&Attribute::Keyword("ONE_SLOT_BREAK_DV".into()))
    );
    assert_eq!(buf.attr("numSlots").and_then(Attribute::as_int), Some(1));
    assert_eq!(buf.attr("dvLatency").and_then(Attribute::as_int), Some(1));
    assert_eq!(buf.result_types, vec![channel(Type::int(32), vec![])]);

    let hist = &parse_and_roundtrip(&common::data("mlir/handshake/export_histogram.mlir"))[0];
    let b = ops_named(hist, "handshake.buffer")
        .into_iter()
        .find(|b| b.attr("bufferType").is_some())
        .expect("buffer with bufferType");
    assert!(b.attr("numSlots").is_some());
    let load = ops_named(hist, "handshake.load")[0];
    assert_eq!(load.operands.len(), 2);
    assert_eq!(load.result_types.len(), 2);
    assert!(
        !ops_named(hist, "handshake.lsq").is_empty()
            || !ops_named(hist, "handshake.mem_controller").is_empty()
    );

    let ops = parse_and_roundtrip(&common::data(
        "mlir/handshake/test_Dialect_Handshake_ops.mlir",
    ));
    assert_eq!(ops.len(), 7);
    let complex = &ops[2];
    let f = ops_named(complex, "handshake.func")[0];
    match &f.regions[0].blocks[0].args[0].ty {
        Type::Channel { extra, .. } => {
            assert_eq!(extra.len(), 3);
            assert!(extra[0].upstream && !extra[1].upstream);
            assert_eq!(extra[1].ty, Type::Float(16));
        }
        t => panic!("{t:?}"),
    }

    // Buffer syntax (c): parameters only inside `hw.parameters`.
    let miter = &parse_and_roundtrip(&common::data("mlir/handshake/elasticmiter_b_lhs.mlir"))[0];
    let b = ops_named(miter, "handshake.buffer")[0];
    match b.attr("hw.parameters") {
        Some(Attribute::Dict(params)) => {
            let ty = params
                .iter()
                .find(|a| a.name == "BUFFER_TYPE")
                .map(|a| &a.value);
            assert_eq!(ty, Some(&Attribute::String("ONE_SLOT_BREAK_DV".into())));
        }
        other => panic!("hw.parameters: {other:?}"),
    }
    assert_eq!(b.result_types, vec![Type::Control { extra: vec![] }]);

    let cmpi = &parse_and_roundtrip(&common::data("mlir/handshake/xlsproc_cmpi.mlir"))[0];
    let c = ops_named(cmpi, "handshake.cmpi")[0];
    assert_eq!(c.attr("predicate"), Some(&Attribute::String("slt".into())));
}

#[test]
fn split_chunks_report_file_positions() {
    let text = "handshake.func @a() {\n  end\n}\n// -----\nhandshake.func @b() {\n  bogus\n}\n";
    let errs = mlir::parse_split(text).unwrap_err();
    assert_eq!(errs.len(), 1);
    let pos = LineIndex::new(text).position(text, errs[0].span.unwrap().start as usize);
    assert_eq!((pos.line, pos.col), (6, 3));
}

/// Each malformed file's first line is `// expect: LINE:COL: message substring`.
#[test]
fn malformed_inputs_are_located() {
    let files = mlir_files(&common::data("mlir/malformed"));
    assert!(files.len() >= 15);
    for path in files {
        let text = read(&path);
        let spec = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect: "))
            .unwrap_or_else(|| panic!("{}: no expectation line", path.display()));
        let mut parts = spec.splitn(3, ':');
        let line: usize = parts.next().unwrap().parse().unwrap();
        let col: usize = parts.next().unwrap().parse().unwrap();
        let msg = parts.next().unwrap().trim();
        let (l, c, m) = first_error(&path);
        assert_eq!((l, c), (line, col), "{}: got {m}", path.display());
        assert!(m.contains(msg), "{}: {m:?} lacks {msg:?}", path.display());
    }
}

/// A custom form's bare-word attribute that names a builtin type (`unbundle i32, ...`,
/// `cmpi i64, ...`, a memory interface `[i8]`) is read as that type, as the generic form
/// it prints to reads it back (the fuzzer found `unbundle i32` printing `{predicate = i32}`,
/// a keyword before and a type after).
#[test]
fn bare_words_naming_types_round_trip() {
    let text = "handshake.func @f(%ctrl: !handshake.control<>) -> !handshake.control<> {
  %valid = unbundle i32, %ctrl [%ready] : <> to _
  %again, %ready = bundle %valid : _ to <>
  end %again : !handshake.control<>
}
";
    let m = compiler::mlir::parse(text).unwrap();
    let printed = compiler::mlir::print(&m);
    let again = compiler::mlir::parse(&printed).unwrap();
    assert_eq!(again.without_spans(), m.without_spans(), "{printed}");
}
