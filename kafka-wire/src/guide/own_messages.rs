//! Messages and APIs of your own: derived, generated from schemas, checked for wire compatibility.
//!
//! Proxies, brokers, test servers and KIP prototypes speak messages Kafka does not have, beside
//! Kafka's own. kafka-wire treats them alike: Kafka's catalogue is built with the same derive.
//!
//! ## Deriving a message and an API set
//!
//! A struct derives `KafkaMessage` from the facts of its schema; an enum whose variants each wrap
//! one request (or one response) derives `ApiSet`, and frames, negotiation and the async codecs
//! take it as they take Kafka's sets:
//!
//! ```rust
//! use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse, RequestHeader};
//! use kafka_wire::{frame, ApiMessage, ApiSet, Decode, Encode, KafkaMessage, KafkaString};
//! use kafka_wire::UnknownTaggedFields;
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(key = 1000, versions = "0-1", flexible = "1+")]
//! pub struct PingRequest {
//!     #[kafka(versions = "0+")]
//!     pub origin: KafkaString,
//!     #[kafka(versions = "0+")]
//!     pub sequence: Vec<i32>,
//!     #[kafka(versions = "1+", tag = 0, tagged = "1+", default = -1)]
//!     pub deadline_ms: i64,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(key = 1000, versions = "0-1", flexible = "1+")]
//! pub struct PingResponse {
//!     #[kafka(versions = "0+")]
//!     pub error_code: i16,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(requests, response_set = Responses)]
//! pub enum Requests {
//!     Ping(PingRequest),
//!     ApiVersions(ApiVersionsRequest), // Kafka's, beside it
//! }
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(responses)]
//! pub enum Responses {
//!     Ping(PingResponse),
//!     #[kafka(header_v0 = "0+")] // Kafka's exception: ApiVersions answers use header v0
//!     ApiVersions(ApiVersionsResponse),
//! }
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Your own structs take literals, and have the setters too.
//!     let ping = PingRequest {
//!         origin: KafkaString::from_static("broker-1"),
//!         sequence: vec![1, 2],
//!         deadline_ms: 1500,
//!         ..Default::default()
//!     };
//!     let same = PingRequest::default()
//!         .with_origin("broker-1")
//!         .with_sequence(vec![1, 2])
//!         .with_deadline_ms(1500);
//!     assert_eq!(ping, same);
//!
//!     let bytes = ping.encode_to_bytes(1)?; // exact size, computed first
//!     assert_eq!(bytes.len(), ping.encoded_len(1)?);
//!     assert_eq!(PingRequest::decode_exact(bytes, 1)?, ping); // strings point into `bytes`
//!     // Version 0 has no `deadline_ms`, and the field is not `ignorable`: refusing to drop it
//!     // silently is Kafka's rule.
//!     assert!(ping.encode_to_bytes(0).is_err());
//!
//!     let header = RequestHeader::default()
//!         .with_request_api_key(PingRequest::API_KEY)
//!         .with_request_api_version(1);
//!     let mut wire = bytes::BytesMut::new();
//!     frame::encode_request(&mut wire, &header, &Requests::Ping(ping.clone()))?;
//!     let frame = frame::split_frame(&mut wire, frame::DEFAULT_MAX_FRAME_SIZE)?.expect("a frame");
//!     let (_, body) = frame::decode_request::<Requests>(frame)?;
//!     assert_eq!(body, Requests::Ping(ping));
//!     assert_eq!(Requests::find_by_name("Ping").map(|api| api.key()), Some(1000));
//!     Ok(())
//! }
//! ```
//!
//! A client reads the answers with `frame::decode_response::<Responses>(frame, key, version)`, and
//! negotiation with a broker takes the set's `APIS` as the list of what the program speaks:
//! `kafka_wire::negotiate::negotiate(Requests::APIS, &broker_api_versions)`.
//!
//! ## What `ApiSet` writes
//!
//! The derive writes, through one `match` per operation: `APIS`, one `ApiInfo` per variant (key,
//! name, message name, versions, flexible versions, side, and `header_version(v)`: Kafka's rule,
//! request header v2 in flexible versions and v1 before, response header v1 and v0, with the
//! versions a variant lists in `header_v0` at v0), `api()` and `api_key()` of a body, `decode(key,
//! buf, version)`, `encode`, `encoded_len`, `find(key)`, `find_by_name(name)`, and for a request
//! set `RequestSet::Responses`, the set a client reads the answers into. It refuses at compile
//! time, at the variant's type: a variant that wraps no API message, two variants with one key, a
//! request whose response the response set lacks (and a response set with an API the requests
//! lack); and at the attribute: a set without `requests` or `responses`, `requests` without
//! `response_set`, variants that do not wrap exactly one type, repeated API names. The traits are
//! in `kafka_wire::api`; the keys in `kafka_wire::attributes`.
//!
//! ## Renamed dependencies and facades
//!
//! The expansions name the runtime `::kafka_wire` unless `#[kafka(crate = "path")]` says otherwise,
//! on messages (nested structs too) and sets, as serde's `crate` does. `tests/renamed` is a crate
//! that depends on `kw = { package = "kafka-wire", ... }` and round-trips framed requests of its
//! own API through `kw::frame` (`cargo test -p renamed-dependency`).
//!
//! ## Generating messages from your schemas
//!
//! `kafka-wire-codegen` (`tools/codegen`) reads schemas in Kafka's JSON format (several folders are
//! releases, oldest first, merged as Kafka's are) and writes one Rust file: a module per message
//! with its annotated structs and `Default` impl, the messages re-exported, and on request the two
//! API sets, optionally with some of Kafka's APIs beside yours. From `build.rs`, with the library
//! (its `cli` feature off):
//!
//! ```rust,no_run
//! # // A build script: it reads `schemas/` and writes into cargo's OUT_DIR, so it is only
//! # // compiled here (kafka-wire-codegen is a dev-dependency of kafka-wire for this example).
//! # fn main() -> Result<(), kafka_wire_codegen::Error> {
//! kafka_wire_codegen::Generator::new()
//!     .schema_dir("schemas")
//!     .api_sets("Requests", "Responses")   // optional
//!     .kafka_api("ApiVersions")            // optional: Kafka's APIs in the sets
//!     .crate_path("kafka_wire")            // or the name of a renamed dependency or facade
//!     .generate()?;                        // $OUT_DIR/messages.rs; reruns when a schema changes
//! # Ok(())
//! # }
//! ```
//!
//! then `include!(concat!(env!("OUT_DIR"), "/messages.rs"));` in a module. The command line does
//! the same:
//!
//! ```sh
//! cargo run -p kafka-wire-codegen -- generate schemas/ --out src/messages.rs \
//!     --api-sets Requests,Responses --kafka-api ApiVersions [--crate kw]
//! ```
//!
//! [`examples/custom-api`](examples/custom-api/README.md) is such a crate: a Ping API (key 1000, v0
//! classic, v1 flexible with a tagged field) generated from its own schemas, sets with Kafka's
//! ApiVersions, and a server and a client on loopback that agree on versions through ApiVersions
//! (`cargo run -p custom-api`).
//!
//! ## Wire compatibility
//!
//! `kafka-wire-codegen compat OLD NEW` (two folders, or two files) reports what changed between two
//! releases at every version both define, walking both in wire order
//! (`kafka_wire_codegen::compat::compare_sets` returns the same as typed `Finding`s):
//!
//! - **breaking**: a field added, removed, moved or retyped in an existing version, a tag changed
//!   (or a field tagged or untagged), nullability narrowed or widened, a version made flexible or
//!   classic, a string's own flexibility changed;
//! - **removal**: versions, or whole messages, the new release no longer defines;
//! - **note**: what keeps the bytes: renamed messages (paired by API key), fields and structs, and
//!   tagged fields added or removed, which readers skip.
//!
//! A version its request marks `latestVersionUnstable` is not compared. `--deny-breaking` makes
//! breaking findings fail the command. `tools/codegen/tests/compat.rs` shows each kind on small
//! hand-written schema pairs. The catalogue's generator runs the same check on every version two
//! releases share and stops on anything breaking.
//!
//! The report of Kafka 3.9 → 4.4 is checked in as `tools/codegen/compat-3.9-4.4.txt`, and `.ci/run`
//! regenerates it and fails on any difference. It finds **no breaking change**, **49 removals** and
//! **9 notes**:
//!
//! - The removals are the versions Kafka 4.0 dropped: the oldest versions of client APIs (Produce
//!   0-2, Fetch 0-3, ListOffsets 0, OffsetCommit 0-1, OffsetFetch 0, CreateTopics 0-1, the ACL,
//!   delegation-token, config and log-dir APIs' v0, ...), the ZooKeeper-era controller-to-broker
//!   APIs whole (LeaderAndIsr 0-7, StopReplica 0-4, UpdateMetadata 0-8, ControlledShutdown 0-3),
//!   AlterPartition 0-1, WriteTxnMarkers 0, and request header v0, which only ControlledShutdown v0
//!   used. None is a change of bytes: a 4.x broker no longer lists these versions in ApiVersions,
//!   so negotiation never picks them. kafka-wire keeps every one of them, from 3.9, to speak with
//!   older brokers and clients.
//! - The notes are renames with the same bytes: ListClientMetricsResources became
//!   ListConfigResources (key 74; its struct and two fields renamed at v0), TxnOffsetCommit's
//!   `GenerationId` became `GenerationIdOrMemberEpoch`, and Vote's `Candidate*` fields became
//!   `Replica*`. The generator used to carry the ListConfigResources renames as hand-checked
//!   exceptions; they are findings of the check now, and the catalogue keeps the newest names (with
//!   a type alias for the old message names).
//!
//! ## The attribute vocabulary
//!
//! On the struct:
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `crate` | quoted path | how the expansion names kafka-wire (`"kw"`, `"my_facade::kafka_wire"`); `::kafka_wire` by default |
//! | `key` | `0..=32767` | the API key; the struct becomes an `ApiMessage` |
//! | `versions` | range | the versions the message defines; the struct becomes a `Message` |
//! | `flexible` | open range or `"none"` | versions with compact lengths and tagged-field sections |
//!
//! A struct without `versions` is nested: it takes version and flexibility from its message at run
//! time.
//!
//! On a field:
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `versions` | range (required) | where the field exists; intersected with the message's range |
//! | `nullable` | range | where it may be null; the type must be `Option<T>` |
//! | `tag`, `tagged` | integer, open range | a tagged field: written only when not at its default, in tag order |
//! | `default` | literal or `"null"` | value of an absent field, and the value a tagged field is not written at; without it, Rust's default, and for an `Option` field the empty value (`Some("")`), as in Kafka |
//! | `ignorable` | flag | silently drop a non-default value in versions without the field (otherwise that is an `EncodeError`, as in Kafka) |
//! | `flexible` | range | a string or bytes field's own flexible versions (the request header's client id stays classic) |
//! | `unknown_tagged_fields` | flag | the `UnknownTaggedFields` field that keeps unrecognised tags, byte for byte |
//!
//! Ranges are written as in Kafka's schemas: `"3"`, `"1-4"`, `"2+"`, `"none"`. Field types: `bool`,
//! `i8`, `i16`, `u16`, `i32`, `u32`, `i64`, `f64`, `KafkaString` (zero-copy, derefs to `str`) or
//! `String`, `Bytes`, `Records`, `Uuid`, `Vec<T>`, nested structs, and `Option<T>` for nullable
//! ones. The full reference, with a tested example per key, is the `kafka_wire::attributes` module
//! (`cargo doc --open -p kafka-wire`).
//!
//! The derive rejects at compile time, at the offending token and all in one build: malformed,
//! inverted or out-of-range version ranges; unknown or repeated keys; `flexible` not open-ended or
//! starting after the last version; field ranges disjoint from the message; `tag` without `tagged`
//! and the reverse; repeated tags; tags not numbered 0, 1, 2, ...; tagged versions that are not
//! open-ended, not within the field's versions or not within the flexible versions; `nullable` on a
//! type that cannot be null, or disjoint from the field's versions; `Option<T>` without `nullable`
//! and the reverse; defaults that do not fit the type; `default = "null"` on a field not nullable
//! in all its versions; unsupported Rust types (`u64`, maps, references, `Vec<Option<T>>`, ...); a
//! flexible override on a non-string field; a flexible message without an `unknown_tagged_fields`
//! field; the derive on enums, unions, tuple, unit or generic structs; an API key outside
//! `0..=32767`; a field without `versions`; a `crate` that is not a quoted path. The API-set
//! derive's rules are listed [above](crate::guide::own_messages#what-apiset-writes). The cases live
//! in `tests/ui/fail/` (`tests/ui/fail/set/` for API sets).
