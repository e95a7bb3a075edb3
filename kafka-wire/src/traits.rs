//! The message-level API: `Message` metadata and version-checked `Encode` / `Decode`.

use crate::codec::{Codec, Ctx};
use crate::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, VersionRange};
use bytes::{Buf, BufMut, Bytes, BytesMut};

/// A top-level, versioned schema: an API request or response, a header, or a data schema.
///
/// Derived for structs with `#[kafka(versions = "...")]`. [`Encode`] and [`Decode`] come with
/// it.
///
/// ```
/// use kafka_wire::messages::WriteTxnMarkersRequest;
/// use kafka_wire::{ApiMessage, Message, VersionRange};
///
/// assert_eq!(WriteTxnMarkersRequest::API_KEY, 27);
/// assert_eq!(WriteTxnMarkersRequest::VERSIONS, VersionRange::new(0, 2));
/// assert!(WriteTxnMarkersRequest::FLEXIBLE_VERSIONS.contains(1));
/// assert_eq!(WriteTxnMarkersRequest::NAME, "WriteTxnMarkersRequest");
/// ```
pub trait Message: Codec {
    /// The schema's name.
    const NAME: &'static str;
    /// The versions the schema defines.
    const VERSIONS: VersionRange;
    /// The versions that use compact lengths and tagged fields.
    const FLEXIBLE_VERSIONS: VersionRange;

    /// The context for `version`, or `None` if the schema lacks it.
    #[inline]
    fn context(version: i16) -> Option<Ctx> {
        Self::VERSIONS
            .contains(version)
            .then(|| Ctx::new(version, Self::FLEXIBLE_VERSIONS.contains(version)))
    }
}

/// A request or response body of a Kafka API.
///
/// Headers and data schemas are [`Message`]s without an API key; that is why the key lives on
/// this trait of its own.
pub trait ApiMessage: Message {
    /// The API key shared by the request and its response.
    const API_KEY: i16;
}

/// Writing a message at a version.
///
/// ```
/// use kafka_wire::messages::write_txn_markers_request::{WritableTxnMarker, WriteTxnMarkersRequest};
/// use kafka_wire::Encode;
///
/// let request = WriteTxnMarkersRequest {
///     markers: vec![WritableTxnMarker { producer_id: 7, ..Default::default() }],
///     ..Default::default()
/// };
/// let bytes = request.encode_to_bytes(1).unwrap();
/// assert_eq!(bytes.len(), request.encoded_len(1).unwrap());
/// ```
pub trait Encode {
    /// Writes the message. On error, `buf` may hold part of it.
    fn encode(&self, buf: &mut impl BufMut, version: i16) -> Result<(), EncodeError>;

    /// The exact number of bytes [`encode`](Encode::encode) writes, computed without writing.
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError>;

    /// Encodes into a new buffer of exactly the right size.
    fn encode_to_bytes(&self, version: i16) -> Result<Bytes, EncodeError> {
        let mut buf = BytesMut::with_capacity(self.encoded_len(version)?);
        self.encode(&mut buf, version)?;
        Ok(buf.freeze())
    }
}

/// Reading a message at a version.
///
/// ```
/// use kafka_wire::messages::WriteTxnMarkersResponse;
/// use kafka_wire::Decode;
///
/// // Version 1, no markers, no tagged fields.
/// let response = WriteTxnMarkersResponse::decode_exact(&[0x01, 0x00][..], 1).unwrap();
/// assert!(response.markers.is_empty());
/// ```
pub trait Decode: Sized {
    /// Reads a message from the front of `buf`, leaving what follows it. Strings, bytes and
    /// records share `buf`'s memory.
    fn decode(buf: &mut Bytes, version: i16) -> Result<Self, DecodeError>;

    /// Reads a message that must use every byte of `input`.
    fn decode_exact(input: impl Into<Bytes>, version: i16) -> Result<Self, DecodeError> {
        let mut buf: Bytes = input.into();
        let len = buf.len();
        let value = Self::decode(&mut buf, version)?;
        if buf.has_remaining() {
            let count = buf.remaining();
            return Err(
                DecodeError::new(DecodeErrorKind::TrailingBytes { count }, count).at_input_len(len),
            );
        }
        Ok(value)
    }

    /// Copies `input` and reads a message that must use all of it.
    fn from_slice(input: &[u8], version: i16) -> Result<Self, DecodeError> {
        Self::decode_exact(Bytes::copy_from_slice(input), version)
    }
}

#[cold]
fn unsupported_encode<M: Message>(version: i16) -> EncodeError {
    EncodeError::new(EncodeErrorKind::UnsupportedVersion {
        version,
        valid: M::VERSIONS,
    })
    .in_message(M::NAME)
}

impl<M: Message> Encode for M {
    #[inline]
    fn encode(&self, buf: &mut impl BufMut, version: i16) -> Result<(), EncodeError> {
        let cx = M::context(version).ok_or_else(|| unsupported_encode::<M>(version))?;
        self.encode_value(buf, cx)
    }

    #[inline]
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError> {
        let cx = M::context(version).ok_or_else(|| unsupported_encode::<M>(version))?;
        self.value_len(cx)
    }
}

impl<M: Message> Decode for M {
    #[inline]
    fn decode(buf: &mut Bytes, version: i16) -> Result<Self, DecodeError> {
        let len = buf.len();
        let Some(cx) = M::context(version) else {
            let kind = DecodeErrorKind::UnsupportedVersion {
                version,
                valid: M::VERSIONS,
            };
            return Err(DecodeError::new(kind, len)
                .in_message(M::NAME)
                .at_input_len(len));
        };
        M::decode_value(buf, cx).map_err(|e| e.in_message(M::NAME).at_input_len(len))
    }
}
