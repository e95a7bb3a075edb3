//! The field-level reading against every Produce and Fetch response vector of the flexible
//! versions written by Kafka's own generated classes (`tests/golden/kafka_classes.json`) and by
//! kio and kafka-python (`tests/golden/catalogue.json`): it ends where the body ends, passes
//! exactly the records the full decoding finds, and says that the body names nodes exactly when
//! the decoding finds `NodeEndpoints`. Every prefix of a vector is refused, never a panic.

use super::*;
use bytes::Bytes;
use futures_util::FutureExt;
use kafka_wire::messages::api::ResponseBody;
use kafka_wire::ApiSet;
use serde_json::Value;

/// (key, version, body) of every Produce response from version 9 and Fetch response from 12.
fn vectors() -> Vec<(String, i16, i16, Vec<u8>)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/golden/");
    let mut out = Vec::new();
    for (file, list) in [("kafka_classes.json", "/vectors"), ("catalogue.json", "")] {
        let text = std::fs::read_to_string(format!("{root}{file}")).expect(file);
        let all: Value = serde_json::from_str(&text).expect("JSON");
        for v in all
            .pointer(list)
            .and_then(Value::as_array)
            .expect("vectors")
        {
            let version = i16::try_from(v["version"].as_i64().unwrap()).unwrap();
            let key = match v["message"].as_str() {
                Some("ProduceResponse") if version >= 9 => 0,
                Some("FetchResponse") if version >= 12 => 1,
                _ => continue,
            };
            let hex = v["hex"].as_str().unwrap();
            let body = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            out.push((format!("{file} {}", v["message"]), key, version, body));
        }
    }
    out
}

/// What the full decoding finds: the records of every partition in order, and whether the
/// response has node endpoints.
fn decoded(key: i16, version: i16, body: &[u8]) -> (Vec<Vec<u8>>, bool) {
    let body = ResponseBody::decode(key, &mut Bytes::copy_from_slice(body), version)
        .unwrap_or_else(|e| panic!("v{version}: {e}"));
    match body {
        ResponseBody::Fetch(r) => (
            r.responses
                .iter()
                .flat_map(|t| &t.partitions)
                .filter_map(|p| p.records.as_ref().map(|r| r.as_bytes().to_vec()))
                .collect(),
            !r.node_endpoints.is_empty(),
        ),
        ResponseBody::Produce(r) => (Vec::new(), !r.node_endpoints.is_empty()),
        _ => unreachable!("Produce and Fetch only"),
    }
}

fn read(
    key: i16,
    version: i16,
    body: &[u8],
) -> (Result<bool, Stop<std::convert::Infallible>>, Slice<'_>) {
    let mut slice = Slice::new(body);
    let found = names_nodes(&mut slice, key, version)
        .now_or_never()
        .expect("a slice never waits");
    (found, slice)
}

#[test]
fn reads_every_vector_as_the_full_decoding_does() {
    let vectors = vectors();
    let mut naming = [0, 0];
    for (what, key, version, body) in &vectors {
        let what = format!("{what} v{version}");
        let (records, has_endpoints) = decoded(*key, *version, body);
        let (found, slice) = read(*key, *version, body);
        let names = found.unwrap_or_else(|e| panic!("{what}: {e:?}"));
        assert_eq!(names, has_endpoints, "{what}: names nodes");
        assert_eq!(slice.at(), body.len(), "{what}: where the body ends");
        let passed: Vec<Vec<u8>> = slice
            .records
            .iter()
            .map(|r| body[r.clone()].to_vec())
            .collect();
        assert_eq!(passed, records, "{what}: the records passed over");
        if names {
            naming[usize::from(*key == 1)] += 1;
        }
        let mut frame = vec![0, 0, 0, 7, 0];
        frame.extend_from_slice(body);
        assert_eq!(
            frame_names_nodes(&frame, *key, *version),
            Some(has_endpoints),
            "{what}: the frame"
        );
    }
    assert!(vectors.len() > 40, "{} vectors", vectors.len());
    assert!(
        naming.iter().all(|n| *n > 0),
        "vectors that name nodes, Produce and Fetch: {naming:?}"
    );
}

#[test]
fn every_prefix_is_refused() {
    for (what, key, version, body) in vectors() {
        for end in 0..body.len() {
            let (found, _) = read(key, version, &body[..end]);
            assert!(
                matches!(found, Err(Stop::Malformed(_))),
                "{what} v{version}: the first {end} of {} bytes read as {found:?}",
                body.len()
            );
        }
    }
}

#[test]
fn garbage_never_panics() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for len in 0..2000usize {
        let bytes: Vec<u8> = (0..len % 300).map(|_| next() as u8).collect();
        for (key, version) in [(0, 10), (0, 13), (1, 16), (1, 18)] {
            let _ = read(key, version, &bytes);
        }
    }
}

#[test]
fn which_versions_are_read_at_field_level() {
    assert!(readable(0, 10) && readable(0, 13) && !readable(0, 9) && !readable(0, 14));
    assert!(readable(1, 16) && readable(1, 18) && !readable(1, 15) && !readable(1, 19));
    assert!(!readable(3, 12));
    assert_eq!(may_name_nodes(1, 15), Some(false));
    assert_eq!(may_name_nodes(1, 16), Some(true));
    assert_eq!(may_name_nodes(0, 9), Some(false));
    assert_eq!(may_name_nodes(3, 12), None);
}
