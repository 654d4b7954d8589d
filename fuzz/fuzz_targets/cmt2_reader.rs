//! Fuzz the strict CMT2 reader (`kiln sim x.cmt2.mlir` reads user files with it): any text
//! must give a circuit or a located diagnostic, never a panic. A circuit it accepts is
//! simulated as `kiln sim` would (one command per instruction, a small cycle bound), which
//! must end in a result or a simulation error, and it must write and read back.
#![no_main]

use compiler::rules::{self, sim};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(circuit) = rules::read_cmt2(text) else {
        return;
    };
    let cfg = sim::SimConfig {
        max_cycles: 2_000,
        ..sim::SimConfig::default()
    };
    for ins in circuit.instructions.iter().take(4) {
        let cmd = sim::Command {
            opcode: ins.opcode,
            funct7: ins.funct7,
            rs1: 0x100,
            rs2: 0x200,
            rd: 1,
        };
        let _ = sim::simulate(&circuit, &[cmd], Default::default(), &cfg);
    }
    let again = rules::emit_cmt2(&circuit);
    rules::read_cmt2(&again).expect("a circuit read from CMT2 writes CMT2 that reads back");
});
