//! The ways code outside kafka-wire builds, reads and matches the generated messages that keep
//! compiling when a release adds fields, versions, APIs or enum variants (`kafka_wire::guide::stability`).
//! A struct literal of a generated message does not compile here: `ui/fail/semver` pins that.
#![forbid(unsafe_code)]

use kafka_wire::messages::api::RequestBody;
use kafka_wire::messages::describe_client_quotas_request::ComponentData;
use kafka_wire::messages::write_txn_markers_request::{
    WritableTxnMarker, WritableTxnMarkerTopic, WriteTxnMarkersRequest,
};
use kafka_wire::messages::LeaderAndIsrRequest;
use kafka_wire::records::{Compression, ControlRecordType, RecordsReader};
use kafka_wire::{Decode, Encode, ErrorKind, KafkaMessage, KafkaString};

/// Style 1: start from `Default` and assign the fields that matter.
fn assigned() -> WriteTxnMarkersRequest {
    let mut orders = WritableTxnMarkerTopic::default();
    orders.name = KafkaString::from_static("orders");
    orders.partition_indexes = vec![0, 2, 5].into();
    let mut marker = WritableTxnMarker::default();
    marker.producer_id = 4_001;
    marker.producer_epoch = 3;
    marker.transaction_result = true;
    marker.coordinator_epoch = 12;
    marker.topics.push(orders);
    let mut request = WriteTxnMarkersRequest::default();
    request.markers.push(marker);
    request
}

/// Style 2: chained setters, nested structs and vectors of them included.
fn chained() -> WriteTxnMarkersRequest {
    WriteTxnMarkersRequest::default().with_markers(vec![WritableTxnMarker::default()
        .with_producer_id(4_001)
        .with_producer_epoch(3)
        .with_transaction_result(true)
        .with_coordinator_epoch(12)
        .with_topics(vec![WritableTxnMarkerTopic::default()
            .with_name("orders")
            .with_partition_indexes([0, 2, 5].into())])])
}

#[test]
fn assigning_fields_and_chaining_setters_build_the_same_message() {
    let (assigned, chained) = (assigned(), chained());
    assert_eq!(assigned, chained);
    assert_ne!(chained, WriteTxnMarkersRequest::default());
    for version in 0..=2 {
        let bytes = chained.encode_to_bytes(version).unwrap();
        assert_eq!(bytes, assigned.encode_to_bytes(version).unwrap());
        assert_eq!(
            WriteTxnMarkersRequest::decode_exact(bytes, version).unwrap(),
            assigned
        );
    }
}

#[test]
fn a_setter_sets_its_field_and_no_other() {
    let marker = WritableTxnMarker::default().with_producer_epoch(9);
    let mut expected = WritableTxnMarker::default();
    expected.producer_epoch = 9;
    assert_eq!(marker, expected);
    // The last call wins, as an assignment would.
    assert_eq!(marker.with_producer_epoch(2).producer_epoch, 2);
}

#[test]
fn setters_take_strings_in_any_form_and_vectors_from_iterators() {
    let names = ["orders", "payments"];
    let marker = WritableTxnMarker::default().with_topics(
        names
            .iter()
            .map(|name| WritableTxnMarkerTopic::default().with_name(*name))
            .collect(),
    );
    let read: Vec<&str> = marker.topics.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(read, names);
    let owned = WritableTxnMarkerTopic::default().with_name(String::from("orders"));
    let shared = WritableTxnMarkerTopic::default().with_name(KafkaString::from_static("orders"));
    assert_eq!(owned, marker.topics[0]);
    assert_eq!(shared, marker.topics[0]);
    // A nullable field takes its `Option` as it is, so `None` needs no annotation.
    let component = ComponentData::default().with_match(None);
    assert_eq!(component.r#match, None);
}

#[test]
fn fields_named_after_keywords_have_plain_setters() {
    let request = LeaderAndIsrRequest::default().with_type(1);
    assert_eq!(request.r#type, 1);
    let component = ComponentData::default()
        .with_entity_type("user")
        .with_match(Some("alice".into()));
    assert_eq!(component.r#match.as_deref(), Some("alice"));
}

#[test]
fn fields_are_read_directly_and_matched_with_rest_patterns() {
    let request = chained();
    assert_eq!(request.markers[0].topics[0].name, "orders");
    let WriteTxnMarkersRequest { markers, .. } = &request;
    let described: Vec<String> = markers
        .iter()
        .map(|marker| match marker {
            WritableTxnMarker {
                transaction_result: true,
                producer_id,
                ..
            } => format!("commit {producer_id}"),
            WritableTxnMarker { producer_id, .. } => format!("abort {producer_id}"),
        })
        .collect();
    assert_eq!(described, ["commit 4001"]);
}

/// Sets, codecs and control types grow: a `match` on them keeps a `_` arm.
fn describe(body: &RequestBody, codec: Compression, control: ControlRecordType) -> String {
    let api = match body {
        RequestBody::WriteTxnMarkers(request) => format!("{} markers", request.markers.len()),
        _ => "another API".to_owned(),
    };
    let codec = match codec {
        Compression::None => "plain",
        _ => "compressed",
    };
    let control = match control {
        ControlRecordType::Commit | ControlRecordType::Abort => "a transaction marker",
        _ => "another control record",
    };
    format!("{api}, {codec}, {control}")
}

#[test]
fn growing_enums_are_matched_with_a_wildcard() {
    let body = RequestBody::WriteTxnMarkers(chained());
    assert_eq!(
        describe(&body, Compression::None, ControlRecordType::Commit),
        "1 markers, plain, a transaction marker"
    );
    let other = RequestBody::ApiVersions(Default::default());
    assert_eq!(
        describe(&other, Compression::Gzip, ControlRecordType::Other(2)),
        "another API, compressed, another control record"
    );
}

/// Errors grow too: one vocabulary of kinds, matched the same way whichever error gives it
/// (reading or writing, a message or a record batch), with a `_` arm.
fn describe_error(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::UnexpectedEof { .. } => "input cut short",
        ErrorKind::UnsupportedVersion { .. } => "a version the message lacks",
        ErrorKind::BatchTooSmall { .. } | ErrorKind::CrcMismatch { .. } => "a damaged batch",
        _ => "another error",
    }
}

#[test]
fn error_kinds_are_matched_the_same_way_for_messages_and_records() {
    let read = WriteTxnMarkersRequest::decode_exact(&[0x00, 0x00, 0x00][..], 0);
    let written = WriteTxnMarkersRequest::default().encode_to_bytes(9);
    // A v2 batch whose size field claims fewer bytes than its header needs.
    let mut batch = vec![0u8; 61];
    batch[11] = 20;
    batch[16] = 2;
    let records = RecordsReader::new(batch.into()).next().unwrap();
    assert_eq!(describe_error(read.unwrap_err().kind()), "input cut short");
    assert_eq!(
        describe_error(written.unwrap_err().kind()),
        "a version the message lacks"
    );
    assert_eq!(
        describe_error(records.unwrap_err().kind()),
        "a damaged batch"
    );
    assert_eq!(describe_error(&ErrorKind::EmptyBatch), "another error");
}

/// A message of the application's own: not `#[non_exhaustive]`, so literals work as well as
/// the setters.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(key = 30000, versions = "0")]
pub struct Ping {
    #[kafka(versions = "0+")]
    pub r#type: i8,
    #[kafka(versions = "0+")]
    pub name: KafkaString,
}

/// `no_setters` leaves the names free for the application's own methods.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0", no_setters)]
pub struct Pong {
    #[kafka(versions = "0+")]
    pub name: KafkaString,
}

impl Pong {
    /// The application's own `with_name`, which a generated setter would collide with.
    pub fn with_name(name: &'static str) -> Self {
        Pong {
            name: KafkaString::from_static(name),
        }
    }
}

#[test]
fn own_messages_take_literals_setters_or_neither() {
    let literal = Ping {
        r#type: 1,
        name: KafkaString::from_static("x"),
    };
    assert_eq!(literal, Ping::default().with_type(1).with_name("x"));
    let bytes = literal.encode_to_bytes(0).unwrap();
    assert_eq!(Ping::decode_exact(bytes, 0).unwrap(), literal);
    assert_eq!(Pong::with_name("y").name, "y");
}
