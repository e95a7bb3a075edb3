use std::net::TcpStream;
use std::time::Duration;

use super::*;
use crate::server::tests::*;
use crate::server::{start, Options};
use kafka_wire::messages::MetadataRequest;

#[test]
fn unknown_apis_unsupported_versions_and_garbage_close_the_connection() {
    let (dir, _) = setup("close", 1, 0);
    let server = start(Options::new(&dir, 0)).unwrap();
    let cases: [Vec<u8>; 4] = [
        // OffsetFetch (key 9): not handled here.
        raw_frame(9, 1, 1, &[]),
        // Produce v2: below the advertised range.
        raw_frame(0, 2, 2, &[]),
        // Metadata v9 with a body cut short.
        raw_frame(3, 9, 3, &[0]),
        // Shorter than a request header.
        vec![0, 0, 0, 2, 0, 3],
    ];
    for frame in cases {
        let mut raw = TcpStream::connect(server.client_addr).unwrap();
        raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        raw.write_all(&frame).unwrap();
        assert!(read_frame(&mut raw).is_none(), "answered {frame:?}");
    }
    // The broker still serves new connections.
    let mut c = client(server.client_addr);
    assert!(c
        .call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 3)
        .is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// librdkafka 2.16's Metadata v9 request for all topics, as `list_topics()` sends it (frame
/// without its size). Its topic count is a 4-byte placeholder where the compact encoding has
/// one byte: Kafka's broker reads its first byte as a null list (all topics), the fields after
/// it from the placeholder's other three bytes on, and ignores the one byte left.
const LIBRDKAFKA_METADATA_V9: &[u8] = b"\x00\x03\x00\x09\x00\x00\x00\x03\x00\x07rdkafka\x00\
    \x00\x00\x00\x00\x01\x00\x00\x00";

#[test]
fn librdkafka_metadata_for_all_topics_is_answered() {
    let (dir, cluster) = setup("librdkafka-metadata", 1, 0);
    let server = start(Options::new(&dir, 0)).unwrap();
    let mut raw = TcpStream::connect(server.client_addr).unwrap();
    raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut request = (LIBRDKAFKA_METADATA_V9.len() as i32).to_be_bytes().to_vec();
    request.extend_from_slice(LIBRDKAFKA_METADATA_V9);
    // Twice on one connection: the byte left after the first body is not taken for the start
    // of the next frame, and the connection stays open.
    for _ in 0..2 {
        raw.write_all(&request).unwrap();
        let answer = read_frame(&mut raw).expect("an answer to librdkafka's Metadata request");
        let (header, body) =
            frame::decode_response::<ResponseBody>(answer, MetadataRequest::API_KEY, 9).unwrap();
        assert_eq!(header.correlation_id, 3);
        let ResponseBody::Metadata(metadata) = body else {
            panic!("not a Metadata answer: {body:?}")
        };
        let brokers: Vec<(i32, i32)> = metadata
            .brokers
            .iter()
            .map(|b| (b.node_id, b.port))
            .collect();
        assert_eq!(brokers, [(0, i32::from(cluster.brokers[0].client_port))]);
        // Null topics: every topic of the cluster, with its partitions.
        let topics: Vec<(Option<&str>, i16, usize)> = metadata
            .topics
            .iter()
            .map(|t| (t.name.as_deref(), t.error_code, t.partitions.len()))
            .collect();
        assert_eq!(topics, [(Some("orders"), 0, 3)]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
