use super::*;

/// Producer 5 at epoch 3, bumped from epoch 2, with no transaction under way.
fn meta() -> TxnMeta {
    let mut meta = TxnMeta::new(5, 60_000, 0);
    meta.producer_epoch = 3;
    meta.prev_producer_id = 5;
    meta.prev_producer_epoch = 2;
    meta
}

fn code_of<T>(result: Result<T, Fenced>) -> Option<ErrorCode> {
    result.err().map(|f| f.code)
}

#[test]
fn the_fenced_error_depends_on_the_request_version() {
    assert_eq!(fenced_error(3, 4), ErrorCode::INVALID_PRODUCER_EPOCH);
    assert_eq!(fenced_error(4, 4), ErrorCode::PRODUCER_FENCED);
    assert_eq!(fenced_error(5, 2), ErrorCode::PRODUCER_FENCED);
}

#[test]
fn epochs_grow_until_the_producer_id_is_used_up() {
    assert_eq!(next_epoch(0), 1);
    assert_eq!(next_epoch(i16::MAX - 1), i16::MAX);
    assert_eq!(next_epoch(i16::MAX), i16::MAX);
    assert!(!epoch_exhausted(EXHAUSTED_EPOCH - 1));
    assert!(epoch_exhausted(EXHAUSTED_EPOCH));
    assert!(epoch_exhausted(i16::MAX));
}

#[test]
fn only_the_current_identity_passes_and_zombies_are_told_from_strangers() {
    let m = meta();
    let fenced = ErrorCode::PRODUCER_FENCED;
    assert_eq!(check_producer(&m, (5, 3), fenced), Ok(()));
    for zombie in [(5, 2), (5, 0), (5, 4), (5, i16::MAX)] {
        assert_eq!(code_of(check_producer(&m, zombie, fenced)), Some(fenced));
    }
    assert_eq!(
        code_of(check_producer(
            &m,
            (5, 2),
            ErrorCode::INVALID_PRODUCER_EPOCH
        )),
        Some(ErrorCode::INVALID_PRODUCER_EPOCH)
    );
    assert_eq!(
        code_of(check_producer(&m, (6, 3), fenced)),
        Some(ErrorCode::INVALID_PRODUCER_ID_MAPPING)
    );

    // Moving to a new producer id (an exhausted epoch): the client holds the next id, and the
    // old one, and the one before a bump, are still known and so fenced.
    let mut moved = meta();
    moved.next_producer_id = 9;
    assert_eq!(check_producer(&moved, (9, 0), fenced), Ok(()));
    assert_eq!(
        code_of(check_producer(&moved, (5, 3), fenced)),
        Some(fenced)
    );
    let mut after = TxnMeta::new(9, 60_000, 0);
    after.prev_producer_id = 5;
    after.prev_producer_epoch = EXHAUSTED_EPOCH;
    assert_eq!(
        code_of(check_producer(&after, (5, 1), fenced)),
        Some(fenced)
    );
    assert_eq!(
        code_of(check_producer(&after, (7, 0), fenced)),
        Some(ErrorCode::INVALID_PRODUCER_ID_MAPPING)
    );
}

#[test]
fn a_bump_is_retried_with_the_identity_before_it_and_never_inside_a_transaction() {
    let mut m = meta();
    assert!(is_retried_bump(&m, (5, 2)));
    assert!(!is_retried_bump(&m, (5, 1)));
    assert!(
        !is_retried_bump(&m, (5, 3)),
        "the current identity is no retry"
    );
    m.state = TxnState::Ongoing;
    assert!(!is_retried_bump(&m, (5, 2)));
}

#[test]
fn fencing_an_open_transaction_bumps_the_epoch_and_leaves_no_retry_to_the_fenced() {
    let mut m = meta();
    m.state = TxnState::Ongoing;
    fence_open_transaction(&mut m);
    assert_eq!(m.identity(), (5, 4));
    assert_eq!(m.prev_identity(), (-1, -1));
    // Once the abort is complete, neither retry rule takes the fenced epoch for a retry.
    m.state = TxnState::CompleteAbort;
    assert!(!is_retried_bump(&m, (5, 3)));
    assert!(!is_retried_end_txn(&m, (5, 3), 2));
    assert_eq!(
        code_of(check_producer(&m, (5, 3), ErrorCode::PRODUCER_FENCED)),
        Some(ErrorCode::PRODUCER_FENCED)
    );
}

#[test]
fn end_txn_is_retried_only_with_version_2_once_the_transaction_is_decided() {
    let mut m = meta();
    for (state, retried) in [
        (TxnState::Empty, false),
        (TxnState::Ongoing, false),
        (TxnState::PrepareCommit, true),
        (TxnState::PrepareAbort, true),
        (TxnState::CompleteCommit, true),
        (TxnState::CompleteAbort, true),
    ] {
        m.state = state;
        assert_eq!(is_retried_end_txn(&m, (5, 2), 2), retried, "{state:?}");
        assert!(!is_retried_end_txn(&m, (5, 2), 1), "{state:?}");
        assert!(!is_retried_end_txn(&m, (5, 1), 2), "{state:?}");
    }
}

#[test]
fn end_txn_version_5_is_transaction_version_2() {
    assert_eq!(transaction_version(0), 1);
    assert_eq!(transaction_version(4), 1);
    assert_eq!(transaction_version(5), 2);
}

#[test]
fn nothing_new_begins_while_markers_are_out() {
    for state in [TxnState::PrepareCommit, TxnState::PrepareAbort] {
        assert_eq!(
            code_of(check_markers_delivered(state)),
            Some(ErrorCode::CONCURRENT_TRANSACTIONS)
        );
    }
    for state in [
        TxnState::Empty,
        TxnState::Ongoing,
        TxnState::CompleteCommit,
        TxnState::CompleteAbort,
    ] {
        assert_eq!(check_markers_delivered(state), Ok(()));
    }
}

#[test]
fn version_2_markers_travel_at_write_txn_markers_v2() {
    let marker = |transaction_version| {
        WritableTxnMarker::default().with_transaction_version(transaction_version)
    };
    assert_eq!(write_txn_markers_version(&[]), 1);
    assert_eq!(write_txn_markers_version(&[marker(0), marker(1)]), 1);
    assert_eq!(write_txn_markers_version(&[marker(1), marker(2)]), 2);
}

#[test]
fn leader_answers_to_a_marker() {
    assert_eq!(marker_answer(ErrorCode::NONE), MarkerAnswer::Acknowledged);
    assert_eq!(
        marker_answer(ErrorCode::INVALID_PRODUCER_EPOCH),
        MarkerAnswer::Superseded
    );
    assert_eq!(
        marker_answer(ErrorCode::TRANSACTION_COORDINATOR_FENCED),
        MarkerAnswer::Deposed
    );
    for code in [
        ErrorCode::NOT_LEADER_OR_FOLLOWER,
        ErrorCode::KAFKA_STORAGE_ERROR,
        ErrorCode::new(30_000),
    ] {
        assert_eq!(marker_answer(code), MarkerAnswer::Retry, "{code:?}");
    }
}

#[test]
fn markers_come_only_from_the_inter_broker_listener() {
    assert_eq!(check_marker_listener(Listener::InterBroker), Ok(()));
    assert_eq!(
        code_of(check_marker_listener(Listener::Client)),
        Some(ErrorCode::CLUSTER_AUTHORIZATION_FAILED)
    );
}

#[test]
fn data_of_an_older_epoch_is_refused() {
    assert_eq!(
        code_of(check_data_epoch(1, 2)),
        Some(ErrorCode::INVALID_PRODUCER_EPOCH)
    );
    assert_eq!(check_data_epoch(2, 2), Ok(()));
    assert_eq!(check_data_epoch(3, 2), Ok(()));
}

fn marker(producer_epoch: i16, coordinator_epoch: i32, transaction_version: i8) -> MarkerEpochs {
    MarkerEpochs {
        producer_epoch,
        coordinator_epoch,
        transaction_version,
    }
}

fn known(epoch: i16, coordinator_epoch: i32, open_epoch: Option<i16>) -> Option<ProducerAtLeader> {
    Some(ProducerAtLeader {
        epoch,
        coordinator_epoch,
        open_epoch,
    })
}

#[test]
fn an_older_coordinator_is_fenced_before_anything_else() {
    // Older in both epochs: the coordinator epoch decides the answer.
    let got = judge_marker(marker(1, 4, 1), known(2, 5, Some(2)));
    assert_eq!(
        code_of(got),
        Some(ErrorCode::TRANSACTION_COORDINATOR_FENCED)
    );
    // The same coordinator epoch, or a newer one, passes this rule.
    assert_eq!(
        judge_marker(marker(2, 5, 1), known(2, 5, Some(2))),
        Ok(MarkerAction::Write)
    );
    assert_eq!(
        judge_marker(marker(2, 6, 1), known(2, 5, Some(2))),
        Ok(MarkerAction::Write)
    );
}

#[test]
fn a_marker_of_an_older_epoch_is_refused() {
    for open in [None, Some(2)] {
        assert_eq!(
            code_of(judge_marker(marker(1, 5, 1), known(2, 5, open))),
            Some(ErrorCode::INVALID_PRODUCER_EPOCH)
        );
    }
}

#[test]
fn with_nothing_open_a_marker_is_a_no_op_unless_it_records_a_newer_epoch() {
    assert_eq!(
        judge_marker(marker(2, 5, 1), known(2, 5, None)),
        Ok(MarkerAction::NoOp)
    );
    assert_eq!(
        judge_marker(marker(3, 5, 1), known(2, 5, None)),
        Ok(MarkerAction::Write)
    );
    // A producer that never wrote here: epoch 0 fences nothing, a later epoch does.
    assert_eq!(judge_marker(marker(0, 1, 1), None), Ok(MarkerAction::NoOp));
    assert_eq!(judge_marker(marker(1, 1, 2), None), Ok(MarkerAction::Write));
}

#[test]
fn transaction_version_2_markers_need_an_epoch_above_the_open_data() {
    // Version 1: the marker's epoch equals its data's.
    assert_eq!(
        judge_marker(marker(3, 5, 1), known(3, 5, Some(3))),
        Ok(MarkerAction::Write)
    );
    // Version 2: the same marker is a late copy of the previous transaction's.
    assert_eq!(
        code_of(judge_marker(marker(3, 5, 2), known(3, 5, Some(3)))),
        Some(ErrorCode::INVALID_PRODUCER_EPOCH)
    );
    assert_eq!(
        judge_marker(marker(4, 5, 2), known(3, 5, Some(3))),
        Ok(MarkerAction::Write)
    );
}
