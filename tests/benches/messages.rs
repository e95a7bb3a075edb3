//! Whole messages: kafka-wire against the `kafka-protocol` crate 0.18 on the same values, in one
//! run, and against a codec written by hand for WriteTxnMarkers v1.
//!
//! The shapes (built in `messages/shapes.rs`):
//! - WriteTxnMarkersRequest v1 and WriteTxnMarkersResponse v1, small (1 marker, 1 topic,
//!   3 partitions) and large (100 markers × 5 topics × 20 partitions);
//! - MetadataResponse v13: 6 brokers with host and rack, 200 topics × 50 partitions with topic
//!   ids, 3 replicas and 3 in-sync replicas each, no offline replicas, authorized operations;
//!   and the same with 1, 2 or 3 of the replicas in sync at random ("uneven"), so that the
//!   partitions' lengths vary with no order a walk could learn;
//! - ProduceRequest v13: one topic by id, 10 partitions of a 16 KiB record batch each;
//! - FetchResponse v18: one topic by id, 10 partitions of 64 KiB of records, no aborted
//!   transactions.
//!
//! Per shape, these rows: decode (both read the bytes kafka-protocol wrote, which must equal
//! kafka-wire's); view read (kafka-wire opens the message's view and reads every field of it,
//! against kafka-protocol's decode); on Metadata, Produce and Fetch, routing read (kafka-wire
//! opens the view and reads the few fields a router or a broker's dispatch reads first, against
//! the same decode); encode (each writes the value it decoded into a buffer sized by its own
//! size computation, as a sender does), and size (`encoded_len` against `compute_size`).
//! Produce and Fetch have one more, vectored: kafka-wire writes into [`Segments`], ready for
//! `write_vectored`, with the records referenced where they are; kafka-protocol has no such
//! path, so its side is its copying encode.
//! Every call of the three reading rows, on both sides, allocates a buffer of the frame's size
//! before it reads and frees it after, as a socket reader does with each frame, so that the
//! reading meets the allocator in the state an application leaves it in rather than that of a
//! loop doing nothing else; the bytes read are the shared input, not copied into that buffer.
//! Only the reading is timed unless `KW_BENCH_FRAME=inside` (see `compare`). Allocations are
//! those of one call, the frame's buffer among them when it is timed. Once every shape has
//! run, each decode row runs again with the shapes in the reverse order
//! (`decode, shapes reversed`): a decode meets the allocator as the rows before it leave it,
//! and the two passes show whether a ratio depends on that. Before anything is timed,
//! both libraries must write each value to the same bytes and read those bytes back to the same
//! value, compared field by field across the two libraries' types, and kafka-wire's view of the
//! bytes must give that value too; the hand-written codec must do the same against kafka-wire,
//! and accept and refuse the same corrupted inputs.
//!
//! `cargo bench -p kafka-wire-tests --bench messages` prints the table; `KW_BENCH=quick` for a
//! smoke run, `KW_BENCH_ONLY=<text>` to build, check and run only the rows whose "shape
//! operation" contains the text (`KW_BENCH_ONLY="MetadataResponse v13 decode"`), and with it
//! `KW_BENCH_PROFILE=kafka-wire` to time kafka-wire alone under a profiler.
#![forbid(unsafe_code)]

#[path = "compare/mod.rs"]
mod compare;
#[path = "messages/hand.rs"]
mod hand;
#[path = "messages/peer.rs"]
mod peer;
#[path = "messages/shapes.rs"]
mod shapes;

use bytes::{Bytes, BytesMut};
use compare::Compare;
use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::messages::{write_txn_markers_request as req, write_txn_markers_response as resp};
use kafka_wire::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use kafka_wire::view::{Ints, Source, TaggedFields, ViewIndex};
use kafka_wire::{
    Decode, Encode, KafkaString, RawTaggedField, Segments, UnknownTaggedFields, Uuid, View,
};
use kafka_wire_tests::random::Rng;
use std::fmt::Debug;
use std::hint::black_box;

/// The operations timed on every shape, in the order of the table. No name is part of another
/// but the last, so that `KW_BENCH_ONLY` can pick any one of them; `decode` picks both decodes.
const CASES: [&str; 7] = [
    "decode",
    "view read",
    "routing read",
    "encode",
    "size",
    "vectored",
    "decode, shapes reversed",
];

/// What a shape adds to the rows every shape has: its view readers, and whether it has a
/// vectored row.
#[derive(Clone, Copy)]
struct Rows {
    /// Opens the view on the message's bytes and reads every field; gives a sum of what it read.
    view: fn(&[u8], &mut ViewIndex) -> u64,
    /// Opens the view and reads the fields that route the message, where the shape has a row
    /// for them.
    routing: Option<fn(&[u8], &mut ViewIndex) -> u64>,
    vectored: bool,
}

/// The run: the comparisons, and the legend of the shapes they were made on.
struct Bench {
    compare: Compare,
    /// Group, description, encoded bytes.
    shapes: Vec<(String, &'static str, usize)>,
    /// Each shape's two decodes, timed again once every shape has run.
    again: Vec<Again>,
}

/// A shape's decode row, kept to be timed a second time with the shapes in the reverse order.
/// A decode meets the allocator in the state the rows before it leave: what they freed, and
/// how far glibc's thresholds for returning memory to the system have moved. Timing every
/// decode in both orders in one run shows whether a ratio depends on that state.
struct Again {
    group: String,
    len: usize,
    ours: Box<dyn FnMut()>,
    peer: Box<dyn FnMut()>,
}

impl Bench {
    /// Builds, checks and times one shape, unless `KW_BENCH_ONLY` leaves it out; gives the
    /// bytes both libraries write.
    fn shape<M, P>(
        &mut self,
        group: &str,
        about: &'static str,
        version: i16,
        build: impl FnOnce() -> M,
        to_peer: fn(&M) -> P,
        rows: Rows,
    ) -> Option<Bytes>
    where
        M: Decode + Encode + View + PartialEq + Debug + 'static,
        P: Decodable + Encodable + PartialEq + Debug + 'static,
    {
        if !self.compare.wants(group, &CASES) {
            return None;
        }
        let (bytes, again) = message(&mut self.compare, group, version, &build(), to_peer, rows);
        self.shapes.push((group.to_owned(), about, bytes.len()));
        self.again.push(again);
        Some(bytes)
    }

    /// Times every shape's decode again, the shapes in the reverse order.
    fn decode_reversed(&mut self) {
        let reversed = CASES[6];
        for again in self.again.iter_mut().rev() {
            self.compare.framed(
                &again.group,
                reversed,
                again.len,
                &mut again.ours,
                &mut again.peer,
            );
        }
    }
}

fn main() {
    let mut bench = Bench {
        compare: Compare::from_env(),
        shapes: Vec::new(),
        again: Vec::new(),
    };
    for (size, about, (markers, topics, partitions)) in [
        ("small", "1 marker, 1 topic, 3 partitions", (1, 1, 3)),
        (
            "large",
            "100 markers × 5 topics × 20 partitions",
            (100, 5, 20),
        ),
    ] {
        let group = format!("WriteTxnMarkersRequest v1 {size}");
        let build = || shapes::write_txn_markers_request(markers, topics, partitions);
        if let Some(bytes) = bench.shape(
            &group,
            about,
            1,
            build,
            peer::write_txn_markers_request,
            Rows {
                view: every_field::write_txn_markers_request,
                routing: None,
                vectored: false,
            },
        ) {
            let hand = Hand {
                decode: hand::Request::decode,
                encode: hand::Request::encode,
                len: hand::Request::encoded_len,
                ours: request_of,
            };
            by_hand(&mut bench.compare, &group, &bytes, hand);
        }
        let group = format!("WriteTxnMarkersResponse v1 {size}");
        let build = || shapes::write_txn_markers_response(markers, topics, partitions);
        if let Some(bytes) = bench.shape(
            &group,
            about,
            1,
            build,
            peer::write_txn_markers_response,
            Rows {
                view: every_field::write_txn_markers_response,
                routing: None,
                vectored: false,
            },
        ) {
            let hand = Hand {
                decode: hand::Response::decode,
                encode: hand::Response::encode,
                len: hand::Response::encoded_len,
                ours: response_of,
            };
            by_hand(&mut bench.compare, &group, &bytes, hand);
        }
    }
    bench.shape(
        "MetadataResponse v13",
        "6 brokers with rack, 200 topics × 50 partitions, 3 replicas, 3 in sync",
        13,
        shapes::metadata_response,
        peer::metadata_response,
        Rows {
            view: every_field::metadata_response,
            routing: Some(routing::metadata_response),
            vectored: false,
        },
    );
    bench.shape(
        "MetadataResponse v13 uneven",
        "the same, with 1, 2 or 3 replicas in sync at random",
        13,
        shapes::metadata_response_uneven,
        peer::metadata_response,
        Rows {
            view: every_field::metadata_response,
            routing: Some(routing::metadata_response),
            vectored: false,
        },
    );
    bench.shape(
        "ProduceRequest v13",
        "1 topic by id, 10 partitions × 16 KiB of records",
        13,
        shapes::produce_request,
        peer::produce_request,
        Rows {
            view: every_field::produce_request,
            routing: Some(routing::produce_request),
            vectored: true,
        },
    );
    bench.shape(
        "FetchResponse v18",
        "1 topic by id, 10 partitions × 64 KiB of records",
        18,
        shapes::fetch_response,
        peer::fetch_response,
        Rows {
            view: every_field::fetch_response,
            routing: Some(routing::fetch_response),
            vectored: true,
        },
    );

    bench.decode_reversed();

    println!("\n| shape | what | bytes |\n|---|---|---|");
    for (group, about, bytes) in &bench.shapes {
        println!("| {group} | {about} | {bytes} |");
    }
    bench.compare.finish("Messages");
}

/// kafka-protocol's way of writing a message, sized first as a sender does.
fn peer_encode<P: Encodable>(value: &P, version: i16) -> Bytes {
    let mut buf =
        BytesMut::with_capacity(value.compute_size(version).expect("kafka-protocol sizes"));
    value
        .encode(&mut buf, version)
        .expect("kafka-protocol encodes");
    buf.freeze()
}

/// Where two encodings first differ: the message, not a megabyte of hex.
fn same_bytes(group: &str, what: &str, a: &[u8], b: &[u8]) {
    if a != b {
        let at = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        panic!(
            "{group}: {what} differ at byte {at} (lengths {} and {})",
            a.len(),
            b.len()
        );
    }
}

/// Checks `ours` and its kafka-protocol twin against each other, adds the rows for the shape
/// (those `rows` names among them), and returns the bytes both write and the decode row.
fn message<M, P>(
    compare: &mut Compare,
    group: &str,
    version: i16,
    ours: &M,
    to_peer: fn(&M) -> P,
    rows: Rows,
) -> (Bytes, Again)
where
    M: Decode + Encode + View + PartialEq + Debug + 'static,
    P: Decodable + Encodable + PartialEq + Debug + 'static,
{
    let theirs = to_peer(ours);
    let input = peer_encode(&theirs, version);
    let written = ours.encode_to_bytes(version).expect("kafka-wire encodes");
    // The same fields in the same order with no choice of encoding: the bytes must agree.
    same_bytes(group, "the two encodings", &written, &input);
    assert_eq!(ours.encoded_len(version).unwrap(), input.len(), "{group}");
    // Each reads the other's bytes back to the value it was given...
    let our_value = M::decode_exact(input.clone(), version).expect("kafka-wire decodes");
    assert!(our_value == *ours, "{group}: kafka-wire's reading differs");
    let mut rest = written.clone();
    let their_value = P::decode(&mut rest, version).expect("kafka-protocol decodes");
    assert!(rest.is_empty(), "{group}: kafka-protocol left bytes");
    assert!(
        their_value == theirs,
        "{group}: kafka-protocol's reading differs"
    );
    // ...and what they read is the same, field by field.
    assert!(
        to_peer(&our_value) == their_value,
        "{group}: the libraries read different values"
    );
    // The first clone of a `Bytes` made from a vector allocates its shared handle; done here so
    // that the counted calls below count only the decoding.
    drop(input.clone());

    let len = input.len();
    let [decode, view_read, routing_read, encode, size, segments, _] = CASES;
    // kafka-protocol's decode, the other side of every reading row: it owns a handle on the
    // input, so that a copy of it can be boxed for the second decode pass.
    let peer_input = input.clone();
    let peer_decode = move || {
        drop(black_box(
            P::decode(&mut black_box(&peer_input).clone(), version).unwrap(),
        ))
    };
    // Boxed, to be timed again after the other shapes; both passes call the same closures.
    let ours_input = input.clone();
    let mut again = Again {
        group: group.to_owned(),
        len,
        ours: Box::new(move || {
            drop(black_box(
                M::decode(&mut black_box(&ours_input).clone(), version).unwrap(),
            ))
        }),
        peer: Box::new(peer_decode.clone()),
    };
    compare.framed(group, decode, len, &mut again.ours, &mut again.peer);
    // The view opens on the bytes kafka-protocol wrote and gives the value decoding gives.
    let mut index = ViewIndex::new();
    let view = M::view_in(&input, version, &mut index).expect("the view opens");
    assert!(
        M::from_view(view, Source::from(&input)) == our_value,
        "{group}: the view's value differs"
    );
    // One index for every call, as a connection keeps one: it has grown to the message above.
    let read = rows.view;
    compare.framed(
        group,
        view_read,
        len,
        || read(black_box(&input), &mut index),
        peer_decode.clone(),
    );
    if let Some(route) = rows.routing {
        compare.framed(
            group,
            routing_read,
            len,
            || route(black_box(&input), &mut index),
            peer_decode,
        );
    }
    compare.run(
        group,
        encode,
        len,
        || black_box(&our_value).encode_to_bytes(version).unwrap(),
        || peer_encode(black_box(&their_value), version),
    );
    compare.run(
        group,
        size,
        len,
        || black_box(&our_value).encoded_len(version).unwrap(),
        || black_box(&their_value).compute_size(version).unwrap(),
    );
    if rows.vectored {
        check_segments(group, &our_value, version, &input);
        compare.run(
            group,
            segments,
            len,
            || {
                let mut out = Segments::new();
                black_box(&our_value).encode(&mut out, version).unwrap();
                out
            },
            || peer_encode(black_box(&their_value), version),
        );
    }
    (input, again)
}

/// Writing into segments gives the same bytes, and refers to the large byte fields instead of
/// copying them: nine tenths of the bytes are segments taken from the input the value was read
/// from.
fn check_segments<M: Encode>(group: &str, value: &M, version: i16, input: &Bytes) {
    let mut out = Segments::new();
    value.encode(&mut out, version).expect("kafka-wire encodes");
    same_bytes(group, "segments and the input", &out.to_bytes(), input);
    let input_range = input.as_ptr_range();
    let referenced: usize = out
        .into_segments()
        .filter(|s| s.len() >= Segments::DEFAULT_THRESHOLD && input_range.contains(&s.as_ptr()))
        .map(|s| s.len())
        .sum();
    assert!(
        referenced >= input.len() / 10 * 9,
        "{group}: {referenced} of {} bytes referenced",
        input.len()
    );
}

/// The hand-written codec of one message, and the kafka-wire value of what it decodes.
struct Hand<H, M> {
    decode: fn(&mut Bytes) -> Result<H, hand::Error>,
    encode: fn(&H) -> Result<Bytes, hand::Error>,
    len: fn(&H) -> usize,
    ours: fn(&H) -> M,
}

/// Checks the hand-written codec against kafka-wire on `input` and on corruptions of it, then
/// times kafka-wire against it.
fn by_hand<H, M>(compare: &mut Compare, group: &str, input: &Bytes, hand: Hand<H, M>)
where
    M: Decode + Encode + PartialEq + Debug,
{
    let ours = M::decode_exact(input.clone(), 1).expect("kafka-wire decodes");
    let value = (hand.decode)(&mut input.clone()).expect("the hand-written codec decodes");
    assert!((hand.ours)(&value) == ours, "{group}: hand-written reading");
    let written = (hand.encode)(&value).expect("the hand-written codec encodes");
    same_bytes(group, "hand-written and kafka-wire bytes", &written, input);
    assert_eq!(
        (hand.len)(&value),
        input.len(),
        "{group}: hand-written size"
    );

    // Both accept and refuse the same inputs: every cut, and single bytes overwritten with
    // values that end, continue or break a varint (all of them on a small input, a sample on
    // a large one).
    let mut r = Rng::new(input.len() as u64);
    let positions: Vec<usize> = if input.len() <= 256 {
        (0..input.len()).collect()
    } else {
        (0..200)
            .map(|_| r.below(input.len() as u64) as usize)
            .collect()
    };
    let same_verdict = |bytes: Bytes, what: &str| {
        let (mut a, mut b) = (bytes.clone(), bytes);
        match (M::decode(&mut a, 1), (hand.decode)(&mut b)) {
            (Ok(m), Ok(h)) => {
                assert!((hand.ours)(&h) == m, "{group}, {what}: values differ");
                assert_eq!(a.len(), b.len(), "{group}, {what}: bytes left");
            }
            (Err(_), Err(_)) => {}
            (m, h) => panic!(
                "{group}, {what}: kafka-wire {:?}, hand-written {:?}",
                m.err(),
                h.err()
            ),
        }
    };
    for &at in &positions {
        same_verdict(input.slice(..at), &format!("cut at {at}"));
        for byte in [0x00, 0x01, 0x7f, 0x80, 0xff] {
            let mut changed = input.to_vec();
            changed[at] = byte;
            same_verdict(
                Bytes::from(changed),
                &format!("byte {at} set to {byte:#04x}"),
            );
        }
    }

    drop(input.clone());
    let len = input.len();
    let what = "hand-written";
    let [decode, _, _, encode, size, _, _] = CASES;
    compare.reference(
        what,
        group,
        decode,
        len,
        || M::decode(&mut black_box(input).clone(), 1).unwrap(),
        || (hand.decode)(&mut black_box(input).clone()).unwrap(),
    );
    compare.reference(
        what,
        group,
        encode,
        len,
        || black_box(&ours).encode_to_bytes(1).unwrap(),
        || (hand.encode)(black_box(&value)).unwrap(),
    );
    compare.reference(
        what,
        group,
        size,
        len,
        || black_box(&ours).encoded_len(1).unwrap(),
        || (hand.len)(black_box(&value)),
    );
}

fn name(bytes: &Bytes) -> KafkaString {
    KafkaString::from_utf8(bytes.clone()).expect("checked when read")
}

fn tags(tags: &[hand::Tagged]) -> UnknownTaggedFields {
    tags.iter()
        .map(|t| RawTaggedField {
            tag: t.tag,
            data: t.data.clone(),
        })
        .collect::<Vec<_>>()
        .into()
}

/// The hand-written request as kafka-wire's, field by field.
fn request_of(h: &hand::Request) -> WriteTxnMarkersRequest {
    let topic = |t: &hand::MarkerTopic| {
        req::WritableTxnMarkerTopic::default()
            .with_name(name(&t.name))
            .with_partition_indexes(t.partition_indexes.clone().into())
            .with_unknown_tagged_fields(tags(&t.tags))
    };
    let marker = |m: &hand::Marker| {
        req::WritableTxnMarker::default()
            .with_producer_id(m.producer_id)
            .with_producer_epoch(m.producer_epoch)
            .with_transaction_result(m.transaction_result)
            .with_topics(m.topics.iter().map(topic).collect())
            .with_coordinator_epoch(m.coordinator_epoch)
            .with_transaction_version(0)
            .with_unknown_tagged_fields(tags(&m.tags))
    };
    WriteTxnMarkersRequest::default()
        .with_markers(h.markers.iter().map(marker).collect())
        .with_unknown_tagged_fields(tags(&h.tags))
}

/// The hand-written response as kafka-wire's, field by field.
fn response_of(h: &hand::Response) -> WriteTxnMarkersResponse {
    let partition = |p: &hand::PartitionResult| {
        resp::WritableTxnMarkerPartitionResult::default()
            .with_partition_index(p.partition_index)
            .with_error_code(p.error_code)
            .with_unknown_tagged_fields(tags(&p.tags))
    };
    let topic = |t: &hand::TopicResult| {
        resp::WritableTxnMarkerTopicResult::default()
            .with_name(name(&t.name))
            .with_partitions(t.partitions.iter().map(partition).collect())
            .with_unknown_tagged_fields(tags(&t.tags))
    };
    let marker = |m: &hand::MarkerResult| {
        resp::WritableTxnMarkerResult::default()
            .with_producer_id(m.producer_id)
            .with_topics(m.topics.iter().map(topic).collect())
            .with_unknown_tagged_fields(tags(&m.tags))
    };
    WriteTxnMarkersResponse::default()
        .with_markers(h.markers.iter().map(marker).collect())
        .with_unknown_tagged_fields(tags(&h.tags))
}

/// A sum over what a reader reads: every value it is given goes into it, so that none of the
/// reading can be left out by the compiler.
#[derive(Default)]
struct Sum(u64);

impl Sum {
    fn int(&mut self, value: impl Into<i64>) {
        self.0 = self.0.wrapping_add(value.into() as u64);
    }

    fn flag(&mut self, value: bool) {
        self.0 = self.0.wrapping_add(u64::from(value));
    }

    fn uuid(&mut self, value: Uuid) {
        let bits = value.as_u128();
        self.0 = self.0.wrapping_add((bits >> 64) as u64 ^ bits as u64);
    }

    /// A string, bytes or records field: its length.
    fn len(&mut self, value: &[u8]) {
        self.0 = self.0.wrapping_add(value.len() as u64);
    }

    fn opt_str(&mut self, value: Option<&str>) {
        self.len(value.map_or(&[], str::as_bytes));
    }

    fn ints(&mut self, values: Ints<'_, i32>) {
        for v in values {
            self.int(v);
        }
    }

    fn tags(&mut self, fields: TaggedFields<'_>) {
        for f in fields {
            self.int(f.tag);
            self.len(f.data);
        }
    }
}

/// Opens each shape's view and reads every field of it, the tagged fields it does not know
/// included, and every element of every array, at every depth.
mod every_field {
    use super::Sum;
    use kafka_wire::messages::fetch_response::EpochEndOffsetView;
    use kafka_wire::messages::{
        FetchResponse, MetadataResponse, ProduceRequest, WriteTxnMarkersRequest,
        WriteTxnMarkersResponse,
    };
    use kafka_wire::{View, ViewIndex};

    pub fn write_txn_markers_request(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = WriteTxnMarkersRequest::view_in(bytes, 1, index).unwrap();
        let mut s = Sum::default();
        for m in v.markers() {
            s.int(m.producer_id());
            s.int(m.producer_epoch());
            s.flag(m.transaction_result());
            for t in m.topics() {
                s.len(t.name().as_bytes());
                s.ints(t.partition_indexes());
                s.tags(t.unknown_tagged_fields());
            }
            s.int(m.coordinator_epoch());
            s.int(m.transaction_version());
            s.tags(m.unknown_tagged_fields());
        }
        s.tags(v.unknown_tagged_fields());
        s.0
    }

    pub fn write_txn_markers_response(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = WriteTxnMarkersResponse::view_in(bytes, 1, index).unwrap();
        let mut s = Sum::default();
        for m in v.markers() {
            s.int(m.producer_id());
            for t in m.topics() {
                s.len(t.name().as_bytes());
                for p in t.partitions() {
                    s.int(p.partition_index());
                    s.int(p.error_code());
                    s.tags(p.unknown_tagged_fields());
                }
                s.tags(t.unknown_tagged_fields());
            }
            s.tags(m.unknown_tagged_fields());
        }
        s.tags(v.unknown_tagged_fields());
        s.0
    }

    pub fn metadata_response(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = MetadataResponse::view_in(bytes, 13, index).unwrap();
        let mut s = Sum::default();
        s.int(v.throttle_time_ms());
        for b in v.brokers() {
            s.int(b.node_id());
            s.len(b.host().as_bytes());
            s.int(b.port());
            s.opt_str(b.rack());
            s.tags(b.unknown_tagged_fields());
        }
        s.opt_str(v.cluster_id());
        s.int(v.controller_id());
        for t in v.topics() {
            s.int(t.error_code());
            s.opt_str(t.name());
            s.uuid(t.topic_id());
            s.flag(t.is_internal());
            for p in t.partitions() {
                s.int(p.error_code());
                s.int(p.partition_index());
                s.int(p.leader_id());
                s.int(p.leader_epoch());
                s.ints(p.replica_nodes());
                s.ints(p.isr_nodes());
                s.ints(p.offline_replicas());
                s.tags(p.unknown_tagged_fields());
            }
            s.int(t.topic_authorized_operations());
            s.tags(t.unknown_tagged_fields());
        }
        s.int(v.cluster_authorized_operations());
        s.int(v.error_code());
        s.tags(v.unknown_tagged_fields());
        s.0
    }

    pub fn produce_request(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = ProduceRequest::view_in(bytes, 13, index).unwrap();
        let mut s = Sum::default();
        s.opt_str(v.transactional_id());
        s.int(v.acks());
        s.int(v.timeout_ms());
        for t in v.topic_data() {
            s.len(t.name().as_bytes());
            s.uuid(t.topic_id());
            for p in t.partition_data() {
                s.int(p.index());
                s.len(p.records().unwrap_or_default());
                s.tags(p.unknown_tagged_fields());
            }
            s.tags(t.unknown_tagged_fields());
        }
        s.tags(v.unknown_tagged_fields());
        s.0
    }

    fn epoch_end_offset(s: &mut Sum, e: EpochEndOffsetView<'_>) {
        s.int(e.epoch());
        s.int(e.end_offset());
        s.tags(e.unknown_tagged_fields());
    }

    pub fn fetch_response(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = FetchResponse::view_in(bytes, 18, index).unwrap();
        let mut s = Sum::default();
        s.int(v.throttle_time_ms());
        s.int(v.error_code());
        s.int(v.session_id());
        for t in v.responses() {
            s.len(t.topic().as_bytes());
            s.uuid(t.topic_id());
            for p in t.partitions() {
                s.int(p.partition_index());
                s.int(p.error_code());
                s.int(p.high_watermark());
                s.int(p.last_stable_offset());
                s.int(p.log_start_offset());
                epoch_end_offset(&mut s, p.diverging_epoch());
                let leader = p.current_leader();
                s.int(leader.leader_id());
                s.int(leader.leader_epoch());
                s.tags(leader.unknown_tagged_fields());
                let snapshot = p.snapshot_id();
                s.int(snapshot.end_offset());
                s.int(snapshot.epoch());
                s.tags(snapshot.unknown_tagged_fields());
                for a in p.aborted_transactions().into_iter().flatten() {
                    s.int(a.producer_id());
                    s.int(a.first_offset());
                    s.tags(a.unknown_tagged_fields());
                }
                s.int(p.preferred_read_replica());
                s.len(p.records().unwrap_or_default());
                s.tags(p.unknown_tagged_fields());
            }
            s.tags(t.unknown_tagged_fields());
        }
        for n in v.node_endpoints() {
            s.int(n.node_id());
            s.len(n.host().as_bytes());
            s.int(n.port());
            s.opt_str(n.rack());
            s.tags(n.unknown_tagged_fields());
        }
        s.tags(v.unknown_tagged_fields());
        s.0
    }
}

/// Opens the view and reads what routes the message: for Produce, the acks, the transactional
/// id, and each topic and partition with the length of its records; for Fetch, each topic id
/// and partition with its high watermark and the length of its records; for Metadata, each
/// topic name and each partition's leader.
mod routing {
    use super::Sum;
    use kafka_wire::messages::{FetchResponse, MetadataResponse, ProduceRequest};
    use kafka_wire::{View, ViewIndex};

    pub fn produce_request(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = ProduceRequest::view_in(bytes, 13, index).unwrap();
        let mut s = Sum::default();
        s.int(v.acks());
        s.opt_str(v.transactional_id());
        for t in v.topic_data() {
            // Version 13 names a topic by its id.
            s.uuid(t.topic_id());
            for p in t.partition_data() {
                s.int(p.index());
                s.len(p.records().unwrap_or_default());
            }
        }
        s.0
    }

    pub fn fetch_response(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = FetchResponse::view_in(bytes, 18, index).unwrap();
        let mut s = Sum::default();
        for t in v.responses() {
            s.uuid(t.topic_id());
            for p in t.partitions() {
                s.int(p.partition_index());
                s.int(p.high_watermark());
                s.len(p.records().unwrap_or_default());
            }
        }
        s.0
    }

    pub fn metadata_response(bytes: &[u8], index: &mut ViewIndex) -> u64 {
        let v = MetadataResponse::view_in(bytes, 13, index).unwrap();
        let mut s = Sum::default();
        for t in v.topics() {
            s.opt_str(t.name());
            for p in t.partitions() {
                s.int(p.leader_id());
            }
        }
        s.0
    }
}
