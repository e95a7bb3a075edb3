//! The JSON form of messages, headers and record batches (cargo feature `serde`).
//!
//! Every struct deriving [`KafkaMessage`](crate::KafkaMessage) implements [`JsonCodec`], and
//! through it serde's `Serialize` and `Deserialize`; every API set implements [`JsonBody`].
//! The form follows the JSON converters Kafka generates for its message classes:
//!
//! | schema type | JSON |
//! |---|---|
//! | field names | the schema's name with its first letter in lower case (`producerId`) |
//! | `bool`, `int8` .. `int64`, `uint16`, `uint32` | a boolean, a number (`int64` too) |
//! | `float64` | a number; `"NaN"`, `"Infinity"` and `"-Infinity"` as strings |
//! | `string` | a string |
//! | `bytes` | base64, standard alphabet, padded |
//! | `records` | base64 of the raw batches (Kafka's converter writes none) |
//! | `uuid` | Kafka's text form: 22 characters of URL-safe base64 |
//! | null | `null` |
//! | arrays, structs | arrays, objects |
//! | unknown tagged fields | `"_unknownTaggedFields": [{"tag": 5, "data": "<base64>"}]`, when there are some |
//!
//! Writing at a version ([`at_version`], [`JsonBody::body_at_version`]) leaves out the fields
//! the version lacks, and tagged fields that hold their default, as Kafka's converter does;
//! `Serialize` alone writes every field. Reading takes every field present and gives each
//! missing field its default, so hand-written JSON need only name what differs from the
//! defaults; a name the struct lacks, or a field given twice, is an error. Encoding then refuses
//! a non-default value in a version that lacks its field, as it would for any value.
//!
//! ```
//! use kafka_wire::json::at_version;
//! use kafka_wire::messages::WriteTxnMarkersRequest;
//! use kafka_wire::Encode;
//!
//! let json = r#"{"markers": [{"producerId": 4000, "producerEpoch": 2, "transactionResult": true,
//!                "topics": [{"name": "payments", "partitionIndexes": [0, 1]}]}]}"#;
//! let request: WriteTxnMarkersRequest = serde_json::from_str(json)?;
//! assert_eq!(request.markers[0].topics[0].name, "payments");
//!
//! // The form of version 1: `transactionVersion` only exists from version 2 on.
//! let written = serde_json::to_string(&at_version(&request, 1))?;
//! assert!(written.starts_with(r#"{"markers":[{"producerId":4000,"producerEpoch":2,"#));
//! assert!(!written.contains("transactionVersion"));
//! let bytes = request.encode_to_bytes(1)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod primitives;

use serde::de::{self, DeserializeSeed, Deserializer};
use serde::ser::{self, Serializer};
use serde::{Deserialize, Serialize};

/// How one value is written in the JSON form, and read back.
///
/// Implemented for every field type and by `#[derive(KafkaMessage)]` for structs. A field type
/// of your own (one implementing [`Codec`](crate::codec::Codec)) implements it too when the
/// `serde` feature is on.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no JSON form",
    label = "derive `KafkaMessage` for `{Self}`, or implement `kafka_wire::json::JsonCodec` for it"
)]
pub trait JsonCodec: Sized {
    /// Writes the value: in the form of `version` when given (fields the version lacks are
    /// left out), with every field when `None`. Nested values take the same version.
    fn serialize_json<S: Serializer>(
        &self,
        version: Option<i16>,
        serializer: S,
    ) -> Result<S::Ok, S::Error>;

    /// Reads a value; missing fields take their defaults.
    fn deserialize_json<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
}

/// A value as serde sees it, written in the form of one version, or with every field.
///
/// ```
/// use kafka_wire::json::at_version;
/// use kafka_wire::messages::RequestHeader;
///
/// let header = RequestHeader::default().with_request_api_key(18).with_correlation_id(7);
/// // Version 0 has no client id.
/// assert_eq!(
///     serde_json::to_string(&at_version(&header, 0))?,
///     r#"{"requestApiKey":18,"requestApiVersion":0,"correlationId":7}"#
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct AtVersion<'a, T> {
    value: &'a T,
    version: Option<i16>,
}

/// `value` in the JSON form of `version`.
pub fn at_version<T: JsonCodec>(value: &T, version: i16) -> AtVersion<'_, T> {
    AtVersion {
        value,
        version: Some(version),
    }
}

/// `value` with every field, whatever the version: what `Serialize` writes for a message, for
/// any value of the JSON form.
pub fn every_field<T: JsonCodec>(value: &T) -> AtVersion<'_, T> {
    AtVersion {
        value,
        version: None,
    }
}

impl<T: JsonCodec> Serialize for AtVersion<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize_json(self.version, serializer)
    }
}

/// Any [`JsonCodec`] value as a serde `Deserialize`, for reading one where serde expects a
/// `Deserialize` type (`serde_json::from_str::<FromJson<Vec<Uuid>>>`).
#[derive(Clone, Debug, PartialEq)]
pub struct FromJson<T>(pub T);

impl<'de, T: JsonCodec> Deserialize<'de> for FromJson<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize_json(deserializer).map(FromJson)
    }
}

/// The JSON form of the bodies of an API set: the bare message of the body's API, read by API
/// key. Implemented by `#[derive(ApiSet)]` when the `serde` feature is on.
///
/// ```
/// use kafka_wire::json::JsonBody;
/// use kafka_wire::messages::api::RequestBody;
///
/// let body = RequestBody::deserialize_body(18, &mut serde_json::Deserializer::from_str(
///     r#"{"clientSoftwareName": "tour", "clientSoftwareVersion": "1"}"#,
/// ))?;
/// assert_eq!(
///     serde_json::to_string(&body.body_at_version(3))?,
///     r#"{"clientSoftwareName":"tour","clientSoftwareVersion":"1"}"#
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
pub trait JsonBody: crate::ApiSet {
    /// Writes the body's message, as [`JsonCodec::serialize_json`].
    fn serialize_body<S: Serializer>(
        &self,
        version: Option<i16>,
        serializer: S,
    ) -> Result<S::Ok, S::Error>;

    /// Reads the message of API `key`; a key the set lacks is an error.
    fn deserialize_body<'de, D: Deserializer<'de>>(
        key: i16,
        deserializer: D,
    ) -> Result<Self, D::Error>;

    /// The body in the JSON form of `version`, for serde.
    fn body_at_version(&self, version: i16) -> BodyAtVersion<'_, Self> {
        BodyAtVersion {
            body: self,
            version,
        }
    }
}

/// A body of an API set in the JSON form of one version: [`JsonBody::body_at_version`].
#[derive(Clone, Copy, Debug)]
pub struct BodyAtVersion<'a, B> {
    body: &'a B,
    version: i16,
}

impl<B: JsonBody> Serialize for BodyAtVersion<'_, B> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.body.serialize_body(Some(self.version), serializer)
    }
}

/// Support for generated code only: it changes without notice.
#[doc(hidden)]
pub mod __derive {
    pub use super::{JsonBody, JsonCodec};
    pub use core::fmt::Formatter;
    pub use serde::de::{Error as DeError, MapAccess, Visitor};
    pub use serde::ser::{Error as SerError, SerializeStruct};
    pub use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::{de, ser, AtVersion, DeserializeSeed, FromJson};

    /// The key of the field that keeps unknown tagged fields.
    pub const UNKNOWN_TAGGED_FIELDS: &str = "_unknownTaggedFields";

    /// Writes one field of a struct.
    #[inline]
    pub fn field<S: SerializeStruct, T: JsonCodec>(
        st: &mut S,
        name: &'static str,
        value: &T,
        version: Option<i16>,
    ) -> Result<(), S::Error> {
        st.serialize_field(name, &AtVersion { value, version })
    }

    /// The number of fields that are written.
    pub fn count(written: &[bool]) -> usize {
        written.iter().filter(|w| **w).count()
    }

    /// The next key of a struct, as its index in `names`; a name not in the list is an error.
    #[inline]
    pub fn next_key<'de, A: MapAccess<'de>>(
        map: &mut A,
        names: &'static [&'static str],
    ) -> Result<Option<usize>, A::Error> {
        map.next_key_seed(Key(names))
    }

    /// Reads the value of a field into its slot; a field given twice is an error.
    #[inline]
    pub fn next_field<'de, A: MapAccess<'de>, T: JsonCodec>(
        map: &mut A,
        slot: &mut Option<T>,
        name: &'static str,
    ) -> Result<(), A::Error> {
        if slot.is_some() {
            return Err(A::Error::duplicate_field(name));
        }
        *slot = Some(map.next_value::<FromJson<T>>()?.0);
        Ok(())
    }

    /// A message written at a version it does not have.
    #[cold]
    pub fn unsupported_version<E: ser::Error>(name: &str, version: i16) -> E {
        E::custom(format_args!("{name} has no version {version}"))
    }

    /// A body of an API key that the set does not have.
    #[cold]
    pub fn unknown_api_key<E: de::Error>(key: i16) -> E {
        E::custom(format_args!("no API with key {key} in this set"))
    }

    struct Key(&'static [&'static str]);

    impl<'de> DeserializeSeed<'de> for Key {
        type Value = usize;

        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
            deserializer.deserialize_identifier(self)
        }
    }

    impl Visitor<'_> for Key {
        type Value = usize;

        fn expecting(&self, f: &mut Formatter<'_>) -> core::fmt::Result {
            f.write_str("a field name")
        }

        fn visit_str<E: de::Error>(self, name: &str) -> Result<usize, E> {
            self.0
                .iter()
                .position(|n| *n == name)
                .ok_or_else(|| E::unknown_field(name, self.0))
        }

        fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<usize, E> {
            match core::str::from_utf8(name) {
                Ok(name) => self.visit_str(name),
                Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(name), &self)),
            }
        }
    }
}
