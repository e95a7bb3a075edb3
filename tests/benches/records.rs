//! Record batches: kafka-wire against the `kafka-protocol` crate 0.18, reading and writing the
//! same records in one run.
//!
//! The records field is 64 magic 2 batches of 100 records each (a megabyte uncompressed): a
//! 16-byte key, a 100-byte value of words (so that gzip has something to do), two headers
//! (`trace-id` with 16 bytes, `content-type` with 16 bytes).
//!
//! - read: every record of every batch, summing the value lengths; kafka-wire through its
//!   views, kafka-protocol with `RecordBatchDecoder::decode` per batch. Both read the bytes
//!   kafka-protocol wrote.
//! - write: the same records into 64 batches in one buffer; kafka-wire with a `BatchWriter` per
//!   batch from owned `Record`s, kafka-protocol with `RecordBatchEncoder::encode` per batch from
//!   its own records.
//!
//! The least writing can cost is timed too: copying every key, value and header byte into one
//! buffer.
//!
//! `cargo bench -p kafka-wire-tests --bench records` prints the table; `KW_BENCH=quick` for a
//! smoke run.
#![forbid(unsafe_code)]

#[path = "compare/mod.rs"]
mod compare;

use bytes::{Buf, Bytes, BytesMut};
use indexmap::IndexMap;
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::records::{
    Compression as PeerCompression, Record as PeerRecord, RecordBatchDecoder, RecordBatchEncoder,
    RecordEncodeOptions, TimestampType as PeerTimestampType,
};
use kafka_wire::records::{Compression, Record, RecordBatchBuilder, RecordsReader};
use kafka_wire_tests::random::Rng;

const BATCHES: usize = 64;
const PER_BATCH: usize = 100;

const WORDS: &[&str] = &[
    "order",
    "shipped",
    "customer",
    "account",
    "payment",
    "pending",
    "warehouse",
    "region",
    "total",
    "currency",
    "EUR",
    "USD",
    "status",
    "created",
    "updated",
    "item",
    "quantity",
    "price",
    "discount",
    "express",
    "standard",
    "returned",
    "invoice",
    "42",
    "1337",
    "true",
];

fn records() -> Vec<Record> {
    let mut r = Rng::new(0x5eed);
    (0..BATCHES * PER_BATCH)
        .map(|i| {
            let mut value = String::new();
            while value.len() < 100 {
                value.push_str(WORDS[r.below(WORDS.len() as u64) as usize]);
                value.push(' ');
            }
            value.truncate(100);
            let trace: String = (0..16).map(|_| format!("{:x}", r.below(16))).collect();
            Record::new(
                Some(Bytes::from(format!("user-{:011}", i % 5000))),
                Some(Bytes::from(value)),
            )
            .with_timestamp(1_700_000_000_000 + i as i64)
            .with_header("trace-id", Some(Bytes::from(trace)))
            .with_header(
                "content-type",
                Some(Bytes::from_static(b"application/json")),
            )
        })
        .collect()
}

fn peer_records(records: &[Record]) -> Vec<PeerRecord> {
    records
        .iter()
        .enumerate()
        .map(|(i, r)| PeerRecord {
            transactional: false,
            control: false,
            delete_horizon: false,
            partition_leader_epoch: -1,
            producer_id: -1,
            producer_epoch: -1,
            timestamp_type: PeerTimestampType::Creation,
            offset: i as i64,
            // A producer without idempotence: offset minus sequence is the same in a batch.
            sequence: (i % PER_BATCH) as i32 - 1,
            timestamp: r.timestamp,
            key: r.key.clone(),
            value: r.value.clone(),
            headers: r
                .headers
                .iter()
                .map(|h| (StrBytes::from_string(h.key.to_string()), h.value.clone()))
                .collect::<IndexMap<_, _>>(),
        })
        .collect()
}

fn write_ours(records: &[Record], compression: Compression, capacity: usize) -> BytesMut {
    let mut out = BytesMut::with_capacity(capacity);
    for (i, chunk) in records.chunks(PER_BATCH).enumerate() {
        let builder = RecordBatchBuilder::new()
            .compression(compression)
            .base_offset((i * PER_BATCH) as i64);
        let mut writer = builder.writer(&mut out).unwrap();
        for record in chunk {
            writer.append_record(record).unwrap();
        }
        writer.finish().unwrap();
    }
    out
}

fn write_peer(records: &[PeerRecord], compression: PeerCompression, capacity: usize) -> BytesMut {
    let mut out = BytesMut::with_capacity(capacity);
    let options = RecordEncodeOptions {
        version: 2,
        compression,
    };
    for chunk in records.chunks(PER_BATCH) {
        RecordBatchEncoder::encode(&mut out, chunk, &options).unwrap();
    }
    out
}

fn copy_bytes(records: &[Record], capacity: usize) -> BytesMut {
    let mut out = BytesMut::with_capacity(capacity);
    for r in records {
        out.extend_from_slice(r.key.as_deref().unwrap_or_default());
        out.extend_from_slice(r.value.as_deref().unwrap_or_default());
        for h in &r.headers {
            out.extend_from_slice(h.key.as_bytes());
            out.extend_from_slice(h.value.as_deref().unwrap_or_default());
        }
    }
    out
}

fn read_ours(bytes: &Bytes) -> usize {
    let mut total = 0;
    for batch in RecordsReader::new(bytes.clone()) {
        for record in batch.unwrap().records().unwrap() {
            total += record.unwrap().value().map_or(0, <[u8]>::len);
        }
    }
    total
}

fn read_peer(bytes: &Bytes) -> usize {
    let mut buf = bytes.clone();
    let mut total = 0;
    while buf.has_remaining() {
        let set = RecordBatchDecoder::decode(&mut buf).unwrap();
        for record in set.records {
            total += record.value.map_or(0, |v| v.len());
        }
    }
    total
}

fn main() {
    let ours = records();
    let theirs = peer_records(&ours);
    let value_bytes: usize = ours
        .iter()
        .map(|r| r.value.as_ref().map_or(0, Bytes::len))
        .sum();
    let mut compare = compare::Compare::from_env();
    for (compression, peer_compression) in [
        (Compression::None, PeerCompression::None),
        (Compression::Gzip, PeerCompression::Gzip),
    ] {
        let input = write_peer(&theirs, peer_compression, 0).freeze();
        let written = write_ours(&ours, compression, 0).freeze();
        // Both read both encodings to the same values before anything is timed.
        for bytes in [&input, &written] {
            assert_eq!(read_ours(bytes), value_bytes);
            assert_eq!(read_peer(bytes), value_bytes);
        }
        if compression == Compression::None {
            assert_eq!(written, input, "both write the same uncompressed bytes");
        }
        let case = format!("{compression}, {} bytes", input.len());
        compare.run(
            "read",
            &case,
            input.len(),
            || read_ours(&input),
            || read_peer(&input),
        );
        let capacity = written.len().max(input.len());
        if compression == Compression::None {
            // The floor of writing: every key, value and header byte copied into one buffer,
            // without lengths, varints, batch headers or checksums.
            compare.reference(
                "memcpy of the record bytes",
                "write",
                &case,
                input.len(),
                || write_ours(&ours, compression, capacity),
                || copy_bytes(&ours, capacity),
            );
        }
        compare.run(
            "write",
            &case,
            input.len(),
            || write_ours(&ours, compression, capacity),
            || write_peer(&theirs, peer_compression, capacity),
        );
    }
    compare.finish("Records: 64 batches × 100 records");
}
