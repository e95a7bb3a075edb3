//! The JSON form (kafka-wire's `serde` feature): every golden vector goes bytes -> JSON ->
//! bytes unchanged, and every field of every message has the JSON name Kafka's converters give
//! it (the schema's name with its first letter in lower case, from the facts manifest).
#![forbid(unsafe_code)]

use bytes::{Bytes, BytesMut};
use kafka_wire::json::{at_version, every_field, FromJson, JsonBody, JsonCodec};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::*;
use kafka_wire::{ApiSet, Decode, Encode};
use kafka_wire_tests::*;
use serde_json::Value;
use std::fmt::Debug;

const FACTS: &str = include_str!("../kafka-wire/src/messages/facts.json");

/// A message read from its JSON: the value and the JSON of the version and with every field.
fn same<T: PartialEq + Debug>(read: T, decoded: &T, json: &str) -> Result<(), String> {
    if read == *decoded {
        Ok(())
    } else {
        Err(format!(
            "read back {read:?}\ndecoded {decoded:?}\nfrom {json}"
        ))
    }
}

fn check_bytes(encoded: &[u8], bytes: &[u8], json: &str) -> Result<(), String> {
    if encoded == bytes {
        Ok(())
    } else {
        Err(format!(
            "re-encoded {}\nexpected {}\nfrom {json}",
            to_hex(encoded),
            to_hex(bytes)
        ))
    }
}

/// A message of known type: bytes -> value -> JSON of the version -> value -> bytes, and the
/// same value through the JSON with every field.
fn message<M: JsonCodec + Decode + Encode + PartialEq + Debug>(
    bytes: &[u8],
    version: i16,
) -> Result<(), String> {
    let decoded = M::from_slice(bytes, version).map_err(|e| e.to_string())?;
    let json = serde_json::to_string(&at_version(&decoded, version)).map_err(|e| e.to_string())?;
    let read = serde_json::from_str::<FromJson<M>>(&json)
        .map_err(|e| format!("{e}: {json}"))?
        .0;
    let encoded = read.encode_to_bytes(version).map_err(|e| e.to_string())?;
    same(read, &decoded, &json)?;
    check_bytes(&encoded, bytes, &json)?;
    let every = serde_json::to_string(&every_field(&decoded)).map_err(|e| e.to_string())?;
    let read = serde_json::from_str::<FromJson<M>>(&every)
        .map_err(|e| format!("{e}: {every}"))?
        .0;
    same(read, &decoded, &every)
}

/// A body of an API set, chosen by key at run time.
fn body<S: JsonBody + PartialEq + Debug>(
    key: i16,
    bytes: &[u8],
    version: i16,
) -> Result<(), String> {
    let mut input = Bytes::copy_from_slice(bytes);
    let decoded = S::decode(key, &mut input, version).map_err(|e| e.to_string())?;
    if !input.is_empty() {
        return Err(format!("{} bytes left over", input.len()));
    }
    let json =
        serde_json::to_string(&decoded.body_at_version(version)).map_err(|e| e.to_string())?;
    let read = S::deserialize_body(key, &mut serde_json::Deserializer::from_str(&json))
        .map_err(|e| format!("{e}: {json}"))?;
    let mut encoded = BytesMut::new();
    read.encode(&mut encoded, version)
        .map_err(|e| e.to_string())?;
    same(read, &decoded, &json)?;
    check_bytes(&encoded, bytes, &json)
}

fn by_name(name: &str, bytes: &[u8], version: i16) -> Result<(), String> {
    if let Some(api) = RequestBody::APIS.iter().find(|a| a.message() == name) {
        return body::<RequestBody>(api.key(), bytes, version);
    }
    if let Some(api) = ResponseBody::APIS.iter().find(|a| a.message() == name) {
        return body::<ResponseBody>(api.key(), bytes, version);
    }
    match name {
        "RequestHeader" => message::<RequestHeader>(bytes, version),
        "ResponseHeader" => message::<ResponseHeader>(bytes, version),
        other => Err(format!("no message named {other}")),
    }
}

#[test]
fn every_golden_vector_goes_through_json_unchanged() {
    let mut failures = Vec::new();
    let mut count = 0;
    for vector in catalogue_vectors()
        .iter()
        .chain(write_txn_markers_vectors())
    {
        count += 1;
        if let Err(e) = by_name(&vector.message, &vector.bytes, vector.version) {
            failures.push(format!("{}: {e}", vector.label()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(count >= 250, "only {count} vectors");
}

/// A JSON document for struct `name` of a message's facts with every struct field filled in
/// (one element for an array of structs), so that reading it and writing it back with every
/// field shows the JSON name of every field at every depth.
fn filled(structs: &[Value], name: &str) -> Value {
    let mut doc = serde_json::Map::new();
    let Some(s) = structs.iter().find(|s| s["name"] == name) else {
        return Value::Object(doc);
    };
    for field in s["fields"].as_array().into_iter().flatten() {
        let ty = field["type"].as_str().unwrap_or_default();
        let elem = ty.strip_prefix("[]");
        let inner = elem.unwrap_or(ty);
        if structs.iter().any(|s| s["name"] == inner) {
            let value = filled(structs, inner);
            let value = if elem.is_some() {
                Value::Array(vec![value])
            } else {
                value
            };
            doc.insert(
                field["json_name"].as_str().unwrap_or_default().to_owned(),
                value,
            );
        }
    }
    Value::Object(doc)
}

/// Compares the keys of `written` with the JSON names of struct `name`, at every depth.
fn compare_names(
    structs: &[Value],
    name: &str,
    written: &Value,
    at: &str,
    problems: &mut Vec<String>,
) {
    let Some(s) = structs.iter().find(|s| s["name"] == name) else {
        return;
    };
    let fields = s["fields"].as_array().cloned().unwrap_or_default();
    // Compared as sets: serde_json's maps are sorted, or in insertion order where another crate
    // of the build turns on its `preserve_order`, as the workspace's does.
    let mut expected: Vec<&str> = fields
        .iter()
        .filter_map(|f| f["json_name"].as_str())
        .collect();
    expected.sort_unstable();
    let Some(object) = written.as_object() else {
        problems.push(format!("{at}: not an object: {written}"));
        return;
    };
    let mut ours: Vec<&str> = object.keys().map(String::as_str).collect();
    ours.sort_unstable();
    if ours != expected {
        problems.push(format!(
            "{at}: JSON names {ours:?}, schema names {expected:?}"
        ));
        return;
    }
    for field in &fields {
        let ty = field["type"].as_str().unwrap_or_default();
        let inner = ty.strip_prefix("[]").unwrap_or(ty);
        let key = field["json_name"].as_str().unwrap_or_default();
        let value = match &object[key] {
            Value::Array(items) if ty.starts_with("[]") => {
                items.first().cloned().unwrap_or(Value::Null)
            }
            other => other.clone(),
        };
        if structs.iter().any(|s| s["name"] == inner) {
            compare_names(structs, inner, &value, &format!("{at}.{key}"), problems);
        }
    }
}

/// Reads `doc` as the message `fact` describes and writes it back with every field.
fn read_and_write(fact: &Value, doc: &Value) -> Result<Value, String> {
    let name = fact["name"].as_str().unwrap_or_default();
    let key = fact["api_key"].as_i64().map(|k| k as i16);
    let text = doc.to_string();
    let mut de = serde_json::Deserializer::from_str(&text);
    let out = match (fact["kind"].as_str(), key) {
        (Some("request"), Some(key)) => {
            let body = RequestBody::deserialize_body(key, &mut de).map_err(|e| e.to_string())?;
            serde_json::to_value(BodyEvery(body))
        }
        (Some("response"), Some(key)) => {
            let body = ResponseBody::deserialize_body(key, &mut de).map_err(|e| e.to_string())?;
            serde_json::to_value(BodyEvery(body))
        }
        _ => return data_schema(name, &text),
    };
    out.map_err(|e| e.to_string())
}

/// A body written with every field.
struct BodyEvery<B>(B);

impl<B: JsonBody> serde::Serialize for BodyEvery<B> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_body(None, s)
    }
}

fn written<M: JsonCodec>(text: &str) -> Result<Value, String> {
    let value = serde_json::from_str::<FromJson<M>>(text)
        .map_err(|e| e.to_string())?
        .0;
    serde_json::to_value(every_field(&value)).map_err(|e| e.to_string())
}

/// The headers and Kafka's data schemas, which are in no API set.
fn data_schema(name: &str, text: &str) -> Result<Value, String> {
    match name {
        "RequestHeader" => written::<RequestHeader>(text),
        "ResponseHeader" => written::<ResponseHeader>(text),
        "AbortedTxn" => written::<aborted_txn::AbortedTxn>(text),
        "ConsumerProtocolAssignment" => written::<ConsumerProtocolAssignment>(text),
        "ConsumerProtocolSubscription" => written::<ConsumerProtocolSubscription>(text),
        "ControlRecordTypeSchema" => {
            written::<control_record_type_schema::ControlRecordTypeSchema>(text)
        }
        "DefaultPrincipalData" => written::<default_principal_data::DefaultPrincipalData>(text),
        "EndTxnMarker" => written::<end_txn_marker::EndTxnMarker>(text),
        "KRaftVersionRecord" => written::<k_raft_version_record::KRaftVersionRecord>(text),
        "LeaderChangeMessage" => written::<leader_change_message::LeaderChangeMessage>(text),
        "SnapshotFooterRecord" => written::<snapshot_footer_record::SnapshotFooterRecord>(text),
        "SnapshotHeaderRecord" => written::<snapshot_header_record::SnapshotHeaderRecord>(text),
        "VotersRecord" => written::<voters_record::VotersRecord>(text),
        other => Err(format!("{other}: not a data schema this test knows")),
    }
}

#[test]
fn every_field_has_kafkas_json_name() {
    let facts: Vec<Value> = serde_json::from_str(FACTS).expect("facts.json is JSON");
    let mut problems = Vec::new();
    let mut fields = 0;
    for fact in &facts {
        let name = fact["name"].as_str().unwrap_or_default();
        let structs = fact["structs"].as_array().cloned().unwrap_or_default();
        fields += structs
            .iter()
            .map(|s| s["fields"].as_array().map_or(0, Vec::len))
            .sum::<usize>();
        let doc = filled(&structs, name);
        match read_and_write(fact, &doc) {
            Ok(written) => compare_names(&structs, name, &written, name, &mut problems),
            Err(e) => problems.push(format!("{name}: {e}")),
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(
        facts.len() >= 200 && fields >= 1700,
        "{} messages, {fields} fields",
        facts.len()
    );
}
