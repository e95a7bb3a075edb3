use super::*;
use crate::coordinator::tests::tp;
use crate::txn_log::{parse_frames, LogRecord};

#[test]
fn txn_metadata_survives_the_log_exactly() {
    let mut meta = TxnMeta::new(42, 30_000, 17);
    meta.producer_epoch = 3;
    meta.prev_producer_id = 42;
    meta.prev_producer_epoch = 2;
    meta.state = TxnState::PrepareAbort;
    meta.partitions = [tp("b", 1), tp("a", 0), tp("b", 0)].into_iter().collect();
    meta.transaction_version = 2;
    let rec = meta.to_record("x");
    assert_eq!(rec.topics.len(), 2, "grouped by topic");
    let frame = LogRecord::Txn(rec).to_frame().unwrap();
    let (records, used) = parse_frames(&frame).unwrap();
    assert_eq!(used, frame.len());
    let LogRecord::Txn(back) = &records[0] else {
        panic!("not a txn record: {records:?}");
    };
    assert_eq!(TxnMeta::from_record(back).unwrap(), meta);
}
