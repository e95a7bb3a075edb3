use super::*;
use crate::storage::MemStorage;
use bytes::Bytes;
use kafka_wire::messages::fetch_request::{FetchPartition, FetchTopic};
use kafka_wire::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_wire::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use kafka_wire::records::{ControlRecordType, Record, RecordBatchBuilder, RecordsReader};
use kafka_wire::Encode;

const TOPIC: &str = "orders";

fn tp0() -> TopicPartition {
    TopicPartition::new(TOPIC, 0)
}

/// Two brokers; orders-0 led by 0, orders-1 led by 1.
fn cluster() -> Cluster {
    Cluster::new("127.0.0.1", 9092, 2, &[(TOPIC, 2)])
}

fn leaders(storage: &MemStorage, broker: BrokerId, cluster: &Cluster) -> Leaders {
    let mut l = Leaders::new(broker, Box::new(storage.clone()));
    l.set_time(1_700_000_000_000);
    l.sync(cluster).unwrap();
    l
}

/// A batch of `values` from producer `pid` (-1 for none) at `epoch` starting at `seq`.
fn batch(pid: i64, epoch: i16, seq: i32, txn: bool, values: &[&str]) -> Bytes {
    let mut b = RecordBatchBuilder::new().transactional(txn);
    if pid >= 0 {
        b = b.producer(pid, epoch, seq);
    }
    for (i, v) in values.iter().enumerate() {
        b = b.record(
            Record::new(None, Some(Bytes::copy_from_slice(v.as_bytes())))
                .with_timestamp(1000 + i as i64),
        );
    }
    b.encode().unwrap().into_bytes()
}

fn produce_req(topic: &str, partition: i32, records: Option<Bytes>, acks: i16) -> ProduceRequest {
    ProduceRequest::default()
        .with_acks(acks)
        .with_timeout_ms(1000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(KafkaString::from(topic.to_owned()))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(partition)
                .with_records(records.map(Records::new))])])
}

/// Produces `records` to orders-`partition`: (error code, base offset).
fn produce(l: &mut Leaders, partition: i32, records: Bytes) -> (i16, i64) {
    let resp = l.produce(&produce_req(TOPIC, partition, Some(records), -1), 9);
    let p = &resp.responses[0].partition_responses[0];
    (p.error_code, p.base_offset)
}

struct Marker {
    pid: i64,
    epoch: i16,
    commit: bool,
    coordinator_epoch: i32,
    version: i8,
}

fn marker_req(m: &Marker, topic: &str, partitions: Vec<i32>) -> WriteTxnMarkersRequest {
    WriteTxnMarkersRequest::default().with_markers(vec![WritableTxnMarker::default()
        .with_producer_id(m.pid)
        .with_producer_epoch(m.epoch)
        .with_transaction_result(m.commit)
        .with_coordinator_epoch(m.coordinator_epoch)
        .with_transaction_version(m.version)
        .with_topics(vec![WritableTxnMarkerTopic::default()
            .with_name(KafkaString::from(topic.to_owned()))
            .with_partition_indexes(partitions.into())])])
}

/// Sends one marker for orders-0 on the inter-broker listener: its error code.
fn mark(l: &mut Leaders, m: &Marker) -> i16 {
    let resp = l.write_txn_markers(&marker_req(m, TOPIC, vec![0]), 1, Listener::InterBroker);
    resp.markers[0].topics[0].partitions[0].error_code
}

fn commit(pid: i64, epoch: i16, coordinator_epoch: i32) -> Marker {
    Marker {
        pid,
        epoch,
        commit: true,
        coordinator_epoch,
        version: 0,
    }
}

fn abort(pid: i64, epoch: i16, coordinator_epoch: i32) -> Marker {
    Marker {
        commit: false,
        ..commit(pid, epoch, coordinator_epoch)
    }
}

fn fetch_req(partition: i32, offset: i64, isolation: i8, part_max: i32) -> FetchRequest {
    FetchRequest::default()
        .with_isolation_level(isolation)
        .with_max_bytes(i32::MAX)
        .with_topics(vec![FetchTopic::default()
            .with_topic(KafkaString::from(TOPIC))
            .with_partitions(vec![FetchPartition::default()
                .with_partition(partition)
                .with_fetch_offset(offset)
                .with_partition_max_bytes(part_max)])])
}

fn fetch(l: &Leaders, offset: i64, isolation: i8) -> PartitionData {
    let resp = l.fetch(&fetch_req(0, offset, isolation, 1 << 20), 12);
    resp.responses[0].partitions[0].clone()
}

/// The base offsets of the batches a fetch returned.
fn bases(p: &PartitionData) -> Vec<i64> {
    let bytes = p.records.clone().unwrap_or_default().into_bytes();
    RecordsReader::new(bytes)
        .map(|b| b.unwrap().header.base_offset)
        .collect()
}

fn list_offset(l: &Leaders, timestamp: i64, isolation: i8) -> (ErrorCode, i64) {
    let req = ListOffsetsRequest::default()
        .with_replica_id(-1)
        .with_isolation_level(isolation)
        .with_topics(vec![ListOffsetsTopic::default()
            .with_name(KafkaString::from(TOPIC))
            .with_partitions(vec![ListOffsetsPartition::default()
                .with_partition_index(0)
                .with_timestamp(timestamp)])]);
    let resp = l.list_offsets(&req, 7);
    let p = &resp.topics[0].partitions[0];
    (ErrorCode::from(p.error_code), p.offset)
}

fn control_batches(l: &Leaders) -> Vec<RecordBatch> {
    l.batches(&tp0())
        .unwrap()
        .into_iter()
        .filter(|b| b.header.is_control)
        .collect()
}

#[test]
fn produce_then_fetch_round_trip() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    assert_eq!(
        produce(&mut l, 0, batch(-1, -1, -1, false, &["a", "b"])),
        (0, 0)
    );
    assert_eq!(produce(&mut l, 0, batch(-1, -1, -1, false, &["c"])), (0, 2));

    let p = fetch(&l, 0, 0);
    assert_eq!(p.error_code, ErrorCode::NONE);
    assert_eq!((p.high_watermark, p.last_stable_offset), (3, 3));
    assert_eq!(p.log_start_offset, 0);
    let bytes = p.records.clone().unwrap().into_bytes();
    let values: Vec<Bytes> = RecordsReader::new(bytes)
        .into_owned()
        .flat_map(|b| b.unwrap().records)
        .map(|r| r.value.unwrap())
        .collect();
    assert_eq!(values, vec!["a", "b", "c"]);
    // The log holds exactly what a fetch returns.
    assert_eq!(
        s.read("log-orders-0").unwrap().len(),
        p.records.unwrap().len()
    );

    // Offset 1 is inside the first batch: the whole batch comes back.
    assert_eq!(bases(&fetch(&l, 1, 0)), vec![0, 2]);
    assert_eq!(bases(&fetch(&l, 2, 0)), vec![2]);
    let at_end = fetch(&l, 3, 0);
    assert_eq!(
        (ErrorCode::from(at_end.error_code), bases(&at_end)),
        (ErrorCode::NONE, vec![])
    );
    assert_eq!(fetch(&l, 4, 0).error_code, ErrorCode::OFFSET_OUT_OF_RANGE);
    assert_eq!(fetch(&l, -1, 0).error_code, ErrorCode::OFFSET_OUT_OF_RANGE);
}

#[test]
fn retried_idempotent_batch_returns_its_first_offset() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    assert_eq!(
        produce(&mut l, 0, batch(7, 0, 0, false, &["a", "b"])),
        (0, 0)
    );
    assert_eq!(produce(&mut l, 0, batch(7, 0, 2, false, &["c"])), (0, 2));
    // Both retries are recognised; nothing is written again.
    assert_eq!(
        produce(&mut l, 0, batch(7, 0, 0, false, &["a", "b"])),
        (0, 0)
    );
    assert_eq!(produce(&mut l, 0, batch(7, 0, 2, false, &["c"])), (0, 2));
    assert_eq!(l.batches(&tp0()).unwrap().len(), 2);
    // A gap is refused.
    let (code, _) = produce(&mut l, 0, batch(7, 0, 5, false, &["x"]));
    assert_eq!(code, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_eq!(produce(&mut l, 0, batch(7, 0, 3, false, &["d"])), (0, 3));
    assert_eq!(l.batches(&tp0()).unwrap().len(), 3);
}

#[test]
fn only_the_last_five_batches_are_recognised_as_retries() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    for seq in 0..6 {
        assert_eq!(
            produce(&mut l, 0, batch(7, 0, seq, false, &["v"])),
            (0, seq as i64)
        );
    }
    assert_eq!(produce(&mut l, 0, batch(7, 0, 1, false, &["v"])), (0, 1));
    // Sequence 0 has left the window: it is out of order now, not a duplicate.
    let (code, _) = produce(&mut l, 0, batch(7, 0, 0, false, &["v"]));
    assert_eq!(code, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_eq!(l.batches(&tp0()).unwrap().len(), 6);
}

#[test]
fn zombie_with_an_older_epoch_appends_nothing() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    assert_eq!(produce(&mut l, 0, batch(7, 3, 0, false, &["a"])), (0, 0));
    let (code, _) = produce(&mut l, 0, batch(7, 2, 1, false, &["zombie"]));
    assert_eq!(code, ErrorCode::INVALID_PRODUCER_EPOCH);
    assert_eq!(l.batches(&tp0()).unwrap().len(), 1);
    // A newer epoch starts again at sequence 0 ...
    let (code, _) = produce(&mut l, 0, batch(7, 4, 1, false, &["x"]));
    assert_eq!(code, ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER);
    assert_eq!(produce(&mut l, 0, batch(7, 4, 0, false, &["b"])), (0, 1));
    // ... and fences the one before it.
    let (code, _) = produce(&mut l, 0, batch(7, 3, 1, false, &["late"]));
    assert_eq!(code, ErrorCode::INVALID_PRODUCER_EPOCH);
    assert_eq!(l.batches(&tp0()).unwrap().len(), 2);
}

#[test]
fn marker_on_the_client_listener_is_refused() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    produce(&mut l, 0, batch(7, 0, 0, true, &["a"]));
    let req = marker_req(&commit(7, 0, 0), TOPIC, vec![0, 1, 9]);
    let resp = l.write_txn_markers(&req, 1, Listener::Client);
    let codes: Vec<i16> = resp.markers[0].topics[0]
        .partitions
        .iter()
        .map(|p| p.error_code)
        .collect();
    assert_eq!(codes, vec![ErrorCode::CLUSTER_AUTHORIZATION_FAILED; 3]);
    assert_eq!(resp.markers[0].producer_id, 7);
    assert!(control_batches(&l).is_empty());
    assert_eq!(fetch(&l, 0, 1).last_stable_offset, 0);
}

#[test]
fn duplicate_marker_is_a_no_op() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    produce(&mut l, 0, batch(7, 0, 0, true, &["a"]));
    produce(&mut l, 0, batch(7, 0, 1, true, &["b"]));
    assert_eq!(mark(&mut l, &commit(7, 0, 3)), ErrorCode::NONE);
    assert_eq!(mark(&mut l, &commit(7, 0, 3)), ErrorCode::NONE);
    let controls = control_batches(&l);
    assert_eq!(controls.len(), 1);
    let c = &controls[0];
    assert_eq!(
        (
            c.header.base_offset,
            c.header.producer_id,
            c.header.producer_epoch
        ),
        (2, 7, 0)
    );
    assert!(c.header.is_transactional);
    assert_eq!(c.header.base_sequence, -1);
    let record = c.control_record().unwrap().unwrap();
    assert_eq!(record.kind, ControlRecordType::Commit);
    assert_eq!(record.marker.unwrap().coordinator_epoch, 3);
    // A marker for a producer that never wrote here is a no-op too.
    assert_eq!(mark(&mut l, &abort(99, 0, 3)), ErrorCode::NONE);
    assert_eq!(control_batches(&l).len(), 1);
    assert_eq!(fetch(&l, 0, 1).last_stable_offset, 3);
}

/// Regression (found by the simulation): an abort marker with a bumped epoch for a partition
/// where the producer had nothing open used to be a no-op, so the leader never learnt the new
/// epoch and the fenced incarnation could still write there, opening a transaction that no
/// marker would ever end (read_committed stuck at that offset for good).
#[test]
fn marker_with_a_new_epoch_fences_older_writers_where_nothing_was_open() {
    let s = MemStorage::default();
    let c = cluster();
    let mut l = leaders(&s, 0, &c);
    // Producer 7 (epoch 0) added orders-0 to its transaction without writing there; a new
    // incarnation's InitProducerId aborted the transaction with epoch 1.
    assert_eq!(mark(&mut l, &abort(7, 1, 0)), ErrorCode::NONE);
    assert_eq!(control_batches(&l).len(), 1);
    let zombie = || batch(7, 0, 0, true, &["zombie"]);
    assert_eq!(
        produce(&mut l, 0, zombie()).0,
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
    // A retry of that marker writes nothing more.
    assert_eq!(mark(&mut l, &abort(7, 1, 0)), ErrorCode::NONE);
    assert_eq!(control_batches(&l).len(), 1);
    // The fence is in the log: a reloaded leader keeps it.
    let mut l = leaders(&s, 0, &c);
    assert_eq!(
        produce(&mut l, 0, zombie()).0,
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
    // The same for a producer the partition knows at an older epoch.
    produce(&mut l, 0, batch(8, 0, 0, true, &["t"]));
    assert_eq!(mark(&mut l, &commit(8, 0, 0)), ErrorCode::NONE);
    assert_eq!(mark(&mut l, &abort(8, 1, 0)), ErrorCode::NONE);
    assert_eq!(control_batches(&l).len(), 3);
    assert_eq!(
        produce(&mut l, 0, batch(8, 0, 1, true, &["late"])).0,
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
    // The new epoch writes (from sequence 0) and nothing is left open.
    assert_eq!(
        produce(&mut l, 0, batch(8, 1, 0, true, &["new"])).0,
        ErrorCode::NONE
    );
    assert_eq!(mark(&mut l, &commit(8, 1, 0)), ErrorCode::NONE);
    let p = fetch(&l, 0, 1);
    assert_eq!(p.last_stable_offset, p.high_watermark);
}

#[test]
fn stale_coordinator_epoch_is_fenced() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    produce(&mut l, 0, batch(7, 0, 0, true, &["a"]));
    assert_eq!(mark(&mut l, &commit(7, 0, 5)), ErrorCode::NONE);
    produce(&mut l, 0, batch(7, 0, 1, true, &["b"]));
    assert_eq!(
        mark(&mut l, &abort(7, 0, 4)),
        ErrorCode::TRANSACTION_COORDINATOR_FENCED
    );
    assert_eq!(control_batches(&l).len(), 1);
    // An older producer epoch is refused too.
    produce(&mut l, 0, batch(7, 1, 0, true, &["c"]));
    assert_eq!(
        mark(&mut l, &abort(7, 0, 5)),
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
    assert_eq!(control_batches(&l).len(), 1);
    assert_eq!(mark(&mut l, &abort(7, 1, 6)), ErrorCode::NONE);
    assert_eq!(control_batches(&l).len(), 2);
}

#[test]
fn transaction_version_2_refuses_a_stale_marker_once_the_next_transaction_began() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    let tv2 = |epoch, commit| Marker {
        pid: 7,
        epoch,
        commit,
        coordinator_epoch: 0,
        version: 2,
    };
    // Transaction 1 at epoch 0; the coordinator ends it with the bumped epoch 1.
    produce(&mut l, 0, batch(7, 0, 0, true, &["t1"]));
    assert_eq!(mark(&mut l, &tv2(1, true)), ErrorCode::NONE);
    // Transaction 2 at epoch 1 (sequences restart with the epoch).
    assert_eq!(produce(&mut l, 0, batch(7, 1, 0, true, &["t2"])), (0, 2));
    // The first commit marker, delivered again late, must not end transaction 2.
    assert_eq!(
        mark(&mut l, &tv2(1, true)),
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
    assert_eq!(control_batches(&l).len(), 1);
    assert_eq!(fetch(&l, 0, 1).last_stable_offset, 2);
    // Its own marker (epoch 2) ends it.
    assert_eq!(mark(&mut l, &tv2(2, false)), ErrorCode::NONE);
    assert_eq!(control_batches(&l).len(), 2);
    assert_eq!(fetch(&l, 0, 1).last_stable_offset, 4);

    // Version 1 keeps the >= rule: a marker at the data's own epoch ends the transaction.
    produce(&mut l, 0, batch(8, 0, 0, true, &["v1"]));
    assert_eq!(mark(&mut l, &commit(8, 0, 0)), ErrorCode::NONE);
    assert_eq!(control_batches(&l).len(), 3);
}

#[test]
fn read_committed_stops_at_the_last_stable_offset_and_lists_aborted_transactions() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    produce(&mut l, 0, batch(7, 0, 0, true, &["aborted"])); // 0
    assert_eq!(mark(&mut l, &abort(7, 0, 0)), ErrorCode::NONE); // 1
    produce(&mut l, 0, batch(-1, -1, -1, false, &["plain"])); // 2
    produce(&mut l, 0, batch(8, 0, 0, true, &["open"])); // 3
    produce(&mut l, 0, batch(-1, -1, -1, false, &["after"])); // 4

    let committed = fetch(&l, 0, 1);
    assert_eq!(
        (committed.high_watermark, committed.last_stable_offset),
        (5, 3)
    );
    assert_eq!(bases(&committed), vec![0, 1, 2]);
    let aborted = committed.aborted_transactions.unwrap();
    assert_eq!(aborted.len(), 1);
    assert_eq!((aborted[0].producer_id, aborted[0].first_offset), (7, 0));
    // Past the abort marker the aborted transaction is no longer listed.
    let later = fetch(&l, 2, 1);
    assert_eq!(bases(&later), vec![2]);
    assert_eq!(later.aborted_transactions, Some(vec![]));
    // Between the last stable offset and the high watermark: nothing yet, and no error.
    let waiting = fetch(&l, 4, 1);
    assert_eq!(
        (ErrorCode::from(waiting.error_code), bases(&waiting)),
        (ErrorCode::NONE, vec![])
    );

    let uncommitted = fetch(&l, 0, 0);
    assert_eq!(bases(&uncommitted), vec![0, 1, 2, 3, 4]);
    assert_eq!(uncommitted.aborted_transactions, None);

    assert_eq!(list_offset(&l, LATEST, 1), (ErrorCode::NONE, 3));
    assert_eq!(list_offset(&l, LATEST, 0), (ErrorCode::NONE, 5));
    assert_eq!(list_offset(&l, EARLIEST, 1), (ErrorCode::NONE, 0));

    // Committing the open transaction moves the last stable offset to the end.
    assert_eq!(mark(&mut l, &commit(8, 0, 0)), ErrorCode::NONE);
    assert_eq!(fetch(&l, 0, 1).last_stable_offset, 6);
    assert_eq!(list_offset(&l, LATEST, 1), (ErrorCode::NONE, 6));
}

#[test]
fn reload_rebuilds_the_same_state() {
    let s = MemStorage::default();
    let c = cluster();
    let mut l = leaders(&s, 0, &c);
    produce(&mut l, 0, batch(7, 0, 0, true, &["a"]));
    produce(&mut l, 0, batch(7, 0, 1, true, &["b", "c"]));
    assert_eq!(mark(&mut l, &commit(7, 0, 2)), ErrorCode::NONE);
    produce(&mut l, 0, batch(8, 1, 0, true, &["d"]));
    assert_eq!(mark(&mut l, &abort(8, 1, 2)), ErrorCode::NONE);
    produce(&mut l, 0, batch(9, 0, 0, true, &["open"]));
    produce(&mut l, 0, batch(10, 0, 0, false, &["idem"]));

    let mut again = leaders(&s, 0, &c);
    assert_eq!(again.partitions, l.partitions);
    // The rebuilt state still recognises retries of markers and of batches.
    assert_eq!(mark(&mut again, &commit(7, 0, 2)), ErrorCode::NONE);
    assert_eq!(control_batches(&again).len(), 2);
    assert_eq!(
        produce(&mut again, 0, batch(10, 0, 0, false, &["idem"])),
        (0, 7)
    );
    assert_eq!(
        mark(&mut again, &commit(7, 0, 1)),
        ErrorCode::TRANSACTION_COORDINATOR_FENCED
    );
    assert_eq!(control_batches(&again).len(), 2);
    let p = fetch(&again, 0, 1);
    assert_eq!(p.last_stable_offset, 6);
    assert_eq!(p.aborted_transactions.unwrap().len(), 1);
}

#[test]
fn new_leader_takes_over_the_log_and_continues_offsets() {
    let s = MemStorage::default();
    let mut c = cluster();
    let mut l0 = leaders(&s, 0, &c);
    let mut l1 = leaders(&s, 1, &c);
    produce(&mut l0, 0, batch(7, 0, 0, true, &["a", "b"]));
    produce(&mut l0, 0, batch(11, 0, 0, false, &["x"]));
    // Broker 1 does not lead orders-0 yet.
    assert_eq!(
        produce(&mut l1, 0, batch(-1, -1, -1, false, &["n"])).0,
        ErrorCode::NOT_LEADER_OR_FOLLOWER
    );

    assert!(c.move_leader(&tp0(), 1));
    l0.sync(&c).unwrap();
    l1.sync(&c).unwrap();
    assert_eq!(
        produce(&mut l0, 0, batch(-1, -1, -1, false, &["n"])).0,
        ErrorCode::NOT_LEADER_OR_FOLLOWER
    );
    assert_eq!(
        fetch(&l0, 0, 0).error_code,
        ErrorCode::NOT_LEADER_OR_FOLLOWER
    );
    assert!(l0.batches(&tp0()).is_none());

    assert_eq!(produce(&mut l1, 0, batch(7, 0, 2, true, &["c"])), (0, 3));
    assert_eq!(produce(&mut l1, 0, batch(11, 0, 0, false, &["x"])), (0, 2));
    let resp = l1.write_txn_markers(
        &marker_req(&commit(7, 0, 0), TOPIC, vec![0]),
        1,
        Listener::InterBroker,
    );
    assert_eq!(
        resp.markers[0].topics[0].partitions[0].error_code,
        ErrorCode::NONE
    );
    let p = l1.fetch(&fetch_req(0, 0, 1, 1 << 20), 11).responses[0].partitions[0].clone();
    assert_eq!((p.high_watermark, p.last_stable_offset), (5, 5));
    assert_eq!(bases(&p), vec![0, 2, 3, 4]);
}

#[test]
fn unknown_partitions_and_partitions_led_elsewhere_are_told_apart() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    let unknown = l.produce(
        &produce_req("nope", 0, Some(batch(-1, -1, -1, false, &["a"])), 1),
        7,
    );
    assert_eq!(
        unknown.responses[0].partition_responses[0].error_code,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
    );
    assert_eq!(
        produce(&mut l, 5, batch(-1, -1, -1, false, &["a"])).0,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
    );
    assert_eq!(
        produce(&mut l, 1, batch(-1, -1, -1, false, &["a"])).0,
        ErrorCode::NOT_LEADER_OR_FOLLOWER
    );
    let resp = l.write_txn_markers(
        &marker_req(&commit(7, 0, 0), TOPIC, vec![0, 1, 2]),
        1,
        Listener::InterBroker,
    );
    let codes: Vec<i16> = resp.markers[0].topics[0]
        .partitions
        .iter()
        .map(|p| p.error_code)
        .collect();
    assert_eq!(
        codes,
        vec![
            ErrorCode::NONE,
            ErrorCode::NOT_LEADER_OR_FOLLOWER,
            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
        ]
    );
    assert_eq!(
        l.fetch(&fetch_req(1, 0, 0, 100), 12).responses[0].partitions[0].error_code,
        ErrorCode::NOT_LEADER_OR_FOLLOWER
    );
    assert_eq!(
        l.fetch(&fetch_req(4, 0, 0, 100), 12).responses[0].partitions[0].error_code,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
    );

    // Before the first sync nothing is known.
    let fresh = Leaders::new(0, Box::new(s.clone()));
    assert_eq!(
        fresh.fetch(&fetch_req(0, 0, 0, 100), 12).responses[0].partitions[0].error_code,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
    );
}

#[test]
fn invalid_acks_are_refused() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    for acks in [-1, 0, 1] {
        let r = l.produce(
            &produce_req(TOPIC, 0, Some(batch(-1, -1, -1, false, &["a"])), acks),
            9,
        );
        assert_eq!(
            r.responses[0].partition_responses[0].error_code,
            ErrorCode::NONE
        );
    }
    let r = l.produce(
        &produce_req(TOPIC, 0, Some(batch(-1, -1, -1, false, &["a"])), 2),
        9,
    );
    assert_eq!(
        r.responses[0].partition_responses[0].error_code,
        ErrorCode::INVALID_REQUIRED_ACKS
    );
    assert_eq!(l.batches(&tp0()).unwrap().len(), 3);
}

#[test]
fn fetch_honours_byte_limits_but_returns_at_least_one_batch() {
    let s = MemStorage::default();
    let mut c = cluster();
    assert!(c.move_leader(&TopicPartition::new(TOPIC, 1), 0));
    let mut l = leaders(&s, 0, &c);
    for _ in 0..3 {
        produce(&mut l, 0, batch(-1, -1, -1, false, &["0123456789"]));
        produce(&mut l, 1, batch(-1, -1, -1, false, &["0123456789"]));
    }
    let one = l.batches(&tp0()).unwrap()[0].encode().unwrap().len() as i32;
    // A partition limit below one batch still yields the first batch.
    assert_eq!(
        bases(&l.fetch(&fetch_req(0, 0, 0, 1), 12).responses[0].partitions[0]),
        vec![0]
    );
    assert_eq!(
        bases(&l.fetch(&fetch_req(0, 0, 0, 2 * one), 12).responses[0].partitions[0]),
        vec![0, 1]
    );
    // The response limit is shared: once it is used up, later partitions get nothing.
    let mut req = fetch_req(0, 0, 0, 1 << 20);
    req.max_bytes = one + 1;
    let mut p1 = req.topics[0].partitions[0].clone();
    p1.partition = 1;
    req.topics[0].partitions.push(p1);
    let resp = l.fetch(&req, 12);
    assert_eq!(bases(&resp.responses[0].partitions[0]), vec![0]);
    assert_eq!(bases(&resp.responses[0].partitions[1]), Vec::<i64>::new());
    assert_eq!(resp.responses[0].partitions[1].high_watermark, 3);
}

#[test]
fn list_offsets_finds_timestamps() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    // Records at 1000, 1001 (offsets 0, 1) and 1000, 1001, 1002 (offsets 2..=4).
    produce(&mut l, 0, batch(-1, -1, -1, false, &["a", "b"]));
    produce(&mut l, 0, batch(-1, -1, -1, false, &["c", "d", "e"]));
    assert_eq!(list_offset(&l, 1001, 0), (ErrorCode::NONE, 1));
    assert_eq!(list_offset(&l, 1002, 0), (ErrorCode::NONE, 4));
    assert_eq!(list_offset(&l, 5000, 0), (ErrorCode::NONE, -1));
    assert_eq!(list_offset(&l, MAX_TIMESTAMP, 0), (ErrorCode::NONE, 4));
    assert_eq!(list_offset(&l, EARLIEST, 0), (ErrorCode::NONE, 0));
    assert_eq!(list_offset(&l, LATEST, 0), (ErrorCode::NONE, 5));
}

#[test]
fn torn_tail_is_cut_off_on_load() {
    let s = MemStorage::default();
    let c = cluster();
    let mut l = leaders(&s, 0, &c);
    produce(&mut l, 0, batch(7, 0, 0, false, &["a"]));
    let good = s.read("log-orders-0").unwrap().len();
    let whole = batch(7, 0, 1, false, &["b"]);
    let mut writer = s.clone();
    writer
        .append("log-orders-0", &whole[..whole.len() / 2])
        .unwrap();

    let mut again = leaders(&s, 0, &c);
    assert_eq!(s.read("log-orders-0").unwrap().len(), good);
    assert_eq!(produce(&mut again, 0, whole), (0, 1));
    assert_eq!(again.batches(&tp0()).unwrap().len(), 2);
}

#[test]
fn hostile_batches_get_error_codes_not_panics() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    let good = batch(7, 0, 0, false, &["a", "b"]);
    let code = |l: &mut Leaders, bytes: Option<Bytes>| {
        let r = l.produce(&produce_req(TOPIC, 0, bytes, -1), 9);
        r.responses[0].partition_responses[0].error_code
    };
    assert_eq!(code(&mut l, None), ErrorCode::INVALID_RECORD);
    assert_eq!(code(&mut l, Some(Bytes::new())), ErrorCode::INVALID_RECORD);
    assert_eq!(
        code(&mut l, Some(Bytes::from_static(b"garbage"))),
        ErrorCode::CORRUPT_MESSAGE
    );
    let mut flipped = good.to_vec();
    let last = flipped.len() - 1;
    flipped[last] ^= 0xff;
    assert_eq!(
        code(&mut l, Some(flipped.into())),
        ErrorCode::CORRUPT_MESSAGE
    );
    assert_eq!(
        code(&mut l, Some(good.slice(..good.len() - 3))),
        ErrorCode::CORRUPT_MESSAGE
    );
    let mut two = good.to_vec();
    two.extend_from_slice(&good);
    assert_eq!(code(&mut l, Some(two.into())), ErrorCode::INVALID_RECORD);
    let control = RecordBatchBuilder::new()
        .producer(7, 0, 0)
        .transactional(true)
        .control(true)
        .record(Record::new(None, None))
        .encode()
        .unwrap()
        .into_bytes();
    assert_eq!(code(&mut l, Some(control)), ErrorCode::INVALID_RECORD);
    let legacy = RecordBatchBuilder::new()
        .magic(1)
        .record(Record::new(None, Some("a".into())))
        .encode()
        .unwrap()
        .into_bytes();
    assert_eq!(code(&mut l, Some(legacy)), ErrorCode::INVALID_RECORD);
    let mut huge = good.to_vec();
    huge[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    assert_eq!(code(&mut l, Some(huge.into())), ErrorCode::CORRUPT_MESSAGE);
    assert!(l.batches(&tp0()).unwrap().is_empty());

    // Seeded mutations: whatever the leader accepts must leave a readable log.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let plain = batch(-1, -1, -1, false, &["a", "b"]);
    let mut accepted = 0;
    for _ in 0..2000 {
        let mut bytes = plain.to_vec();
        for _ in 0..=(next() % 4) {
            let at = (next() as usize) % bytes.len();
            match next() % 3 {
                0 => bytes[at] = next() as u8,
                1 => bytes.truncate(at.max(1)),
                _ => bytes.insert(at, next() as u8),
            }
        }
        if code(&mut l, Some(bytes.into())) == ErrorCode::NONE {
            accepted += 1;
        }
    }
    // Mutations outside the checksummed part (base offset, leader epoch) are accepted.
    assert!(accepted > 0);
    let log = Bytes::from(s.read("log-orders-0").unwrap());
    let offsets: Vec<i64> = RecordsReader::new(log)
        .map(|b| b.unwrap().header.base_offset)
        .collect();
    assert_eq!(offsets, (0..accepted).map(|i| 2 * i).collect::<Vec<i64>>());
    assert_eq!(produce(&mut l, 0, good.clone()).0, ErrorCode::NONE);
}

#[test]
fn responses_encode_at_every_supported_version() {
    let s = MemStorage::default();
    let mut l = leaders(&s, 0, &cluster());
    produce(&mut l, 0, batch(7, 0, 0, true, &["a"]));
    assert_eq!(mark(&mut l, &abort(7, 0, 0)), ErrorCode::NONE);
    for v in 3..=12 {
        let r = l.produce(
            &produce_req(TOPIC, 0, Some(batch(-1, -1, -1, false, &["x"])), -1),
            v,
        );
        r.encode_to_bytes(v).unwrap();
        let r = l.produce(
            &produce_req(TOPIC, 0, Some(Bytes::from_static(b"bad")), -1),
            v,
        );
        r.encode_to_bytes(v).unwrap();
    }
    for v in 4..=12 {
        for isolation in [0, 1] {
            l.fetch(&fetch_req(0, 0, isolation, 1 << 20), v)
                .encode_to_bytes(v)
                .unwrap();
            l.fetch(&fetch_req(3, 0, isolation, 1 << 20), v)
                .encode_to_bytes(v)
                .unwrap();
        }
    }
    for v in 0..=2 {
        let mut req = marker_req(&commit(7, 0, 0), TOPIC, vec![0, 1]);
        req.markers[0].transaction_version = if v == 2 { 2 } else { 0 };
        l.write_txn_markers(&req, v, Listener::InterBroker)
            .encode_to_bytes(v)
            .unwrap();
    }
    for v in 0..=7 {
        for ts in [LATEST, EARLIEST, 1000] {
            let req = ListOffsetsRequest::default()
                .with_isolation_level(1)
                .with_topics(vec![ListOffsetsTopic::default()
                    .with_name(KafkaString::from(TOPIC))
                    .with_partitions(vec![ListOffsetsPartition::default()
                        .with_partition_index(0)
                        .with_timestamp(ts)])]);
            l.list_offsets(&req, v).encode_to_bytes(v).unwrap();
        }
    }
}

/// Storage whose appends write half the bytes and then fail.
struct TornStorage(MemStorage);

impl Storage for TornStorage {
    fn read(&self, name: &str) -> std::io::Result<Vec<u8>> {
        self.0.read(name)
    }
    fn append(&mut self, name: &str, data: &[u8]) -> std::io::Result<()> {
        self.0.append(name, &data[..data.len() / 2])?;
        Err(std::io::Error::other("disk full"))
    }
    fn truncate(&mut self, name: &str, len: u64) -> std::io::Result<()> {
        self.0.truncate(name, len)
    }
}

#[test]
fn failed_write_answers_a_storage_error_and_leaves_no_trace() {
    let s = MemStorage::default();
    let c = cluster();
    let mut l = leaders(&s, 0, &c);
    produce(&mut l, 0, batch(7, 0, 0, true, &["a"]));
    let before = l.partitions.clone();
    let mut torn = Leaders::new(0, Box::new(TornStorage(s.clone())));
    torn.sync(&c).unwrap();
    let (code, _) = produce(&mut torn, 0, batch(7, 0, 1, true, &["b"]));
    assert_eq!(code, ErrorCode::KAFKA_STORAGE_ERROR);
    assert_eq!(
        mark(&mut torn, &commit(7, 0, 0)),
        ErrorCode::KAFKA_STORAGE_ERROR
    );
    assert_eq!(torn.partitions, before);
    assert_eq!(leaders(&s, 0, &c).partitions, before);
}

#[test]
fn produce_and_fetch_read_through_views_answer_as_the_owned_requests() {
    use kafka_wire::{View, ViewIndex};

    let c = cluster();
    let mut index = ViewIndex::new();
    let (owned_disk, viewed_disk) = (MemStorage::default(), MemStorage::default());
    let mut owned = leaders(&owned_disk, 0, &c);
    let mut viewed = leaders(&viewed_disk, 0, &c);
    for (partition, values) in [(0, ["a", "b"]), (1, ["c", "d"]), (0, ["e", "f"])] {
        let req = produce_req(TOPIC, partition, Some(batch(-1, 0, 0, false, &values)), -1);
        let wire = req.encode_to_bytes(9).unwrap();
        let view = ProduceRequest::view_in(&wire, 9, &mut index).unwrap();
        assert_eq!(
            viewed.produce_view(view, Source::from(&wire)),
            owned.produce(&req, 9)
        );
    }
    let log = "log-orders-0";
    assert_eq!(
        viewed_disk.read(log).unwrap(),
        owned_disk.read(log).unwrap()
    );
    assert!(!owned_disk.read(log).unwrap().is_empty());
    for isolation in [0, 1] {
        let req = fetch_req(0, 0, isolation, 1 << 20);
        let wire = req.encode_to_bytes(12).unwrap();
        let view = FetchRequest::view_in(&wire, 12, &mut index).unwrap();
        let answer = viewed.fetch_view(view, 12);
        assert_eq!(answer, owned.fetch(&req, 12));
        assert_eq!(bases(&answer.responses[0].partitions[0]), [0, 2]);
    }
}
