//! The BLIF edge cases of the project notes, each with its exact expected AIG behaviour, and
//! the malformed corpus (tests/data/blif/malformed/): every file must give an error whose
//! line and message match the file's `# expect: LINE: TEXT` header, never a panic.

mod common;

use common::truth;

use compiler::aig::{self, Aig, Lit, Lowered};
use compiler::blif::{self, Init};
use compiler::diag::LineIndex;

fn lower(text: &str) -> (Lowered, Vec<String>) {
    let parsed = blif::parse(text).unwrap_or_else(|d| panic!("{}", d.render("t.blif", text)));
    let file =
        aig::lower_file(&parsed.file).unwrap_or_else(|d| panic!("{}", d.render("t.blif", text)));
    let mut warnings: Vec<String> = parsed.warnings.iter().map(|d| d.message.clone()).collect();
    for l in file.models.values() {
        warnings.extend(l.warnings.iter().map(|d| d.message.clone()));
    }
    (file.top().clone(), warnings)
}

fn top(text: &str) -> Aig {
    lower(text).0.aig
}

/// The error (parse or lowering) of `text`, rendered.
fn error(text: &str) -> String {
    let parsed = match blif::parse(text) {
        Ok(p) => p,
        Err(d) => return d.render("t.blif", text),
    };
    match aig::lower_file(&parsed.file) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(d) => d.render("t.blif", text),
    }
}

fn column(g: &Aig, out: usize) -> Vec<bool> {
    truth(g).into_iter().map(|r| r[out]).collect()
}

#[test]
fn off_set_covers() {
    let g = top(
        ".model m\n.inputs a b\n.outputs y z\n.names a b y\n11 0\n00 0\n.names a b z\n1- 0\n.end\n",
    );
    assert_eq!(column(&g, 0), [false, true, true, false]); // a xor b
    assert_eq!(column(&g, 1), [true, false, true, false]); // !a
}

#[test]
fn empty_cover_is_constant_zero() {
    let g = top(".model m\n.inputs a\n.outputs e0\n.names a e0\n.end\n");
    assert_eq!(g.outputs()[0].lit, Lit::FALSE);
    assert_eq!(g.and_count(), 0);
}

#[test]
fn constant_forms() {
    let g = top(
        ".model m\n.inputs a b c\n.outputs c1 c0 c2 t\n.names c1\n1\n.names c0\n0\n.names c2\n 1\n.names a b c t\n--- 1\n.end\n",
    );
    let lits: Vec<Lit> = g.outputs().iter().map(|p| p.lit).collect();
    assert_eq!(lits, [Lit::TRUE, Lit::FALSE, Lit::TRUE, Lit::TRUE]);
}

#[test]
fn comment_after_rowless_names() {
    let g =
        top(".model m\n.outputs z\n.names z\n# a comment right after a row-less .names\n.end\n");
    assert_eq!(g.outputs()[0].lit, Lit::FALSE);
}

#[test]
fn continuation_with_trailing_blanks_tabs_crlf() {
    let g = top(
        ".model m\r\n.inputs a \\   \r\n\tb\r\n.outputs y # c\r\n.names a b y\r\n11 1 # c\r\n.end\r\n",
    );
    assert_eq!(g.inputs().len(), 2);
    assert_eq!(column(&g, 0), [false, false, false, true]);
}

#[test]
fn latch_forms_and_default_init() {
    let g = top(
        ".model m\n.inputs a clk\n.outputs q1\n.latch a q1\n.latch a q2 1\n.latch a q3 re clk\n.latch a q4 re clk 0\n\
         .latch a q5 fe clk 1\n.latch a q6 ah clk 2\n.latch a q7 al clk 3\n.latch a q8 as NIL 0\n.end\n",
    );
    let inits: Vec<u8> = g.latches().iter().map(|l| l.init.digit()).collect();
    assert_eq!(inits, [3, 1, 3, 0, 1, 2, 3, 0]);
    let names: Vec<&str> = g.latches().iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8"]);
    // The clock stays a primary input; every latch's next state is `a`.
    assert_eq!(g.inputs()[1].name, "clk");
    assert!(g.latches().iter().all(|l| l.next == g.inputs()[0].lit));
}

#[test]
fn latch_feedback_is_not_a_loop() {
    let g =
        top(".model m\n.inputs en\n.outputs t\n.latch nt t 0\n.names t en nt\n01 1\n10 1\n.end\n");
    assert_eq!(g.latches().len(), 1);
    let (_, next) = g.eval(&[true], &[false]);
    assert_eq!(next, [true]);
    let (_, next) = g.eval(&[true], &[true]);
    assert_eq!(next, [false]);
}

#[test]
fn subckt_child_later_pins_any_order_unused_output() {
    let (l, _) = lower(
        ".model top\n.inputs a b\n.outputs y\n.subckt and2 z=y y=b x=a\n.end\n\
         .model and2\n.inputs x y\n.outputs z spare\n.names x y z\n11 1\n.names x spare\n0 1\n.end\n",
    );
    assert_eq!(column(&l.aig, 0), [false, false, false, true]);
    assert_eq!(l.aig.and_count(), 1);
}

#[test]
fn subckt_latches_are_copied_per_instance() {
    let g = top(
        ".model top\n.inputs d\n.outputs q\n.subckt ff i=d o=m\n.subckt ff i=m o=q\n.cname second\n.end\n\
         .model ff\n.inputs i\n.outputs o\n.latch i o 1\n.end\n",
    );
    let names: Vec<(&str, Init)> = g
        .latches()
        .iter()
        .map(|l| (l.name.as_str(), l.init))
        .collect();
    assert_eq!(names, [("ff_0/o", Init::One), ("second/o", Init::One)]);
}

#[test]
fn per_pin_dependencies_allow_feedback_through_an_instance() {
    let g = top(
        ".model top\n.inputs a\n.outputs y\n.subckt pass i1=a i2=m o1=p o2=y\n.names p m\n0 1\n.end\n\
         .model pass\n.inputs i1 i2\n.outputs o1 o2\n.names i1 o1\n1 1\n.names i2 o2\n1 1\n.end\n",
    );
    assert_eq!(g.outputs()[0].lit, !g.inputs()[0].lit);
}

#[test]
fn true_loop_through_an_instance_is_rejected() {
    let e = error(
        ".model top\n.inputs a\n.outputs y\n.subckt buf i=y o=y2\n.names y2 a y\n11 1\n.end\n\
         .model buf\n.inputs i\n.outputs o\n.names i o\n1 1\n.end\n",
    );
    assert!(e.contains("combinational loop"), "{e}");
    assert!(e.contains("loop: "), "{e}");
}

#[test]
fn exdc_is_ignored_with_warning() {
    let (l, w) = lower(
        ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.exdc\n.inputs a\n.outputs y\n.names a y\n0 1\n.end\n",
    );
    assert_eq!(l.aig.outputs()[0].lit, l.aig.inputs()[0].lit);
    assert!(w.iter().any(|m| m.contains(".exdc")), "{w:?}");
}

#[test]
fn timing_directives_warn_once_per_kind() {
    let (_, w) = lower(
        ".model m\n.inputs a\n.outputs y\n.clock a\n.wire_load_slope 0.1\n.wire_load_slope 0.2\n.area 3\n.names a y\n1 1\n.end\n",
    );
    assert_eq!(w.len(), 3, "{w:?}");
}

#[test]
fn repeated_inputs_outputs_and_no_model_or_end() {
    let g =
        top(".inputs a\n.inputs b\n.outputs y\n.outputs z\n.names a b y\n11 1\n.names a z\n0 1\n");
    assert_eq!(g.name, "");
    assert_eq!(g.inputs().len(), 2);
    assert_eq!(g.outputs().len(), 2);
}

#[test]
fn undriven_nets_read_zero_with_warning() {
    let (l, w) = lower(".model m\n.inputs a\n.outputs y u\n.names a nowhere y\n1- 1\n-1 1\n.end\n");
    assert_eq!(l.aig.outputs()[0].lit, l.aig.inputs()[0].lit);
    assert_eq!(l.aig.outputs()[1].lit, Lit::FALSE);
    assert_eq!(l.undriven, ["nowhere", "u"]);
    // One warning per model, naming the nets (at most eight of them).
    assert_eq!(
        w,
        ["2 nets have no driver; they read as constant 0: `nowhere`, `u`"]
    );
    let outputs: Vec<String> = (0..10).map(|i| format!("o{i}")).collect();
    let text = format!(".model m\n.outputs {}\n.end\n", outputs.join(" "));
    let (l, w) = lower(&text);
    assert_eq!(l.undriven, outputs);
    assert_eq!(
        w,
        [
            "10 nets have no driver; they read as constant 0: `o0`, `o1`, `o2`, `o3`, `o4`, `o5`, `o6`, `o7` and 2 more"
        ]
    );
    let (_, w) = lower(".model m\n.outputs y\n.end\n");
    assert_eq!(w, ["net `y` has no driver; it reads as constant 0"]);
}

#[test]
fn repeated_fanin_semantics() {
    let g = top(
        ".model m\n.inputs a b\n.outputs y z\n.names a a b y\n1-1 1\n.names a a z\n10 1\n.end\n",
    );
    assert_eq!(column(&g, 0), [false, false, false, true]); // a & b
    assert_eq!(g.outputs()[1].lit, Lit::FALSE); // a & !a
}

#[test]
fn po_that_is_pi_and_odd_names() {
    let name = "$paramod\\eth\\W=s32'1[0]<1>:a/b*c.d";
    let g = top(&format!(
        ".model m\n.inputs {name}\n.outputs {name} y\n.names {name} y\n0 1\n.end\n"
    ));
    assert_eq!(g.inputs()[0].name, name);
    assert_eq!(g.outputs()[0].name, name);
    assert_eq!(g.outputs()[0].lit, g.inputs()[0].lit);
    assert_eq!(g.outputs()[1].lit, !g.inputs()[0].lit);
}

#[test]
fn conn_is_a_buffer() {
    let g = top(".model m\n.inputs a\n.outputs y\n.conn a y\n.end\n");
    assert_eq!(g.outputs()[0].lit, g.inputs()[0].lit);
}

#[test]
fn several_roots_first_is_top() {
    let (l, _) = lower(
        ".model k\n.inputs a\n.outputs y\n.names a y\n1 1\n.end\n.model other\n.inputs b\n.outputs z\n.names b z\n0 1\n.end\n",
    );
    assert_eq!(l.aig.name, "k");
}

#[test]
fn rejected_cases_have_line_numbers() {
    let cases: &[(&str, &str)] = &[
        (
            ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n0 0\n",
            "t.blif:6:3: error: cover mixes",
        ),
        (
            ".model m\n.inputs a\n.outputs y\n.names a y\n11 1\n",
            "t.blif:5:1: error: cover row `11` has width 2",
        ),
        (
            ".model m\n.inputs a\n.outputs y\n.names a y\n1 1\n.names a y\n0 1\n",
            "t.blif:6:10: error: net `y` is driven more than once",
        ),
        (
            ".model m\n.subckt nope a=b\n",
            "t.blif:2:9: error: unknown model `nope`",
        ),
        (
            ".model m\n.subckt m a=b\n",
            "t.blif:2:9: error: recursive model instantiation",
        ),
        (
            ".model m\n.inputs a\n.outputs y\n.names y a y\n11 1\n",
            "t.blif:4:1: error: combinational loop",
        ),
        (
            ".model m\n.gate nand2 a=b\n",
            "t.blif:2:1: error: `.gate` needs a cell library",
        ),
        (
            ".model m\n.mlatch d a=b c 0\n",
            "t.blif:2:1: error: `.mlatch` needs a cell library",
        ),
        (
            ".model m\n.start_kiss\n",
            "t.blif:2:1: error: `.start_kiss`",
        ),
        (".model m\n.blackbox\n", "t.blif:2:1: error: `.blackbox`"),
    ];
    for (text, want) in cases {
        let got = error(text);
        assert!(got.starts_with(want), "want `{want}`, got:\n{got}");
    }
}

#[test]
fn malformed_corpus_reports_expected_lines() {
    let dir = common::data("blif/malformed");
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).unwrap();
        let header = text.lines().next().unwrap_or_default();
        let spec = header
            .strip_prefix("# expect: ")
            .unwrap_or_else(|| panic!("{}: no expect header", path.display()));
        let (line, msg) = spec.split_once(": ").unwrap();
        let line: usize = line.parse().unwrap();
        let d = match blif::parse(&text) {
            Err(d) => d,
            Ok(p) => aig::lower_file(&p.file).expect_err(&path.display().to_string()),
        };
        let span = d.span.expect("located diagnostic");
        let got = LineIndex::new(&text)
            .position(&text, span.start as usize)
            .line;
        assert_eq!(got, line, "{}: {}", path.display(), d.message);
        assert!(
            d.message.contains(msg) || d.notes.iter().any(|n| n.contains(msg)),
            "{}: `{}` lacks `{msg}`",
            path.display(),
            d.message
        );
        n += 1;
    }
    assert!(n >= 20, "only {n} malformed files");
}

#[test]
fn writers_agree_with_reader() {
    let g = top(&std::fs::read_to_string(common::data("blif/edge/latches.blif")).unwrap());
    let back = aig::read_aiger(&aig::write_aiger_binary(&g)).unwrap();
    let back_a = aig::read_aiger(aig::write_aag(&g).as_bytes()).unwrap();
    assert_eq!(back.and_count(), g.and_count());
    assert_eq!(back_a.and_count(), g.and_count());
    // The BLIF writer's output lowers to the same AIG (same structure after hashing).
    let again = top(&aig::write_blif(&g));
    assert_eq!(again.and_count(), g.and_count());
    assert_eq!(truth(&again), truth(&g));
}

#[test]
fn garbage_never_panics() {
    let inputs = [
        "",
        "\\",
        ".names",
        ".latch",
        ".subckt",
        ".model m\n.subckt",
        "1 1",
        ".names a\n1 1 1",
        "\u{0}\u{1}\n.\n..",
        ".conn a b c",
    ];
    for t in inputs {
        if let Ok(p) = blif::parse(t) {
            let _ = aig::lower_file(&p.file);
        }
    }
}

/// A 20,000-deep chain of models, each instantiating the next through an inverter: lowered
/// without recursion, to the identity (an even number of inversions) with no AND node.
#[test]
fn twenty_thousand_model_chain() {
    const N: usize = 20_000;
    let mut text = String::new();
    for i in 0..N {
        text.push_str(&format!(".model m{i}\n.inputs a\n.outputs y\n"));
        if i + 1 < N {
            text.push_str(&format!(
                ".subckt m{} a=a y=t\n.names t y\n0 1\n.end\n",
                i + 1
            ));
        } else {
            text.push_str(".names a y\n0 1\n.end\n");
        }
    }
    let g = top(&text);
    assert_eq!(g.and_count(), 0);
    assert_eq!(column(&g, 0), [false, true]);
}
