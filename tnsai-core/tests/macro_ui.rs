//! Compile-time behaviour of the protocol attributes and `#[actions]`: every misuse is an
//! error on the offending token (the `.stderr` snapshots pin the messages), and the
//! combinations in `ui/pass` compile and run.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
