//! The server's codec: request frames in, response frames out.

use super::{CodecError, FrameReader, Response};
use crate::api::RequestSet;
use crate::frame::{self, DecodedRequest, DEFAULT_MAX_FRAME_SIZE};
use bytes::{Bytes, BytesMut};
use core::fmt;
use core::marker::PhantomData;
use tokio_util::codec::{Decoder, Encoder};

/// The codec of a server: decodes request frames into [`DecodedRequest`]s of any request set
/// `S`, and encodes [`Response`]s of `S::Responses`.
///
/// Frames are read as Kafka's broker reads them, with
/// [`frame::decode_request_lenient`]: bytes of a frame after its body are left unread, and
/// counted in [`DecodedRequest::trailing_bytes`] for the server to log (librdkafka's Metadata
/// request for all topics has one). A frame whose size field is above the maximum is an error
/// before its bytes are buffered; any decoding error stops the decoder (see the
/// [module](super#errors): drop the connection). An ApiVersions request at a version `S` lacks
/// is yielded, not refused (see the
/// [module](super#apiversions-at-a-version-one-side-does-not-know)).
///
/// ```
/// use bytes::BytesMut;
/// use kafka_wire::frame;
/// use kafka_wire::messages::api::{RequestBody, ResponseBody};
/// use kafka_wire::messages::{MetadataRequest, MetadataResponse, RequestHeader};
/// use kafka_wire::tokio::{Response, ServerCodec};
/// use kafka_wire::ErrorKind;
/// use tokio_util::codec::{Decoder, Encoder};
///
/// let mut codec = ServerCodec::<RequestBody>::with_max_frame_size(1024);
/// let header = RequestHeader::default()
///     .with_request_api_key(3)
///     .with_request_api_version(12)
///     .with_correlation_id(5);
/// let mut wire = BytesMut::new();
/// frame::encode_request(&mut wire, &header, &RequestBody::Metadata(MetadataRequest::default()))?;
///
/// // A frame is yielded once all of it is there.
/// let mut buf = wire.split_to(7);
/// assert!(codec.decode(&mut buf)?.is_none());
/// buf.extend_from_slice(&wire);
/// let request = codec.decode(&mut buf)?.expect("a whole frame");
/// assert_eq!(request.header, header);
/// assert_eq!(request.trailing_bytes, 0);
///
/// let mut out = BytesMut::new();
/// let answer = ResponseBody::Metadata(MetadataResponse::default());
/// codec.encode(Response::for_request(&request.header, answer), &mut out)?;
///
/// // 2000 bytes announced: refused from the size field alone.
/// let mut buf = BytesMut::from(&2000i32.to_be_bytes()[..]);
/// let err = codec.decode(&mut buf).unwrap_err();
/// assert!(matches!(
///     err,
///     kafka_wire::tokio::CodecError::Decode(ref e)
///         if matches!(e.kind(), ErrorKind::FrameTooLarge { size: 2000, max: 1024 })
/// ));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ServerCodec<S> {
    reader: FrameReader,
    set: PhantomData<fn() -> S>,
}

impl<S> ServerCodec<S> {
    /// A codec that reads frames of up to [`DEFAULT_MAX_FRAME_SIZE`] bytes (Kafka's default
    /// `socket.request.max.bytes`).
    pub fn new() -> Self {
        Self::with_max_frame_size(DEFAULT_MAX_FRAME_SIZE)
    }

    /// A codec that reads frames of up to `max` bytes (the size field excluded).
    pub fn with_max_frame_size(max: usize) -> Self {
        ServerCodec {
            reader: FrameReader::new(max),
            set: PhantomData,
        }
    }

    /// The largest frame the codec reads.
    pub fn max_frame_size(&self) -> usize {
        self.reader.max_frame_size
    }
}

impl<S> Default for ServerCodec<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> fmt::Debug for ServerCodec<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerCodec")
            .field("max_frame_size", &self.reader.max_frame_size)
            .field("stopped", &self.reader.stopped)
            .finish()
    }
}

impl<S: RequestSet> Decoder for ServerCodec<S> {
    type Item = DecodedRequest<S>;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        self.reader.next(src, read_request)
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        self.reader.last(src, read_request)
    }
}

/// Writes the response; on error nothing of it stays in `dst`.
impl<S: RequestSet> Encoder<Response<S::Responses>> for ServerCodec<S> {
    type Error = CodecError;

    fn encode(
        &mut self,
        response: Response<S::Responses>,
        dst: &mut BytesMut,
    ) -> Result<(), CodecError> {
        response.write(dst)
    }
}

/// A request frame, read as Kafka's broker reads one.
fn read_request<S: RequestSet>(frame: Bytes) -> Result<DecodedRequest<S>, CodecError> {
    Ok(frame::decode_request_lenient(frame)?)
}
