//! Reference of every `#[kafka(...)]` key: those of `#[derive(KafkaMessage)]` on structs and
//! fields, then those of `#[derive(ApiSet)]` on enums and variants ([below](#api-sets)).
//!
//! | key | on | value | meaning |
//! |---|---|---|---|
//! | `crate` | struct | quoted path | how the expansion names kafka-wire: a renamed dependency or a facade (`"kw"`); `::kafka_wire` by default |
//! | `key` | struct | integer `0..=32767` | the API key; makes the struct an [`ApiMessage`](crate::ApiMessage) (needs `versions`) |
//! | `versions` | struct | version range | the versions the message defines; makes the struct a [`Message`](crate::Message) |
//! | `flexible` | struct | open range or `"none"` | the versions with compact lengths and tagged-field sections |
//! | `no_setters` | struct | none | leave out the `with_<field>` setters ([below](#setters-and-no_setters)) |
//! | `reserved_tags` | struct | quoted list of tags | tags only versions left out of the struct use ([below](#reserved_tags)) |
//! | `view` | struct | quoted identifier | the name of the struct's view type; `<struct>View` by default ([below](#view)) |
//! | `versions` | field | version range | the versions in which the field exists (required) |
//! | `nullable` | field | version range | the versions in which the field may be null; the type must be `Option<T>` |
//! | `tag` | field | integer | the field's tag; tags of a struct run 0, 1, 2, ... |
//! | `tagged` | field | open range | the versions in which the field is tagged |
//! | `default` | field | literal | the value of an absent field; also the value a tagged field is not written at |
//! | `ignorable` | field | none | drop a non-default value silently in versions without the field |
//! | `flexible` | field | version range | a string or bytes field's own flexible versions, overriding the message's |
//! | `json_name` | field | non-empty string | the field's name in the JSON form; its name in camel case by default ([below](#json_name)) |
//! | `unknown_tagged_fields` | field | none | where unrecognised tagged fields are kept, of type [`UnknownTaggedFields`](crate::UnknownTaggedFields) |
//!
//! A version range is `"3"`, `"1-4"`, `"2+"` or `"none"`, as in Kafka's schemas. Field ranges may
//! reach beyond the message's: they are intersected with it.
//!
//! A struct without `versions` is a nested struct: it has no version of its own and takes the
//! version and flexibility of the message that holds it.
//!
//! # `key`, `versions` and `flexible` on a struct
//!
//! ```
//! use kafka_wire::{ApiMessage, KafkaMessage, Message, UnknownTaggedFields, VersionRange};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(key = 27, versions = "0-2", flexible = "1+")]
//! pub struct Markers {
//!     #[kafka(versions = "0+")]
//!     pub ids: Vec<i64>,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! assert_eq!(Markers::API_KEY, 27);
//! assert_eq!(Markers::FLEXIBLE_VERSIONS, VersionRange::new(1, i16::MAX));
//! ```
//!
//! A message with flexible versions must have an `unknown_tagged_fields` field, so that tags it
//! does not know survive a round trip.
//!
//! # `versions` on a field, and `default`
//!
//! A version that lacks a field reads it as its default and refuses to write a different value,
//! unless the field is `ignorable`.
//!
//! ```
//! use kafka_wire::{Decode, Encode, ErrorKind, KafkaMessage};
//!
//! #[derive(Debug, Clone, PartialEq, KafkaMessage)]
//! #[kafka(versions = "0-1")]
//! pub struct Fetch {
//!     #[kafka(versions = "1+", default = -1)]
//!     pub replica: i32,
//! }
//!
//! assert_eq!(Fetch::decode_exact(&[][..], 0)?, Fetch { replica: -1 });
//! let err = Fetch { replica: 3 }.encode_to_bytes(0).unwrap_err();
//! assert_eq!(*err.kind(), ErrorKind::NonDefaultField { version: 0 });
//! assert!(Fetch { replica: -1 }.encode_to_bytes(0)?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Defaults are integer, float, `true`/`false` or string literals matching the field type, or
//! `"null"` for a field that is nullable in all its versions. As in Kafka's schemas, a uuid's
//! default is its text form (22 characters of URL-safe base64: `"AAAAAAAAAAAAAAAAAAAAAQ"` is
//! 1), and `""` on bytes, records, an array or a struct is its empty value, the same as no
//! default.
//!
//! ```
//! use kafka_wire::{Encode, KafkaMessage, Uuid};
//!
//! #[derive(Debug, Clone, PartialEq, KafkaMessage)]
//! #[kafka(versions = "0-1")]
//! pub struct Assignment {
//!     #[kafka(versions = "1+", default = "AAAAAAAAAAAAAAAAAAAAAQ")]
//!     pub topic_id: Uuid,
//!     #[kafka(versions = "0+", nullable = "0+", default = "")]
//!     pub members: Option<Vec<i32>>,
//! }
//!
//! // In version 0 the topic id is absent and must hold its default; the members are an empty
//! // array (a count of 0), not null.
//! let assignment = Assignment { topic_id: Uuid::from_u128(1), members: Some(vec![]) };
//! assert_eq!(&assignment.encode_to_bytes(0)?[..], &[0, 0, 0, 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `nullable`
//!
//! ```
//! use kafka_wire::{Encode, KafkaMessage, KafkaString};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0-1")]
//! pub struct Error {
//!     #[kafka(versions = "0+", nullable = "1+")]
//!     pub message: Option<KafkaString>,
//! }
//!
//! // A null string is length -1; version 0 cannot express it.
//! assert_eq!(&Error { message: None }.encode_to_bytes(1)?[..], &[0xff, 0xff]);
//! assert!(Error { message: None }.encode_to_bytes(0).is_err());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Strings, bytes, records and arrays are null as a length of -1 (0 when compact); a struct is
//! preceded by a byte, -1 for null and 1 for present, and in a tagged field by an unsigned
//! varint, 0 for null and 1 for present, as Kafka writes it.
//!
//! As in Kafka's own generated code, a nullable field without `default` defaults to the empty
//! value (`Some("")`, `Some(vec![])`, ...), not to null; `default = "null"` makes null the
//! default. The default is what a version without the field reads, and what a tagged field is
//! not written at.
//!
//! # `tag` and `tagged`
//!
//! ```
//! use kafka_wire::{Encode, KafkaMessage, UnknownTaggedFields};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0-1", flexible = "0+")]
//! pub struct Heartbeat {
//!     #[kafka(versions = "0+", tag = 0, tagged = "0+")]
//!     pub hint: i32,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! // At its default the field is not written: just an empty tagged section.
//! assert_eq!(&Heartbeat::default().encode_to_bytes(0)?[..], &[0]);
//! // Otherwise: one field, tag 0, 4 bytes.
//! let hint = Heartbeat { hint: 1, ..Default::default() };
//! assert_eq!(&hint.encode_to_bytes(0)?[..], &[1, 0, 4, 0, 0, 0, 1]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `reserved_tags`
//!
//! Kafka numbers a struct's tags from 0 without gaps, and the derive holds a struct to that. A
//! struct that leaves out some versions of a schema (`kafka-wire-codegen` leaves out a version
//! marked `latestVersionUnstable`) may lose a tagged field that only those versions have, and
//! with it a tag below the ones it keeps: `reserved_tags` names such tags. No field may use
//! one, and one read from the wire is kept with the unknown tagged fields.
//!
//! ```
//! use kafka_wire::{Encode, KafkaMessage, UnknownTaggedFields};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0", flexible = "0+", reserved_tags = "0")]
//! pub struct Ping {
//!     #[kafka(versions = "0+", tag = 1, tagged = "0+")]
//!     pub kept: i32,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! let ping = Ping { kept: 3, ..Default::default() };
//! assert_eq!(&ping.encode_to_bytes(0)?[..], &[1, 1, 4, 0, 0, 0, 3]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `ignorable`
//!
//! ```
//! use kafka_wire::{Encode, KafkaMessage};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0-1")]
//! pub struct Marker {
//!     #[kafka(versions = "1+", ignorable)]
//!     pub version: i8,
//! }
//!
//! // Version 0 has no room for it: dropped without an error.
//! assert!(Marker { version: 2 }.encode_to_bytes(0)?.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `flexible` on a field
//!
//! ```
//! use kafka_wire::{Encode, KafkaMessage, KafkaString, UnknownTaggedFields};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0-2", flexible = "2+")]
//! pub struct Header {
//!     #[kafka(versions = "0+", nullable = "0+", flexible = "none")]
//!     pub client_id: Option<KafkaString>,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! // Even in flexible version 2 the client id keeps its 2-byte length.
//! let header = Header { client_id: Some(KafkaString::from_static("a")), ..Default::default() };
//! assert_eq!(&header.encode_to_bytes(2)?[..], &[0, 1, b'a', 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `json_name`
//!
//! Kafka's JSON form names a field by its schema name with the first letter in lower case
//! (`ProducerId` is `producerId`). The derive names it by the Rust name in camel case, which
//! is the same for nearly every field; `json_name` gives Kafka's where it is not (`TopicID` is
//! `topic_id` in Rust and `topicID` in JSON). `kafka-wire-codegen` writes it where needed.
//!
//! ```
//! use kafka_wire::KafkaMessage;
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0")]
//! pub struct Topic {
//!     #[kafka(versions = "0+", json_name = "topicID")]
//!     pub topic_id: i32,
//! }
//! # #[cfg(feature = "serde")]
//! assert_eq!(serde_json::to_string(&Topic { topic_id: 7 })?, r#"{"topicID":7}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # `crate`
//!
//! The expansion reaches the runtime by an absolute path, `::kafka_wire` unless `crate` names
//! another: the name a crate gave the dependency (`kw = { package = "kafka-wire", ... }`), or a
//! path through a facade crate that re-exports kafka-wire (`"my_facade::kafka_wire"`). Nested
//! structs need it as well.
//!
//! ```
//! // A facade: a module that re-exports kafka-wire stands in for another crate here.
//! mod facade {
//!     pub mod wire {
//!         pub use kafka_wire::*;
//!     }
//! }
//!
//! #[derive(Debug, Clone, PartialEq, Default, facade::wire::KafkaMessage)]
//! #[kafka(crate = "facade::wire", versions = "0")]
//! pub struct Snapshot {
//!     #[kafka(versions = "0+")]
//!     pub offset: i64,
//! }
//!
//! use kafka_wire::Encode;
//! assert_eq!(Snapshot { offset: 1 }.encode_to_bytes(0)?.len(), 8);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What a view is for each field type
//!
//! With the `views` feature, the derive also declares, beside each struct, its borrowed view,
//! with the struct's visibility: a `Copy` type with one accessor per field, named as the field,
//! that reads the field from the bytes the view was opened on. A field the version does not
//! have, or a tagged field that was not written, reads as its default, as decoding gives it, and
//! `into_owned()` makes the struct, equal to what
//! [`Decode::decode_exact`](crate::Decode::decode_exact) gives for the same bytes.
#![cfg_attr(
    feature = "views",
    doc = "What each accessor returns, for each field type, is in [`view`](crate::view); the \
[views chapter](crate::guide::views) of the guide shows them at work."
)]
#![cfg_attr(
    not(feature = "views"),
    doc = "What each accessor returns, for each field type, is in the module `kafka_wire::view`, \
and the guide's chapter `kafka_wire::guide::views` shows them at work: both are built with the \
`views` feature."
)]
//!
//! # `view`
//!
//! The view type is named after the struct with `View` added; `view = "Name"` names it
//! otherwise, for a module that already has a type of that name, or a crate whose naming
//! differs. Accessors and `into_owned` are the same under either name.
//!
//! ```
//! # // Views need the `views` feature.
//! # #[cfg(feature = "views")]
//! # mod example {
//! use kafka_wire::{Decode, Encode, KafkaMessage, KafkaString, UnknownTaggedFields, View, ViewIndex};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0-1", flexible = "1+", view = "ShipmentRef")]
//! pub struct Shipment {
//!     #[kafka(versions = "0+")]
//!     pub carrier: KafkaString,
//!     #[kafka(versions = "0+")]
//!     pub parcels: Vec<Parcel>,
//!     #[kafka(versions = "1+", nullable = "1+", default = "null")]
//!     pub note: Option<KafkaString>,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! pub struct Parcel {
//!     #[kafka(versions = "0+")]
//!     pub weight_grams: i32,
//!     #[kafka(versions = "0+")]
//!     pub label: bytes::Bytes,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! # pub fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let shipment = Shipment::default()
//!     .with_carrier("post")
//!     .with_parcels(vec![Parcel::default().with_weight_grams(250).with_label("A1")]);
//! let bytes = shipment.encode_to_bytes(1)?;
//!
//! // The renamed view; the nested struct's keeps its default name.
//! let mut index = ViewIndex::new();
//! let view: ShipmentRef<'_> = Shipment::view_in(&bytes, 1, &mut index)?;
//! assert_eq!(view.carrier(), "post");
//! assert_eq!(view.note(), None);
//! let parcel: ParcelView<'_> = view.parcels().first().expect("one parcel");
//! assert_eq!((parcel.weight_grams(), parcel.label()), (250, &b"A1"[..]));
//! assert!(view.unknown_tagged_fields().is_empty());
//! assert_eq!(view.into_owned(), Shipment::decode_exact(bytes, 1)?);
//! # Ok(())
//! # }
//! # }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! #     #[cfg(feature = "views")]
//! #     example::main()?;
//! #     Ok(())
//! # }
//! ```
//!
//! # Setters, and `no_setters`
//!
//! The derive writes, for each field, a setter named `with_` and the field's name (a raw
//! identifier loses its `r#`: `r#type` has `with_type`), with the field's visibility. It takes
//! the value and returns the struct, so that a value is built in one expression, which is how
//! code outside kafka-wire builds Kafka's messages (they are `#[non_exhaustive]`). A string or
//! bytes field takes anything that converts into its type (`with_name("orders")`); every other
//! field takes its own type, so that `None`, integer literals and `collect()` infer from it.
//! Setters are `#[inline]`: a program compiles only those it calls.
//!
//! `no_setters` leaves them out, for a struct whose names are taken by methods of its own.
//!
//! ```
//! use kafka_wire::{KafkaMessage, KafkaString};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0")]
//! pub struct Topic {
//!     #[kafka(versions = "0+")]
//!     pub name: KafkaString,
//!     #[kafka(versions = "0+")]
//!     pub r#type: i8,
//!     #[kafka(versions = "0+")]
//!     pub partitions: Vec<i32>,
//! }
//!
//! let topic = Topic::default()
//!     .with_name("orders")
//!     .with_type(1)
//!     .with_partitions((0..3).collect());
//! assert_eq!((topic.name.as_str(), topic.r#type, topic.partitions.len()), ("orders", 1, 3));
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(versions = "0", no_setters)]
//! pub struct Offset {
//!     #[kafka(versions = "0+")]
//!     pub offset: i64,
//! }
//!
//! impl Offset {
//!     pub fn with_offset(offset: i64) -> Self {
//!         Offset { offset }
//!     }
//! }
//! assert_eq!(Offset::with_offset(5).offset, 5);
//! ```
//!
//! # Field types
//!
//! `bool`, `i8`, `i16`, `u16`, `i32`, `u32`, `i64`, `f64`, [`KafkaString`](crate::KafkaString) or
//! `String`, [`Bytes`](bytes::Bytes), [`Records`](crate::Records), [`Uuid`](crate::Uuid),
//! `Vec<T>` of any of these or of structs, nested structs, and `Option<T>` of the nullable ones.
//! Any other type implementing [`Codec`](crate::codec::Codec) may be used as well.
//!
//! The derive knows these types by the last name of their path. A struct of your own whose name
//! is one of them (Kafka's schemas allow `Box`, `Option` or `String` as a struct's name) is
//! written from `self::`, `super::` or `crate::`, which always names a type of your own:
//!
//! ```
//! mod store {
//!     use kafka_wire::KafkaMessage;
//!
//!     #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//!     pub struct Box {
//!         #[kafka(versions = "0+")]
//!         pub size: i16,
//!     }
//!
//!     #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//!     #[kafka(versions = "0")]
//!     pub struct Shelf {
//!         #[kafka(versions = "0+")]
//!         pub boxes: Vec<self::Box>,
//!     }
//! }
//!
//! use kafka_wire::Encode;
//! let shelf = store::Shelf { boxes: vec![store::Box { size: 2 }] };
//! assert_eq!(&shelf.encode_to_bytes(0)?[..], &[0, 0, 0, 1, 0, 2]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! `kafka-wire-codegen` does the same for the schemas' structs, writes Rust's and kafka-wire's
//! types by their full paths where a struct of the message takes their name, renames a struct
//! Rust cannot name as it is (`Self`, or a struct named after its own message) by adding
//! `Struct`, and numbers a field whose Rust name is taken (`TopicID` beside `TopicId` is
//! `topic_id_2`), its `json_name` keeping Kafka's.
//!
//! # API sets
//!
//! `#[derive(ApiSet)]` goes on an enum whose variants each wrap one message with a `key`; see
//! [`api`](crate::api) for what it writes.
//!
//! | key | on | value | meaning |
//! |---|---|---|---|
//! | `requests` | enum | none | the variants are requests; the enum becomes a [`RequestSet`](crate::api::RequestSet) |
//! | `response_set` | enum | type path | with `requests`: the set of the responses, which must list the same APIs |
//! | `responses` | enum | none | the variants are responses; the enum becomes a [`ResponseSet`](crate::api::ResponseSet) |
//! | `crate` | enum | quoted path | as on a struct |
//! | `name` | variant | non-empty string | the API's name, for [`find_by_name`](crate::ApiSet::find_by_name); the variant's name by default |
//! | `header_v0` | variant | version range | versions whose header is v0 whatever the rule says |
//!
//! The derive checks at compile time, at the variant's type, that each variant wraps an
//! [`ApiMessage`](crate::ApiMessage), that no two variants share an API key, and that the
//! response set has a response for every request and nothing more.
//!
//! # `requests`, `response_set` and `responses`
//!
//! A client that remembers the API key and version of each request it sent reads the answer
//! into the response set; a request set knows its response set for that.
//!
//! ```
//! use kafka_wire::api::{RequestSet, Side};
//! use kafka_wire::messages::{
//!     ApiVersionsRequest, ApiVersionsResponse, SaslHandshakeRequest, SaslHandshakeResponse,
//! };
//! use kafka_wire::ApiSet;
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(requests, response_set = Answers)]
//! pub enum Asks {
//!     ApiVersions(ApiVersionsRequest),
//!     SaslHandshake(SaslHandshakeRequest),
//! }
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(responses)]
//! pub enum Answers {
//!     #[kafka(header_v0 = "0+")]
//!     ApiVersions(ApiVersionsResponse),
//!     SaslHandshake(SaslHandshakeResponse),
//! }
//!
//! fn answer_side<S: RequestSet>() -> Side {
//!     <S::Responses as ApiSet>::APIS[0].side()
//! }
//! assert_eq!(answer_side::<Asks>(), Side::Response);
//! assert_eq!(Asks::APIS[1].side(), Side::Request);
//! ```
//!
//! # `name`
//!
//! ```
//! use kafka_wire::messages::ListConfigResourcesRequest;
//! use kafka_wire::messages::ListConfigResourcesResponse;
//! use kafka_wire::ApiSet;
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(requests, response_set = Responses)]
//! pub enum Requests {
//!     // The name this API had before Kafka 4.
//!     #[kafka(name = "ListClientMetricsResources")]
//!     Resources(ListConfigResourcesRequest),
//! }
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(responses)]
//! pub enum Responses {
//!     Resources(ListConfigResourcesResponse),
//! }
//!
//! assert_eq!(Requests::find_by_name("ListClientMetricsResources").unwrap().key(), 74);
//! assert_eq!(Responses::find(74).unwrap().name(), "Resources");
//! ```
//!
//! # `header_v0`
//!
//! Kafka's rule gives a request header v2 in flexible versions and v1 before, a response
//! header v1 and v0. Two of Kafka's APIs depart from it, and their variants in
//! [`RequestBody`](crate::messages::api::RequestBody) and
//! [`ResponseBody`](crate::messages::api::ResponseBody) say so: ControlledShutdown v0 requests
//! have header v0 (no client id), and ApiVersions responses always have header v0, so that a
//! client can read the answer to a version the broker does not know.
//!
//! ```
//! use kafka_wire::messages::{ControlledShutdownRequest, ControlledShutdownResponse};
//! use kafka_wire::ApiSet;
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(requests, response_set = Responses)]
//! pub enum Requests {
//!     #[kafka(header_v0 = "0")]
//!     ControlledShutdown(ControlledShutdownRequest),
//! }
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(responses)]
//! pub enum Responses {
//!     ControlledShutdown(ControlledShutdownResponse),
//! }
//!
//! let api = Requests::find(7).unwrap();
//! assert_eq!(api.header_version(0), 0);
//! assert_eq!(api.header_version(1), 1);
//! assert_eq!(api.header_version(3), 2); // flexible
//! ```
