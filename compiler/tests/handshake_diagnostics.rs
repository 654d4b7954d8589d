//! Unsupported or malformed Handshake inputs give located diagnostics, never panics.

use compiler::diag::{Diagnostic, Severity};
use compiler::handshake::{self, Naming, PathTable};

/// Runs the pass up to the flat design without a library (built-in generators only).
fn lower(text: &str) -> Result<Vec<Diagnostic>, Diagnostic> {
    let module = compiler::mlir::parse(text)?;
    let func = handshake::find_func(&module.ops)?;
    let circuit = handshake::analyze(func, Naming::ArgNames)?;
    let marks = handshake::mark::mark_circuit(func, &circuit, &PathTable::default())?;
    let out = handshake::build(&circuit, &marks, &Default::default())?;
    Ok(out.warnings)
}

fn error_of(text: &str) -> Diagnostic {
    match lower(text) {
        Err(d) => d,
        Ok(w) => panic!("expected an error, got warnings {w:?}"),
    }
}

fn located_at(d: &Diagnostic, text: &str, needle: &str) {
    let span = d.span.unwrap_or_else(|| panic!("no span: {d:?}"));
    let at = text.find(needle).unwrap();
    assert!(
        (span.start as usize) <= at && at < span.end.max(span.start + 1) as usize
            || span.start as usize == at,
        "{d:?} not at {needle}"
    );
}

#[test]
fn two_functions_are_rejected() {
    let text = "handshake.func @a(%x: !handshake.control<>) -> (!handshake.control<>) {\n  end %x : <>\n}\nhandshake.func @b(%x: !handshake.control<>) -> (!handshake.control<>) {\n  end %x : <>\n}\n";
    let d = error_of(text);
    assert!(d.message.contains("2 handshake.func"), "{}", d.message);
    located_at(&d, text, "handshake.func @b");
}

#[test]
fn no_function_is_an_error() {
    let d = error_of("module {\n}\n");
    assert!(d.message.contains("no handshake.func"));
}

#[test]
fn two_consumers_name_the_op() {
    let text = "handshake.func @f(%x: !handshake.channel<i2>) -> (!handshake.channel<i2>, !handshake.channel<i2>) {\n  %y = br %x {handshake.name = \"br0\"} : <i2>\n  end %y, %y : <i2>, <i2>\n}\n";
    let d = error_of(text);
    assert!(
        d.message.contains("op `br0` has 2 consumers"),
        "{}",
        d.message
    );
    located_at(&d, text, "%y = br");
}

#[test]
fn missing_consumer_is_an_error() {
    let text = "handshake.func @f(%x: !handshake.channel<i2>, %u: !handshake.control<>) -> (!handshake.channel<i2>) {\n  end %x : <i2>\n}\n";
    let d = error_of(text);
    assert!(
        d.message.contains("argument 1 of `f` has no consumer"),
        "{}",
        d.message
    );
}

#[test]
fn undefined_values_are_located() {
    let text = "handshake.func @f(%x: !handshake.channel<i2>) -> (!handshake.channel<i2>) {\n  %y = br %nope : <i2>\n  sink %x : <i2>\n  end %y : <i2>\n}\n";
    let d = error_of(text);
    assert!(d.message.contains("undefined value %nope"), "{}", d.message);
    located_at(&d, text, "%nope");
}

#[test]
fn unknown_types_are_errors() {
    let text = "handshake.func @f(%x: index) -> (index) {\n  end %x : index\n}\n";
    let d = error_of(text);
    assert!(d.message.contains("unsupported"), "{}", d.message);
    assert_eq!(d.severity, Severity::Error);
}

#[test]
fn float_ops_fall_back_with_a_warning() {
    let text = "handshake.func @f(%a: !handshake.channel<f32>, %b: !handshake.channel<f32>) -> (!handshake.channel<f32>) {\n  %s = addf %a, %b {handshake.name = \"addf0\"} : <f32>\n  end %s : <f32>\n}\n";
    let warnings = lower(text).unwrap();
    assert!(
        warnings.iter().any(|w| w.message.contains("float")),
        "{warnings:?}"
    );
    let w = warnings
        .iter()
        .find(|w| w.message.contains("`addf0`"))
        .expect("fallback warning");
    assert!(w.message.contains("opaque synth.subckt"), "{}", w.message);
    located_at(w, text, "%s = addf");
}

/// f32 float units with a known FloPoCo architecture are built-ins; other widths, unknown
/// architectures and the Vivado cores fall back, the warning saying why.
#[test]
fn float_units_are_builtins_or_say_why_not() {
    let func = |ty: &str, attrs: &str| {
        format!(
            "handshake.func @f(%a: !handshake.channel<{ty}>, %b: !handshake.channel<{ty}>) -> (!handshake.channel<{ty}>) {{\n  %s = addf %a, %b {{handshake.name = \"addf0\", {attrs}}} : <{ty}>\n  end %s : <{ty}>\n}}\n"
        )
    };
    let fallback = |text: &str| {
        let warnings = lower(text).unwrap();
        warnings
            .iter()
            .find(|w| w.message.contains("`addf0`"))
            .map(|w| w.message.clone())
    };
    assert_eq!(
        fallback(&func("f32", "internal_delay = \"2_922000\"")),
        None
    );
    let w = fallback(&func("f16", "internal_delay = \"2_922000\"")).unwrap();
    assert!(w.contains("addf on 16 bits has no built-in unit"), "{w}");
    let w = fallback(&func("f32", "internal_delay = \"1_000000\"")).unwrap();
    assert!(w.contains("names no FloPoCo architecture"), "{w}");
    let w = fallback(&func(
        "f32",
        "internal_delay = \"2_922000\", fpu_impl = #handshake<fpu_impl vivado>",
    ))
    .unwrap();
    assert!(w.contains("vivado"), "{w}");
}

#[test]
fn malformed_ops_are_errors() {
    let text = "handshake.func @f(%a: !handshake.channel<i2>) -> (!handshake.channel<i2>) {\n  %s = addi %a {handshake.name = \"a\"} : <i2>\n  end %s : <i2>\n}\n";
    let d = error_of(text);
    assert!(d.message.contains("expects 2 operands"), "{}", d.message);
}

#[test]
fn missing_library_unit_names_the_path() {
    let text = "handshake.func @f(%a: !handshake.channel<i40>) -> (!handshake.channel<i40>) {\n  %b:2 = lazy_fork [2] %a {handshake.name = \"lf0\"} : <i40>\n  sink %b#1 : <i40>\n  end %b#0 : <i40>\n}\n";
    let warnings = lower(text).unwrap();
    let w = warnings
        .iter()
        .find(|w| w.message.contains("`lf0`"))
        .unwrap();
    assert!(
        w.message.contains("lazy_fork/2/40/lazy_fork.blif"),
        "{}",
        w.message
    );
    located_at(w, text, "%b:2 = lazy_fork");
    // A data FIFO the library lacks is generated instead.
    let fifo = "handshake.func @f(%a: !handshake.channel<i40>) -> (!handshake.channel<i40>) {\n  %b = buffer %a, bufferType = FIFO_BREAK_NONE, numSlots = 3 {handshake.name = \"buf0\"} : <i40>\n  end %b : <i40>\n}\n";
    assert!(lower(fifo).unwrap().is_empty());
}

#[test]
fn garbage_never_panics() {
    let text = "handshake.func @f(%a: !handshake.channel<i2>) -> (!handshake.channel<i2>) {\n  %s:2 = fork [2] %a : <i2>\n  %m = mux %s#0 [%s#1] : <i2>, [<i2>] to <i2>\n  %c = cmpi foo, %m, %m : <i2>\n  end %c : <i1>\n}\n";
    for cut in 0..text.len() {
        if text.is_char_boundary(cut) {
            let _ = lower(&text[..cut]);
        }
    }
}

/// The library path of the single buffer in `body` (a function of one `<i8>` argument).
fn buffer_path(buffer: &str) -> Option<String> {
    let text = format!(
        "handshake.func @f(%a: !handshake.channel<i8>) -> (!handshake.channel<i8>) {{\n  %b = {buffer} : <i8>\n  end %b : <i8>\n}}\n"
    );
    let module =
        compiler::mlir::parse(&text).unwrap_or_else(|d| panic!("{}", d.render("t", &text)));
    let func = handshake::find_func(&module.ops).unwrap();
    let marks = handshake::mark(func, &PathTable::default()).unwrap();
    marks[0].path.clone()
}

#[test]
fn all_four_buffer_syntaxes_resolve() {
    let cases = [
        (
            "buffer %a, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1, dvLatency = 1 {handshake.name = \"b\"}",
            "oehb/8/oehb.blif",
        ),
        (
            "buffer %a, bufferType = FIFO_BREAK_NONE, numSlots = 4 {debugCounter = false, handshake.name = \"b\"}",
            "tfifo/4/8/tfifo.blif",
        ),
        (
            "buffer %a, bufferType = SHIFT_REG_BREAK_DV, numSlots = 3 {handshake.name = \"b\"}",
            "shift_reg_break_dv/3/8/shift_reg_break_dv.blif",
        ),
        (
            "buffer %a {hw.parameters = {BUFFER_TYPE = \"ONE_SLOT_BREAK_R\", NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {D: 0, V: 0, R: 1}>}}",
            "tehb/8/tehb.blif",
        ),
        (
            "buffer %a {hw.parameters = {BUFFER_TYPE = \"FIFO_BREAK_DV\", NUM_SLOTS = 2 : ui32}}",
            "elastic_fifo_inner/2/8/elastic_fifo_inner.blif",
        ),
        (
            "buffer %a {hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {D: 1, V: 1, R: 0}>}}",
            "oehb/8/oehb.blif",
        ),
        (
            "buffer %a {hw.parameters = {NUM_SLOTS = 1 : ui32, TIMING = #handshake<timing {R: 1}>}}",
            "tehb/8/tehb.blif",
        ),
        (
            "buffer %a {hw.parameters = {NUM_SLOTS = 5 : ui32, TIMING = #handshake<timing {R: 0}>}}",
            "tfifo/5/8/tfifo.blif",
        ),
        (
            "buffer %a, bufferType = ONE_SLOT_BREAK_DVR, numSlots = 1 {}",
            "one_slot_break_dvr/8/one_slot_break_dvr.blif",
        ),
    ];
    for (buffer, want) in cases {
        assert_eq!(buffer_path(buffer).as_deref(), Some(want), "{buffer}");
    }
}

#[test]
fn corrected_paths_for_select_lazy_fork_mux_merge_cmerge() {
    let text = "handshake.func @f(%c: !handshake.channel<i1>, %x: !handshake.channel<i8>, %y: !handshake.channel<i8>, %s: !handshake.control<>, %t: !handshake.control<>, %u: !handshake.control<>, %v: !handshake.control<>, %w: !handshake.channel<i8>, %z: !handshake.channel<i8>) -> (!handshake.channel<i8>, !handshake.control<>, !handshake.control<>, !handshake.control<>, !handshake.control<>, !handshake.channel<i8>, !handshake.channel<i1>) {\n  %r = select %c [%x, %y] : <i1>, <i8>\n  %l:2 = lazy_fork [2] %r : <i8>\n  %c2:2 = fork [2] %l#1 : <i8>\n  %m = mux %c2#0 [%s, %t] : <i8>, [<>, <>] to <>\n  %g = merge %u, %v : <>\n  %o, %i = control_merge [%w, %z] : [<i8>, <i8>] to <i8>, <i1>\n  %k = trunci %c2#1 : <i8> to <i1>\n  sink %k : <i1>\n  end %l#0, %m, %g, %s, %t, %o, %i : <i8>, <>, <>, <>, <>, <i8>, <i1>\n}\n";
    let module = compiler::mlir::parse(text).unwrap_or_else(|d| panic!("{}", d.render("t", text)));
    let func = handshake::find_func(&module.ops).unwrap();
    let marks = handshake::mark(func, &PathTable::default()).unwrap();
    let paths: Vec<Option<&str>> = marks.iter().map(|m| m.path.as_deref()).collect();
    assert_eq!(
        paths,
        [
            Some("selector/8/selector.blif"),
            Some("lazy_fork/2/8/lazy_fork.blif"),
            Some("fork_type/2/8/fork_type.blif"),
            Some("mux_dataless/2/8/mux_dataless.blif"),
            Some("merge_dataless/2/merge_dataless.blif"),
            Some("control_merge/2/8/1/control_merge.blif"),
            Some("trunci/8/1/trunci.blif"),
            Some("sink/1/sink.blif"),
        ]
    );
}
