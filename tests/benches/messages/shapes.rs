//! The messages the benchmark times, built as kafka-wire values from their descriptions;
//! `peer.rs` gives each its kafka-protocol twin.

use bytes::Bytes;
use kafka_wire::messages::fetch_response::{FetchableTopicResponse, PartitionData};
use kafka_wire::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_wire::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use kafka_wire::messages::write_txn_markers_response::{
    WritableTxnMarkerPartitionResult, WritableTxnMarkerResult, WritableTxnMarkerTopicResult,
};
use kafka_wire::messages::{
    FetchResponse, MetadataResponse, ProduceRequest, WriteTxnMarkersRequest,
    WriteTxnMarkersResponse,
};
use kafka_wire::records::{Record, RecordBatchBuilder};
use kafka_wire::{KafkaString, Records, Uuid};
use kafka_wire_tests::random::Rng;

fn producer_id(marker: usize) -> i64 {
    7_000_000_000 + marker as i64 * 104_729
}

fn txn_topic(topic: usize) -> KafkaString {
    KafkaString::from(format!("payments.ledger-{topic}"))
}

fn txn_partition(marker: usize, topic: usize, partition: usize) -> i32 {
    ((marker * 7 + topic * 20 + partition) % 256) as i32
}

/// `markers` markers, each for `topics` topics of `partitions` partitions.
pub fn write_txn_markers_request(
    markers: usize,
    topics: usize,
    partitions: usize,
) -> WriteTxnMarkersRequest {
    WriteTxnMarkersRequest::default().with_markers(
        (0..markers)
            .map(|m| {
                WritableTxnMarker::default()
                    .with_producer_id(producer_id(m))
                    .with_producer_epoch((m % 7) as i16)
                    .with_transaction_result(m % 3 != 0)
                    .with_topics(
                        (0..topics)
                            .map(|t| {
                                WritableTxnMarkerTopic::default()
                                    .with_name(txn_topic(t))
                                    .with_partition_indexes(
                                        (0..partitions).map(|p| txn_partition(m, t, p)).collect(),
                                    )
                            })
                            .collect(),
                    )
                    .with_coordinator_epoch(1000 + (m / 10) as i32)
            })
            .collect(),
    )
}

/// The answer to [`write_txn_markers_request`] of the same shape: mostly no error, one partition
/// in eight with one.
pub fn write_txn_markers_response(
    markers: usize,
    topics: usize,
    partitions: usize,
) -> WriteTxnMarkersResponse {
    // NONE, then NOT_LEADER_OR_FOLLOWER, INVALID_TXN_STATE and CORRUPT_MESSAGE.
    const ERRORS: [i16; 8] = [0, 0, 6, 0, 0, 48, 0, 2];
    WriteTxnMarkersResponse::default().with_markers(
        (0..markers)
            .map(|m| {
                WritableTxnMarkerResult::default()
                    .with_producer_id(producer_id(m))
                    .with_topics(
                        (0..topics)
                            .map(|t| {
                                WritableTxnMarkerTopicResult::default()
                                    .with_name(txn_topic(t))
                                    .with_partitions(
                                        (0..partitions)
                                            .map(|p| {
                                                WritableTxnMarkerPartitionResult::default()
                                                    .with_partition_index(txn_partition(m, t, p))
                                                    .with_error_code(
                                                        ERRORS[(m + t + p) % ERRORS.len()],
                                                    )
                                            })
                                            .collect(),
                                    )
                            })
                            .collect(),
                    )
            })
            .collect(),
    )
}

/// A topic id that looks like Kafka's (random bits), fixed by `seed`.
fn topic_id(seed: u64) -> Uuid {
    let mut r = Rng::new(seed);
    Uuid::from_u128((u128::from(r.next_u64()) << 64) | u128::from(r.next_u64()))
}

pub const BROKERS: usize = 6;
pub const TOPICS: usize = 200;
pub const PARTITIONS: usize = 50;

/// Every operation Kafka defines on a topic: READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE,
/// DESCRIBE_CONFIGS and ALTER_CONFIGS (bits 3-8, 10 and 11).
const TOPIC_OPERATIONS: i32 = 0b1101_1111_1000;

/// Six brokers over three racks; 200 topics of 50 partitions, each with three replicas, all
/// in sync; topic ids and authorized operations.
pub fn metadata_response() -> MetadataResponse {
    metadata(|| 3)
}

/// [`metadata_response`] with one, two or all three replicas of each partition in sync, at
/// random (a fixed seed): partitions of three lengths in no order that can be learnt.
pub fn metadata_response_uneven() -> MetadataResponse {
    let mut r = Rng::new(7);
    metadata(move || 1 + (r.next_u64() % 3) as usize)
}

/// The Metadata shape, with as many replicas in sync in each partition, in order, as
/// `in_sync` says.
fn metadata(mut in_sync: impl FnMut() -> usize) -> MetadataResponse {
    let racks = ["eu-west-1a", "eu-west-1b", "eu-west-1c"];
    let broker = |p: usize| (p % BROKERS) as i32 + 1;
    MetadataResponse::default()
        .with_throttle_time_ms(0)
        .with_brokers(
            (0..BROKERS)
                .map(|b| {
                    MetadataResponseBroker::default()
                        .with_node_id(b as i32 + 1)
                        .with_host(KafkaString::from(format!("kafka-{b}.kafka.prod.internal")))
                        .with_port(9092)
                        .with_rack(Some(KafkaString::from_static(racks[b % racks.len()])))
                })
                .collect(),
        )
        .with_cluster_id(Some(KafkaString::from_static("Q2Hx7kTnRYy0mQ3vC8dF1w")))
        .with_controller_id(2)
        .with_topics(
            (0..TOPICS)
                .map(|t| {
                    MetadataResponseTopic::default()
                        .with_error_code(0)
                        .with_name(Some(KafkaString::from(format!(
                            "orders.service-{t:03}.events"
                        ))))
                        .with_topic_id(topic_id(t as u64))
                        .with_is_internal(false)
                        .with_partitions(
                            (0..PARTITIONS)
                                .map(|p| {
                                    let replicas: Vec<i32> =
                                        (0..3).map(|r| broker(t + p + r)).collect();
                                    let isr = replicas[..in_sync().min(3)].to_vec();
                                    MetadataResponsePartition::default()
                                        .with_error_code(0)
                                        .with_partition_index(p as i32)
                                        .with_leader_id(replicas[0])
                                        .with_leader_epoch(((t * 31 + p) % 40) as i32)
                                        .with_isr_nodes(isr.into())
                                        .with_replica_nodes(replicas.into())
                                        .with_offline_replicas(Default::default())
                                })
                                .collect(),
                        )
                        .with_topic_authorized_operations(TOPIC_OPERATIONS)
                })
                .collect(),
        )
}

pub const PRODUCE_PARTITIONS: usize = 10;
pub const PRODUCE_RECORDS: usize = 16 * 1024;
pub const FETCH_PARTITIONS: usize = 10;
pub const FETCH_RECORDS: usize = 64 * 1024;

/// One topic by id, ten partitions of one 16 KiB batch each, as an idempotent producer with
/// `acks=all` sends them.
pub fn produce_request() -> ProduceRequest {
    ProduceRequest::default()
        .with_transactional_id(None)
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_topic_id(topic_id(1000))
            .with_partition_data(
                (0..PRODUCE_PARTITIONS)
                    .map(|p| {
                        PartitionProduceData::default()
                            .with_index(p as i32)
                            .with_records(Some(batch(PRODUCE_RECORDS, 0, p as u64)))
                    })
                    .collect(),
            )])
}

/// One topic by id, ten partitions of 64 KiB of records each, no aborted transactions.
pub fn fetch_response() -> FetchResponse {
    FetchResponse::default()
        .with_throttle_time_ms(0)
        .with_error_code(0)
        .with_session_id(1_834_712_113)
        .with_responses(vec![FetchableTopicResponse::default()
            .with_topic_id(topic_id(1000))
            .with_partitions(
                (0..FETCH_PARTITIONS)
                    .map(|p| {
                        let high_watermark = 4_000_000 + 1000 * p as i64;
                        PartitionData::default()
                            .with_partition_index(p as i32)
                            .with_error_code(0)
                            .with_high_watermark(high_watermark)
                            .with_last_stable_offset(high_watermark)
                            .with_log_start_offset(0)
                            .with_aborted_transactions(Some(Vec::new()))
                            .with_preferred_read_replica(-1)
                            .with_records(Some(batch(
                                FETCH_RECORDS,
                                high_watermark - 60,
                                100 + p as u64,
                            )))
                    })
                    .collect(),
            )])
}

/// One uncompressed magic 2 batch of exactly `size` bytes: records with 16-byte keys and values
/// of about 1 KiB, the last value cut to fit.
fn batch(size: usize, base_offset: i64, seed: u64) -> Records {
    const VALUE: usize = 1000;
    let mut r = Rng::new(seed);
    let text: Vec<u8> = (0..size)
        .map(|_| b"abcdefghijklmnopqrstuvwxyz {}\":,0123456789"[r.below(42) as usize])
        .collect();
    let build = |last: usize| {
        let count = size / (VALUE + 40);
        let records = (0..=count).map(|i| {
            let len = if i == count { last } else { VALUE };
            let start = (i * 37) % (size - len);
            Record::new(
                Some(Bytes::from(format!(
                    "customer-{:07}",
                    seed * 1000 + i as u64
                ))),
                Some(Bytes::copy_from_slice(&text[start..start + len])),
            )
            .with_timestamp(1_700_000_000_000 + i as i64)
        });
        RecordBatchBuilder::new()
            .base_offset(base_offset)
            .producer(4000 + seed as i64, 0, 0)
            .records(records)
            .encode()
            .expect("the batch encodes")
    };
    // A byte more or less in the last value moves the batch by as much, except where a varint
    // grows a byte: a few steps settle it.
    let mut last = VALUE / 2;
    for _ in 0..8 {
        let records = build(last);
        if records.len() == size {
            return records;
        }
        last = (last + size).checked_sub(records.len()).expect("fits");
    }
    panic!("no batch of exactly {size} bytes");
}
