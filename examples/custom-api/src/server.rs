//! The server: one thread per connection; it answers ApiVersions with the versions it speaks
//! and Ping with an echo.
//!
//! Requests are read as views on their frames (`frame::view_request`): a Ping is answered from
//! its view, its payload echoed as a `Bytes` that shares the request's frame, and no owned
//! `PingRequest` is ever made.

use crate::messages::ping_response::Handler;
use crate::messages::{PingRequest, PingResponse, Requests, RequestsView, Responses};
use crate::{invalid, read_frame, UNSUPPORTED_VERSION};
use bytes::{Bytes, BytesMut};
use kafka_wire::frame;
use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse, ResponseHeader};
use kafka_wire::negotiate::advertise;
use kafka_wire::view::{Source, ViewIndex};
use kafka_wire::{ApiMessage, ApiSet, VersionRange};
use std::io::{self, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;

/// What a server speaks and calls itself.
#[derive(Debug, Clone)]
pub struct Server {
    pub name: String,
    /// The Ping versions it answers: all the crate has, or fewer, as an older server would.
    pub ping: VersionRange,
    /// The ApiVersions versions it answers.
    pub api_versions: VersionRange,
}

impl Server {
    /// Accepts connections on `listener` until it is closed, each served on its own thread.
    pub fn serve(self, listener: TcpListener) {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let server = self.clone();
            thread::spawn(move || {
                if let Err(e) = server.connection(stream) {
                    println!("[{}] connection closed: {e}", server.name);
                }
            });
        }
    }

    /// The APIs and versions this server speaks.
    fn speaks(&self) -> Vec<(i16, VersionRange)> {
        Requests::APIS
            .iter()
            .map(|api| match api.key() {
                PingRequest::API_KEY => (api.key(), api.versions().intersect(self.ping)),
                ApiVersionsRequest::API_KEY => {
                    (api.key(), api.versions().intersect(self.api_versions))
                }
                _ => (api.key(), api.versions()),
            })
            .collect()
    }

    fn connection(&self, mut stream: TcpStream) -> io::Result<()> {
        let mut buf = BytesMut::new();
        let mut answered = 0;
        // Every request of the connection is opened into this index.
        let mut index = ViewIndex::new();
        while let Some(frame) = read_frame(&mut stream, &mut buf)? {
            let (out, done) = self.answer(frame, &mut answered, &mut index)?;
            stream.write_all(&out)?;
            if done {
                return Ok(());
            }
        }
        Ok(())
    }

    /// The frame to send back; `true` when the connection should close after it.
    fn answer(
        &self,
        frame: Bytes,
        answered: &mut i32,
        index: &mut ViewIndex,
    ) -> io::Result<(BytesMut, bool)> {
        let (key, version, correlation_id) = peek(&frame).ok_or_else(|| invalid("short frame"))?;
        let speaks = self.speaks();
        let supported = speaks.iter().any(|(k, r)| *k == key && r.contains(version));
        let header = ResponseHeader::default().with_correlation_id(correlation_id);
        let mut out = BytesMut::new();
        if !supported {
            // Kafka's rule: a version the server does not know gets an ApiVersions answer at v0,
            // which every client reads, with the error and the versions to retry with.
            println!("[{}] API {key} v{version}: not spoken here", self.name);
            if key == ApiVersionsRequest::API_KEY {
                let body = Responses::ApiVersions(
                    ApiVersionsResponse::default()
                        .with_error_code(UNSUPPORTED_VERSION)
                        .with_api_keys(advertise(speaks)),
                );
                frame::encode_response(&mut out, &header, &body, 0).map_err(invalid)?;
                return Ok((out, false));
            }
            return Ok((out, true));
        }
        let (_, body) = frame::view_request::<Requests>(&frame, index).map_err(invalid)?;
        let response = match body {
            RequestsView::ApiVersions(_) => {
                println!(
                    "[{}] ApiVersions v{version}: {}",
                    self.name,
                    describe(&speaks)
                );
                Responses::ApiVersions(
                    ApiVersionsResponse::default().with_api_keys(advertise(speaks)),
                )
            }
            RequestsView::Ping(ping) => {
                *answered += 1;
                println!(
                    "[{}] Ping v{version} #{} from {}: {} bytes",
                    self.name,
                    ping.sequence(),
                    ping.sender().unwrap_or("(unnamed)"),
                    ping.payload().len()
                );
                Responses::Ping(PingResponse {
                    sequence: ping.sequence(),
                    // The payload where it lies in the frame, not a copy.
                    payload: Source::from(&frame).to_bytes(ping.payload()),
                    // Version 0 has neither: an older peer gets the classic answer.
                    handled: if version >= 1 {
                        vec![Handler {
                            name: self.name.clone().into(),
                            count: *answered,
                            ..Default::default()
                        }]
                    } else {
                        Vec::new()
                    },
                    sent_at_ms: ping.sent_at_ms(),
                    ..Default::default()
                })
            }
        };
        frame::encode_response(&mut out, &header, &response, version).map_err(invalid)?;
        Ok((out, false))
    }
}

/// `ApiVersions 0-5, Ping 0-1`.
pub fn describe(apis: &[(i16, VersionRange)]) -> String {
    let name = |key: i16| Requests::find(key).map_or("?", |api| api.name());
    let parts: Vec<String> = apis
        .iter()
        .map(|(k, r)| format!("{} {r}", name(*k)))
        .collect();
    parts.join(", ")
}

/// API key, version and correlation id: the first 8 bytes of every request header version.
fn peek(frame: &[u8]) -> Option<(i16, i16, i32)> {
    let &[k0, k1, v0, v1, c0, c1, c2, c3] = frame.get(..8)? else {
        return None;
    };
    Some((
        i16::from_be_bytes([k0, k1]),
        i16::from_be_bytes([v0, v1]),
        i32::from_be_bytes([c0, c1, c2, c3]),
    ))
}
