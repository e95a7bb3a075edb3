use std::time::{Duration, Instant};

use super::*;
use crate::server::tests::*;
use crate::server::{start, Options};

#[test]
fn an_empty_fetch_waits_for_max_wait_ms_and_data_is_answered_at_once() {
    let (dir, _) = setup("fetchwait", 1, 0);
    let server = start(Options::new(&dir, 0)).unwrap();
    let mut c = client(server.client_addr);
    let t = Instant::now();
    let empty = fetch_v12(&mut c, 0, 0, 300);
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(empty.responses[0].partitions[0].error_code, ErrorCode::NONE);
    // A fetch that cannot succeed (no such partition) is answered without waiting.
    let t = Instant::now();
    let bad = fetch_v12(&mut c, 7, 0, 5000);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    assert_eq!(
        bad.responses[0].partitions[0].error_code,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
    );
    // Data is answered at once, however long the client would wait.
    assert_eq!(produce_txn(&mut c, 0, (5, 0), 0), ErrorCode::NONE);
    let t = Instant::now();
    let full = fetch_v12(&mut c, 0, 0, 5000);
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    let records = full.responses[0].partitions[0].records.as_ref().unwrap();
    assert!(!records.as_bytes().is_empty());
    // The brokers' threads go on running (and may still write there).
    let _ = std::fs::remove_dir_all(&dir);
}
