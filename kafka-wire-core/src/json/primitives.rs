//! The JSON form of each field type: one impl per type.

use super::{AtVersion, FromJson, JsonCodec};
use crate::{Compression, KafkaString, RawTaggedField, Records, UnknownTaggedFields, Uuid};
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use bytes::Bytes;
use core::fmt;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

/// Types whose serde form is their JSON form.
macro_rules! plain {
    ($($t:ty),*) => {$(
        impl JsonCodec for $t {
            #[inline]
            fn serialize_json<S: Serializer>(&self, _: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
                Serialize::serialize(self, s)
            }

            #[inline]
            fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <$t as Deserialize>::deserialize(d)
            }
        }
    )*};
}
plain!(bool, i8, i16, u16, i32, u32, i64, String);

/// JSON has no NaN or infinities: they are written as the strings Jackson, which Kafka's
/// converters write through, uses for them.
impl JsonCodec for f64 {
    fn serialize_json<S: Serializer>(&self, _: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        if self.is_nan() {
            s.serialize_str("NaN")
        } else if self.is_infinite() {
            s.serialize_str(if *self > 0.0 { "Infinity" } else { "-Infinity" })
        } else {
            s.serialize_f64(*self)
        }
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Float;
        impl Visitor<'_> for Float {
            type Value = f64;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number, \"NaN\", \"Infinity\" or \"-Infinity\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
                Ok(v)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
                Ok(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
                match v {
                    "NaN" => Ok(f64::NAN),
                    "Infinity" => Ok(f64::INFINITY),
                    "-Infinity" => Ok(f64::NEG_INFINITY),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Float)
    }
}

impl JsonCodec for KafkaString {
    fn serialize_json<S: Serializer>(&self, _: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(KafkaString::from)
    }
}

/// Reads base64 text (standard alphabet, padding optional) into bytes.
struct Base64;

impl Visitor<'_> for Base64 {
    type Value = Bytes;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("base64 text")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Bytes, E> {
        // Accept text without its padding too, which people writing JSON by hand leave out.
        let engine = base64::engine::GeneralPurpose::new(
            &base64::alphabet::STANDARD,
            base64::engine::GeneralPurposeConfig::new()
                .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
        );
        engine
            .decode(v)
            .map(Bytes::from)
            .map_err(|e| E::custom(format_args!("invalid base64: {e}")))
    }
}

impl JsonCodec for Bytes {
    fn serialize_json<S: Serializer>(&self, _: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&STANDARD.encode(self))
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(Base64)
    }
}

impl JsonCodec for Records {
    fn serialize_json<S: Serializer>(&self, v: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        self.as_bytes().serialize_json(v, s)
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Bytes::deserialize_json(d).map(Records::new)
    }
}

/// Kafka's text form of a UUID (22 characters of URL-safe base64); the hyphenated hex form is
/// read too.
impl JsonCodec for Uuid {
    fn serialize_json<S: Serializer>(&self, _: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl Visitor<'_> for Text {
            type Value = Uuid;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a UUID: 22 characters of URL-safe base64, or hyphenated hex")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Uuid, E> {
                parse_uuid(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
            }
        }
        d.deserialize_str(Text)
    }
}

fn parse_uuid(text: &str) -> Option<Uuid> {
    let bytes: [u8; 16] = if text.len() == 22 {
        // The decoder refuses set bits past the 128th, so each id has one spelling.
        URL_SAFE_NO_PAD.decode(text).ok()?.try_into().ok()?
    } else {
        let hex: Vec<u8> = text.bytes().filter(|b| *b != b'-').collect();
        if text.len() != 36 || hex.len() != 32 {
            return None;
        }
        let mut out = [0u8; 16];
        for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            *byte = u8::from_str_radix(core::str::from_utf8(pair).ok()?, 16).ok()?;
        }
        out
    };
    Some(Uuid::from_bytes(bytes))
}

impl<T: JsonCodec> JsonCodec for Vec<T> {
    fn serialize_json<S: Serializer>(&self, version: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for value in self {
            seq.serialize_element(&AtVersion { value, version })?;
        }
        seq.end()
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // `FromJson<T>` has `T`'s layout, so the collect reuses the vector's memory.
        let values = Vec::<FromJson<T>>::deserialize(d)?;
        Ok(values.into_iter().map(|v| v.0).collect())
    }
}

/// A JSON array of numbers, as a `Vec` of the same integers would be.
impl<T: crate::int_array::Int + JsonCodec> JsonCodec for crate::IntArray<T> {
    fn serialize_json<S: Serializer>(&self, version: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for value in self {
            seq.serialize_element(&AtVersion {
                value: &value,
                version,
            })?;
        }
        seq.end()
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let values = Vec::<FromJson<T>>::deserialize(d)?;
        Ok(values.into_iter().map(|v| v.0).collect())
    }
}

impl<T: JsonCodec> JsonCodec for Option<T> {
    fn serialize_json<S: Serializer>(&self, version: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Some(value) => s.serialize_some(&AtVersion { value, version }),
            None => s.serialize_none(),
        }
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Option::<FromJson<T>>::deserialize(d)?.map(|v| v.0))
    }
}

/// `[{"tag": 5, "data": "<base64>"}, ...]`, in wire order.
impl JsonCodec for UnknownTaggedFields {
    fn serialize_json<S: Serializer>(&self, version: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for value in self {
            seq.serialize_element(&AtVersion { value, version })?;
        }
        seq.end()
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<RawTaggedField>::deserialize_json(d).map(UnknownTaggedFields::from)
    }
}

const RAW_FIELDS: &[&str] = &["tag", "data"];

impl JsonCodec for RawTaggedField {
    fn serialize_json<S: Serializer>(&self, version: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("RawTaggedField", 2)?;
        st.serialize_field("tag", &self.tag)?;
        st.serialize_field(
            "data",
            &AtVersion {
                value: &self.data,
                version,
            },
        )?;
        st.end()
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Raw;
        impl<'de> Visitor<'de> for Raw {
            type Value = RawTaggedField;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tagged field: {\"tag\": 5, \"data\": \"<base64>\"}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawTaggedField, A::Error> {
                let (mut tag, mut data) = (None, None);
                while let Some(key) = super::__derive::next_key(&mut map, RAW_FIELDS)? {
                    if key == 0 {
                        super::__derive::next_field(&mut map, &mut tag, "tag")?;
                    } else {
                        super::__derive::next_field(&mut map, &mut data, "data")?;
                    }
                }
                Ok(RawTaggedField {
                    tag: tag.ok_or_else(|| de::Error::missing_field("tag"))?,
                    data: data.ok_or_else(|| de::Error::missing_field("data"))?,
                })
            }
        }
        d.deserialize_struct("RawTaggedField", RAW_FIELDS, Raw)
    }
}

/// The codec's name as Kafka's `compression.type` spells it.
impl JsonCodec for Compression {
    fn serialize_json<S: Serializer>(&self, _: Option<i16>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }

    fn deserialize_json<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        [
            Compression::None,
            Compression::Gzip,
            Compression::Snappy,
            Compression::Lz4,
            Compression::Zstd,
        ]
        .into_iter()
        .find(|c| c.name() == name)
        .ok_or_else(|| {
            de::Error::unknown_variant(&name, &["none", "gzip", "snappy", "lz4", "zstd"])
        })
    }
}
