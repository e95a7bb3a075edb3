//! Async framing (`kafka_wire::tokio`) over real TCP sockets on loopback: answers matched by
//! correlation id out of order, frames over the maximum, frames split across reads, unknown
//! correlation ids, the ApiVersions rule of both sides, and what a failed decoder does next.
#![forbid(unsafe_code)]

use bytes::{BufMut, Bytes, BytesMut};
use futures_util::{SinkExt, StreamExt};
use kafka_wire::frame;
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::api_versions_response::ApiVersion;
use kafka_wire::messages::{
    ApiVersionsRequest, ApiVersionsResponse, ListOffsetsRequest, ListOffsetsResponse,
    MetadataRequest, MetadataResponse, RequestHeader, ResponseHeader,
};
use kafka_wire::tokio::{ClientCodec, CodecError, Response, ServerCodec};
use kafka_wire::{ApiSet, ErrorCode, ErrorKind, KafkaString};
use std::future::Future;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{Decoder, Encoder, Framed};

/// Runs a test's future on a runtime of its own (one thread, with sockets and timers).
fn run<F: Future>(test: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(test)
}

/// Every wait is bounded, so that a codec that waits for bytes it should have refused fails the
/// test instead of hanging it.
async fn within<T>(what: &str, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), future)
        .await
        .unwrap_or_else(|_| panic!("timed out: {what}"))
}

/// A listener on a free loopback port and a client socket connected to it, with the server's
/// end of the connection.
async fn connected() -> (TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap())
        .await
        .unwrap();
    let (server, _) = listener.accept().await.unwrap();
    // Each write of a piece goes out as its own segment.
    client.set_nodelay(true).unwrap();
    server.set_nodelay(true).unwrap();
    (client, server)
}

fn header(key: i16, version: i16, correlation_id: i32) -> RequestHeader {
    RequestHeader::default()
        .with_request_api_key(key)
        .with_request_api_version(version)
        .with_correlation_id(correlation_id)
        .with_client_id(Some(KafkaString::from_static("async-test")))
}

fn request_frame(header: &RequestHeader, body: &RequestBody) -> BytesMut {
    let mut out = BytesMut::new();
    frame::encode_request(&mut out, header, body).unwrap();
    out
}

/// The contents of the next frame the peer writes, read with the synchronous framing.
async fn read_raw_frame(stream: &mut TcpStream, buf: &mut BytesMut) -> Option<Bytes> {
    loop {
        if let Some(frame) = frame::split_frame(buf, frame::DEFAULT_MAX_FRAME_SIZE).unwrap() {
            return Some(frame);
        }
        if within("a raw read", stream.read_buf(buf)).await.unwrap() == 0 {
            return None;
        }
    }
}

/// Sends `request` through the client's codec, and reads it raw at the server's end.
async fn sent(
    conn: &mut Framed<TcpStream, ClientCodec<RequestBody>>,
    request: (RequestHeader, RequestBody),
    server: &mut TcpStream,
) {
    conn.send(request).await.unwrap();
    read_raw_frame(server, &mut BytesMut::new()).await.unwrap();
}

/// Writes `bytes` in pieces cut at `cuts`, pausing between them so that each arrives in its own
/// read.
async fn write_in_pieces(stream: &mut TcpStream, bytes: &[u8], cuts: &[usize]) {
    let mut from = 0;
    for &to in cuts.iter().chain([&bytes.len()]) {
        stream.write_all(&bytes[from..to]).await.unwrap();
        stream.flush().await.unwrap();
        tokio::time::sleep(Duration::from_millis(30)).await;
        from = to;
    }
}

fn is_decode_error(err: &CodecError, check: impl Fn(&ErrorKind) -> bool) -> bool {
    matches!(err, CodecError::Decode(e) if check(e.kind()))
}

fn too_large(kind: &ErrorKind, size: usize, max: usize) -> bool {
    *kind == ErrorKind::FrameTooLarge { size, max }
}

/// Several requests in flight, two of them of one API at different versions, answered in the
/// reverse order: each answer is read at its request's API and version and yielded with its
/// correlation id.
#[test]
fn answers_out_of_order_are_matched_by_correlation_id() {
    run(async {
        let (client, server) = connected().await;
        let requests = [
            (
                header(3, 1, 10),
                RequestBody::Metadata(MetadataRequest::default()),
            ),
            (
                header(3, 12, 11),
                RequestBody::Metadata(MetadataRequest::default()),
            ),
            (
                header(18, 3, 12),
                RequestBody::ApiVersions(ApiVersionsRequest::default()),
            ),
            (
                header(2, 7, 13),
                RequestBody::ListOffsets(ListOffsetsRequest::default()),
            ),
        ];

        let sent = requests.clone();
        let server = tokio::spawn(async move {
            let mut conn = Framed::new(server, ServerCodec::<RequestBody>::new());
            let mut read = Vec::new();
            for (header, body) in &sent {
                let got = within("a request", conn.next()).await.unwrap().unwrap();
                assert_eq!((&got.header, &got.body), (header, body));
                assert_eq!(got.trailing_bytes, 0);
                read.push(got.header);
            }
            for header in read.iter().rev() {
                // Each answer carries its correlation id in a field of its own, so that the test
                // sees which body came with which header.
                let id = header.correlation_id;
                let body = match header.request_api_key {
                    3 => ResponseBody::Metadata(MetadataResponse::default().with_controller_id(id)),
                    18 => ResponseBody::ApiVersions(
                        ApiVersionsResponse::default().with_throttle_time_ms(id),
                    ),
                    2 => ResponseBody::ListOffsets(
                        ListOffsetsResponse::default().with_throttle_time_ms(id),
                    ),
                    other => panic!("unexpected API {other}"),
                };
                conn.send(Response::for_request(header, body))
                    .await
                    .unwrap();
            }
        });

        let mut conn = Framed::new(client, ClientCodec::<RequestBody>::new());
        for request in requests {
            conn.feed(request).await.unwrap();
        }
        conn.flush().await.unwrap();
        assert_eq!(conn.codec().in_flight(), 4);

        let mut seen = Vec::new();
        for _ in 0..4 {
            let response = within("a response", conn.next()).await.unwrap().unwrap();
            let id = response.header.correlation_id;
            let carried = match &response.body {
                ResponseBody::Metadata(m) => m.controller_id,
                ResponseBody::ApiVersions(a) => a.throttle_time_ms,
                ResponseBody::ListOffsets(l) => l.throttle_time_ms,
                other => panic!("unexpected answer {:?}", other.api().name()),
            };
            assert_eq!(carried, id, "the body of another request");
            seen.push((id, response.body.api_key(), response.version));
        }
        assert_eq!(seen, [(13, 2, 7), (12, 18, 3), (11, 3, 12), (10, 3, 1)]);
        assert_eq!(conn.codec().in_flight(), 0);
        server.await.unwrap();
    })
}

/// A request announcing more than the server's maximum is refused as soon as its size field is
/// in, while its bytes have not been sent; the valid request sent after the refusal is never
/// yielded, and the server's close reaches the client.
#[test]
fn frame_over_the_maximum_is_refused_and_nothing_more_is_read() {
    run(async {
        let (mut client, server) = connected().await;
        let (refused_tx, refused_rx) = tokio::sync::oneshot::channel();
        let server = tokio::spawn(async move {
            let mut conn = Framed::new(
                server,
                ServerCodec::<RequestBody>::with_max_frame_size(1024),
            );
            let err = within("the refusal", conn.next())
                .await
                .unwrap()
                .unwrap_err();
            assert!(is_decode_error(&err, |k| too_large(k, 4096, 1024)), "{err}");
            // `Framed` ends the stream after an error; polled on, it reads what comes next and
            // hands it to the decoder, which reads none of it and discards it.
            assert!(within("the end", conn.next()).await.is_none());
            refused_tx.send(()).unwrap();
            let after = within("the stop", conn.next()).await.unwrap().unwrap_err();
            assert!(matches!(after, CodecError::Stopped), "{after}");
            assert!(conn.read_buffer().is_empty());
            // Dropping the connection is what the caller does next.
        });

        // The size field and a few bytes; the rest is never sent.
        let mut big = BytesMut::new();
        big.put_i32(4096);
        big.put_slice(&[0; 16]);
        client.write_all(&big).await.unwrap();
        within("the server's refusal", refused_rx).await.unwrap();
        let valid = request_frame(
            &header(18, 3, 1),
            &RequestBody::ApiVersions(ApiVersionsRequest::default()),
        );
        client.write_all(&valid).await.unwrap();
        server.await.unwrap();
        // The server's end is closed: the client reads the end of the stream, no answer.
        let mut rest = Vec::new();
        let _ = within("the close", client.read_to_end(&mut rest)).await;
        assert!(rest.is_empty());
    })
}

/// A response frame over the client's maximum is refused from its size field too.
#[test]
fn response_over_the_maximum_is_refused() {
    run(async {
        let (client, mut server) = connected().await;
        let mut conn = Framed::new(client, ClientCodec::<RequestBody>::with_max_frame_size(64));
        let request = RequestBody::Metadata(MetadataRequest::default());
        sent(&mut conn, (header(3, 12, 1), request), &mut server).await;
        server.write_all(&65i32.to_be_bytes()).await.unwrap();
        let err = within("the refusal", conn.next())
            .await
            .unwrap()
            .unwrap_err();
        assert!(is_decode_error(&err, |k| too_large(k, 65, 64)), "{err}");
    })
}

/// Frames cut into pieces (inside the size field, inside the header, inside the body) and
/// written with pauses are read whole, in both directions; two frames in one write are two
/// items.
#[test]
fn frames_split_across_reads_are_read_whole() {
    run(async {
        let (mut client, mut server) = connected().await;
        let metadata = (
            header(3, 12, 21),
            RequestBody::Metadata(MetadataRequest::default().with_allow_auto_topic_creation(false)),
        );
        let api_versions = (
            header(18, 3, 22),
            RequestBody::ApiVersions(
                ApiVersionsRequest::default()
                    .with_client_software_name("split")
                    .with_client_software_version("1.0"),
            ),
        );

        // Client to server: raw pieces into the server's codec.
        let expected = [metadata.clone(), api_versions.clone()];
        let reader = tokio::spawn(async move {
            let mut conn = Framed::new(server, ServerCodec::<RequestBody>::new());
            for request in &expected {
                let got = within("a split request", conn.next())
                    .await
                    .unwrap()
                    .unwrap();
                assert_eq!((&got.header, &got.body), (&request.0, &request.1));
            }
            conn.into_inner()
        });
        let one = request_frame(&metadata.0, &metadata.1);
        let two = request_frame(&api_versions.0, &api_versions.1);
        assert!(one.len() > 12);
        write_in_pieces(&mut client, &one, &[1, 3, 6, 11, one.len() - 1]).await;
        write_in_pieces(&mut client, &two, &[2, two.len() / 2]).await;
        server = reader.await.unwrap();

        // Server to client: the client codec's requests are answered in pieces, two answers in the
        // last write.
        let mut conn = Framed::new(client, ClientCodec::<RequestBody>::new());
        for id in [31, 32, 33] {
            conn.feed((
                header(3, 12, id),
                RequestBody::Metadata(MetadataRequest::default()),
            ))
            .await
            .unwrap();
        }
        conn.flush().await.unwrap();
        let mut buf = BytesMut::new();
        let mut answers = BytesMut::new();
        for _ in 0..3 {
            let request = read_raw_frame(&mut server, &mut buf).await.unwrap();
            let (header, _) = frame::decode_request::<RequestBody>(request).unwrap();
            let body = ResponseBody::Metadata(
                MetadataResponse::default()
                    .with_controller_id(header.correlation_id)
                    .with_cluster_id(Some(KafkaString::from_static("split-cluster"))),
            );
            let response = Response::for_request(&header, body);
            frame::encode_response(&mut answers, &response.header, &response.body, 12).unwrap();
        }
        let single = answers.len() / 3;
        let writer = tokio::spawn(async move {
            write_in_pieces(&mut server, &answers, &[3, 9, single - 2, single + 1]).await;
            server
        });
        for id in [31, 32, 33] {
            let response = within("a split response", conn.next())
                .await
                .unwrap()
                .unwrap();
            assert_eq!(response.header.correlation_id, id);
            let ResponseBody::Metadata(m) = response.body else {
                panic!("not Metadata")
            };
            assert_eq!(
                (m.controller_id, m.cluster_id.as_deref()),
                (id, Some("split-cluster"))
            );
        }
        writer.await.unwrap();
    })
}

/// The connection closing inside a frame is an error that says how much was missing.
#[test]
fn end_of_stream_inside_a_frame_is_an_error() {
    run(async {
        let (mut client, server) = connected().await;
        let frame = request_frame(
            &header(3, 12, 1),
            &RequestBody::Metadata(MetadataRequest::default()),
        );
        client.write_all(&frame[..frame.len() - 1]).await.unwrap();
        drop(client);
        let mut conn = Framed::new(server, ServerCodec::<RequestBody>::new());
        let err = within("the end", conn.next()).await.unwrap().unwrap_err();
        let (needed, available) = (frame.len(), frame.len() - 1);
        assert!(
            is_decode_error(&err, |k| *k
                == ErrorKind::UnexpectedEof { needed, available }),
            "{err}"
        );
    })
}

/// An answer whose correlation id is not in flight is an error, and the decoder stops there.
#[test]
fn unknown_correlation_id_is_an_error() {
    run(async {
        let (client, mut server) = connected().await;
        let mut conn = Framed::new(client, ClientCodec::<RequestBody>::new());
        let request = RequestBody::Metadata(MetadataRequest::default());
        sent(&mut conn, (header(3, 12, 1), request), &mut server).await;
        let answer = |correlation_id| {
            let header = ResponseHeader::default().with_correlation_id(correlation_id);
            let body = ResponseBody::Metadata(MetadataResponse::default());
            let mut out = BytesMut::new();
            frame::encode_response(&mut out, &header, &body, 12).unwrap();
            out
        };
        server.write_all(&answer(99)).await.unwrap();
        let err = within("the refusal", conn.next())
            .await
            .unwrap()
            .unwrap_err();
        assert!(matches!(err, CodecError::UnknownCorrelationId(99)), "{err}");
        assert!(within("the end", conn.next()).await.is_none());
        // The answer to 1, after the error, is not read.
        server.write_all(&answer(1)).await.unwrap();
        let after = within("the stop", conn.next()).await.unwrap().unwrap_err();
        assert!(matches!(after, CodecError::Stopped), "{after}");
    })
}

/// A client newer than the server sends ApiVersions at a version the server's set lacks: the
/// server's codec yields it, the answer goes out at v0 with UNSUPPORTED_VERSION, and the
/// connection goes on with the version the answer names.
#[test]
fn api_versions_newer_than_the_server_is_answered_at_v0() {
    run(async {
        let (mut client, server) = connected().await;
        let newest = RequestBody::find(18).unwrap().versions().end().unwrap();
        let server = tokio::spawn(async move {
            let mut conn = Framed::new(server, ServerCodec::<RequestBody>::new());
            for _ in 0..2 {
                let request = within("ApiVersions", conn.next()).await.unwrap().unwrap();
                let header = request.header;
                assert_eq!(
                    request.body,
                    RequestBody::ApiVersions(ApiVersionsRequest::default())
                );
                let known = RequestBody::find(18)
                    .unwrap()
                    .versions()
                    .contains(header.request_api_version);
                if !known {
                    // Header v2 (client id and an empty tagged section) read whole; the 9
                    // bytes of the body, unread, are what is left.
                    assert_eq!(header.client_id.as_deref(), Some("future"));
                    assert_eq!((request.version, request.trailing_bytes), (0, 9));
                } else {
                    assert_eq!(request.trailing_bytes, 0);
                }
                let body = ResponseBody::ApiVersions(
                    ApiVersionsResponse::default()
                        .with_error_code(if known {
                            ErrorCode::NONE.code()
                        } else {
                            ErrorCode::UNSUPPORTED_VERSION.code()
                        })
                        .with_api_keys(vec![ApiVersion::default()
                            .with_api_key(18)
                            .with_min_version(0)
                            .with_max_version(newest)]),
                );
                conn.send(Response::for_request(&header, body))
                    .await
                    .unwrap();
            }
        });

        // Version 99 of ApiVersions, header v2 as from version 3 on, and a body of bytes no version
        // of this side reads.
        let mut inner = BytesMut::new();
        inner.put_i16(18);
        inner.put_i16(99);
        inner.put_i32(7);
        inner.put_i16(6);
        inner.put_slice(b"future");
        inner.put_u8(0); // no tagged fields in the header
        inner.put_slice(&[0xff; 9]);
        let mut probe = BytesMut::new();
        probe.put_i32(inner.len() as i32);
        probe.put_slice(&inner);
        client.write_all(&probe).await.unwrap();

        let mut buf = BytesMut::new();
        let answer = read_raw_frame(&mut client, &mut buf).await.unwrap();
        let (answered, body) = frame::decode_response::<ResponseBody>(answer, 18, 0).unwrap();
        assert_eq!(answered.correlation_id, 7);
        let ResponseBody::ApiVersions(body) = body else {
            panic!("not ApiVersions")
        };
        assert_eq!(body.error_code, ErrorCode::UNSUPPORTED_VERSION.code());
        assert_eq!(body.api_keys[0].max_version, newest);

        // The same connection, at the version the answer names.
        let retry = header(18, newest, 8);
        client
            .write_all(&request_frame(
                &retry,
                &RequestBody::ApiVersions(ApiVersionsRequest::default()),
            ))
            .await
            .unwrap();
        let answer = read_raw_frame(&mut client, &mut buf).await.unwrap();
        let (answered, body) = frame::decode_response::<ResponseBody>(answer, 18, newest).unwrap();
        assert_eq!(answered.correlation_id, 8);
        assert!(matches!(body, ResponseBody::ApiVersions(ref a) if a.error_code == 0));
        server.await.unwrap();
    })
}

/// A client newer than the server reads the server's v0 answer to its ApiVersions v3, and the
/// response says it is at v0; a v3 answer that does not decode and does not carry
/// UNSUPPORTED_VERSION stays an error.
#[test]
fn api_versions_answered_at_v0_is_read_at_v0() {
    run(async {
        let (client, mut server) = connected().await;
        let mut conn = Framed::new(client, ClientCodec::<RequestBody>::new());
        let request = RequestBody::ApiVersions(ApiVersionsRequest::default());
        sent(&mut conn, (header(18, 3, 1), request), &mut server).await;
        // An older server: ApiVersions 0-2 only, so it answers at v0.
        let old = ApiVersionsResponse::default()
            .with_error_code(ErrorCode::UNSUPPORTED_VERSION.code())
            .with_api_keys(vec![ApiVersion::default()
                .with_api_key(18)
                .with_min_version(0)
                .with_max_version(2)]);
        let mut answer = BytesMut::new();
        let response_header = ResponseHeader::default().with_correlation_id(1);
        frame::encode_response(
            &mut answer,
            &response_header,
            &ResponseBody::ApiVersions(old.clone()),
            0,
        )
        .unwrap();
        server.write_all(&answer).await.unwrap();
        let response = within("the v0 answer", conn.next()).await.unwrap().unwrap();
        assert_eq!(response.version, 0);
        assert_eq!(response.body, ResponseBody::ApiVersions(old));

        // The same bytes with another error code are not read at v0.
        let request = RequestBody::ApiVersions(ApiVersionsRequest::default());
        sent(&mut conn, (header(18, 3, 2), request), &mut server).await;
        answer[7] = 2; // correlation id 2
        answer[9] = 0; // error code 0 (NONE)
        server.write_all(&answer).await.unwrap();
        let err = within("the refusal", conn.next())
            .await
            .unwrap()
            .unwrap_err();
        assert!(matches!(err, CodecError::Decode(_)), "{err}");
    })
}

/// Without a socket: what the encoders refuse leaves the buffer and the requests in flight as
/// they were, and `forget` frees a correlation id.
#[test]
fn refused_writes_leave_the_buffer_as_it_was() {
    let mut client = ClientCodec::<RequestBody>::new();
    let mut out = BytesMut::from(&b"earlier"[..]);
    // Metadata has no version 99; a header that names ApiVersions does not go with its body.
    for (key, version) in [(3, 99), (18, 3)] {
        let request = RequestBody::Metadata(MetadataRequest::default());
        let err = client
            .encode((header(key, version, 1), request), &mut out)
            .unwrap_err();
        assert!(
            matches!(&err, CodecError::Encode(e) if matches!(
                e.kind(),
                ErrorKind::UnsupportedVersion { .. } | ErrorKind::HeaderMismatch { .. }
            )),
            "{err}"
        );
    }
    assert_eq!(&out[..], b"earlier");
    assert_eq!(client.in_flight(), 0);

    let request = (
        header(3, 12, 1),
        RequestBody::Metadata(MetadataRequest::default()),
    );
    client.encode(request.clone(), &mut out).unwrap();
    assert!(client.forget(1));
    assert!(!client.forget(1));
    client.encode(request, &mut out).unwrap();
    assert_eq!(client.in_flight(), 1);

    // The server's encoder: a body its version lacks.
    let mut server = ServerCodec::<RequestBody>::new();
    let mut out = BytesMut::from(&b"earlier"[..]);
    let response = Response {
        header: ResponseHeader::default(),
        version: 99,
        body: ResponseBody::Metadata(MetadataResponse::default()),
    };
    assert!(server.encode(response, &mut out).is_err());
    assert_eq!(&out[..], b"earlier");
}

/// Without a socket: a negative size stops the decoder, which discards what it is given after.
#[test]
fn negative_size_stops_the_decoder() {
    let mut server = ServerCodec::<RequestBody>::new();
    let mut buf = BytesMut::from(&(-5i32).to_be_bytes()[..]);
    let err = server.decode(&mut buf).unwrap_err();
    assert!(
        is_decode_error(&err, |k| *k == ErrorKind::NegativeLength { length: -5 }),
        "{err}"
    );
    let mut valid = request_frame(
        &header(3, 12, 1),
        &RequestBody::Metadata(MetadataRequest::default()),
    );
    assert!(matches!(
        server.decode(&mut valid),
        Err(CodecError::Stopped)
    ));
    assert!(valid.is_empty());
}

/// Without a socket: bytes after a body are counted, not refused, by both codecs, as Kafka's
/// broker and clients ignore them; the frame after is read from its own boundary.
#[test]
fn bytes_after_the_body_are_counted_by_both_codecs() {
    // librdkafka 2.16's Metadata v9 request for all topics, which leaves one byte after its
    // body; then a request that uses every byte.
    const LIBRDKAFKA: &[u8] = b"\x00\x03\x00\x09\x00\x00\x00\x03\x00\x07rdkafka\x00\
        \x00\x00\x00\x00\x01\x00\x00\x00";
    let mut server = ServerCodec::<RequestBody>::new();
    let mut buf = BytesMut::new();
    buf.put_i32(LIBRDKAFKA.len() as i32);
    buf.put_slice(LIBRDKAFKA);
    let exact = header(3, 12, 4);
    let exact_body = RequestBody::Metadata(MetadataRequest::default());
    buf.extend_from_slice(&request_frame(&exact, &exact_body));
    let first = server.decode(&mut buf).unwrap().unwrap();
    assert_eq!(first.header.correlation_id, 3);
    assert_eq!(first.header.client_id.as_deref(), Some("rdkafka"));
    assert_eq!(first.trailing_bytes, 1);
    let RequestBody::Metadata(metadata) = &first.body else {
        panic!("not Metadata: {:?}", first.body.api().name())
    };
    assert_eq!(metadata.topics, None);
    let second = server.decode(&mut buf).unwrap().unwrap();
    assert_eq!((&second.header, &second.body), (&exact, &exact_body));
    assert_eq!(second.trailing_bytes, 0);
    assert!(buf.is_empty());

    // An answer with two bytes after its body, its size counting them.
    let mut client = ClientCodec::<RequestBody>::new();
    let mut out = BytesMut::new();
    let request = RequestBody::Metadata(MetadataRequest::default());
    client
        .encode((header(3, 12, 8), request), &mut out)
        .unwrap();
    let answer = ResponseBody::Metadata(MetadataResponse::default().with_controller_id(8));
    let mut wire = BytesMut::new();
    let response_header = ResponseHeader::default().with_correlation_id(8);
    frame::encode_response(&mut wire, &response_header, &answer, 12).unwrap();
    let size = wire.len() - 4 + 2;
    wire[..4].copy_from_slice(&(size as i32).to_be_bytes());
    wire.put_slice(&[0xab, 0xcd]);
    let response = client.decode(&mut wire).unwrap().unwrap();
    assert_eq!((response.version, response.trailing_bytes), (12, 2));
    assert_eq!(response.body, answer);
    assert_eq!(client.in_flight(), 0);
    assert!(wire.is_empty());
}
