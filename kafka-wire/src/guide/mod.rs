//! The guide: kafka-wire chapter by chapter, every example a test that runs. The README is the
//! front door; this is the house.
//!
//! - [`messages`]: Kafka's messages, framing them, errors and error codes.
//! - [`own_messages`]: deriving messages and API sets of your own, generating them from schemas,
//!   and checking two releases for wire compatibility; the attributes themselves are in
//!   [`attributes`](crate::attributes).
#![cfg_attr(
    feature = "views",
    doc = "- [`views`]: reading messages, API sets and frames in place, without allocating."
)]
#![cfg_attr(
    not(feature = "views"),
    doc = "- `views`, built with the `views` feature: reading messages, API sets and frames in \
place, without allocating."
)]
//! - [`records`]: record batches, read and written.
//! - [`async_framing`]: the tokio codecs.
//! - [`json`]: the JSON form.
//! - [`analyser`]: the `kafka-wire` command line.
//! - [`features`], [`stability`], [`limits`]: what to build, what may change, what is bounded.
//!
//! Speed and build cost, measured against the `kafka-protocol` crate, are in the repository's
//! `BENCHMARKS.md`.

pub mod analyser;
pub mod async_framing;
pub mod features;
pub mod json;
pub mod limits;
pub mod messages;
pub mod own_messages;
pub mod records;
pub mod stability;
#[cfg(feature = "views")]
pub mod views;
