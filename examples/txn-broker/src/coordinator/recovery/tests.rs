use std::collections::BTreeSet;

use kafka_wire::ErrorCode;

use super::*;
use crate::coordinator::tests::*;
use crate::coordinator::TxnState;
use crate::storage::{MemStorage, Storage};
use crate::txn_log::{TxnMetadataRecord, TXN_LOG_FILE};

#[test]
fn restart_after_prepare_commit_requeues_markers_with_a_higher_coordinator_epoch() {
    let (mut c, storage) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("orders", 0), ("orders", 2)]);
    assert_eq!(
        end(&mut c, "t", who, true, 3, 5).error_code,
        ErrorCode::NONE
    );
    let before = c.poll_markers(&cluster(), 5);
    assert!(carried(&before)
        .iter()
        .all(|(_, _, m)| m.coordinator_epoch == 1));
    drop(c); // crash before any marker was acknowledged

    let mut c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
    assert_eq!(c.epoch(), 2);
    let s = c.state_of("t").unwrap();
    assert_eq!(s.state, TxnState::PrepareCommit);
    assert_eq!(s.pending_markers, vec![tp("orders", 0), tp("orders", 2)]);
    let sends = c.poll_markers(&cluster(), 0);
    let got = carried(&sends);
    assert_eq!(got.len(), 2);
    for (_, _, m) in &got {
        assert_eq!(m.coordinator_epoch, 2);
        assert!(m.transaction_result);
        assert_eq!((m.producer_id, m.producer_epoch), who);
    }
    for s in &sends {
        c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 1);
    }
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    drop(c);

    let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
    assert_eq!(c.epoch(), 3);
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    assert!(c.poll_markers(&cluster(), 0).is_empty());
}

#[test]
fn restart_after_complete_sends_nothing_and_keeps_the_producer() {
    let (mut c, storage) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("audit", 1)]);
    end(&mut c, "t", who, false, 3, 0);
    assert_eq!(deliver_all(&mut c, 0), 1);
    assert_eq!(state(&c, "t"), TxnState::CompleteAbort);
    drop(c);

    let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
    assert_eq!(c.epoch(), 2);
    let s = c.state_of("t").unwrap();
    assert_eq!(s.state, TxnState::CompleteAbort);
    assert!(s.pending_markers.is_empty());
    assert!(c.poll_markers(&cluster(), 1_000_000).is_empty());
    c.tick(1_000_000);
    assert!(c.poll_markers(&cluster(), 1_000_000).is_empty());
    // A new incarnation keeps the producer id and gets the next epoch.
    assert_eq!(init(&mut c, "t", 0), (who.0, who.1 + 1));
}

#[test]
fn producer_ids_are_unique_across_restarts() {
    let (mut c, storage) = fresh();
    let mut seen = BTreeSet::new();
    for _ in 0..3 {
        let r = c.init_producer_id(&init_req(None, 0), 4, 0);
        assert_eq!(
            (ErrorCode::from(r.error_code), r.producer_epoch),
            (ErrorCode::NONE, 0)
        );
        assert!(seen.insert(r.producer_id));
    }
    assert!(seen.insert(init(&mut c, "a", 0).0));
    drop(c);
    let mut c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
    for _ in 0..3 {
        assert!(seen.insert(c.init_producer_id(&init_req(None, 0), 0, 0).producer_id));
    }
    assert!(seen.insert(init(&mut c, "b", 0).0));
    drop(c);
    let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
    assert!(seen.insert(init(&mut c, "c", 0).0));
    assert_eq!(seen.len(), 9);
}

#[test]
fn torn_log_tail_is_cut_and_the_rest_replays() {
    let (mut c, storage) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("orders", 0), ("audit", 1)]);
    let ongoing = c.state_of("t").unwrap();
    drop(c);
    let whole = storage.read(TXN_LOG_FILE).unwrap().len();
    // A crash in the middle of the next append.
    let next = LogRecord::Txn(TxnMetadataRecord {
        transactional_id: "t".into(),
        state: 2,
        ..Default::default()
    })
    .to_frame()
    .unwrap();
    let mut s = storage.clone();
    s.append(TXN_LOG_FILE, &next[..next.len() / 2]).unwrap();

    let c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
    assert_eq!(c.state_of("t").unwrap(), ongoing);
    assert_eq!(c.epoch(), 2);
    let epoch_frame = LogRecord::CoordinatorEpoch(CoordinatorEpochRecord {
        coordinator_epoch: 2,
        ..Default::default()
    })
    .to_frame()
    .unwrap();
    assert_eq!(
        storage.read(TXN_LOG_FILE).unwrap().len(),
        whole + epoch_frame.len(),
        "torn frame cut, epoch record appended after the last whole frame"
    );
    drop(c);
    // And everything still replays after that.
    let c = Coordinator::load(0, Box::new(storage)).unwrap();
    assert_eq!(c.epoch(), 3);
    assert_eq!(c.state_of("t").unwrap(), ongoing);
}

#[test]
fn corrupt_log_is_an_error_not_a_panic() {
    let mut storage = MemStorage::default();
    let mut meta = TxnMeta::new(1, 1000, 0);
    meta.state = TxnState::Empty;
    let mut rec = meta.to_record("t");
    rec.state = 42;
    storage
        .append(TXN_LOG_FILE, &LogRecord::Txn(rec).to_frame().unwrap())
        .unwrap();
    let err = Coordinator::load(0, Box::new(storage)).err().unwrap();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);

    let mut storage = MemStorage::default();
    storage
        .append(TXN_LOG_FILE, &[0, 0, 0, 5, 0, 9, 0, 0, 0])
        .unwrap();
    assert!(Coordinator::load(0, Box::new(storage)).is_err());
}
