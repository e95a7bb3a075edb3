//! Hostile input: truncations, forged lengths and counts, bad varints, bad UTF-8 and random
//! bytes all end in a typed error that names the field, never in a panic.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use kafka_wire::{Decode, DecodeError, ErrorKind};
use kafka_wire_tests::{from_hex, write_txn_markers_vectors};
use proptest::prelude::*;

fn decode(message: &str, bytes: &[u8], version: i16) -> Result<(), DecodeError> {
    let input = Bytes::copy_from_slice(bytes);
    match message {
        "WriteTxnMarkersRequest" => WriteTxnMarkersRequest::decode_exact(input, version).map(drop),
        "WriteTxnMarkersResponse" => {
            WriteTxnMarkersResponse::decode_exact(input, version).map(drop)
        }
        other => panic!("unexpected message {other}"),
    }
}

#[test]
fn every_prefix_of_every_golden_vector_is_an_error() {
    let mut checked = 0;
    for vector in write_txn_markers_vectors() {
        for cut in 0..vector.bytes.len() {
            let err = decode(&vector.message, &vector.bytes[..cut], vector.version)
                .expect_err(&format!("{} cut at {cut} decoded", vector.label()));
            let offset = err.offset().expect("offset is set");
            assert!(
                offset <= cut,
                "{}: offset {offset} past the input ({cut})",
                vector.label()
            );
            assert!(
                matches!(
                    err.kind(),
                    ErrorKind::UnexpectedEof { .. }
                        | ErrorKind::LengthExceedsRemaining { .. }
                        | ErrorKind::CountExceedsRemaining { .. }
                ),
                "{} cut at {cut}: {err}",
                vector.label()
            );
            checked += 1;
        }
    }
    assert!(checked > 10_000, "only {checked} prefixes");
}

#[test]
fn forged_compact_count_fails_before_allocating() {
    // 0xffffffff0f is the unsigned varint 2^32 - 1: a count of 2^32 - 2 markers, in 5 bytes.
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("ffffffff0f"), 1).unwrap_err();
    assert_eq!(
        *err.kind(),
        ErrorKind::CountExceedsRemaining {
            count: (1 << 32) - 2,
            remaining: 0
        }
    );
    assert_eq!(err.path(), "WriteTxnMarkersRequest.markers");
    assert_eq!(err.offset(), Some(0));
}

#[test]
fn forged_classic_count_and_negative_lengths() {
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("7fffffff"), 0).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::CountExceedsRemaining {
            count: 0x7fff_ffff,
            ..
        }
    ));
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("fffffffe"), 0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::NegativeLength { length: -2 });
    // A null markers array where the schema has no nullable versions.
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("ffffffff"), 0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::UnexpectedNull { version: 0 });
    // One marker whose one topic name claims -7 bytes.
    let marker = "00000001".to_owned() + "0000000000000001" + "0001" + "01" + "00000001" + "fff9";
    let err = WriteTxnMarkersRequest::decode_exact(from_hex(&marker), 0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::NegativeLength { length: -7 });
    assert_eq!(
        err.path(),
        "WriteTxnMarkersRequest.markers[0].topics[0].name"
    );
    assert_eq!(err.offset(), Some(19));
}

#[test]
fn bad_varints_are_rejected() {
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("ffffffffff"), 1).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::VarintTooLong);
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("ffffffff1f"), 1).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::VarintOverflow);
}

#[test]
fn invalid_utf8_names_the_field() {
    // v1: one marker, one topic named with the byte 0xff.
    let hex = "02".to_owned()
        + "0000000000000001"
        + "0001"
        + "01"
        + "02"
        + "02ff"
        + "01"
        + "00"
        + "00000000"
        + "00"
        + "00";
    let err = WriteTxnMarkersRequest::decode_exact(from_hex(&hex), 1).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::InvalidUtf8);
    assert_eq!(
        err.path(),
        "WriteTxnMarkersRequest.markers[0].topics[0].name"
    );
}

#[test]
fn tagged_field_size_past_the_end() {
    // v1, no markers, one tagged field that claims 9 bytes of which 1 is there.
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("01010709aa"), 1).unwrap_err();
    assert_eq!(
        *err.kind(),
        ErrorKind::LengthExceedsRemaining {
            length: 9,
            remaining: 1
        }
    );
    assert_eq!(err.offset(), Some(2));
    // A tag count larger than the bytes could hold.
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("017f"), 1).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::CountExceedsRemaining { count: 127, .. }
    ));
}

#[test]
fn error_message_reads_as_documented() {
    // Four markers; the fourth one's first topic stops inside its name's length.
    let marker = |topics: &str| "0000000000000001".to_owned() + "0001" + "01" + topics + "00000005";
    let empty = marker("00000000");
    let hex = "00000004".to_owned()
        + &empty
        + &empty
        + &empty
        + "0000000000000001"
        + "0001"
        + "01"
        + "00000001"
        + "00";
    let bytes = from_hex(&hex);
    let err = WriteTxnMarkersRequest::decode_exact(bytes.clone(), 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "WriteTxnMarkersRequest.markers[3].topics[0].name: unexpected end of input at byte {} (needed 2, 1 left)",
            bytes.len() - 1
        )
    );
}

#[test]
fn trailing_bytes_are_reported_by_decode_exact() {
    let err = WriteTxnMarkersRequest::decode_exact(from_hex("0000000000"), 0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::TrailingBytes { count: 1 });
    assert_eq!(err.offset(), Some(4));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Random bytes never panic, and an error's offset lies within the input.
    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64), version in 0i16..=2) {
        for message in ["WriteTxnMarkersRequest", "WriteTxnMarkersResponse"] {
            if let Err(err) = decode(message, &bytes, version) {
                prop_assert!(err.offset().is_some_and(|o| o <= bytes.len()), "{}", err);
            }
        }
    }

    /// Golden vectors with one byte changed never panic.
    #[test]
    fn mutated_golden_vectors_never_panic(pick in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let vectors = write_txn_markers_vectors();
        let vector = pick.get(vectors);
        let mut bytes = vector.bytes.clone();
        if !bytes.is_empty() {
            let i = at.index(bytes.len());
            bytes[i] = byte;
        }
        if let Err(err) = decode(&vector.message, &bytes, vector.version) {
            prop_assert!(err.offset().is_some_and(|o| o <= bytes.len()), "{}", err);
        }
    }
}
