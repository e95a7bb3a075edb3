//! Framing: a 4-byte size, the header at the version the API prescribes, then the body.
//!
//! Bodies are those of an API set ([`ApiSet`]): Kafka's `RequestBody` and
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
//!
//! # Strict and lenient reading
//!
//! Kafka's broker reads a request's header and body and ignores whatever bytes of the frame
//! follow the body; its clients do the same with a response. Real clients rely on it:
//! librdkafka's Metadata request for all topics (version 9 and later) keeps the 4-byte
//! placeholder it wrote for the topic count, where the compact encoding has one byte. Kafka's
//! reader takes the first placeholder byte for a null topic list (all topics), reads the
//! fields after it from the placeholder's other three bytes on, and leaves the last byte of
//! the frame unread. Two ways of reading follow from that:
//!
//! - [`decode_request`] and [`decode_response`] read a frame whose body uses every byte, and
//!   refuse anything else with [`TrailingBytes`](ErrorKind::TrailingBytes): for tests,
//!   proxies that must forward exact bytes, and checking one's own encoder.
//! - [`decode_request_lenient`] and [`decode_response_lenient`] read what Kafka's broker and
//!   clients read, and say in [`DecodedRequest::trailing_bytes`] and
//!   [`DecodedResponse::trailing_bytes`] how many bytes they left unread, for a log or an
//!   analyser to report. They also follow Kafka's rule for ApiVersions at a version one side
//!   does not know (see each function). The [`tokio`](crate::tokio) codecs read this way.
//!
//! Both refuse the same malformed headers and bodies; only what follows the body differs.
//!
//! A few inputs that Kafka's readers let through are refused by both, on purpose, with the
//! [`ErrorKind`] named: a negative length other than -1, or a compact length past
//! `i32::MAX`, which Java reads as a null that would not encode back to the same bytes
//! (`NegativeLength`, or a length beyond the input); a string that is not UTF-8, which Java
//! reads with replacement characters (`InvalidUtf8`); a known tagged field whose value does
//! not fill its declared size, after which Kafka's reader goes on out of step
//! (`TaggedFieldSize`); a varint with bits past 32 (`VarintOverflow`). No Kafka client or
//! broker writes any of them.
//!
//! ```
//! use bytes::Bytes;
//! use kafka_wire::frame;
//! use kafka_wire::messages::api::RequestBody;
//! use kafka_wire::ErrorKind;
//!
//! // librdkafka's Metadata v9 request for all topics (the frame without its size): header
//! // v2 with client id "rdkafka", then a body of which Kafka's reader leaves one byte.
//! const LIBRDKAFKA: &[u8] = b"\x00\x03\x00\x09\x00\x00\x00\x03\x00\x07rdkafka\x00\
//!     \x00\x00\x00\x00\x01\x00\x00\x00";
//! let request = frame::decode_request_lenient::<RequestBody>(Bytes::from_static(LIBRDKAFKA))?;
//! assert_eq!(request.header.correlation_id, 3);
//! assert_eq!(request.trailing_bytes, 1);
//! let RequestBody::Metadata(metadata) = request.body else { panic!("not Metadata") };
//! assert_eq!(metadata.topics, None); // all topics
//!
//! let strict = frame::decode_request::<RequestBody>(Bytes::from_static(LIBRDKAFKA));
//! assert_eq!(strict.unwrap_err().kind(), &ErrorKind::TrailingBytes { count: 1 });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "views")]
use crate::api::ApiSet;
use crate::api::{ApiInfo, RequestSet, ResponseSet};
use crate::codec::Sink;
use crate::messages::{RequestHeader, ResponseHeader};
use crate::traits::no_trailing_bytes;
#[cfg(feature = "views")]
use crate::view::{self, Reading, Source, ViewIndex, ViewOf, Viewable};
use crate::{Decode, DecodeError, Encode, EncodeError, ErrorCode, ErrorKind};
use bytes::{Buf, Bytes, BytesMut};

/// Kafka's default `socket.request.max.bytes`: 100 MiB.
pub const DEFAULT_MAX_FRAME_SIZE: usize = 100 * 1024 * 1024;

/// The size of the frame at the front of `stream` (without its size field), once the size field
/// is in, whether or not the rest of the frame is; `None` before. A size above `max`, or
/// negative, is an error. For a reader that moves frames on without cutting them apart (a
/// proxy); [`split_frame`] cuts them.
///
/// ```
/// use kafka_wire::frame;
///
/// assert_eq!(frame::peek_size(b"\x00\x00", 1024)?, None);
/// assert_eq!(frame::peek_size(b"\x00\x00\x01\x00\x12", 1024)?, Some(256));
/// assert!(frame::peek_size(b"\x00\x01\x00\x00", 1024).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn peek_size(stream: &[u8], max: usize) -> Result<Option<usize>, DecodeError> {
    let Some(&[b0, b1, b2, b3]) = stream.get(..4) else {
        return Ok(None);
    };
    let size = i32::from_be_bytes([b0, b1, b2, b3]);
    let Ok(size) = usize::try_from(size) else {
        let length = i64::from(size);
        return Err(DecodeError::at(ErrorKind::NegativeLength { length }, 0));
    };
    if size > max {
        return Err(DecodeError::at(ErrorKind::FrameTooLarge { size, max }, 0));
    }
    Ok(Some(size))
}

/// Cuts the next frame off the front of `stream` and returns its contents (without the size),
/// or `None` while the frame is incomplete. A size above `max`, or negative, is an error before
/// anything is buffered for it.
pub fn split_frame(stream: &mut BytesMut, max: usize) -> Result<Option<Bytes>, DecodeError> {
    let Some(size) = peek_size(stream, max)? else {
        return Ok(None);
    };
    if stream.len().saturating_sub(4) < size {
        return Ok(None);
    }
    stream.advance(4);
    Ok(Some(stream.split_to(size).freeze()))
}

/// The API of `key` in `apis`, with `version` checked against it.
fn api_of(apis: &'static [ApiInfo], key: i16, version: i16) -> Result<&'static ApiInfo, ErrorKind> {
    let api = apis
        .iter()
        .find(|api| api.key() == key)
        .ok_or(ErrorKind::UnknownApiKey { key })?;
    let valid = api.versions();
    if valid.contains(version) {
        Ok(api)
    } else {
        Err(ErrorKind::UnsupportedVersion { version, valid })
    }
}

/// The API key of ApiVersions, whose versions Kafka's brokers and clients treat apart (see
/// [`decode_request_lenient`] and [`decode_response_lenient`]).
pub(crate) const API_VERSIONS_KEY: i16 = 18;

/// A request frame as [`decode_request_lenient`] read it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DecodedRequest<S> {
    /// The request header, read at the version its API and API version call for.
    pub header: RequestHeader,
    /// The version the body was read at, which is the version to answer at: the header's
    /// `request_api_version`, but 0 for an ApiVersions request at a version the set lacks.
    pub version: i16,
    /// The body.
    pub body: S,
    /// Bytes of the frame that were not read: those after the body, or the whole body of an
    /// ApiVersions request at a version the set lacks. Zero for a frame that
    /// [`decode_request`] reads too.
    pub trailing_bytes: usize,
}

/// A response frame as [`decode_response_lenient`] read it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct DecodedResponse<S> {
    /// The response header.
    pub header: ResponseHeader,
    /// The version the body was read at: the version of the request, but 0 for an ApiVersions
    /// answer read again at version 0.
    pub version: i16,
    /// The body.
    pub body: S,
    /// Bytes of the frame after the body, which were not read. Zero for a frame that
    /// [`decode_response`] reads too.
    pub trailing_bytes: usize,
}

/// Reads a request frame's contents (as [`split_frame`] returns them) into a body of the set
/// `S`: the header, at the version its API and API version call for, then the body, which must
/// use every byte left (bytes after it are [`TrailingBytes`](ErrorKind::TrailingBytes);
/// [`decode_request_lenient`] reads them as Kafka's broker does). An API key the set lacks is
/// [`UnknownApiKey`](ErrorKind::UnknownApiKey), found before the header is read; a
/// version the API lacks is [`UnsupportedVersion`](ErrorKind::UnsupportedVersion),
/// ApiVersions included.
// `#[inline]` here and below: these dispatch over every API of the set, so they are compiled in
// the crate that uses them rather than in this one (see the derive's note on inlining).
#[inline]
pub fn decode_request<S: RequestSet>(frame: Bytes) -> Result<(RequestHeader, S), DecodeError> {
    let len = frame.len();
    let (header, body, rest) = read_request(frame)?;
    no_trailing_bytes(rest, len)?;
    Ok((header, body))
}

/// Reads a request frame's contents as Kafka's broker does: the header, then the body, and
/// bytes of the frame after the body are left unread and counted in
/// [`trailing_bytes`](DecodedRequest::trailing_bytes). Everything else is refused as
/// [`decode_request`] refuses it.
///
/// An ApiVersions request at a version the set lacks is not refused either: a client sends
/// ApiVersions at its newest version, and a broker that does not know it answers at version 0
/// with `UNSUPPORTED_VERSION` and its own list. Its header is read at the header version
/// Kafka gives it ([`ApiInfo::header_version`]: request header v2 above a flexible newest
/// version), its body, in a format this side does not know, is not read (its bytes
/// are counted as trailing), and the body returned is an empty ApiVersions request of version
/// 0, with [`version`](DecodedRequest::version) 0 to answer at.
///
/// ```
/// use bytes::{BufMut, BytesMut};
/// use kafka_wire::frame;
/// use kafka_wire::messages::api::RequestBody;
/// use kafka_wire::messages::ApiVersionsRequest;
///
/// // ApiVersions v99 from a newer client: header v2, then a body this side cannot read.
/// let mut wire = BytesMut::new();
/// wire.put_i16(18);
/// wire.put_i16(99);
/// wire.put_i32(7); // correlation id
/// wire.put_i16(6);
/// wire.put_slice(b"future");
/// wire.put_u8(0); // no tagged fields in the header
/// wire.put_slice(&[0xff; 9]);
/// let request = frame::decode_request_lenient::<RequestBody>(wire.freeze())?;
/// assert_eq!((request.header.request_api_version, request.version), (99, 0));
/// assert_eq!(request.body, RequestBody::ApiVersions(ApiVersionsRequest::default()));
/// assert_eq!(request.trailing_bytes, 9);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn decode_request_lenient<S: RequestSet>(
    frame: Bytes,
) -> Result<DecodedRequest<S>, DecodeError> {
    if let Some(&[k0, k1, v0, v1]) = frame.get(..4) {
        let (key, version) = (i16::from_be_bytes([k0, k1]), i16::from_be_bytes([v0, v1]));
        if key == API_VERSIONS_KEY {
            if let Some(api) = S::find(key).filter(|api| !api.versions().contains(version)) {
                return unknown_api_versions(api, version, frame);
            }
        }
    }
    let (header, body, trailing_bytes) = read_request(frame)?;
    Ok(DecodedRequest {
        version: header.request_api_version,
        header,
        body,
        trailing_bytes,
    })
}

/// An ApiVersions request at `version`, which `api` lacks: the header, and the set's empty
/// version-0 body in place of the one left unread.
#[cold]
fn unknown_api_versions<S: RequestSet>(
    api: &ApiInfo,
    version: i16,
    mut frame: Bytes,
) -> Result<DecodedRequest<S>, DecodeError> {
    // A version above the newest known one has the newest one's header version (see
    // `ApiInfo::header_version`).
    let header = RequestHeader::decode(&mut frame, api.header_version(version))?;
    let body = S::decode(API_VERSIONS_KEY, &mut Bytes::new(), 0).map_err(|e| e.located(0))?;
    Ok(DecodedRequest {
        header,
        version: 0,
        body,
        trailing_bytes: frame.remaining(),
    })
}

/// Header and body of a request frame, and how many bytes follow the body.
#[inline]
fn read_request<S: RequestSet>(mut frame: Bytes) -> Result<(RequestHeader, S, usize), DecodeError> {
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
    Ok((header, body, frame.remaining()))
}

/// Reads a response frame's contents into a body of the set `S`, for a request of API `key`
/// at `version` (a response does not name its API: the caller knows it from the correlation
/// id). The body must use every byte left (bytes after it are
/// [`TrailingBytes`](ErrorKind::TrailingBytes); [`decode_response_lenient`] reads them as
/// Kafka's clients do).
#[inline]
pub fn decode_response<S: ResponseSet>(
    frame: Bytes,
    key: i16,
    version: i16,
) -> Result<(ResponseHeader, S), DecodeError> {
    let len = frame.len();
    let (header, body, rest) = read_response(frame, key, version)?;
    no_trailing_bytes(rest, len)?;
    Ok((header, body))
}

/// Reads a response frame's contents as Kafka's clients do, for a request of API `key` at
/// `version`: the header, then the body, and bytes of the frame after the body are left unread
/// and counted in [`trailing_bytes`](DecodedResponse::trailing_bytes). Everything else is
/// refused as [`decode_response`] refuses it.
///
/// An ApiVersions answer that cannot be read at `version` (above 0), and whose body starts
/// with the error code `UNSUPPORTED_VERSION`, is read again at version 0, and
/// [`version`](DecodedResponse::version) says so: a broker that does not know the version a
/// client asked with answers at version 0. Kafka's client reads any answer that fails at the
/// version asked for again at version 0, and then closes the connection unless its error code
/// is `UNSUPPORTED_VERSION` or none; only a broker that does not know the version answers at
/// version 0, and it always says `UNSUPPORTED_VERSION`, so this reads every answer Kafka's
/// client goes on with and keeps the error of the version asked for on any other bytes. When
/// both fail, the error is that of `version`.
///
/// ```
/// use bytes::BytesMut;
/// use kafka_wire::frame;
/// use kafka_wire::messages::api::ResponseBody;
/// use kafka_wire::messages::{ApiVersionsResponse, ResponseHeader};
/// use kafka_wire::ErrorCode;
///
/// // An older broker's answer to ApiVersions v3: version 0, UNSUPPORTED_VERSION.
/// let old = ApiVersionsResponse::default().with_error_code(ErrorCode::UNSUPPORTED_VERSION.code());
/// let mut wire = BytesMut::new();
/// let header = ResponseHeader::default().with_correlation_id(1);
/// frame::encode_response(&mut wire, &header, &ResponseBody::ApiVersions(old.clone()), 0)?;
/// let contents = wire.split_off(4).freeze();
/// let response = frame::decode_response_lenient::<ResponseBody>(contents, 18, 3)?;
/// assert_eq!(response.version, 0);
/// assert_eq!(response.body, ResponseBody::ApiVersions(old));
/// assert_eq!(response.trailing_bytes, 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn decode_response_lenient<S: ResponseSet>(
    frame: Bytes,
    key: i16,
    version: i16,
) -> Result<DecodedResponse<S>, DecodeError> {
    let first = if key == API_VERSIONS_KEY && version != 0 && starts_unsupported(&frame) {
        // Kept for a second reading at version 0; a `Bytes` clone shares the buffer.
        read_response(frame.clone(), key, version).map_err(|e| (e, Some(frame)))
    } else {
        read_response(frame, key, version).map_err(|e| (e, None))
    };
    match first {
        Ok((header, body, trailing_bytes)) => Ok(DecodedResponse {
            header,
            version,
            body,
            trailing_bytes,
        }),
        Err((e, Some(frame))) => match read_response(frame, key, 0) {
            Ok((header, body, trailing_bytes)) => Ok(DecodedResponse {
                header,
                version: 0,
                body,
                trailing_bytes,
            }),
            Err(_) => Err(e),
        },
        Err((e, None)) => Err(e),
    }
}

/// Whether the body after a v0 response header (an ApiVersions answer's header is always v0,
/// 4 bytes) starts with the error code `UNSUPPORTED_VERSION`.
fn starts_unsupported(frame: &[u8]) -> bool {
    matches!(frame.get(4..6), Some(&[e0, e1])
        if i16::from_be_bytes([e0, e1]) == ErrorCode::UNSUPPORTED_VERSION.code())
}

/// Header and body of a response frame, and how many bytes follow the body.
#[inline]
fn read_response<S: ResponseSet>(
    mut frame: Bytes,
    key: i16,
    version: i16,
) -> Result<(ResponseHeader, S, usize), DecodeError> {
    let len = frame.len();
    let api = api_of(S::APIS, key, version).map_err(|kind| DecodeError::at(kind, 0))?;
    let header = ResponseHeader::decode(&mut frame, api.header_version(version))?;
    let header_len = len.saturating_sub(frame.len());
    let body = S::decode(key, &mut frame, version).map_err(|e| e.shifted(header_len))?;
    Ok((header, body, frame.remaining()))
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// A request frame as [`view_request_lenient`] read it: the views of its header and body,
/// borrowing the frame.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ViewedRequest<'a, S: ApiSet> {
    /// The view of the request header.
    pub header: ViewOf<'a, RequestHeader>,
    /// The version the body was read at, as in [`DecodedRequest::version`].
    pub version: i16,
    /// The view of the body.
    pub body: S::View<'a>,
    /// Bytes of the frame that were not read, as in [`DecodedRequest::trailing_bytes`].
    pub trailing_bytes: usize,
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// A response frame as [`view_response_lenient`] read it: the views of its header and body,
/// borrowing the frame.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ViewedResponse<'a, S: ApiSet> {
    /// The view of the response header.
    pub header: ViewOf<'a, ResponseHeader>,
    /// The version the body was read at, as in [`DecodedResponse::version`].
    pub version: i16,
    /// The view of the body.
    pub body: S::View<'a>,
    /// Bytes of the frame after the body, which were not read.
    pub trailing_bytes: usize,
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// [`decode_request`] without allocating: the views of a request frame's header and body
/// (see [`view`]), recorded in `index`. It opens on the frames `decode_request` reads and fails
/// with its error. Opened on a [`Bytes`], the views' byte fields can share the frame.
///
/// ```
/// use kafka_wire::frame;
/// use kafka_wire::messages::api::{RequestBody, RequestBodyView};
/// use kafka_wire::messages::{RequestHeader, WriteTxnMarkersRequest};
/// use kafka_wire::view::ViewIndex;
/// use kafka_wire::ApiMessage;
///
/// let header = RequestHeader::default()
///     .with_request_api_key(WriteTxnMarkersRequest::API_KEY)
///     .with_request_api_version(1)
///     .with_correlation_id(5);
/// let body = RequestBody::WriteTxnMarkers(WriteTxnMarkersRequest::default());
/// let mut wire = bytes::BytesMut::new();
/// frame::encode_request(&mut wire, &header, &body)?;
///
/// let mut index = ViewIndex::new(); // one per connection, reused for every frame
/// let (header, body) = frame::view_request::<RequestBody>(&wire[4..], &mut index)?;
/// assert_eq!(header.correlation_id(), 5);
/// let RequestBodyView::WriteTxnMarkers(markers) = body else { panic!("another API") };
/// assert!(markers.markers().is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn view_request<'a, S: RequestSet>(
    frame: impl Into<Source<'a>>,
    index: &'a mut ViewIndex,
) -> Result<(ViewOf<'a, RequestHeader>, S::View<'a>), DecodeError> {
    let src = frame.into();
    index.clear();
    let walked = walk_request::<S>(src, Reading::Whole, index)?;
    let (header, body) = walked.views::<RequestHeader, S>(src, index)?;
    Ok((header, body))
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// [`decode_request_lenient`] without allocating: reads what it reads, refuses what it
/// refuses, and returns views, recorded in `index`.
#[inline]
pub fn view_request_lenient<'a, S: RequestSet>(
    frame: impl Into<Source<'a>>,
    index: &'a mut ViewIndex,
) -> Result<ViewedRequest<'a, S>, DecodeError> {
    let src = frame.into();
    index.clear();
    if let Some((key, version)) = key_and_version(src.bytes()) {
        if key == API_VERSIONS_KEY {
            if let Some(api) = S::find(key).filter(|api| !api.versions().contains(version)) {
                let header_version = api.header_version(version);
                let header =
                    view::walk::<RequestHeader>(src, header_version, Reading::Prefix, index)?;
                let empty = Source::new(&[]);
                let body =
                    S::walk_view(key, empty, 0, Reading::Whole, index).map_err(|e| e.located(0))?;
                let walked = WalkedFrame {
                    key,
                    header,
                    body,
                    body_src: empty,
                    trailing_bytes: src.bytes().len().saturating_sub(header.len),
                };
                let (header, body) = walked.views::<RequestHeader, S>(src, index)?;
                return Ok(ViewedRequest {
                    header,
                    version: 0,
                    body,
                    trailing_bytes: walked.trailing_bytes,
                });
            }
        }
    }
    let walked = walk_request::<S>(src, Reading::Prefix, index)?;
    let (header, body) = walked.views::<RequestHeader, S>(src, index)?;
    Ok(ViewedRequest {
        version: header.request_api_version(),
        header,
        body,
        trailing_bytes: walked.trailing_bytes,
    })
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// The view of a request frame's header, recorded in `index`, and the bytes of its body, which
/// are not read: for a proxy that routes on the API, the client or the correlation id and
/// forwards the rest. The header is checked as [`decode_request_lenient`] checks it; an
/// ApiVersions request at a version the set lacks has the header version Kafka gives it.
///
/// ```
/// use kafka_wire::frame;
/// use kafka_wire::messages::api::RequestBody;
/// use kafka_wire::view::ViewIndex;
///
/// // Metadata v9 from client "rdkafka", correlation id 3, then its body.
/// let wire = b"\x00\x03\x00\x09\x00\x00\x00\x03\x00\x07rdkafka\x00\x01\x00\x00";
/// let mut index = ViewIndex::new();
/// let (header, body) = frame::peek_request::<RequestBody>(wire, &mut index)?;
/// assert_eq!(header.client_id(), Some("rdkafka"));
/// assert_eq!(body, b"\x01\x00\x00");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[inline]
pub fn peek_request<'a, S: RequestSet>(
    frame: impl Into<Source<'a>>,
    index: &'a mut ViewIndex,
) -> Result<(ViewOf<'a, RequestHeader>, &'a [u8]), DecodeError> {
    let src = frame.into();
    let bytes = src.bytes();
    let header_version = request_header_version::<S>(bytes)?;
    let (header, header_len) =
        view::open::<RequestHeader>(src, header_version, Reading::Prefix, index)?;
    Ok((header, bytes.get(header_len..).unwrap_or_default()))
}

/// The version of the header of a request frame, from its API key and version, as
/// [`decode_request_lenient`] reads it: an ApiVersions request at a version the set lacks has
/// the header version Kafka gives it.
#[cfg(feature = "views")]
pub(crate) fn request_header_version<S: RequestSet>(frame: &[u8]) -> Result<i16, DecodeError> {
    let Some((key, version)) = key_and_version(frame) else {
        return Err(DecodeError::eof(4, frame.len()).located(frame.len()));
    };
    let api = match api_of(S::APIS, key, version) {
        Ok(api) => api,
        Err(_) if key == API_VERSIONS_KEY && S::find(key).is_some() => {
            S::find(key).ok_or_else(|| DecodeError::at(ErrorKind::UnknownApiKey { key }, 0))?
        }
        Err(kind) => return Err(DecodeError::at(kind, 0)),
    };
    Ok(api.header_version(version))
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// A frame's API key and version, its first four bytes.
fn key_and_version(frame: &[u8]) -> Option<(i16, i16)> {
    let &[k0, k1, v0, v1] = frame.get(..4)? else {
        return None;
    };
    Some((i16::from_be_bytes([k0, k1]), i16::from_be_bytes([v0, v1])))
}

/// A frame the walk accepted: its header and body, recorded in one index.
#[cfg(feature = "views")]
#[derive(Clone, Copy)]
struct WalkedFrame<'a> {
    key: i16,
    header: view::Walked,
    body: view::Walked,
    /// What the body was walked on: the frame after the header.
    body_src: Source<'a>,
    trailing_bytes: usize,
}

#[cfg(feature = "views")]
impl<'a> WalkedFrame<'a> {
    /// The views of the header and the body, once both are recorded in `index`.
    #[inline]
    fn views<H: Viewable, S: ApiSet>(
        &self,
        src: Source<'a>,
        index: &'a ViewIndex,
    ) -> Result<(ViewOf<'a, H>, S::View<'a>), DecodeError> {
        let header = self.header.view::<H>(src, index);
        match S::walked_view(self.key, self.body, self.body_src, index) {
            Some(body) => Ok((header, body)),
            None => Err(DecodeError::at(
                ErrorKind::UnknownApiKey { key: self.key },
                0,
            )),
        }
    }
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// Walks a request frame's header and body into `index`: [`read_request`] in place.
#[inline]
fn walk_request<'a, S: RequestSet>(
    src: Source<'a>,
    reading: Reading,
    index: &mut ViewIndex,
) -> Result<WalkedFrame<'a>, DecodeError> {
    let len = src.bytes().len();
    let Some((key, version)) = key_and_version(src.bytes()) else {
        return Err(DecodeError::eof(4, len).located(len));
    };
    let api = api_of(S::APIS, key, version).map_err(|kind| DecodeError::at(kind, 0))?;
    walk_frame::<RequestHeader, S>(
        src,
        key,
        api.header_version(version),
        version,
        reading,
        index,
    )
}

/// Walks a frame's header of type `H` at `header_version`, then the body of API `key` at
/// `version` after it.
#[cfg(feature = "views")]
#[inline]
fn walk_frame<'a, H: crate::traits::Message + Viewable, S: ApiSet>(
    src: Source<'a>,
    key: i16,
    header_version: i16,
    version: i16,
    reading: Reading,
    index: &mut ViewIndex,
) -> Result<WalkedFrame<'a>, DecodeError> {
    let header = view::walk::<H>(src, header_version, Reading::Prefix, index)?;
    let body_src = src.split_off(header.len);
    let body =
        S::walk_view(key, body_src, version, reading, index).map_err(|e| e.shifted(header.len))?;
    Ok(WalkedFrame {
        key,
        header,
        body,
        body_src,
        trailing_bytes: src
            .bytes()
            .len()
            .saturating_sub(header.len)
            .saturating_sub(body.len),
    })
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// [`decode_response`] without allocating: the views of a response frame's header and body,
/// for a request of API `key` at `version`, recorded in `index`.
#[inline]
pub fn view_response<'a, S: ResponseSet>(
    frame: impl Into<Source<'a>>,
    key: i16,
    version: i16,
    index: &'a mut ViewIndex,
) -> Result<(ViewOf<'a, ResponseHeader>, S::View<'a>), DecodeError> {
    let src = frame.into();
    index.clear();
    let walked = walk_response::<S>(src, key, version, Reading::Whole, index)?;
    walked.views::<ResponseHeader, S>(src, index)
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// [`decode_response_lenient`] without allocating: reads what it reads (an ApiVersions answer
/// at version 0 included), refuses what it refuses, and returns views, recorded in `index`.
#[inline]
pub fn view_response_lenient<'a, S: ResponseSet>(
    frame: impl Into<Source<'a>>,
    key: i16,
    version: i16,
    index: &'a mut ViewIndex,
) -> Result<ViewedResponse<'a, S>, DecodeError> {
    let src = frame.into();
    index.clear();
    let walked = match walk_response::<S>(src, key, version, Reading::Prefix, index) {
        Err(e) if key == API_VERSIONS_KEY && version != 0 && starts_unsupported(src.bytes()) => {
            index.clear();
            walk_response::<S>(src, key, 0, Reading::Prefix, index)
                .map(|walked| (walked, 0))
                .map_err(|_| e)?
        }
        walked => (walked?, version),
    };
    let ((walked, version), index) = (walked, &*index);
    let (header, body) = walked.views::<ResponseHeader, S>(src, index)?;
    Ok(ViewedResponse {
        header,
        version,
        body,
        trailing_bytes: walked.trailing_bytes,
    })
}

#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
/// Walks a response frame's header and body into `index`.
#[inline]
fn walk_response<'a, S: ResponseSet>(
    src: Source<'a>,
    key: i16,
    version: i16,
    reading: Reading,
    index: &mut ViewIndex,
) -> Result<WalkedFrame<'a>, DecodeError> {
    let api = api_of(S::APIS, key, version).map_err(|kind| DecodeError::at(kind, 0))?;
    walk_frame::<ResponseHeader, S>(
        src,
        key,
        api.header_version(version),
        version,
        reading,
        index,
    )
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
        return Err(EncodeError::new(ErrorKind::HeaderMismatch {
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
    buf.put_i32(size_field(size)?);
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
    buf.put_i32(size_field(size)?);
    header.encode(buf, header_version)?;
    body.encode(buf, version)
}

fn size_field(size: usize) -> Result<i32, EncodeError> {
    i32::try_from(size).map_err(|_| {
        EncodeError::new(ErrorKind::TooLong {
            length: size,
            max: i32::MAX as usize,
        })
    })
}
