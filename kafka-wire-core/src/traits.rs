//! The message-level API: `Message` metadata and version-checked `Encode` / `Decode`.

use crate::codec::{Codec, Ctx, Sink};
use crate::{DecodeError, EncodeError, ErrorKind, VersionRange};
use bytes::{Buf, Bytes, BytesMut};

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
        context(version, Self::VERSIONS, Self::FLEXIBLE_VERSIONS)
    }
}

/// [`Message::context`] without the type: the per-message wrappers below are instantiated for
/// every message a program uses, so their bodies live in functions that are not generic.
#[inline]
fn context(version: i16, versions: VersionRange, flexible: VersionRange) -> Option<Ctx> {
    if versions.contains(version) {
        Some(Ctx::new(version, flexible.contains(version)))
    } else {
        None
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
/// let request = WriteTxnMarkersRequest::default()
///     .with_markers(vec![WritableTxnMarker::default().with_producer_id(7)]);
/// let bytes = request.encode_to_bytes(1).unwrap();
/// assert_eq!(bytes.len(), request.encoded_len(1).unwrap());
/// ```
pub trait Encode {
    /// Writes the message. On error, `buf` may hold part of it.
    fn encode(&self, buf: &mut impl Sink, version: i16) -> Result<(), EncodeError>;

    /// The exact number of bytes [`encode`](Encode::encode) writes when it succeeds, computed
    /// without writing.
    ///
    /// The only error is a version the message does not have. Whether the value can be
    /// written at all is `encode`'s to decide: for a value it refuses (a non-default field the
    /// version lacks, a misplaced null, a length too long for its prefix, ...) this is a size
    /// that nothing will be written for, and the error comes from `encode`. Sizes saturate at
    /// `usize::MAX`.
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError>;

    /// Encodes into a new buffer of exactly the right size.
    fn encode_to_bytes(&self, version: i16) -> Result<Bytes, EncodeError> {
        let mut buf = buffer_for(self.encoded_len(version)?)?;
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
        no_trailing_bytes(buf.remaining(), len)?;
        Ok(value)
    }

    /// Reads a message that must use every byte of `input`, strictly: also refusing varints
    /// longer than they need to be ([`NonMinimalVarint`](ErrorKind::NonMinimalVarint))
    /// and tagged fields whose tags do not increase
    /// ([`TaggedFieldsOutOfOrder`](ErrorKind::TaggedFieldsOutOfOrder)). Kafka's own
    /// reader accepts both; a proxy that must forward only canonical bytes wants neither.
    ///
    /// ```
    /// use kafka_wire::messages::WriteTxnMarkersResponse;
    /// use kafka_wire::{Decode, ErrorKind};
    ///
    /// // Version 1, an empty markers array written as the two-byte varint `81 00`.
    /// const PADDED: &[u8] = &[0x81, 0x00, 0x00];
    /// assert!(WriteTxnMarkersResponse::decode_exact(PADDED, 1).is_ok());
    /// let err = WriteTxnMarkersResponse::decode_strict(PADDED, 1).unwrap_err();
    /// assert_eq!(err.kind(), &ErrorKind::NonMinimalVarint);
    /// ```
    fn decode_strict(input: impl Into<Bytes>, version: i16) -> Result<Self, DecodeError>;

    /// Copies `input` and reads a message that must use all of it.
    fn from_slice(input: &[u8], version: i16) -> Result<Self, DecodeError> {
        Self::decode_exact(Bytes::copy_from_slice(input), version)
    }
}

/// The check of every reader that must use all of its input (a message read exactly, a frame
/// read strictly): `count` bytes of an input of `len` were left after the value, and any is an
/// error at the first of them.
pub(crate) fn no_trailing_bytes(count: usize, len: usize) -> Result<(), DecodeError> {
    if count == 0 {
        return Ok(());
    }
    Err(DecodeError::new(ErrorKind::TrailingBytes { count }, count).located(len))
}

/// A buffer for a message of `len` bytes. No Kafka message is longer than an i32 size can say;
/// a larger (possibly saturated) size belongs to a value `encode` would refuse anyway, so it is
/// refused before reserving.
#[inline]
fn buffer_for(len: usize) -> Result<BytesMut, EncodeError> {
    if len > i32::MAX as usize {
        return Err(too_long_for_buffer(len));
    }
    Ok(BytesMut::with_capacity(len))
}

/// The context to encode `version` of the message `name` in.
///
/// Inlined, as a call is a noticeable part of encoding a small message. Decoding allocates,
/// which a call is small beside, and [`decode_context`] stays a call: the wrappers are
/// instantiated for every message a program uses, in the program's own crate.
#[inline]
fn encode_context(
    version: i16,
    valid: VersionRange,
    flexible: VersionRange,
    name: &'static str,
) -> Result<Ctx, EncodeError> {
    context(version, valid, flexible).ok_or_else(|| unsupported_encode(version, valid, name))
}

#[cold]
#[inline(never)]
fn too_long_for_buffer(length: usize) -> EncodeError {
    EncodeError::new(ErrorKind::TooLong {
        length,
        max: i32::MAX as usize,
    })
}

#[cold]
#[inline(never)]
fn unsupported_encode(version: i16, valid: VersionRange, name: &'static str) -> EncodeError {
    EncodeError::new(ErrorKind::UnsupportedVersion { version, valid }).in_message(name)
}

#[cold]
#[inline(never)]
fn unsupported_decode(version: i16, valid: VersionRange, name: &'static str) -> DecodeError {
    let kind = ErrorKind::UnsupportedVersion { version, valid };
    DecodeError::at(kind, 0).in_message(name)
}

/// A decode error leaving a message: it names the message and turns its offset into one from
/// the start of the input.
#[cold]
#[inline(never)]
fn leaving_message(e: DecodeError, name: &'static str, len: usize) -> DecodeError {
    e.in_message(name).located(len)
}

impl<M: Message> Encode for M {
    #[inline]
    fn encode(&self, buf: &mut impl Sink, version: i16) -> Result<(), EncodeError> {
        let cx = encode_context(version, M::VERSIONS, M::FLEXIBLE_VERSIONS, M::NAME)?;
        self.encode_value(buf, cx)
    }

    #[inline]
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError> {
        let cx = encode_context(version, M::VERSIONS, M::FLEXIBLE_VERSIONS, M::NAME)?;
        Ok(self.value_len(cx))
    }

    // Through `to_new_buffer`, which is not generic: see there.
    #[inline]
    fn encode_to_bytes(&self, version: i16) -> Result<Bytes, EncodeError> {
        let cx = encode_context(version, M::VERSIONS, M::FLEXIBLE_VERSIONS, M::NAME)?;
        to_new_buffer(self.value_len(cx), self, cx)
    }
}

/// A value's encoder into a `BytesMut`, behind a pointer: what [`to_new_buffer`] needs of a
/// message.
trait ToBuffer {
    fn write_to(&self, buf: &mut BytesMut, cx: Ctx) -> Result<(), EncodeError>;
}

impl<M: Codec> ToBuffer for M {
    #[inline]
    fn write_to(&self, buf: &mut BytesMut, cx: Ctx) -> Result<(), EncodeError> {
        self.encode_value(buf, cx)
    }
}

/// The part of `encode_to_bytes` that does not need the message's type: the buffer of the
/// right size, the encoder reached through a pointer, and freezing the buffer.
///
/// `encode_to_bytes` is instantiated for every message a program encodes, in the program's own
/// crate. Written out there, with the encoder inlined into it, it was a large share of the
/// code of a program that encodes and decodes every message, and of its build time. What
/// remains per message is the version check, the call to its sizer, and the one function of
/// `ToBuffer`. At run time it is one indirect call, and the encoder is no longer inlined into
/// the buffer's code, which costs a small message a few instructions (BENCHMARKS.md, "Why the
/// code is written so").
fn to_new_buffer(len: usize, message: &dyn ToBuffer, cx: Ctx) -> Result<Bytes, EncodeError> {
    let mut buf = buffer_for(len)?;
    message.write_to(&mut buf, cx)?;
    Ok(buf.freeze())
}

impl<M: Message> Decode for M {
    #[inline]
    fn decode(buf: &mut Bytes, version: i16) -> Result<Self, DecodeError> {
        decode_in::<M>(buf, version, false)
    }

    fn decode_strict(input: impl Into<Bytes>, version: i16) -> Result<Self, DecodeError> {
        let mut buf: Bytes = input.into();
        let len = buf.len();
        let value = decode_in::<M>(&mut buf, version, true)?;
        no_trailing_bytes(buf.remaining(), len)?;
        Ok(value)
    }
}

#[inline]
fn decode_in<M: Message>(buf: &mut Bytes, version: i16, strict: bool) -> Result<M, DecodeError> {
    let len = buf.len();
    let cx = decode_context(version, M::VERSIONS, M::FLEXIBLE_VERSIONS, M::NAME, strict)?;
    match M::decode_value(buf, cx) {
        Ok(value) => Ok(value),
        Err(e) => Err(leaving_message(e, M::NAME, len)),
    }
}

/// The context to decode `version` of the message `name` in; see [`encode_context`].
fn decode_context(
    version: i16,
    valid: VersionRange,
    flexible: VersionRange,
    name: &'static str,
    strict: bool,
) -> Result<Ctx, DecodeError> {
    match context(version, valid, flexible) {
        Some(cx) => Ok(cx.with_strict(strict)),
        None => Err(unsupported_decode(version, valid, name)),
    }
}
