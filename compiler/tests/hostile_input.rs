//! Hostile input: the minimised reproducers of `tests/data/hostile/` give located
//! diagnostics (never a panic or an allocation sized by the input), and every limit of
//! [`Limits`] is checked before it sizes anything and names how to raise it.

mod common;

use compiler::diag::Diagnostic;
use compiler::handshake::{self, Naming, PathTable};
use compiler::limits::{Limit, Limits};

/// Parse, analyse, mark and build without a library (built-in generators only).
fn synth(text: &str, limits: &Limits) -> Result<(), Diagnostic> {
    let module = compiler::mlir::parse_with(text, limits)?;
    let func = handshake::find_func(&module.ops)?;
    let circuit = handshake::analyze(func, Naming::ArgNames)?;
    let table = PathTable::default();
    let marks = handshake::mark::mark_circuit_with(func, &circuit, &table, limits)?;
    handshake::build(&circuit, &marks, &Default::default())?;
    Ok(())
}

fn reproducer(name: &str) -> String {
    std::fs::read_to_string(common::data(&format!("hostile/{name}"))).unwrap()
}

/// The error of `name`, which must point into the text at `needle`.
fn located(name: &str, needle: &str) -> Diagnostic {
    let text = reproducer(name);
    let d = synth(&text, &Limits::DEFAULT).expect_err(name);
    let span = d.span.unwrap_or_else(|| panic!("{name}: no span in {d:?}"));
    let at = text.find(needle).unwrap();
    assert!(
        (span.start as usize..span.end.max(span.start + 1) as usize).contains(&at),
        "{name}: {d:?} not at `{needle}`"
    );
    d
}

#[test]
fn trunci_to_a_wider_type_is_a_diagnostic() {
    let d = located("trunci_wider.mlir", "trunci %a");
    assert!(d.message.contains("narrower"), "{}", d.message);
}

#[test]
fn ext_to_a_zero_width_channel_is_a_diagnostic() {
    let d = located("ext_to_i0.mlir", "extsi %a");
    assert!(d.message.contains("wider"), "{}", d.message);
}

#[test]
fn a_huge_result_count_is_refused_before_allocating() {
    let d = located("result_count.mlir", "2147483648");
    assert!(d.message.contains("--max-results"), "{}", d.message);
    assert!(d.message.contains("max_results"), "{}", d.message);
}

#[test]
fn a_huge_buffer_slot_count_is_refused_before_generating() {
    let d = located("buffer_slots.mlir", "buffer %a");
    assert!(d.message.contains("--max-results"), "{}", d.message);
}

#[test]
fn integer_widths_over_the_limit_are_refused() {
    for (name, needle) in [
        ("wide_int.mlir", "i16777215"),
        ("wide_attr.mlir", "i16777215"),
    ] {
        let d = located(name, needle);
        assert!(d.message.contains("--max-int-width"), "{}", d.message);
    }
    // Raising the limit lets the width through the parser.
    let mut big = Limits::DEFAULT;
    big.set(Limit::IntWidth, 1 << 24);
    compiler::mlir::parse_with(&reproducer("wide_attr.mlir"), &big).unwrap();
    // Lowering it stays bounded by the limit: one bit over is refused, the limit is not.
    let at = |w: u32| format!("module {{\n  %0 = \"t.op\"() {{v = 1 : i{w}}} : () -> i{w}\n}}\n");
    let w = Limits::DEFAULT.max_int_width;
    assert!(compiler::mlir::parse(&at(w)).is_ok());
    assert!(compiler::mlir::parse(&at(w + 1)).is_err());
}

#[test]
fn two_outputs_of_one_instance_on_one_net_are_a_diagnostic() {
    let text = reproducer("two_pins_one_net.blif");
    let parsed = compiler::blif::parse(&text).unwrap();
    let d = compiler::aig::lower_file(&parsed.file).unwrap_err();
    assert!(d.message.contains("driven more than once"), "{}", d.message);
    assert!(d.notes.iter().any(|n| n.contains(".subckt pass")), "{d:?}");
}

/// A chain of `n` models, each instantiating the next `fan` times in series; the last is a
/// latch (so instances never merge by structural hashing).
fn chain(n: usize, fan: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        s.push_str(&format!(".model m{i}\n.inputs a\n.outputs y\n"));
        if i + 1 == n {
            s.push_str(".latch a y 0\n");
        } else {
            for k in 0..fan {
                let out = if k == 0 {
                    "t0".to_string()
                } else {
                    format!("t{k}")
                };
                let inp = if k == 0 {
                    "a".to_string()
                } else {
                    format!("t{}", k - 1)
                };
                s.push_str(&format!(".subckt m{} a={inp} y={out}\n", i + 1));
            }
            s.push_str(&format!(".names t{} y\n1 1\n", fan - 1));
        }
        s.push_str(".end\n");
    }
    s
}

/// The diagnostic of lowering the BLIF `text` with `limit` set to `value`, which must fail.
fn lower_refused(text: String, limit: Limit, value: u64) -> compiler::diag::Diagnostic {
    let parsed = compiler::blif::parse(&text).unwrap();
    let mut limits = Limits::DEFAULT;
    limits.set(limit, value);
    compiler::aig::lower_file_with(&parsed.file, &limits).unwrap_err()
}

#[test]
fn deep_hierarchies_lower_without_overflowing_the_stack() {
    // Deeper than any recursion on the main thread's stack would survive.
    let text = chain(20_000, 1);
    let parsed = compiler::blif::parse(&text).unwrap();
    let lowered = compiler::aig::lower_file(&parsed.file).unwrap();
    assert_eq!(lowered.top().aig.inputs().len(), 1);
}

#[test]
fn hierarchy_depth_over_the_limit_is_a_located_diagnostic() {
    let d = lower_refused(chain(50, 1), Limit::Depth, 10);
    assert!(d.message.contains("--max-depth"), "{}", d.message);
    assert!(d.span.is_some());
}

#[test]
fn a_hierarchy_that_doubles_per_level_is_refused_before_it_grows() {
    // 64 levels of two instances each: 2^64 nodes flattened.
    let d = lower_refused(chain(64, 2), Limit::Nodes, 100_000);
    assert!(d.message.contains("--max-nodes"), "{}", d.message);
    // Refused at the first model over the bound: m49, whose two instances of m50 flatten
    // to 7 * 2^13 - 4 nodes each (every node of an instance's box counts, inputs included:
    // flattening maps each of them once per instance).
    assert!(d.message.contains("model `m49`"), "{}", d.message);
}
