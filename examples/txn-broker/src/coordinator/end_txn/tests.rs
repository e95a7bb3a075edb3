use kafka_wire::Encode;

use super::*;
use crate::coordinator::state::TxnMeta;
use crate::coordinator::tests::*;
use crate::fencing::EXHAUSTED_EPOCH;
use crate::storage::{MemStorage, Storage};
use crate::txn_log::{LogRecord, TXN_LOG_FILE};

#[test]
fn end_txn_retry_after_completion_is_none() {
    let (mut c, storage) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("orders", 0)]);
    end(&mut c, "t", who, true, 3, 0);
    deliver_all(&mut c, 0);
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    let log_len = storage.read(TXN_LOG_FILE).unwrap().len();

    let r = end(&mut c, "t", who, true, 3, 1);
    assert_eq!(r.error_code, ErrorCode::NONE);
    // The other outcome is not a retry.
    assert_eq!(
        end(&mut c, "t", who, false, 3, 1).error_code,
        ErrorCode::INVALID_TXN_STATE
    );
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    assert!(c.poll_markers(&cluster(), 10).is_empty());
    assert_eq!(
        storage.read(TXN_LOG_FILE).unwrap().len(),
        log_len,
        "nothing written"
    );
}

#[test]
fn end_txn_without_partitions_completes_without_markers() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    assert_eq!(
        end(&mut c, "t", who, true, 3, 0).error_code,
        ErrorCode::NONE
    );
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    assert!(c.poll_markers(&cluster(), 0).is_empty());
    // Transaction version 2: the same, with the epoch bumped.
    let who2 = init(&mut c, "u", 0);
    let r = end(&mut c, "u", who2, false, 5, 0);
    assert_eq!(r.error_code, ErrorCode::NONE);
    assert_eq!((r.producer_id, r.producer_epoch), (who2.0, who2.1 + 1));
    assert_eq!(state(&c, "u"), TxnState::CompleteAbort);
    assert!(c.poll_markers(&cluster(), 0).is_empty());
}

#[test]
fn transaction_version_2_end_txn_bumps_the_epoch_and_returns_it() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("orders", 0), ("orders", 1)]);
    let r = end(&mut c, "t", who, true, 5, 0);
    assert_eq!(r.error_code, ErrorCode::NONE);
    let bumped = (who.0, who.1 + 1);
    assert_eq!((r.producer_id, r.producer_epoch), bumped);
    // The field is written at version 5 only.
    let bytes = r.encode_to_bytes(5).unwrap();
    assert!(bytes.len() > r.encode_to_bytes(4).unwrap().len());
    let s = c.state_of("t").unwrap();
    assert_eq!((s.producer_id, s.producer_epoch), bumped);
    assert_eq!(s.transaction_version, 2);

    let sends = c.poll_markers(&cluster(), 0);
    assert_eq!(sends.len(), 2);
    for s in &sends {
        assert_eq!(s.version(), 2);
        s.request.encode_to_bytes(s.version()).unwrap();
    }
    for (_, _, m) in carried(&sends) {
        assert_eq!((m.producer_id, m.producer_epoch), bumped);
        assert_eq!(m.transaction_version, 2);
    }
    // A retry with the pre-bump epoch while markers are out, then after completion.
    assert_eq!(
        end(&mut c, "t", who, true, 5, 0).error_code,
        ErrorCode::CONCURRENT_TRANSACTIONS
    );
    for s in &sends {
        c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 1);
    }
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    let r = end(&mut c, "t", who, true, 5, 2);
    assert_eq!(r.error_code, ErrorCode::NONE);
    assert_eq!((r.producer_id, r.producer_epoch), bumped);
    assert_eq!(
        end(&mut c, "t", who, false, 5, 2).error_code,
        ErrorCode::INVALID_TXN_STATE
    );

    // The next transaction runs with the bumped epoch; the old one is fenced.
    assert_eq!(
        add(&mut c, "t", who, &[("orders", 2)]),
        ErrorCode::PRODUCER_FENCED
    );
    assert_eq!(add(&mut c, "t", bumped, &[("orders", 2)]), ErrorCode::NONE);
    let r = end(&mut c, "t", bumped, false, 5, 3);
    assert_eq!(
        (ErrorCode::from(r.error_code), r.producer_epoch),
        (ErrorCode::NONE, bumped.1 + 1)
    );
    let got = carried(&c.poll_markers(&cluster(), 3));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].2.producer_epoch, bumped.1 + 1);
}

#[test]
fn transaction_version_2_exhausted_epoch_moves_to_a_new_producer_id() {
    let storage = MemStorage::default();
    let mut s = storage.clone();
    let mut meta = TxnMeta::new(7, 60_000, 0);
    meta.producer_epoch = EXHAUSTED_EPOCH - 1;
    meta.state = TxnState::Ongoing;
    meta.partitions.insert(tp("orders", 0));
    s.append(
        TXN_LOG_FILE,
        &LogRecord::Txn(meta.to_record("t")).to_frame().unwrap(),
    )
    .unwrap();
    let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
    let old = (7, EXHAUSTED_EPOCH - 1);
    let r = end(&mut c, "t", old, true, 5, 0);
    assert_eq!(r.error_code, ErrorCode::NONE);
    let next = (r.producer_id, r.producer_epoch);
    assert_ne!(next.0, 7);
    assert_eq!(next.1, 0);
    // Markers still carry the old producer id with the bumped epoch.
    let sends = c.poll_markers(&cluster(), 0);
    let got = carried(&sends);
    assert_eq!(
        (got[0].2.producer_id, got[0].2.producer_epoch),
        (7, EXHAUSTED_EPOCH)
    );
    // While they are out the client, already holding the new id, is told to wait.
    assert_eq!(
        add(&mut c, "t", next, &[("orders", 1)]),
        ErrorCode::CONCURRENT_TRANSACTIONS
    );
    for s in &sends {
        c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 1);
    }
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    let s = c.state_of("t").unwrap();
    assert_eq!((s.producer_id, s.producer_epoch), next);
    assert_eq!(add(&mut c, "t", next, &[("orders", 1)]), ErrorCode::NONE);
    assert_eq!(
        add(&mut c, "t", old, &[("orders", 1)]),
        ErrorCode::PRODUCER_FENCED
    );
}
