use super::*;
use crate::coordinator::tests::*;

#[test]
fn markers_are_retried_after_a_failed_send_and_not_leader() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    assert_eq!(add(&mut c, "t", who, &[("orders", 0)]), ErrorCode::NONE);
    assert_eq!(
        end(&mut c, "t", who, true, 3, 1_000).error_code,
        ErrorCode::NONE
    );
    let mut cl = cluster();

    let first = c.poll_markers(&cl, 1_000);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].broker, 0);
    c.on_marker_result(first[0].id, None, 1_000);
    assert_eq!(state(&c, "t"), TxnState::PrepareCommit);
    // The first backoff.
    assert!(c.poll_markers(&cl, 1_049).is_empty());
    let second = c.poll_markers(&cl, 1_050);
    assert_eq!(second.len(), 1);
    assert_ne!(second[0].id, first[0].id);
    // A late answer to the first send changes nothing.
    c.on_marker_result(
        first[0].id,
        Some(&answer(&first[0], |_| ErrorCode::NONE)),
        1_050,
    );
    assert_eq!(state(&c, "t"), TxnState::PrepareCommit);

    c.on_marker_result(
        second[0].id,
        Some(&answer(&second[0], |_| ErrorCode::NOT_LEADER_OR_FOLLOWER)),
        1_050,
    );
    // The backoff doubled. Meanwhile the partition moves to broker 2.
    assert!(cl.move_leader(&tp("orders", 0), 2));
    assert!(c.poll_markers(&cl, 1_149).is_empty());
    let third = c.poll_markers(&cl, 1_150);
    assert_eq!(third.len(), 1);
    assert_eq!(third[0].broker, 2, "leader looked up again at each send");

    // An answer that leaves the partition out is a failure too (the backoff doubles again).
    c.on_marker_result(
        third[0].id,
        Some(&WriteTxnMarkersResponse::default()),
        1_150,
    );
    assert!(c.poll_markers(&cl, 1_349).is_empty());
    let fourth = c.poll_markers(&cl, 1_350);
    assert_eq!(fourth.len(), 1);
    c.on_marker_result(
        fourth[0].id,
        Some(&answer(&fourth[0], |_| ErrorCode::NONE)),
        1_350,
    );
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
}

#[test]
fn backoff_doubles_up_to_two_seconds() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("orders", 1)]);
    end(&mut c, "t", who, false, 3, 0);
    let mut now = 0;
    let first = c.poll_markers(&cluster(), now);
    assert_eq!(first.len(), 1);
    c.on_marker_result(first[0].id, None, now);
    for wait in [50, 100, 200, 400, 800, 1_600, 2_000, 2_000] {
        assert!(
            c.poll_markers(&cluster(), now + wait - 1).is_empty(),
            "before {wait}"
        );
        let sends = c.poll_markers(&cluster(), now + wait);
        assert_eq!(sends.len(), 1, "after {wait}");
        now += wait;
        c.on_marker_result(sends[0].id, None, now);
    }
    assert_eq!(state(&c, "t"), TxnState::PrepareAbort);
}

#[test]
fn invalid_producer_epoch_from_a_leader_counts_as_acknowledged() {
    let (mut c, _) = fresh();
    let who = init(&mut c, "t", 0);
    add(&mut c, "t", who, &[("orders", 0), ("orders", 1)]);
    end(&mut c, "t", who, true, 3, 0);
    let sends = c.poll_markers(&cluster(), 0);
    for s in &sends {
        let code = if s.broker == 0 {
            ErrorCode::INVALID_PRODUCER_EPOCH
        } else {
            ErrorCode::NONE
        };
        c.on_marker_result(s.id, Some(&answer(s, |_| code)), 0);
    }
    assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
}

#[test]
fn coordinator_fenced_answer_stops_sending_for_that_transaction() {
    // t at brokers 0 and 1, u at broker 1: both markers share the request to broker 1.
    let (mut c, _) = fresh();
    let t = init(&mut c, "t", 0);
    let u = init(&mut c, "u", 0);
    add(&mut c, "t", t, &[("orders", 0), ("orders", 1)]);
    add(&mut c, "u", u, &[("orders", 1)]);
    end(&mut c, "t", t, true, 3, 0);
    end(&mut c, "u", u, false, 3, 0);
    let sends = c.poll_markers(&cluster(), 0);
    let to1 = sends.iter().find(|s| s.broker == 1).unwrap();
    assert_eq!(to1.request.markers.len(), 2);
    let mut resp = answer(to1, |_| ErrorCode::NONE);
    for m in &mut resp.markers {
        if m.producer_id == t.0 {
            m.topics[0].partitions[0].error_code = ErrorCode::TRANSACTION_COORDINATOR_FENCED.code();
        }
    }
    c.on_marker_result(to1.id, Some(&resp), 0);
    let to0 = sends.iter().find(|s| s.broker == 0).unwrap();
    c.on_marker_result(to0.id, None, 0);
    let s = c.state_of("t").unwrap();
    assert!(s.deposed);
    assert_eq!(s.state, TxnState::PrepareCommit, "never completed here");
    assert!(s.pending_markers.is_empty());
    assert_eq!(state(&c, "u"), TxnState::CompleteAbort);
    assert!(c.poll_markers(&cluster(), 1_000_000).is_empty());
    c.tick(1_000_000);
    assert!(c.poll_markers(&cluster(), 2_000_000).is_empty());
}
