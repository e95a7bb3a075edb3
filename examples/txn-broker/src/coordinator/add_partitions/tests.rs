use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTransaction;
use kafka_wire::{Encode, KafkaString};

use super::*;
use crate::coordinator::tests::*;

#[test]
fn unknown_partitions_fail_the_whole_request() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    let codes = add_v(
        &mut c,
        "t",
        who,
        &[("orders", 0), ("orders", 7), ("nosuch", 0)],
        3,
        0,
    );
    assert_eq!(
        codes,
        vec![
            (tp("orders", 0), ErrorCode::OPERATION_NOT_ATTEMPTED),
            (tp("orders", 7), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
            (tp("nosuch", 0), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
        ]
    );
    let s = c.state_of("t").unwrap();
    assert_eq!(s.state, TxnState::Empty);
    assert!(s.partitions.is_empty());
    // Unknown transactional id.
    assert_eq!(
        add(&mut c, "zz", who, &[("orders", 0)]),
        ErrorCode::INVALID_PRODUCER_ID_MAPPING
    );
}

#[test]
fn batched_add_partitions_v4_handles_each_transaction() {
    let (mut c, _) = fresh();
    let a = init(&mut c, "a", 0);
    let b = init(&mut c, "b", 0);
    assert_eq!(add(&mut c, "b", b, &[("audit", 1)]), ErrorCode::NONE);
    let txn = |id: &str, who: (i64, i16), verify_only: bool, parts: &[(&str, i32)]| {
        AddPartitionsToTxnTransaction::default()
            .with_transactional_id(KafkaString::from(id.to_owned()))
            .with_producer_id(who.0)
            .with_producer_epoch(who.1)
            .with_verify_only(verify_only)
            .with_topics(topics_of(parts))
    };
    let req = AddPartitionsToTxnRequest::default().with_transactions(vec![
        txn("a", a, false, &[("orders", 0)]),
        txn("b", b, true, &[("audit", 1), ("audit", 0)]),
        txn("a", (a.0, a.1 + 3), false, &[("orders", 1)]),
    ]);
    let resp = c.add_partitions_to_txn(&req, 4, &cluster(), 0);
    resp.encode_to_bytes(4).unwrap();
    let codes: Vec<Vec<i16>> = resp
        .results_by_transaction
        .iter()
        .map(|t| {
            t.topic_results
                .iter()
                .flat_map(|r| {
                    r.results_by_partition
                        .iter()
                        .map(|p| p.partition_error_code)
                })
                .collect()
        })
        .collect();
    assert_eq!(
        codes,
        vec![
            vec![ErrorCode::NONE],
            vec![ErrorCode::NONE, ErrorCode::INVALID_TXN_STATE],
            vec![ErrorCode::PRODUCER_FENCED]
        ]
    );
    assert_eq!(c.state_of("a").unwrap().partitions, vec![tp("orders", 0)]);
    assert_eq!(c.state_of("b").unwrap().partitions, vec![tp("audit", 1)]);
}
