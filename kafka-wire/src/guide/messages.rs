//! Kafka's messages: building, framing and reading them; the catalogue, errors and error codes.
//!
//! A client frames a Metadata request, a server reads it and answers, and the client reads the
//! answer at the API and version it asked with:
//!
//! ```rust
//! use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
//! use kafka_wire::messages::api::{RequestBody, ResponseBody};
//! use kafka_wire::messages::metadata_request::MetadataRequestTopic;
//! use kafka_wire::messages::metadata_response::MetadataResponseTopic;
//! use kafka_wire::messages::{MetadataRequest, MetadataResponse, RequestHeader, ResponseHeader};
//! use kafka_wire::{ApiMessage, ErrorCode};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // The client: one topic's metadata, at version 12.
//!     let header = RequestHeader::default()
//!         .with_request_api_key(MetadataRequest::API_KEY)
//!         .with_request_api_version(12)
//!         .with_correlation_id(1)
//!         .with_client_id(Some("readme".into()));
//!     let topic = MetadataRequestTopic::default().with_name(Some("orders".into()));
//!     let request = MetadataRequest::default().with_topics(Some(vec![topic]));
//!     let mut wire = bytes::BytesMut::new();
//!     frame::encode_request(&mut wire, &header, &RequestBody::Metadata(request))?;
//!
//!     // The server cuts the frame off its stream, reads header and body, and answers at the
//!     // request's version.
//!     let frame = frame::split_frame(&mut wire, DEFAULT_MAX_FRAME_SIZE)?.expect("a whole frame");
//!     let (asked, body) = frame::decode_request::<RequestBody>(frame)?;
//!     let RequestBody::Metadata(request) = body else {
//!         panic!("only Metadata is answered here");
//!     };
//!     let topics = request.topics.unwrap_or_default().into_iter().map(|t| {
//!         MetadataResponseTopic::default()
//!             .with_name(t.name)
//!             .with_error_code(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code())
//!     });
//!     let answer = MetadataResponse::default().with_topics(topics.collect());
//!     let header = ResponseHeader::default().with_correlation_id(asked.correlation_id);
//!     let version = asked.request_api_version;
//!     frame::encode_response(&mut wire, &header, &ResponseBody::Metadata(answer), version)?;
//!
//!     // The client reads the answer as the body of the request it sent.
//!     let frame = frame::split_frame(&mut wire, DEFAULT_MAX_FRAME_SIZE)?.expect("a whole frame");
//!     let key = MetadataRequest::API_KEY;
//!     let (header, body) = frame::decode_response::<ResponseBody>(frame, key, 12)?;
//!     assert_eq!(header.correlation_id, 1);
//!     let ResponseBody::Metadata(metadata) = body else {
//!         panic!("the answer of a Metadata request is a Metadata response");
//!     };
//!     let code = ErrorCode::from(metadata.topics[0].error_code);
//!     assert_eq!(code.name(), Some("UNKNOWN_TOPIC_OR_PARTITION"));
//!     Ok(())
//! }
//! ```
//!
//! Messages are built from `Default` with the `with_` setters, or by assigning fields of a default
//! value; their fields are read directly. Struct literals of Kafka's messages do not compile
//! outside kafka-wire, so that a release that adds fields breaks no one
//! ([Stability](crate::guide::stability)).
//!
//! ## The message catalogue
//!
//! `kafka_wire::messages` holds every request and response of API keys 0–94, the request and
//! response headers and Kafka's data schemas (consumer-protocol assignment and subscription,
//! EndTxnMarker, control records, ...): 203 messages, each in a module named after it
//! (`kafka_wire::messages::fetch_request::FetchTopic`), the messages themselves re-exported
//! (`kafka_wire::messages::FetchRequest`). Each covers every version any Kafka release speaks: the
//! union of Kafka 3.9 (the last release with the legacy versions: Produce v0, Fetch v0,
//! LeaderAndIsr, ...) and Kafka 4.4 (the newest), taking each version from the newest release that
//! defines it and leaving out versions Kafka marks unstable.
//!
//! - `messages::api::{RequestBody, ResponseBody}`: Kafka's two API sets, enums with one variant per
//!   API that derive `ApiSet` (below) like any application's set. `RequestBody::APIS` lists every
//!   API with its key, name, versions, flexible versions and the header version each version uses;
//!   `RequestBody::find(key)` and `find_by_name("Fetch")` look one up; `RequestBody::decode(key,
//!   buf, version)` reads a body chosen at run time, `encode` and `encoded_len` write it. The file
//!   is the two enum declarations, 594 lines a reviewer reads in a minute: each variant with its
//!   feature, and the two header exceptions Kafka's schemas state as attributes (`#[kafka(header_v0
//!   = "0")]` on ControlledShutdown requests, `#[kafka(header_v0 = "0+")]` on ApiVersions
//!   responses).
//! - `kafka_wire::frame`: cut frames off a byte stream with a maximum size (default 100 MiB,
//!   Kafka's `socket.request.max.bytes`), read and write request and response frames of any API set
//!   with the right header version. Reading is strict or lenient:
//!   `frame::decode_request::<RequestBody>(frame)` and
//!   `frame::decode_response::<ResponseBody>(frame, key, version)` refuse bytes left after the
//!   body; `frame::decode_request_lenient` and `frame::decode_response_lenient` read what Kafka's
//!   broker and clients read, ignoring such bytes (librdkafka's Metadata request for all topics has
//!   one) and counting them in `trailing_bytes`, and follow Kafka's ApiVersions rule for a version
//!   one side does not know.
//! - `kafka_wire::Segments`: encode a message or a whole frame without copying its records. It is a
//!   buffer to encode into (`encode`, `frame::encode_request` and `frame::encode_response` take it
//!   as they take a `BytesMut`) that copies small fields into one buffer and keeps byte fields of 1
//!   KiB or more, records included, as references to the `Bytes` they are held in; it is a `Buf`
//!   with `chunks_vectored` for `write_vectored`, or `into_segments()` for the list. A broker
//!   answering a Fetch from its log, or a producer sending records it already holds, pays for the
//!   small fields only (measured in BENCHMARKS.md, "Whole messages").
//! - `kafka_wire::negotiate`: from the application's own `(key, versions)` list (an API set's
//!   `APIS` is one) and a broker's ApiVersions response, the highest version both sides speak for
//!   each API; `advertise` writes the list a server answers ApiVersions with.
//!
//! ## Errors
//!
//! Errors have one vocabulary, `kafka_wire::ErrorKind`, for reading and writing, messages and
//! record batches; the error types say which way and where. Decoding returns a `DecodeError` whose
//! `kind()` is matchable (`UnexpectedEof`, `LengthExceedsRemaining`, `CountExceedsRemaining`,
//! `NegativeLength`, `UnexpectedNull`, `InvalidUtf8`, `TooLong`, `VarintTooLong`, `VarintOverflow`,
//! `UnsupportedVersion`, `TrailingBytes`, `FrameTooLarge`, `UnknownApiKey`, `UnknownTaggedField`,
//! `TaggedFieldSize`, and in strict mode `NonMinimalVarint` and `TaggedFieldsOutOfOrder`) and that
//! knows the field path and the byte offset:
//!
//! ```text
//! WriteTxnMarkersRequest.markers[3].topics[0].name: unexpected end of input at byte 117 (needed 2, 1 left)
//! ```
//!
//! A `RecordsError`, reading record batches, reads the same way with the batch and the record in
//! place of the field path, and its `kind()` is an `ErrorKind` too (see [Reading: batch
//! views](crate::guide::records#reading-batch-views)):
//!
//! ```text
//! batch 1: record 2: unexpected end of input at byte 70 of the decompressed payload (needed 3, 2 left)
//! ```
//!
//! In both, an offset counts bytes from the start of the input the caller gave; for a record of a
//! compressed batch, from the start of the batch's decompressed payload.
//!
//! Lengths and counts are checked against the bytes that remain before anything is allocated,
//! varints longer than 5 bytes or wider than 32 bits are refused, and no decoder panics.
//!
//! `Decode::decode_strict` reads a message that must use all its input and also refuses what
//! Kafka's own reader accepts: varints longer than their value needs (`NonMinimalVarint`) and
//! tagged fields whose tags do not increase, repeats included (`TaggedFieldsOutOfOrder`). A proxy
//! that forwards only canonical bytes uses it; `decode` and `decode_exact` follow Kafka. Encoding
//! returns an `EncodeError` (unsupported version, a non-default value in a version without the
//! field, a null where the version forbids it, tagged fields in a classic version, a value too long
//! for its length prefix). `encoded_len` fails only for an unsupported version: it is the size
//! `encode` writes when `encode` succeeds, and does not look for the other errors, which `encode`
//! reports.
//!
//! ### Kafka error codes
//!
//! Responses carry Kafka's error codes as the `i16` the schemas give them. `kafka_wire::ErrorCode`
//! wraps one: a constant for each of the 137 codes Kafka 4.4 defines, named as Kafka spells them,
//! with whether Kafka's clients retry it and a short description.
//!
//! ```rust
//! use kafka_wire::ErrorCode;
//! # use kafka_wire::messages::{AddOffsetsToTxnResponse, EndTxnResponse};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let response = EndTxnResponse::default().with_error_code(51); // CONCURRENT_TRANSACTIONS
//! # let other = AddOffsetsToTxnResponse::default();
//! # let mut retried = false;
//! # let close_producer = || unreachable!("the producer is not fenced");
//! # let mut retry_later = || retried = true;
//!
//! match ErrorCode::from(response.error_code) {
//!     ErrorCode::NONE => {}
//!     ErrorCode::PRODUCER_FENCED => close_producer(),
//!     code if code.is_retriable() => retry_later(), // NOT_COORDINATOR, CONCURRENT_TRANSACTIONS, ...
//!     code => return Err(code.into()), // shows as "INVALID_TXN_STATE (48): the transaction is ..."
//! }
//! ErrorCode::from(other.error_code).as_result()?; // Ok(()) for NONE, Err(code) otherwise
//! assert_eq!(ErrorCode::from_name("NOT_COORDINATOR"), Some(ErrorCode::new(16)));
//! # assert!(retried);
//! # let shown = ErrorCode::INVALID_TXN_STATE.to_string();
//! # assert!(shown.starts_with("INVALID_TXN_STATE (48): the transaction is "), "{shown}");
//! # assert_eq!(ErrorCode::new(48).as_result(), Err(ErrorCode::INVALID_TXN_STATE));
//! # Ok(())
//! # }
//! ```
//!
//! It is a newtype over the `i16`, not an enum: a code a newer broker sends is kept as it is
//! (`is_known()` is false, `name()` is `None`) and compares equal only to itself, so a proxy passes
//! it on unchanged and a later version that names it changes no existing `match`. The codes, names
//! and retriability are checked against a table written from Kafka's sources
//! (`tests/error_codes/kafka-4.4.tsv`, which names the commits) and against the `kafka-protocol`
//! crate.
//!
//! ## Names that differ from Kafka's
//!
//! - `API_KEY` lives on `ApiMessage`, not on `Message`: request and response headers and the data
//!   schemas (consumer-protocol assignments, control records, ...) are versioned messages without
//!   an API key, and a sentinel key would be a trap.
//! - The zero-copy string type is `KafkaString`; the per-value codec trait that fields and nested
//!   structs implement is `kafka_wire::codec::Codec`, with a `Ctx` carrying version and
//!   flexibility. Its `value_len` returns a plain `usize`: the size `encode_value` writes when it
//!   succeeds, saturating rather than failing.
//! - `Records` holds the raw bytes of a records field; `kafka_wire::records` reads and writes them
//!   (`RecordsReader::from(&records)`).
//! - An API that Kafka renamed keeps its newest name, with a type alias for the old one
//!   (`ListClientMetricsResourcesRequest` = `ListConfigResourcesRequest`, API key 74).
