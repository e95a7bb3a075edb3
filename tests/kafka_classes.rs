//! Vectors written by the Java classes Kafka's own message generator writes for Kafka 3.9 and
//! 4.4 (`tests/golden/kafka_classes.json`, from `tests/kafka-classes/regenerate.sh catalogue`).
//!
//! For every vector kafka-wire decodes Kafka's bytes with nothing left, encodes them again to
//! the same bytes, `encoded_len` gives their length, kafka-wire's JSON form at that version is
//! the JSON Kafka's converter wrote, and reading Kafka's JSON gives a message that encodes to
//! the same bytes. The file also declares the messages and versions of the merged releases;
//! every one of them has vectors, and they are exactly the messages and versions kafka-wire
//! has: `cargo test -p kafka-wire-tests --test kafka_classes`.
#![forbid(unsafe_code)]

use bytes::{Bytes, BytesMut};
use kafka_wire::api::BodyView;
use kafka_wire::json::{at_version, FromJson, JsonBody, JsonCodec};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::*;
use kafka_wire::{ApiSet, Decode, Encode, ViewIndex};
use kafka_wire_tests::generated::check_by_name;
use kafka_wire_tests::kafka_classes::File;
use kafka_wire_tests::{declared_messages, to_hex};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

/// The (API key, version) pairs of Kafka 3.9 and 4.4 together: every version either release
/// lists for a request, less the last version of a request its release marks unstable.
const API_VERSIONS: usize = 363;

static FILE: LazyLock<File> =
    LazyLock::new(|| File::parse(include_str!("golden/kafka_classes.json")));

#[test]
fn kafka_wire_reads_and_writes_kafkas_bytes() {
    FILE.every_vector("bytes", |v| {
        let checked = check_by_name(&v.message, &v.bytes, v.version)
            .ok_or_else(|| format!("kafka-wire has no message {}", v.message))??;
        if checked.reencoded.as_ref() != v.bytes.as_slice() {
            return Err(format!(
                "encoded again as\n  {}\nKafka's bytes\n  {}",
                to_hex(&checked.reencoded),
                to_hex(&v.bytes)
            ));
        }
        if checked.encoded_len != v.bytes.len() {
            return Err(format!(
                "encoded_len {}, Kafka's bytes are {} long",
                checked.encoded_len,
                v.bytes.len()
            ));
        }
        Ok(())
    });
}

#[test]
fn kafka_wire_json_is_kafkas_converters() {
    FILE.every_vector("JSON", |v| {
        let ours = Codec::of(&v.message)?.write(&v.bytes, v.version)?;
        v.same_json(&ours)
            .map_err(|e| format!("{e}\nKafka's JSON:\n  {}\nours:\n  {ours}", v.json))
    });
}

#[test]
fn kafkas_json_reads_into_kafka_wire_as_kafkas_bytes() {
    FILE.every_vector("JSON read", |v| {
        // Kafka's converter writes records as empty; put back the records the value held.
        let kafkas = v.json_with_records()?;
        let encoded = Codec::of(&v.message)?.read(&kafkas, v.version)?;
        if encoded != v.bytes {
            return Err(format!(
                "Kafka's JSON read and encoded as\n  {}\nKafka's bytes\n  {}\nfrom {kafkas}",
                to_hex(&encoded),
                to_hex(&v.bytes)
            ));
        }
        Ok(())
    });
}

/// kafka-wire's JSON form of one message, chosen by name: an API's request or response, a
/// header or a data schema.
enum Codec {
    Request(i16),
    Response(i16),
    Other(WriteJson, ReadJson),
}

/// Decodes bytes and writes the message in the JSON form of a version.
type WriteJson = fn(&[u8], i16) -> Result<Value, String>;
/// Reads a message from JSON and encodes it at a version.
type ReadJson = fn(&Value, i16) -> Result<Vec<u8>, String>;

impl Codec {
    fn of(name: &str) -> Result<Codec, String> {
        if let Some(api) = RequestBody::APIS.iter().find(|a| a.message() == name) {
            return Ok(Codec::Request(api.key()));
        }
        if let Some(api) = ResponseBody::APIS.iter().find(|a| a.message() == name) {
            return Ok(Codec::Response(api.key()));
        }
        fn typed<M: JsonCodec + Decode + Encode>() -> Codec {
            Codec::Other(message_json::<M>, message_bytes::<M>)
        }
        // The headers and the data schemas, which are in no API set.
        Ok(match name {
            "RequestHeader" => typed::<RequestHeader>(),
            "ResponseHeader" => typed::<ResponseHeader>(),
            "AbortedTxn" => typed::<aborted_txn::AbortedTxn>(),
            "ConsumerProtocolAssignment" => typed::<ConsumerProtocolAssignment>(),
            "ConsumerProtocolSubscription" => typed::<ConsumerProtocolSubscription>(),
            "ControlRecordTypeSchema" => {
                typed::<control_record_type_schema::ControlRecordTypeSchema>()
            }
            "DefaultPrincipalData" => typed::<default_principal_data::DefaultPrincipalData>(),
            "EndTxnMarker" => typed::<end_txn_marker::EndTxnMarker>(),
            "KRaftVersionRecord" => typed::<k_raft_version_record::KRaftVersionRecord>(),
            "LeaderChangeMessage" => typed::<leader_change_message::LeaderChangeMessage>(),
            "SnapshotFooterRecord" => typed::<snapshot_footer_record::SnapshotFooterRecord>(),
            "SnapshotHeaderRecord" => typed::<snapshot_header_record::SnapshotHeaderRecord>(),
            "VotersRecord" => typed::<voters_record::VotersRecord>(),
            other => return Err(format!("no JSON form of {other} in this test")),
        })
    }

    fn write(&self, bytes: &[u8], version: i16) -> Result<Value, String> {
        match *self {
            Codec::Request(key) => body_json::<RequestBody>(key, bytes, version),
            Codec::Response(key) => body_json::<ResponseBody>(key, bytes, version),
            Codec::Other(write, _) => write(bytes, version),
        }
    }

    fn read(&self, json: &Value, version: i16) -> Result<Vec<u8>, String> {
        match *self {
            Codec::Request(key) => body_bytes::<RequestBody>(key, json, version),
            Codec::Response(key) => body_bytes::<ResponseBody>(key, json, version),
            Codec::Other(_, read) => read(json, version),
        }
    }
}

fn body_json<S: JsonBody + PartialEq>(
    key: i16,
    bytes: &[u8],
    version: i16,
) -> Result<Value, String> {
    let mut input = Bytes::copy_from_slice(bytes);
    let body = S::decode(key, &mut input, version).map_err(|e| e.to_string())?;
    if !input.is_empty() {
        return Err(format!("{} bytes left over", input.len()));
    }
    let mut index = ViewIndex::new();
    let viewed = S::view_in(key, bytes, version, &mut index).map_err(|e| format!("view: {e}"))?;
    if viewed.api().key() != key || viewed.into_owned() != body {
        return Err("the set's view reads another body than decoding".into());
    }
    serde_json::to_value(body.body_at_version(version)).map_err(|e| e.to_string())
}

fn body_bytes<S: JsonBody>(key: i16, json: &Value, version: i16) -> Result<Vec<u8>, String> {
    let body = S::deserialize_body(key, json).map_err(|e| format!("reading JSON: {e}"))?;
    let mut out = BytesMut::new();
    body.encode(&mut out, version).map_err(|e| e.to_string())?;
    Ok(out.to_vec())
}

fn message_json<M: JsonCodec + Decode>(bytes: &[u8], version: i16) -> Result<Value, String> {
    let message = M::from_slice(bytes, version).map_err(|e| e.to_string())?;
    serde_json::to_value(at_version(&message, version)).map_err(|e| e.to_string())
}

fn message_bytes<M: JsonCodec + Encode>(json: &Value, version: i16) -> Result<Vec<u8>, String> {
    let message = serde_json::from_value::<FromJson<M>>(json.clone())
        .map_err(|e| format!("reading JSON: {e}"))?
        .0;
    let bytes = message
        .encode_to_bytes(version)
        .map_err(|e| e.to_string())?;
    Ok(bytes.to_vec())
}

#[test]
fn vectors_cover_every_api_version_of_both_releases() {
    let file = &*FILE;
    let with_vectors: BTreeSet<(&str, i16)> = file
        .vectors
        .iter()
        .map(|v| (v.message.as_str(), v.version))
        .collect();
    let declared: BTreeSet<(&str, i16)> = file
        .messages
        .iter()
        .flat_map(|m| m.versions.iter().map(move |v| (m.name.as_str(), *v)))
        .collect();
    let missing: Vec<_> = declared.difference(&with_vectors).collect();
    assert!(missing.is_empty(), "declared, without vectors: {missing:?}");
    let undeclared: Vec<_> = with_vectors.difference(&declared).collect();
    assert!(
        undeclared.is_empty(),
        "vectors of undeclared versions: {undeclared:?}"
    );

    // The API versions: each request version with its response.
    let side = |kind: &str| -> BTreeMap<(i16, i16), &str> {
        file.messages
            .iter()
            .filter(|m| m.kind == kind)
            .flat_map(|m| {
                let key = m.api_key.expect("an API's message has a key");
                m.versions.iter().map(move |v| ((key, *v), m.name.as_str()))
            })
            .collect()
    };
    let (requests, responses) = (side("request"), side("response"));
    assert_eq!(requests.len(), API_VERSIONS, "API versions declared");
    let requests_pairs: Vec<_> = requests.keys().collect();
    let responses_pairs: Vec<_> = responses.keys().collect();
    assert_eq!(
        requests_pairs, responses_pairs,
        "every request version has its response version"
    );

    // They are the APIs and versions kafka-wire has, and the file's messages are its messages.
    let apis = |set: &[kafka_wire::api::ApiInfo]| -> BTreeMap<(i16, i16), &str> {
        set.iter()
            .flat_map(|a| {
                let r = a.versions();
                (r.start().unwrap()..=r.end().unwrap()).map(move |v| ((a.key(), v), a.message()))
            })
            .collect()
    };
    assert_eq!(apis(RequestBody::APIS), requests, "kafka-wire's requests");
    assert_eq!(
        apis(ResponseBody::APIS),
        responses,
        "kafka-wire's responses"
    );
    let ours: BTreeSet<(&str, i16)> = declared_messages()
        .iter()
        .flat_map(|m| {
            let r = m.versions;
            (r.start().unwrap()..=r.end().unwrap()).map(move |v| (m.name, v))
        })
        .collect();
    assert_eq!(ours, declared, "kafka-wire's messages and versions");
}
