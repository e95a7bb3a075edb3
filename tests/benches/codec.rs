//! kafka-wire against the `kafka-protocol` crate on the same WriteTxnMarkers v1 messages, in one
//! run, so the two can be compared as a ratio on whatever machine runs it.
//!
//! `cargo bench -p kafka-wire-tests --bench codec`

use bytes::{Bytes, BytesMut};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use kafka_protocol::protocol::{Decodable as _, Encodable as _};
use kafka_wire::{Decode as _, Encode as _};
use kafka_wire_tests::{
    write_txn_markers_request, write_txn_markers_response, write_txn_markers_vectors,
};
use std::hint::black_box;

const VERSION: i16 = 1;

/// The v1 golden vectors worth timing: the typical one and the large one.
fn inputs() -> Vec<(String, &'static kafka_wire_tests::Vector)> {
    write_txn_markers_vectors()
        .iter()
        .filter(|v| v.version == VERSION && (v.case == "typical" || v.case == "large"))
        .map(|v| {
            (
                format!(
                    "{}/{}",
                    v.message.trim_start_matches("WriteTxnMarkers"),
                    v.case
                ),
                v,
            )
        })
        .collect()
}

fn decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode");
    for (name, vector) in inputs() {
        let bytes = Bytes::from(vector.bytes.clone());
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        if vector.message == "WriteTxnMarkersRequest" {
            group.bench_with_input(BenchmarkId::new("kafka-wire", &name), &bytes, |b, bytes| {
                b.iter(|| {
                    kafka_wire::messages::WriteTxnMarkersRequest::decode(
                        &mut black_box(bytes.clone()),
                        VERSION,
                    )
                    .unwrap()
                })
            });
            group.bench_with_input(
                BenchmarkId::new("kafka-protocol", &name),
                &bytes,
                |b, bytes| {
                    b.iter(|| {
                        kafka_protocol::messages::WriteTxnMarkersRequest::decode(
                            &mut black_box(bytes.clone()),
                            VERSION,
                        )
                        .unwrap()
                    })
                },
            );
        } else {
            group.bench_with_input(BenchmarkId::new("kafka-wire", &name), &bytes, |b, bytes| {
                b.iter(|| {
                    kafka_wire::messages::WriteTxnMarkersResponse::decode(
                        &mut black_box(bytes.clone()),
                        VERSION,
                    )
                    .unwrap()
                })
            });
            group.bench_with_input(
                BenchmarkId::new("kafka-protocol", &name),
                &bytes,
                |b, bytes| {
                    b.iter(|| {
                        kafka_protocol::messages::WriteTxnMarkersResponse::decode(
                            &mut black_box(bytes.clone()),
                            VERSION,
                        )
                        .unwrap()
                    })
                },
            );
        }
    }
    group.finish();
}

fn encode(c: &mut Criterion) {
    let mut group = c.benchmark_group("encode");
    for (name, vector) in inputs() {
        let mut bytes = Bytes::from(vector.bytes.clone());
        group.throughput(Throughput::Bytes(vector.bytes.len() as u64));
        // Each library encodes its own decoded value into a buffer sized by its own size
        // computation, as a sender would.
        if vector.message == "WriteTxnMarkersRequest" {
            let ours = write_txn_markers_request(&vector.value);
            let theirs =
                kafka_protocol::messages::WriteTxnMarkersRequest::decode(&mut bytes, VERSION)
                    .unwrap();
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
        } else {
            let ours = write_txn_markers_response(&vector.value);
            let theirs =
                kafka_protocol::messages::WriteTxnMarkersResponse::decode(&mut bytes, VERSION)
                    .unwrap();
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
        }
    }
    group.finish();
}

criterion_group!(benches, decode, encode);
criterion_main!(benches);
