//! The JSON form of messages and record batches.
//!
//! With the `serde` feature (off by default), every message, header, nested struct and record batch
//! has a JSON form: `Serialize` and `Deserialize`, and `kafka_wire::json` for the form of one
//! version. The derive writes it, so an application's own messages have it too; a field type of
//! your own implements `kafka_wire::json::JsonCodec` (one impl per type, as for `Codec`).
//!
//! ```rust
//! # // Compiled and run with the `serde` feature, which `cargo test --workspace` turns on.
//! # #[cfg(feature = "serde")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use kafka_wire::json::{at_version, JsonBody};
//! use kafka_wire::messages::api::RequestBody;
//! use kafka_wire::messages::WriteTxnMarkersRequest;
//!
//! let request: WriteTxnMarkersRequest = serde_json::from_str(r#"{"markers": [{"producerId": 1000,
//!     "transactionResult": true, "topics": [{"name": "orders", "partitionIndexes": [2]}],
//!     "coordinatorEpoch": 1}]}"#)?;                                  // missing fields: defaults
//! let json = serde_json::to_string(&at_version(&request, 1))?;      // the fields of version 1
//! let body = RequestBody::deserialize_body(27, &mut serde_json::Deserializer::from_str(&json))?;
//! # assert_eq!(json, r#"{"markers":[{"producerId":1000,"producerEpoch":0,"transactionResult":true,"topics":[{"name":"orders","partitionIndexes":[2]}],"coordinatorEpoch":1}]}"#);
//! # assert_eq!(body, RequestBody::WriteTxnMarkers(request));
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "serde"))]
//! # fn main() {}
//! ```
//!
//! writes, at version 1 (`transactionVersion` exists from version 2 on, so it is left out):
//!
//! ```json
//! {"markers":[{"producerId":1000,"producerEpoch":0,"transactionResult":true,"topics":[{"name":"orders","partitionIndexes":[2]}],"coordinatorEpoch":1}]}
//! ```
//!
//! The conventions are those of the JSON converters Kafka generates for its message classes, except
//! where they would lose bytes:
//!
//! | | kafka-wire | Kafka's converters |
//! |---|---|---|
//! | field names | the schema's name, first letter in lower case (`producerId`) | the same |
//! | integers (`int64` too), `bool` | JSON numbers and booleans | the same |
//! | `float64` | a number; `"NaN"`, `"Infinity"`, `"-Infinity"` as strings | a number (Jackson writes the three as those strings) |
//! | `string`, null | a string, `null` | the same |
//! | `bytes` | base64, standard alphabet, padded (padding optional when read) | the same |
//! | `uuid` | Kafka's text form, 22 characters of URL-safe base64 (hyphenated hex is also read) | the same |
//! | `records` | base64 of the raw batches | an empty value, or only `<name>SizeInBytes` |
//! | unknown tagged fields | `"_unknownTaggedFields": [{"tag": 5, "data": "<base64>"}]`, when there are some | dropped |
//! | writing at a version | the version's fields; tagged fields only when not at their default | the same |
//! | a field missing when read | its default | an error where the version has the field |
//! | a name the struct lacks, a field given twice | an error | ignored, the last one |
//!
//! So JSON → message → bytes gives back the bytes the JSON was read from, records and unknown tags
//! included; `cargo test -p kafka-wire-tests --test json` sends every golden vector through it,
//! and holds the JSON name of every field of every message to the schemas' names (recorded by
//! the generator in `facts.json`). What hand-written JSON needs is only what differs
//! from the defaults; fields the chosen version lacks may be given, and encoding refuses a
//! non-default value for them (unless the field is `ignorable`), as it does for any message.
//! `int64` values beyond 2^53 stay exact here, but JavaScript readers lose their low bits.
//!
//! The form costs nothing without the feature: the derive writes it only when kafka-wire's `serde`
//! feature turns on its own, and `cargo tree -p kafka-wire` shows no serde. With it, serde and
//! base64 are added, and kafka-wire takes longer to build (BENCHMARKS.md, "Build cost").
