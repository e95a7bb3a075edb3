//! Every response that carries endpoints, from the vectors Kafka's own generated classes wrote
//! (`tests/golden/kafka_classes.json`): rewritten, each endpoint is the tap's; rewritten back,
//! the frame is the broker's byte for byte, so nothing else in it changed.

use super::*;
use kafka_wire::ApiSet;
use serde_json::Value;
use std::collections::VecDeque;

/// The vectors of `message` (a response's name), as frames: correlation id 7, the header's
/// empty tagged section where the header version has one, then the body.
fn frames(message: &str) -> Vec<(i16, i16, Bytes)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/golden/kafka_classes.json"
    );
    let text = std::fs::read_to_string(path).expect("the vectors of Kafka's classes");
    let all: Value = serde_json::from_str(&text).expect("JSON");
    let api = ResponseBody::APIS
        .iter()
        .find(|a| format!("{}Response", a.name()) == message)
        .expect("a response of the catalogue");
    all["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .filter(|v| v["message"] == message)
        .map(|v| {
            let version = i16::try_from(v["version"].as_i64().unwrap()).unwrap();
            let mut frame = vec![0, 0, 0, 7];
            if api.header_version(version) >= 1 {
                frame.push(0);
            }
            frame.extend(hex(v["hex"].as_str().unwrap()));
            (api.key(), version, Bytes::from(frame))
        })
        .collect()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// The tap's port for a node in these tests.
fn tap_port(node_id: i32) -> i32 {
    node_id.rem_euclid(60_000) + 1
}

/// The endpoints of a decoded response, in the order `endpoints` visits them.
fn listed(body: &mut ResponseBody, version: i16) -> Vec<(i32, String, i32)> {
    let mut seen = Vec::new();
    endpoints(body, version, &mut |node, host: &str, port| {
        seen.push((node, host.to_string(), port));
        None
    });
    seen
}

fn check(message: &str) {
    let frames = frames(message);
    assert!(!frames.is_empty(), "no vectors of {message}");
    let mut with_endpoints = 0;
    for (key, version, frame) in frames {
        let what = format!("{message} v{version}");
        let mut original = decode_response_lenient::<ResponseBody>(frame.clone(), key, version)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let before = listed(&mut original.body, version);
        let mut to_tap = |node: i32, _: &str, _: i32| {
            Some((KafkaString::from_static("tap.test"), tap_port(node)))
        };
        let rewritten =
            rewrite(&frame, key, version, &mut to_tap).unwrap_or_else(|e| panic!("{what}: {e}"));
        let Some(rewritten) = rewritten else {
            assert!(
                before.is_empty(),
                "{what}: endpoints {before:?} left as they were"
            );
            continue;
        };
        with_endpoints += 1;
        let size = u32::from_be_bytes(rewritten[..4].try_into().unwrap()) as usize;
        assert_eq!(size, rewritten.len() - 4, "{what}: the size field");
        let mut after = decode_response_lenient::<ResponseBody>(rewritten.slice(4..), key, version)
            .unwrap_or_else(|e| panic!("{what}: the rewritten frame: {e}"));
        assert_eq!(after.header, original.header, "{what}: the header");
        let now = listed(&mut after.body, version);
        assert_eq!(now.len(), before.len(), "{what}: the endpoints");
        for ((node, host, port), (was_node, _, _)) in now.iter().zip(&before) {
            assert_eq!(node, was_node, "{what}: a node id");
            assert_eq!(host, "tap.test", "{what}: node {node}'s host");
            assert_eq!(*port, tap_port(*node), "{what}: node {node}'s port");
        }
        // Back to what the broker wrote, endpoint by endpoint.
        let mut back: VecDeque<(String, i32)> =
            before.iter().map(|(_, h, p)| (h.clone(), *p)).collect();
        let mut to_broker = |_: i32, _: &str, _: i32| {
            let (host, port) = back.pop_front().expect("as many endpoints");
            Some((KafkaString::from(host), port))
        };
        let restored = rewrite(&rewritten.slice(4..), key, version, &mut to_broker)
            .unwrap_or_else(|e| panic!("{what}: {e}"))
            .expect("endpoints to restore");
        assert_eq!(
            &restored[4..],
            &frame[..],
            "{what}: with its endpoints restored, the frame is the broker's"
        );
    }
    assert!(with_endpoints > 0, "no vector of {message} has endpoints");
}

macro_rules! rewrites {
    ($($test:ident: $message:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($message);
            }
        )*

        #[test]
        fn every_api_that_carries_endpoints_has_its_test() {
            let tested = [$($message),*];
            for api in ENDPOINT_APIS {
                assert!(tested.contains(&format!("{api}Response").as_str()), "{api} has no test");
            }
            assert_eq!(tested.len(), ENDPOINT_APIS.len());
        }
    };
}

rewrites! {
    produce: "ProduceResponse",
    fetch: "FetchResponse",
    metadata: "MetadataResponse",
    find_coordinator: "FindCoordinatorResponse",
    vote: "VoteResponse",
    begin_quorum_epoch: "BeginQuorumEpochResponse",
    end_quorum_epoch: "EndQuorumEpochResponse",
    describe_quorum: "DescribeQuorumResponse",
    fetch_snapshot: "FetchSnapshotResponse",
    describe_cluster: "DescribeClusterResponse",
    share_fetch: "ShareFetchResponse",
    share_acknowledge: "ShareAcknowledgeResponse",
    update_raft_voter: "UpdateRaftVoterResponse",
}

#[test]
fn bytes_after_the_body_stay_and_the_size_counts_them() {
    let mut to_tap =
        |node: i32, _: &str, _: i32| Some((KafkaString::from_static("t"), tap_port(node)));
    let (key, version, frame) = frames("MetadataResponse")
        .into_iter()
        .find(|(key, version, frame)| {
            rewrite(frame, *key, *version, &mut to_tap)
                .unwrap()
                .is_some()
        })
        .expect("a vector with brokers");
    let mut longer = frame.to_vec();
    longer.extend_from_slice(b"\x01\x02\x03");
    let longer = Bytes::from(longer);
    let rewritten = rewrite(&longer, key, version, &mut to_tap)
        .unwrap()
        .expect("brokers");
    assert_eq!(&rewritten[rewritten.len() - 3..], b"\x01\x02\x03");
    let size = u32::from_be_bytes(rewritten[..4].try_into().unwrap()) as usize;
    assert_eq!(size, rewritten.len() - 4);
}

#[test]
fn other_apis_and_endpoints_left_alone_pass_as_they_are() {
    // ApiVersions carries no endpoints; a listener that declines leaves the frame as it came.
    assert!(!carries_endpoints(18, 3));
    let (key, version, frame) = frames("MetadataResponse").swap_remove(0);
    let mut decline = |_: i32, _: &str, _: i32| None;
    assert!(rewrite(&frame, key, version, &mut decline)
        .unwrap()
        .is_none());
}
