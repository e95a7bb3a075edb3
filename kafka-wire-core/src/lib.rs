//! The runtime of kafka-wire: the codec traits, the field types, framing and the headers.
//! Record batches are in `kafka-wire-records`. Kafka's API messages are in `kafka-wire-requests` and `kafka-wire-responses`,
//! and applications use all of it through the `kafka-wire` crate, which re-exports this one.
//!
//! The catalogue is split over crates so that it builds on more than one core: a crate's
//! type checking and borrow checking run on one thread, and the two halves of the catalogue
//! check side by side (BENCHMARKS.md, "Build cost").

// Three modules, `slot`, `ascii` and `opaque`, allow `unsafe` code; each writes its invariant
// down, and their tests run under Miri.
#![deny(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly, where `doc_cfg` marks each item with the
// features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

extern crate alloc;

pub mod api;
#[cfg(feature = "views")]
#[allow(unsafe_code)]
mod ascii;
pub mod codec;
mod compression;
mod error;
mod error_code;
mod fields;
pub mod frame;
// Lengths are divided by an element size, a constant that is never zero.
#[allow(clippy::arithmetic_side_effects)]
pub mod int_array;
#[cfg(feature = "serde")]
#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
pub mod json;
pub mod messages;
#[cfg(feature = "views")]
#[allow(unsafe_code)]
mod opaque;
mod primitives;
mod segments;
#[allow(unsafe_code)]
mod slot;
mod tagged;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod tokio;
mod traits;
mod types;
#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
pub mod view;

// The const fns that check an API set index and count within their slices; they run at
// compile time, where a panic is a compile error.
#[allow(clippy::arithmetic_side_effects, clippy::indexing_slicing)]
#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use crate::api::ApiSet;
pub use crate::compression::Compression;
pub use crate::error::{DecodeError, EncodeError, ErrorKind};
pub use crate::error_code::ErrorCode;
pub use crate::fields::{DefaultInfo, FieldInfo, Fields};
pub use crate::int_array::IntArray;
pub use crate::primitives::varint;
pub use crate::segments::Segments;
pub use crate::tagged::{RawTaggedField, UnknownTaggedFields};
pub use crate::traits::{ApiMessage, Decode, Encode, Message};
pub use crate::types::{KafkaString, Records, Uuid};
#[cfg(feature = "views")]
pub use crate::view::{View, ViewIndex};
pub use bytes;
pub use kafka_wire_derive::{ApiSet, KafkaMessage};
pub use kafka_wire_schema::VersionRange;
