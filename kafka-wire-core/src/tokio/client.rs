//! The client's codec: request frames out, response frames in, matched by correlation id.

use super::{CodecError, FrameReader};
use crate::api::{RequestSet, ResponseSet};
use crate::frame::{self, DecodedResponse, DEFAULT_MAX_FRAME_SIZE};
use crate::messages::RequestHeader;
use crate::DecodeError;
use bytes::{Bytes, BytesMut};
use core::fmt;
use core::marker::PhantomData;
use std::collections::HashMap;
use tokio_util::codec::{Decoder, Encoder};

/// The codec of a client: encodes `(RequestHeader, S)` for any request set `S` and remembers the
/// API key and version of each correlation id it wrote; decodes each response frame into a
/// [`DecodedResponse`] of `S::Responses`, as the body of the request with its correlation id.
///
/// Frames are read as Kafka's clients read them, with [`frame::decode_response_lenient`]: bytes
/// of a frame after its body are left unread and counted in
/// [`DecodedResponse::trailing_bytes`], and an ApiVersions answer at version 0 is read as the
/// [module](super#apiversions-at-a-version-one-side-does-not-know) says.
///
/// Responses may come in any order. A response whose correlation id no request in flight has is
/// [`CodecError::UnknownCorrelationId`]; like any decoding error it stops the decoder (see the
/// [module](super#errors): drop the connection). A request that the server does not answer
/// (Produce with `acks = 0`) stays in flight until [`forget`](Self::forget).
///
/// ```
/// use bytes::BytesMut;
/// use kafka_wire::frame;
/// use kafka_wire::messages::api::{RequestBody, ResponseBody};
/// use kafka_wire::messages::{MetadataRequest, MetadataResponse, RequestHeader, ResponseHeader};
/// use kafka_wire::tokio::{ClientCodec, CodecError};
/// use tokio_util::codec::{Decoder, Encoder};
///
/// let mut codec = ClientCodec::<RequestBody>::new();
/// let header = |correlation_id| RequestHeader::default()
///     .with_request_api_key(3)
///     .with_request_api_version(12)
///     .with_correlation_id(correlation_id);
/// let mut out = BytesMut::new();
/// codec.encode((header(7), RequestBody::Metadata(MetadataRequest::default())), &mut out)?;
/// assert_eq!(codec.in_flight(), 1);
/// // The same correlation id again, while 7 is unanswered: refused, nothing written.
/// let written = out.len();
/// let again = codec.encode((header(7), RequestBody::Metadata(MetadataRequest::default())), &mut out);
/// assert!(matches!(again, Err(CodecError::CorrelationIdInUse(7))));
/// assert_eq!(out.len(), written);
///
/// // The server's answer, read at the version the request was sent at.
/// let mut wire = BytesMut::new();
/// let answer = ResponseHeader::default().with_correlation_id(7);
/// frame::encode_response(&mut wire, &answer, &ResponseBody::Metadata(MetadataResponse::default()), 12)?;
/// let response = codec.decode(&mut wire)?.expect("a whole frame");
/// assert_eq!((response.header.correlation_id, response.version), (7, 12));
/// assert!(matches!(response.body, ResponseBody::Metadata(_)));
/// assert_eq!(codec.in_flight(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ClientCodec<S> {
    reader: FrameReader,
    /// API key and version by correlation id, for every request written and not yet answered.
    in_flight: HashMap<i32, (i16, i16)>,
    set: PhantomData<fn() -> S>,
}

impl<S> ClientCodec<S> {
    /// A codec that reads frames of up to [`DEFAULT_MAX_FRAME_SIZE`] bytes.
    ///
    /// Kafka's clients put no limit on a response's size (up to the 2 GiB an `i32` size can
    /// say); this codec keeps the server-side default, so that a peer that announces a huge
    /// frame is refused from its size field. A client that asks for more in one answer
    /// (a Fetch with `max_bytes` above 100 MiB) raises it with
    /// [`with_max_frame_size`](Self::with_max_frame_size).
    pub fn new() -> Self {
        Self::with_max_frame_size(DEFAULT_MAX_FRAME_SIZE)
    }

    /// A codec that reads frames of up to `max` bytes (the size field excluded).
    pub fn with_max_frame_size(max: usize) -> Self {
        ClientCodec {
            reader: FrameReader::new(max),
            in_flight: HashMap::new(),
            set: PhantomData,
        }
    }

    /// The largest frame the codec reads.
    pub fn max_frame_size(&self) -> usize {
        self.reader.max_frame_size
    }

    /// How many requests were written and not yet answered.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Stops waiting for the answer to `correlation_id` (a request the server does not
    /// answer); whether it was in flight. Its correlation id may be used again, and an answer
    /// that comes all the same is then [`CodecError::UnknownCorrelationId`].
    pub fn forget(&mut self, correlation_id: i32) -> bool {
        self.in_flight.remove(&correlation_id).is_some()
    }
}

impl<S> Default for ClientCodec<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> fmt::Debug for ClientCodec<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCodec")
            .field("max_frame_size", &self.reader.max_frame_size)
            .field("stopped", &self.reader.stopped)
            .field("in_flight", &self.in_flight)
            .finish()
    }
}

/// Writes the request and records its API and version under its correlation id; on error
/// nothing of it stays in `dst` and nothing is recorded.
impl<S: RequestSet> Encoder<(RequestHeader, S)> for ClientCodec<S> {
    type Error = CodecError;

    fn encode(
        &mut self,
        (header, body): (RequestHeader, S),
        dst: &mut BytesMut,
    ) -> Result<(), CodecError> {
        let id = header.correlation_id;
        if self.in_flight.contains_key(&id) {
            return Err(CodecError::CorrelationIdInUse(id));
        }
        let start = dst.len();
        if let Err(e) = frame::encode_request(dst, &header, &body) {
            dst.truncate(start);
            return Err(e.into());
        }
        self.in_flight
            .insert(id, (header.request_api_key, header.request_api_version));
        Ok(())
    }
}

impl<S: RequestSet> Decoder for ClientCodec<S> {
    type Item = DecodedResponse<S::Responses>;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        let in_flight = &mut self.in_flight;
        self.reader
            .next(src, |frame| read_response(in_flight, frame))
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        let in_flight = &mut self.in_flight;
        self.reader
            .last(src, |frame| read_response(in_flight, frame))
    }
}

/// The response frame of a request in flight, which it takes out of `in_flight`, read as Kafka's
/// clients read one.
fn read_response<R: ResponseSet>(
    in_flight: &mut HashMap<i32, (i16, i16)>,
    frame: Bytes,
) -> Result<DecodedResponse<R>, CodecError> {
    // Every response header version starts with the correlation id.
    let Some(&[c0, c1, c2, c3]) = frame.get(..4) else {
        return Err(DecodeError::eof(4, frame.len()).located(frame.len()).into());
    };
    let id = i32::from_be_bytes([c0, c1, c2, c3]);
    let (key, version) = in_flight
        .remove(&id)
        .ok_or(CodecError::UnknownCorrelationId(id))?;
    Ok(frame::decode_response_lenient(frame, key, version)?)
}
