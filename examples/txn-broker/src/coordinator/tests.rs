//! Helpers the coordinator's tests share, and whole transactions from InitProducerId to
//! Complete; the tests of each request, of phase 2 and of recovery sit beside their code.

use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use kafka_wire::messages::write_txn_markers_request::WritableTxnMarker;
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, EndTxnRequest, EndTxnResponse, InitProducerIdRequest,
    WriteTxnMarkersResponse,
};
use kafka_wire::{ErrorCode, KafkaString};

use super::*;
use crate::cluster::{BrokerId, Cluster};
use crate::storage::MemStorage;

/// orders-0, audit-0 at broker 0; orders-1, audit-1 at broker 1; orders-2 at broker 2.
pub(super) fn cluster() -> Cluster {
    Cluster::new("127.0.0.1", 9092, 3, &[("orders", 3), ("audit", 2)])
}

pub(super) fn tp(topic: &str, partition: i32) -> TopicPartition {
    TopicPartition::new(topic, partition)
}

pub(super) fn fresh() -> (Coordinator, MemStorage) {
    let storage = MemStorage::default();
    let c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
    (c, storage)
}

pub(super) fn init_req(id: Option<&str>, timeout_ms: i32) -> InitProducerIdRequest {
    InitProducerIdRequest::default()
        .with_transactional_id(id.map(|s| KafkaString::from(s.to_owned())))
        .with_transaction_timeout_ms(timeout_ms)
}

pub(super) fn init(c: &mut Coordinator, id: &str, now_ms: u64) -> (i64, i16) {
    let r = c.init_producer_id(&init_req(Some(id), 60_000), 4, now_ms);
    assert_eq!(r.error_code, ErrorCode::NONE, "InitProducerId {id}");
    (r.producer_id, r.producer_epoch)
}

pub(super) fn topics_of(parts: &[(&str, i32)]) -> Vec<AddPartitionsToTxnTopic> {
    let mut topics: Vec<(&str, Vec<i32>)> = Vec::new();
    for &(topic, p) in parts {
        match topics.iter_mut().find(|(name, _)| *name == topic) {
            Some((_, partitions)) => partitions.push(p),
            None => topics.push((topic, vec![p])),
        }
    }
    topics
        .into_iter()
        .map(|(name, partitions)| {
            AddPartitionsToTxnTopic::default()
                .with_name(KafkaString::from(name.to_owned()))
                .with_partitions(partitions.into())
        })
        .collect()
}

/// AddPartitionsToTxn (v0-3 form); the error code of every partition, in request order.
pub(super) fn add_v(
    c: &mut Coordinator,
    id: &str,
    who: (i64, i16),
    parts: &[(&str, i32)],
    version: i16,
    now_ms: u64,
) -> Vec<(TopicPartition, ErrorCode)> {
    let req = AddPartitionsToTxnRequest::default()
        .with_v3_and_below_transactional_id(KafkaString::from(id.to_owned()))
        .with_v3_and_below_producer_id(who.0)
        .with_v3_and_below_producer_epoch(who.1)
        .with_v3_and_below_topics(topics_of(parts));
    let resp = c.add_partitions_to_txn(&req, version, &cluster(), now_ms);
    resp.results_by_topic_v3_and_below
        .iter()
        .flat_map(|t| {
            t.results_by_partition.iter().map(|p| {
                (
                    tp(&t.name, p.partition_index),
                    ErrorCode::from(p.partition_error_code),
                )
            })
        })
        .collect()
}

pub(super) fn add(
    c: &mut Coordinator,
    id: &str,
    who: (i64, i16),
    parts: &[(&str, i32)],
) -> ErrorCode {
    let codes = add_v(c, id, who, parts, 3, 0);
    assert_eq!(codes.len(), parts.len());
    let first = codes[0].1;
    assert!(codes.iter().all(|(_, code)| *code == first), "{codes:?}");
    first
}

pub(super) fn end(
    c: &mut Coordinator,
    id: &str,
    who: (i64, i16),
    commit: bool,
    version: i16,
    now_ms: u64,
) -> EndTxnResponse {
    let req = EndTxnRequest::default()
        .with_transactional_id(KafkaString::from(id.to_owned()))
        .with_producer_id(who.0)
        .with_producer_epoch(who.1)
        .with_committed(commit);
    c.end_txn(&req, version, now_ms)
}

/// A leader's answer to `send`, with the error code `code` gives each partition.
pub(super) fn answer(
    send: &MarkerSend,
    code: impl Fn(&TopicPartition) -> ErrorCode,
) -> WriteTxnMarkersResponse {
    crate::leader::answer_markers(&send.request, |_, tp| code(tp))
}

/// Every (broker, partition) a list of sends carries, with its marker.
pub(super) fn carried(sends: &[MarkerSend]) -> Vec<(BrokerId, TopicPartition, WritableTxnMarker)> {
    let mut out = Vec::new();
    for s in sends {
        for m in &s.request.markers {
            for t in &m.topics {
                for p in &t.partition_indexes {
                    out.push((s.broker, tp(&t.name, p), m.clone()));
                }
            }
        }
    }
    out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    out
}

pub(super) fn state(c: &Coordinator, id: &str) -> TxnState {
    c.state_of(id).unwrap().state
}

/// Answers every send NONE until nothing is due; the number of sends.
pub(super) fn deliver_all(c: &mut Coordinator, now_ms: u64) -> usize {
    let mut count = 0;
    loop {
        let sends = c.poll_markers(&cluster(), now_ms);
        if sends.is_empty() {
            return count;
        }
        for s in &sends {
            c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), now_ms);
        }
        count += sends.len();
    }
}

fn finish_flow(commit: bool) {
    // Runs the trace's formatting too (the output is captured by the test harness).
    crate::trace::set_verbose(true);
    let (mut c, _) = fresh();
    assert_eq!(c.epoch(), 1);
    let who = init(&mut c, "t1", 0);
    assert_eq!(who.1, 0);
    assert_eq!(state(&c, "t1"), TxnState::Empty);
    assert_eq!(
        add(&mut c, "t1", who, &[("orders", 0), ("orders", 1)]),
        ErrorCode::NONE
    );
    assert_eq!(
        add(&mut c, "t1", who, &[("audit", 0), ("orders", 0)]),
        ErrorCode::NONE
    );
    let s = c.state_of("t1").unwrap();
    assert_eq!(s.state, TxnState::Ongoing);
    assert_eq!(
        s.partitions,
        vec![tp("audit", 0), tp("orders", 0), tp("orders", 1)]
    );

    let r = end(&mut c, "t1", who, commit, 3, 10);
    assert_eq!(r.error_code, ErrorCode::NONE);
    let prepared = if commit {
        TxnState::PrepareCommit
    } else {
        TxnState::PrepareAbort
    };
    assert_eq!(state(&c, "t1"), prepared);

    let sends = c.poll_markers(&cluster(), 10);
    assert_eq!(sends.len(), 2, "one request per leader");
    assert!(sends.iter().all(|s| s.version() == 1));
    let got = carried(&sends);
    let places: Vec<(BrokerId, TopicPartition)> =
        got.iter().map(|(b, tp, _)| (*b, tp.clone())).collect();
    assert_eq!(
        places,
        vec![
            (0, tp("audit", 0)),
            (0, tp("orders", 0)),
            (1, tp("orders", 1))
        ]
    );
    for (_, _, m) in &got {
        assert_eq!((m.producer_id, m.producer_epoch), who);
        assert_eq!(m.transaction_result, commit);
        assert_eq!(m.coordinator_epoch, 1);
        assert_eq!(m.transaction_version, 1);
    }
    // Nothing more is due while the sends are out.
    assert!(c.poll_markers(&cluster(), 5_000).is_empty());

    let to0 = sends.iter().find(|s| s.broker == 0).unwrap();
    let to1 = sends.iter().find(|s| s.broker == 1).unwrap();
    c.on_marker_result(to0.id, Some(&answer(to0, |_| ErrorCode::NONE)), 20);
    let s = c.state_of("t1").unwrap();
    assert_eq!(s.state, prepared);
    assert_eq!(s.pending_markers, vec![tp("orders", 1)]);
    c.on_marker_result(to1.id, Some(&answer(to1, |_| ErrorCode::NONE)), 20);
    let s = c.state_of("t1").unwrap();
    let complete = if commit {
        TxnState::CompleteCommit
    } else {
        TxnState::CompleteAbort
    };
    assert_eq!(s.state, complete);
    assert!(s.partitions.is_empty() && s.pending_markers.is_empty());
    assert_eq!((s.producer_id, s.producer_epoch), who);
    assert!(c.poll_markers(&cluster(), 100_000).is_empty());

    // The same producer goes on with a new transaction.
    assert_eq!(add(&mut c, "t1", who, &[("orders", 2)]), ErrorCode::NONE);
    assert_eq!(state(&c, "t1"), TxnState::Ongoing);
    assert_eq!(c.state_of("t1").unwrap().partitions, vec![tp("orders", 2)]);
}

#[test]
fn commit_flow_sends_markers_to_each_leader_and_completes() {
    finish_flow(true);
}

#[test]
fn abort_flow_sends_abort_markers_and_completes() {
    finish_flow(false);
}

#[test]
fn prepare_states_answer_concurrent_transactions() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("orders", 0)]);
    assert_eq!(
        end(&mut c, "t", who, true, 3, 0).error_code,
        ErrorCode::NONE
    );
    assert_eq!(
        add(&mut c, "t", who, &[("orders", 1)]),
        ErrorCode::CONCURRENT_TRANSACTIONS
    );
    assert_eq!(
        end(&mut c, "t", who, true, 3, 0).error_code,
        ErrorCode::CONCURRENT_TRANSACTIONS
    );
    assert_eq!(
        end(&mut c, "t", who, false, 3, 0).error_code,
        ErrorCode::CONCURRENT_TRANSACTIONS
    );
    assert_eq!(
        c.init_producer_id(&init_req(Some("t"), 60_000), 4, 0)
            .error_code,
        ErrorCode::CONCURRENT_TRANSACTIONS
    );
    // Nothing of that changed the decision.
    let s = c.state_of("t").unwrap();
    assert_eq!(s.state, TxnState::PrepareCommit);
    assert_eq!(s.partitions, vec![tp("orders", 0)]);
    assert_eq!((s.producer_id, s.producer_epoch), who);
}
