//! Invalid const parameters and mismatched sketch shapes must not compile.

#[test]
fn invalid_parameters_do_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
