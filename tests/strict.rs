//! Strict decoding (`Decode::decode_strict`): what Kafka's reader lets through and strict mode
//! refuses (non-minimal varints, tagged fields out of order or repeated, trailing bytes), and
//! that canonical encodings, including every golden vector, read the same in both modes.
#![forbid(unsafe_code)]

use kafka_wire::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use kafka_wire::{Decode, Encode, ErrorKind, RawTaggedField, UnknownTaggedFields};
use kafka_wire_tests::{from_hex, write_txn_markers_vectors};

fn strict_kind(hex: &str, version: i16) -> ErrorKind {
    let bytes = from_hex(hex);
    // Kafka's rules accept it...
    WriteTxnMarkersResponse::decode_exact(bytes.clone(), version).expect("lenient decode");
    // ...strict mode does not.
    WriteTxnMarkersResponse::decode_strict(bytes, version)
        .expect_err("strict decode must refuse")
        .kind()
        .clone()
}

#[test]
fn non_minimal_varints_are_refused_in_lengths_and_tagged_sections() {
    // No markers: the compact count 1 (0 items) written as `81 00`.
    assert_eq!(strict_kind("810000", 1), ErrorKind::NonMinimalVarint);
    // The tagged-section count 1 as `81 00`, then tag 7 with 0 bytes.
    assert_eq!(strict_kind("0181000700", 1), ErrorKind::NonMinimalVarint);
    // The tag written as `87 00`.
    assert_eq!(strict_kind("0101870000", 1), ErrorKind::NonMinimalVarint);
    // The size written as `80 00`.
    assert_eq!(strict_kind("0101078000", 1), ErrorKind::NonMinimalVarint);
}

#[test]
fn tags_must_increase() {
    // Two unknown tags, 9 then 3.
    assert_eq!(
        strict_kind("010209000300", 1),
        ErrorKind::TaggedFieldsOutOfOrder {
            previous: 9,
            tag: 3
        }
    );
    // The same tag twice.
    assert_eq!(
        strict_kind("010205000500", 1),
        ErrorKind::TaggedFieldsOutOfOrder {
            previous: 5,
            tag: 5
        }
    );
    // Increasing tags are fine, and kept.
    let ok = WriteTxnMarkersResponse::decode_strict(from_hex("01020301090901ff"), 1).unwrap();
    let tags: Vec<u32> = ok.unknown_tagged_fields.iter().map(|f| f.tag).collect();
    assert_eq!(tags, [3, 9]);
}

#[test]
fn trailing_bytes_are_refused() {
    let err = WriteTxnMarkersResponse::decode_strict(from_hex("010000"), 1).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::TrailingBytes { count: 1 });
}

#[test]
fn golden_vectors_read_the_same_strictly() {
    let mut strict = 0;
    for v in write_txn_markers_vectors() {
        let (lenient, strictly) = match v.message.as_str() {
            "WriteTxnMarkersRequest" => (
                WriteTxnMarkersRequest::decode_exact(v.bytes.clone(), v.version)
                    .map(|m| format!("{m:?}")),
                WriteTxnMarkersRequest::decode_strict(v.bytes.clone(), v.version)
                    .map(|m| format!("{m:?}")),
            ),
            _ => (
                WriteTxnMarkersResponse::decode_exact(v.bytes.clone(), v.version)
                    .map(|m| format!("{m:?}")),
                WriteTxnMarkersResponse::decode_strict(v.bytes.clone(), v.version)
                    .map(|m| format!("{m:?}")),
            ),
        };
        let lenient = lenient.unwrap_or_else(|e| panic!("{}: {e}", v.label()));
        match strictly {
            Ok(s) => {
                assert_eq!(s, lenient, "{}", v.label());
                strict += 1;
            }
            // Only the vectors made to carry unknown tags may use an order strict mode refuses.
            Err(e) => assert!(
                v.case.contains("unknown")
                    && matches!(e.kind(), ErrorKind::TaggedFieldsOutOfOrder { .. }),
                "{}: {e}",
                v.label()
            ),
        }
    }
    assert!(strict >= 25, "{strict} vectors read strictly");
}

#[test]
fn canonical_encodings_read_strictly() {
    // What our encoder writes from increasing unknown tags reads back strictly, unchanged.
    let mut response = WriteTxnMarkersResponse::default();
    let mut unknown = UnknownTaggedFields::default();
    unknown.push(RawTaggedField {
        tag: 3,
        data: vec![2].into(),
    });
    unknown.push(RawTaggedField {
        tag: 300,
        data: vec![0; 200].into(),
    });
    response.unknown_tagged_fields = unknown;
    for version in 1..=2 {
        let bytes = response.encode_to_bytes(version).unwrap();
        assert_eq!(
            WriteTxnMarkersResponse::decode_strict(bytes, version).unwrap(),
            response
        );
    }
}
