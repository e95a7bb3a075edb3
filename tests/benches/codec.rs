//! kafka-wire against the `kafka-protocol` crate on the same WriteTxnMarkers v1 messages, in one
//! run, so the two can be compared as a ratio on whatever machine runs it.
//!
//! `cargo bench -p kafka-wire-tests --bench codec`
#![forbid(unsafe_code)]

use bytes::{Bytes, BytesMut};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kafka_protocol::protocol::{Decodable, Encodable};
use kafka_wire::{Decode, Encode};
use kafka_wire_tests::{
    write_txn_markers_request, write_txn_markers_response, write_txn_markers_vectors, Vector,
};
use std::hint::black_box;

const VERSION: i16 = 1;

/// Decodes and encodes one vector with both libraries. Each encodes its own decoded value into
/// a buffer sized by its own size computation, as a sender would.
fn compare<M: Decode + Encode, T: Decodable + Encodable>(c: &mut Criterion, vector: &Vector) {
    let name = format!(
        "{}/{}",
        vector.message.trim_start_matches("WriteTxnMarkers"),
        vector.case
    );
    let bytes = Bytes::from(vector.bytes.clone());
    let ours = M::decode_exact(bytes.clone(), VERSION).expect("kafka-wire decodes the vector");
    let theirs = T::decode(&mut bytes.clone(), VERSION).expect("kafka-protocol decodes the vector");

    let mut group = c.benchmark_group("decode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_with_input(BenchmarkId::new("kafka-wire", &name), &bytes, |b, bytes| {
        b.iter(|| M::decode(&mut black_box(bytes.clone()), VERSION).unwrap())
    });
    group.bench_with_input(
        BenchmarkId::new("kafka-protocol", &name),
        &bytes,
        |b, bytes| b.iter(|| T::decode(&mut black_box(bytes.clone()), VERSION).unwrap()),
    );
    group.finish();

    let mut group = c.benchmark_group("encode");
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function(BenchmarkId::new("kafka-wire", &name), |b| {
        b.iter(|| black_box(&ours).encode_to_bytes(VERSION).unwrap())
    });
    group.bench_function(BenchmarkId::new("kafka-protocol", &name), |b| {
        b.iter(|| {
            let value = black_box(&theirs);
            let mut buf = BytesMut::with_capacity(value.compute_size(VERSION).unwrap());
            value.encode(&mut buf, VERSION).unwrap();
            buf.freeze()
        })
    });
    group.finish();
}

fn codec(c: &mut Criterion) {
    use kafka_protocol::messages as kp;
    use kafka_wire::messages as kw;
    let timed = write_txn_markers_vectors()
        .iter()
        .filter(|v| v.version == VERSION && (v.case == "typical" || v.case == "large"));
    for vector in timed {
        // The values the vectors describe are what both libraries decode to.
        if vector.message == "WriteTxnMarkersRequest" {
            assert_eq!(
                kw::WriteTxnMarkersRequest::decode_exact(vector.bytes.clone(), VERSION).unwrap(),
                write_txn_markers_request(&vector.value)
            );
            compare::<kw::WriteTxnMarkersRequest, kp::WriteTxnMarkersRequest>(c, vector);
        } else {
            assert_eq!(
                kw::WriteTxnMarkersResponse::decode_exact(vector.bytes.clone(), VERSION).unwrap(),
                write_txn_markers_response(&vector.value)
            );
            compare::<kw::WriteTxnMarkersResponse, kp::WriteTxnMarkersResponse>(c, vector);
        }
    }
}

criterion_group!(benches, codec);
criterion_main!(benches);
