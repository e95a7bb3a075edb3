//! Async framing for tokio: a server's codec and a client's.
//!
//! The `tokio` feature (off by default; it adds `tokio-util` with its `codec` feature) gives
//! `kafka_wire::tokio`: a `Decoder` and `Encoder` for each end of a connection, over any API set,
//! Kafka's or an application's own, to wrap in a `tokio_util::codec::Framed`.
//!
//! ```rust,no_run
//! # #[cfg(feature = "tokio")]
//! # mod readme {
//! use futures_util::{SinkExt, StreamExt};
//! use kafka_wire::messages::api::{RequestBody, ResponseBody};
//! use kafka_wire::messages::RequestHeader;
//! use kafka_wire::tokio::{ClientCodec, Response, ServerCodec};
//! use tokio::net::TcpStream;
//! use tokio_util::codec::Framed;
//! # type Error = Box<dyn std::error::Error + Send + Sync>;
//!
//! // A server: requests in (header, body, bytes left after the body), answers out at the
//! // request's version.
//! async fn serve(
//!     socket: TcpStream,
//!     handle: impl Fn(&RequestHeader, RequestBody) -> ResponseBody,
//! ) -> Result<(), Error> {
//!     let mut conn = Framed::new(socket, ServerCodec::<RequestBody>::with_max_frame_size(1 << 20));
//!     while let Some(request) = conn.next().await.transpose()? {
//!         if request.trailing_bytes > 0 {
//!             eprintln!("{} bytes after the body, ignored as Kafka does", request.trailing_bytes);
//!         }
//!         let answer = handle(&request.header, request.body);
//!         conn.send(Response::for_request(&request.header, answer)).await?;
//!     }
//!     Ok(())
//! }
//!
//! // A client: several requests in flight; each answer is read as the body of its request.
//! async fn ask(socket: TcpStream, requests: Vec<(RequestHeader, RequestBody)>) -> Result<(), Error> {
//!     let mut conn = Framed::new(socket, ClientCodec::<RequestBody>::new());
//!     for request in requests {
//!         conn.feed(request).await?;
//!     }
//!     conn.flush().await?;
//!     while conn.codec().in_flight() > 0 {
//!         let Some(response) = conn.next().await.transpose()? else { break };
//!         // DecodedResponse { header, version, body, trailing_bytes }: the API and version of
//!         // the request it answers.
//!         match response.body {
//!             ResponseBody::Fetch(fetch) => println!("{} topics", fetch.responses.len()),
//!             other => println!("{other:?}"),
//!         }
//!     }
//!     Ok(())
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! - `ServerCodec<S>` yields a `frame::DecodedRequest<S>` for any request set `S` and writes
//!   `Response<S::Responses>`; `ClientCodec<S>` writes `(RequestHeader, S)`, keeps the API key and
//!   version of every correlation id in flight, and yields each response frame as a
//!   `frame::DecodedResponse`, decoded as the body of the request it answers, in whatever order the
//!   server sends them. A response to no request in flight, or a request written with a correlation
//!   id still in flight, is an error.
//! - Both read frames as Kafka's broker and clients do (`frame::decode_request_lenient`,
//!   `frame::decode_response_lenient`): bytes after a body are not an error, and their count is in
//!   the item's `trailing_bytes`.
//! - A frame above the maximum (`DEFAULT_MAX_FRAME_SIZE`, 100 MiB, unless told otherwise) is an
//!   error found from its size field, before its bytes are buffered; nothing is reserved for a
//!   frame before its bytes arrive.
//! - Errors are `CodecError`: the socket's `io::Error` (as `Decoder` requires), the `DecodeError`
//!   or `EncodeError` with its field path and offset, `UnknownCorrelationId`, `CorrelationIdInUse`.
//!   After a decoding error the decoder reads nothing more (`Stopped`, its buffer discarded): drop
//!   the connection. A refused write leaves the buffer as it was.
//! - ApiVersions at a version one side does not know follows Kafka's rule on both ends: the
//!   server's codec yields such a request (its body unread) and `Response::for_request` answers it
//!   at v0, where the server puts `UNSUPPORTED_VERSION` and its list; the client's codec reads an
//!   `UNSUPPORTED_VERSION` answer that fails at the version asked for again at v0, and says so in
//!   `DecodedResponse::version`.
//!
//! The block above is compiled with the doc tests; `tests/async_framing.rs` runs both codecs over
//! TCP on loopback: four requests in flight (two of one API at different versions) answered in
//! reverse order, a request announcing 4,096 bytes to a server whose maximum is 1,024 refused after
//! 20 bytes with the valid request sent after it never yielded, frames cut inside the size field,
//! the header and the body and written with pauses, two answers in one write, an unknown
//! correlation id, the end of the stream inside a frame, and the ApiVersions rule both ways.
//!
//! [`examples/async-client`](examples/async-client/README.md) is a small Kafka client built on it:
//! `cargo run -p async-client -- --bootstrap HOST:PORT` agrees on versions through ApiVersions (v3
//! first, falling back as Kafka's clients do), finds a partition's leader with Metadata, produces a
//! batch of records there and fetches it back, printing each step. CI runs it against a txn-broker
//! cluster (`examples/async-client/tests/against-txn-broker.sh`).
