//! Emitters on a small design with a hand-made library unit (a one-slot buffer with a
//! latch), so that no library or oracle is needed.

use compiler::handshake::net::{Init, Net};
use compiler::handshake::{self, Dialect, Impl, LibUnit, Naming, PathTable};
use std::collections::BTreeMap;

const TEXT: &str = "handshake.func @f(%a: !handshake.channel<i2>, %b: !handshake.channel<i2>, %start: !handshake.control<>) -> (!handshake.channel<i2>, !handshake.control<>) attributes {argNames = [\"a\", \"b\", \"start\"], resNames = [\"out0\", \"end\"]} {\n  %s = addi %a, %b {handshake.name = \"addi0\"} : <i2>\n  %t = buffer %s, bufferType = ONE_SLOT_BREAK_DV, numSlots = 1 {handshake.name = \"buffer0\"} : <i2>\n  end %t, %start : <i2>, <>\n}\n";

/// A data-less "valid register" buffer: outs_valid is a latch of ins_valid (init 1);
/// data passes through; ins_ready = outs_ready.
fn fake_oehb() -> LibUnit {
    let mut n = Net::new();
    let clk = n.input("clk");
    let _ = clk;
    let _rst = n.input("rst");
    let d0 = n.input("ins[0]");
    let d1 = n.input("ins[1]");
    let v = n.input("ins_valid");
    let r = n.input("outs_ready");
    let q = n.latch(Init::One);
    n.set_next(q, v);
    n.output("ins_ready", r);
    n.output("outs[0]", d0);
    n.output("outs[1]", !d1);
    n.output("outs_valid", q);
    LibUnit {
        model: "oehb".into(),
        net: n,
        undriven: vec![],
    }
}

fn lower(naming: Naming) -> handshake::SynthOutput {
    let module = compiler::mlir::parse(TEXT).unwrap();
    let func = handshake::find_func(&module.ops).unwrap();
    let circuit = handshake::analyze(func, naming).unwrap();
    let marks = handshake::mark::mark_circuit(func, &circuit, &PathTable::default()).unwrap();
    assert_eq!(marks[1].path.as_deref(), Some("oehb/2/oehb.blif"));
    let units = BTreeMap::from([("oehb/2/oehb.blif".to_string(), fake_oehb())]);
    handshake::build(&circuit, &marks, &units).unwrap()
}

#[test]
fn top_ports_follow_the_naming_mode() {
    let out = lower(Naming::ArgNames);
    let ins: Vec<&str> = out.flat.inputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        ins,
        [
            "a[0]",
            "a[1]",
            "a_valid",
            "b[0]",
            "b[1]",
            "b_valid",
            "start_valid",
            "out0_ready",
            "end_ready",
            "clk",
            "rst"
        ]
    );
    let outs: Vec<&str> = out.flat.outputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        outs,
        [
            "a_ready",
            "b_ready",
            "start_ready",
            "out0[0]",
            "out0[1]",
            "out0_valid",
            "end_valid"
        ]
    );
    let seed = lower(Naming::InOut);
    assert_eq!(seed.flat.inputs[0].0, "in0[0]");
    assert_eq!(seed.flat.outputs[6].0, "out1_valid");
    assert!(matches!(out.instances[0].imp, Impl::Builtin(_)));
    assert!(matches!(out.instances[1].imp, Impl::Library { .. }));
}

#[test]
fn flat_design_behaves() {
    let out = lower(Naming::ArgNames);
    assert_eq!(out.flat.latches.len(), 1);
    // a = 1, b = 2, both valid; out0 ready; latch holds 1.
    let inputs = [
        true, false, true, false, true, true, true, true, true, false, false,
    ];
    let (o, next) = out.flat.eval(&inputs, &[true]);
    // result 3 = 0b11 → outs[0] = 1, outs[1] = !1 = 0 (the fake buffer inverts bit 1).
    assert_eq!(o, [true, true, true, true, false, true, true]);
    assert_eq!(next, [true]);
}

#[test]
fn synth_mlir_in_both_dialects() {
    let out = lower(Naming::ArgNames);
    let circt = handshake::emit::synth_mlir(&out, Dialect::Circt);
    assert!(
        circt.starts_with("module {\n  hw.module @\"f\"(in %i0 \"a[0]\" : i1,"),
        "{circt}"
    );
    assert!(circt.contains("out \"out0[1]\" : i1"));
    assert!(circt.contains("%clock = seq.to_clock %i9\n"), "{circt}");
    assert!(
        circt.contains("%l0 = seq.compreg %n25, %clock initial %init1 : i1"),
        "{circt}"
    );
    assert!(circt.contains("synth.aig.and_inv"));
    assert!(!circt.contains("synth.latch"));
    assert!(circt.contains("    hw.output "));
    let dyn_ = handshake::emit::synth_mlir(&out, Dialect::Dynamatic);
    assert!(
        dyn_.contains("%l0 = synth.latch %n25 init 1 : i1"),
        "{dyn_}"
    );
    assert!(dyn_.contains("synth.and_inv") && !dyn_.contains("synth.aig.and_inv"));
    // Every SSA value used is defined exactly once.
    for text in [&circt, &dyn_] {
        let mut defined = std::collections::BTreeSet::new();
        for line in text.lines() {
            if let Some((lhs, _)) = line.trim().split_once(" = ") {
                for v in lhs.split(", ") {
                    assert!(defined.insert(v.to_string()), "{v} defined twice");
                }
            }
        }
        for (k, _) in out.flat.inputs.iter().enumerate() {
            defined.insert(format!("%i{k}"));
        }
        for tok in text.split([' ', ',', '\n']) {
            if tok.starts_with('%') && !tok.starts_with("%p") {
                assert!(defined.contains(tok), "{tok} used but not defined:\n{text}");
            }
        }
    }
}

#[test]
fn hier_blif_instantiates_each_model_once() {
    let out = lower(Naming::ArgNames);
    let lib = BTreeMap::from([(
        "oehb/2/oehb.blif".to_string(),
        "# lib\n.model oehb\n.inputs clk rst ins[0] ins[1] ins_valid outs_ready\n.outputs ins_ready outs[0] outs[1] outs_valid\n.end\n".to_string(),
    )]);
    let text =
        handshake::emit::hier_blif(&out, &lib, &|_, m| format!(".model {m}\n.end\n")).unwrap();
    assert!(
        text.contains(".subckt oehb__2 clk=clk rst=rst ins[0]=addi0.result[0]"),
        "{text}"
    );
    assert!(text.contains(".subckt kiln_addi_w2 "), "{text}");
    assert_eq!(text.matches(".model oehb__2\n").count(), 1);
    assert!(
        text.contains(".names buffer0.outs[0] out0[0]\n1 1\n"),
        "{text}"
    );
    assert!(
        text.contains(".names start_valid end_valid\n1 1\n"),
        "{text}"
    );
    let missing = handshake::emit::hier_blif(&out, &BTreeMap::new(), &|_, m| m.to_string());
    assert!(missing.is_err());
}
