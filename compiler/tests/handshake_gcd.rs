//! The two gcd circuits with the library units copied into tests/data/handshake (no shared
//! corpus needed): complete coverage, and ABC's flattening of the hierarchical BLIF is
//! sequentially equivalent to our flat AIG.

mod common;

use compiler::handshake::{self, Impl, Naming, PathTable, aig_io};
use std::collections::BTreeMap;
use std::process::Command;

fn lower(file: &str) -> (handshake::SynthOutput, BTreeMap<String, String>) {
    let text = std::fs::read_to_string(common::data(&format!("handshake/{file}"))).unwrap();
    let module = compiler::mlir::parse(&text).unwrap();
    let func = handshake::find_func(&module.ops).unwrap();
    let circuit = handshake::analyze(func, Naming::ArgNames).unwrap();
    let marks = handshake::mark::mark_circuit(func, &circuit, &PathTable::default()).unwrap();
    let mut units = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for p in handshake::library_paths(&marks) {
        let t = std::fs::read_to_string(common::data(&format!("handshake/library/{p}")))
            .unwrap_or_else(|e| panic!("{p}: {e}"));
        units.insert(
            p.clone(),
            compiler::flow::handshake::unit(&t, &compiler::limits::Limits::DEFAULT).unwrap(),
        );
        texts.insert(p, t);
    }
    (handshake::build(&circuit, &marks, &units).unwrap(), texts)
}

#[test]
fn gcd_circuits_lower_without_fallback_and_abc_agrees() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    for file in ["export_gcd.mlir", "export_gcd_ftd.mlir"] {
        let (out, texts) = lower(file);
        assert!(out.warnings.is_empty(), "{:?}", out.warnings);
        let count = |label: &str| {
            out.instances
                .iter()
                .filter(|i| i.imp.label() == label)
                .count()
        };
        assert_eq!(count("subckt"), 0);
        assert!(count("library") > 100 && count("built-in") > 10);
        // The library's cmpi is `ult` only (gcd compares with eq/ne/...) and its 32-bit
        // arithmetic is blackboxed: those are generated.
        for inst in &out.instances {
            // More than 4 data bits per operand (2 operands + 2 valids + ready + clk + rst).
            let wide = inst.inputs.len() > 2 * 4 + 5;
            if inst.kind == "cmpi" || (["addi", "subi"].contains(&inst.kind.as_str()) && wide) {
                assert!(
                    matches!(inst.imp, Impl::Builtin(_)),
                    "{}: {:?}",
                    inst.name,
                    inst.imp
                );
            }
        }
        let hier = tmp.path().join(format!("{file}.hier.blif"));
        let flat = tmp.path().join(format!("{file}.aig"));
        std::fs::write(&hier, aig_io::hier_blif(&out, &texts).unwrap()).unwrap();
        std::fs::write(&flat, aig_io::flat_aiger(&out)).unwrap();
        cases.push((file, hier, flat));
    }
    if !common::have_tool("berkeley-abc") {
        return;
    }
    for (file, hier, flat) in cases {
        let out = Command::new("berkeley-abc")
            .arg("-c")
            .arg(format!(
                "read -c {}; strash; dsec {}",
                hier.display(),
                flat.display()
            ))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("Networks are equivalent") && !stdout.contains("NOT EQUIVALENT"),
            "{file}: {stdout}"
        );
    }
}
