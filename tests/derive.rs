//! Behaviour of derived codecs: version rules, defaults, nullability, ignorable fields and the
//! per-field flexible override, checked on hand-computed bytes.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::messages::write_txn_markers_request::{WritableTxnMarker, WriteTxnMarkersRequest};
use kafka_wire::{Decode, Encode, ErrorKind, KafkaMessage, KafkaString, UnknownTaggedFields};
use kafka_wire_tests::sink::{Everything, Item};
use kafka_wire_tests::to_hex;

#[test]
fn non_ignorable_field_in_a_version_that_lacks_it_is_an_encode_error() {
    let mut value = Everything::schema_default();
    value.new_str = KafkaString::from_static("set");
    let err = value.encode_to_bytes(3).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::NonDefaultField { version: 3 });
    assert_eq!(err.path(), "Everything.new_str");
    assert_eq!(
        err.to_string(),
        "Everything.new_str: holds a non-default value but does not exist at version 3"
    );
    // `encode` refuses it however it is called.
    assert_eq!(value.encode(&mut Vec::new(), 3).unwrap_err(), err);
    // Sizing does not judge the value: it counts what version 3 carries, which leaves the
    // field out, so the size is the default value's.
    assert_eq!(
        value.encoded_len(3).unwrap(),
        Everything::schema_default().encoded_len(3).unwrap()
    );
    // At the default it is fine, and so is the version that has the field.
    assert!(Everything::schema_default().encode_to_bytes(3).is_ok());
    assert!(value.encode_to_bytes(4).is_ok());
}

#[test]
fn ignorable_field_is_dropped_silently() {
    let request =
        WriteTxnMarkersRequest::default().with_markers(vec![
            WritableTxnMarker::default().with_transaction_version(2)
        ]);
    let v1 = request.encode_to_bytes(1).unwrap();
    let v2 = request.encode_to_bytes(2).unwrap();
    assert_eq!(v2.len(), v1.len() + 1, "v2 carries the int8, v1 drops it");
    assert_eq!(
        WriteTxnMarkersRequest::decode_exact(v1, 1).unwrap().markers[0].transaction_version,
        0
    );
    assert_eq!(
        WriteTxnMarkersRequest::decode_exact(v2, 2).unwrap().markers[0].transaction_version,
        2
    );
}

#[test]
fn nested_non_default_error_names_the_path() {
    let mut value = Everything::schema_default();
    value.items = vec![
        Item::default(),
        Item {
            note: KafkaString::from_static("n"),
            ..Default::default()
        },
    ];
    let err = value.encode_to_bytes(3).unwrap_err();
    assert_eq!(err.path(), "Everything.items[1].note");
}

#[test]
fn versions_outside_the_message_range_are_errors() {
    let value = WriteTxnMarkersRequest::default();
    for version in [-1, 3, i16::MAX] {
        let err = value.encode_to_bytes(version).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedVersion { .. }),
            "{err}"
        );
        let err = WriteTxnMarkersRequest::decode_exact(&[0u8, 0, 0, 0][..], version).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedVersion { version: v, .. } if *v == version)
        );
        assert_eq!(err.to_string(), format!("WriteTxnMarkersRequest: version {version} is not supported (valid versions: 0-2) at byte 0"));
    }
}

#[test]
fn null_in_a_version_that_is_not_nullable() {
    // `maybe_name` is nullable from version 1 only.
    let mut value = Everything::schema_default();
    value.maybe_name = None;
    let err = value.encode_to_bytes(0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::UnexpectedNull { version: 0 });
    assert_eq!(err.path(), "Everything.maybe_name");
    // Sized as a null would be (-1, as long as the empty string's length prefix).
    let mut empty = value.clone();
    empty.maybe_name = Some(KafkaString::default());
    assert_eq!(value.encoded_len(0).unwrap(), empty.encoded_len(0).unwrap());
    let v1 = value.encode_to_bytes(1).unwrap();
    assert_eq!(Everything::decode_exact(v1, 1).unwrap().maybe_name, None);
}

/// A small message whose bytes are easy to write by hand.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-3", flexible = "2+")]
struct Header {
    #[kafka(versions = "0+", nullable = "0+", flexible = "none")]
    client_id: Option<KafkaString>,
    #[kafka(versions = "0+", nullable = "1+")]
    rack: Option<KafkaString>,
    #[kafka(versions = "3+", tag = 0, tagged = "3+", default = "none")]
    zone: KafkaString,
    #[kafka(versions = "1+", nullable = "1+", default = "null")]
    child: Option<Leaf>,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
struct Leaf {
    #[kafka(versions = "0+")]
    n: i8,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

#[test]
fn flexible_override_keeps_a_classic_string_in_flexible_versions() {
    let header = Header {
        client_id: Some(KafkaString::from_static("ab")),
        rack: Some(KafkaString::from_static("r")),
        zone: KafkaString::from_static("none"),
        child: None,
        ..Default::default()
    };
    // v2: client id classic (i16 length), rack compact, child null (-1 presence byte),
    // empty tagged section.
    assert_eq!(
        to_hex(&header.encode_to_bytes(2).unwrap()),
        "0002616202".to_owned() + "72" + "ff" + "00"
    );
    // v0: both classic, no child, no tagged section.
    assert_eq!(
        to_hex(&header.encode_to_bytes(0).unwrap()),
        "00026162000172"
    );
    // A null client id is classic -1 even in flexible versions.
    let nulls = Header {
        zone: KafkaString::from_static("none"),
        ..Default::default()
    };
    assert_eq!(to_hex(&nulls.encode_to_bytes(3).unwrap()), "ffff00ff00");
}

#[test]
fn tagged_string_default_is_not_written_and_other_values_are() {
    let mut header = Header {
        zone: KafkaString::from_static("none"),
        ..Default::default()
    };
    assert_eq!(header.encoded_len(3).unwrap(), 5);
    header.zone = KafkaString::from_static("eu");
    // Tagged section: one field, tag 0, size 3, compact string "eu".
    assert_eq!(
        to_hex(&header.encode_to_bytes(3).unwrap()),
        "ffff00ff".to_owned() + "01" + "00" + "03" + "03" + "6575"
    );
    let decoded = Header::decode_exact(header.encode_to_bytes(3).unwrap(), 3).unwrap();
    assert_eq!(decoded, header);
    // Absent from the bytes, the tagged field decodes to its schema default, not Rust's.
    let absent =
        Header::decode_exact(Bytes::from_static(&[0xff, 0xff, 0x00, 0xff, 0x00]), 3).unwrap();
    assert_eq!(absent.zone, "none");
}

#[test]
fn nullable_struct_uses_a_presence_byte() {
    let header = Header {
        client_id: None,
        rack: None,
        zone: KafkaString::from_static("none"),
        child: Some(Leaf {
            n: 7,
            ..Default::default()
        }),
        ..Default::default()
    };
    // v1: classic -1, classic -1, presence 1, n.
    assert_eq!(to_hex(&header.encode_to_bytes(1).unwrap()), "ffffffff0107");
    assert_eq!(
        Header::decode_exact(header.encode_to_bytes(1).unwrap(), 1).unwrap(),
        header
    );
}

#[test]
fn unknown_tags_cannot_be_written_in_a_classic_version() {
    let mut request = WriteTxnMarkersRequest::default();
    request
        .unknown_tagged_fields
        .push(kafka_wire::RawTaggedField {
            tag: 9,
            data: Bytes::from_static(b"x"),
        });
    let err = request.encode_to_bytes(0).unwrap_err();
    assert_eq!(
        *err.kind(),
        ErrorKind::TaggedFieldsInClassicVersion { version: 0 }
    );
    assert_eq!(err.path(), "WriteTxnMarkersRequest.unknown_tagged_fields");
    assert!(request.encode_to_bytes(1).is_ok());
}

#[test]
fn value_too_long_for_its_length_prefix() {
    let long = KafkaString::from(String::from("x").repeat(32_768));
    let mut value = Everything::schema_default();
    value.name = long.clone();
    for version in [1, 2] {
        let err = value.encode_to_bytes(version).unwrap_err();
        assert_eq!(
            *err.kind(),
            ErrorKind::TooLong {
                length: 32_768,
                max: 32_767
            }
        );
        assert_eq!(err.path(), "Everything.name");
    }
    // The size counts the string behind the prefix it would have: two bytes in a classic
    // version, and in a flexible one the varint of 32769, three bytes instead of the empty
    // string's one.
    let default = Everything::schema_default();
    assert_eq!(
        value.encoded_len(1).unwrap(),
        default.encoded_len(1).unwrap() + 32_768
    );
    assert_eq!(
        value.encoded_len(2).unwrap(),
        default.encoded_len(2).unwrap() + 2 + 32_768
    );
    // One byte less fits, and the size is then exactly what is written.
    value.name = KafkaString::from(String::from("x").repeat(32_767));
    for version in [1, 2] {
        let bytes = value.encode_to_bytes(version).unwrap();
        assert_eq!(bytes.len(), value.encoded_len(version).unwrap());
    }
}

#[test]
fn tagged_field_too_long_for_its_size_is_refused_before_it_is_written() {
    // Over 2 GiB in one tagged field, without the memory: every item shares one string.
    let key = KafkaString::from(String::from("k").repeat(32_767));
    let item = Item {
        key,
        ..Default::default()
    };
    let mut value = Everything::schema_default();
    value.tagged_items = vec![item; 70_000];
    let len = value.encoded_len(3).unwrap();
    assert!(len > i32::MAX as usize, "{len}");
    let mut out = Vec::new();
    let err = value.encode(&mut out, 3).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::TooLong { length, max } if *length > *max && *max == i32::MAX as usize),
        "{err}"
    );
    assert_eq!(err.path(), "Everything.tagged_items");
    // The regular fields and the section's count of one went out, and nothing of the field.
    // Without tagged fields, the same value ends in a count of zero.
    let default = Everything::schema_default().encode_to_bytes(3).unwrap();
    assert_eq!(out.len(), default.len());
    assert_eq!(out[..out.len() - 1], default[..default.len() - 1]);
    assert_eq!((out[out.len() - 1], default[default.len() - 1]), (1, 0));
}

#[test]
fn encode_to_bytes_refuses_a_size_no_frame_can_carry_before_reserving_it() {
    // The same 2 GiB of shared items: `encode_to_bytes` sizes first and must not reserve a
    // buffer for a message that no i32 size can announce.
    let key = KafkaString::from(String::from("k").repeat(32_767));
    let mut value = Everything::schema_default();
    value.tagged_items = vec![
        Item {
            key,
            ..Default::default()
        };
        70_000
    ];
    let len = value.encoded_len(3).unwrap();
    let err = value.encode_to_bytes(3).unwrap_err();
    assert_eq!(
        *err.kind(),
        ErrorKind::TooLong {
            length: len,
            max: i32::MAX as usize
        }
    );
}

#[test]
fn null_received_where_the_version_forbids_it() {
    // Header v0: client_id nullable, rack not: a -1 rack is an error naming the field.
    let err = Header::decode_exact(Bytes::from_static(&[0xff, 0xff, 0xff, 0xff]), 0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::UnexpectedNull { version: 0 });
    assert_eq!(err.path(), "Header.rack");
    assert_eq!(err.offset(), Some(2));
}
