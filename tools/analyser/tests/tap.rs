//! `kafka-wire tap` between a client and brokers of the test's own, on loopback: what each side
//! receives is what the other sent, byte for byte; responses that name brokers come back naming
//! the tap's listeners, which reach those brokers; a frame above the limit closes both sides; a
//! stalled output drops lines while forwarding goes on; SIGTERM writes every line.
#![forbid(unsafe_code)]

mod tap_support;

use tap_support::*;

use bytes::BytesMut;
use kafka_wire::json::JsonBody;
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{metadata_response, MetadataResponse, ResponseHeader};
use kafka_wire::{ApiSet, KafkaString};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Stdio;
use std::sync::Mutex;
use std::thread;
use std::time::Duration;

fn vectors() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/golden/kafka_classes.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

/// Answers every request with the empty response of its API (which names no broker, so that
/// the tap passes it as it came), but for Produce with acks 0, which gets none.
fn answer_empty(key: i16, version: i16, correlation: i32, frame: &[u8]) -> Option<Vec<u8>> {
    if key == 0 {
        let mut index = kafka_wire::ViewIndex::new();
        let (_, body) = kafka_wire::frame::peek_request::<RequestBody>(frame, &mut index).ok()?;
        if kafka_wire::peek::produce(body, version).ok()?.acks == 0 {
            return None;
        }
    }
    let empty =
        ResponseBody::deserialize_body(key, &mut serde_json::Deserializer::from_str("{}")).ok()?;
    let mut out = BytesMut::new();
    let header = ResponseHeader::default().with_correlation_id(correlation);
    kafka_wire::frame::encode_response(&mut out, &header, &empty, version).ok()?;
    Some(out.to_vec())
}

#[test]
fn every_request_and_response_passes_byte_for_byte() {
    let broker = Broker::start(answer_empty);
    let out = std::env::temp_dir().join(format!("kafka-wire-tap-{}.jsonl", std::process::id()));
    let tap = Tap::start(
        broker.addr,
        &["--out", out.to_str().unwrap()],
        Stdio::null(),
    );
    // Every request vector of Kafka's classes, correlation ids counting from 1.
    let all = vectors();
    let mut sent = Vec::new();
    let mut count = 0;
    for v in all["vectors"].as_array().unwrap() {
        let name = v["message"].as_str().unwrap();
        let Some(api) = RequestBody::APIS
            .iter()
            .find(|a| format!("{}Request", a.name()) == name)
        else {
            continue;
        };
        count += 1;
        let version = v["version"].as_i64().unwrap() as i16;
        sent.extend(request_frame(
            api.key(),
            version,
            count,
            &hex(v["hex"].as_str().unwrap()),
        ));
    }
    let client = tap.connect();
    let mut reader = client.try_clone().unwrap();
    let received = thread::spawn(move || {
        let mut all = Vec::new();
        reader.read_to_end(&mut all).unwrap();
        all
    });
    // In pieces of 1 to 997 bytes, so that frames arrive split and several at a time.
    let mut writer = client.try_clone().unwrap();
    let mut at = 0;
    let mut piece = 1;
    while at < sent.len() {
        let end = (at + piece).min(sent.len());
        writer.write_all(&sent[at..end]).unwrap();
        at = end;
        piece = piece * 7 % 997 + 1;
    }
    // Every response has come when the broker has sent as much as the client received.
    let mut waited = 0;
    while broker.received.lock().unwrap().len() < sent.len() && waited < 200 {
        thread::sleep(Duration::from_millis(50));
        waited += 1;
    }
    thread::sleep(Duration::from_millis(200));
    client.shutdown(std::net::Shutdown::Both).unwrap();
    let to_client = received.join().unwrap();
    assert_eq!(
        broker.received.lock().unwrap().as_slice(),
        sent.as_slice(),
        "what the broker received"
    );
    assert_eq!(
        to_client,
        *broker.sent.lock().unwrap(),
        "what the client received"
    );

    let summary = tap.stop();
    let printed = lines(&std::fs::read_to_string(&out).unwrap());
    std::fs::remove_file(&out).unwrap();
    assert_eq!(
        printed.len(),
        count as usize,
        "one line per request; summary: {summary}"
    );
    for (line, correlation) in printed.iter().zip(1..) {
        assert_eq!(line["correlationId"], correlation, "{line}");
        let acks_0 = line["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("acks=0"));
        assert!(acks_0 || line["response"].is_object(), "{line}");
        let header = &line["request"]["header"];
        assert!(
            header["clientId"] == "tap-test" || header.get("clientId").is_none(),
            "{line}"
        );
    }
    assert!(summary.contains(&format!("{count} requests")), "{summary}");
}

/// Metadata v12 naming two brokers: node 0, the test's broker, and node 5 at `NODE_5`.
fn answer_metadata(key: i16, version: i16, correlation: i32, _: &[u8]) -> Option<Vec<u8>> {
    let node_5 = NODE_5.lock().unwrap().unwrap();
    let node_0 = NODE_0.lock().unwrap().unwrap();
    let body = match key {
        3 => ResponseBody::Metadata(MetadataResponse::default().with_brokers(vec![
            metadata_response::MetadataResponseBroker::default()
                .with_node_id(0)
                .with_host(KafkaString::from(node_0.ip().to_string()))
                .with_port(i32::from(node_0.port())),
            metadata_response::MetadataResponseBroker::default()
                .with_node_id(5)
                .with_host(KafkaString::from(node_5.ip().to_string()))
                .with_port(i32::from(node_5.port()))
                .with_rack(Some(KafkaString::from_static("rack-b"))),
        ])),
        _ => ResponseBody::deserialize_body(key, &mut serde_json::Deserializer::from_str("{}"))
            .ok()?,
    };
    let mut out = BytesMut::new();
    let header = ResponseHeader::default().with_correlation_id(correlation);
    kafka_wire::frame::encode_response(&mut out, &header, &body, version).unwrap();
    Some(out.to_vec())
}

static NODE_0: Mutex<Option<SocketAddr>> = Mutex::new(None);
static NODE_5: Mutex<Option<SocketAddr>> = Mutex::new(None);

#[test]
fn brokers_named_in_a_response_are_reached_through_the_tap() {
    let broker_0 = Broker::start(answer_metadata);
    let broker_5 = Broker::start(answer_metadata);
    *NODE_0.lock().unwrap() = Some(broker_0.addr);
    *NODE_5.lock().unwrap() = Some(broker_5.addr);
    let first = free_ports(5);
    let tap = Tap::start(
        broker_0.addr,
        &["--broker-port", &first.to_string()],
        Stdio::null(),
    );
    let mut conn = tap.connect();
    let metadata = exchange(
        &mut conn,
        &request_frame(3, 12, 1, &[0x01, 0x00, 0x00, 0x00]),
    );
    let response =
        kafka_wire::frame::decode_response::<ResponseBody>(metadata.into(), 3, 12).unwrap();
    let ResponseBody::Metadata(m) = response.1 else {
        panic!("a Metadata response")
    };
    let endpoints: Vec<(i32, String, i32)> = m
        .brokers
        .iter()
        .map(|b| (b.node_id, b.host.to_string(), b.port))
        .collect();
    assert_eq!(
        endpoints,
        [
            (0, "127.0.0.1".to_string(), i32::from(first)),
            (5, "127.0.0.1".to_string(), i32::from(first) + 5)
        ]
    );
    assert_eq!(
        m.brokers[1].rack.as_deref(),
        Some("rack-b"),
        "the rest as it was"
    );
    // Each listener reaches its broker.
    for (port, broker) in [(first, &broker_0), (first + 5, &broker_5)] {
        let before = broker.received.lock().unwrap().len();
        let mut conn = TcpStream::connect(("127.0.0.1", port)).unwrap();
        let request = request_frame(18, 3, 9, &[0x00, 0x00, 0x00]);
        exchange(&mut conn, &request);
        assert_eq!(
            &broker.received.lock().unwrap()[before..],
            request.as_slice()
        );
    }
    let summary = tap.stop();
    assert!(summary.contains("1 responses rewritten"), "{summary}");
}

#[test]
fn a_frame_above_the_limit_closes_both_sides_and_is_reported() {
    let broker = Broker::start(answer_empty);
    let tap = Tap::start(broker.addr, &["--max-frame", "1000"], Stdio::piped());
    let mut conn = tap.connect();
    let ok = request_frame(18, 3, 1, &[0x00, 0x00, 0x00]);
    exchange(&mut conn, &ok);
    conn.write_all(&5000u32.to_be_bytes()).unwrap();
    conn.write_all(&[0; 100]).unwrap();
    let mut rest = Vec::new();
    // The tap closes the client's side: the read ends.
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    assert_eq!(conn.read_to_end(&mut rest).unwrap_or(0), 0);
    thread::sleep(Duration::from_millis(100));
    assert_eq!(
        broker.received.lock().unwrap().as_slice(),
        ok.as_slice(),
        "nothing of the large frame"
    );
    let (out, stderr_rest) = tap.stop_with_output();
    let printed = lines(&out);
    assert_eq!(printed.len(), 2, "{out}");
    assert!(
        printed[1]["error"]
            .as_str()
            .unwrap()
            .contains("frame size 5000 is above the maximum 1000"),
        "{out}"
    );
    assert!(stderr_rest.contains("1 errors"), "{stderr_rest}");
}

#[test]
fn a_stalled_output_drops_lines_and_forwarding_goes_on() {
    let broker = Broker::start(answer_empty);
    // Standard output is a pipe nobody reads until the end: it fills, then the queue does.
    let tap = Tap::start(broker.addr, &["--queue", "2"], Stdio::piped());
    let mut conn = tap.connect();
    let requests = 3000;
    for correlation in 1..=requests {
        exchange(
            &mut conn,
            &request_frame(18, 3, correlation, &[0x00, 0x00, 0x00]),
        );
    }
    drop(conn);
    let (out, summary) = tap.stop_with_output();
    let printed = lines(&out).len();
    let dropped: usize = summary
        .split("; ")
        .find_map(|part| part.strip_suffix(" lines dropped"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(dropped > 0, "{summary}");
    assert_eq!(printed + dropped, requests as usize, "{summary}");
    assert!(
        summary.contains(&format!("{requests} requests")),
        "{summary}"
    );
}

#[test]
fn headers_only_and_only_the_apis_asked_for() {
    let broker = Broker::start(answer_empty);
    let tap = Tap::start(
        broker.addr,
        &["--bodies", "none", "--api", "ApiVersions,19"],
        Stdio::piped(),
    );
    let mut conn = tap.connect();
    exchange(&mut conn, &request_frame(18, 3, 1, &[0x00, 0x00, 0x00]));
    exchange(
        &mut conn,
        &request_frame(3, 12, 2, &[0x01, 0x00, 0x00, 0x00]),
    );
    drop(conn);
    let (out, summary) = tap.stop_with_output();
    let printed = lines(&out);
    assert_eq!(printed.len(), 1, "only ApiVersions: {out}");
    let line = &printed[0];
    assert_eq!(line["api"], "ApiVersions");
    assert_eq!(line["request"]["header"]["clientId"], "tap-test");
    // Key, version, correlation id, client id, tagged section, then a body of three bytes.
    assert_eq!(line["request"]["bytes"], 2 + 2 + 4 + 10 + 1 + 3);
    assert!(
        line["request"].get("body").is_none() && line["response"].get("body").is_none(),
        "{line}"
    );
    assert_eq!(line["response"]["header"]["correlationId"], 1);
    assert!(line["latencyUs"].is_u64(), "{line}");
    assert!(
        summary.contains("2 requests (Metadata 1, ApiVersions 1)"),
        "the summary counts every API: {summary}"
    );
}

#[test]
fn garbage_from_either_side_is_reported_and_the_tap_goes_on() {
    // A broker that answers every frame with bytes that are no response of its API.
    fn nonsense(_: i16, _: i16, correlation: i32, frame: &[u8]) -> Option<Vec<u8>> {
        let mut body = correlation.to_be_bytes().to_vec();
        body.extend(frame.iter().rev().take(40));
        let mut sized = (body.len() as u32).to_be_bytes().to_vec();
        sized.extend(body);
        Some(sized)
    }
    let broker = Broker::start(nonsense);
    let tap = Tap::start(broker.addr, &[], Stdio::piped());
    // Frames of every length from 8 to 300 bytes, of pseudo-random contents: unknown API keys
    // and versions, headers cut short, client ids longer than the frame, Metadata "responses"
    // that do not decode.
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for len in 8..300usize {
        let mut conn = tap.connect();
        let mut frame: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        // Keys of Metadata and FindCoordinator now and then, so that rewriting meets nonsense.
        if len % 3 == 0 {
            frame[..2].copy_from_slice(&[0, (len % 2 * 7 + 3) as u8]);
        }
        let mut sized = (len as u32).to_be_bytes().to_vec();
        sized.extend(&frame);
        conn.write_all(&sized).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        let mut answer = [0u8; 4];
        // The broker's nonsense comes back as it was, or the connection is closed: either way
        // the read returns.
        let _ = conn.read(&mut answer);
    }
    // Frames shorter than a header close the connection.
    let mut conn = tap.connect();
    conn.write_all(&[0, 0, 0, 3, 1, 2, 3]).unwrap();
    let mut rest = Vec::new();
    conn.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    assert_eq!(conn.read_to_end(&mut rest).unwrap(), 0);
    // And the tap still serves.
    let mut conn = tap.connect();
    let answer = exchange(&mut conn, &request_frame(18, 3, 1, &[0x00, 0x00, 0x00]));
    assert_eq!(&answer[..4], &1i32.to_be_bytes());
    drop(conn);
    let (out, summary) = tap.stop_with_output();
    let printed = lines(&out);
    assert!(
        printed.len() >= 293,
        "a line for each frame: {}",
        printed.len()
    );
    assert!(
        printed.iter().any(|l| l["error"]
            .as_str()
            .is_some_and(|e| e.contains("too short for a header"))),
        "the short frame is reported"
    );
    assert!(summary.contains("errors"), "{summary}");
}

#[test]
fn a_size_field_alone_does_not_buy_its_frame_s_memory() {
    let broker = Broker::start(answer_empty);
    let tap = Tap::start(broker.addr, &[], Stdio::null());
    let before = data_kib(tap.child.id());
    // Twenty connections each announce a frame of 90 MiB, within the limit, and send 10 bytes
    // of it.
    let conns: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut conn = tap.connect();
            conn.write_all(&(90u32 << 20).to_be_bytes()).unwrap();
            conn.write_all(&[0; 10]).unwrap();
            conn
        })
        .collect();
    thread::sleep(Duration::from_millis(500));
    let grown = data_kib(tap.child.id()).saturating_sub(before);
    assert!(
        grown < 64 << 10,
        "the tap's data grew by {grown} KiB for 20 frames of 14 bytes"
    );
    drop(conns);
    tap.stop();
}
