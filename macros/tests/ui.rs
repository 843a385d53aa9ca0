//! Compile-fail tests: each mistake a user can make with `#[derive(Informer)]` and the
//! error it gets. `TRYBUILD=overwrite` rewrites the `.stderr` files after a reviewed change.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
