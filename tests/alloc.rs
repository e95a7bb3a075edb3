//! Memory bounds while decoding hostile input, and no allocation at all while opening and
//! reading a view, measured with a counting global allocator.
//!
//! One test function only: the counters are process-wide, so a second test running on another
//! thread would blur them.
#![forbid(unsafe_code)]

#[path = "benches/messages/shapes.rs"]
mod shapes;

use bytes::Bytes;
use kafka_wire::messages::{
    FetchResponse, MetadataResponse, ProduceRequest, WriteTxnMarkersRequest,
    WriteTxnMarkersResponse,
};
use kafka_wire::view::{ViewIndex, Viewable};
use kafka_wire::{Decode, Encode, View};
use kafka_wire_tests::{from_hex, write_txn_markers_vectors};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;
use std::fmt::{self, Debug, Write};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Bytes allocated while decoding `input` as `message` at `version` (the input copy excluded).
fn allocated(message: &str, input: Bytes, version: i16) -> usize {
    let region = Region::new(GLOBAL);
    let _ = match message {
        "WriteTxnMarkersRequest" => WriteTxnMarkersRequest::decode_exact(input, version).map(drop),
        _ => WriteTxnMarkersResponse::decode_exact(input, version).map(drop),
    };
    region.change().bytes_allocated
}

#[test]
fn allocations() {
    hostile_input_allocates_little();
    views_allocate_nothing();
}

fn hostile_input_allocates_little() {
    // Forged counts in 4 or 5 bytes: refused before any allocation but the error itself.
    for (hex, version) in [
        ("ffffffff0f", 1),
        ("fffffffe0f", 2),
        ("7fffffff", 0),
        ("00000001", 0),
    ] {
        for message in ["WriteTxnMarkersRequest", "WriteTxnMarkersResponse"] {
            let bytes = allocated(message, Bytes::from(from_hex(hex)), version);
            assert!(
                bytes < 4096,
                "{message} v{version} {hex}: {bytes} bytes allocated"
            );
        }
    }
    // A marker claiming 2^31-1 topics after a valid prefix.
    let forged = "00000001".to_owned() + "0000000000000001" + "0001" + "01" + "7fffffff";
    let bytes = allocated("WriteTxnMarkersRequest", Bytes::from(from_hex(&forged)), 0);
    assert!(bytes < 4096, "forged topic count: {bytes} bytes allocated");

    // Every prefix of every golden vector: what is allocated stays proportional to the input.
    for vector in write_txn_markers_vectors() {
        for cut in 0..vector.bytes.len() {
            let input = Bytes::copy_from_slice(&vector.bytes[..cut]);
            let bytes = allocated(&vector.message, input, vector.version);
            let bound = 256 * cut + 64 * 1024;
            assert!(
                bytes <= bound,
                "{} cut at {cut}: {bytes} bytes allocated, bound {bound}",
                vector.label()
            );
        }
    }
}

/// A sink for `Debug` output that keeps only its length, and allocates nothing.
struct Length(usize);

impl Write for Length {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.len();
        Ok(())
    }
}

/// Allocations (count, bytes) while opening the view of `M` on `input` into `index` and
/// reading every field of it: the view's `Debug` calls every accessor, at every depth and in
/// every element of every array, the records and the tagged fields the structs do not know
/// among them.
fn view_allocations<M>(
    input: &Bytes,
    version: i16,
    on_bytes: bool,
    index: &mut ViewIndex,
) -> (usize, usize)
where
    M: View,
    for<'a> <M as Viewable>::View<'a>: Debug,
{
    let mut read = Length(0);
    let region = Region::new(GLOBAL);
    let view = if on_bytes {
        M::view_in(input, version, index)
    } else {
        M::view_in(&input[..], version, index)
    };
    let view = view.expect("the view opens");
    write!(read, "{view:?}").expect("formatting into a length");
    let change = region.change();
    // Every field was read: the length of what was written grows with the input.
    assert!(
        read.0 > input.len() / 4,
        "{}: {} bytes read",
        M::NAME,
        read.0
    );
    (change.allocations, change.bytes_allocated)
}
/// Opening and reading a view allocates nothing once its index has held the largest message,
/// on every shape the messages benchmark times (their bytes written by kafka-wire's encoder),
/// opened on a slice and on a `Bytes`, one index serving them all as one connection's does.
/// The first opening into a new index is what allocates, and the index stays within a small
/// multiple of the input.
fn views_allocate_nothing() {
    type Check = fn(&Bytes, i16, bool, &mut ViewIndex) -> (usize, usize);
    let mut cases: Vec<(String, Bytes, i16, Check)> = Vec::new();
    for (size, (markers, topics, partitions)) in [("small", (1, 1, 3)), ("large", (100, 5, 20))] {
        let request = shapes::write_txn_markers_request(markers, topics, partitions);
        let response = shapes::write_txn_markers_response(markers, topics, partitions);
        cases.push((
            format!("WriteTxnMarkersRequest v1 {size}"),
            request.encode_to_bytes(1).unwrap(),
            1,
            view_allocations::<WriteTxnMarkersRequest>,
        ));
        cases.push((
            format!("WriteTxnMarkersResponse v1 {size}"),
            response.encode_to_bytes(1).unwrap(),
            1,
            view_allocations::<WriteTxnMarkersResponse>,
        ));
    }
    cases.push((
        "MetadataResponse v13".to_owned(),
        shapes::metadata_response().encode_to_bytes(13).unwrap(),
        13,
        view_allocations::<MetadataResponse>,
    ));
    cases.push((
        "MetadataResponse v13 uneven".to_owned(),
        shapes::metadata_response_uneven()
            .encode_to_bytes(13)
            .unwrap(),
        13,
        view_allocations::<MetadataResponse>,
    ));
    cases.push((
        "ProduceRequest v13".to_owned(),
        shapes::produce_request().encode_to_bytes(13).unwrap(),
        13,
        view_allocations::<ProduceRequest>,
    ));
    cases.push((
        "FetchResponse v18".to_owned(),
        shapes::fetch_response().encode_to_bytes(18).unwrap(),
        18,
        view_allocations::<FetchResponse>,
    ));
    let mut index = ViewIndex::new();
    for (shape, input, version, check) in &cases {
        let mut fresh = ViewIndex::new();
        let (count, _) = check(input, *version, false, &mut fresh);
        assert!(
            count > 0,
            "{shape}: a new index grows when it is first opened into"
        );
        let words = fresh.memory();
        assert!(
            words <= 4 * input.len() + 4096,
            "{shape}: an index of {words} bytes for {} bytes of input",
            input.len()
        );
        check(input, *version, false, &mut index);
    }
    for (shape, input, version, check) in &cases {
        for on_bytes in [false, true] {
            let (count, bytes) = check(input, *version, on_bytes, &mut index);
            assert_eq!(
                (count, bytes),
                (0, 0),
                "{shape}, view opened on {}: allocations (count, bytes)",
                if on_bytes { "a Bytes" } else { "a slice" }
            );
        }
    }
}
