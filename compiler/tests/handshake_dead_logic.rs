//! Handshake → Synth writes no dead logic: every AND gate of the written AIGER is in the
//! cone of an output or a latch's next state (so its header's AND count is the design's),
//! and every `synth.aig.and_inv` of the Synth MLIR is used. Over the in-repo samples and,
//! when present, the shared corpus; ABC, which drops dangling nodes as it reads an AIGER
//! file, counts the same ANDs as the header.

mod common;

use compiler::flow::handshake::{LibraryFile, Options, synthesize};
use compiler::flow::{Outcome, OutputKind};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Handshake → Synth of `file` with the units of `lib`, through the flow every command runs.
fn synth(file: &Path, lib: &Path) -> Outcome {
    let text = std::fs::read_to_string(file).unwrap();
    let mut read = |rel: &str| match std::fs::read_to_string(lib.join(rel)) {
        Ok(text) => LibraryFile::Text {
            shown: rel.to_string(),
            text,
        },
        Err(_) => LibraryFile::Missing,
    };
    synthesize(&text, &Options::default(), Some(&mut read))
}

fn output(outcome: &Outcome, kind: OutputKind) -> Vec<u8> {
    let (_, pieces) = (outcome.outputs.iter())
        .find(|(k, _)| *k == kind)
        .unwrap_or_else(|| panic!("no {kind:?} output"));
    pieces.concat()
}

/// (AND count of the header, ANDs outside every output's and latch next state's cone) of a
/// binary AIGER file, read here without the compiler's reader.
fn dead_ands(aig: &[u8]) -> (usize, usize) {
    let mut pos = 0;
    let mut line = || {
        let end = pos + aig[pos..].iter().position(|&b| b == b'\n').expect("line");
        let l = std::str::from_utf8(&aig[pos..end]).unwrap().to_string();
        pos = end + 1;
        l
    };
    let header: Vec<usize> = (line().split(' ').skip(1))
        .map(|f| f.parse().unwrap())
        .collect();
    let [_, i, l, o, a] = header[..5] else {
        panic!("header {header:?}")
    };
    // Latches (next state, then an optional init), outputs, then bad and constraint
    // literals when the header counts them: the roots.
    let roots_n = l + o + header.get(5..7).map_or(0, |bc| bc.iter().sum());
    let mut roots: Vec<usize> = (0..roots_n)
        .map(|_| line().split(' ').next().unwrap().parse().unwrap())
        .collect();
    let first = 1 + i + l;
    let mut fanins = Vec::with_capacity(a);
    let mut decode = || {
        let (mut x, mut shift) = (0usize, 0);
        loop {
            let b = aig[pos];
            pos += 1;
            x |= usize::from(b & 0x7f) << shift;
            shift += 7;
            if b & 0x80 == 0 {
                return x;
            }
        }
    };
    for k in 0..a {
        let lhs = 2 * (first + k);
        let r0 = lhs - decode();
        let r1 = r0 - decode();
        fanins.push((r0, r1));
    }
    let mut used = vec![false; first + a];
    while let Some(lit) = roots.pop() {
        let v = lit / 2;
        if std::mem::replace(&mut used[v], true) || v < first {
            continue;
        }
        let (r0, r1) = fanins[v - first];
        roots.extend([r0, r1]);
    }
    (a, (first..first + a).filter(|&v| !used[v]).count())
}

/// The `synth.aig.and_inv` values of a Synth MLIR module that nothing uses.
fn unused_and_inv(mlir: &str) -> Vec<String> {
    let mut defined = Vec::new();
    let mut used = BTreeSet::new();
    for line in mlir.lines() {
        let mut values = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || "%_.$-".contains(c)))
            .filter(|t| t.starts_with('%'));
        let trimmed = line.trim_start();
        if trimmed.starts_with('%') && trimmed.contains(" = synth.aig.and_inv ") {
            defined.push(values.next().unwrap().to_string());
        }
        used.extend(values.map(str::to_string));
    }
    defined.retain(|v| !used.contains(v));
    defined
}

/// Every sample of `dir` that builds: (stem, outcome).
fn built(dir: &Path, lib: &Path) -> Vec<(String, Outcome)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, synth(&f, lib))
        })
        .filter(|(_, o)| !o.outputs.is_empty())
        .collect()
}

/// Checks that no sample writes dead logic; returns each one's AIGER file.
fn no_dead_logic(samples: &[(String, Outcome)]) -> BTreeMap<String, Vec<u8>> {
    let mut bad = Vec::new();
    let mut aigs = BTreeMap::new();
    for (stem, outcome) in samples {
        let aig = output(outcome, OutputKind::Aig);
        let (ands, dead) = dead_ands(&aig);
        let mlir = String::from_utf8(output(outcome, OutputKind::SynthMlir)).unwrap();
        let unused = unused_and_inv(&mlir);
        println!(
            "{stem}: {ands} ANDs, {dead} dead; {} unused and_inv",
            unused.len()
        );
        if dead > 0 || !unused.is_empty() {
            bad.push(format!(
                "{stem}: {dead} of {ands} ANDs dead, unused and_inv {:?}",
                &unused[..unused.len().min(5)]
            ));
        }
        aigs.insert(stem.clone(), aig);
    }
    assert!(bad.is_empty(), "dead logic:\n{}", bad.join("\n"));
    aigs
}

#[test]
fn in_repo_samples_write_no_dead_ands() {
    let samples = built(
        &common::data("handshake"),
        &common::data("handshake/library"),
    );
    assert_eq!(
        samples.len(),
        3,
        "export_gcd, export_gcd_ftd and float_ops build"
    );
    no_dead_logic(&samples);
}

#[test]
fn shared_samples_write_no_dead_ands() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let samples = built(
        &shared.join("handshake_examples"),
        &shared.join("dynamatic_blif/library"),
    );
    // 28 of the 41 samples build (the others: not Dynamatic circuits, several functions,
    // combinational ready loops, units the library lacks).
    assert!(samples.len() >= 28, "{} samples built", samples.len());
    no_dead_logic(&samples);
}

/// ABC's AND count of each AIGER file (it drops dangling nodes as it reads) against the
/// header's.
#[test]
fn abc_counts_the_ands_the_header_counts() {
    if !common::have_tool("berkeley-abc") {
        return;
    }
    let mut samples = built(
        &common::data("handshake"),
        &common::data("handshake/library"),
    );
    if let Some(shared) = common::shared_dir() {
        samples.extend(built(
            &shared.join("handshake_examples"),
            &shared.join("dynamatic_blif/library"),
        ));
    }
    let tmp = tempfile::tempdir().unwrap();
    let mut bad = Vec::new();
    for (k, (stem, outcome)) in samples.iter().enumerate() {
        let aig = output(outcome, OutputKind::Aig);
        let (ands, _) = dead_ands(&aig);
        let path = tmp.path().join(format!("{k}_{stem}.aig"));
        std::fs::write(&path, &aig).unwrap();
        let out = Command::new("berkeley-abc")
            .arg("-c")
            .arg(format!("read {}; print_stats", path.display()))
            .output()
            .expect("run berkeley-abc");
        let stdout = String::from_utf8_lossy(&out.stdout);
        // `... lat = 2322  and =  16477  lev = 92`
        let abc: Option<usize> = stdout
            .split("and =")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|n| n.parse().ok());
        println!("{stem}: header {ands}, ABC {abc:?}");
        if abc != Some(ands) {
            bad.push(format!("{stem}: header {ands}, ABC {abc:?}:\n{stdout}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
