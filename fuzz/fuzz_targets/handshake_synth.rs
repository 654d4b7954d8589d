//! Fuzz the Handshake → Synth front end and built-in generators: any text must give a
//! synthesized design or a diagnostic, never a panic, an allocation sized by an unchecked
//! number, or a run that does not end (widths and counts are bounded by the default limits).
#![no_main]

use compiler::handshake::{self, Naming, PathTable};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let limits = compiler::limits::Limits {
        // Keep each execution short: widths beyond this only repeat the same logic.
        max_int_width: 128,
        max_results: 64,
        ..compiler::limits::Limits::DEFAULT
    };
    let Ok(module) = compiler::mlir::parse_with(text, &limits) else {
        return;
    };
    let Ok(func) = handshake::find_func(&module.ops) else {
        return;
    };
    for naming in [Naming::ArgNames, Naming::InOut] {
        let Ok(circuit) = handshake::analyze(func, naming) else {
            return;
        };
        let table = PathTable::default();
        let Ok(marks) = handshake::mark::mark_circuit_with(func, &circuit, &table, &limits) else {
            return;
        };
        let _ = handshake::build(&circuit, &marks, &Default::default());
    }
});
