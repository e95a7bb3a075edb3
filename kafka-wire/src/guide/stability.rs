//! What a release may change, and how code keeps compiling through it.
//!
//! kafka-wire and kafka-wire-derive follow semantic versioning on Cargo's rules, from 0.x on: while
//! the version starts with 0, a new minor version (0.1 → 0.2) may break code and a patch release
//! (0.1.0 → 0.1.1) may not; from 1.0 on, a new major version may break code and a minor one may
//! not. kafka-wire is built from four crates, released with it at the same version, each named at
//! that exact version: kafka-wire-core (the runtime), kafka-wire-requests and kafka-wire-responses
//! (Kafka's messages, in two crates so that they build side by side), and kafka-wire-derive. Depend
//! on kafka-wire only: it re-exports the others, and their paths are kafka-wire's
//! (`kafka_wire::codec`, `kafka_wire::messages`, ...).
//!
//! Every Kafka release grows the protocol, and kafka-wire follows it in releases that break no code
//! (patch releases while 0.x, minor releases from 1.0). Such a release may add:
//!
//! - **fields** to Kafka's messages and their nested structs, in new versions or as tagged fields,
//!   with their `with_` setters;
//! - **versions** to existing messages;
//! - **messages and APIs**: new modules under `kafka_wire::messages`, new variants of `RequestBody`
//!   and `ResponseBody`, and the cargo features that gate them (in `all-apis`);
//! - **error codes**: new `ErrorCode` constants;
//! - **enum variants**: of `ErrorKind`, `CodecError`, `Compression`, `ControlRecordType` and
//!   `DefaultInfo`;
//! - **items**: types, functions, methods and trait implementations.
//!
//! What stays: the bytes of every version a release already speaks (the generator refuses a schema
//! change that alters them, see [Wire
//! compatibility](crate::guide::own_messages#wire-compatibility)); the versions already spoken,
//! including those newer Kafka releases dropped; the names and types of existing messages, fields,
//! variants and items; the attribute vocabulary of the derives. What a new field changes is what
//! shows every field: `Debug` output, `FIELDS`, the JSON form, and `Default` values, which gain the
//! new field at Kafka's default. A rename Kafka makes waits for a breaking release, and a renamed
//! message keeps its old name as a type alias.
//!
//! The types that grow are `#[non_exhaustive]`, so the compiler holds code outside kafka-wire to
//! the styles that survive the additions:
//!
//! ```rust
//! use kafka_wire::messages::api::ResponseBody;
//! use kafka_wire::messages::fetch_request::{FetchPartition, FetchTopic};
//! use kafka_wire::messages::FetchRequest;
//! use kafka_wire::ErrorCode;
//!
//! fn main() {
//!     // Build with setters, starting from `Default`...
//!     let partitions = (0..3).map(|p| FetchPartition::default().with_partition(p));
//!     let topic = FetchTopic::default().with_topic("orders").with_partitions(partitions.collect());
//!     let request = FetchRequest::default().with_max_wait_ms(500).with_topics(vec![topic]);
//!
//!     // ...or assign the fields of a default value.
//!     let mut same = FetchRequest::default();
//!     same.max_wait_ms = 500;
//!     same.topics = request.topics.clone();
//!     assert_eq!(same, request);
//!
//!     // Read fields directly; destructure with `..`.
//!     let FetchRequest { max_wait_ms, topics, .. } = &request;
//!     assert_eq!((*max_wait_ms, topics[0].partitions.len()), (500, 3));
//!
//!     // Match API sets, error kinds and codecs with a `_` arm; error codes by their constants.
//!     let describe = |body: &ResponseBody| match body {
//!         ResponseBody::Fetch(fetch) => match ErrorCode::from(fetch.error_code) {
//!             ErrorCode::NONE => "fetched".to_owned(),
//!             code => format!("failed: {code}"),
//!         },
//!         _ => "another API".to_owned(),
//!     };
//!     assert_eq!(describe(&ResponseBody::Fetch(Default::default())), "fetched");
//! }
//! ```
//!
//! A struct literal (even with `..Default::default()`) or a pattern without `..` of a Kafka message
//! is a compile error outside kafka-wire, and so is a `match` on a growing enum without a `_` arm.
//! `tests/semver.rs` shows each style; `tests/ui/fail/semver/` pins the errors.
//!
//! `CHANGELOG.md`, beside the crates in their repository, lists every change to the public API of
//! each release, and for each breaking one the code to write instead.
//!
//! Your own messages are yours: a struct you derive is `#[non_exhaustive]` only if you say so, and
//! has the setters all the same (`#[kafka(no_setters)]` leaves them out). Messages that
//! `kafka-wire-codegen` generates from your schemas are `#[non_exhaustive]`, as Kafka's are, which
//! matters to the crates that depend on yours; the API sets it generates for you are not, because
//! their APIs change only when you add one, and then a `match` that misses it should fail to
//! compile.
