//! Fuzz the BLIF reader and the AIG lowering: any input must give a result or a located
//! diagnostic, never a panic; a successful lowering must write and re-read as AIGER.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(parsed) = compiler::blif::parse(text) else {
        return;
    };
    let Ok(lowered) = compiler::aig::lower_file(&parsed.file) else {
        return;
    };
    let g = &lowered.top().aig;
    let bytes = compiler::aig::write_aiger_binary(g);
    let back = compiler::aig::read_aiger(&bytes).expect("our own AIGER reads back");
    assert_eq!(back.and_count(), g.and_count());
    let _ = compiler::aig::write_blif(g);
});
