//! The client: it asks the server which versions it speaks, agrees on the highest both speak,
//! and pings at those versions.

use crate::messages::{PingRequest, PingResponse, Requests, Responses};
use crate::{invalid, read_frame, UNSUPPORTED_VERSION};
use bytes::{Bytes, BytesMut};
use kafka_wire::frame;
use kafka_wire::messages::{ApiVersionsRequest, RequestHeader};
use kafka_wire::negotiate::negotiate;
use kafka_wire::{ApiMessage, ApiSet, KafkaString};
use std::io::{self, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{SystemTime, UNIX_EPOCH};

/// A connection to a server, with the versions agreed on it.
pub struct Client {
    stream: TcpStream,
    buf: BytesMut,
    next_correlation_id: i32,
    /// `(API key, version)` for each API both sides speak.
    pub agreed: Vec<(i16, i16)>,
}

impl Client {
    /// Connects and negotiates: ApiVersions at the newest version this crate knows, and again
    /// at the version the server names if it does not know that one.
    pub fn connect(addr: SocketAddr) -> io::Result<Client> {
        let mut client = Client {
            stream: TcpStream::connect(addr)?,
            buf: BytesMut::new(),
            next_correlation_id: 1,
            agreed: Vec::new(),
        };
        let newest = Requests::find(ApiVersionsRequest::API_KEY)
            .and_then(|api| api.versions().end())
            .unwrap_or(0);
        let mut versions = client.api_versions(newest)?;
        if versions.error_code == UNSUPPORTED_VERSION {
            let theirs = versions
                .api_keys
                .iter()
                .find(|a| a.api_key == ApiVersionsRequest::API_KEY);
            let retry = theirs.map_or(0, |a| a.max_version.min(newest));
            println!("[client] ApiVersions v{newest} unknown to the server; again at v{retry}");
            versions = client.api_versions(retry)?;
        }
        client.agreed = negotiate(Requests::APIS, &versions);
        let agreed: Vec<String> = client
            .agreed
            .iter()
            .map(|&(key, v)| format!("{} v{v}", Requests::find(key).map_or("?", |api| api.name())))
            .collect();
        println!("[client] agreed: {}", agreed.join(", "));
        Ok(client)
    }

    fn api_versions(
        &mut self,
        version: i16,
    ) -> io::Result<kafka_wire::messages::ApiVersionsResponse> {
        let body = Requests::ApiVersions(
            ApiVersionsRequest::default()
                .with_client_software_name("custom-api")
                .with_client_software_version("0.1.0"),
        );
        match self.call(&body, version)? {
            Responses::ApiVersions(r) => Ok(r),
            other => Err(invalid(format!(
                "ApiVersions answered with {:?}",
                other.api().name()
            ))),
        }
    }

    /// The version agreed for API `key`.
    pub fn version_of(&self, key: i16) -> Option<i16> {
        self.agreed.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
    }

    /// Pings at the agreed version and returns the answer.
    pub fn ping(
        &mut self,
        sequence: i32,
        payload: &'static [u8],
    ) -> io::Result<(i16, PingResponse)> {
        let version = self
            .version_of(PingRequest::API_KEY)
            .ok_or_else(|| invalid("the server does not speak Ping"))?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let body = Requests::Ping(PingRequest {
            sequence,
            payload: Bytes::from_static(payload),
            // Version 0 has neither field: they stay at their defaults there, which is what the
            // encoder requires of a field a version lacks.
            sender: (version >= 1).then(|| KafkaString::from_static("client")),
            sent_at_ms: if version >= 1 {
                i64::try_from(now).unwrap_or(-1)
            } else {
                -1
            },
            ..Default::default()
        });
        match self.call(&body, version)? {
            Responses::Ping(r) => Ok((version, r)),
            other => Err(invalid(format!(
                "Ping answered with {:?}",
                other.api().name()
            ))),
        }
    }

    /// Sends `body` at `version` and reads the answer into the response set.
    fn call(&mut self, body: &Requests, version: i16) -> io::Result<Responses> {
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id += 1;
        let header = RequestHeader::default()
            .with_request_api_key(body.api_key())
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(KafkaString::from_static("custom-api")));
        let mut out = BytesMut::new();
        frame::encode_request(&mut out, &header, body).map_err(invalid)?;
        self.stream.write_all(&out)?;
        let frame = read_frame(&mut self.stream, &mut self.buf)?
            .ok_or_else(|| invalid("the server closed the connection"))?;
        let key = body.api_key();
        let (header, response) =
            match frame::decode_response::<Responses>(frame.clone(), key, version) {
                // A server that does not know this ApiVersions version answers at v0.
                Err(_) if key == ApiVersionsRequest::API_KEY && version > 0 => {
                    frame::decode_response::<Responses>(frame, key, 0)
                }
                decoded => decoded,
            }
            .map_err(invalid)?;
        if header.correlation_id != correlation_id {
            return Err(invalid("answer to another request"));
        }
        Ok(response)
    }
}
