//! A transaction coordinator's WriteTxnMarkersRequest at every version: encoded, shown as hex,
//! decoded back and compared.
//!
//! Run with `cargo run --example write_txn_markers`.
#![forbid(unsafe_code)]

use kafka_wire::messages::write_txn_markers_request::{
    WritableTxnMarker, WritableTxnMarkerTopic, WriteTxnMarkersRequest,
};
use kafka_wire::{ApiMessage, Decode, Encode, Message};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Two transactions finished by the same coordinator: one committed across two topics, one
    // aborted on a single partition.
    let request = WriteTxnMarkersRequest::default().with_markers(vec![
        WritableTxnMarker::default()
            .with_producer_id(4_001)
            .with_producer_epoch(3)
            .with_transaction_result(true)
            .with_topics(vec![
                WritableTxnMarkerTopic::default()
                    .with_name("orders")
                    .with_partition_indexes(vec![0, 2, 5].into()),
                WritableTxnMarkerTopic::default()
                    .with_name("payments")
                    .with_partition_indexes(vec![1].into()),
            ])
            .with_coordinator_epoch(12)
            .with_transaction_version(2),
        WritableTxnMarker::default()
            .with_producer_id(4_002)
            .with_producer_epoch(0)
            .with_transaction_result(false)
            .with_topics(vec![WritableTxnMarkerTopic::default()
                .with_name("orders")
                .with_partition_indexes(vec![7].into())])
            .with_coordinator_epoch(12)
            .with_transaction_version(2),
    ]);

    println!(
        "{} (API key {}), versions {}, flexible {}",
        WriteTxnMarkersRequest::NAME,
        WriteTxnMarkersRequest::API_KEY,
        WriteTxnMarkersRequest::VERSIONS,
        WriteTxnMarkersRequest::FLEXIBLE_VERSIONS,
    );
    for version in 0..=2 {
        let bytes = request.encode_to_bytes(version)?;
        println!("\nv{version}: {} bytes", bytes.len());
        for line in bytes.chunks(32) {
            let hex: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
            println!("  {}", hex.join(" "));
        }
        let decoded = WriteTxnMarkersRequest::decode_exact(bytes, version)?;
        // `transaction_version` exists from v2 on and is ignorable: older versions drop it,
        // so they decode to its default.
        let mut expected = request.clone();
        if version < 2 {
            for marker in &mut expected.markers {
                marker.transaction_version = 0;
            }
        }
        assert_eq!(decoded, expected, "v{version} round trip");
        println!("decoded: {decoded:?}");
    }
    Ok(())
}
