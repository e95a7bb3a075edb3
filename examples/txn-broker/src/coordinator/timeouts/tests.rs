use kafka_wire::ErrorCode;

use super::*;
use crate::coordinator::tests::*;

#[test]
fn timed_out_transaction_is_aborted_with_an_epoch_bump() {
    let (mut c, _) = fresh();
    let r = c.init_producer_id(&init_req(Some("t"), 1_000), 4, 0);
    let who = (r.producer_id, r.producer_epoch);
    assert_eq!(
        add_v(&mut c, "t", who, &[("orders", 2)], 3, 100)[0].1,
        ErrorCode::NONE
    );
    c.tick(1_099);
    assert_eq!(state(&c, "t"), TxnState::Ongoing);
    c.tick(1_100);
    let s = c.state_of("t").unwrap();
    assert_eq!(s.state, TxnState::PrepareAbort);
    assert_eq!(s.producer_epoch, who.1 + 1);
    assert_eq!(
        end(&mut c, "t", who, true, 3, 1_101).error_code,
        ErrorCode::PRODUCER_FENCED
    );
    let sends = c.poll_markers(&cluster(), 1_101);
    let got = carried(&sends);
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].0, got[0].1.clone()), (2, tp("orders", 2)));
    assert!(!got[0].2.transaction_result);
    assert_eq!(got[0].2.producer_epoch, who.1 + 1);
    c.on_marker_result(
        sends[0].id,
        Some(&answer(&sends[0], |_| ErrorCode::NONE)),
        1_102,
    );
    assert_eq!(state(&c, "t"), TxnState::CompleteAbort);
}
