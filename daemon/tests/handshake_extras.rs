//! Channels with extra signals (`[spec: i1]`), built with Dynamatic's signal managers
//! (`compiler::handshake::extras`).
//!
//! - **concat ≡ Dynamatic's concat**: kiln carries the extras of a `fork`, buffer, `merge`,
//!   `mux` or `control_merge` through a second instance of the unit at the extras' width.
//!   Dynamatic instantiates the unit once at the summed width instead. For each unit kind,
//!   ABC proves (`dsec`) the one-op design with a 4-bit channel and a `spec` bit equivalent
//!   to the same design with a 5-bit channel whose top bit is named `spec` (the library's
//!   unit at width 5), and a dataless one to the design with a 1-bit channel.
//! - **tokens keep their extras**: one-op designs of every manager are simulated with
//!   random valids, readies, data and `spec` bits, and every token that leaves carries the
//!   `spec` the manager gives it: a `fork` or buffer the token's own, a joining unit (`addi`,
//!   `cond_br`, the pipelined `muli` and `addf`) the OR of the joined tokens', a `mux` its
//!   chosen input's ORed with the index's; `non_spec` adds 0.

#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use compiler::aig;
use compiler::flow::{Outcome, OutputKind};
use compiler::handshake::aig_io;
use compiler::handshake::net::Net;
use compiler::limits::Limits;
use kiln_daemon::request::HandshakeSpec;
use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::process::Command;

/// Handshake → Synth of `text` as a one-shot build does it: the units of the BLIF library
/// in `shared`, and the Verilog templates synthesized by yosys for what it lacks.
fn synth(text: &str, shared: &Path) -> Outcome {
    let spec = HandshakeSpec {
        blif_lib: Some(shared.join("dynamatic_blif/library")),
        rtl_lib: Some(shared.join("dynamatic_rtl/data/verilog")),
        ..HandshakeSpec::default()
    };
    let limits = Limits::DEFAULT;
    match kiln_daemon::oneshot::handshake_front(&spec, limits, text) {
        Ok((front, library)) => {
            compiler::flow::handshake::back(&front, library, Default::default(), &limits)
        }
        Err(o) => o,
    }
}

fn output(o: &Outcome, kind: OutputKind) -> String {
    let (_, pieces) = (o.outputs.iter())
        .find(|(k, _)| *k == kind)
        .unwrap_or_else(|| panic!("no {kind:?} output: {:?}", o.diagnostics));
    String::from_utf8(pieces.concat()).unwrap()
}

/// A one-function module: arguments `args` (name, type) and a `start` control (sunk, so
/// that the design uses a library file), results `results` (type), `body`.
fn module(args: &[(&str, String)], results: &[String], body: &str) -> String {
    let start = [("start", "!handshake.control<>".to_string())];
    let args: Vec<&(&str, String)> = args.iter().chain(&start).collect();
    let body = format!("    sink %start {{handshake.name = \"s\"}} : <>\n{body}");
    let sig: Vec<String> = args.iter().map(|(n, t)| format!("%{n}: {t}")).collect();
    let names: Vec<String> = args.iter().map(|(n, _)| format!("\"{n}\"")).collect();
    let res: Vec<String> = (0..results.len()).map(|k| format!("\"r{k}\"")).collect();
    format!(
        "module {{\n  handshake.func @f({}) -> ({}) attributes {{argNames = [{}], resNames = [{}]}} {{\n{body}\n  }}\n}}\n",
        sig.join(", "),
        results.join(", "),
        names.join(", "),
        res.join(", ")
    )
}

/// One case of the concat proof: a body over `%a` (and `%b`, `%i`) of type `$t` (short
/// form) with results of type `$t`.
struct Case {
    name: &'static str,
    /// Extra arguments beyond `a` (`b` of type `$T`, `i` an `i1` index).
    with_b: bool,
    with_index: bool,
    results: usize,
    /// Results that are a 1-bit index channel, not `$T`.
    index_results: &'static [usize],
    body: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "fork",
        with_b: false,
        with_index: false,
        results: 2,
        index_results: &[],
        body: "    %0:2 = fork [2] %a {handshake.name = \"u\"} : $t\n    end %0#0, %0#1 : $t, $t",
    },
    Case {
        name: "lazy_fork",
        with_b: false,
        with_index: false,
        results: 3,
        index_results: &[],
        body: "    %0:3 = lazy_fork [3] %a {handshake.name = \"u\"} : $t\n    end %0#0, %0#1, %0#2 : $t, $t, $t",
    },
    Case {
        name: "oehb",
        with_b: false,
        with_index: false,
        results: 1,
        index_results: &[],
        body: "    %0 = buffer %a, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {handshake.name = \"u\"} : $t\n    end %0 : $t",
    },
    Case {
        name: "tehb",
        with_b: false,
        with_index: false,
        results: 1,
        index_results: &[],
        body: "    %0 = buffer %a, bufferType = ONE_SLOT_BREAK_R, numSlots = 1 {handshake.name = \"u\"} : $t\n    end %0 : $t",
    },
    Case {
        name: "tfifo",
        with_b: false,
        with_index: false,
        results: 1,
        index_results: &[],
        body: "    %0 = buffer %a, bufferType = FIFO_BREAK_NONE, numSlots = 2 {handshake.name = \"u\"} : $t\n    end %0 : $t",
    },
    Case {
        name: "fifo_break_dv",
        with_b: false,
        with_index: false,
        results: 1,
        index_results: &[],
        body: "    %0 = buffer %a, bufferType = FIFO_BREAK_DV, numSlots = 2 {handshake.name = \"u\"} : $t\n    end %0 : $t",
    },
    Case {
        name: "merge",
        with_b: true,
        with_index: false,
        results: 1,
        index_results: &[],
        body: "    %0 = merge %a, %b {handshake.name = \"u\"} : $t\n    end %0 : $t",
    },
    Case {
        name: "mux",
        with_b: true,
        with_index: true,
        results: 1,
        index_results: &[],
        body: "    %0 = mux %i [%a, %b] {handshake.name = \"u\"} : <i1>, [$t, $t] to $t\n    end %0 : $t",
    },
    Case {
        name: "control_merge",
        with_b: true,
        with_index: false,
        results: 2,
        index_results: &[1],
        body: "    %0, %1 = control_merge [%a, %b] {handshake.name = \"u\"} : [$t, $t] to $t, <i1>\n    end %0, %1 : $t, <i1>",
    },
];

/// The case's module with channels of `(full, short)` types.
fn case_text(c: &Case, full: &str, short: &str) -> String {
    let mut args = vec![("a", full.to_string())];
    if c.with_b {
        args.push(("b", full.to_string()));
    }
    if c.with_index {
        args.push(("i", "!handshake.channel<i1>".to_string()));
    }
    let results: Vec<String> = (0..c.results)
        .map(|k| match c.index_results.contains(&k) {
            true => "!handshake.channel<i1>".to_string(),
            false => full.to_string(),
        })
        .collect();
    module(&args, &results, &c.body.replace("$t", short))
}

/// The ports of a flat BLIF model (`.inputs` and `.outputs` names).
fn ports(blif: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut cont = false;
    for line in blif.lines() {
        let starts = line.starts_with(".inputs") || line.starts_with(".outputs");
        if starts || cont {
            let body = line.trim_end_matches('\\');
            names.extend(
                body.split_whitespace()
                    .filter(|w| !w.starts_with('.'))
                    .map(String::from),
            );
            cont = line.ends_with('\\');
        }
    }
    names
}

/// `blif` with every whole-word name in `rename` replaced.
fn renamed(blif: &str, rename: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(blif.len());
    for line in blif.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        let words: Vec<&str> = words
            .iter()
            .map(|w| rename.get(*w).map_or(*w, String::as_str))
            .collect();
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

/// ABC's proof of `a` ≡ `b`: `dsec`, or `cec` when `a` has no latches.
fn prove(a: &Path, b: &Path) -> String {
    let seq = std::fs::read_to_string(a).unwrap().contains(".latch");
    let cmd = if seq { "dsec" } else { "cec" };
    let out = Command::new("berkeley-abc")
        .arg("-c")
        .arg(format!("{cmd} {} {}", a.display(), b.display()))
        .output()
        .expect("run berkeley-abc");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// kiln's concat manager (the unit at the data width beside a slice at the extras' width)
/// is Dynamatic's (the unit at the summed width), for every unit kind the manager covers,
/// with data and dataless.
#[test]
fn concat_is_the_unit_at_the_summed_width() {
    let Some(shared) = shared() else { return };
    let lib = shared;
    let tmp = tempfile::tempdir().unwrap();
    let mut bad = Vec::new();
    let mut proved = 0;
    for c in CASES {
        for dataless in [false, true] {
            if dataless && (c.name == "mux" || c.name == "control_merge") {
                continue;
            }
            let (ours, reference) = match dataless {
                false => (
                    ("!handshake.channel<i4, [spec: i1]>", "<i4, [spec: i1]>"),
                    ("!handshake.channel<i5>", "<i5>"),
                ),
                true => (
                    ("!handshake.control<[spec: i1]>", "<[spec: i1]>"),
                    ("!handshake.channel<i1>", "<i1>"),
                ),
            };
            let label = format!("{}{}", c.name, if dataless { " (dataless)" } else { "" });
            let o = synth(&case_text(c, ours.0, ours.1), &lib);
            let r = synth(&case_text(c, reference.0, reference.1), &lib);
            for (what, x) in [("ours", &o), ("reference", &r)] {
                assert!(
                    x.diagnostics.iter().all(|d| !d.message.contains("opaque")),
                    "{label} {what}: {:?}",
                    x.diagnostics
                );
            }
            let (ob, rb) = (
                output(&o, OutputKind::FlatBlif),
                output(&r, OutputKind::FlatBlif),
            );
            // The reference's top bit of each spec'd port is the port's `spec`.
            let theirs = ports(&rb);
            let mut rename = BTreeMap::new();
            for p in ports(&ob) {
                if let Some(base) = p.strip_suffix("_spec") {
                    let top = match dataless {
                        false => format!("{base}[4]"),
                        true => base.to_string(),
                    };
                    assert!(theirs.contains(&top), "{label}: no {top} in {theirs:?}");
                    rename.insert(top, p.clone());
                }
            }
            assert!(!rename.is_empty(), "{label}: no spec port");
            let file = format!("{}{}", c.name, if dataless { "_dataless" } else { "" });
            let (a, b) = (
                tmp.path().join(format!("{file}.ours.blif")),
                tmp.path().join(format!("{file}.ref.blif")),
            );
            std::fs::write(&a, &ob).unwrap();
            std::fs::write(&b, renamed(&rb, &rename)).unwrap();
            let abc = prove(&a, &b);
            match abc.contains("Networks are equivalent") && !abc.contains("NOT EQUIVALENT") {
                true => proved += 1,
                false => bad.push(format!("{label}:\n{abc}")),
            }
        }
    }
    println!("concat manager vs the unit at the summed width: {proved} proved equivalent");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    assert!(proved >= 14, "{proved}");
}

// ---- Simulation: every token leaves with the extras its manager gives it. ----

/// A flat design read back from its AIGER output, simulated cycle by cycle.
struct Sim {
    net: Net,
    state: Vec<bool>,
    index: BTreeMap<String, usize>,
}

impl Sim {
    fn new(o: &Outcome) -> Sim {
        let (_, pieces) = (o.outputs.iter())
            .find(|(k, _)| *k == OutputKind::Aig)
            .expect("an AIGER output");
        let g = aig::read_aiger(&pieces.concat()).expect("our AIGER reads back");
        let net = aig_io::from_aig(&g);
        let state = vec![false; net.latches.len()];
        let index = (net.inputs.iter().enumerate())
            .map(|(i, (n, _))| (n.clone(), i))
            .collect();
        Sim { net, state, index }
    }

    /// One cycle: the outputs by name, given the inputs by name (others 0).
    fn step(&mut self, inputs: &BTreeMap<String, bool>) -> BTreeMap<String, bool> {
        let mut v = vec![false; self.net.inputs.len()];
        for (n, b) in inputs {
            if let Some(&i) = self.index.get(n) {
                v[i] = *b;
            }
        }
        let (outs, next) = self.net.eval(&v, &self.state);
        self.state = next;
        (self.net.outputs.iter().map(|(n, _)| n.clone()))
            .zip(outs)
            .collect()
    }
}

struct Rng(u64);

impl Rng {
    fn bit(&mut self) -> bool {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 & 1 == 1
    }
}

/// A token: its data (`width` bits) and its `spec`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Token {
    data: u64,
    spec: bool,
}

/// Drives one-op design `o` for `cycles` with random tokens on the inputs named `ins`
/// (each `(name, width, spec)`; a held token stays until taken) and random readies on the
/// outputs `outs` (`(name, width, spec)`), after two reset cycles; the tokens each input
/// gave and each output took, in order.
fn run(
    o: &Outcome,
    ins: &[(&str, u32, bool)],
    outs: &[(&str, u32, bool)],
    cycles: usize,
    seed: u64,
) -> (Vec<Vec<Token>>, Vec<Vec<Token>>) {
    let mut sim = Sim::new(o);
    let mut rng = Rng(seed);
    let bits = |name: &str, w: u32| -> Vec<String> {
        match w {
            1 => vec![name.to_string()],
            w => (0..w).map(|b| format!("{name}[{b}]")).collect(),
        }
    };
    let mut reset = BTreeMap::new();
    reset.insert("rst".to_string(), true);
    sim.step(&reset);
    sim.step(&reset);
    let mut held: Vec<Option<Token>> = vec![None; ins.len()];
    let mut given = vec![Vec::new(); ins.len()];
    let mut taken = vec![Vec::new(); outs.len()];
    for _ in 0..cycles {
        let mut inputs = BTreeMap::new();
        for (k, (name, w, spec)) in ins.iter().enumerate() {
            if held[k].is_none() && rng.bit() {
                let mut data = 0;
                for b in 0..*w {
                    data |= u64::from(rng.bit()) << b;
                }
                let spec = *spec && rng.bit();
                held[k] = Some(Token { data, spec });
            }
            if let Some(t) = held[k] {
                inputs.insert(format!("{name}_valid"), true);
                for (b, n) in bits(name, *w).into_iter().enumerate() {
                    inputs.insert(n, t.data >> b & 1 == 1);
                }
                if *spec {
                    inputs.insert(format!("{name}_spec"), t.spec);
                }
            }
        }
        for (name, _, _) in outs {
            inputs.insert(format!("{name}_ready"), rng.bit() || rng.bit());
        }
        let before = inputs.clone();
        let out = sim.step(&inputs);
        for (k, (name, _, _)) in ins.iter().enumerate() {
            if held[k].is_some() && out[&format!("{name}_ready")] {
                given[k].push(held[k].take().unwrap());
            }
        }
        for (k, (name, w, spec)) in outs.iter().enumerate() {
            if out[&format!("{name}_valid")] && before[&format!("{name}_ready")] {
                let mut data = 0;
                for (b, n) in bits(name, *w).into_iter().enumerate() {
                    data |= u64::from(out[&n]) << b;
                }
                let spec = *spec && out[&format!("{name}_spec")];
                taken[k].push(Token { data, spec });
            }
        }
    }
    (given, taken)
}

/// The shared corpus, with yosys (templates) and ABC installed.
fn shared() -> Option<std::path::PathBuf> {
    let shared = common::shared_dir_with("yosys")?;
    common::have_tool("berkeley-abc").then_some(shared)
}

fn one_op(lib: &Path, args: &[(&str, &str)], results: &[&str], body: &str) -> Outcome {
    let args: Vec<(&str, String)> = args.iter().map(|(n, t)| (*n, t.to_string())).collect();
    let results: Vec<String> = results.iter().map(|t| t.to_string()).collect();
    let o = synth(&module(&args, &results, body), lib);
    assert!(
        o.diagnostics.iter().all(|d| !d.message.contains("opaque")),
        "{body}: {:?}",
        o.diagnostics
    );
    o
}

const C8: &str = "!handshake.channel<i8, [spec: i1]>";
const F32: &str = "!handshake.channel<f32, [spec: i1]>";

/// Forks and buffers pass every token on with its own `spec`, in order.
#[test]
fn concat_units_keep_each_tokens_spec() {
    let Some(lib) = shared() else { return };
    for (what, body, outs) in [
        (
            "fork",
            "    %0:2 = fork [2] %a {handshake.name = \"u\"} : <i8, [spec: i1]>\n    end %0#0, %0#1 : <i8, [spec: i1]>, <i8, [spec: i1]>",
            2,
        ),
        (
            "tfifo",
            "    %0 = buffer %a, bufferType = FIFO_BREAK_NONE, numSlots = 3 {handshake.name = \"u\"} : <i8, [spec: i1]>\n    end %0 : <i8, [spec: i1]>",
            1,
        ),
        (
            "oehb",
            "    %0 = buffer %a, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {handshake.name = \"u\"} : <i8, [spec: i1]>\n    end %0 : <i8, [spec: i1]>",
            1,
        ),
    ] {
        let results = vec![C8; outs];
        let o = one_op(&lib, &[("a", C8)], &results, body);
        let names: Vec<String> = (0..outs).map(|k| format!("r{k}")).collect();
        let outs: Vec<(&str, u32, bool)> = names.iter().map(|n| (n.as_str(), 8, true)).collect();
        let (given, taken) = run(&o, &[("a", 8, true)], &outs, 2000, 7);
        for t in &taken {
            // An eager fork's output may take a token before the input is acknowledged.
            let n = t.len().min(given[0].len());
            assert!(n > 200, "{what}: only {n} tokens");
            assert_eq!(t[..n], given[0][..n], "{what}");
        }
    }
}

/// A joining unit's result carries the OR of its operands' `spec` (`addi` at once, `muli`
/// and `addf` through the buffered manager's FIFO while the pipeline holds the token);
/// `cond_br` sends each token, with the OR of its and the condition's, to the chosen side.
#[test]
fn joining_units_carry_the_or_of_their_operands_spec() {
    let Some(lib) = shared() else { return };
    for (what, ty, short, w, kind) in [
        ("addi", C8, "<i8, [spec: i1]>", 8, "addi"),
        ("muli", C8, "<i8, [spec: i1]>", 8, "muli"),
        ("addf", F32, "<f32, [spec: i1]>", 32, "addf"),
    ] {
        let body = format!(
            "    %0 = {kind} %a, %b {{handshake.name = \"u\", internal_delay = \"2_922000\"}} : {short}\n    end %0 : {short}"
        );
        let o = one_op(&lib, &[("a", ty), ("b", ty)], &[ty], &body);
        let (given, taken) = run(
            &o,
            &[("a", w, true), ("b", w, true)],
            &[("r0", w, true)],
            3000,
            11,
        );
        let t = &taken[0];
        assert!(t.len() > 100, "{what}: only {} tokens", t.len());
        for (k, r) in t.iter().enumerate() {
            let want = given[0][k].spec || given[1][k].spec;
            assert_eq!(r.spec, want, "{what}: token {k}");
            if kind == "addi" {
                assert_eq!(
                    r.data,
                    (given[0][k].data + given[1][k].data) & 0xff,
                    "{what}"
                );
            }
        }
    }
    let body = "    %0, %1 = cond_br %c, %a {handshake.name = \"u\"} : <i1, [spec: i1]>, <i8, [spec: i1]>\n    end %0, %1 : <i8, [spec: i1]>, <i8, [spec: i1]>";
    let o = one_op(
        &lib,
        &[("c", "!handshake.channel<i1, [spec: i1]>"), ("a", C8)],
        &[C8, C8],
        body,
    );
    let (given, taken) = run(
        &o,
        &[("c", 1, true), ("a", 8, true)],
        &[("r0", 8, true), ("r1", 8, true)],
        3000,
        5,
    );
    let (mut t, mut f) = (taken[0].iter(), taken[1].iter());
    let n = taken[0].len() + taken[1].len();
    assert!(n > 100, "cond_br: only {n} tokens");
    for (k, (&c, &a)) in given[0].iter().zip(&given[1]).take(n).enumerate() {
        let got = if c.data == 1 { t.next() } else { f.next() };
        let want = Token {
            data: a.data,
            spec: a.spec || c.spec,
        };
        assert_eq!(got, Some(&want), "cond_br: token {k}");
    }
}

/// A `mux` passes the chosen input's token with its `spec` ORed with the index's (the
/// index's extras go in with the data the mux stores); `non_spec` adds `spec` = 0.
#[test]
fn mux_and_non_spec_give_the_spec_they_promise() {
    let Some(lib) = shared() else { return };
    let idx = "!handshake.channel<i1, [spec: i1]>";
    let body = "    %0 = mux %i [%a, %b] {handshake.name = \"u\"} : <i1, [spec: i1]>, [<i8, [spec: i1]>, <i8, [spec: i1]>] to <i8, [spec: i1]>\n    end %0 : <i8, [spec: i1]>";
    let o = one_op(&lib, &[("i", idx), ("a", C8), ("b", C8)], &[C8], body);
    let (given, taken) = run(
        &o,
        &[("i", 1, true), ("a", 8, true), ("b", 8, true)],
        &[("r0", 8, true)],
        3000,
        3,
    );
    let mut queues: Vec<VecDeque<Token>> = vec![
        given[1].iter().copied().collect(),
        given[2].iter().copied().collect(),
    ];
    assert!(taken[0].len() > 100, "mux: only {} tokens", taken[0].len());
    for (k, r) in taken[0].iter().enumerate() {
        let i = given[0][k];
        let t = queues[i.data as usize].pop_front().expect("a chosen token");
        let want = Token {
            data: t.data,
            spec: t.spec || i.spec,
        };
        assert_eq!(*r, want, "mux: token {k}");
    }
    let body = "    %0 = non_spec %a {handshake.name = \"u\"} : !handshake.channel<i8> to !handshake.channel<i8, [spec: i1]>\n    end %0 : <i8, [spec: i1]>";
    let o = one_op(&lib, &[("a", "!handshake.channel<i8>")], &[C8], body);
    let (given, taken) = run(&o, &[("a", 8, false)], &[("r0", 8, true)], 1000, 9);
    assert!(taken[0].len() > 100);
    for (g, t) in given[0].iter().zip(&taken[0]) {
        assert_eq!((t.data, t.spec), (g.data, false));
    }
}

/// A `load`'s data leaves with the `spec` of the address it answers: the address's extras
/// wait in the load manager's FIFO while the memory (here a queue answering each address
/// after a random delay, in order) works.
#[test]
fn a_load_answers_with_its_address_spec() {
    let Some(shared) = shared() else { return };
    let body = "    %0, %1 = load[%a] %m {handshake.name = \"u\"} : <i8, [spec: i1]>, <i8>, <i8>, <i8, [spec: i1]>\n    end %0, %1 : <i8>, <i8, [spec: i1]>";
    let o = one_op(
        &shared,
        &[("a", C8), ("m", "!handshake.channel<i8>")],
        &["!handshake.channel<i8>", C8],
        body,
    );
    let mut sim = Sim::new(&o);
    let mut rng = Rng(13);
    let bits = |name: &'static str| (0..8).map(move |b| format!("{name}[{b}]"));
    let mut reset = BTreeMap::new();
    reset.insert("rst".to_string(), true);
    sim.step(&reset);
    sim.step(&reset);
    let mut held: Option<Token> = None;
    let (mut given, mut answers, mut taken) = (Vec::new(), VecDeque::new(), Vec::new());
    for _ in 0..4000 {
        let mut inputs = BTreeMap::new();
        if held.is_none() && rng.bit() {
            let data = (0..8).fold(0, |d, b| d | u64::from(rng.bit()) << b);
            held = Some(Token {
                data,
                spec: rng.bit(),
            });
        }
        if let Some(t) = held {
            inputs.insert("a_valid".to_string(), true);
            inputs.insert("a_spec".to_string(), t.spec);
            for (b, n) in bits("a").enumerate() {
                inputs.insert(n, t.data >> b & 1 == 1);
            }
        }
        // The memory answers the oldest address it took, with the address as its data.
        let answer = answers.front().copied().filter(|_| rng.bit());
        if let Some(d) = answer {
            inputs.insert("m_valid".to_string(), true);
            for (b, n) in bits("m").enumerate() {
                inputs.insert(n, d >> b & 1 == 1);
            }
        }
        let (r0, r1) = (rng.bit() || rng.bit(), rng.bit() || rng.bit());
        inputs.insert("r0_ready".to_string(), r0);
        inputs.insert("r1_ready".to_string(), r1);
        let out = sim.step(&inputs);
        if held.is_some() && out["a_ready"] {
            given.push(held.take().unwrap());
        }
        if answer.is_some() && out["m_ready"] {
            answers.pop_front();
        }
        if out["r0_valid"] && r0 {
            answers.push_back(
                bits("r0")
                    .enumerate()
                    .fold(0, |d, (b, n)| d | u64::from(out[&n]) << b),
            );
        }
        if out["r1_valid"] && r1 {
            let data = bits("r1")
                .enumerate()
                .fold(0, |d, (b, n)| d | u64::from(out[&n]) << b);
            taken.push(Token {
                data,
                spec: out["r1_spec"],
            });
        }
    }
    assert!(taken.len() > 200, "only {} answers", taken.len());
    assert_eq!(taken[..], given[..taken.len()]);
}

/// `spec_commit` passes a token whose `spec` is 0 at once, and one whose `spec` is 1 when
/// the next decision is 0 (dropped when it is 1): the output interleaves the two streams,
/// each in order.
#[test]
fn spec_commit_passes_committed_tokens_and_drops_the_others() {
    let Some(shared) = shared() else { return };
    let c16 = "!handshake.channel<i16, [spec: i1]>";
    for (ty, w, full) in [
        ("<i16, [spec: i1]>", 16, c16),
        (
            "!handshake.control<[spec: i1]>",
            0,
            "!handshake.control<[spec: i1]>",
        ),
    ] {
        let out_ty = if w == 0 {
            "!handshake.control<>"
        } else {
            "!handshake.channel<i16>"
        };
        let short_out = if w == 0 {
            "!handshake.control<>"
        } else {
            "<i16>"
        };
        let body = format!(
            "    %0 = spec_commit[%c] %a {{handshake.name = \"u\"}} : {ty}, {short_out}, <i1>\n    end %0 : {short_out}"
        );
        let o = one_op(
            &shared,
            &[("c", "!handshake.channel<i1>"), ("a", full)],
            &[out_ty],
            &body,
        );
        let (given, taken) = run(
            &o,
            &[("c", 1, false), ("a", w, true)],
            &[("r0", w, false)],
            4000,
            21,
        );
        let plain: Vec<u64> = given[1]
            .iter()
            .filter(|t| !t.spec)
            .map(|t| t.data)
            .collect();
        let specs: Vec<u64> = given[1].iter().filter(|t| t.spec).map(|t| t.data).collect();
        let kept: Vec<u64> = (given[0].iter().zip(&specs))
            .filter(|(c, _)| c.data == 0)
            .map(|(_, d)| *d)
            .collect();
        let dropped = given[0]
            .iter()
            .zip(&specs)
            .filter(|(c, _)| c.data == 1)
            .count();
        assert!(
            taken[0].len() > 100 && dropped > 50,
            "{ty}: {} out, {dropped} dropped",
            taken[0].len()
        );
        // Every passed token left but the few still inside (its FIFO, the merge).
        let passed = plain.len() + kept.len();
        let n = taken[0].len();
        assert!(
            n <= passed && n + 3 >= passed,
            "{ty}: {n} left of {passed} passed"
        );
        let (mut a, mut b) = (plain.iter().peekable(), kept.iter().peekable());
        for (k, t) in taken[0].iter().enumerate() {
            if a.peek() == Some(&&t.data) {
                a.next();
            } else {
                assert_eq!(
                    b.next(),
                    Some(&t.data),
                    "{ty}: output {k} is neither stream's next"
                );
            }
        }
    }
}

/// `speculating_branch` sends each data token (its `spec` dropped) to `true` when the
/// `spec` of the matching `specTag` token is 1, else to `false`; `spec_v2_resolver`
/// answers each pair of conditions with its idle bit (Dynamatic's state machine).
#[test]
fn speculating_branch_and_resolver_follow_dynamatic() {
    let Some(shared) = shared() else { return };
    let tag = "!handshake.channel<i1, [spec: i1]>";
    let body = "    %0, %1 = speculating_branch[%t] %a {handshake.name = \"u\"} : !handshake.channel<i1, [spec: i1]>, !handshake.channel<i8, [spec: i1]>, !handshake.channel<i8>, !handshake.channel<i8>\n    end %0, %1 : <i8>, <i8>";
    let c8 = "!handshake.channel<i8>";
    let o = one_op(&shared, &[("t", tag), ("a", C8)], &[c8, c8], body);
    let (given, taken) = run(
        &o,
        &[("t", 1, true), ("a", 8, true)],
        &[("r0", 8, false), ("r1", 8, false)],
        3000,
        17,
    );
    let (mut t, mut f) = (taken[0].iter(), taken[1].iter());
    let n = taken[0].len() + taken[1].len();
    assert!(n > 100, "speculating_branch: only {n} tokens");
    for (k, (tag, a)) in given[0].iter().zip(&given[1]).take(n).enumerate() {
        let got = if tag.spec { t.next() } else { f.next() };
        assert_eq!(got.map(|g| g.data), Some(a.data), "token {k}");
    }
    let b1 = "!handshake.channel<i1>";
    let body =
        "    %0 = spec_v2_resolver %x, %y {handshake.name = \"u\"} : <i1>\n    end %0 : <i1>";
    let o = one_op(&shared, &[("x", b1), ("y", b1)], &[b1], body);
    let (given, taken) = run(
        &o,
        &[("x", 1, false), ("y", 1, false)],
        &[("r0", 1, false)],
        3000,
        19,
    );
    assert!(taken[0].len() > 200, "resolver: only {}", taken[0].len());
    let mut idle = true;
    for (k, r) in taken[0].iter().enumerate() {
        assert_eq!(r.data == 1, idle, "resolver: token {k}");
        let (actual, generated) = (given[0][k].data == 1, given[1][k].data == 1);
        idle = match idle {
            true => actual || !generated,
            false => !generated,
        };
    }
}

/// The state of Dynamatic's `spec_save_commit` (its VHDL generator's processes), stepped
/// here in Rust: the reference for the generated unit.
struct SaveCommit {
    mem: Vec<u64>,
    tail: usize,
    head: usize,
    curr: usize,
    full: bool,
    empty: bool,
    curr_empty: bool,
}

/// What the unit drives in one cycle: (outs, outs_valid, outs_spec, ins_ready, ctrl_ready).
type SaveCommitOut = (u64, bool, bool, bool, bool);

impl SaveCommit {
    fn new(depth: usize) -> SaveCommit {
        SaveCommit {
            mem: vec![0; depth],
            tail: 0,
            head: 0,
            curr: 0,
            full: false,
            empty: true,
            curr_empty: true,
        }
    }

    /// One cycle with inputs (ins, ins_valid, ctrl, ctrl_valid, outs_ready).
    fn step(
        &mut self,
        ins: u64,
        ins_valid: bool,
        ctrl: u64,
        cv: bool,
        ready: bool,
    ) -> SaveCommitOut {
        let d = self.mem.len();
        let tail_en = !self.full && ins_valid;
        let arriving = ins_valid && !self.full;
        let (mut head_en, mut curr_en, mut ctrl_ready, mut valid) = (false, false, false, false);
        let (mut outs, mut spec) = (self.mem[self.head], false);
        match (cv, ctrl) {
            (true, 0b000) | (true, 0b011) => {
                let kill = ctrl == 0b011;
                if self.curr_empty {
                    let ok = ready && arriving;
                    curr_en = ok;
                    head_en = kill && ok;
                    ctrl_ready = ok;
                    valid = arriving;
                    outs = ins;
                } else {
                    curr_en = ready;
                    head_en = kill && ready;
                    ctrl_ready = ready;
                    valid = true;
                    outs = self.mem[self.curr];
                }
                spec = true;
            }
            (true, 0b001) => {
                if self.head == self.curr {
                    curr_en = !self.empty;
                    head_en = !self.empty;
                    ctrl_ready = !self.empty;
                } else {
                    head_en = true;
                    ctrl_ready = true;
                }
            }
            (true, 0b010) => {
                head_en = ready;
                ctrl_ready = ready;
                valid = true;
            }
            (true, 0b100) => {
                if self.empty {
                    let ok = ready && arriving;
                    curr_en = ok;
                    head_en = ok;
                    ctrl_ready = ok;
                    valid = arriving;
                    outs = ins;
                } else {
                    curr_en = ready;
                    head_en = ready;
                    ctrl_ready = ready;
                    valid = true;
                }
            }
            _ => {}
        }
        let out = (outs, valid, spec, !self.full, ctrl_ready);
        if tail_en {
            self.mem[self.tail] = ins;
        }
        if tail_en && !head_en {
            if (self.tail + 2) % d == self.head {
                self.full = true;
            }
            self.empty = false;
        } else if !tail_en && head_en {
            self.full = false;
            if (self.head + 1) % d == self.tail {
                self.empty = true;
            }
        }
        if !tail_en && curr_en {
            if (self.curr + 1) % d == self.tail {
                self.curr_empty = true;
            }
        } else if tail_en && !curr_en {
            self.curr_empty = false;
        }
        self.tail = (self.tail + usize::from(tail_en)) % d;
        self.head = (self.head + usize::from(head_en)) % d;
        self.curr = (self.curr + usize::from(curr_en)) % d;
        out
    }
}

/// The generated `spec_save_commit` drives, cycle by cycle, what Dynamatic's VHDL does
/// (the model above) under random inputs: every command, valid and ready, for a FIFO of
/// 4 slots (wrapping often) and of 16 (the samples' depth).
#[test]
fn spec_save_commit_follows_dynamatics_processes() {
    let Some(shared) = shared() else { return };
    for depth in [4usize, 16] {
        let body = format!(
            "    %0 = spec_save_commit[%c] %a {{fifoDepth = {depth} : ui32, handshake.name = \"u\"}} : !handshake.channel<i8, [spec: i1]>, <i3>\n    end %0 : <i8, [spec: i1]>"
        );
        let o = one_op(
            &shared,
            &[("c", "!handshake.channel<i3>"), ("a", C8)],
            &[C8],
            &body,
        );
        let mut sim = Sim::new(&o);
        let mut model = SaveCommit::new(depth);
        let mut rng = Rng(23 + depth as u64);
        let mut reset = BTreeMap::new();
        reset.insert("rst".to_string(), true);
        sim.step(&reset);
        let word = |rng: &mut Rng, w: u32| (0..w).fold(0u64, |d, b| d | u64::from(rng.bit()) << b);
        let mut sent = 0;
        for cycle in 0..6000 {
            let (ins, iv, cv, ready) = (
                word(&mut rng, 8),
                rng.bit(),
                rng.bit(),
                rng.bit() || rng.bit(),
            );
            // Mostly the five commands, sometimes an unused code.
            let ctrl = match word(&mut rng, 4) {
                n @ 0..=4 => [0b000, 0b001, 0b010, 0b011, 0b100][n as usize],
                5..=12 => {
                    [0b000, 0b011, 0b100, 0b001, 0b000, 0b100, 0b010, 0b001][(cycle % 8) as usize]
                }
                n => n & 0b111,
            };
            let mut inputs = BTreeMap::new();
            for b in 0..8 {
                inputs.insert(format!("a[{b}]"), ins >> b & 1 == 1);
            }
            for b in 0..3 {
                inputs.insert(format!("c[{b}]"), ctrl >> b & 1 == 1);
            }
            inputs.insert("a_valid".into(), iv);
            inputs.insert("a_spec".into(), rng.bit());
            inputs.insert("c_valid".into(), cv);
            inputs.insert("r0_ready".into(), ready);
            let out = sim.step(&inputs);
            let want = model.step(ins, iv, ctrl, cv, ready);
            let data = (0..8).fold(0u64, |d, b| d | u64::from(out[&format!("r0[{b}]")]) << b);
            let got = (
                data,
                out["r0_valid"],
                out["r0_spec"],
                out["a_ready"],
                out["c_ready"],
            );
            assert_eq!(got, want, "depth {depth}, cycle {cycle}");
            sent += usize::from(want.1 && ready);
        }
        assert!(sent > 500, "depth {depth}: only {sent} tokens sent");
    }
}

/// The states of Dynamatic's `specgenCore`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Core {
    Pass,
    Spec,
    NoCmp,
    CmpCorrect,
    CmpWrong,
    Kill,
}

/// What `specgenCore`'s `output_proc` drives.
struct CoreOut {
    outs: u64,
    outs_spec: bool,
    code: u64,
    control_v: bool,
    fifo_v: bool,
    data_r: bool,
    predict_r: bool,
    fifo_r: bool,
}

/// One cycle's inputs of the speculator: data, its valid and `spec`, the trigger's valid
/// and `spec`, and the readies of the six outputs in result order.
struct SpecIn {
    ins: u64,
    ins_valid: bool,
    ins_spec: bool,
    trigger_valid: bool,
    trigger_spec: bool,
    ready: [bool; 6],
}

/// One cycle's outputs: the six outputs' (data, valid) in result order, the data output's
/// `spec`, and the readies of data and trigger.
#[derive(Debug, PartialEq, Eq)]
struct SpecOut {
    results: [(u64, bool); 6],
    outs_spec: bool,
    ins_ready: bool,
    trigger_ready: bool,
}

/// Dynamatic's `speculator` (its VHDL generator's entities: the data fork, `specgenCore`,
/// `predictor`, `predFifo`, the control fork and the five decoders), stepped here in Rust
/// process by process: the reference for the generated unit.
struct Speculator {
    state: Core,
    data_fork: [bool; 2],
    control_fork: [bool; 5],
    data_reg: u64,
    data_out: u64,
    mem: Vec<u64>,
    tail: usize,
    head: usize,
    full: bool,
    empty: bool,
}

/// An `eager_fork_register_block` row: (outs_valid, blockStop) of each output, given the
/// transmit registers, the input valid and the outputs' readies; and the fork's ins_ready.
fn eager(transmit: &[bool], valid: bool, ready: &[bool]) -> (Vec<bool>, Vec<bool>, bool) {
    let valids = transmit.iter().map(|&t| t && valid).collect();
    let stops: Vec<bool> = (transmit.iter().zip(ready))
        .map(|(&t, &r)| !r && t)
        .collect();
    let any = stops.iter().any(|&s| s);
    (valids, stops, !any)
}

/// The transmit registers after a clock edge.
fn eager_next(transmit: &mut [bool], stops: &[bool], valid: bool) {
    let backpressure = valid && stops.iter().any(|&s| s);
    for (t, &s) in transmit.iter_mut().zip(stops) {
        *t = s || !backpressure;
    }
}

impl Speculator {
    fn new(depth: usize) -> Speculator {
        Speculator {
            state: Core::Pass,
            data_fork: [true; 2],
            control_fork: [true; 5],
            data_reg: 1,
            data_out: 1,
            mem: vec![0; depth],
            tail: 0,
            head: 0,
            full: false,
            empty: true,
        }
    }

    /// `specgenCore`'s `output_proc` for the control fork's ready `cr`.
    fn core(&self, datap: bool, ins: u64, ins_spec: bool, i: &SpecIn, cr: bool) -> CoreOut {
        let (predp, predict) = (i.trigger_valid, self.data_out);
        let (fifo_ne, fifo_nf, fifo_ins) = (!self.empty, !self.full, self.mem[self.head]);
        let mut o = CoreOut {
            outs: ins,
            outs_spec: false,
            code: 0b000,
            control_v: false,
            fifo_v: false,
            data_r: false,
            predict_r: false,
            fifo_r: false,
        };
        match self.state {
            Core::Pass => {
                o.data_r = cr;
                o.predict_r = fifo_nf && cr;
                o.fifo_r = datap && fifo_ne && ins == fifo_ins;
                if !datap && predp && fifo_nf {
                    (o.control_v, o.code, o.outs, o.outs_spec, o.fifo_v) =
                        (true, 0b000, predict, true, true);
                } else if datap && !fifo_ne {
                    (o.control_v, o.code) = (true, 0b001);
                } else if datap && predp && fifo_ne && ins == fifo_ins {
                    (o.control_v, o.code, o.outs, o.outs_spec, o.fifo_v) =
                        (true, 0b101, predict, true, true);
                } else if datap && !predp && fifo_ne && ins == fifo_ins {
                    (o.control_v, o.code) = (true, 0b010);
                } else if datap && fifo_ne && ins != fifo_ins {
                    (o.predict_r, o.control_v, o.code) = (false, true, 0b011);
                }
            }
            Core::Spec => {
                (o.predict_r, o.control_v, o.code, o.outs, o.outs_spec) =
                    (cr, true, 0b000, predict, true);
            }
            Core::NoCmp => (o.data_r, o.control_v, o.code) = (cr, true, 0b001),
            Core::CmpCorrect => (o.data_r, o.control_v, o.code) = (cr, true, 0b010),
            Core::CmpWrong => (o.data_r, o.control_v, o.code) = (cr, true, 0b011),
            Core::Kill => {
                (o.fifo_r, o.control_v, o.code) = (cr, fifo_ne, 0b100);
                (o.predict_r, o.data_r) = (i.trigger_spec, ins_spec);
            }
        }
        o
    }

    fn step(&mut self, i: &SpecIn, rst: bool) -> SpecOut {
        // The data fork; its second output, the predictor's, is always ready.
        let (fork_valid, _, _) = eager(&self.data_fork, i.ins_valid, &[true, true]);
        let datap = fork_valid[0];
        // The core's code and valid do not depend on the control fork's ready.
        let first = self.core(datap, i.ins, i.ins_spec, i, false);
        let (code, cv) = (first.code, first.control_v);
        let (cvalid, _, _) = eager(&self.control_fork, cv, &[true; 5]);
        let [out_r, save_r, commit_r, sc_save_r, sc_commit_r, branch_r] = i.ready;
        // The decoders: (in_ready, out_valid, out_data).
        let decide = |v: bool, r: bool| match code {
            0b010 | 0b101 => (r, v, 0),
            0b100 => (r, v, u64::from(v)),
            _ => (true, false, 0),
        };
        let branch = decide(cvalid[0], branch_r);
        let commit = decide(cvalid[2], commit_r);
        let sc_ready = match code {
            0b000 | 0b001 | 0b010 | 0b011 | 0b101 => sc_save_r,
            _ => sc_commit_r,
        };
        let v = cvalid[1];
        let (sc_save, sc_commit) = match code {
            0b000 => ((v, 0b000), (false, 0)),
            0b001 => ((v, if v { 0b100 } else { 0 }), (false, 0)),
            0b010 => ((v, if v { 0b001 } else { 0 }), (false, 0)),
            0b101 => ((v, if v { 0b011 } else { 0 }), (false, 0)),
            0b011 => ((v, if v { 0b010 } else { 0 }), (false, 0)),
            0b100 => ((false, 0), (v, if v { 0b001 } else { 0 })),
            _ => ((false, 0), (false, 0)),
        };
        let save = match code {
            0b001 | 0b010 | 0b101 => (save_r, cvalid[3], u64::from(cvalid[3])),
            0b011 => (save_r, cvalid[3], 0),
            _ => (true, false, 0),
        };
        let output = match code {
            0b000 | 0b001 | 0b011 | 0b101 => (out_r, cvalid[4]),
            _ => (true, false),
        };
        let readies = [branch.0, sc_ready, commit.0, save.0, output.0];
        let (_, cstops, cr) = eager(&self.control_fork, cv, &readies);
        let core = self.core(datap, i.ins, i.ins_spec, i, cr);
        let (_, dstops, ins_ready) = eager(&self.data_fork, i.ins_valid, &[core.data_r, true]);
        let out = SpecOut {
            results: [
                (core.outs, output.1),
                (save.2, save.1),
                (commit.2, commit.1),
                (sc_save.1, sc_save.0),
                (sc_commit.1, sc_commit.0),
                (branch.2, branch.1),
            ],
            outs_spec: core.outs_spec,
            ins_ready,
            trigger_ready: core.predict_r,
        };
        // Clock edge.
        let d = self.mem.len();
        let (eq, fifo_ne) = (i.ins == self.mem[self.head], !self.empty);
        let fifo_nf = !self.full;
        let tail_en = !self.full && core.fifo_v;
        let head_en = !self.empty && core.fifo_r;
        if rst {
            *self = Speculator {
                mem: std::mem::take(&mut self.mem),
                ..Speculator::new(d)
            };
            return out;
        }
        self.state = match self.state {
            Core::Pass if !datap && i.trigger_valid && fifo_nf && !cr => Core::Spec,
            Core::Pass if datap && !fifo_ne && !cr => Core::NoCmp,
            Core::Pass if datap && fifo_ne && eq && !cr => Core::CmpCorrect,
            Core::Pass if datap && fifo_ne && !eq && !cr => Core::CmpWrong,
            Core::Pass if datap && fifo_ne && !eq && cr => Core::Kill,
            Core::Spec | Core::NoCmp | Core::CmpCorrect if cr => Core::Pass,
            Core::CmpWrong if cr => Core::Kill,
            Core::Kill
                if !fifo_ne && datap && !i.ins_spec && i.trigger_valid && !i.trigger_spec =>
            {
                Core::Pass
            }
            s => s,
        };
        // predictor (every register takes the values from before the edge)
        let (data_reg, predict) = (self.data_reg, self.data_out);
        if fork_valid[1] {
            self.data_reg = i.ins;
        }
        if core.predict_r && i.trigger_valid {
            self.data_out = data_reg;
        }
        // predFifo: its input is the core's `fifo_outs`, the prediction
        if tail_en {
            self.mem[self.tail] = predict;
        }
        if tail_en && !head_en {
            if (self.tail + 1) % d == self.head {
                self.full = true;
            }
        } else if !tail_en && head_en {
            self.full = false;
        }
        if !tail_en && head_en {
            if (self.head + 1) % d == self.tail {
                self.empty = true;
            }
        } else if tail_en && !head_en {
            self.empty = false;
        }
        self.tail = (self.tail + usize::from(tail_en)) % d;
        self.head = (self.head + usize::from(head_en)) % d;
        eager_next(&mut self.data_fork, &dstops, i.ins_valid);
        eager_next(&mut self.control_fork, &cstops, cv);
        out
    }
}

/// The generated `speculator` drives, cycle by cycle, what Dynamatic's VHDL does (the
/// model above) under random inputs, for data of 2 bits and a FIFO of 3 predictions
/// (wrapping and filling often) and of 1 bit with 16 (the sample's); every state of the
/// core is visited many times.
#[test]
fn speculator_follows_dynamatics_processes() {
    let Some(shared) = shared() else { return };
    for (width, depth) in [(2u32, 3usize), (1, 16)] {
        let c = format!("!handshake.channel<i{width}, [spec: i1]>");
        let t = "!handshake.control<[spec: i1]>";
        let body = format!(
            "    %d, %s, %c, %ss, %sc, %m = speculator[%t] %a {{constant = true, defaultValue = 1 : ui32, fifoDepth = {depth} : ui32, handshake.name = \"u\"}} : <[spec: i1]>, <i{width}, [spec: i1]>, <i{width}, [spec: i1]>, <i1>, <i1>, <i3>, <i3>, <i1>\n    end %d, %s, %c, %ss, %sc, %m : <i{width}, [spec: i1]>, <i1>, <i1>, <i3>, <i3>, <i1>"
        );
        let results = [
            c.as_str(),
            "!handshake.channel<i1>",
            "!handshake.channel<i1>",
            "!handshake.channel<i3>",
            "!handshake.channel<i3>",
            "!handshake.channel<i1>",
        ];
        let o = one_op(&shared, &[("t", t), ("a", &c)], &results, &body);
        let mut sim = Sim::new(&o);
        let mut model = Speculator::new(depth);
        let mut rng = Rng(41 + depth as u64);
        let word = |rng: &mut Rng, w: u32| (0..w).fold(0u64, |d, b| d | u64::from(rng.bit()) << b);
        let bit_names = |name: &str, w: u32| -> Vec<String> {
            match w {
                1 => vec![name.to_string()],
                w => (0..w).map(|b| format!("{name}[{b}]")).collect(),
            }
        };
        let widths = [width, 1, 1, 3, 3, 1];
        let mut visits = BTreeMap::<Core, usize>::new();
        let mut rst = true;
        for cycle in 0..8000 {
            // A reset now and then; mostly speculation bits of 0, so that KILL ends.
            if cycle > 0 {
                rst = word(&mut rng, 9) == 0;
            }
            let i = SpecIn {
                ins: word(&mut rng, width),
                ins_valid: rng.bit(),
                ins_spec: rng.bit() && rng.bit(),
                trigger_valid: rng.bit() || rng.bit(),
                trigger_spec: rng.bit() && rng.bit(),
                ready: [(); 6].map(|_| rng.bit() || rng.bit()),
            };
            let mut inputs = BTreeMap::new();
            for (b, n) in bit_names("a", width).into_iter().enumerate() {
                inputs.insert(n, i.ins >> b & 1 == 1);
            }
            inputs.insert("a_valid".to_string(), i.ins_valid);
            inputs.insert("a_spec".to_string(), i.ins_spec);
            inputs.insert("t_valid".to_string(), i.trigger_valid);
            inputs.insert("t_spec".to_string(), i.trigger_spec);
            inputs.insert("rst".to_string(), rst);
            for (k, &r) in i.ready.iter().enumerate() {
                inputs.insert(format!("r{k}_ready"), r);
            }
            *visits.entry(model.state).or_default() += 1;
            let out = sim.step(&inputs);
            let want = model.step(&i, rst);
            if rst {
                continue;
            }
            let results = std::array::from_fn(|k| {
                let names = bit_names(&format!("r{k}"), widths[k]);
                let data =
                    (names.iter().enumerate()).fold(0u64, |d, (b, n)| d | u64::from(out[n]) << b);
                (data, out[&format!("r{k}_valid")])
            });
            let got = SpecOut {
                results,
                outs_spec: out["r0_spec"],
                ins_ready: out["a_ready"],
                trigger_ready: out["t_ready"],
            };
            assert_eq!(got, want, "width {width}, depth {depth}, cycle {cycle}");
        }
        println!("width {width}, depth {depth}: cycles per state {visits:?}");
        assert_eq!(visits.len(), 6, "{visits:?}");
        assert!(visits.values().all(|&n| n >= 40), "{visits:?}");
    }
}

/// `export_spec_subdiag_fast_out_v1` whole, its `speculator` and `spec_save_commit`s
/// generated, run from its AIGER output: `for (i = 0; i < 998 && e[i] > (d1[i] +
/// d2[i + 1]) * 0.001f; i++);` returns `i`. A memory's read data is its memref port (the
/// BRAM addresses stay inside the memory controllers), so each memory holds one value
/// everywhere: with `e` above the bound the loop runs 998 speculated iterations (each
/// prediction right but the last), below it the first prediction is wrong and killed.
/// A complement to the cycle-by-cycle check above: it shows the generated units work
/// together in the design Dynamatic made them for.
#[test]
fn the_speculative_loop_returns_its_count() {
    let Some(shared) = shared() else { return };
    let path = shared.join("handshake_examples/export_spec_subdiag_fast_out_v1.mlir");
    let o = synth(&std::fs::read_to_string(path).unwrap(), &shared);
    assert!(
        o.diagnostics.iter().all(|d| !d.message.contains("opaque")),
        "{:?}",
        o.diagnostics
    );
    for (d1, d2, e, want) in [(1.0f32, 2.0f32, 1.0f32, 998u64), (1.0, 2.0, 0.001, 0)] {
        let mut sim = Sim::new(&o);
        let mut inputs = BTreeMap::new();
        inputs.insert("rst".to_string(), true);
        sim.step(&inputs);
        sim.step(&inputs);
        inputs.insert("rst".to_string(), false);
        for (name, v) in [("d1", d1), ("d2", d2), ("e", e)] {
            for b in 0..32 {
                inputs.insert(format!("{name}[{b}]"), v.to_bits() >> b & 1 == 1);
            }
            inputs.insert(format!("{name}_valid"), true);
        }
        for name in ["out0", "d1_end", "d2_end", "e_end", "end"] {
            inputs.insert(format!("{name}_ready"), true);
        }
        let starts = ["d1_start", "d2_start", "e_start", "start"];
        let mut pending: Vec<&str> = starts.to_vec();
        let (mut result, mut ends) = (Vec::new(), BTreeMap::<String, usize>::new());
        let mut cycles = 0;
        while cycles < 60_000 && (result.is_empty() || ends.len() < 4) {
            for s in starts {
                inputs.insert(format!("{s}_valid"), pending.contains(&s));
            }
            let out = sim.step(&inputs);
            pending.retain(|s| !out[&format!("{s}_ready")]);
            if out["out0_valid"] {
                result.push(
                    (0..32).fold(0u64, |d, b| d | u64::from(out[&format!("out0[{b}]")]) << b),
                );
            }
            for name in ["d1_end", "d2_end", "e_end", "end"] {
                if out[&format!("{name}_valid")] {
                    *ends.entry(name.to_string()).or_default() += 1;
                }
            }
            cycles += 1;
        }
        println!("e = {e}: returned {result:?} after {cycles} cycles; ends {ends:?}");
        assert_eq!(result, [want], "e = {e}");
        assert_eq!(ends.len(), 4, "e = {e}: {ends:?}");
        // Speculation starts an iteration about every cycle; waiting for each condition
        // (two loads, `addf`, `mulf`, `cmpf`) would take many.
        assert!(cycles < 2 * want as usize + 100, "e = {e}: {cycles} cycles");
    }
}
