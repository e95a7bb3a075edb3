//! Record batches (magic 2, uncompressed) against the `kafka-protocol` crate, an
//! implementation we did not write: its decoder reads what our builder writes, our reader reads
//! what its encoder writes, and both write the same bytes for the same records.
//!
//! The inputs are seeded random batches: null and empty keys and values, headers with null
//! values, timestamps far apart, transactional and idempotent producers. Header keys are
//! distinct within a record because kafka-protocol keeps headers in a map.
#![forbid(unsafe_code)]

use bytes::{Bytes, BytesMut};
use indexmap::IndexMap;
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::records::{
    Compression as PeerCompression, Record as PeerRecord, RecordBatchDecoder, RecordBatchEncoder,
    RecordEncodeOptions, TimestampType as PeerTimestampType,
};
use kafka_wire::records::{Record, RecordBatch, RecordBatchBuilder, RecordsReader};
use kafka_wire_tests::random::Rng;

fn bytes(r: &mut Rng) -> Option<Bytes> {
    match r.below(4) {
        0 => None,
        1 => Some(Bytes::new()),
        _ => {
            let n = r.below(40) as usize;
            Some(
                (0..n)
                    .map(|_| r.below(256) as u8)
                    .collect::<Vec<u8>>()
                    .into(),
            )
        }
    }
}

fn batch(seed: u64) -> RecordBatch {
    let mut r = Rng::new(seed);
    let transactional = r.one_in(2);
    let idempotent = transactional || r.one_in(2);
    let mut builder = RecordBatchBuilder::new()
        .base_offset(r.below(1 << 40) as i64)
        .partition_leader_epoch(r.below(100) as i32)
        .transactional(transactional);
    if idempotent {
        let (id, epoch, sequence) = (r.below(1 << 50), r.below(1000), r.below(1 << 30));
        builder = builder.producer(id as i64, epoch as i16, sequence as i32);
    }
    let mut timestamp = 1_700_000_000_000 + r.below(1 << 20) as i64;
    for _ in 0..1 + r.below(12) {
        // Deltas from milliseconds to years, the large ones needing a long varint.
        let bits = r.below(40);
        timestamp += (r.below(1 << bits) as i64).max(1);
        let (key, value) = (bytes(&mut r), bytes(&mut r));
        let mut record = Record::new(key, value).with_timestamp(timestamp);
        for h in 0..r.below(4) {
            let key = format!("h{h}-{}", r.below(1000));
            record = record.with_header(key, bytes(&mut r));
        }
        builder = builder.record(record);
    }
    builder.build()
}

/// The batch as kafka-protocol's records: it spreads the batch fields over every record.
fn to_peer(batch: &RecordBatch) -> Vec<PeerRecord> {
    let header = &batch.header;
    batch
        .records
        .iter()
        .enumerate()
        .map(|(i, rec)| PeerRecord {
            transactional: header.is_transactional,
            control: header.is_control,
            delete_horizon: header.has_delete_horizon,
            partition_leader_epoch: header.partition_leader_epoch,
            producer_id: header.producer_id,
            producer_epoch: header.producer_epoch,
            timestamp_type: PeerTimestampType::Creation,
            offset: rec.offset,
            // kafka-protocol keeps records in one batch while offset minus sequence stays the
            // same, also when there is no producer (base sequence -1).
            sequence: header.base_sequence.wrapping_add(i as i32),
            timestamp: rec.timestamp,
            key: rec.key.clone(),
            value: rec.value.clone(),
            headers: rec
                .headers
                .iter()
                .map(|h| (StrBytes::from_string(h.key.to_string()), h.value.clone()))
                .collect::<IndexMap<_, _>>(),
        })
        .collect()
}

fn check_same(batch: &RecordBatch, peer: &[PeerRecord], seed: u64) {
    let header = &batch.header;
    assert_eq!(peer.len(), batch.records.len(), "seed {seed}: record count");
    for (ours, theirs) in batch.records.iter().zip(peer) {
        assert_eq!(theirs.offset, ours.offset, "seed {seed}: offset");
        assert_eq!(theirs.timestamp, ours.timestamp, "seed {seed}: timestamp");
        assert_eq!(theirs.key, ours.key, "seed {seed}: key");
        assert_eq!(theirs.value, ours.value, "seed {seed}: value");
        assert_eq!(
            theirs.producer_id, header.producer_id,
            "seed {seed}: producer id"
        );
        assert_eq!(
            theirs.producer_epoch, header.producer_epoch,
            "seed {seed}: producer epoch"
        );
        assert_eq!(
            theirs.transactional, header.is_transactional,
            "seed {seed}: transactional"
        );
        assert_eq!(
            theirs.partition_leader_epoch, header.partition_leader_epoch,
            "seed {seed}: leader epoch"
        );
        let headers: Vec<(String, Option<Bytes>)> = theirs
            .headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        let ours_h: Vec<(String, Option<Bytes>)> = ours
            .headers
            .iter()
            .map(|h| (h.key.to_string(), h.value.clone()))
            .collect();
        assert_eq!(headers, ours_h, "seed {seed}: headers");
    }
}

const SEEDS: u64 = 300;

#[test]
fn kafka_protocol_reads_what_we_write() {
    for seed in 0..SEEDS {
        let batch = batch(seed);
        let mut encoded = batch.encode().expect("encode").into_bytes();
        let set =
            RecordBatchDecoder::decode(&mut encoded).expect("kafka-protocol decodes our batch");
        assert_eq!(set.version, 2);
        assert_eq!(set.compression, PeerCompression::None);
        check_same(&batch, &set.records, seed);
    }
}

#[test]
fn we_read_what_kafka_protocol_writes_and_write_the_same_bytes() {
    for seed in 0..SEEDS {
        let batch = batch(seed);
        let mut buf = BytesMut::new();
        let options = RecordEncodeOptions {
            version: 2,
            compression: PeerCompression::None,
        };
        RecordBatchEncoder::encode(&mut buf, &to_peer(&batch), &options)
            .expect("kafka-protocol encodes");
        let theirs = buf.freeze();
        let decoded: Vec<RecordBatch> = RecordsReader::new(theirs.clone())
            .into_owned()
            .collect::<Result<_, _>>()
            .expect("we decode kafka-protocol's batch");
        assert_eq!(decoded, vec![batch.clone()], "seed {seed}: decoded batch");
        let ours = batch.encode().expect("encode").into_bytes();
        assert_eq!(ours, theirs, "seed {seed}: bytes");
    }
}
