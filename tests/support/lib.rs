//! Shared support for the integration tests: hex, golden-vector loading, and building message
//! values from the JSON the golden-vector scripts write.

use bytes::Bytes;
use kafka_wire::messages::*;
use kafka_wire::{KafkaString, RawTaggedField, UnknownTaggedFields};
use serde_json::Value;

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from hex; panics on malformed test data.
pub fn from_hex(hex: &str) -> Vec<u8> {
    assert!(hex.len() % 2 == 0, "odd-length hex");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("valid hex"))
        .collect()
}

/// One golden vector.
pub struct Vector {
    pub case: String,
    pub message: String,
    pub version: i16,
    pub source: String,
    pub bytes: Vec<u8>,
    pub value: Value,
}

impl Vector {
    pub fn label(&self) -> String {
        format!(
            "{} v{} `{}` ({})",
            self.message, self.version, self.case, self.source
        )
    }
}

/// Loads a vector file written by a script in `tests/golden/`.
pub fn load_vectors(json: &str) -> Vec<Vector> {
    let all: Value = serde_json::from_str(json).expect("golden file is JSON");
    all.as_array()
        .expect("a list of vectors")
        .iter()
        .map(|v| Vector {
            case: v["case"].as_str().expect("case").to_owned(),
            message: v["message"].as_str().expect("message").to_owned(),
            version: v["version"].as_i64().expect("version") as i16,
            source: v["source"].as_str().expect("source").to_owned(),
            bytes: from_hex(v["hex"].as_str().expect("hex")),
            value: v["value"].clone(),
        })
        .collect()
}

/// The WriteTxnMarkers vectors.
pub fn write_txn_markers_vectors() -> Vec<Vector> {
    load_vectors(include_str!("../golden/write_txn_markers.json"))
}

fn int(v: &Value, key: &str) -> i64 {
    v[key]
        .as_i64()
        .unwrap_or_else(|| panic!("`{key}` is an integer in {v}"))
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("`{key}` is a list in {v}"))
}

fn string(v: &Value, key: &str) -> KafkaString {
    KafkaString::from(
        v[key]
            .as_str()
            .unwrap_or_else(|| panic!("`{key}` is a string"))
            .to_owned(),
    )
}

fn unknown(v: &Value) -> UnknownTaggedFields {
    list(v, "_unknown_tagged_fields")
        .iter()
        .map(|pair| RawTaggedField {
            tag: pair[0].as_u64().expect("tag") as u32,
            data: Bytes::from(from_hex(pair[1].as_str().expect("payload hex"))),
        })
        .collect::<Vec<_>>()
        .into()
}

/// A `WriteTxnMarkersRequest` from its JSON form.
pub fn write_txn_markers_request(v: &Value) -> WriteTxnMarkersRequest {
    WriteTxnMarkersRequest {
        markers: list(v, "markers")
            .iter()
            .map(|m| WritableTxnMarker {
                producer_id: int(m, "producer_id"),
                producer_epoch: int(m, "producer_epoch") as i16,
                transaction_result: m["transaction_result"].as_bool().expect("bool"),
                topics: list(m, "topics")
                    .iter()
                    .map(|t| WritableTxnMarkerTopic {
                        name: string(t, "name"),
                        partition_indexes: list(t, "partition_indexes")
                            .iter()
                            .map(|p| p.as_i64().expect("partition") as i32)
                            .collect(),
                        unknown_tagged_fields: unknown(t),
                    })
                    .collect(),
                coordinator_epoch: int(m, "coordinator_epoch") as i32,
                transaction_version: int(m, "transaction_version") as i8,
                unknown_tagged_fields: unknown(m),
            })
            .collect(),
        unknown_tagged_fields: unknown(v),
    }
}

/// A `WriteTxnMarkersResponse` from its JSON form.
pub fn write_txn_markers_response(v: &Value) -> WriteTxnMarkersResponse {
    WriteTxnMarkersResponse {
        markers: list(v, "markers")
            .iter()
            .map(|m| WritableTxnMarkerResult {
                producer_id: int(m, "producer_id"),
                topics: list(m, "topics")
                    .iter()
                    .map(|t| WritableTxnMarkerTopicResult {
                        name: string(t, "name"),
                        partitions: list(t, "partitions")
                            .iter()
                            .map(|p| WritableTxnMarkerPartitionResult {
                                partition_index: int(p, "partition_index") as i32,
                                error_code: int(p, "error_code") as i16,
                                unknown_tagged_fields: unknown(p),
                            })
                            .collect(),
                        unknown_tagged_fields: unknown(t),
                    })
                    .collect(),
                unknown_tagged_fields: unknown(m),
            })
            .collect(),
        unknown_tagged_fields: unknown(v),
    }
}
