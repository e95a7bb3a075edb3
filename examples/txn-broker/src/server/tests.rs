//! Helpers the server's tests share (a cluster of real brokers on free ports, a raw client),
//! and transaction version 2 end to end between real brokers. The tests of each part of the
//! server sit beside it.

use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::thread;
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, ApiVersionsResponse, FetchRequest, FetchResponse,
    WriteTxnMarkersRequest,
};
use kafka_wire::ErrorCode;

use super::*;

/// A data directory and a cluster of `brokers` brokers on free ports, coordinated by
/// `coordinator`, with topic `orders:3`.
pub(super) fn setup(name: &str, brokers: i32, coordinator: BrokerId) -> (PathBuf, Cluster) {
    let dir = std::env::temp_dir().join(format!("txn-broker-server-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Ports the OS hands out are free; the tests bind them again right after.
    let ports: Vec<u16> = (0..2 * brokers)
        .map(|_| {
            TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .unwrap()
                .port()
        })
        .collect();
    let mut cluster = Cluster::new("127.0.0.1", 1, brokers, &[("orders", 3)]);
    for (i, b) in cluster.brokers.iter_mut().enumerate() {
        b.client_port = ports[2 * i];
        b.broker_port = ports[2 * i + 1];
    }
    cluster.coordinator = coordinator;
    write_cluster(&dir, &cluster).unwrap();
    (dir, cluster)
}

pub(super) fn client(addr: SocketAddr) -> Client {
    Client::connect(
        addr,
        "server-test",
        Duration::from_secs(2),
        Duration::from_secs(5),
    )
    .unwrap()
}

/// A raw request frame: any key and version, header v1 (client id), `body` bytes.
pub(super) fn raw_frame(key: i16, version: i16, correlation_id: i32, body: &[u8]) -> Vec<u8> {
    let mut inner = Vec::new();
    inner.extend_from_slice(&key.to_be_bytes());
    inner.extend_from_slice(&version.to_be_bytes());
    inner.extend_from_slice(&correlation_id.to_be_bytes());
    inner.extend_from_slice(&4i16.to_be_bytes());
    inner.extend_from_slice(b"test");
    inner.extend_from_slice(body);
    let mut out = (inner.len() as i32).to_be_bytes().to_vec();
    out.extend_from_slice(&inner);
    out
}

pub(super) fn read_frame(stream: &mut TcpStream) -> Option<Bytes> {
    let mut buf = BytesMut::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(frame) = frame::split_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE).unwrap() {
            return Some(frame);
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

pub(super) fn versions(resp: &ApiVersionsResponse) -> Vec<(i16, i16, i16)> {
    resp.api_keys
        .iter()
        .map(|k| (k.api_key, k.min_version, k.max_version))
        .collect()
}

pub(super) fn fetch_v12(
    c: &mut Client,
    partition: i32,
    offset: i64,
    max_wait_ms: i32,
) -> FetchResponse {
    use kafka_wire::messages::fetch_request::{FetchPartition, FetchTopic};
    let req = FetchRequest::default()
        .with_replica_id(-1)
        .with_max_wait_ms(max_wait_ms)
        .with_min_bytes(1)
        .with_max_bytes(1 << 20)
        .with_isolation_level(0)
        .with_topics(vec![FetchTopic::default()
            .with_topic("orders")
            .with_partitions(vec![FetchPartition::default()
                .with_partition(partition)
                .with_fetch_offset(offset)
                .with_partition_max_bytes(1 << 20)])]);
    match c.call(RequestBody::Fetch(req), 12).unwrap() {
        ResponseBody::Fetch(r) => r,
        other => panic!("{other:?}"),
    }
}

/// Every batch of one partition, read from its leader with read_uncommitted.
pub(super) fn log_of(c: &mut Client, partition: i32) -> Vec<kafka_wire::records::RecordBatch> {
    let resp = fetch_v12(c, partition, 0, 0);
    let data = &resp.responses[0].partitions[0];
    assert_eq!(data.error_code, ErrorCode::NONE);
    let bytes = data.records.as_ref().map(|r| r.as_bytes().clone());
    kafka_wire::records::RecordsReader::new(bytes.unwrap_or_default())
        .into_owned()
        .map(|b| b.unwrap())
        .collect()
}

pub(super) fn produce_txn(
    c: &mut Client,
    partition: i32,
    producer: (i64, i16),
    sequence: i32,
) -> i16 {
    use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
    use kafka_wire::messages::ProduceRequest;
    use kafka_wire::records::{Record, RecordBatchBuilder};
    let records = RecordBatchBuilder::new()
        .producer(producer.0, producer.1, sequence)
        .transactional(true)
        .record(Record::new(None, Some(Bytes::from_static(b"v"))))
        .encode()
        .unwrap();
    let req = ProduceRequest::default()
        .with_transactional_id(Some("tv2".into()))
        .with_acks(-1)
        .with_timeout_ms(5000)
        .with_topic_data(vec![TopicProduceData::default()
            .with_name("orders")
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(partition)
                .with_records(Some(records))])]);
    match c.call(RequestBody::Produce(req), 9).unwrap() {
        ResponseBody::Produce(r) => r.responses[0].partition_responses[0].error_code,
        other => panic!("{other:?}"),
    }
}

pub(super) fn init_producer(c: &mut Client, id: &str) -> (i64, i16) {
    use kafka_wire::messages::InitProducerIdRequest;
    let init = InitProducerIdRequest::default()
        .with_transactional_id(Some(id.to_owned().into()))
        .with_transaction_timeout_ms(60_000)
        .with_producer_id(-1)
        .with_producer_epoch(-1);
    match c.call(RequestBody::InitProducerId(init), 4).unwrap() {
        ResponseBody::InitProducerId(r) => {
            assert_eq!(r.error_code, ErrorCode::NONE);
            (r.producer_id, r.producer_epoch)
        }
        other => panic!("{other:?}"),
    }
}

/// AddPartitionsToTxn, retried while the previous transaction is still finishing.
pub(super) fn add_partitions(c: &mut Client, id: &str, producer: (i64, i16), partitions: Vec<i32>) {
    use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
    let add = AddPartitionsToTxnRequest::default()
        .with_v3_and_below_transactional_id(id.to_owned())
        .with_v3_and_below_producer_id(producer.0)
        .with_v3_and_below_producer_epoch(producer.1)
        .with_v3_and_below_topics(vec![AddPartitionsToTxnTopic::default()
            .with_name("orders")
            .with_partitions(partitions.into())]);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let codes: Vec<ErrorCode> = match c
            .call(RequestBody::AddPartitionsToTxn(add.clone()), 3)
            .unwrap()
        {
            ResponseBody::AddPartitionsToTxn(r) => r.results_by_topic_v3_and_below[0]
                .results_by_partition
                .iter()
                .map(|p| ErrorCode::from(p.partition_error_code))
                .collect(),
            other => panic!("{other:?}"),
        };
        let busy = codes.contains(&ErrorCode::CONCURRENT_TRANSACTIONS);
        if busy && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
            continue;
        }
        assert!(
            codes.iter().all(|&code| code == ErrorCode::NONE),
            "{codes:?}"
        );
        return;
    }
}

/// EndTxn commit at `version`; the epoch the producer has afterwards.
pub(super) fn commit(c: &mut Client, id: &str, producer: (i64, i16), version: i16) -> i16 {
    use kafka_wire::messages::EndTxnRequest;
    let end = EndTxnRequest::default()
        .with_transactional_id(id.to_owned())
        .with_producer_id(producer.0)
        .with_producer_epoch(producer.1)
        .with_committed(true);
    match c.call(RequestBody::EndTxn(end), version).unwrap() {
        ResponseBody::EndTxn(r) => {
            assert_eq!(r.error_code, ErrorCode::NONE);
            if version >= 5 {
                assert_eq!(r.producer_id, producer.0);
                r.producer_epoch
            } else {
                producer.1
            }
        }
        other => panic!("{other:?}"),
    }
}

/// EndTxn v5 (transaction version 2) over TCP between real brokers: the coordinator bumps
/// the epoch and its v2 markers are accepted on the inter-broker listener and written with
/// the bumped epoch. A marker that reaches a leader at v2 is held to the strict rule (a
/// marker epoch equal to the epoch of the open transaction's data is a stale duplicate and
/// is refused), while the same marker at v1 cannot say so and is applied.
#[test]
fn transaction_version_2_markers_travel_at_v2_and_are_held_to_the_strict_rule() {
    use kafka_wire::messages::write_txn_markers_request::{
        WritableTxnMarker, WritableTxnMarkerTopic,
    };
    use kafka_wire::records::ControlRecordType;

    // Broker 0 coordinates and leads orders-0 and orders-2; broker 1 leads orders-1.
    let (dir, _) = setup("tv2", 2, 0);
    let b0 = start(Options::new(&dir, 0)).unwrap();
    let b1 = start(Options::new(&dir, 1)).unwrap();
    let mut c0 = client(b0.client_addr);
    let mut c1 = client(b1.client_addr);
    let (pid, epoch) = init_producer(&mut c0, "tv2");
    add_partitions(&mut c0, "tv2", (pid, epoch), vec![0, 1]);
    assert_eq!(produce_txn(&mut c0, 0, (pid, epoch), 0), ErrorCode::NONE);
    assert_eq!(produce_txn(&mut c1, 1, (pid, epoch), 0), ErrorCode::NONE);
    let bumped = commit(&mut c0, "tv2", (pid, epoch), 5);
    assert_eq!(bumped, epoch + 1);

    // Both leaders get their COMMIT marker, written with the bumped epoch.
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut coordinator_epoch = None;
    for (c, partition) in [(&mut c0, 0), (&mut c1, 1)] {
        loop {
            let log = log_of(c, partition);
            if let Some(marker) = log.iter().find(|b| b.header.is_control) {
                let control = marker.control_record().unwrap().unwrap();
                assert_eq!(control.kind, ControlRecordType::Commit);
                assert_eq!(
                    (marker.header.producer_id, marker.header.producer_epoch),
                    (pid, bumped)
                );
                coordinator_epoch = control.marker.map(|m| m.coordinator_epoch);
                assert_eq!(log.len(), 2, "data and one marker");
                break;
            }
            assert!(Instant::now() < deadline, "no marker on orders-{partition}");
            thread::sleep(Duration::from_millis(20));
        }
    }
    let coordinator_epoch = coordinator_epoch.expect("the marker names its coordinator epoch");

    // The next transaction's data is at the bumped epoch. A COMMIT marker at that same
    // epoch is what a stale duplicate of the previous transaction's marker looks like.
    assert_eq!(produce_txn(&mut c1, 1, (pid, bumped), 0), ErrorCode::NONE);
    let stale = WriteTxnMarkersRequest::default().with_markers(vec![WritableTxnMarker::default()
        .with_producer_id(pid)
        .with_producer_epoch(bumped)
        .with_transaction_result(true)
        .with_topics(vec![WritableTxnMarkerTopic::default()
            .with_name("orders")
            .with_partition_indexes(vec![1].into())])
        .with_coordinator_epoch(coordinator_epoch)
        .with_transaction_version(2)]);
    let mut inter = client(b1.broker_addr);
    let code_at = |inter: &mut Client, version: i16| match inter
        .call(RequestBody::WriteTxnMarkers(stale.clone()), version)
        .unwrap()
    {
        ResponseBody::WriteTxnMarkers(r) => r.markers[0].topics[0].partitions[0].error_code,
        other => panic!("{other:?}"),
    };
    assert_eq!(code_at(&mut inter, 2), ErrorCode::INVALID_PRODUCER_EPOCH);
    assert_eq!(log_of(&mut c1, 1).len(), 3, "nothing appended");
    // At v1 the transaction version is lost on the wire and the lenient rule applies: the
    // stale marker would end the new transaction. This is why the sender must use v2.
    assert_eq!(code_at(&mut inter, 1), ErrorCode::NONE);
    assert_eq!(log_of(&mut c1, 1).len(), 4);
    // The brokers' threads go on running (and may still write there).
    let _ = std::fs::remove_dir_all(&dir);
}
