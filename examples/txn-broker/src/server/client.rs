//! A minimal blocking Kafka client, used by the marker sender and by the tests.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use bytes::BytesMut;
use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::RequestHeader;
use kafka_wire::ApiSet;

use crate::trace;

/// A minimal blocking Kafka client over one TCP connection: one request at a time, each
/// waiting for its answer. Used by the marker sender and by the tests. Not for requests that
/// take no answer (Produce with acks=0).
pub struct Client {
    stream: TcpStream,
    client_id: String,
    next_correlation_id: i32,
    buf: BytesMut,
}

fn invalid(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

impl Client {
    /// Connects to the first address of `addr` that answers within `connect_timeout`; reads
    /// and writes then time out after `io_timeout`.
    pub fn connect(
        addr: impl ToSocketAddrs,
        client_id: &str,
        connect_timeout: Duration,
        io_timeout: Duration,
    ) -> io::Result<Self> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
        for a in addr.to_socket_addrs()? {
            match TcpStream::connect_timeout(&a, connect_timeout) {
                Ok(stream) => {
                    stream.set_read_timeout(Some(io_timeout))?;
                    stream.set_write_timeout(Some(io_timeout))?;
                    let _ = stream.set_nodelay(true);
                    return Ok(Self {
                        stream,
                        client_id: client_id.to_owned(),
                        next_correlation_id: 1,
                        buf: BytesMut::new(),
                    });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Sends `body` at `version` and returns the answer's body.
    pub fn call(&mut self, body: RequestBody, version: i16) -> io::Result<ResponseBody> {
        let key = body.api_key();
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id = self.next_correlation_id.wrapping_add(1);
        let header = RequestHeader::default()
            .with_request_api_key(key)
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(self.client_id.clone().into()));
        let mut out = BytesMut::new();
        frame::encode_request(&mut out, &header, &body).map_err(invalid)?;
        self.stream.write_all(&out)?;
        let mut chunk = vec![0u8; 64 * 1024];
        let frame = loop {
            if let Some(frame) =
                frame::split_frame(&mut self.buf, DEFAULT_MAX_FRAME_SIZE).map_err(invalid)?
            {
                break frame;
            }
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "connection closed before the answer",
                ));
            }
            self.buf.extend_from_slice(&chunk[..n]);
        };
        // Read as Kafka's clients read an answer: bytes after the body are ignored (and
        // traced), and an ApiVersions version the broker does not know is answered at v0.
        let response =
            frame::decode_response_lenient::<ResponseBody>(frame, key, version).map_err(invalid)?;
        if response.header.correlation_id != correlation_id {
            return Err(invalid(format!(
                "answer for correlation id {} while waiting for {correlation_id}",
                response.header.correlation_id
            )));
        }
        if response.trailing_bytes > 0 {
            trace!(
                self.client_id,
                "{} v{} corr {correlation_id}: {} bytes after the body of the answer ignored",
                response.body.api().name(),
                response.version,
                response.trailing_bytes
            );
        }
        Ok(response.body)
    }
}
