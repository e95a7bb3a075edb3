//! The JSON form of owned record batches: the batch fields under the names Kafka's
//! `kafka-dump-log` prints, the records with keys, values and header values in base64.
//!
//! ```
//! use kafka_wire::records::{Record, RecordBatch, RecordBatchBuilder};
//!
//! let batch = RecordBatchBuilder::new()
//!     .producer(4000, 2, 17)
//!     .record(Record::new(Some("k".into()), Some("v".into())).with_timestamp(1_700_000_000_000))
//!     .build();
//! let json = serde_json::to_string(&batch)?;
//! assert!(json.starts_with(r#"{"baseOffset":0,"partitionLeaderEpoch":-1,"magic":2,"#));
//! assert!(json.contains(r#""records":[{"offset":0,"timestamp":1700000000000,"key":"aw==","value":"dg==","headers":[]}]"#));
//! assert_eq!(serde_json::from_str::<RecordBatch>(&json)?, batch);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::batch::{BatchHeader, TimestampType};
use crate::owned::{Header, Record, RecordBatch};
use bytes::Bytes;
use core::fmt;
use kafka_wire_core::__private::json::{field, next_field, next_key};
use kafka_wire_core::json::{FromJson, JsonCodec};
use kafka_wire_core::KafkaString;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// `Serialize` and `Deserialize` through the type's `JsonCodec`.
macro_rules! serde_through_json {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                self.serialize_json(None, s)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$t as JsonCodec>::deserialize_json(d)
            }
        }
    )*};
}
serde_through_json!(RecordBatch, Record, Header);

/// `CreateTime` or `LogAppendTime`, as Kafka's tools print them.
impl JsonCodec for TimestampType {
    fn serialize_json<S: Serializer>(&self, _: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
        })
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "CreateTime" => Ok(TimestampType::CreateTime),
            "LogAppendTime" => Ok(TimestampType::LogAppendTime),
            other => Err(de::Error::unknown_variant(
                other,
                &["CreateTime", "LogAppendTime"],
            )),
        }
    }
}

const HEADER_FIELDS: &[&str] = &["key", "value"];

impl JsonCodec for Header {
    fn serialize_json<S: Serializer>(&self, v: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Header", 2)?;
        field(&mut st, "key", &self.key, v)?;
        field(&mut st, "value", &self.value, v)?;
        st.end()
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Header;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a record header")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Header, A::Error> {
                let mut key: Option<KafkaString> = None;
                let mut value: Option<Option<Bytes>> = None;
                while let Some(i) = next_key(&mut map, HEADER_FIELDS)? {
                    match i {
                        0 => next_field(&mut map, &mut key, "key")?,
                        _ => next_field(&mut map, &mut value, "value")?,
                    }
                }
                Ok(Header {
                    key: key.unwrap_or_default(),
                    value: value.unwrap_or_default(),
                })
            }
        }
        d.deserialize_struct("Header", HEADER_FIELDS, V)
    }
}

const RECORD_FIELDS: &[&str] = &["offset", "timestamp", "key", "value", "headers"];

impl JsonCodec for Record {
    fn serialize_json<S: Serializer>(&self, v: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Record", 5)?;
        field(&mut st, "offset", &self.offset, v)?;
        field(&mut st, "timestamp", &self.timestamp, v)?;
        field(&mut st, "key", &self.key, v)?;
        field(&mut st, "value", &self.value, v)?;
        field(&mut st, "headers", &self.headers, v)?;
        st.end()
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Record;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a record")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Record, A::Error> {
                let (mut offset, mut timestamp, mut headers) = (None, None, None);
                let (mut key, mut value): (Option<Option<Bytes>>, Option<Option<Bytes>>) =
                    (None, None);
                while let Some(i) = next_key(&mut map, RECORD_FIELDS)? {
                    match i {
                        0 => next_field(&mut map, &mut offset, "offset")?,
                        1 => next_field(&mut map, &mut timestamp, "timestamp")?,
                        2 => next_field(&mut map, &mut key, "key")?,
                        3 => next_field(&mut map, &mut value, "value")?,
                        _ => next_field(&mut map, &mut headers, "headers")?,
                    }
                }
                let default = Record::new(None, None);
                Ok(Record {
                    offset: offset.unwrap_or(default.offset),
                    timestamp: timestamp.unwrap_or(default.timestamp),
                    key: key.unwrap_or_default(),
                    value: value.unwrap_or_default(),
                    headers: headers.unwrap_or_default(),
                })
            }
        }
        d.deserialize_struct("Record", RECORD_FIELDS, V)
    }
}

const BATCH_FIELDS: &[&str] = &[
    "baseOffset",
    "partitionLeaderEpoch",
    "magic",
    "compression",
    "timestampType",
    "isTransactional",
    "isControl",
    "hasDeleteHorizon",
    "lastOffsetDelta",
    "baseTimestamp",
    "maxTimestamp",
    "producerId",
    "producerEpoch",
    "baseSequence",
    "records",
];

impl JsonCodec for RecordBatch {
    fn serialize_json<S: Serializer>(&self, v: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        let h = &self.header;
        let mut st = s.serialize_struct("RecordBatch", BATCH_FIELDS.len())?;
        field(&mut st, "baseOffset", &h.base_offset, v)?;
        field(
            &mut st,
            "partitionLeaderEpoch",
            &h.partition_leader_epoch,
            v,
        )?;
        field(&mut st, "magic", &h.magic, v)?;
        field(&mut st, "compression", &h.compression, v)?;
        field(&mut st, "timestampType", &h.timestamp_type, v)?;
        field(&mut st, "isTransactional", &h.is_transactional, v)?;
        field(&mut st, "isControl", &h.is_control, v)?;
        field(&mut st, "hasDeleteHorizon", &h.has_delete_horizon, v)?;
        field(&mut st, "lastOffsetDelta", &h.last_offset_delta, v)?;
        field(&mut st, "baseTimestamp", &h.base_timestamp, v)?;
        field(&mut st, "maxTimestamp", &h.max_timestamp, v)?;
        field(&mut st, "producerId", &h.producer_id, v)?;
        field(&mut st, "producerEpoch", &h.producer_epoch, v)?;
        field(&mut st, "baseSequence", &h.base_sequence, v)?;
        field(&mut st, "records", &self.records, v)?;
        st.end()
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RecordBatch;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a record batch")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RecordBatch, A::Error> {
                // Each field missing from the JSON keeps the default batch's value.
                let mut h = BatchHeader::default();
                let mut records = None;
                let mut seen = [false; 14];
                while let Some(i) = next_key(&mut map, BATCH_FIELDS)? {
                    if let (Some(seen), Some(name)) = (seen.get_mut(i), BATCH_FIELDS.get(i)) {
                        if *seen {
                            return Err(de::Error::duplicate_field(name));
                        }
                        *seen = true;
                    }
                    match i {
                        0 => h.base_offset = map.next_value::<FromJson<_>>()?.0,
                        1 => h.partition_leader_epoch = map.next_value::<FromJson<_>>()?.0,
                        2 => h.magic = map.next_value::<FromJson<_>>()?.0,
                        3 => h.compression = map.next_value::<FromJson<_>>()?.0,
                        4 => h.timestamp_type = map.next_value::<FromJson<_>>()?.0,
                        5 => h.is_transactional = map.next_value::<FromJson<_>>()?.0,
                        6 => h.is_control = map.next_value::<FromJson<_>>()?.0,
                        7 => h.has_delete_horizon = map.next_value::<FromJson<_>>()?.0,
                        8 => h.last_offset_delta = map.next_value::<FromJson<_>>()?.0,
                        9 => h.base_timestamp = map.next_value::<FromJson<_>>()?.0,
                        10 => h.max_timestamp = map.next_value::<FromJson<_>>()?.0,
                        11 => h.producer_id = map.next_value::<FromJson<_>>()?.0,
                        12 => h.producer_epoch = map.next_value::<FromJson<_>>()?.0,
                        13 => h.base_sequence = map.next_value::<FromJson<_>>()?.0,
                        _ => next_field(&mut map, &mut records, "records")?,
                    }
                }
                Ok(RecordBatch {
                    header: h,
                    records: records.unwrap_or_default(),
                })
            }
        }
        d.deserialize_struct("RecordBatch", BATCH_FIELDS, V)
    }
}
