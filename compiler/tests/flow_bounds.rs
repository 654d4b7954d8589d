//! The flows' resource limits on designs that grow: a Handshake body's op count, the names
//! that reach the outputs, the flat design's AIG nodes, and a BLIF hierarchy's depth in the
//! flow every command that builds BLIF uses; each a located error naming its flag. And the
//! stated bound on a Handshake design's output sizes (README, *Hostile input, limits*),
//! checked on generated chains and the samples.

mod common;

use compiler::diag::{Code, Diagnostic};
use compiler::flow::handshake::{LibraryFile, Options, synthesize};
use compiler::flow::{Outcome, OutputKind};
use compiler::limits::{Limit, Limits};

/// A chain of `n` 32-bit buffers; op `i` is named `name(i)`.
fn chain(n: usize, name: impl Fn(usize) -> String) -> String {
    compiler::handshake::generate::buffer_chain(n, name)
}

/// Handshake → Synth of `text` with the units of `tests/data/handshake/library`.
fn synth(text: &str, limits: Limits) -> Outcome {
    let lib = common::data("handshake/library");
    let mut read = |rel: &str| match std::fs::read_to_string(lib.join(rel)) {
        Ok(text) => LibraryFile::Text {
            shown: rel.to_string(),
            text,
        },
        Err(_) => LibraryFile::Missing,
    };
    let opts = Options {
        limits,
        ..Options::default()
    };
    synthesize(text, &opts, Some(&mut read))
}

fn with(limit: Limit, value: u64) -> Limits {
    let mut l = Limits::DEFAULT;
    l.set(limit, value);
    l
}

/// The one error of `outcome`: a limit error naming `flag`, located at `needle` in `text`.
fn refused_at(outcome: &Outcome, text: &str, needle: &str, flag: &str) -> Diagnostic {
    let d = refused(outcome, flag);
    let span = d.span.expect("located");
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in the text"));
    assert!(
        (span.start as usize..=span.end as usize).contains(&at),
        "{d:?} is not at `{needle}` (byte {at})"
    );
    d
}

/// The one error of `outcome`, a limit error naming `flag`.
fn refused(outcome: &Outcome, flag: &str) -> Diagnostic {
    assert!(outcome.outputs.is_empty(), "outputs despite the error");
    let errors: Vec<&Diagnostic> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .collect();
    let [d] = errors[..] else {
        panic!("one error expected: {:?}", outcome.diagnostics)
    };
    assert_eq!(d.code, Some(Code::LimitExceeded), "{d:?}");
    assert!(d.message.contains(flag), "{}", d.message);
    (*d).clone()
}

#[test]
fn a_body_over_the_op_limit_is_refused_at_the_first_op_past_it() {
    let text = chain(60, |i| format!("b{i}"));
    let o = synth(&text, with(Limit::Ops, 50));
    let d = refused_at(&o, &text, "%50 = buffer", "--max-ops");
    assert!(
        d.message.contains("max_ops") && d.message.contains("(50)"),
        "{}",
        d.message
    );
    // The parser stops there: a body of any length costs its first ops only.
    let e = compiler::mlir::parse_with(&text, &with(Limit::Ops, 50)).unwrap_err();
    assert_eq!(e.span, d.span);
    // At the limit, the design builds.
    let ok = synth(&text, with(Limit::Ops, 60));
    assert!(!ok.has_errors(), "{:?}", ok.diagnostics);
    // Ops of other dialects are not counted.
    let aps = std::fs::read_to_string(common::repo_root().join("examples/aps/flow_burst_add.mlir"))
        .unwrap();
    compiler::mlir::parse_with(&aps, &with(Limit::Ops, 1)).unwrap();
}

#[test]
fn names_over_the_limit_are_refused_where_they_are_written() {
    let long = "n".repeat(2000);
    let op = chain(3, |i| {
        if i == 1 {
            long.clone()
        } else {
            format!("b{i}")
        }
    });
    let port = chain(2, |i| format!("b{i}")).replace("\"out0\"", &format!("\"{long}\""));
    let func = chain(2, |i| format!("b{i}")).replace("@chain", &format!("@{long}"));
    for (text, at) in [
        (&op, "handshake.name = \"nnn"),
        (&port, "resNames"),
        (&func, "@nnn"),
    ] {
        let d = refused_at(&synth(text, Limits::DEFAULT), text, at, "--max-name-len");
        assert!(d.message.contains("max_name_len"), "{}", d.message);
    }
    // One 10 MB name: refused, and its diagnostic is short.
    let huge = "x".repeat(10_000_000);
    let text = chain(2, |i| if i == 0 { huge.clone() } else { "b".into() });
    let d = refused_at(
        &synth(&text, Limits::DEFAULT),
        &text,
        "handshake.name = \"xxx",
        "--max-name-len",
    );
    assert!(d.message.len() < 300, "{}", d.message.len());
    // Names up to the limit are fine.
    let ok = chain(2, |i| format!("{}{i}", "n".repeat(1000)));
    assert!(!synth(&ok, Limits::DEFAULT).has_errors());
}

#[test]
fn a_design_over_the_node_limit_is_refused_before_the_op_that_passes_it_is_built() {
    let text = chain(40, |i| format!("b{i}"));
    let full = synth(&text, Limits::DEFAULT);
    let nodes = aig_nodes(&full);
    // Each buffer instantiates the same unit: the limit falls within the chain, at the op
    // whose unit would pass it (the nodes counted are those built, before compaction).
    let o = synth(&text, with(Limit::Nodes, nodes / 2));
    let d = refused(&o, "--max-nodes");
    assert!(
        d.message.starts_with("AIG nodes of the design"),
        "{}",
        d.message
    );
    let span = d.span.expect("located");
    let op = &text[span.start as usize..span.end as usize];
    let k: usize = op[1..op.find(' ').unwrap()].parse().unwrap();
    assert!(op.contains("= buffer") && (5..35).contains(&k), "{op}");
}

/// The flat AIG's node count (`M` of the AIGER header).
fn aig_nodes(o: &Outcome) -> u64 {
    let aig = o.output(OutputKind::Aig).expect("an AIGER output").concat();
    let header = aig.split(|&b| b == b'\n').next().unwrap();
    let fields: Vec<&str> = std::str::from_utf8(header).unwrap().split(' ').collect();
    fields[1].parse().unwrap()
}

/// The unit pins of the hierarchical netlist (`pin=net` of its `.subckt`s).
fn unit_pins(hier: &str) -> u64 {
    (hier.lines())
        .filter(|l| l.starts_with(".subckt "))
        .map(|l| l.matches('=').count() as u64)
        .sum()
}

/// The README's bound on the four outputs of a design: at most `64 + 3 L` bytes per AIG node
/// and unit pin (L: its longest op or port name), plus the library files the hierarchical
/// netlist embeds once each.
fn within_the_stated_bound(text: &str, o: &Outcome) {
    assert!(!o.has_errors(), "{:?}", o.diagnostics);
    let hier = o.text(OutputKind::HierBlif).unwrap();
    let (nodes, pins) = (aig_nodes(o), unit_pins(&hier));
    let longest = text
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::len)
        .max()
        .unwrap_or(0) as u64;
    let library: u64 = (hier.split("\n.model ").skip(1))
        .map(|m| m.len() as u64)
        .sum();
    let bound = (64 + 3 * longest) * (nodes + pins) + library;
    for kind in [
        OutputKind::SynthMlir,
        OutputKind::Aig,
        OutputKind::FlatBlif,
        OutputKind::HierBlif,
    ] {
        let size: u64 = o.output(kind).unwrap().iter().map(|p| p.len() as u64).sum();
        assert!(
            size <= bound,
            "{kind:?}: {size} bytes for {nodes} nodes and {pins} pins (longest name {longest}): over {bound}"
        );
    }
}

#[test]
fn outputs_are_within_the_stated_bound_and_linear_in_ops_and_names() {
    let total = |o: &Outcome| -> u64 {
        (o.outputs.iter())
            .flat_map(|(_, p)| p.iter().map(|p| p.len() as u64))
            .sum()
    };
    let mut sizes = Vec::new();
    for (n, len) in [(100, 8), (200, 8), (200, 500)] {
        let text = chain(n, |i| format!("{:0>len$}", format!("b{i}")));
        let o = synth(&text, Limits::DEFAULT);
        within_the_stated_bound(&text, &o);
        sizes.push((total(&o), unit_pins(&o.text(OutputKind::HierBlif).unwrap())));
    }
    // Twice the ops, twice the bytes (and the few more that longer node numbers take).
    let (one, two) = (sizes[0].0 as f64, sizes[1].0 as f64);
    assert!((two / one - 2.0).abs() < 0.05, "{one} → {two}");
    // Longer names cost their extra bytes once per pin of their op and once per pin of the
    // ops they feed, not more.
    let extra = sizes[2].0 - sizes[1].0;
    let per_pin = extra as f64 / sizes[1].1 as f64;
    assert!(
        per_pin <= 2.0 * (500 - 8) as f64,
        "{per_pin} extra bytes per pin"
    );
    for f in ["export_gcd.mlir", "export_gcd_ftd.mlir"] {
        let text = std::fs::read_to_string(common::data(&format!("handshake/{f}"))).unwrap();
        within_the_stated_bound(&text, &synth(&text, Limits::DEFAULT));
    }
}

/// A chain of `n` models, each instantiating the next.
fn hierarchy(n: usize) -> String {
    compiler::blif::generate::and_chain(n)
}

#[test]
fn the_blif_flow_refuses_a_hierarchy_deeper_than_the_limit_where_aig_does() {
    let text = hierarchy(40);
    let limits = with(Limit::Depth, 10);
    let o = compiler::flow::blif::build(&text, &limits);
    let d = refused_at(&o, &text, "m11 a=a", "--max-depth");
    // The same diagnostic as the whole-file lowering of `kiln aig`.
    let parsed = compiler::blif::parse(&text).unwrap();
    let whole = compiler::aig::lower_file_with(&parsed.file, &limits).unwrap_err();
    assert_eq!(
        (whole.span, &whole.message, whole.code),
        (d.span, &d.message, d.code)
    );
    // At the limit, it builds.
    let ok = compiler::flow::blif::build(&hierarchy(11), &limits);
    assert!(!ok.has_errors(), "{:?}", ok.diagnostics);
    // The first model is the top wherever it is in the file: an error below it is
    // located in the file.
    let moved =
        format!(".model top\n.inputs a b x\n.outputs y\n.subckt m0 a=a b=b x=x y=y\n.end\n{text}");
    let o = compiler::flow::blif::build(&moved, &limits);
    refused_at(&o, &moved, "m10 a=a", "--max-depth");
}

#[test]
fn a_library_unit_is_lowered_under_the_design_limits() {
    // A buffer whose unit file is a hierarchy deeper than the limit: the unit is ignored,
    // with the depth error as its note.
    let dir = tempfile::tempdir().unwrap();
    let unit = dir.path().join("oehb/32");
    std::fs::create_dir_all(&unit).unwrap();
    std::fs::write(unit.join("oehb.blif"), hierarchy(20)).unwrap();
    let text = chain(1, |_| "b".into());
    let mut read = |rel: &str| match std::fs::read_to_string(dir.path().join(rel)) {
        Ok(text) => LibraryFile::Text {
            shown: rel.to_string(),
            text,
        },
        Err(_) => LibraryFile::Missing,
    };
    let opts = Options {
        limits: with(Limit::Depth, 5),
        ..Options::default()
    };
    let o = synthesize(&text, &opts, Some(&mut read));
    let note = o.elsewhere.iter().find(|m| m.path == "oehb/32/oehb.blif");
    let note = note.unwrap_or_else(|| panic!("no note about the unit: {:?}", o.elsewhere));
    assert!(note.message.contains("--max-depth"), "{note:?}");
}
