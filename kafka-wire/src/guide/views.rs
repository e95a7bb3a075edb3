//! Views: reading a message where it lies, without allocating.
//!
//! Decoding builds the owned struct: a `Vec` for every array, a `KafkaString` or `Bytes` for
//! every string and byte field. A view builds nothing. `#[derive(KafkaMessage)]` writes, beside
//! each struct `Foo`, a `FooView<'a>` that borrows the bytes and reads each field from them when
//! its accessor is called. A program that looks at a request once (to route it, count it, check
//! it or forward part of it) reads it through a view; one that keeps the values, changes them or
//! reads them over and over decodes. The two accept the same bytes, and a view turns into the
//! owned struct whenever that is wanted.
//!
//! # Opening a view
//!
//! [`View::view`](crate::View::view) opens a message's view on its bytes at a version;
//! [`View::view_strict`](crate::View::view_strict) opens it under the rules of
//! [`Decode::decode_strict`](crate::Decode::decode_strict). Both take a slice, a `Vec<u8>`, a
//! `BytesMut` or a `&Bytes`, and the view borrows it.
//!
//! ```
//! use kafka_wire::messages::metadata_request::MetadataRequestTopic;
//! use kafka_wire::messages::MetadataRequest;
//! use kafka_wire::{Decode, Encode, View};
//!
//! let topic = |name: &'static str| MetadataRequestTopic::default().with_name(Some(name.into()));
//! let request = MetadataRequest::default()
//!     .with_topics(Some(vec![topic("orders"), topic("payments")]))
//!     .with_allow_auto_topic_creation(false);
//! let bytes = request.encode_to_bytes(12)?;
//!
//! let view = MetadataRequest::view(&bytes, 12)?;
//! assert!(!view.allow_auto_topic_creation());
//! let topics = view.topics().expect("a list, not null"); // the field is nullable
//! assert_eq!(topics.len(), 2);
//! for (topic, name) in topics.iter().zip(["orders", "payments"]) {
//!     assert_eq!(topic.name(), Some(name));
//! }
//!
//! // The owned struct, when it is wanted: what decoding gives.
//! assert_eq!(view.into_owned(), MetadataRequest::decode_exact(bytes, 12)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Accessors
//!
//! Each accessor is named as its field. Numbers, booleans and uuids come back by value, strings
//! as `&str` and byte fields (records too) as `&[u8]` pointing into the input, an array as an
//! [`Array`](crate::view::Array) of its elements' views, an array of integers as
//! [`Ints`](crate::view::Ints), a nested struct as its view, a nullable field as an `Option`,
//! and the tagged fields the struct does not know as
//! [`TaggedFields`](crate::view::TaggedFields). The whole table is in the
//! [attribute reference](crate::attributes#what-a-view-is-for-each-field-type), with the `view`
//! attribute that renames a view type.
//!
//! A field the version lacks reads as its default, as it decodes: an `Array` is empty, a
//! topic name of a version that identifies topics by id is `""`. The version decides which to
//! read (Produce and Fetch name topics up to version 12 and give their `topic_id` from 13).
//!
//! An array's elements are read in order: iterating is the cheap way through, and
//! [`Array::get`](crate::view::Array::get) reads the elements before the one it returns. A
//! view is `Copy` and small; hold it, pass it by value, open it again.
//!
//! # Sharing with `Bytes`
//!
//! A view opened on a `&Bytes` knows the buffer it reads. [`Source`](crate::view::Source)
//! turns any slice the view handed out into a `Bytes` that shares that buffer (a reference
//! count, not a copy), so records or a payload can be kept or sent on after the view is gone.
//! Opened on a plain slice, the same call copies.
//!
//! ```
//! use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
//! use kafka_wire::messages::ProduceRequest;
//! use kafka_wire::view::Source;
//! use kafka_wire::{Encode, Records, View};
//!
//! let data = PartitionProduceData::default()
//!     .with_index(0)
//!     .with_records(Some(Records::new(bytes::Bytes::from_static(b"batches"))));
//! let topic = TopicProduceData::default().with_name("orders").with_partition_data(vec![data]);
//! let body = ProduceRequest::default().with_topic_data(vec![topic]).encode_to_bytes(9)?;
//!
//! let request = ProduceRequest::view(&body, 9)?;
//! let partition = request.topic_data().first().and_then(|t| t.partition_data().first());
//! let records = partition.and_then(|p| p.records()).expect("records");
//! let kept = Source::from(&body).to_bytes(records);
//! assert_eq!(kept, "batches");
//! assert_eq!(kept.as_ptr(), records.as_ptr()); // the request's memory
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Views of API sets
//!
//! An API set has a view as well: `#[derive(ApiSet)]` writes an enum named after the set with
//! `View` added ([`RequestBodyView`](crate::messages::api::RequestBodyView) for Kafka's
//! requests, `RequestsView` for a set of your own named `Requests`), a variant per API holding
//! its message's view. [`ApiSet::view`](crate::ApiSet::view) opens it by API key and version,
//! as [`ApiSet::decode`](crate::ApiSet::decode) reads; the view has `api()` and
//! `into_owned()`.
//!
//! ```
//! use kafka_wire::messages::api::{RequestBody, RequestBodyView};
//! use kafka_wire::messages::ApiVersionsRequest;
//! use kafka_wire::{ApiMessage, ApiSet, Encode};
//!
//! let request = ApiVersionsRequest::default().with_client_software_name("guide");
//! let bytes = request.encode_to_bytes(3)?;
//!
//! let body = RequestBody::view(ApiVersionsRequest::API_KEY, &bytes, 3)?;
//! assert_eq!(body.api().name(), "ApiVersions");
//! if let RequestBodyView::ApiVersions(versions) = body {
//!     assert_eq!(versions.client_software_name(), "guide");
//! }
//! assert_eq!(body.into_owned(), RequestBody::ApiVersions(request));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Views of frames
//!
//! [`frame`](crate::frame) opens a whole frame (without its size field) as views of its header
//! and body, for any API set:
//!
//! - `frame::view_request::<S>(frame)` and `frame::view_response::<S>(frame, key, version)` are
//!   [`decode_request`](crate::frame::decode_request) and
//!   [`decode_response`](crate::frame::decode_response) without allocating: the header's view
//!   and the body's.
//! - `frame::view_request_lenient` and `frame::view_response_lenient` read as Kafka's broker and
//!   clients do (bytes after the body are counted, not refused, and an ApiVersions request or
//!   answer at a version the set lacks is read as Kafka reads it), and return a `ViewedRequest`
//!   or `ViewedResponse`: `header`, `version`, `body` and `trailing_bytes`, as their decoding
//!   counterparts do.
//! - `frame::peek_request::<S>(frame)` reads only the header, and returns its view with the
//!   bytes of the body, unread: for a proxy that routes on the API, the client or the correlation
//!   id and forwards the body as it came. For Produce, `kafka_wire::peek::produce` goes one step
//!   further into the body: the transactional id, `acks` and the timeout, and nothing after them.
//! - With the `tokio` feature, `kafka_wire::tokio::RawServerCodec` does the same on a
//!   connection: it yields each frame as a `RawRequest` with only its header read, whose
//!   `view()` opens the body when the server wants it, and writes one back byte for byte.
//!
//! ```
//! use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
//! use kafka_wire::messages::api::{RequestBody, RequestBodyView};
//! use kafka_wire::messages::{FindCoordinatorRequest, RequestHeader};
//! use kafka_wire::ApiMessage;
//!
//! let header = RequestHeader::default()
//!     .with_request_api_key(FindCoordinatorRequest::API_KEY)
//!     .with_request_api_version(3)
//!     .with_correlation_id(9)
//!     .with_client_id(Some("guide".into()));
//! let body = FindCoordinatorRequest::default().with_key("payments-txn").with_key_type(1);
//! let mut wire = bytes::BytesMut::new();
//! frame::encode_request(&mut wire, &header, &RequestBody::FindCoordinator(body))?;
//! let frame = frame::split_frame(&mut wire, DEFAULT_MAX_FRAME_SIZE)?.expect("a whole frame");
//!
//! // The header alone, and the body's bytes as they came.
//! let (header, body) = frame::peek_request::<RequestBody>(&frame)?;
//! assert_eq!((header.client_id(), header.correlation_id()), (Some("guide"), 9));
//! assert!(!body.is_empty());
//!
//! // Header and body, read as Kafka's broker reads them.
//! let request = frame::view_request_lenient::<RequestBody>(&frame)?;
//! assert_eq!((request.version, request.trailing_bytes), (3, 0));
//! let RequestBodyView::FindCoordinator(find) = request.body else { panic!("another API") };
//! assert_eq!((find.key(), find.key_type()), ("payments-txn", 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What opening checks, and what it costs
//!
//! Opening a view walks the whole message and checks everything decoding checks: lengths
//! against the input, counts, UTF-8, nulls where the version allows none, the tagged sections,
//! and, for `view` and the set and frame readers that use the whole input, that nothing is
//! left over. It opens on exactly the inputs decoding accepts. When it refuses one, it decodes
//! that input to fail with the error decoding gives (kind, field path, offset): the refusing
//! path allocates, the opening path does not. Accessors read bytes that were checked, so they
//! return values, not `Result`s.
//!
//! The walk reads the message once, as decoding does, and builds nothing; an accessor then finds
//! its field from the positions the walk noted, and a string's accessor checks its UTF-8 again
//! (quickly, as safe code must to hand out a `&str`). A view holds a few words per field, on the
//! stack; a nested struct's view is made when its accessor is called. So a view wins when a
//! message is read once, or read in part; when every field is read many times, or kept past
//! the buffer, decoding once is the simpler choice. The measurements, against decoding and
//! against the `kafka-protocol` crate, are in the repository's `BENCHMARKS.md`.
//!
//! Views need no feature: every message has one, and a message of your own gets one from the
//! same derive.
