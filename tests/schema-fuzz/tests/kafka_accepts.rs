//! Schemas Kafka's generator takes that kafka-wire once refused or got wrong, one test each,
//! with the bytes and JSON Kafka's own classes write for them (`vectors/cases.json`, from the
//! values `cases.json` chooses; the schemas are in `schemas/cases`). Each test builds the value
//! it expects by hand and holds the generated message to Kafka's vector both ways.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::json::{at_version, JsonCodec};
use kafka_wire::{Decode, Encode, IntArray, KafkaString, Message, Uuid};
use kafka_wire_schema_fuzz::cases::*;
use kafka_wire_tests::kafka_classes::{File, Vector};
use kafka_wire_tests::to_hex;
use std::fmt::Debug;
use std::sync::LazyLock;

static CASES: LazyLock<File> = LazyLock::new(|| File::parse(include_str!("../vectors/cases.json")));

/// `expected` is what Kafka's bytes read into, and what kafka-wire writes them from; its JSON
/// form is the one Kafka's converter wrote.
fn holds<M: Message + JsonCodec + Debug + PartialEq>(label: &str, expected: &M) -> &'static Vector {
    let v = CASES.labelled(label);
    let read = M::decode_exact(Bytes::from(v.bytes.clone()), v.version)
        .unwrap_or_else(|e| panic!("{label}: Kafka's bytes do not decode: {e}"));
    assert_eq!(&read, expected, "{label}: Kafka's bytes read");
    let written = expected
        .encode_to_bytes(v.version)
        .unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(to_hex(&written), to_hex(&v.bytes), "{label}: bytes written");
    let json = serde_json::to_value(at_version(expected, v.version)).expect("JSON");
    v.same_json(&json)
        .unwrap_or_else(|e| panic!("{label}: JSON {json} against Kafka's {}: {e}", v.json));
    v
}

/// In a tagged field, a nullable struct's presence is an unsigned varint, 0 for null, not the
/// byte -1 of an untagged one.
#[test]
fn tagged_null_struct() {
    use tagged_null_struct::{Inner, TaggedNullStruct};
    let null = holds(
        "tagged_null_struct",
        &TaggedNullStruct::default().with_s(None),
    );
    assert_eq!(to_hex(&null.bytes), "01000100");
    let present = TaggedNullStruct::default().with_s(Some(Inner::default().with_a(7)));
    holds("tagged_present_struct", &present);
}

/// `"default": ""` on a nullable array or bytes is the empty value, not null: in `Default`, in
/// the JSON form, and as what a version without the field holds.
#[test]
fn empty_default() {
    use empty_default::{EmptyDefault, Inner};
    let default = EmptyDefault::default();
    assert_eq!(default.data, Some(Bytes::new()));
    assert_eq!(default.s, Inner::default().with_names(Some(Vec::new())));
    let v = holds("empty_default", &default);
    assert_eq!(to_hex(&v.bytes), "0000000000000000");
    // Version 1 has no `S`: the default struct is what it holds, and is written without error.
    holds("empty_default_struct_absent", &default);
    let json = serde_json::to_value(at_version(&default, 0)).expect("JSON");
    assert_eq!(json["s"]["names"], serde_json::json!([]));
}

/// A tagged field in a struct whose field ends before its message does: its tagged range is
/// open, as Kafka's rule has it, though the struct is not in every version.
#[test]
fn tagged_field_in_a_struct_that_ends_early() {
    use tag_in_struct::{Inner, TagInStruct};
    let v = holds(
        "tag_in_struct",
        &TagInStruct::default().with_s(Inner::default().with_t(5)),
    );
    assert_eq!(to_hex(&v.bytes), "0100040000000500");
    holds("tag_in_struct_absent", &TagInStruct::default());
}

/// A uuid default is Kafka's text form of one, URL-safe base64 with or without padding.
#[test]
fn uuid_default() {
    use uuid_default::UuidDefault;
    let default = UuidDefault::default();
    assert_eq!(
        (default.id, default.later),
        (Uuid::from_u128(1), Uuid::from_u128(1))
    );
    let v = holds("uuid_default", &default);
    assert_eq!(
        to_hex(&v.bytes),
        "0000000000000000000000000000000100000000000000000000000000000001"
    );
}

/// A field's JSON name is the schema's name with its first letter lowered (`topicID`), not one
/// rebuilt from the Rust name; two schema names with one Rust name get two Rust names.
#[test]
fn json_name_from_the_schema_name() {
    use acronym_json_name::AcronymJsonName;
    let value = AcronymJsonName::default()
        .with_topic_id(1)
        .with_isr_replicas(IntArray::from(vec![3]))
        .with_isr_replicas_2(2);
    let v = holds("acronym_json_name", &value);
    let mut keys: Vec<&String> = v.json.as_object().expect("an object").keys().collect();
    keys.sort();
    assert_eq!(keys, ["iSRReplicas", "isrReplicas", "topicID"]);
}

/// Structs named as Rust's types (`Box`, `Option`, `Vec`, `Default`) and a field named as a
/// keyword compile, and are read as the schema's structs.
#[test]
fn struct_names_that_are_rusts() {
    use rust_struct_names::{Box, Default, Option, RustStructNames, Vec};
    let value = RustStructNames::default()
        .with_boxes(vec![Box::default().with_size(2)])
        .with_maybe(None)
        .with_items(Vec::default().with_count(3))
        .with_defaults(Some(vec![<Default as core::default::Default>::default()]))
        .with_type(1);
    holds("rust_struct_names", &value);
    let value = RustStructNames::default()
        .with_maybe(Some(
            Option::default().with_value(KafkaString::from_static("x")),
        ))
        .with_items(Vec::default().with_count(-1))
        .with_defaults(None)
        .with_type(-1);
    holds("rust_struct_names_present", &value);
}

/// Leaving out a request's unstable last version leaves its tagged field's tag unused; the
/// tags after it keep their numbers.
#[test]
fn tag_gap_left_by_an_unstable_version() {
    use unstable_tag_gap_request::UnstableTagGapRequest;
    assert_eq!(UnstableTagGapRequest::VERSIONS.end(), Some(0));
    let v = holds(
        "unstable_tag_gap",
        &UnstableTagGapRequest::default().with_kept(3),
    );
    assert_eq!(to_hex(&v.bytes), "01010400000003");
}
