//! The Buck2 rules (`buck2-rules/kiln.bzl`) evaluated with stub Buck2 globals: the actions
//! they declare and the providers they return are asserted in `check_rules.star`; a broken
//! rule (wrong provider order, an output bound to no action) is caught.

const RULES: &str = include_str!("../../kiln.bzl");
const CHECK: &str = include_str!("check_rules.star");

#[test]
fn rules_declare_the_expected_actions() {
    if let Err(e) = kiln_buck2_check::evaluate("kiln.bzl", RULES, CHECK) {
        panic!("{e}");
    }
}

#[test]
fn a_rule_returning_providers_out_of_order_fails() {
    let broken = RULES.replace(
        "DefaultInfo(default_output = outs[0]),\n        KilnAigInfo(aig = outs[0]),",
        "KilnAigInfo(aig = outs[0]),\n        DefaultInfo(default_output = outs[0]),",
    );
    assert_ne!(broken, RULES, "the replacement must apply");
    let err = kiln_buck2_check::evaluate("kiln.bzl", &broken, CHECK).unwrap_err();
    assert!(err.contains("DefaultInfo first"), "{err}");
}

#[test]
fn an_undefined_name_is_an_error() {
    let broken = RULES.replace("category = category", "category = categroy");
    let err = kiln_buck2_check::evaluate("kiln.bzl", &broken, CHECK).unwrap_err();
    assert!(err.contains("categroy"), "{err}");
}

#[test]
fn an_output_not_bound_to_its_action_is_caught() {
    // The rules before real Buck2 ran them: only the first output went through
    // `.as_output()`, and Buck2 stopped analysis ("Artifact must be bound by now").
    let broken = RULES.replace(", hidden = [o.as_output() for o in outs[1:]])", ")");
    assert_ne!(broken, RULES, "the replacement must apply");
    let err = kiln_buck2_check::evaluate("kiln.bzl", &broken, CHECK).unwrap_err();
    assert!(err.contains("is declared but bound to no action"), "{err}");
}
