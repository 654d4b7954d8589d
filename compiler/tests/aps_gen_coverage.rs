//! The generator's programs exercise every construct the differential test is meant to
//! cover (so that agreement is not vacuous).

use compiler::aps::workload;

#[test]
fn generated_programs_cover_the_constructs() {
    let text: String = (0..200).map(|s| workload::generate(3, s)).collect();
    for needle in [
        "tor.for",
        "iter_args",
        "step (%cm1_i32",
        "tor.if",
        "-> (i32) then",
        "} else {",
        "tor.yield",
        "aps.memload",
        "aps.memstore",
        "aps.spm.load_req",
        "aps.itfc.load_req",
        "aps.itfc.store_req",
        "aps.globalload",
        "aps.globalstore",
        "burst_load_req",
        "burst_store_req",
        "arith.select",
        "arith.extsi",
        "arith.extui",
        "arith.trunci",
        "comb.extract",
        "arith.shrsi",
        "tor.cmpi slt",
        "tor.muli",
        "= arith.andi",
        ":2 = tor.for",
    ] {
        let n = text.matches(needle).count();
        assert!(
            n >= 5,
            "`{needle}` appears only {n} times in 200 generated modules"
        );
    }
    // Nested loops (a loop inside a loop body).
    assert!(text.contains("{\n        %v") || text.matches("tor.for").count() > 200);
}
