//! Shared support for the integration tests: hex, golden-vector loading, and building message
//! values from the JSON the golden-vector scripts write.
#![forbid(unsafe_code)]

pub mod batches;
pub mod generated;
pub mod json;
pub mod kafka_classes;
pub mod random;

pub use generated::declared_messages;

use bytes::Bytes;
use kafka_wire::messages::write_txn_markers_request::*;
use kafka_wire::messages::write_txn_markers_response::*;
use kafka_wire::{KafkaString, RawTaggedField, UnknownTaggedFields};
use serde_json::Value;

/// What a generated message declares through the derive: `Message` (and `ApiMessage`)
/// metadata and the `Fields` of each of its structs, top-level struct first.
pub struct Declared {
    pub name: &'static str,
    pub api_key: Option<i16>,
    pub versions: kafka_wire::VersionRange,
    pub flexible: kafka_wire::VersionRange,
    pub structs: Vec<(&'static str, &'static [kafka_wire::FieldInfo])>,
}

/// Lower-case hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from hex; panics on malformed test data.
pub fn from_hex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd-length hex");
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

/// The catalogue vectors (many APIs and versions), parsed once per test binary.
pub fn catalogue_vectors() -> &'static [Vector] {
    static VECTORS: std::sync::LazyLock<Vec<Vector>> =
        std::sync::LazyLock::new(|| load_vectors(include_str!("../golden/catalogue.json")));
    &VECTORS
}

/// The WriteTxnMarkers vectors, parsed once per test binary.
pub fn write_txn_markers_vectors() -> &'static [Vector] {
    static VECTORS: std::sync::LazyLock<Vec<Vector>> =
        std::sync::LazyLock::new(|| load_vectors(include_str!("../golden/write_txn_markers.json")));
    &VECTORS
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
    WriteTxnMarkersRequest::default()
        .with_markers(
            list(v, "markers")
                .iter()
                .map(|m| {
                    WritableTxnMarker::default()
                        .with_producer_id(int(m, "producer_id"))
                        .with_producer_epoch(int(m, "producer_epoch") as i16)
                        .with_transaction_result(m["transaction_result"].as_bool().expect("bool"))
                        .with_topics(
                            list(m, "topics")
                                .iter()
                                .map(|t| {
                                    WritableTxnMarkerTopic::default()
                                        .with_name(string(t, "name"))
                                        .with_partition_indexes(
                                            list(t, "partition_indexes")
                                                .iter()
                                                .map(|p| p.as_i64().expect("partition") as i32)
                                                .collect(),
                                        )
                                        .with_unknown_tagged_fields(unknown(t))
                                })
                                .collect(),
                        )
                        .with_coordinator_epoch(int(m, "coordinator_epoch") as i32)
                        .with_transaction_version(int(m, "transaction_version") as i8)
                        .with_unknown_tagged_fields(unknown(m))
                })
                .collect(),
        )
        .with_unknown_tagged_fields(unknown(v))
}

/// A `WriteTxnMarkersResponse` from its JSON form.
pub fn write_txn_markers_response(v: &Value) -> WriteTxnMarkersResponse {
    WriteTxnMarkersResponse::default()
        .with_markers(
            list(v, "markers")
                .iter()
                .map(|m| {
                    WritableTxnMarkerResult::default()
                        .with_producer_id(int(m, "producer_id"))
                        .with_topics(
                            list(m, "topics")
                                .iter()
                                .map(|t| {
                                    WritableTxnMarkerTopicResult::default()
                                        .with_name(string(t, "name"))
                                        .with_partitions(
                                            list(t, "partitions")
                                                .iter()
                                                .map(|p| {
                                                    WritableTxnMarkerPartitionResult::default()
.with_partition_index(int(p, "partition_index") as i32)
.with_error_code(int(p, "error_code") as i16)
.with_unknown_tagged_fields(unknown(p))
                                                })
                                                .collect(),
                                        )
                                        .with_unknown_tagged_fields(unknown(t))
                                })
                                .collect(),
                        )
                        .with_unknown_tagged_fields(unknown(m))
                })
                .collect(),
        )
        .with_unknown_tagged_fields(unknown(v))
}

pub mod sink {
    //! A message that uses every type and attribute the derive supports, for behaviour and
    //! property tests.

    use bytes::Bytes;
    use kafka_wire::{KafkaMessage, KafkaString, Records, UnknownTaggedFields, Uuid};

    #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
    #[kafka(key = 1000, versions = "0-4", flexible = "2+")]
    pub struct Everything {
        #[kafka(versions = "0+")]
        pub flag: bool,
        #[kafka(versions = "0+")]
        pub tiny: i8,
        #[kafka(versions = "0+")]
        pub short: i16,
        #[kafka(versions = "0+")]
        pub port: u16,
        #[kafka(versions = "0+")]
        pub int: i32,
        #[kafka(versions = "0+")]
        pub uint: u32,
        #[kafka(versions = "0+")]
        pub long: i64,
        #[kafka(versions = "1+", ignorable)]
        pub ratio: f64,
        #[kafka(versions = "0+")]
        pub id: Uuid,
        #[kafka(versions = "0+")]
        pub name: KafkaString,
        #[kafka(versions = "0+")]
        pub owned: String,
        #[kafka(versions = "0+", nullable = "1+")]
        pub maybe_name: Option<KafkaString>,
        #[kafka(versions = "0+")]
        pub blob: Bytes,
        #[kafka(versions = "0+", nullable = "0+")]
        pub maybe_blob: Option<Bytes>,
        #[kafka(versions = "0+", nullable = "0+")]
        pub records: Option<Records>,
        #[kafka(versions = "0+")]
        pub ints: Vec<i32>,
        #[kafka(versions = "0+")]
        pub strings: Vec<KafkaString>,
        #[kafka(versions = "1+", nullable = "1+", ignorable)]
        pub maybe_items: Option<Vec<Item>>,
        #[kafka(versions = "0+")]
        pub items: Vec<Item>,
        #[kafka(versions = "3+", nullable = "3+", default = "null", ignorable)]
        pub child: Option<Item>,
        #[kafka(versions = "0+")]
        pub nested: Item,
        #[kafka(versions = "3+", tag = 0, tagged = "3+", default = -1)]
        pub tagged_int: i32,
        #[kafka(
            versions = "3+",
            tag = 1,
            tagged = "3+",
            nullable = "3+",
            default = "null"
        )]
        pub tagged_str: Option<KafkaString>,
        #[kafka(versions = "2+", tag = 2, tagged = "2+")]
        pub tagged_items: Vec<Item>,
        #[kafka(versions = "0+", flexible = "none")]
        pub classic_name: KafkaString,
        #[kafka(versions = "0-3", ignorable)]
        pub old_ignorable: i32,
        #[kafka(versions = "4+", default = "dflt")]
        pub new_str: KafkaString,
        #[kafka(unknown_tagged_fields)]
        pub unknown_tagged_fields: UnknownTaggedFields,
    }

    #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
    pub struct Item {
        #[kafka(versions = "0+")]
        pub key: KafkaString,
        #[kafka(versions = "0+")]
        pub value: i64,
        #[kafka(versions = "4+", tag = 0, tagged = "4+")]
        pub note: KafkaString,
        #[kafka(unknown_tagged_fields)]
        pub unknown_tagged_fields: UnknownTaggedFields,
    }

    impl Everything {
        /// The schema defaults, where they differ from Rust's.
        pub fn schema_default() -> Self {
            Everything {
                tagged_int: -1,
                new_str: KafkaString::from_static("dflt"),
                ..Default::default()
            }
        }

        /// Clears what `version` cannot carry, so the value survives a round trip there.
        pub fn fit(&mut self, version: i16) {
            let flexible = version >= 2;
            let d = Self::schema_default();
            if version < 1 {
                self.ratio = d.ratio;
                // Absent, it reads as its default: as in Kafka, the empty array, not null.
                self.maybe_items = Some(Vec::new());
                self.maybe_name.get_or_insert_with(Default::default);
            }
            if version < 3 {
                self.child = d.child;
                self.tagged_int = d.tagged_int;
                self.tagged_str = d.tagged_str;
            }
            if !flexible {
                self.tagged_items.clear();
                self.unknown_tagged_fields = Default::default();
            }
            if version > 3 {
                self.old_ignorable = d.old_ignorable;
            }
            if version < 4 {
                self.new_str = d.new_str.clone();
            }
            for item in self.all_items_mut() {
                item.fit(version);
            }
        }

        fn all_items_mut(&mut self) -> impl Iterator<Item = &mut Item> {
            self.items
                .iter_mut()
                .chain(self.maybe_items.iter_mut().flatten())
                .chain(self.child.iter_mut())
                .chain(std::iter::once(&mut self.nested))
                .chain(self.tagged_items.iter_mut())
        }
    }

    impl Item {
        pub fn fit(&mut self, version: i16) {
            if version < 4 {
                self.note = KafkaString::default();
            }
            if version < 2 {
                self.unknown_tagged_fields = Default::default();
            }
        }
    }
}
