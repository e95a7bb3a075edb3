//! Borrowed views: reading a message in place, without allocating.
//!
//! `#[derive(KafkaMessage)]` writes, beside each struct `Foo`, a view type `FooView<'a>` with
//! one accessor per field, named as the field. [`View::view_in`] opens a message's view on its
//! bytes at a version, into a [`ViewIndex`] the caller lends and reuses: it checks the whole
//! message in one pass, exactly as [`Decode::decode_exact`](crate::Decode::decode_exact) would,
//! records in the index where each struct's fields are, and allocates nothing once the index
//! has grown to the messages it holds. The accessors then read each field where it lies:
//!
//! | field type | accessor returns |
//! |---|---|
//! | `bool`, integers, `f64`, `Uuid` | the value |
//! | `String`, `KafkaString` | `&'a str` |
//! | `Bytes`, `Records` | `&'a [u8]` ([`Source::to_bytes`] shares it when the view was opened on a `Bytes`) |
//! | `IntArray<T>` | [`Ints<'a, T>`](Ints), read in place |
//! | `Vec<T>` | [`Array<'a, T>`](Array), whose elements are `T`'s views |
//! | a struct `S` | `SView<'a>` |
//! | `Option<T>` | `Option` of `T`'s view |
//! | the `unknown_tagged_fields` field | [`TaggedFields<'a>`](TaggedFields) |
//!
//! A field the version lacks, or a tagged field that is not there, reads as its default, as it
//! decodes. `into_owned` turns a view into the owned struct, equal to what decoding gives.
//!
//! ```
//! use kafka_wire::messages::WriteTxnMarkersRequest;
//! use kafka_wire::view::{View, ViewIndex};
//! use kafka_wire::Decode;
//!
//! // Version 1: one marker of producer 7, epoch 1, committing partitions 0 and 2 of "orders".
//! let bytes = [
//!     2, // one marker (compact count + 1)
//!     0, 0, 0, 0, 0, 0, 0, 7, // producer id
//!     0, 1, // producer epoch
//!     1,    // committed
//!     2,    // one topic
//!     7, b'o', b'r', b'd', b'e', b'r', b's', // name (compact length + 1)
//!     3, 0, 0, 0, 0, 0, 0, 0, 2, // partition indexes
//!     0, // the topic's tagged fields
//!     0, 0, 0, 9, // coordinator epoch
//!     0, // the marker's tagged fields
//!     0, // the request's tagged fields
//! ];
//! let mut index = ViewIndex::new(); // kept, and reused for the next message
//! let request = WriteTxnMarkersRequest::view_in(&bytes, 1, &mut index)?;
//! for marker in request.markers() {
//!     assert_eq!(marker.producer_id(), 7);
//!     for topic in marker.topics() {
//!         assert_eq!(topic.name(), "orders");
//!         assert_eq!(topic.partition_indexes(), [0, 2]);
//!     }
//! }
//! assert_eq!(request.into_owned(), WriteTxnMarkersRequest::from_slice(&bytes, 1)?);
//! # Ok::<(), kafka_wire::DecodeError>(())
//! ```
//!
//! # What opening checks, and what it costs
//!
//! A view opens on exactly the inputs decoding accepts, and [`View::view_strict_in`] on exactly
//! those [`Decode::decode_strict`](crate::Decode::decode_strict) accepts. When it refuses one,
//! it decodes the input to report the error decoding reports (kind, field path and offset):
//! that path allocates, the path that opens does not. Accessors read bytes that were checked,
//! so they cannot fail; a string is checked for UTF-8 when the view opens and again, quickly,
//! when its accessor hands it out, as safe code must.
//!
//! The walk that opens a view is the only one: it records each struct as a few words of the
//! index (where each field is), and each array of structs as its count and where its elements'
//! records are, so a field is one look-up and the next element of an array the next record.
//! Arrays of anything else (integers, strings) are read in place, in order. A view is a few
//! words; the index, a few words per struct of the message. A view reads inputs of up to
//! 4 GiB, twice the largest Kafka frame.

mod array;
mod cursor;
mod index;
mod leaf;
mod message;
mod raw;
mod reader;
mod source;
mod viewable;

pub use self::array::{Array, Iter};
pub use self::cursor::Cursor;
pub use self::index::ViewIndex;
pub use self::message::View;
#[doc(hidden)]
pub use self::raw::{fixed_width, walk_span, InIndex, Slots};
pub use self::raw::{RawStruct, TaggedField, TaggedFields, TaggedIter};
pub use self::source::Source;
pub use self::viewable::{ViewOf, Viewable};
pub use crate::int_array::Ints;

pub(crate) use self::index::ABSENT;

#[doc(hidden)]
pub use self::message::{open, walk, walk_accepts, Reading, Walked};
#[doc(hidden)]
pub use self::reader::Reader;
