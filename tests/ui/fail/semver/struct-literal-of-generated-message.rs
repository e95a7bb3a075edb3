use kafka_wire::messages::write_txn_markers_request::WritableTxnMarker;

fn main() {
    // Kafka's messages gain fields between releases: outside kafka-wire they are built with
    // `Default` and setters, never with a struct expression.
    let _marker = WritableTxnMarker {
        producer_id: 7,
        ..Default::default()
    };
}
