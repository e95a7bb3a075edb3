//! The pass-through server codec: request frames with their header read and their body kept
//! as bytes.

use super::{CodecError, FrameReader, Response};
use crate::api::RequestSet;
use crate::frame::{self, DecodedRequest, ViewedRequest, DEFAULT_MAX_FRAME_SIZE};
use crate::messages::RequestHeader;
use crate::view::ViewIndex;
use crate::{Decode, DecodeError, EncodeError, ErrorKind};
use bytes::{BufMut, Bytes, BytesMut};
use core::fmt;
use core::marker::PhantomData;
use tokio_util::codec::{Decoder, Encoder};

/// A request frame whose header is read and whose body is not: what [`RawServerCodec`]
/// yields. The server reads the body of the APIs it handles ([`view_in`](Self::view_in),
/// [`decode`](Self::decode)) and forwards the others as they came
/// ([`frame`](Self::frame), or by writing the `RawRequest` with the codec).
#[derive(Clone, PartialEq)]
pub struct RawRequest<S> {
    header: RequestHeader,
    frame: Bytes,
    body_start: usize,
    set: PhantomData<fn() -> S>,
}

impl<S: RequestSet> RawRequest<S> {
    /// Reads the header of a frame's contents (as [`frame::split_frame`] returns them), as
    /// [`frame::peek_request`] does, and keeps the rest unread.
    pub fn new(frame: Bytes) -> Result<Self, DecodeError> {
        let header_version = frame::request_header_version::<S>(&frame)?;
        let mut body = frame.clone();
        // The header's strings share the frame.
        let header = RequestHeader::decode(&mut body, header_version)?;
        let body_start = frame.len().saturating_sub(body.len());
        Ok(RawRequest {
            header,
            frame,
            body_start,
            set: PhantomData,
        })
    }

    /// The request header.
    pub fn header(&self) -> &RequestHeader {
        &self.header
    }

    /// The frame's contents as they were read, header and body, without the size.
    pub fn frame(&self) -> &Bytes {
        &self.frame
    }

    /// The body's bytes, sharing the frame.
    pub fn body(&self) -> Bytes {
        self.frame.slice(self.body_start..)
    }

    /// The views of the header and the body, read as [`frame::view_request_lenient`] reads
    /// them, recorded in `index`; the views' byte fields can share the frame.
    pub fn view_in<'a>(
        &'a self,
        index: &'a mut ViewIndex,
    ) -> Result<ViewedRequest<'a, S>, DecodeError> {
        frame::view_request_lenient::<S>(&self.frame, index)
    }

    /// The header and the body, decoded as [`frame::decode_request_lenient`] decodes them.
    pub fn decode(&self) -> Result<DecodedRequest<S>, DecodeError> {
        frame::decode_request_lenient::<S>(self.frame.clone())
    }
}

impl<S> fmt::Debug for RawRequest<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawRequest")
            .field("header", &self.header)
            .field(
                "body_len",
                &self.frame.len().saturating_sub(self.body_start),
            )
            .finish()
    }
}

/// The codec of a server that reads only some of the requests it passes on: it yields each
/// request frame as a [`RawRequest`], with the header read (as [`frame::peek_request`] reads
/// it) and the body as bytes, and writes [`Response`]s of `S::Responses` and, byte for byte,
/// `RawRequest`s.
///
/// ```
/// use bytes::BytesMut;
/// use kafka_wire::frame;
/// use kafka_wire::messages::api::{RequestBody, RequestBodyView};
/// use kafka_wire::messages::{MetadataRequest, RequestHeader};
/// use kafka_wire::tokio::RawServerCodec;
/// use tokio_util::codec::{Decoder, Encoder};
///
/// let header = RequestHeader::default()
///     .with_request_api_key(3)
///     .with_request_api_version(12)
///     .with_correlation_id(5);
/// let mut wire = BytesMut::new();
/// frame::encode_request(&mut wire, &header, &RequestBody::Metadata(MetadataRequest::default()))?;
/// let sent = wire.clone();
///
/// let mut codec = RawServerCodec::<RequestBody>::new();
/// let request = codec.decode(&mut wire)?.expect("a whole frame");
/// assert_eq!(request.header(), &header);
/// // Read the body of the APIs this server handles...
/// let mut index = kafka_wire::view::ViewIndex::new();
/// let viewed = request.view_in(&mut index)?;
/// assert!(matches!(viewed.body, RequestBodyView::Metadata(_)));
/// // ...and pass the others on as they came.
/// let mut out = BytesMut::new();
/// codec.encode(request, &mut out)?;
/// assert_eq!(out, sent);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct RawServerCodec<S> {
    reader: FrameReader,
    set: PhantomData<fn() -> S>,
}

impl<S> RawServerCodec<S> {
    /// A codec that reads frames of up to [`DEFAULT_MAX_FRAME_SIZE`] bytes.
    pub fn new() -> Self {
        Self::with_max_frame_size(DEFAULT_MAX_FRAME_SIZE)
    }

    /// A codec that reads frames of up to `max` bytes (the size field excluded).
    pub fn with_max_frame_size(max: usize) -> Self {
        RawServerCodec {
            reader: FrameReader::new(max),
            set: PhantomData,
        }
    }

    /// The largest frame the codec reads.
    pub fn max_frame_size(&self) -> usize {
        self.reader.max_frame_size
    }
}

impl<S> Default for RawServerCodec<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> fmt::Debug for RawServerCodec<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RawServerCodec")
            .field("max_frame_size", &self.reader.max_frame_size)
            .field("stopped", &self.reader.stopped)
            .finish()
    }
}

impl<S: RequestSet> Decoder for RawServerCodec<S> {
    type Item = RawRequest<S>;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        self.reader.next(src, read_raw)
    }

    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Self::Item>, CodecError> {
        self.reader.last(src, read_raw)
    }
}

/// Writes the response; on error nothing of it stays in `dst`.
impl<S: RequestSet> Encoder<Response<S::Responses>> for RawServerCodec<S> {
    type Error = CodecError;

    fn encode(
        &mut self,
        response: Response<S::Responses>,
        dst: &mut BytesMut,
    ) -> Result<(), CodecError> {
        response.write(dst)
    }
}

/// Writes the request's frame as it was read: its size, then its contents.
impl<S: RequestSet> Encoder<RawRequest<S>> for RawServerCodec<S> {
    type Error = CodecError;

    fn encode(&mut self, request: RawRequest<S>, dst: &mut BytesMut) -> Result<(), CodecError> {
        let size = i32::try_from(request.frame.len()).map_err(|_| {
            EncodeError::new(ErrorKind::TooLong {
                length: request.frame.len(),
                max: i32::MAX as usize,
            })
        })?;
        dst.reserve(request.frame.len().saturating_add(4));
        dst.put_i32(size);
        dst.put_slice(&request.frame);
        Ok(())
    }
}

fn read_raw<S: RequestSet>(frame: Bytes) -> Result<RawRequest<S>, CodecError> {
    Ok(RawRequest::new(frame)?)
}
