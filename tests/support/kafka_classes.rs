//! Vectors written by the Java classes Kafka's own message generator writes
//! (`tests/kafka-classes/regenerate.sh`): the file they are kept in, and the comparison of
//! kafka-wire's JSON form with the JSON Kafka's converters write.

use crate::from_hex;
use serde_json::Value;

/// How many failures a test prints in full; it counts all of them.
const SHOWN: usize = 20;

/// One vector: a value, and what Kafka's classes made of it.
pub struct Vector {
    pub message: String,
    pub version: i16,
    pub case: i64,
    /// The name of a case chosen by hand.
    pub label: Option<String>,
    pub class: String,
    /// The value handed to Kafka's converter.
    pub value: Value,
    /// JSON pointers of the records fields, which Kafka's converter writes as empty.
    pub records: Vec<String>,
    pub bytes: Vec<u8>,
    /// What Kafka's converter wrote.
    pub json: Value,
}

impl Vector {
    pub fn label(&self) -> String {
        let case = match &self.label {
            Some(label) => label.clone(),
            None => format!("case {}", self.case),
        };
        format!("{} v{} {case} ({})", self.message, self.version, self.class)
    }

    /// Kafka's JSON with the records the value held put back where Kafka's converter wrote
    /// them as empty: JSON that reads into the message Kafka encoded.
    pub fn json_with_records(&self) -> Result<Value, String> {
        let mut json = self.json.clone();
        for pointer in &self.records {
            let given = self
                .value
                .pointer(pointer)
                .ok_or_else(|| format!("the value has no {pointer}"))?;
            *json
                .pointer_mut(pointer)
                .ok_or_else(|| format!("Kafka's JSON has no {pointer}"))? = given.clone();
        }
        Ok(json)
    }

    /// Kafka's JSON and `ours` agree: the same keys, the same array lengths, equal integers,
    /// strings, booleans and nulls, floats equal as numbers. At a records field Kafka writes
    /// `""` (or null), and ours must hold the records that the value handed to Kafka held.
    pub fn same_json(&self, ours: &Value) -> Result<(), String> {
        self.same_json_at(&self.json, ours, "")
    }

    fn same_json_at(&self, kafkas: &Value, ours: &Value, at: &str) -> Result<(), String> {
        if self.records.iter().any(|p| p == at) {
            let given = self
                .value
                .pointer(at)
                .ok_or_else(|| format!("{at}: not in the value"))?;
            let empty = if given.is_null() {
                Value::Null
            } else {
                Value::from("")
            };
            if *kafkas != empty {
                return Err(format!("{at}: Kafka wrote {kafkas} for records {given}"));
            }
            return if ours == given {
                Ok(())
            } else {
                Err(format!("{at}: records {ours}, the value held {given}"))
            };
        }
        match (kafkas, ours) {
            (Value::Object(k), Value::Object(o)) => {
                let missing: Vec<&String> = k.keys().filter(|n| !o.contains_key(*n)).collect();
                let extra: Vec<&String> = o.keys().filter(|n| !k.contains_key(*n)).collect();
                if !missing.is_empty() || !extra.is_empty() {
                    return Err(format!(
                        "{at}: fields only Kafka wrote {missing:?}, only we wrote {extra:?}"
                    ));
                }
                for (name, kv) in k {
                    self.same_json_at(kv, &o[name], &format!("{at}/{}", escape(name)))?;
                }
                Ok(())
            }
            (Value::Array(k), Value::Array(o)) => {
                if k.len() != o.len() {
                    return Err(format!("{at}: {} elements, ours {}", k.len(), o.len()));
                }
                for (i, (kv, ov)) in k.iter().zip(o).enumerate() {
                    self.same_json_at(kv, ov, &format!("{at}/{i}"))?;
                }
                Ok(())
            }
            (Value::Number(k), Value::Number(o)) if k.is_f64() || o.is_f64() => {
                match (k.as_f64(), o.as_f64()) {
                    (Some(a), Some(b)) if a == b => Ok(()),
                    _ => Err(format!("{at}: Kafka {k}, ours {o}")),
                }
            }
            (k, o) if k == o => Ok(()),
            (k, o) => Err(format!("{at}: Kafka {k}, ours {o}")),
        }
    }
}

/// A JSON pointer's escaping of one name (RFC 6901).
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A message the file declares, with the versions it has vectors for.
pub struct Listed {
    pub name: String,
    pub kind: String,
    pub api_key: Option<i16>,
    pub versions: Vec<i16>,
    /// Its last version is marked unstable (listed only where the file keeps such versions).
    pub unstable: bool,
}

/// A vector file.
pub struct File {
    pub messages: Vec<Listed>,
    pub vectors: Vec<Vector>,
}

impl File {
    /// Reads a vector file's text; panics on a malformed file.
    pub fn parse(text: &str) -> File {
        let all: Value = serde_json::from_str(text).expect("a vector file is JSON");
        let int = |v: &Value| v.as_i64().map(|n| i16::try_from(n).expect("an i16"));
        let messages = all["messages"]
            .as_array()
            .expect("a list of messages")
            .iter()
            .map(|m| Listed {
                name: m["name"].as_str().expect("name").to_owned(),
                kind: m["type"].as_str().expect("type").to_owned(),
                api_key: int(&m["apiKey"]),
                versions: m["versions"]
                    .as_array()
                    .expect("versions")
                    .iter()
                    .map(|v| int(v).expect("a version"))
                    .collect(),
                unstable: m["latestVersionUnstable"].as_bool().unwrap_or(false),
            })
            .collect();
        let vectors = all["vectors"]
            .as_array()
            .expect("a list of vectors")
            .iter()
            .map(|v| Vector {
                message: v["message"].as_str().expect("message").to_owned(),
                version: int(&v["version"]).expect("version"),
                case: v["case"].as_i64().expect("case"),
                label: v["label"].as_str().map(str::to_owned),
                class: v["class"].as_str().expect("class").to_owned(),
                value: v["value"].clone(),
                records: v["records"]
                    .as_array()
                    .expect("records")
                    .iter()
                    .map(|p| p.as_str().expect("a JSON pointer").to_owned())
                    .collect(),
                bytes: from_hex(v["hex"].as_str().expect("hex")),
                json: v["json"].clone(),
            })
            .collect();
        File { messages, vectors }
    }

    /// Runs `check` on every vector; fails listing the first failures and counting all of
    /// them.
    pub fn every_vector(&self, what: &str, check: impl Fn(&Vector) -> Result<(), String>) {
        assert!(!self.vectors.is_empty(), "no vectors");
        let failures: Vec<String> = self
            .vectors
            .iter()
            .filter_map(|v| check(v).err().map(|e| format!("{}: {e}", v.label())))
            .collect();
        assert!(
            failures.is_empty(),
            "{what}: {} of {} vectors failed; the first {}:\n\n{}",
            failures.len(),
            self.vectors.len(),
            failures.len().min(SHOWN),
            failures
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n\n")
        );
    }

    /// The vector chosen by hand under `label`; panics when there is none.
    pub fn labelled(&self, label: &str) -> &Vector {
        self.vectors
            .iter()
            .find(|v| v.label.as_deref() == Some(label))
            .unwrap_or_else(|| panic!("no vector labelled {label}"))
    }
}
