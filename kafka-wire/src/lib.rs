//! Byte-exact encoders and decoders for the Apache Kafka wire protocol.
//!
//! Annotate a plain struct with the schema facts Kafka publishes (versions, flexible versions,
//! nullability, tags, defaults) and derive [`KafkaMessage`]; the derive writes the encoder, the
//! decoder and an exact size computation, all driven by the version at run time.
//!
//! ```
//! use kafka_wire::{Decode, Encode, KafkaMessage, KafkaString, UnknownTaggedFields};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(key = 1000, versions = "0-2", flexible = "1+")]
//! pub struct PingRequest {
//!     #[kafka(versions = "0+")]
//!     pub origin: KafkaString,
//!     #[kafka(versions = "0+")]
//!     pub sequence: Vec<i32>,
//!     #[kafka(versions = "2+", tag = 0, tagged = "2+", default = -1)]
//!     pub deadline_ms: i64,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! let ping = PingRequest {
//!     origin: KafkaString::from_static("broker-1"),
//!     sequence: vec![1, 2],
//!     deadline_ms: 1500,
//!     ..Default::default()
//! };
//! let bytes = ping.encode_to_bytes(2)?;
//! assert_eq!(bytes.len(), ping.encoded_len(2)?);
//! assert_eq!(PingRequest::decode_exact(bytes, 2)?, ping);
//!
//! // Version 1 has no `deadline_ms`, and the field is not `ignorable`: refusing to drop it
//! // silently is Kafka's rule.
//! assert!(ping.encode_to_bytes(1).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The attribute vocabulary is in [`attributes`]; the messages of the protocol are in
//! [`messages`]. Enums of request or response bodies, Kafka's and an application's own, derive
//! [`ApiSet`] and are read and written by API key and version ([`api`], [`frame`]); with the
//! `tokio` feature, `kafka_wire::tokio` frames them on async connections.
// docs.rs builds with `--cfg docsrs` on nightly, where `doc_cfg` marks each item with the
// features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// The runtime, re-exported whole: its modules and items are this crate's. `messages` below,
// which adds Kafka's API messages to the runtime's headers and data schemas, takes the place
// of the runtime's own.
#[doc(inline)]
pub use kafka_wire_core::*;
#[doc(inline)]
pub use kafka_wire_records as records;

pub mod attributes;
pub mod guide;
pub mod messages;
#[cfg(feature = "api-versions")]
pub mod negotiate;
#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
pub mod peek;

// The README's examples, compiled and run with the doc tests. Only under `cfg(doctest)`: the
// path leaves the crate, and the packaged crate has no use for it.
// The README shows views, so its examples run where the `views` feature is on (the workspace's
// tests turn it on).
#[cfg(all(doctest, feature = "views"))]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
