//! Handshake → Synth over the shared corpus with the real unit library:
//! the coverage report over all samples, ABC equivalence of the flat AIG against ABC's own
//! flattening of the hierarchical BLIF, built-in generators against library units, and
//! byte-identical outputs across runs.

mod common;

use compiler::handshake::{
    self, Circuit, Dialect, Impl, LibUnit, Naming, PathTable, UnitRef, aig_io,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The library, each distinct file read and lowered once.
struct Library {
    dir: PathBuf,
    units: BTreeMap<String, Option<(LibUnit, String)>>,
}

impl Library {
    fn new(dir: PathBuf) -> Library {
        Library {
            dir,
            units: BTreeMap::new(),
        }
    }

    fn load(&mut self, rel: &str) -> Option<&(LibUnit, String)> {
        let dir = &self.dir;
        self.units
            .entry(rel.to_string())
            .or_insert_with(|| {
                let text = std::fs::read_to_string(dir.join(rel)).ok()?;
                let unit =
                    compiler::flow::handshake::unit(&text, &compiler::limits::Limits::DEFAULT)
                        .unwrap_or_else(|d| panic!("{rel}: {}", d.render(rel, &text)));
                Some((unit, text))
            })
            .as_ref()
    }
}

struct Prepared {
    circuit: Circuit,
    marks: Vec<UnitRef>,
    units: BTreeMap<String, LibUnit>,
    texts: BTreeMap<String, String>,
}

fn prepare(text: &str, lib: &mut Library) -> Result<Prepared, compiler::diag::Diagnostic> {
    let module = compiler::mlir::parse(text)?;
    let func = handshake::find_func(&module.ops)?;
    let circuit = handshake::analyze(func, Naming::ArgNames)?;
    let marks = handshake::mark::mark_circuit(func, &circuit, &PathTable::default())?;
    let mut units = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for p in handshake::library_paths(&marks) {
        if let Some((u, t)) = lib.load(&p) {
            units.insert(p.clone(), u.clone());
            texts.insert(p, t.clone());
        }
    }
    Ok(Prepared {
        circuit,
        marks,
        units,
        texts,
    })
}

fn samples(shared: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(shared.join("handshake_examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    v.sort();
    v
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn coverage_report_over_all_samples() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut lib = Library::new(shared.join("dynamatic_blif/library"));
    let (mut found, mut builtin, mut fallback, mut failed) = (0, 0, 0, 0);
    let mut per_file = String::new();
    for path in samples(&shared) {
        let text = std::fs::read_to_string(&path).unwrap();
        for (offset, chunk) in compiler::mlir::split_input_file(&text) {
            let name = format!("{}@{offset}", stem(&path));
            match prepare(chunk, &mut lib) {
                Ok(p) => {
                    let rows = handshake::report(&p.circuit, &p.marks, &p.units);
                    let (l, _, b, s) = handshake::build::counts(&rows);
                    per_file.push_str(&format!("{name:<60} {l:>5} {b:>5} {s:>5}\n"));
                    found += l;
                    builtin += b;
                    fallback += s;
                    if name.starts_with("export_gcd") {
                        assert_eq!(
                            s,
                            0,
                            "{name} has subckt fallbacks:\n{}",
                            handshake::report_text(&rows)
                        );
                        assert!(l > 100, "{name}: only {l} library units");
                    }
                }
                Err(d) => {
                    failed += 1;
                    per_file.push_str(&format!("{name:<60} diagnostic: {}\n", d.message));
                }
            }
        }
    }
    let report = format!(
        "{:<60} {:>5} {:>5} {:>5}\n{per_file}coverage: {found} library, {builtin} built-in, {fallback} subckt fallback, {failed} chunks with diagnostics\n",
        "file@chunk", "lib", "blt", "sub"
    );
    println!("{report}");
    assert!(found > 2500 && builtin > 100, "{found} {builtin}");
    // The report is kept in the repository; KILN_BLESS=1 rewrites it.
    let golden = common::data("handshake/coverage.txt");
    if std::env::var("KILN_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&golden, &report).unwrap();
    }
    let want = std::fs::read_to_string(&golden).unwrap_or_default();
    assert!(
        want == report,
        "coverage differs from {} (KILN_BLESS=1 to accept):\n{report}",
        golden.display()
    );
}

/// Runs ABC on (hierarchical BLIF, flat design, sequential) cases: ABC reads and flattens
/// the hierarchy itself, then `dsec` (sequential) or `cec` (combinational) against our flat
/// design; returns ABC's output per case. The hierarchy is read with `-c`: ABC's read check
/// rejects cycles between instances, and connected handshake units always form one (valid
/// flows forward, ready backward); the flattened network itself is acyclic.
fn abc_check(cases: &[(PathBuf, PathBuf, bool)]) -> Vec<String> {
    cases
        .iter()
        .map(|(hier, flat, seq)| {
            let cmd = if *seq { "dsec" } else { "cec" };
            let out = Command::new("berkeley-abc")
                .arg("-c")
                .arg(format!(
                    "read -c {}; strash; {cmd} {}",
                    hier.display(),
                    flat.display()
                ))
                .output()
                .expect("run berkeley-abc");
            String::from_utf8_lossy(&out.stdout).into_owned()
        })
        .collect()
}

fn equivalent(abc: &str) -> bool {
    abc.contains("Networks are equivalent") && !abc.contains("NOT EQUIVALENT")
}

/// The designs of the ABC proof: every export (gcd, gcd_ftd and the benchmarks, whose opaque
/// units are cut points on both sides), every xlsproc and elasticmiter sample.
fn proof_designs(shared: &Path) -> Vec<PathBuf> {
    samples(shared)
        .into_iter()
        .filter(|p| {
            let s = stem(p);
            s.starts_with("export_") || s.starts_with("xlsproc_") || s.starts_with("elasticmiter_")
        })
        .collect()
}

#[test]
fn abc_proves_flat_aig_equals_hierarchical_blif() {
    let Some(shared) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    let mut lib = Library::new(shared.join("dynamatic_blif/library"));
    let tmp = std::env::temp_dir().join(format!("kiln-hs-abc-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut cases = Vec::new();
    let mut names = Vec::new();
    let mut rejected = Vec::new();
    for path in proof_designs(&shared) {
        let text = std::fs::read_to_string(&path).unwrap();
        let p = prepare(&text, &mut lib).unwrap_or_else(|d| panic!("{}", d.render("x", &text)));
        let s = stem(&path);
        let out = match handshake::build(&p.circuit, &p.marks, &p.units) {
            Ok(out) => out,
            Err(d) => {
                // A design whose ready/valid logic is combinationally cyclic has no AIG.
                println!("{s}: {}", d.message);
                assert!(
                    d.message.contains("combinational loop"),
                    "{s}: {}",
                    d.message
                );
                rejected.push(s);
                continue;
            }
        };
        let hier = tmp.join(format!("{s}.hier.blif"));
        let flat = tmp.join(format!("{s}.aig"));
        let flat_blif = tmp.join(format!("{s}.blif"));
        std::fs::write(&hier, aig_io::hier_blif(&out, &p.texts).unwrap()).unwrap();
        std::fs::write(&flat, aig_io::flat_aiger(&out)).unwrap();
        std::fs::write(&flat_blif, aig_io::flat_blif(&out)).unwrap();
        let subckts = out
            .instances
            .iter()
            .filter(|i| matches!(i.imp, Impl::Subckt { .. }))
            .count();
        println!(
            "{s}: {} instances ({subckts} opaque), {} ANDs, {} latches",
            out.instances.len(),
            out.flat.num_ands(),
            out.flat.latches.len()
        );
        if s.starts_with("export_gcd") {
            assert_eq!(subckts, 0, "{s}");
        }
        let seq = !out.flat.latches.is_empty();
        cases.push((hier.clone(), flat, seq));
        names.push(format!("{s} (aig)"));
        cases.push((hier, flat_blif, seq));
        names.push(format!("{s} (blif)"));
    }
    let results = abc_check(&cases);
    let mut bad = Vec::new();
    for (name, r) in names.iter().zip(&results) {
        println!(
            "{name}: {}",
            if equivalent(r) {
                "equivalent"
            } else {
                "NOT PROVEN"
            }
        );
        if !equivalent(r) {
            bad.push(format!("{name}:\n{r}"));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The elastic-miter rewrites `d` and `i` close a loop of ready signals (through an
    // `ONE_SLOT_BREAK_DV` buffer, which does not break ready).
    assert_eq!(rejected, ["elasticmiter_d_lhs", "elasticmiter_i_lhs"]);
}

#[test]
fn outputs_are_byte_identical_across_runs() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let path = shared.join("handshake_examples/export_gcd.mlir");
    let text = std::fs::read_to_string(&path).unwrap();
    let run = || {
        let mut lib = Library::new(shared.join("dynamatic_blif/library"));
        let p = prepare(&text, &mut lib).unwrap();
        let out = handshake::build(&p.circuit, &p.marks, &p.units).unwrap();
        (
            handshake::emit::synth_mlir(&out, Dialect::Circt),
            handshake::emit::synth_mlir(&out, Dialect::Dynamatic),
            aig_io::flat_aiger(&out),
            aig_io::flat_blif(&out),
            aig_io::hier_blif(&out, &p.texts).unwrap(),
        )
    };
    assert!(run() == run());
}

/// Built-in generators against the library unit of the same parameters (≤ 4 bits, where
/// the library is not blackboxed), by combinational equivalence with names matched. The
/// library fixes `cmpi` to `ult` and `constant` to 1, so only those variants are compared;
/// every variant is also checked exhaustively against reference semantics in the unit tests.
#[test]
fn builtins_match_library_units() {
    use compiler::handshake::mark::{BinOp, Builtin, CmpPred};
    let Some(shared) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    let lib = shared.join("dynamatic_blif/library");
    let generated = shared.join("dynamatic_blif/generated_debian_yosys023_abc101");
    let mut pairs: Vec<(Builtin, PathBuf)> = Vec::new();
    for w in 1..=4u32 {
        for op in BinOp::ALL {
            let k = op.kind();
            pairs.push((
                Builtin::Binary { op, width: w },
                lib.join(format!("{k}/{w}/{k}.blif")),
            ));
        }
        pairs.push((
            Builtin::Cmp {
                pred: CmpPred::Ult,
                width: w,
            },
            lib.join(format!("cmpi/{w}/cmpi.blif")),
        ));
        pairs.push((
            Builtin::Constant { width: w, value: 1 },
            lib.join(format!("constant/{w}/constant.blif")),
        ));
        for to in 1..=4u32 {
            if to >= w {
                for (signed, k) in [(true, "extsi"), (false, "extui")] {
                    pairs.push((
                        Builtin::Ext {
                            signed,
                            from: w,
                            to,
                        },
                        lib.join(format!("{k}/{w}/{to}/{k}.blif")),
                    ));
                }
            }
            if to <= w {
                pairs.push((
                    Builtin::Trunc { from: w, to },
                    lib.join(format!("trunci/{w}/{to}/trunci.blif")),
                ));
            }
        }
    }
    pairs.push((
        Builtin::Join { n: 2 },
        generated.join("join_type/2/join_type.blif"),
    ));
    // FIFOs (sequential): the data ones against the regenerated (memory-mapped) units, the
    // control logic for 1..4 slots against the library's dataless units (more slots make
    // `dsec` slow).
    for (transparent, name) in [(true, "tfifo"), (false, "elastic_fifo_inner")] {
        pairs.push((
            Builtin::Fifo {
                slots: 2,
                width: 2,
                transparent,
            },
            generated.join(format!("{name}_mapped/2/2/{name}.blif")),
        ));
        for slots in 1..=4 {
            pairs.push((
                Builtin::Fifo {
                    slots,
                    width: 0,
                    transparent,
                },
                lib.join(format!("{name}_dataless/{slots}/{name}_dataless.blif")),
            ));
        }
    }
    pairs.push((
        Builtin::Not { width: 1 },
        generated.join("noti/1/noti.blif"),
    ));
    let tmp = std::env::temp_dir().join(format!("kiln-hs-builtin-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut script = String::new();
    for (i, (b, reference)) in pairs.iter().enumerate() {
        assert!(reference.is_file(), "{}", reference.display());
        let ours = tmp.join(format!("{i}.blif"));
        let mut net = handshake::builtin::generate(b);
        // The library units list clk/rst; join_type has neither.
        let ref_text = std::fs::read_to_string(reference).unwrap();
        if !ref_text.contains(" clk ") && !ref_text.contains(" clk\n") {
            net.inputs.retain(|(n, _)| n != "clk" && n != "rst");
        }
        std::fs::write(
            &ours,
            compiler::aig::write_blif(&aig_io::to_aig(&net, "unit")),
        )
        .unwrap();
        let cmd = if net.latches.is_empty() {
            "cec"
        } else {
            "dsec"
        };
        script.push_str(&format!(
            "echo KILN_CASE {i}; {cmd} {} {};\n",
            reference.display(),
            ours.display()
        ));
    }
    let script_path = tmp.join("script.abc");
    std::fs::write(&script_path, &script).unwrap();
    let out = Command::new("berkeley-abc")
        .arg("-f")
        .arg(&script_path)
        .output()
        .expect("run berkeley-abc");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut per_case: Vec<String> = vec![String::new(); pairs.len()];
    let mut cur = None;
    for line in stdout.lines() {
        if let Some(i) = line.trim().strip_prefix("KILN_CASE ") {
            cur = i.trim().parse::<usize>().ok();
            continue;
        }
        if let Some(i) = cur {
            per_case[i].push_str(line);
            per_case[i].push('\n');
        }
    }
    let mut bad = Vec::new();
    for ((b, r), text) in pairs.iter().zip(&per_case) {
        if !equivalent(text) {
            bad.push(format!("{b:?} vs {}:\n{text}", r.display()));
        }
    }
    println!(
        "built-in generators vs library: {} of {} equivalent",
        pairs.len() - bad.len(),
        pairs.len()
    );
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The built-in `passer` (with data and dataless) is Dynamatic's: ABC `cec` against yosys's
/// synthesis of `tests/data/handshake/passer.v`, the generator's structure around
/// Dynamatic's own `join_type`.
#[test]
fn passer_matches_dynamatic_passer() {
    use compiler::handshake::mark::Builtin;
    let Some(shared) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    if !common::have_tool("yosys") {
        return;
    }
    let join = shared.join("dynamatic_rtl/data/verilog/handshake/join.v");
    assert!(join.is_file(), "{}", join.display());
    let files = [join, common::data("handshake/passer.v")];
    let tmp = tempfile::tempdir().unwrap();
    for width in [0u32, 1, 4] {
        let (top, chparam) = match width {
            0 => ("passer_dataless", String::new()),
            w => ("passer", format!("chparam -set WIDTH {w} passer; ")),
        };
        let b = Builtin::Passer { width };
        let text = common::net_vs_verilog(
            &handshake::builtin::generate(&b),
            &files,
            top,
            &chparam,
            tmp.path(),
            &width.to_string(),
        );
        assert!(equivalent(&text), "{b:?}:\n{text}");
    }
}

/// The built-in `init` (both tokens) and `spec_v2_repeating_init` are Dynamatic's: ABC
/// `dsec` against yosys's synthesis of `tests/data/handshake/init.v`, the generators in
/// Verilog.
#[test]
fn init_units_match_dynamatic_generators() {
    use compiler::handshake::mark::Builtin;
    let Some(_) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    if !common::have_tool("yosys") {
        return;
    }
    let files = [common::data("handshake/init.v")];
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (
            Builtin::Init { token: false },
            "init_unit",
            "chparam -set TOKEN 0 init_unit; ",
        ),
        (
            Builtin::Init { token: true },
            "init_unit",
            "chparam -set TOKEN 1 init_unit; ",
        ),
        (Builtin::RepeatingInit, "repeating_init", ""),
    ];
    for (i, (b, top, chparam)) in cases.iter().enumerate() {
        assert_eq!(handshake::builtin::generate(b).latches.len(), 1, "{b:?}");
        let text = common::net_vs_verilog(
            &handshake::builtin::generate(b),
            &files,
            top,
            chparam,
            tmp.path(),
            &i.to_string(),
        );
        assert!(equivalent(&text), "{b:?}:\n{text}");
    }
}
