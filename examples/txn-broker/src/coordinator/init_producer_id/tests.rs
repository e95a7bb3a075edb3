use super::*;
use crate::coordinator::tests::*;
use crate::fencing::EXHAUSTED_EPOCH;
use crate::storage::{MemStorage, Storage};
use crate::txn_log::{LogRecord, TXN_LOG_FILE};

#[test]
fn init_producer_id_during_a_transaction_bumps_aborts_and_fences_the_old_epoch() {
    let (mut c, _) = fresh();
    let old = init(&mut c, "t", 0);
    assert_eq!(
        add(&mut c, "t", old, &[("orders", 1), ("audit", 0)]),
        ErrorCode::NONE
    );

    // A new incarnation of the producer.
    let r = c.init_producer_id(&init_req(Some("t"), 60_000), 4, 10);
    assert_eq!(r.error_code, ErrorCode::CONCURRENT_TRANSACTIONS);
    let s = c.state_of("t").unwrap();
    assert_eq!(s.state, TxnState::PrepareAbort);
    assert_eq!((s.producer_id, s.producer_epoch), (old.0, old.1 + 1));

    // The old incarnation is fenced, with the error its request version knows.
    assert_eq!(
        add(&mut c, "t", old, &[("orders", 2)]),
        ErrorCode::PRODUCER_FENCED
    );
    assert_eq!(
        add_v(&mut c, "t", old, &[("orders", 2)], 1, 10)[0].1,
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
    assert_eq!(
        end(&mut c, "t", old, true, 3, 10).error_code,
        ErrorCode::PRODUCER_FENCED
    );
    assert_eq!(
        end(&mut c, "t", old, true, 1, 10).error_code,
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
    // A producer id that was never this transactional id's.
    assert_eq!(
        end(&mut c, "t", (old.0 + 77, 0), true, 3, 10).error_code,
        ErrorCode::INVALID_PRODUCER_ID_MAPPING
    );
    // Still aborting: the new incarnation's retry waits.
    let r = c.init_producer_id(&init_req(Some("t"), 60_000), 4, 11);
    assert_eq!(r.error_code, ErrorCode::CONCURRENT_TRANSACTIONS);

    let sends = c.poll_markers(&cluster(), 11);
    let got = carried(&sends);
    assert_eq!(got.len(), 2);
    for (_, _, m) in &got {
        assert!(!m.transaction_result, "abort markers");
        assert_eq!((m.producer_id, m.producer_epoch), (old.0, old.1 + 1));
    }
    for s in &sends {
        c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 12);
    }
    assert_eq!(state(&c, "t"), TxnState::CompleteAbort);

    let new = init(&mut c, "t", 13);
    assert_eq!(new, (old.0, old.1 + 2));
    assert_eq!(state(&c, "t"), TxnState::Empty);
    assert_eq!(add(&mut c, "t", new, &[("orders", 0)]), ErrorCode::NONE);
    assert_eq!(
        add(&mut c, "t", (old.0, old.1 + 1), &[("orders", 0)]),
        ErrorCode::PRODUCER_FENCED
    );
}

/// Regression (found by the simulation): the fencing abort recorded the fenced epoch as the
/// "previous" one, so the zombie's EndTxn v5 (abort) passed for a retry of an EndTxn and was
/// answered NONE with the current epoch, and its InitProducerId v4 naming itself was taken
/// for a retry of a bump: either way the fenced incarnation got the live epoch back.
#[test]
fn the_fenced_incarnation_is_not_taken_for_a_retry() {
    let (mut c, _) = fresh();
    let old = init(&mut c, "t", 0);
    assert_eq!(add(&mut c, "t", old, &[("orders", 1)]), ErrorCode::NONE);
    let r = c.init_producer_id(&init_req(Some("t"), 60_000), 4, 10);
    assert_eq!(r.error_code, ErrorCode::CONCURRENT_TRANSACTIONS);
    let zombie_bump = |c: &mut Coordinator| {
        let req = (init_req(Some("t"), 60_000))
            .with_producer_id(old.0)
            .with_producer_epoch(old.1);
        c.init_producer_id(&req, 4, 11)
    };
    // While the abort is out.
    let r = end(&mut c, "t", old, false, 5, 11);
    assert_eq!(
        (ErrorCode::from(r.error_code), r.producer_epoch),
        (ErrorCode::PRODUCER_FENCED, -1)
    );
    for s in &c.poll_markers(&cluster(), 11) {
        c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 12);
    }
    assert_eq!(state(&c, "t"), TxnState::CompleteAbort);
    // After it completed, before the new incarnation's InitProducerId went through.
    let r = end(&mut c, "t", old, false, 5, 13);
    assert_eq!(
        (ErrorCode::from(r.error_code), r.producer_epoch),
        (ErrorCode::PRODUCER_FENCED, -1)
    );
    let r = zombie_bump(&mut c);
    assert_eq!(
        (ErrorCode::from(r.error_code), r.producer_epoch),
        (ErrorCode::PRODUCER_FENCED, -1)
    );
    // The new incarnation still gets its epoch.
    assert_eq!(init(&mut c, "t", 14), (old.0, old.1 + 2));
}

#[test]
fn exhausted_epoch_gets_a_new_producer_id_at_init() {
    let storage = MemStorage::default();
    let mut s = storage.clone();
    let mut meta = TxnMeta::new(5, 60_000, 0);
    meta.producer_epoch = EXHAUSTED_EPOCH;
    meta.state = TxnState::CompleteCommit;
    s.append(
        TXN_LOG_FILE,
        &LogRecord::Txn(meta.to_record("t")).to_frame().unwrap(),
    )
    .unwrap();
    let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
    let (pid, epoch) = init(&mut c, "t", 0);
    assert!(pid > 5);
    assert_eq!(epoch, 0);
    // The old producer id is fenced, not unknown.
    assert_eq!(
        add(&mut c, "t", (5, EXHAUSTED_EPOCH), &[("orders", 0)]),
        ErrorCode::PRODUCER_FENCED
    );
    // One below the limit just bumps.
    assert_eq!(init(&mut c, "t", 0), (pid, 1));
}

#[test]
fn init_producer_id_refuses_bad_timeouts_and_empty_ids() {
    let (mut c, _) = fresh();
    for timeout in [0, -1, MAX_TRANSACTION_TIMEOUT_MS + 1] {
        let r = c.init_producer_id(&init_req(Some("t"), timeout), 4, 0);
        assert_eq!(r.error_code, ErrorCode::INVALID_TRANSACTION_TIMEOUT);
    }
    assert!(c.state_of("t").is_none());
    let r = c.init_producer_id(&init_req(Some(""), 1000), 4, 0);
    assert_eq!(r.error_code, ErrorCode::INVALID_REQUEST);
}

#[test]
fn init_producer_id_v3_bump_by_a_running_producer_and_its_retry() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    let named = (init_req(Some("t"), 60_000))
        .with_producer_id(who.0)
        .with_producer_epoch(who.1);
    let r = c.init_producer_id(&named, 4, 1);
    assert_eq!(
        (
            ErrorCode::from(r.error_code),
            r.producer_id,
            r.producer_epoch
        ),
        (ErrorCode::NONE, who.0, 1)
    );
    // The same request again (its answer was lost): the same answer, no second bump.
    let r = c.init_producer_id(&named, 4, 2);
    assert_eq!(
        (
            ErrorCode::from(r.error_code),
            r.producer_id,
            r.producer_epoch
        ),
        (ErrorCode::NONE, who.0, 1)
    );
    // An epoch that is neither current nor the one before: fenced.
    let stale = named.clone().with_producer_epoch(7);
    assert_eq!(
        c.init_producer_id(&stale, 4, 3).error_code,
        ErrorCode::PRODUCER_FENCED
    );
    assert_eq!(
        c.init_producer_id(&stale, 3, 3).error_code,
        ErrorCode::INVALID_PRODUCER_EPOCH
    );
}
