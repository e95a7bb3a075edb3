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
//! [`View::view_in`](crate::View::view_in) opens a message's view on its bytes at a version,
//! into a [`ViewIndex`](crate::ViewIndex); [`View::view_strict_in`](crate::View::view_strict_in)
//! opens it under the rules of [`Decode::decode_strict`](crate::Decode::decode_strict). Both
//! take a slice, a `Vec<u8>`, a `BytesMut` or a `&Bytes`, and the view borrows it and the index.
//!
//! The index is memory the view's opening fills with where each struct's fields are. Make one
//! and keep it, one per connection or per thread, and open every message into it: it grows to
//! the largest message it has held and then allocates no more, so that from then on opening
//! and reading allocate nothing. Opening the next message into it ends the view of the last one,
//! which the borrow checker enforces.
//!
//! ```
//! use kafka_wire::messages::metadata_request::MetadataRequestTopic;
//! use kafka_wire::messages::MetadataRequest;
//! use kafka_wire::{Decode, Encode, View, ViewIndex};
//!
//! let topic = |name: &'static str| MetadataRequestTopic::default().with_name(Some(name.into()));
//! let request = MetadataRequest::default()
//!     .with_topics(Some(vec![topic("orders"), topic("payments")]))
//!     .with_allow_auto_topic_creation(false);
//! let bytes = request.encode_to_bytes(12)?;
//!
//! let mut index = ViewIndex::new(); // kept for the next message
//! let view = MetadataRequest::view_in(&bytes, 12, &mut index)?;
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
//! [`Array::get`](crate::view::Array::get) steps over the elements before the one it returns
//! (for an array of structs, one look-up each). A view is `Copy` and small; hold it, pass it by
//! value.
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
//! use kafka_wire::{Encode, Records, View, ViewIndex};
//!
//! let data = PartitionProduceData::default()
//!     .with_index(0)
//!     .with_records(Some(Records::new(bytes::Bytes::from_static(b"batches"))));
//! let topic = TopicProduceData::default().with_name("orders").with_partition_data(vec![data]);
//! let body = ProduceRequest::default().with_topic_data(vec![topic]).encode_to_bytes(9)?;
//!
//! let mut index = ViewIndex::new();
//! let request = ProduceRequest::view_in(&body, 9, &mut index)?;
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
//! its message's view. [`ApiSet::view_in`](crate::ApiSet::view_in) opens it by API key and
//! version, as [`ApiSet::decode`](crate::ApiSet::decode) reads; the view has `api()` and
//! `into_owned()`.
//!
//! ```
//! use kafka_wire::messages::api::{RequestBody, RequestBodyView};
//! use kafka_wire::messages::ApiVersionsRequest;
//! use kafka_wire::{ApiMessage, ApiSet, Encode, ViewIndex};
//!
//! let request = ApiVersionsRequest::default().with_client_software_name("guide");
//! let bytes = request.encode_to_bytes(3)?;
//!
//! let mut index = ViewIndex::new();
//! let body = RequestBody::view_in(ApiVersionsRequest::API_KEY, &bytes, 3, &mut index)?;
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
//! and body, for any API set, both recorded in one index:
//!
//! - `frame::view_request::<S>(frame, &mut index)` and
//!   `frame::view_response::<S>(frame, key, version, &mut index)` are
//!   [`decode_request`](crate::frame::decode_request) and
//!   [`decode_response`](crate::frame::decode_response) without allocating: the header's view
//!   and the body's.
//! - `frame::view_request_lenient` and `frame::view_response_lenient` read as Kafka's broker and
//!   clients do (bytes after the body are counted, not refused, and an ApiVersions request or
//!   answer at a version the set lacks is read as Kafka reads it), and return a `ViewedRequest`
//!   or `ViewedResponse`: `header`, `version`, `body` and `trailing_bytes`, as their decoding
//!   counterparts do.
//! - `frame::peek_request::<S>(frame, &mut index)` reads only the header, and returns its view with the
//!   bytes of the body, unread: for a proxy that routes on the API, the client or the correlation
//!   id and forwards the body as it came. For Produce, `kafka_wire::peek::produce` goes one step
//!   further into the body: the transactional id, `acks` and the timeout, and nothing after them.
//! - With the `tokio` feature, `kafka_wire::tokio::RawServerCodec` does the same on a
//!   connection: it yields each frame as a `RawRequest` with only its header read (decoded, its
//!   strings sharing the frame), whose `view_in(&mut index)` opens the body when the server wants
//!   it, and writes one back byte for byte.
//!
//! ```
//! use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
//! use kafka_wire::messages::api::{RequestBody, RequestBodyView};
//! use kafka_wire::messages::{FindCoordinatorRequest, RequestHeader};
//! use kafka_wire::{ApiMessage, ViewIndex};
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
//! // One index for the connection's frames.
//! let mut index = ViewIndex::new();
//!
//! // The header alone, and the body's bytes as they came.
//! let (header, body) = frame::peek_request::<RequestBody>(&frame, &mut index)?;
//! assert_eq!((header.client_id(), header.correlation_id()), (Some("guide"), 9));
//! assert!(!body.is_empty());
//!
//! // Header and body, read as Kafka's broker reads them.
//! let request = frame::view_request_lenient::<RequestBody>(&frame, &mut index)?;
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
//! and, for `view_in` and the set and frame readers that use the whole input, that nothing is
//! left over. It opens on exactly the inputs decoding accepts. When it refuses one, it decodes
//! that input to fail with the error decoding gives (kind, field path, offset): the refusing
//! path allocates, the opening path does not. Accessors read bytes that were checked, so they
//! return values, not `Result`s.
//!
//! That walk is the only one. As it checks each struct it records, in the index, where each of
//! the struct's fields is; for an array of structs, its count and where its elements' records
//! are. An accessor is then one look-up in the struct's record and one read of the bytes there;
//! the next element of an array of structs is the next record. The integers, booleans and uuids
//! a struct opens with (a partition's index, error code, leader, epoch) share one word, where
//! the struct starts: each of them is at a fixed distance from it, or one the version decides,
//! and so is the string, bytes or array of integers that follows them (the partition's
//! replicas), which needs no word either. A string, bytes or records field elsewhere keeps two
//! words, where its bytes start and end, so that its accessor does not read its length again;
//! an empty array of structs keeps no record at all, nor do the elements of an array of structs
//! of such scalars alone (a partition's index and error code) while their tagged sections are
//! empty: they are then a fixed stride apart, and the array's record says where the first is.
//! Arrays of integers and strings are read where they lie, in order. A string's accessor checks
//! its UTF-8 again (quickly, as safe code must to hand out a `&str`). The index takes a few
//! words per struct: about as many bytes as the message for messages of many small structs, far
//! fewer for messages of records.
//!
//! So reading a message through a view costs one pass over its bytes and no allocation, and
//! reading part of it (a router's few fields) little more than the pass. When every field is
//! read many times, or kept past the buffer, decoding once is the simpler choice. The
//! measurements, against decoding and against the `kafka-protocol` crate, are in the
//! repository's `BENCHMARKS.md`.
//!
//! # How it is built
//!
//! Kafka's encoding is sequential: a field's place depends on the lengths of every field before
//! it, so a reader must walk the bytes to find anything. The design takes from three readers
//! that face the same problem:
//!
//! - From FlatBuffers' verifier, the split between checking and reading: the buffer is checked
//!   once, up front, so that accessors cannot fail and need no `Result`.
//! - From simdjson's tape, recording as it checks: the one pass writes the structure it found
//!   into a flat array of words, and readers follow that array instead of the bytes. As on the
//!   tape, a struct that holds other structs records where the records after its own start, so
//!   that an array's elements are one step apart however deep each one is; and the array is
//!   memory the caller reuses, not memory each message allocates.
//! - From upb, the cost model of a table: the index holds plain words, a struct's record has a
//!   word per field (the fixed-width fields it opens with share one, each at an offset from
//!   it, as upb's table gives each field an offset in its message; a string, bytes or records
//!   field has two, where its bytes start and end, so that its length is read once), and an
//!   accessor is an index into it. upb also drives its parser from a table per message instead
//!   of code per message. kafka-wire keeps code per
//!   struct: a walk the derive writes field by field, as it writes the decoder. A generic
//!   walker driven by a table per struct and version was built, wrote the same index on every
//!   input tried, and was slower on every shape measured: the generated walk knows each field's
//!   kind, and whether the version has it, when it is compiled, so a field costs a bounds check
//!   and a store, where the table walker loads a descriptor and branches on its kind for every
//!   field. The table would take less code per message; `BENCHMARKS.md` has both measurements,
//!   of time and of build.
//!
//! One cost is Kafka's own: where the next element of an array starts is known only once the
//! lengths in the element before are read, so a long array is a chain of loads, each waiting on
//! the one before (a Metadata partition's replica counts). The walk breaks it where it can by
//! guessing: it takes each element to be as long as the one before, starts the next one there,
//! and checks the guess when the element's own walk ends. Where the guess holds, as it does for
//! a topic's partitions with as many replicas each, the processor walks consecutive elements
//! side by side; where it fails, the walk goes on from where it ended, at the price of a
//! mispredicted branch. What is checked, and where each field is found, is the same either way.
//!
//! There is one way to open a view, into an index. A form that needs none would have to keep
//! each struct's field positions in the view itself, as views did before the index: a second
//! view type per struct, a second walk, and arrays walked again by every view that reaches
//! them. For a small message the index costs one allocation of a few words the first time a
//! new index is opened into, and nothing once it is kept; a second form would add generated
//! code to every struct for what that one allocation saves.
//!
//! Views are behind the `views` feature, off by default: every message has one when it is on,
//! and a message of your own gets one from the same derive.
