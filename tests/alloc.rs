//! Memory bounds while decoding hostile input, measured with a counting global allocator.
//!
//! One test function only: the counters are process-wide, so a second test running on another
//! thread would blur them.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use kafka_wire::Decode;
use kafka_wire_tests::{from_hex, write_txn_markers_vectors};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

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
