//! Golden vectors: bytes written by independent implementations (see `tests/golden/*.py`).
//! For each: decode == expected value, encode == bytes, `encoded_len` == length, nothing left,
//! and the message's views read the expected value.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::{Decode, Encode, Message, View};
use kafka_wire_tests::*;
use std::fmt::Debug;

fn check<M: Message + View + Debug + PartialEq>(vector: &Vector, expected: M) {
    let label = vector.label();
    let mut input = Bytes::from(vector.bytes.clone());
    let decoded = M::decode(&mut input, vector.version).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert!(input.is_empty(), "{label}: {} bytes left over", input.len());
    assert_eq!(decoded, expected, "{label}: decoded value");
    json::views_read(&expected, &vector.bytes, vector.version)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
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
    for vector in vectors {
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

/// The `kafka-protocol` crate (v1 only; it dropped v0 and predates v2) reads every v1 vector to
/// the same values we read, and writes it back to the same bytes.
#[test]
fn kafka_protocol_crate_agrees_on_v1() {
    use kafka_protocol::messages as kp;
    use kafka_protocol::protocol::{Decodable, Encodable};
    use kafka_wire::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};

    let unknown = |theirs: &std::collections::BTreeMap<i32, Bytes>,
                   ours: &kafka_wire::UnknownTaggedFields| {
        let ours: Vec<(i32, Bytes)> = ours
            .iter()
            .map(|f| (f.tag as i32, f.data.clone()))
            .collect();
        let theirs: Vec<(i32, Bytes)> = theirs.iter().map(|(t, d)| (*t, d.clone())).collect();
        assert_eq!(theirs, ours, "unknown tagged fields");
    };
    let mut checked = 0;
    for vector in write_txn_markers_vectors()
        .iter()
        .filter(|v| v.version == 1)
    {
        let label = vector.label();
        let mut input = Bytes::from(vector.bytes.clone());
        let mut out = bytes::BytesMut::new();
        if vector.message == "WriteTxnMarkersRequest" {
            let theirs = kp::WriteTxnMarkersRequest::decode(&mut input, 1).unwrap();
            let ours = WriteTxnMarkersRequest::decode_exact(vector.bytes.clone(), 1).unwrap();
            assert_eq!(theirs.markers.len(), ours.markers.len(), "{label}");
            unknown(&theirs.unknown_tagged_fields, &ours.unknown_tagged_fields);
            for (t, o) in theirs.markers.iter().zip(&ours.markers) {
                assert_eq!(
                    (
                        t.producer_id.0,
                        t.producer_epoch,
                        t.transaction_result,
                        t.coordinator_epoch
                    ),
                    (
                        o.producer_id,
                        o.producer_epoch,
                        o.transaction_result,
                        o.coordinator_epoch
                    ),
                    "{label}"
                );
                unknown(&t.unknown_tagged_fields, &o.unknown_tagged_fields);
                assert_eq!(t.topics.len(), o.topics.len(), "{label}");
                for (tt, ot) in t.topics.iter().zip(&o.topics) {
                    assert_eq!(tt.name.0.as_str(), &*ot.name, "{label}");
                    assert_eq!(tt.partition_indexes, ot.partition_indexes, "{label}");
                    unknown(&tt.unknown_tagged_fields, &ot.unknown_tagged_fields);
                }
            }
            theirs.encode(&mut out, 1).unwrap();
        } else {
            let theirs = kp::WriteTxnMarkersResponse::decode(&mut input, 1).unwrap();
            let ours = WriteTxnMarkersResponse::decode_exact(vector.bytes.clone(), 1).unwrap();
            assert_eq!(theirs.markers.len(), ours.markers.len(), "{label}");
            unknown(&theirs.unknown_tagged_fields, &ours.unknown_tagged_fields);
            for (t, o) in theirs.markers.iter().zip(&ours.markers) {
                assert_eq!(t.producer_id.0, o.producer_id, "{label}");
                unknown(&t.unknown_tagged_fields, &o.unknown_tagged_fields);
                for (tt, ot) in t.topics.iter().zip(&o.topics) {
                    assert_eq!(tt.name.0.as_str(), &*ot.name, "{label}");
                    unknown(&tt.unknown_tagged_fields, &ot.unknown_tagged_fields);
                    let theirs: Vec<_> = tt
                        .partitions
                        .iter()
                        .map(|p| (p.partition_index, p.error_code))
                        .collect();
                    let ours: Vec<_> = ot
                        .partitions
                        .iter()
                        .map(|p| (p.partition_index, p.error_code))
                        .collect();
                    assert_eq!(theirs, ours, "{label}");
                }
            }
            theirs.encode(&mut out, 1).unwrap();
        }
        assert!(input.is_empty(), "{label}: kafka-protocol left bytes");
        assert_eq!(
            to_hex(&out),
            to_hex(&vector.bytes),
            "{label}: kafka-protocol re-encoding"
        );
        checked += 1;
    }
    assert!(checked >= 9, "only {checked} v1 vectors");
}

/// Vectors across the catalogue, written by kio and kafka-python (`tests/golden/gen_catalogue.py`):
/// every field the independent encoder was given decodes to the same value, and encoding the
/// value again gives the same bytes.
#[test]
fn catalogue_vectors_match() {
    use kafka_wire_tests::generated::check_by_name;
    use kafka_wire_tests::json::matches;
    let mut failures = Vec::new();
    let mut pairs = std::collections::BTreeSet::new();
    for vector in catalogue_vectors() {
        let label = vector.label();
        let checked = match check_by_name(&vector.message, &vector.bytes, vector.version) {
            None => panic!("{label}: no such message"),
            Some(Err(e)) => {
                failures.push(format!("{label}: {e}"));
                continue;
            }
            Some(Ok(c)) => c,
        };
        if let Err(e) = matches(&vector.value, &checked.json, &vector.message) {
            failures.push(format!("{label}: {e}"));
        }
        if to_hex(&checked.reencoded) != to_hex(&vector.bytes) {
            failures.push(format!("{label}: re-encoded bytes differ"));
        }
        if checked.encoded_len != vector.bytes.len() {
            failures.push(format!("{label}: encoded_len {}", checked.encoded_len));
        }
        pairs.insert((vector.message.clone(), vector.version));
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        pairs.len() >= 60,
        "only {} (message, version) pairs",
        pairs.len()
    );
}
