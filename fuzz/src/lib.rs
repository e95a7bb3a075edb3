//! A mutation fuzzer for kafka-wire's decoders that runs on stable Rust.
//!
//! Each target decodes inputs as one message (or record batches, or request frames) and holds
//! every input to the properties of [`check::Property`]: no panic; allocations bounded by the
//! input's length; a decoded value encodes, with `encoded_len` right, and decodes back to
//! itself, a second encoding byte-identical to the first; an error's offset inside the input.
//! Inputs that break one are minimised and kept in `tests/corpus/<target>/`, which the
//! `corpus` test replays.
//!
//! Allocations are counted by `kafka-wire-alloc-count`, the workspace's one crate with `unsafe`
//! code.

#![forbid(unsafe_code)]

pub use kafka_wire_alloc_count as alloc_count;
pub mod campaign;
pub mod catalogue;
pub mod check;
pub mod mutate;
pub mod records_fix;
pub mod targets;

#[global_allocator]
static ALLOCATOR: alloc_count::Counting = alloc_count::Counting;

/// The corpus directory of the checkout this crate was built from.
pub fn default_corpus_dir() -> std::path::PathBuf {
    let fuzz = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    fuzz.parent().unwrap_or(fuzz).join("tests/corpus")
}
