//! Tagged fields: written only when not default, in ascending tag order, merged with the unknown
//! ones, which survive decode -> encode byte for byte (order and duplicates kept).
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::{
    Decode, Encode, ErrorKind, KafkaMessage, KafkaString, RawTaggedField, UnknownTaggedFields,
};
use kafka_wire_tests::{from_hex, to_hex};

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-4", flexible = "1+")]
struct Tagged {
    #[kafka(versions = "0+")]
    id: i8,
    #[kafka(versions = "1+", tag = 0, tagged = "1+")]
    zero: i32,
    // Known only from version 4; before that, tag 1 is an unknown tag like any other.
    #[kafka(versions = "4+", tag = 1, tagged = "4+", default = "x")]
    one: KafkaString,
    #[kafka(
        versions = "1+",
        tag = 2,
        tagged = "1+",
        nullable = "1+",
        default = "null"
    )]
    two: Option<Vec<i8>>,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

/// No place for unknown tags.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
struct Strict {
    #[kafka(versions = "0+")]
    id: i8,
}

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-1", flexible = "0+")]
struct Holder {
    #[kafka(versions = "0+")]
    strict: Strict,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

fn raw(tag: u32, data: &'static [u8]) -> RawTaggedField {
    RawTaggedField {
        tag,
        data: Bytes::from_static(data),
    }
}

#[test]
fn defaults_are_not_written() {
    let value = Tagged {
        one: KafkaString::from_static("x"),
        ..Default::default()
    };
    // id, then an empty tagged section.
    assert_eq!(to_hex(&value.encode_to_bytes(4).unwrap()), "0000");
}

#[test]
fn known_fields_in_ascending_tag_order() {
    let value = Tagged {
        id: 1,
        zero: 5,
        one: KafkaString::from_static("ab"),
        two: Some(vec![9]),
        ..Default::default()
    };
    // id 01; 3 fields: tag 0 size 4 int 5; tag 1 size 3 "ab"; tag 2 size 2 compact [9].
    let expected = "01".to_owned() + "03" + "000400000005" + "0103036162" + "02020209";
    assert_eq!(to_hex(&value.encode_to_bytes(4).unwrap()), expected);
    assert_eq!(Tagged::decode_exact(from_hex(&expected), 4).unwrap(), value);
    // The default is null, so a null is not written, but an empty array is.
    let empty = Tagged {
        two: Some(vec![]),
        one: KafkaString::from_static("x"),
        ..Default::default()
    };
    assert_eq!(to_hex(&empty.encode_to_bytes(4).unwrap()), "0001020101");
}

#[test]
fn unknown_tags_interleave_and_round_trip_byte_for_byte() {
    // Version 3: tag 1 is not known yet. Wire order: 0 (known), 1 (unknown), 2 (known),
    // 7 twice (unknown duplicates), 300 (two-byte tag).
    let wire = "07".to_owned() // id
        + "06" // six tagged fields
        + "000400000009"
        + "0102aabb"
        + "02020201"
        + "0700"
        + "0701cc"
        + "ac0200";
    let decoded = Tagged::decode_exact(from_hex(&wire), 3).unwrap();
    assert_eq!(decoded.zero, 9);
    assert_eq!(decoded.two, Some(vec![1]));
    assert_eq!(
        decoded.unknown_tagged_fields.as_slice(),
        &[
            raw(1, &[0xaa, 0xbb]),
            raw(7, &[]),
            raw(7, &[0xcc]),
            raw(300, &[])
        ]
    );
    assert_eq!(to_hex(&decoded.encode_to_bytes(3).unwrap()), wire);
    assert_eq!(decoded.encoded_len(3).unwrap(), wire.len() / 2);
}

#[test]
fn unknown_tags_are_placed_by_tag_among_known_ones() {
    let mut value = Tagged {
        zero: 1,
        one: KafkaString::from_static("x"),
        two: Some(vec![]),
        ..Default::default()
    };
    value.unknown_tagged_fields.push(raw(1, &[0x11]));
    value.unknown_tagged_fields.push(raw(9, &[]));
    // At version 3: 0 (known), 1 (raw), 2 (known), 9 (raw).
    let expected = "00".to_owned() + "04" + "000400000001" + "010111" + "020101" + "0900";
    assert_eq!(to_hex(&value.encode_to_bytes(3).unwrap()), expected);
    assert_eq!(value.encoded_len(3).unwrap(), expected.len() / 2);
}

#[test]
fn known_field_must_use_exactly_its_declared_size() {
    // Tag 0 claims 5 bytes but an int32 takes 4.
    let err = Tagged::decode_exact(from_hex("0001000500000001ff"), 3).unwrap_err();
    assert_eq!(
        *err.kind(),
        ErrorKind::TaggedFieldSize {
            tag: 0,
            declared: 5,
            used: 4
        }
    );
    // Tag 0 claims 2 bytes: the int32 inside runs out, and the error names the field.
    let err = Tagged::decode_exact(from_hex("000100020000"), 3).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::UnexpectedEof {
            needed: 4,
            available: 2
        }
    ));
    assert_eq!(err.path(), "Tagged.zero");
    assert_eq!(err.offset(), Some(4));
}

#[test]
fn struct_without_a_place_for_unknown_tags_rejects_them() {
    // Holder: Strict { id 1, one unknown tag 4 }, then Holder's own empty section.
    let err = Holder::decode_exact(from_hex("0101040000"), 0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::UnknownTaggedField { tag: 4 });
    assert_eq!(err.path(), "Holder.strict");
    assert!(Holder::decode_exact(from_hex("010000"), 0).is_ok());
}
