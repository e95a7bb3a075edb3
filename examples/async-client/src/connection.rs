//! One connection to a broker: a `Framed` socket with kafka-wire's client codec, correlation
//! ids, and the versions agreed with that broker through ApiVersions.

use futures_util::{SinkExt, StreamExt};
use kafka_wire::frame::DecodedResponse;
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{
    ApiVersionsRequest, ApiVersionsResponse, FetchRequest, MetadataRequest, ProduceRequest,
    RequestHeader,
};
use kafka_wire::negotiate::negotiate;
use kafka_wire::tokio::ClientCodec;
use kafka_wire::{ApiMessage, ApiSet, ErrorCode, KafkaString, VersionRange};
use std::time::Duration;
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The versions this client speaks, which `negotiate` meets with the broker's.
fn ours() -> [(i16, VersionRange); 4] {
    let all = |key| RequestBody::find(key).map_or(VersionRange::NONE, |api| api.versions());
    [
        (
            ApiVersionsRequest::API_KEY,
            all(ApiVersionsRequest::API_KEY),
        ),
        (MetadataRequest::API_KEY, all(MetadataRequest::API_KEY)),
        // Record batches (magic 2) travel from Produce v3 and Fetch v4 on; from v13 both name
        // topics by id, which this client, addressing topics by name, does not use.
        (ProduceRequest::API_KEY, VersionRange::new(3, 12)),
        (FetchRequest::API_KEY, VersionRange::new(4, 12)),
    ]
}

/// A connection with its agreed versions.
pub struct Connection {
    /// The address it was opened to, as given.
    pub addr: String,
    framed: Framed<TcpStream, ClientCodec<RequestBody>>,
    next_correlation_id: i32,
    client_id: KafkaString,
    timeout: Duration,
    /// `(API key, version)` for each API both sides speak.
    agreed: Vec<(i16, i16)>,
}

impl Connection {
    /// Connects to `addr` and agrees on versions: ApiVersions at `first_version`, and again at
    /// the broker's newest if it answers UNSUPPORTED_VERSION (at v0, with its list), as Kafka's
    /// clients do.
    pub async fn open(
        addr: &str,
        client_id: &str,
        timeout: Duration,
        first_version: i16,
    ) -> Result<Connection, Error> {
        let socket = tokio::time::timeout(timeout, TcpStream::connect(addr))
            .await
            .map_err(|_| format!("connecting to {addr}: no answer within {timeout:?}"))?
            .map_err(|e| format!("connecting to {addr}: {e}"))?;
        socket.set_nodelay(true)?;
        let mut conn = Connection {
            addr: addr.to_owned(),
            framed: Framed::new(socket, ClientCodec::new()),
            next_correlation_id: 1,
            client_id: KafkaString::from(client_id.to_owned()),
            timeout,
            agreed: Vec::new(),
        };
        println!("[{addr}] connected");
        let mut answer = conn.api_versions(first_version).await?;
        if ErrorCode::from(answer.error_code) == ErrorCode::UNSUPPORTED_VERSION {
            let ours = ours()[0].1;
            let retry = answer
                .api_keys
                .iter()
                .find(|api| api.api_key == ApiVersionsRequest::API_KEY)
                .map(|theirs| theirs.max_version.min(ours.end().unwrap_or(0)))
                .ok_or("the broker's ApiVersions answer does not list ApiVersions")?;
            println!(
                "[{addr}] ApiVersions v{first_version}: UNSUPPORTED_VERSION, answered at v0; \
                 asking again at v{retry}"
            );
            answer = conn.api_versions(retry).await?;
        }
        ErrorCode::from(answer.error_code)
            .as_result()
            .map_err(|e| format!("[{addr}] ApiVersions: {e}"))?;
        conn.agreed = negotiate(ours(), &answer);
        let agreed: Vec<String> = conn
            .agreed
            .iter()
            .map(|&(key, v)| format!("{} v{v}", RequestBody::find(key).map_or("?", |a| a.name())))
            .collect();
        println!(
            "[{addr}] the broker lists {} APIs; agreed: {}",
            answer.api_keys.len(),
            agreed.join(", ")
        );
        Ok(conn)
    }

    async fn api_versions(&mut self, version: i16) -> Result<ApiVersionsResponse, Error> {
        let request = ApiVersionsRequest::default()
            .with_client_software_name("kafka-wire-async-client")
            .with_client_software_version(KafkaString::from_static(env!("CARGO_PKG_VERSION")));
        Ok(call!(self, ApiVersions(request), version))
    }

    /// The agreed version of API `key`.
    pub fn version_of(&self, key: i16) -> Result<i16, Error> {
        self.agreed
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, v)| v)
            .ok_or_else(|| {
                let name = RequestBody::find(key).map_or("?", |api| api.name());
                format!("[{}] no version of {name} both sides speak", self.addr).into()
            })
    }

    /// Sends `body` at `version` and waits for its answer, which the codec has matched to it by
    /// correlation id and read at the request's version.
    pub async fn call(
        &mut self,
        body: RequestBody,
        version: i16,
    ) -> Result<DecodedResponse<ResponseBody>, Error> {
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id = self.next_correlation_id.wrapping_add(1);
        let name = body.api().name();
        let header = RequestHeader::default()
            .with_request_api_key(body.api_key())
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(self.client_id.clone()));
        let exchange = async {
            self.framed.send((header, body)).await?;
            self.framed.next().await.transpose()
        };
        let response = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| {
                format!(
                    "[{}] {name}: no answer within {:?}",
                    self.addr, self.timeout
                )
            })?
            .map_err(|e| format!("[{}] {name}: {e}", self.addr))?
            .ok_or_else(|| format!("[{}] {name}: the broker closed the connection", self.addr))?;
        Ok(response)
    }
}
