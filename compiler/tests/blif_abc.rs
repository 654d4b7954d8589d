//! BLIF → AIG proven equivalent by ABC (`berkeley-abc`).
//!
//! Our binary AIGER (with symbol table) is compared with the BLIF as ABC reads it: `cec`
//! where names line up (inputs, outputs and latches by name), `miter; dprove` for
//! hierarchies (instance latch names differ from ABC's) and for `*_hier` vs `*_flat` pairs.
//! Latch inits are compared separately, by name, against ABC's own AIGER of the BLIF (`cec`
//! ignores them). `.exdc` sections are cut from the reference (ABC's `cec` asserts on them).
//! In-repo data always runs; the shared corpus (blif_bench, the 8,786-file Dynamatic
//! library, the yosys hierarchy pairs) runs when present and is required under CI.

mod abc_harness;
mod common;

use abc_harness::{Case, Mode, Verdict};
use compiler::aig;
use compiler::diag::Code;
use compiler::limits::Limits;
use std::path::{Path, PathBuf};
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(600);

fn blif_files(dir: &Path) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "blif") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, &mut v);
    v.sort();
    v
}

/// A prepared comparison: our AIGER written, the reference chosen.
struct Prepared {
    case: Case,
    label: String,
    /// Compare latch inits with ABC's reading of the reference.
    check_inits: bool,
    aig: compiler::aig::Aig,
}

/// Lower `file`, write our AIGER into `out`, and pick the reference and mode.
fn prepare(file: &Path, out: &Path, k: usize) -> Prepared {
    let (g, _) = abc_harness::lower_path(file).unwrap_or_else(|e| panic!("{e}"));
    let ours = out.join(format!("{k}.aig"));
    std::fs::write(&ours, aig::write_aiger_binary(&g)).unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    let flat = name
        .strip_suffix("_hier.blif")
        .map(|s| file.with_file_name(format!("{s}_flat.blif")));
    let hierarchical = text.contains("\n.subckt");
    let (reference, mode) = match flat {
        Some(f) if f.exists() => (
            f,
            if g.latches().is_empty() {
                Mode::Cec
            } else {
                Mode::Dprove
            },
        ),
        _ if text.contains("\n.exdc") => {
            let care = out.join(format!("{k}.care.blif"));
            std::fs::write(&care, abc_harness::care_network(&text)).unwrap();
            (care, Mode::Cec)
        }
        _ if hierarchical && !g.latches().is_empty() => (file.to_path_buf(), Mode::Dprove),
        _ => (file.to_path_buf(), Mode::Cec),
    };
    Prepared {
        check_inits: mode == Mode::Cec && !g.latches().is_empty(),
        case: Case {
            reference,
            ours,
            mode,
        },
        label: file.display().to_string(),
        aig: g,
    }
}

/// Check every prepared case; panics listing every failure.
fn check(prepared: &[Prepared], chunk: usize, dir: &Path) {
    let cases: Vec<Case> = prepared.iter().map(|p| p.case.clone()).collect();
    let verdicts = abc_harness::check_all(&cases, chunk, dir, TIMEOUT);
    assert_eq!(verdicts.len(), prepared.len());
    let mut failures = Vec::new();
    for (p, v) in prepared.iter().zip(&verdicts) {
        if let Verdict::Failed(out) = v {
            failures.push(format!("{}: {:?}\n{out}", p.label, p.case.mode));
        }
    }
    for p in prepared.iter().filter(|p| p.check_inits) {
        match abc_harness::init_mismatches(&p.case.reference, &p.aig, dir) {
            Ok(bad) if bad.is_empty() => {}
            Ok(bad) => failures.push(format!(
                "{}: latch inits differ: {}",
                p.label,
                bad.join("; ")
            )),
            Err(e) => failures.push(format!("{}: {e}", p.label)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} not equivalent:\n{}",
        failures.len(),
        prepared.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} files equivalent ({} by cec, {} by dprove)",
        prepared.len(),
        count(prepared, Mode::Cec),
        count(prepared, Mode::Dprove)
    );
}

fn count(p: &[Prepared], m: Mode) -> usize {
    p.iter().filter(|p| p.case.mode == m).count()
}

#[test]
fn abc_does_not_stop_on_not_equivalent() {
    if !common::have_tool("berkeley-abc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.blif");
    let b = dir.path().join("b.blif");
    std::fs::write(
        &a,
        ".model m\n.inputs x y\n.outputs z\n.names x y z\n11 1\n.end\n",
    )
    .unwrap();
    std::fs::write(
        &b,
        ".model m\n.inputs x y\n.outputs z\n.names x y z\n1- 1\n.end\n",
    )
    .unwrap();
    let case = |r: &Path, o: &Path| Case {
        reference: r.to_path_buf(),
        ours: o.to_path_buf(),
        mode: Mode::Cec,
    };
    let missing = dir.path().join("missing.blif");
    let cases = [case(&a, &b), case(&a, &a), case(&a, &missing), case(&b, &b)];
    let v = abc_harness::check_all(&cases, 10, dir.path(), TIMEOUT);
    assert!(matches!(v[0], Verdict::Failed(_)), "{v:?}");
    assert_eq!(
        v[1],
        Verdict::Equivalent,
        "ABC continued after NOT EQUIVALENT"
    );
    assert!(matches!(v[2], Verdict::Failed(_)), "{v:?}");
    // ABC aborts a script on a command error: the harness re-runs the rest one by one.
    assert_eq!(v[3], Verdict::Equivalent);
}

#[test]
fn in_repo_corpus_is_equivalent() {
    if !common::have_tool("berkeley-abc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = common::data("blif");
    let files: Vec<PathBuf> = blif_files(&root)
        .into_iter()
        .filter(|f| !f.starts_with(root.join("malformed")))
        .filter(|f| !f.to_string_lossy().ends_with("_flat.blif"))
        .collect();
    let mut prepared = Vec::new();
    for (k, f) in files.iter().enumerate() {
        let p = prepare(f, dir.path(), k);
        // Logic-free black boxes crash ABC; they must show up as undriven outputs instead.
        if !std::fs::read_to_string(f).unwrap().contains(".names") {
            let (_, undriven) = abc_harness::lower_path(f).unwrap();
            assert!(!undriven.is_empty(), "{}", f.display());
            continue;
        }
        prepared.push(p);
    }
    assert!(prepared.len() >= 20, "{}", prepared.len());
    check(&prepared, 50, dir.path());
}

/// The 2-input BLIF writer: ABC reads what we write, and it is equivalent to the source.
#[test]
fn in_repo_blif_output_is_equivalent() {
    if !common::have_tool("berkeley-abc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = common::data("blif");
    let mut cases = Vec::new();
    for (k, f) in blif_files(&root).iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        if f.starts_with(root.join("malformed"))
            || !text.contains(".names")
            || text.contains("\n.subckt")
        {
            continue;
        }
        let p = prepare(f, dir.path(), k);
        if p.case.mode != Mode::Cec {
            continue;
        }
        let ours = dir.path().join(format!("{k}.out.blif"));
        std::fs::write(&ours, aig::write_blif(&p.aig)).unwrap();
        cases.push(Case {
            reference: p.case.reference,
            ours,
            mode: Mode::Cec,
        });
    }
    assert!(cases.len() >= 15, "{}", cases.len());
    let verdicts = abc_harness::check_all(&cases, 50, dir.path(), TIMEOUT);
    let bad: Vec<String> = cases
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| **v != Verdict::Equivalent)
        .map(|(c, v)| format!("{}: {v:?}", c.reference.display()))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn shared_blif_bench_is_equivalent() {
    let Some(shared) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bench = shared.join("blif_bench");
    // The two hierarchies ABC cannot read are checked against their flat twins below.
    let files: Vec<PathBuf> = blif_files(&bench)
        .into_iter()
        .filter(|f| {
            let n = f.file_name().unwrap().to_string_lossy();
            n != "eth_hier.blif" && n != "tv80s_hier.blif"
        })
        .collect();
    assert_eq!(files.len(), 70);
    let prepared: Vec<Prepared> = files
        .iter()
        .enumerate()
        .map(|(k, f)| prepare(f, dir.path(), k))
        .collect();
    check(&prepared, 8, dir.path());
}

#[test]
fn shared_yosys_hier_pairs_are_equivalent() {
    let Some(shared) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let hier = shared.join("blif_bench/yosys_hier");
    let prepared: Vec<Prepared> = ["eth_hier.blif", "tv80s_hier.blif"]
        .iter()
        .enumerate()
        .map(|(k, f)| prepare(&hier.join(f), dir.path(), k))
        .collect();
    assert!(
        prepared
            .iter()
            .all(|p| p.case.reference.to_string_lossy().ends_with("_flat.blif"))
    );
    check(&prepared, 1, dir.path());
}

#[test]
fn shared_dynamatic_library_is_equivalent() {
    let Some(shared) = common::shared_dir_with("berkeley-abc") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let lib = shared.join("dynamatic_blif/library");
    let files = blif_files(&lib);
    assert_eq!(files.len(), 8786);
    let mut prepared = Vec::new();
    let mut blackboxed = Vec::new();
    for (k, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        if !text.contains(".names") && !text.contains(".latch") {
            // Blackboxed arithmetic: no logic, outputs undriven (ABC segfaults on these).
            let (g, undriven) = abc_harness::lower_path(f).unwrap();
            assert!(
                !undriven.is_empty() && g.and_count() == 0,
                "{}",
                f.display()
            );
            blackboxed.push(f.strip_prefix(&lib).unwrap().display().to_string());
            continue;
        }
        prepared.push(prepare(f, dir.path(), k));
    }
    eprintln!(
        "{} blackboxed units with undriven outputs (constant 0): {}",
        blackboxed.len(),
        blackboxed.join(" ")
    );
    assert_eq!(blackboxed.len(), 96);
    // Latch inits: ABC's reading of the library files, all in a few batched ABC runs.
    check_library_inits(&prepared, dir.path());
    for p in &mut prepared {
        p.check_inits = false;
    }
    check(&prepared, 500, dir.path());
}

/// Compare latch inits with ABC's AIGER of each library file, batched into one script per
/// 500 files.
fn check_library_inits(prepared: &[Prepared], dir: &Path) {
    use compiler::blif::Init;
    let seq: Vec<&Prepared> = prepared
        .iter()
        .filter(|p| !p.aig.latches().is_empty())
        .collect();
    let mut bad = Vec::new();
    for chunk in seq.chunks(500) {
        let mut script = String::new();
        for (i, p) in chunk.iter().enumerate() {
            script.push_str(&format!(
                "read_blif {}\nstrash\nwrite_aiger -s {}\n",
                p.case.reference.display(),
                dir.join(format!("ref{i}.aig")).display()
            ));
        }
        let path = dir.join("inits.abc");
        std::fs::write(&path, script).unwrap();
        let out = std::process::Command::new("berkeley-abc")
            .arg("-f")
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "ABC failed on init batch");
        for (i, p) in chunk.iter().enumerate() {
            let bytes = std::fs::read(dir.join(format!("ref{i}.aig")))
                .unwrap_or_else(|_| panic!("ABC wrote no AIG for {}", p.label));
            let theirs = aig::read_aiger(&bytes).unwrap();
            let norm = |i: Init| {
                if i == Init::DontCare {
                    Init::Unknown
                } else {
                    i
                }
            };
            let abc: std::collections::BTreeMap<&str, Init> = theirs
                .latches()
                .iter()
                .map(|l| (l.name.as_str(), norm(l.init)))
                .collect();
            for l in p.aig.latches() {
                if abc.get(l.name.as_str()) != Some(&norm(l.init)) {
                    bad.push(format!(
                        "{}: latch {} ours {:?} ABC {:?}",
                        p.label,
                        l.name,
                        l.init,
                        abc.get(l.name.as_str())
                    ));
                }
            }
            let _ = std::fs::remove_file(dir.join(format!("ref{i}.aig")));
        }
    }
    assert!(
        bad.is_empty(),
        "{} init mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
    eprintln!(
        "latch inits agree with ABC on {} sequential library units",
        seq.len()
    );
}

/// The BLIF edges where kiln warns instead of failing, cross-checked with ABC: a file whose
/// first model another model instantiates, lowered with `--top` at its root (ABC lowers the
/// root), an instance input left unconnected (reads 0 in both), and every timing directive
/// (ignored by both).
#[test]
fn warned_edges_match_abc() {
    if !common::have_tool("berkeley-abc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let unconnected = "\
.model top
.inputs a b
.outputs y z
.subckt leaf u=a w=y
.subckt leaf v=b w=z
.end
.model leaf
.inputs u v
.outputs w
.names u v w
0- 1
-1 1
.end
";
    let timing = "\
.model t
.inputs a b
.outputs y
.area 10
.delay a NINV 1 2 1 2 1 2
.wire_load_slope 1
.wire 1 2
.input_arrival a 1 2
.default_input_arrival 0 0
.output_required y 1 1
.default_output_required 1 1
.input_drive a 1 1
.default_input_drive 1 1
.output_load y 1
.default_output_load 1
.max_input_load 2 a
.default_max_input_load 3
.names a b y
10 1
.end
";
    let mut cases = Vec::new();
    for (k, (text, top, code)) in [
        (common::LEAF_FIRST, Some("top"), None),
        (unconnected, None, Some(Code::UnconnectedPin)),
        (timing, None, Some(Code::DirectiveIgnored)),
    ]
    .into_iter()
    .enumerate()
    {
        let reference = dir.path().join(format!("edge{k}.blif"));
        std::fs::write(&reference, text).unwrap();
        let parsed = compiler::blif::parse(text).unwrap();
        let mut l = aig::lower_file_owned(parsed.file, top, &Limits::DEFAULT).unwrap();
        let name = l.top.clone();
        let l = l.models.remove(&name).unwrap();
        let warned = (parsed.warnings.iter().chain(&l.warnings)).any(|w| w.code == code);
        assert!(code.is_none() || warned, "{k}: {:?}", l.warnings);
        let ours = dir.path().join(format!("edge{k}.aig"));
        std::fs::write(&ours, aig::write_aiger_binary(&l.aig)).unwrap();
        cases.push(Case {
            reference,
            ours,
            mode: Mode::Cec,
        });
    }
    let v = abc_harness::check_all(&cases, 10, dir.path(), TIMEOUT);
    for (c, v) in cases.iter().zip(&v) {
        assert_eq!(*v, Verdict::Equivalent, "{}", c.reference.display());
    }
    // ABC lowers the root of the first file (so `cec` compared with our `--top top`).
    let o = std::process::Command::new("berkeley-abc")
        .arg("-c")
        .arg(format!(
            "read {}; print_stats",
            cases[0].reference.display()
        ))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("top ") && !stdout.contains("leaf "),
        "ABC read another model: {stdout}"
    );
}
