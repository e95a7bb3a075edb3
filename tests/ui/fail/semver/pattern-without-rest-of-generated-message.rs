use kafka_wire::messages::write_txn_markers_request::WritableTxnMarkerTopic;

fn main() {
    // A pattern naming every field today would miss the fields of the next release: `..` is
    // required.
    let WritableTxnMarkerTopic {
        name,
        partition_indexes,
        unknown_tagged_fields,
    } = WritableTxnMarkerTopic::default();
    let _ = (name, partition_indexes, unknown_tagged_fields);
}
