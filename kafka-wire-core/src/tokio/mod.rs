//! Async framing: [`tokio_util::codec`] decoders and encoders for both ends of a Kafka
//! connection, over any API set (feature `tokio`).
//!
//! - [`ServerCodec<S>`] reads request frames into [`DecodedRequest`]s of `S` (header, body,
//!   and the count of bytes left after the body) and writes [`Response`]s of `S::Responses`.
//! - [`ClientCodec<S>`] writes `(RequestHeader, S)` and remembers the API and version of every
//!   correlation id it wrote, so that it reads each response frame into a [`DecodedResponse`]
//!   with the body of the request it answers, in any order the server sends them.
//! - `RawServerCodec<S>` (feature `views`) reads request frames into `RawRequest`s, whose header is read and
//!   whose body is kept as bytes: a proxy or a server reads the bodies of the APIs it handles,
//!   through views or decoding, and writes the others on byte for byte.
//!
//! Both read frames with a maximum size ([`DEFAULT_MAX_FRAME_SIZE`] unless told otherwise),
//! refused from the frame's size field before its bytes are buffered. Both read a frame as
//! Kafka's broker and clients do ([`frame::decode_request_lenient`],
//! [`frame::decode_response_lenient`]): bytes after the body are not an error but a count,
//! `trailing_bytes`, for the application to log. Wrap either in a
//! [`Framed`](tokio_util::codec::Framed) (tokio-util 0.7, feature `codec`) around a socket:
//!
//! ```
//! use futures_util::{SinkExt, StreamExt};
//! use kafka_wire::messages::api::{RequestBody, ResponseBody};
//! use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse, RequestHeader};
//! use kafka_wire::tokio::{ClientCodec, CodecError, Response, ServerCodec};
//! use kafka_wire::{ApiMessage, KafkaString};
//! use tokio::net::{TcpListener, TcpStream};
//! use tokio_util::codec::Framed;
//!
//! # let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! # runtime.block_on(async {
//! let listener = TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//!
//! // A server that answers ApiVersions, for as long as the connection reads well.
//! let server = tokio::spawn(async move {
//!     let (socket, _) = listener.accept().await?;
//!     let mut conn = Framed::new(socket, ServerCodec::<RequestBody>::new());
//!     while let Some(request) = conn.next().await.transpose()? {
//!         let RequestBody::ApiVersions(_) = request.body else { break };
//!         let answer = ResponseBody::ApiVersions(ApiVersionsResponse::default());
//!         conn.send(Response::for_request(&request.header, answer)).await?;
//!     }
//!     Ok::<_, CodecError>(())
//! });
//!
//! let socket = TcpStream::connect(addr).await?;
//! let mut conn = Framed::new(socket, ClientCodec::<RequestBody>::new());
//! let header = RequestHeader::default()
//!     .with_request_api_key(ApiVersionsRequest::API_KEY)
//!     .with_request_api_version(3)
//!     .with_correlation_id(1)
//!     .with_client_id(Some(KafkaString::from_static("doc")));
//! conn.send((header, RequestBody::ApiVersions(ApiVersionsRequest::default()))).await?;
//! let response = conn.next().await.expect("an answer")?;
//! assert_eq!((response.header.correlation_id, response.version), (1, 3));
//! assert!(matches!(response.body, ResponseBody::ApiVersions(_)));
//!
//! drop(conn); // the server reads the end of the stream and stops
//! server.await??;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Errors
//!
//! Reading fails with a [`CodecError`]: the socket's [`io::Error`], a [`DecodeError`] (a frame
//! over the maximum size, a header or body that does not decode, with the field path and byte
//! offset), or on the client a response to no request in flight. A decoder that returned an
//! error reads nothing more ([`CodecError::Stopped`] from then on, the buffer discarded): a
//! frame refused for its size leaves the stream inside that frame, and a peer that sent what
//! cannot be read is not trusted further (Kafka's brokers close such connections too), so
//! **drop the connection**. (`Framed` yields the error and then ends its stream.)
//!
//! Writing fails with an [`EncodeError`] for a message that cannot be written at its version,
//! or on the client a correlation id still in flight; the buffer is left as it was, so the
//! connection stays usable.
//!
//! # ApiVersions at a version one side does not know
//!
//! Kafka's clients send ApiVersions at their newest version, and a broker that does not know
//! that version answers at version 0 with `UNSUPPORTED_VERSION` and its own list, whose
//! version of ApiVersions the client then uses. Both codecs follow the rule, so a newer client
//! can talk to an older server built on them:
//!
//! - [`ServerCodec`] yields an ApiVersions request at a version the set lacks with the header
//!   as sent and the body of an empty version-0 request (the body's bytes, in a format this
//!   side does not know, are not read, and are counted in `trailing_bytes`);
//!   [`DecodedRequest::version`] is 0, and [`Response::for_request`] answers it at version 0.
//! - [`ClientCodec`] reads an ApiVersions response that does not decode at the version asked
//!   for, and starts with `UNSUPPORTED_VERSION`, again at version 0, and says so in
//!   [`DecodedResponse::version`]. Kafka's client reads any such answer again at version 0;
//!   the difference is explained at [`frame::decode_response_lenient`].
//!
//! [`DEFAULT_MAX_FRAME_SIZE`]: crate::frame::DEFAULT_MAX_FRAME_SIZE
//! [`DecodedRequest`]: crate::frame::DecodedRequest
//! [`DecodedRequest::version`]: crate::frame::DecodedRequest::version
//! [`DecodedResponse`]: crate::frame::DecodedResponse
//! [`DecodedResponse::version`]: crate::frame::DecodedResponse::version

mod client;
#[cfg(feature = "views")]
mod raw;
mod server;

pub use client::ClientCodec;
#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
pub use raw::{RawRequest, RawServerCodec};
pub use server::ServerCodec;

use crate::api::ResponseSet;
use crate::frame::{self, API_VERSIONS_KEY};
use crate::messages::{RequestHeader, ResponseHeader};
use crate::{DecodeError, EncodeError};
use bytes::{Bytes, BytesMut};
use core::fmt;
use std::io;

/// A response frame to write: its header, the version of its body, and the body, of a response
/// set `R`.
///
/// [`ServerCodec`] writes them; [`ClientCodec`] reads the same three parts, with the count of
/// bytes left after the body, as a [`DecodedResponse`](crate::frame::DecodedResponse).
///
/// ```
/// use kafka_wire::messages::api::{RequestBody, ResponseBody};
/// use kafka_wire::messages::{ApiVersionsResponse, FetchResponse, RequestHeader};
/// use kafka_wire::tokio::Response;
///
/// let request = RequestHeader::default()
///     .with_request_api_key(1)
///     .with_request_api_version(12)
///     .with_correlation_id(9);
/// let response = Response::for_request(&request, ResponseBody::Fetch(FetchResponse::default()));
/// assert_eq!((response.header.correlation_id, response.version), (9, 12));
///
/// // An ApiVersions request at a version Kafka's set lacks is answered at version 0.
/// let probe = request.clone().with_request_api_key(18).with_request_api_version(99);
/// let body = ResponseBody::ApiVersions(ApiVersionsResponse::default());
/// assert_eq!(Response::for_request(&probe, body).version, 0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Response<R> {
    /// The response header: the correlation id of the request, and tagged fields in header v1.
    pub header: ResponseHeader,
    /// The version of the body: that of the request, but for the ApiVersions exception of the
    /// [module](self).
    pub version: i16,
    /// The body.
    pub body: R,
}

impl<R: ResponseSet> Response<R> {
    /// The answer `body` to the request of `request`: its correlation id, at its version, or at
    /// version 0 for an ApiVersions request at a version the set `R` lacks (put
    /// `UNSUPPORTED_VERSION` and the server's list in the body).
    pub fn for_request(request: &RequestHeader, body: R) -> Self {
        let asked = request.request_api_version;
        let unknown_api_versions = request.request_api_key == API_VERSIONS_KEY
            && R::find(API_VERSIONS_KEY).is_some_and(|api| !api.versions().contains(asked));
        Response {
            header: ResponseHeader {
                correlation_id: request.correlation_id,
                ..Default::default()
            },
            version: if unknown_api_versions { 0 } else { asked },
            body,
        }
    }

    /// Writes the response frame, as both server codecs do; on error nothing of it stays in
    /// `dst`.
    fn write(&self, dst: &mut BytesMut) -> Result<(), CodecError> {
        let start = dst.len();
        frame::encode_response(dst, &self.header, &self.body, self.version).map_err(|e| {
            dst.truncate(start);
            e.into()
        })
    }
}

/// What went wrong reading or writing a frame; see the [module](self#errors) for what the
/// caller does next.
///
/// `tokio_util`'s `Decoder` requires `From<io::Error>`: the errors of the socket are carried as
/// they are.
#[derive(Debug)]
#[non_exhaustive]
pub enum CodecError {
    /// Reading or writing the socket failed.
    Io(io::Error),
    /// A frame that cannot be read: its size is above the maximum or negative
    /// ([`FrameTooLarge`](crate::ErrorKind::FrameTooLarge),
    /// [`NegativeLength`](crate::ErrorKind::NegativeLength)), its header or body does not
    /// decode, or the stream ended inside it
    /// ([`UnexpectedEof`](crate::ErrorKind::UnexpectedEof)).
    Decode(DecodeError),
    /// A message that cannot be written at its version; nothing of it was written.
    Encode(EncodeError),
    /// A response whose correlation id no request in flight has.
    UnknownCorrelationId(i32),
    /// A request written with the correlation id of a request still in flight (its answer could
    /// not be told from the other's); it was not written.
    CorrelationIdInUse(i32),
    /// The decoder returned an error before, and reads nothing more.
    Stopped,
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io(e) => write!(f, "connection: {e}"),
            Self::Decode(e) => write!(f, "reading a frame: {e}"),
            Self::Encode(e) => write!(f, "writing a frame: {e}"),
            Self::UnknownCorrelationId(id) => {
                write!(
                    f,
                    "response with correlation id {id}, which no request in flight has"
                )
            }
            Self::CorrelationIdInUse(id) => {
                write!(f, "correlation id {id} is already in flight")
            }
            Self::Stopped => f.write_str("the decoder stopped at an earlier error"),
        }
    }
}

impl std::error::Error for CodecError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io(e) => Some(e),
            Self::Decode(e) => Some(e),
            Self::Encode(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for CodecError {
    fn from(e: io::Error) -> Self {
        CodecError::Io(e)
    }
}

impl From<DecodeError> for CodecError {
    fn from(e: DecodeError) -> Self {
        CodecError::Decode(e)
    }
}

impl From<EncodeError> for CodecError {
    fn from(e: EncodeError) -> Self {
        CodecError::Encode(e)
    }
}

/// The reading half both codecs share: frames cut off the buffer with a maximum size, and a
/// stop at the first error.
#[derive(Debug, Clone, Copy)]
struct FrameReader {
    max_frame_size: usize,
    stopped: bool,
}

impl FrameReader {
    fn new(max_frame_size: usize) -> Self {
        FrameReader {
            max_frame_size,
            stopped: false,
        }
    }

    /// Reads the next whole frame off `src` with `read`, or `None` while it is incomplete.
    ///
    /// Nothing is reserved for a frame before its bytes arrive: its size is the peer's word, and
    /// the buffer grows with what the socket delivers instead.
    fn next<T>(
        &mut self,
        src: &mut BytesMut,
        read: impl FnOnce(Bytes) -> Result<T, CodecError>,
    ) -> Result<Option<T>, CodecError> {
        if self.stopped {
            // Whatever follows an error is not known to be at a frame boundary; discarding it
            // keeps a caller that polls on from buffering the peer's bytes without end.
            src.clear();
            return Err(CodecError::Stopped);
        }
        let result = match frame::split_frame(src, self.max_frame_size) {
            Ok(Some(frame)) => read(frame).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(e.into()),
        };
        self.stopped = result.is_err();
        result
    }

    /// [`next`](Self::next) at the end of the stream: bytes left that make no whole frame are an
    /// [`UnexpectedEof`](crate::ErrorKind::UnexpectedEof).
    fn last<T>(
        &mut self,
        src: &mut BytesMut,
        read: impl FnOnce(Bytes) -> Result<T, CodecError>,
    ) -> Result<Option<T>, CodecError> {
        match self.next(src, read)? {
            Some(item) => Ok(Some(item)),
            None if src.is_empty() => Ok(None),
            None => {
                self.stopped = true;
                let available = src.len();
                let needed = match src.get(..4) {
                    Some(&[b0, b1, b2, b3]) => {
                        // `split_frame` has checked the size: non-negative, at most the maximum.
                        let size = usize::try_from(i32::from_be_bytes([b0, b1, b2, b3]));
                        size.unwrap_or(0).saturating_add(4)
                    }
                    _ => 4,
                };
                Err(DecodeError::eof(needed, available)
                    .located(available)
                    .into())
            }
        }
    }
}
