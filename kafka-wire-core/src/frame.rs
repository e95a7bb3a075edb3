//! Framing: a 4-byte size, the header at the version the API prescribes, then the body.
//!
//! Bodies are those of an API set ([`ApiSet`](crate::ApiSet)): Kafka's `RequestBody` and
//! `ResponseBody` (in `kafka_wire::messages::api`), or an application's own set that mixes its
//! APIs with Kafka's. The set gives each API's header version.
//!
//! ```
//! use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
//! use kafka_wire::messages::api::RequestBody;
//! use kafka_wire::messages::{ApiVersionsRequest, RequestHeader};
//! use kafka_wire::{ApiMessage, KafkaString};
//!
//! let header = RequestHeader::default()
//!     .with_request_api_key(ApiVersionsRequest::API_KEY)
//!     .with_request_api_version(3)
//!     .with_correlation_id(7)
//!     .with_client_id(Some(KafkaString::from_static("tour")));
//! let body = RequestBody::ApiVersions(ApiVersionsRequest::default());
//! let mut wire = bytes::BytesMut::new();
//! frame::encode_request(&mut wire, &header, &body)?;
//!
//! // The receiving side cuts the frame off its stream and reads header and body.
//! let one = frame::split_frame(&mut wire, DEFAULT_MAX_FRAME_SIZE)?.expect("a whole frame");
//! let (read_header, read_body) = frame::decode_request::<RequestBody>(one)?;
//! assert_eq!(read_header, header);
//! assert_eq!(read_body, body);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::api::{ApiInfo, RequestSet, ResponseSet};
use crate::codec::Sink;
use crate::messages::{RequestHeader, ResponseHeader};
use crate::{Decode, DecodeError, DecodeErrorKind, Encode, EncodeError, EncodeErrorKind};
use bytes::{Buf, Bytes, BytesMut};

/// Kafka's default `socket.request.max.bytes`: 100 MiB.
pub const DEFAULT_MAX_FRAME_SIZE: usize = 100 * 1024 * 1024;

/// Cuts the next frame off the front of `stream` and returns its contents (without the size),
/// or `None` while the frame is incomplete. A size above `max`, or negative, is an error before
/// anything is buffered for it.
pub fn split_frame(stream: &mut BytesMut, max: usize) -> Result<Option<Bytes>, DecodeError> {
    let Some(&[b0, b1, b2, b3]) = stream.get(..4) else {
        return Ok(None);
    };
    let size = i32::from_be_bytes([b0, b1, b2, b3]);
    let Ok(size) = usize::try_from(size) else {
        let length = i64::from(size);
        return Err(DecodeError::at(
            DecodeErrorKind::NegativeLength { length },
            0,
        ));
    };
    if size > max {
        return Err(DecodeError::at(
            DecodeErrorKind::FrameTooLarge { size, max },
            0,
        ));
    }
    if stream.len().saturating_sub(4) < size {
        return Ok(None);
    }
    stream.advance(4);
    Ok(Some(stream.split_to(size).freeze()))
}

/// The API of `key` in `apis`, with `version` checked against it.
fn api_of(
    apis: &'static [ApiInfo],
    key: i16,
    version: i16,
) -> Result<&'static ApiInfo, DecodeErrorKind> {
    let api = apis
        .iter()
        .find(|api| api.key() == key)
        .ok_or(DecodeErrorKind::UnknownApiKey { key })?;
    let valid = api.versions();
    if valid.contains(version) {
        Ok(api)
    } else {
        Err(DecodeErrorKind::UnsupportedVersion { version, valid })
    }
}

/// Reads a request frame's contents (as [`split_frame`] returns them) into a body of the set
/// `S`: the header, at the version its API and API version call for, then the body, which must
/// use every byte left. An API key the set lacks is
/// [`UnknownApiKey`](DecodeErrorKind::UnknownApiKey), found before the header is read.
// `#[inline]` here and below: these dispatch over every API of the set, so they are compiled in
// the crate that uses them rather than in this one (see the derive's note on inlining).
#[inline]
pub fn decode_request<S: RequestSet>(mut frame: Bytes) -> Result<(RequestHeader, S), DecodeError> {
    let len = frame.len();
    let Some(&[k0, k1, v0, v1]) = frame.get(..4) else {
        return Err(DecodeError::eof(4, len).located(len));
    };
    let key = i16::from_be_bytes([k0, k1]);
    let version = i16::from_be_bytes([v0, v1]);
    let api = api_of(S::APIS, key, version).map_err(|kind| DecodeError::at(kind, 0))?;
    let header = RequestHeader::decode(&mut frame, api.header_version(version))?;
    // Body errors are counted from the body; shift them to count from the frame.
    let header_len = len.saturating_sub(frame.len());
    let body = S::decode(key, &mut frame, version).map_err(|e| e.shifted(header_len))?;
    no_trailing(&frame, len)?;
    Ok((header, body))
}

/// Reads a response frame's contents into a body of the set `S`, for a request of API `key`
/// at `version` (a response does not name its API: the caller knows it from the correlation
/// id).
#[inline]
pub fn decode_response<S: ResponseSet>(
    mut frame: Bytes,
    key: i16,
    version: i16,
) -> Result<(ResponseHeader, S), DecodeError> {
    let len = frame.len();
    let api = api_of(S::APIS, key, version).map_err(|kind| DecodeError::at(kind, 0))?;
    let header = ResponseHeader::decode(&mut frame, api.header_version(version))?;
    let header_len = len.saturating_sub(frame.len());
    let body = S::decode(key, &mut frame, version).map_err(|e| e.shifted(header_len))?;
    no_trailing(&frame, len)?;
    Ok((header, body))
}

fn no_trailing(rest: &Bytes, len: usize) -> Result<(), DecodeError> {
    if rest.is_empty() {
        Ok(())
    } else {
        let count = rest.len();
        Err(DecodeError::new(DecodeErrorKind::TrailingBytes { count }, count).located(len))
    }
}

/// Writes `size`, header and body; the header's API key and version choose the header version
/// and the body's version, and must match the body. A body that cannot be encoded is found
/// while it is written, so on error `buf` may hold the start of the frame.
#[inline]
pub fn encode_request<S: RequestSet>(
    buf: &mut impl Sink,
    header: &RequestHeader,
    body: &S,
) -> Result<(), EncodeError> {
    let api = body.api();
    if header.request_api_key != api.key() {
        return Err(EncodeError::new(EncodeErrorKind::HeaderMismatch {
            header_key: header.request_api_key,
            body_key: api.key(),
        }));
    }
    let version = header.request_api_version;
    let header_version = api.header_version(version);
    // Sizes saturate, so a sum past `usize::MAX` still fails the frame-size check.
    let size = header
        .encoded_len(header_version)?
        .saturating_add(body.encoded_len(version)?);
    buf.put_i32(frame_size(size)?);
    header.encode(buf, header_version)?;
    body.encode(buf, version)
}

/// Writes `size`, header and body of a response to a request of the body's API at `version`.
/// On error, `buf` may hold the start of the frame.
#[inline]
pub fn encode_response<S: ResponseSet>(
    buf: &mut impl Sink,
    header: &ResponseHeader,
    body: &S,
    version: i16,
) -> Result<(), EncodeError> {
    let header_version = body.api().header_version(version);
    // Sizes saturate, so a sum past `usize::MAX` still fails the frame-size check.
    let size = header
        .encoded_len(header_version)?
        .saturating_add(body.encoded_len(version)?);
    buf.put_i32(frame_size(size)?);
    header.encode(buf, header_version)?;
    body.encode(buf, version)
}

fn frame_size(size: usize) -> Result<i32, EncodeError> {
    i32::try_from(size).map_err(|_| {
        EncodeError::new(EncodeErrorKind::TooLong {
            length: size,
            max: i32::MAX as usize,
        })
    })
}
