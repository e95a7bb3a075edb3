//! Property round trips for every version: encode, check the computed size against the bytes
//! written, decode, compare.
#![forbid(unsafe_code)]

use bytes::{Bytes, BytesMut};
use kafka_wire::messages::write_txn_markers_request::*;
use kafka_wire::messages::write_txn_markers_response::*;
use kafka_wire::{
    Decode, Encode, KafkaString, Message, RawTaggedField, Records, UnknownTaggedFields, Uuid,
};
use kafka_wire_tests::sink::{Everything, Item};
use proptest::collection::vec;
use proptest::prelude::*;
use std::fmt::Debug;

fn kstring() -> impl Strategy<Value = KafkaString> {
    // Mostly short names, sometimes non-ASCII, sometimes long enough for 2-byte varints.
    prop_oneof!["[a-z0-9._-]{0,12}", "\\PC{0,8}", "[a-z]{120,200}",].prop_map(KafkaString::from)
}

fn bytes(max: usize) -> impl Strategy<Value = Bytes> {
    vec(any::<u8>(), 0..max).prop_map(Bytes::from)
}

/// Unknown tags in ascending order (as a conforming writer sends them), duplicates allowed,
/// above the tags the test structs know (0 to 2).
/// Classic versions cannot carry any, so there the strategy gives none.
fn unknown_tags(flexible: bool) -> impl Strategy<Value = UnknownTaggedFields> {
    let max = if flexible { 3 } else { 0 };
    vec((3u32..300, bytes(6)), 0..=max).prop_map(|mut fields| {
        fields.sort_by_key(|(tag, _)| *tag);
        fields
            .into_iter()
            .map(|(tag, data)| RawTaggedField { tag, data })
            .collect::<Vec<_>>()
            .into()
    })
}

/// Requests that version `version` can carry.
fn request(version: i16) -> impl Strategy<Value = WriteTxnMarkersRequest> {
    let flexible = version >= 1;
    // `transaction_version` is ignorable: before v2 it is dropped, so it can only be 0 there.
    let transaction_version = if version >= 2 {
        any::<i8>().boxed()
    } else {
        Just(0i8).boxed()
    };
    let topic = (kstring(), vec(any::<i32>(), 0..5), unknown_tags(flexible)).prop_map(
        |(name, partition_indexes, unknown_tagged_fields)| {
            WritableTxnMarkerTopic::default()
                .with_name(name)
                .with_partition_indexes(partition_indexes.into())
                .with_unknown_tagged_fields(unknown_tagged_fields)
        },
    );
    let marker = (
        any::<i64>(),
        any::<i16>(),
        any::<bool>(),
        vec(topic, 0..3),
        any::<i32>(),
        transaction_version,
        unknown_tags(flexible),
    )
        .prop_map(
            |(
                producer_id,
                producer_epoch,
                transaction_result,
                topics,
                coordinator_epoch,
                transaction_version,
                unknown_tagged_fields,
            )| {
                WritableTxnMarker::default()
                    .with_producer_id(producer_id)
                    .with_producer_epoch(producer_epoch)
                    .with_transaction_result(transaction_result)
                    .with_topics(topics)
                    .with_coordinator_epoch(coordinator_epoch)
                    .with_transaction_version(transaction_version)
                    .with_unknown_tagged_fields(unknown_tagged_fields)
            },
        );
    (vec(marker, 0..4), unknown_tags(flexible)).prop_map(|(markers, unknown_tagged_fields)| {
        WriteTxnMarkersRequest::default()
            .with_markers(markers)
            .with_unknown_tagged_fields(unknown_tagged_fields)
    })
}

/// Responses that version `version` can carry.
fn response(version: i16) -> impl Strategy<Value = WriteTxnMarkersResponse> {
    let flexible = version >= 1;
    let partition = (any::<i32>(), any::<i16>(), unknown_tags(flexible)).prop_map(
        |(partition_index, error_code, unknown_tagged_fields)| {
            WritableTxnMarkerPartitionResult::default()
                .with_partition_index(partition_index)
                .with_error_code(error_code)
                .with_unknown_tagged_fields(unknown_tagged_fields)
        },
    );
    let topic = (kstring(), vec(partition, 0..4), unknown_tags(flexible)).prop_map(
        |(name, partitions, unknown_tagged_fields)| {
            WritableTxnMarkerTopicResult::default()
                .with_name(name)
                .with_partitions(partitions)
                .with_unknown_tagged_fields(unknown_tagged_fields)
        },
    );
    let marker = (any::<i64>(), vec(topic, 0..3), unknown_tags(flexible)).prop_map(
        |(producer_id, topics, unknown_tagged_fields)| {
            WritableTxnMarkerResult::default()
                .with_producer_id(producer_id)
                .with_topics(topics)
                .with_unknown_tagged_fields(unknown_tagged_fields)
        },
    );
    (vec(marker, 0..4), unknown_tags(flexible)).prop_map(|(markers, unknown_tagged_fields)| {
        WriteTxnMarkersResponse::default()
            .with_markers(markers)
            .with_unknown_tagged_fields(unknown_tagged_fields)
    })
}

fn item() -> impl Strategy<Value = Item> {
    (kstring(), any::<i64>(), kstring(), unknown_tags(true)).prop_map(
        |(key, value, note, unknown_tagged_fields)| Item {
            key,
            value,
            note,
            unknown_tagged_fields,
        },
    )
}

fn everything() -> impl Strategy<Value = Everything> {
    let scalars = (
        any::<bool>(),
        any::<i8>(),
        any::<i16>(),
        any::<u16>(),
        any::<i32>(),
        any::<u32>(),
        any::<i64>(),
        -1e300f64..1e300,
        any::<u128>(),
    );
    let strings = (
        kstring(),
        "\\PC{0,10}",
        proptest::option::of(kstring()),
        bytes(20),
        proptest::option::of(bytes(20)),
        proptest::option::of(bytes(40)),
    );
    let arrays = (
        vec(any::<i32>(), 0..6),
        vec(kstring(), 0..4),
        proptest::option::of(vec(item(), 0..3)),
        vec(item(), 0..3),
        proptest::option::of(item()),
        item(),
    );
    let tagged = (
        any::<i32>(),
        proptest::option::of(kstring()),
        vec(item(), 0..2),
        kstring(),
        any::<i32>(),
        kstring(),
        unknown_tags(true),
    );
    (scalars, strings, arrays, tagged).prop_map(|(s, st, a, t)| Everything {
        flag: s.0,
        tiny: s.1,
        short: s.2,
        port: s.3,
        int: s.4,
        uint: s.5,
        long: s.6,
        ratio: s.7,
        id: Uuid::from_u128(s.8),
        name: st.0,
        owned: st.1,
        maybe_name: st.2,
        blob: st.3,
        maybe_blob: st.4,
        records: st.5.map(Records::new),
        ints: a.0,
        strings: a.1,
        maybe_items: a.2,
        items: a.3,
        child: a.4,
        nested: a.5,
        tagged_int: t.0,
        tagged_str: t.1,
        tagged_items: t.2,
        classic_name: t.3,
        old_ignorable: t.4,
        new_str: t.5,
        unknown_tagged_fields: t.6,
    })
}

/// Encode, check the size, decode, compare; then decode with trailing bytes to check the decoder
/// stops exactly at the end of the message.
fn round_trip<M: Message + Debug + PartialEq>(
    value: &M,
    version: i16,
) -> Result<(), TestCaseError> {
    let len = value
        .encoded_len(version)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut buf = BytesMut::new();
    value
        .encode(&mut buf, version)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(
        len,
        buf.len(),
        "encoded_len vs bytes written at v{}",
        version
    );
    let bytes = buf.freeze();
    let decoded =
        M::decode_exact(bytes.clone(), version).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&decoded, value);
    let mut with_tail = BytesMut::from(&bytes[..]);
    with_tail.extend_from_slice(b"tail");
    let mut input = with_tail.freeze();
    let again = M::decode(&mut input, version).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&again, value);
    prop_assert_eq!(&input[..], b"tail");
    // Decoding shares the input buffer instead of copying strings.
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn write_txn_markers_request((value, version) in (0i16..=2).prop_flat_map(|v| (request(v), Just(v)))) {
        round_trip(&value, version)?;
    }

    #[test]
    fn write_txn_markers_response((value, version) in (0i16..=2).prop_flat_map(|v| (response(v), Just(v)))) {
        round_trip(&value, version)?;
    }

    #[test]
    fn every_type_and_attribute(mut value in everything(), version in 0i16..=4) {
        value.fit(version);
        round_trip(&value, version)?;
    }
}

#[test]
fn decoded_strings_share_the_input() {
    let request =
        WriteTxnMarkersRequest::default().with_markers(vec![WritableTxnMarker::default()
            .with_topics(vec![WritableTxnMarkerTopic::default().with_name("orders")])]);
    let bytes = request.encode_to_bytes(1).unwrap();
    let decoded = WriteTxnMarkersRequest::decode_exact(bytes.clone(), 1).unwrap();
    let name = decoded.markers[0].topics[0].name.as_bytes();
    let range = bytes.as_ptr_range();
    assert!(
        range.contains(&name.as_ptr()),
        "the topic name points into the input buffer"
    );
}

/// Every generated message at every version: random values (seeded, so a failure names its
/// message, version and seed), encoded, sized and decoded back.
#[test]
fn every_message_at_every_version() {
    let failures = kafka_wire_tests::generated::round_trip_every_message(6);
    assert!(
        failures.is_empty(),
        "{} failures, first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}
