use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use kafka_wire::frame;
use kafka_wire::messages::api::{RequestBody, ResponseBody};

use super::*;
use crate::server::tests::*;
use crate::server::{start, Options};

#[test]
fn api_versions_lists_the_handled_apis_and_answers_newer_probes_at_v0() {
    let (dir, _) = setup("apiversions", 1, 0);
    let server = start(Options::new(&dir, 0)).unwrap();
    let expected_client: Vec<(i16, i16, i16)> = vec![
        (0, 3, 9),
        (1, 4, 12),
        (2, 1, 7),
        (3, 0, 9),
        (10, 0, 3),
        (18, 0, 3),
        (22, 0, 4),
        (24, 0, 3),
        (26, 0, 5),
    ];
    let mut c = client(server.client_addr);
    let ResponseBody::ApiVersions(resp) = c
        .call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 3)
        .unwrap()
    else {
        panic!("not an ApiVersions answer")
    };
    assert_eq!(resp.error_code, ErrorCode::NONE);
    assert_eq!(versions(&resp), expected_client);

    // The inter-broker listener adds WriteTxnMarkers.
    let mut b = client(server.broker_addr);
    let ResponseBody::ApiVersions(resp) = b
        .call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 0)
        .unwrap()
    else {
        panic!("not an ApiVersions answer")
    };
    let mut expected_broker = expected_client.clone();
    expected_broker.push((27, 0, 2));
    assert_eq!(versions(&resp), expected_broker);

    // A probe at v4 (which kafka-wire can read) and at v99 (which it cannot): both are
    // answered at v0 with UNSUPPORTED_VERSION and the list, correlation id kept, and the
    // connection stays open.
    let mut raw = TcpStream::connect(server.client_addr).unwrap();
    raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    for (version, corr) in [(4i16, 41), (99, 42)] {
        // v3+ bodies are flexible: two empty compact strings and no tagged fields; the
        // header of a flexible ApiVersions request is v2 (a tag section after the client id).
        raw.write_all(&raw_frame(18, version, corr, &[0, 1, 1, 0]))
            .unwrap();
        let frame = read_frame(&mut raw).expect("an answer");
        let (header, body) =
            frame::decode_response::<ResponseBody>(frame, ApiVersionsRequest::API_KEY, 0)
                .expect("a v0 answer");
        assert_eq!(header.correlation_id, corr);
        let ResponseBody::ApiVersions(resp) = body else {
            panic!("not ApiVersions")
        };
        assert_eq!(resp.error_code, ErrorCode::UNSUPPORTED_VERSION);
        assert_eq!(versions(&resp), expected_client);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
