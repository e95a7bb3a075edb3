//! Compile-fail and compile-pass cases for the derive, pinned by `.stderr` files.
//!
//! Diagnostics drift between compiler versions, so the cases run only on the toolchain in
//! `rust-toolchain.toml`. Regenerate with `TRYBUILD=overwrite cargo test -p kafka-wire-ui` and
//! review the diff.
#![forbid(unsafe_code)]

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/**/*.rs");
    t.pass("pass/*.rs");
}
