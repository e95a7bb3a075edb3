//! The listeners' side of a connection: one thread per connection reading request frames,
//! the version checks made before a request is decoded, and the encoding of each answer.
//!
//! Requests are read as Kafka's broker reads them (`frame::view_request_lenient`): what
//! follows a request's body in its frame is ignored, and its count traced. Every request is
//! opened as a view on its frame, which checks it whole without allocating; Produce and Fetch
//! are answered from their views (Produce's records shared with the frame, not copied), and
//! the other APIs from the owned request the view turns into.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;

use bytes::{Bytes, BytesMut};
use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kafka_wire::messages::api::{RequestBody, RequestBodyView, ResponseBody};
use kafka_wire::messages::{ApiVersionsRequest, ResponseHeader};
use kafka_wire::view::{Source, ViewIndex};
use kafka_wire::{ApiMessage, ApiSet, ErrorCode};

use crate::leader::Listener;
use crate::trace;

use super::apis::{api_versions_response, readable_versions};
use super::dispatch::{fetch_waiting, produce, respond};
use super::Shared;

/// Accepts connections on `socket` for as long as the process runs, each served by a thread
/// of its own.
pub(super) fn accept_loop(shared: Arc<Shared>, socket: TcpListener, listener: Listener) {
    for stream in socket.incoming() {
        match stream {
            Ok(stream) => {
                let conn = Arc::clone(&shared);
                let spawned = thread::Builder::new()
                    .name("connection".into())
                    .spawn(move || serve_connection(&conn, stream, listener));
                if let Err(e) = spawned {
                    trace!(shared.who, "cannot start a connection thread: {e}");
                }
            }
            Err(e) => trace!(shared.who, "{listener:?} accept failed: {e}"),
        }
    }
}

/// What to do after a request.
enum Reply {
    /// Write these bytes (a whole response frame).
    Send(BytesMut),
    /// Nothing to write (Produce with acks=0).
    Nothing,
    /// Close the connection, for this reason.
    Close(String),
}

fn serve_connection(shared: &Shared, mut stream: TcpStream, listener: Listener) {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".to_owned(), |a| a.to_string());
    trace!(shared.who, "{listener:?} connection from {peer}");
    let _ = stream.set_nodelay(true);
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    // The connection's requests are opened into one index, which stops growing once it has held
    // the largest.
    let mut index = ViewIndex::new();
    loop {
        loop {
            let frame = match frame::split_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE) {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(e) => {
                    trace!(shared.who, "{peer}: bad frame, closing: {e}");
                    return;
                }
            };
            match handle_frame(shared, frame, listener, &mut index) {
                Reply::Send(bytes) => {
                    if let Err(e) = stream.write_all(&bytes) {
                        trace!(shared.who, "{peer}: write failed, closing: {e}");
                        return;
                    }
                }
                Reply::Nothing => {}
                Reply::Close(reason) => {
                    trace!(shared.who, "{peer}: closing: {reason}");
                    return;
                }
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) => {
                trace!(shared.who, "{peer}: connection closed by the client");
                return;
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                trace!(shared.who, "{peer}: read failed, closing: {e}");
                return;
            }
        }
    }
}

/// API key, API version and correlation id, which sit at the same place in every request
/// header version.
fn peek_header(frame: &[u8]) -> Option<(i16, i16, i32)> {
    match frame.get(..8) {
        Some(&[k0, k1, v0, v1, c0, c1, c2, c3]) => Some((
            i16::from_be_bytes([k0, k1]),
            i16::from_be_bytes([v0, v1]),
            i32::from_be_bytes([c0, c1, c2, c3]),
        )),
        _ => None,
    }
}

fn encode(correlation_id: i32, body: &ResponseBody, version: i16) -> Reply {
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    let mut out = BytesMut::new();
    match frame::encode_response(&mut out, &header, body, version) {
        Ok(()) => Reply::Send(out),
        Err(e) => Reply::Close(format!("cannot encode the response: {e}")),
    }
}

fn handle_frame(shared: &Shared, frame: Bytes, listener: Listener, index: &mut ViewIndex) -> Reply {
    let Some((key, version, correlation_id)) = peek_header(&frame) else {
        return Reply::Close("frame shorter than a request header".into());
    };
    let (lo, hi) = readable_versions(ApiVersionsRequest::API_KEY).unwrap_or((0, 0));
    if key == ApiVersionsRequest::API_KEY && !(lo..=hi).contains(&version) {
        // A client probing with a newer ApiVersions than ours: answer at v0, which every
        // client reads, with the error and our list, so that it retries with a version we know.
        trace!(
            shared.who,
            "ApiVersions v{version} corr {correlation_id}: unsupported, answered at v0"
        );
        let body = ResponseBody::ApiVersions(api_versions_response(
            listener,
            ErrorCode::UNSUPPORTED_VERSION,
        ));
        return encode(correlation_id, &body, 0);
    }
    let api = RequestBody::find(key);
    match readable_versions(key) {
        Some((lo, hi)) if (lo..=hi).contains(&version) => {}
        Some(_) => {
            return Reply::Close(format!(
                "{} v{version} corr {correlation_id}: version not supported",
                api.map_or("?", |api| api.name())
            ))
        }
        None => {
            return Reply::Close(format!(
                "API key {key} v{version} corr {correlation_id}: API not handled"
            ))
        }
    }
    // Read as Kafka's broker reads a request: bytes after the body are ignored (librdkafka's
    // Metadata request for all topics, v9 and later, leaves one), and counted in the trace.
    let request = match frame::view_request_lenient::<RequestBody>(&frame, index) {
        Ok(request) => request,
        Err(e) => return Reply::Close(format!("undecodable request: {e}")),
    };
    trace!(
        shared.who,
        "{listener:?} {} v{version} corr {correlation_id} from {}{}",
        request.body.api().name(),
        request.header.client_id().unwrap_or("-"),
        match request.trailing_bytes {
            0 => String::new(),
            n => format!(", {n} bytes after the body ignored"),
        }
    );
    match request.body {
        RequestBodyView::Produce(req) => match produce(shared, req, Source::from(&frame)) {
            Some(response) => encode(correlation_id, &ResponseBody::Produce(response), version),
            None => Reply::Nothing,
        },
        RequestBodyView::Fetch(req) => {
            let response = fetch_waiting(shared, req, version);
            encode(correlation_id, &ResponseBody::Fetch(response), version)
        }
        other => {
            let header = request.header.into_owned();
            match respond(shared, &header, other.into_owned(), listener) {
                Some(response) => encode(correlation_id, &response, version),
                None => Reply::Nothing,
            }
        }
    }
}

#[cfg(test)]
mod tests;
