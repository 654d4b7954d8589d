//! Oracle for the units kiln synthesizes from Dynamatic's Verilog templates: for every
//! template parameter set the `export_*` samples of the shared corpus use, kiln's lowered
//! unit (its AIG, written by kiln, ports renamed back to the template's by the wrapper's
//! binding) is proved equivalent by ABC (`dsec`, `cec` for a unit without latches) to an
//! independent yosys run straight on the template (`chparam`, no wrapper, no kiln).
//! Runs when `../shared` exists; yosys and ABC must be installed under `CI=true`.
//! `KILN_RTL_ONLY=TEXT` checks only the units whose key contains TEXT; `KILN_KEEP_TMP=1`
//! copies each unit's two BLIFs to `/tmp/{ours,ref}<i>.blif`.

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use compiler::flow::handshake::{Options, front};
use compiler::handshake::rtl::Template;
use compiler::limits::Limits;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::process::Command;

/// The templates the samples use, by key, with the samples that use each.
fn sample_templates(shared: &Path) -> BTreeMap<String, (Template, Vec<String>)> {
    let mut out: BTreeMap<String, (Template, Vec<String>)> = BTreeMap::new();
    let dir = shared.join("handshake_examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let n = p.file_name().unwrap().to_string_lossy();
            n.starts_with("export_") && n.ends_with(".mlir")
        })
        .collect();
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let Ok(fr) = front(&text, &Options::default()) else {
            continue;
        };
        let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
        for (k, t) in fr.templates {
            out.entry(k).or_insert((t, Vec::new())).1.push(stem.clone());
        }
    }
    out
}

/// kiln pin → the template's port bit as yosys names it (`ldAddr[3]`, `loadEn`), read off
/// the wrapper; and the pins tied to a constant.
fn binding(wrapper: &str) -> (HashMap<String, String>, BTreeSet<String>) {
    let mut widths = HashMap::new();
    for l in wrapper.lines() {
        if let Some(rest) = l.trim().strip_prefix("wire [") {
            let (hi, name) = rest.split_once(":0] t_").unwrap();
            let name = name.trim_end_matches(';');
            widths.insert(name.to_string(), hi.parse::<u32>().unwrap() + 1);
        }
    }
    let bit = |t: &str| {
        let t = t.trim().trim_end_matches(';').strip_prefix("t_").unwrap();
        let (p, b) = t.split_once('[').unwrap();
        let b = b.trim_end_matches(']');
        match widths[p] {
            1 => p.to_string(),
            _ => format!("{p}[{b}]"),
        }
    };
    let pin = |s: &str| {
        s.trim()
            .trim_end_matches(';')
            .trim()
            .strip_prefix('\\')
            .unwrap()
            .trim()
            .to_string()
    };
    let (mut map, mut tied) = (HashMap::new(), BTreeSet::new());
    for l in wrapper.lines() {
        let Some(rest) = l.trim().strip_prefix("assign ") else {
            continue;
        };
        let (lhs, rhs) = rest.split_once(" = ").unwrap();
        match (lhs.starts_with("t_"), rhs.trim().starts_with("t_")) {
            (true, false) if rhs.trim().starts_with('\\') => {
                map.insert(pin(rhs), bit(lhs));
            }
            (false, true) => {
                map.insert(pin(lhs), bit(rhs));
            }
            (false, false) => {
                tied.insert(pin(lhs));
            }
            _ => {}
        }
    }
    (map, tied)
}

/// kiln's BLIF of `aig` with its ports renamed by `map`, tied outputs and unbound inputs
/// left out of the interface (an unbound input that is read fails the check).
fn renamed(blif: &str, map: &HashMap<String, String>, tied: &BTreeSet<String>) -> String {
    let mut out = String::new();
    for line in blif.lines() {
        let mut toks = line.split_whitespace();
        match toks.next() {
            Some(kw @ (".inputs" | ".outputs")) => {
                let kept: Vec<String> = toks
                    .filter(|t| !tied.contains(*t) && map.contains_key(*t))
                    .map(|t| map[t].clone())
                    .collect();
                out.push_str(&format!("{kw} {}\n", kept.join(" ")));
            }
            Some(kw @ (".names" | ".latch")) => {
                // The template's own nets are the wrapper's `inst.<net>`.
                let rest: Vec<String> = toks
                    .map(|t| match map.get(t) {
                        Some(m) => m.clone(),
                        None => t.strip_prefix("inst.").unwrap_or(t).to_string(),
                    })
                    .collect();
                out.push_str(&format!("{kw} {}\n", rest.join(" ")));
            }
            _ => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// The template synthesized by yosys straight from its files (the module, its
/// parameters set by `chparam`), to BLIF at `out`.
fn reference(yosys: &Path, rtl: &Path, t: &Template, out: &Path) {
    let reads: Vec<String> = (t.files.iter())
        .map(|f| format!("read_verilog -defer {}", rtl.join(f).display()))
        .collect();
    let params: Vec<String> = (t.params.iter())
        .map(|(k, v)| format!("-set {k} {v}"))
        .collect();
    let script = format!(
        "{}; chparam {} {m}; hierarchy -top {m}; proc; flatten; opt -nodffe -nosdff; memory; \
         opt -nodffe -nosdff; techmap; opt -nodffe -nosdff; setundef -zero -init; \
         setundef -zero -undriven; opt_clean; write_blif {}",
        reads.join("; "),
        params.join(" "),
        out.display(),
        m = t.module,
    );
    let o = Command::new(yosys)
        .args(["-q", "-p", &script])
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "yosys on {}: {}",
        t.key(),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn template_units_equal_yosys_on_the_template() {
    let Some(shared) = common::shared_dir_with("yosys") else {
        return;
    };
    if !common::have_tool("berkeley-abc") {
        return;
    }
    let yosys = kiln_daemon::rtl::find_yosys().expect("yosys on PATH");
    let rtl = shared.join("dynamatic_rtl/data/verilog");
    let templates = sample_templates(&shared);
    let kinds: BTreeSet<&str> = templates.values().map(|(t, _)| t.module.as_str()).collect();
    for k in [
        "mem_controller_storeless",
        "mem_controller_loadless",
        "mem_controller",
        "muli",
        "absf",
    ] {
        assert!(kinds.contains(k), "no sample uses {k}: {kinds:?}");
    }
    let guard = tempfile::tempdir().unwrap();
    let tmp = guard.path();
    let mut failed = Vec::new();
    let only = std::env::var("KILN_RTL_ONLY").unwrap_or_default();
    for (i, (key, (t, samples))) in templates.iter().enumerate() {
        if !key.contains(only.as_str()) {
            continue;
        }
        let (blif, unit) = kiln_daemon::rtl::make(&yosys, &rtl, t, &Limits::DEFAULT)
            .unwrap_or_else(|e| panic!("{key}: {}", e.message));
        let unit = unit.unwrap_or_else(|d| panic!("{key}: {}", d.message));
        assert!(blif.contains(&format!(".model {}", t.model)));
        let aig = compiler::handshake::aig_io::to_aig(&unit.net, &t.model);
        let latches = aig.latches().len();
        let (mut map, tied) = binding(&t.wrapper);
        // kiln numbers latches in the order of the BLIF's `.latch` lines: the i-th is the
        // register yosys named (under the wrapper's `inst.`) there, as in the reference.
        let names: Vec<&str> = (blif.lines())
            .filter_map(|l| l.strip_prefix(".latch "))
            .filter_map(|l| l.split_whitespace().nth(1))
            .collect();
        for (k, l) in aig.latches().iter().enumerate() {
            if let Some(n) = names.get(k) {
                let n = n.strip_prefix("inst.").unwrap_or(n);
                map.insert(l.name.clone(), n.to_string());
            }
        }
        let ours = tmp.join(format!("ours{i}.blif"));
        std::fs::write(
            &ours,
            renamed(&compiler::aig::write_blif(&aig), &map, &tied),
        )
        .unwrap();
        let theirs = tmp.join(format!("ref{i}.blif"));
        reference(&yosys, &rtl, t, &theirs);
        // `cec` matches latches by name (a combinational proof, which yosys's names for
        // the template's registers allow); else `dsec`, a sequential one.
        let abc = |cmd: &str| {
            // In the temporary directory: ABC writes files there (`sm01.aig`, ...).
            let o = Command::new("berkeley-abc")
                .args(["-c", cmd])
                .current_dir(tmp)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
            let ok = stdout
                .lines()
                .any(|l| l.starts_with("Networks are equivalent"))
                && !stdout.contains("NOT EQUIVALENT")
                && !stdout.to_lowercase().contains("error");
            (ok, stdout)
        };
        if std::env::var_os("KILN_KEEP_TMP").is_some() {
            let _ = std::fs::copy(&ours, format!("/tmp/ours{i}.blif"));
            let _ = std::fs::copy(&theirs, format!("/tmp/ref{i}.blif"));
        }
        let mut cmd = format!("cec {} {}", theirs.display(), ours.display());
        let (mut ok, mut stdout) = abc(&cmd);
        if !ok && latches > 0 {
            cmd = format!("dsec {} {}", theirs.display(), ours.display());
            (ok, stdout) = abc(&cmd);
        }
        eprintln!(
            "{key:<62} {:>6} ANDs {latches:>4} latches  {} {}  ({})",
            aig.and_count(),
            cmd.split(' ').next().unwrap_or(""),
            if ok { "equivalent" } else { "DIFFERENT" },
            samples.join(", ")
        );
        if !ok {
            failed.push(format!("{key}: {cmd}\n{stdout}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The opaque ops of each `export_*` sample built with the Dynamatic BLIF library, without
/// and with the Verilog templates (the table of `docs/handshake-templates.md`): with them,
/// no memory controller or `muli` stays opaque, every sample that built before still builds,
/// and ABC proves each one's hierarchical BLIF (template models included) equal to its AIG.
#[test]
fn samples_build_with_templates_and_their_hierarchy_equals_the_aig() {
    let Some(shared) = common::shared_dir_with("yosys") else {
        return;
    };
    if !common::have_tool("berkeley-abc") {
        return;
    }
    use compiler::flow::OutputKind;
    use compiler::flow::handshake::{LibraryFile, back, load};
    use compiler::handshake::Impl;
    let lib = shared.join("dynamatic_blif/library");
    let rtl = shared.join("dynamatic_rtl/data/verilog");
    let limits = Limits::DEFAULT;
    let tmp = tempfile::tempdir().unwrap();
    let mut table = String::from(
        "| sample | opaque before | opaque after | still opaque |\n|---|---:|---:|---|\n",
    );
    let mut failed = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(shared.join("handshake_examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("export_")
        })
        .collect();
    files.sort();
    for f in files {
        let s = f.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&f).unwrap();
        let fr = front(&text, &Options::default()).unwrap();
        let mut read = |rel: &str| match std::fs::read_to_string(lib.join(rel)) {
            Ok(text) => LibraryFile::Text {
                shown: rel.to_string(),
                text,
            },
            Err(_) => LibraryFile::Missing,
        };
        let plain = load(&fr, &mut read, &limits);
        let mut with = load(&fr, &mut read, &limits);
        kiln_daemon::rtl::load(&fr, &rtl, &mut with, &limits).unwrap();
        assert!(with.notes.is_empty(), "{s}: {:?}", with.notes);
        let opaque = |units: &BTreeMap<String, compiler::handshake::LibUnit>| {
            let rows = compiler::handshake::report(&fr.circuit, &fr.marks, units);
            let mut kinds = BTreeMap::<String, usize>::new();
            for r in rows.iter().filter(|r| matches!(r.imp, Impl::Subckt { .. })) {
                *kinds.entry(r.kind.clone()).or_default() += 1;
            }
            kinds
        };
        let (before, after) = (opaque(&plain.units), opaque(&with.units));
        for k in ["mem_controller", "muli", "absf"] {
            assert!(!after.contains_key(k), "{s}: {k} still opaque: {after:?}");
        }
        // Opaque with the templates: only the LSQs and the cut point of a combinational
        // loop of the design (docs/handshake-templates.md says why).
        let rows = compiler::handshake::report(&fr.circuit, &fr.marks, &with.units);
        for r in &rows {
            if let Impl::Subckt { reason, .. } = &r.imp {
                assert!(
                    r.kind == "lsq" || reason.contains("combinational loop"),
                    "{s}: {} ({}) is opaque: {reason}",
                    r.op,
                    r.kind
                );
            }
        }
        let list = |m: &BTreeMap<String, usize>| {
            m.iter()
                .map(|(k, n)| format!("{k} ×{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        table.push_str(&format!(
            "| {s} | {} | {} | {} |\n",
            before.values().sum::<usize>(),
            after.values().sum::<usize>(),
            list(&after)
        ));
        let out = back(&fr, with, Default::default(), &limits);
        let errors: Vec<_> = (out.diagnostics.iter())
            .filter(|d| d.severity == compiler::diag::Severity::Error)
            .map(|d| d.message.clone())
            .collect();
        assert!(errors.is_empty(), "{s}: {errors:?}");
        let bytes = |kind: OutputKind| -> Vec<u8> {
            let (_, pieces) = out.outputs.iter().find(|(k, _)| *k == kind).unwrap();
            pieces.iter().flat_map(|p| p.iter().copied()).collect()
        };
        if out.outputs.is_empty() {
            continue;
        }
        let hier = tmp.path().join(format!("{s}.hier.blif"));
        let aig = tmp.path().join(format!("{s}.aig"));
        std::fs::write(&hier, bytes(OutputKind::HierBlif)).unwrap();
        std::fs::write(&aig, bytes(OutputKind::Aig)).unwrap();
        let aiger = bytes(OutputKind::Aig);
        let header = String::from_utf8_lossy(aiger.split(|&b| b == b'\n').next().unwrap());
        let latches = header.split_whitespace().nth(3).unwrap_or("0");
        let check = if latches == "0" { "cec" } else { "dsec" };
        let cmd = format!(
            "read -c {}; strash; {check} {}",
            hier.display(),
            aig.display()
        );
        let o = Command::new("berkeley-abc")
            .args(["-c", &cmd])
            .current_dir(tmp.path())
            .output()
            .unwrap();
        let o = String::from_utf8_lossy(&o.stdout);
        let ok = o.contains("Networks are equivalent") && !o.contains("NOT EQUIVALENT");
        eprintln!("{s}: hier.blif ≡ aig: {ok}");
        if !ok {
            failed.push(format!("{s}: {o}"));
        }
    }
    println!("{table}");
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
