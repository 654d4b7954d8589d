//! Instruction identities through the workspace's incremental build: an edit that gives a
//! function the `(opcode, funct7)` of another is an error naming both (the first as a
//! note), as the one-shot build of the same text reports it, leaves the previous outputs
//! in place, and undoing it builds what a cold build writes.

mod common;

use kiln_daemon::build::Builder;
use kiln_daemon::report::BuildReport;
use std::fs;

#[test]
fn an_edit_repeating_an_identity_is_an_error_naming_both() {
    let g = common::input("gen.mlir", compiler::aps::workload::generate(8, 4));
    let ws = g.built();
    let cmt2 = fs::read(g.dir.path().join("out/gen.cmt2.mlir")).unwrap();
    // Generated function n is funct7 n under custom-1: @f5 takes @f4's identity.
    let f5 = g.text.find("tor.func @f5(").unwrap();
    let (edited, _) =
        common::replace_in_function(&g.text, "f5", "funct7 = 5 : i32", "funct7 = 4 : i32");
    let line = |at: usize| g.text[..at].lines().count();
    fs::write(&g.src, &edited).unwrap();
    let rendered =
        |r: &BuildReport| -> String { r.diagnostics.iter().map(|d| d.rendered()).collect() };
    let oneshot = kiln_daemon::oneshot::build(&g.spec);
    assert!(!oneshot.ok());
    for reply in [ws.build(&g.spec), Builder::in_process(None).build(&g.spec)] {
        assert!(!reply.ok());
        assert_eq!(rendered(&reply), rendered(&oneshot));
        let rendered = rendered(&reply);
        assert!(
            rendered.contains("functions `@f4` and `@f5` have the same instruction identity"),
            "{rendered}"
        );
        assert!(
            rendered.contains(&format!("gen.mlir:{}:5: error:", line(f5))),
            "the error is at @f5: {rendered}"
        );
        let f4 = g.text.find("tor.func @f4(").unwrap();
        assert!(
            rendered.contains(&format!(
                "gen.mlir:{}:5: note: `@f4` is defined here",
                line(f4)
            )),
            "{rendered}"
        );
    }
    assert_eq!(
        fs::read(g.dir.path().join("out/gen.cmt2.mlir")).unwrap(),
        cmt2
    );
    fs::write(&g.src, &g.text).unwrap();
    assert!(ws.build(&g.spec).ok());
    assert_eq!(
        fs::read(g.dir.path().join("out/gen.cmt2.mlir")).unwrap(),
        cmt2
    );
}
