//! Golden vectors: bytes written by independent implementations (see `tests/golden/*.py`).
//! For each: decode == expected value, encode == bytes, `encoded_len` == length, nothing left.

use bytes::Bytes;
use kafka_wire::{Decode, Encode, Message};
use kafka_wire_tests::*;
use std::fmt::Debug;

fn check<M: Message + Debug + PartialEq>(vector: &Vector, expected: M) {
    let label = vector.label();
    let mut input = Bytes::from(vector.bytes.clone());
    let decoded = M::decode(&mut input, vector.version).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert!(input.is_empty(), "{label}: {} bytes left over", input.len());
    assert_eq!(decoded, expected, "{label}: decoded value");
    let len = expected
        .encoded_len(vector.version)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(len, vector.bytes.len(), "{label}: encoded_len");
    let encoded = expected
        .encode_to_bytes(vector.version)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(
        to_hex(&encoded),
        to_hex(&vector.bytes),
        "{label}: encoded bytes"
    );
}

#[test]
fn write_txn_markers_vectors_match() {
    let vectors = write_txn_markers_vectors();
    let mut seen = std::collections::BTreeSet::new();
    for vector in &vectors {
        match vector.message.as_str() {
            "WriteTxnMarkersRequest" => check(vector, write_txn_markers_request(&vector.value)),
            "WriteTxnMarkersResponse" => check(vector, write_txn_markers_response(&vector.value)),
            other => panic!("unexpected message {other}"),
        }
        seen.insert((vector.message.clone(), vector.version));
    }
    // Every version of both messages has vectors.
    for message in ["WriteTxnMarkersRequest", "WriteTxnMarkersResponse"] {
        for version in 0..=2 {
            assert!(
                seen.contains(&(message.to_owned(), version)),
                "no vector for {message} v{version}"
            );
        }
    }
}

#[test]
fn unknown_tagged_vectors_carry_tags_at_two_levels() {
    let vectors = write_txn_markers_vectors();
    let request = vectors
        .iter()
        .find(|v| {
            v.case == "unknown_tagged_fields"
                && v.message == "WriteTxnMarkersRequest"
                && v.version == 1
        })
        .expect("vector");
    let decoded =
        kafka_wire::messages::WriteTxnMarkersRequest::decode_exact(request.bytes.clone(), 1)
            .unwrap();
    assert_eq!(decoded.unknown_tagged_fields.len(), 2);
    assert!(decoded
        .markers
        .iter()
        .any(|m| !m.unknown_tagged_fields.is_empty()));
}
