//! Fuzz target: the MLIR parser on arbitrary bytes must return a tree or a diagnostic, never
//! panic; a parsed tree must print and parse back to an equal tree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for (_, chunk) in compiler::mlir::split_input_file(text) {
        if let Ok(m) = compiler::mlir::parse(chunk) {
            let printed = compiler::mlir::print(&m);
            let again = compiler::mlir::parse(&printed).expect("printed form parses");
            assert_eq!(again.without_spans(), m.without_spans());
        }
    }
});
