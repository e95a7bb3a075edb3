//! Schema mistakes in this crate's own messages and sets are compile errors at the token to
//! fix. Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p custom-api --test
//! ui` and review the diff; they match the toolchain in `rust-toolchain.toml`.

#[test]
fn schema_mistakes_do_not_compile() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
