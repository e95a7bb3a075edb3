//! Codecs for the schema's primitive types, classic and compact forms side by side.

// Decoding reads untrusted input: no panicking index, arithmetic, unwrap or expect here.
#![deny(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]

pub(crate) mod array;
pub(crate) mod bytes;
pub(crate) mod int;
pub(crate) mod string;
pub(crate) mod uuid;
pub mod varint;
