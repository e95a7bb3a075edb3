//! The built `kafka-wire` binary, driven as a user would: golden vectors through `decode` and
//! `encode`, the checked-in capture of a librdkafka session, a synthetic capture with
//! out-of-order, overlapping and split segments, frame streams (bytes after a body counted, as
//! Kafka's broker ignores them), records and log segments.
#![forbid(unsafe_code)]

use bytes::BytesMut;
use kafka_wire::frame::{encode_request, encode_response};
use kafka_wire::json::{at_version, JsonBody};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::*;
use kafka_wire::records::{Record, RecordBatchBuilder};
use kafka_wire::{KafkaString, Records};
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_kafka-wire");

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn run(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("the binary ends")
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

fn lines(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The command-line flags for a message of the golden vectors.
fn flags(message: &str) -> Vec<String> {
    match message {
        "RequestHeader" => vec!["--request-header".into()],
        "ResponseHeader" => vec!["--response-header".into()],
        m => match m.strip_suffix("Request") {
            Some(api) => vec!["--api".into(), api.into(), "--request".into()],
            None => vec![
                "--api".into(),
                m.strip_suffix("Response").expect("a response").into(),
                "--response".into(),
            ],
        },
    }
}

#[test]
fn decode_then_encode_gives_back_every_golden_vector() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden");
    let mut count = 0;
    let mut failures = Vec::new();
    for file in ["catalogue.json", "write_txn_markers.json"] {
        let vectors: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(root.join(file)).unwrap()).unwrap();
        for v in vectors {
            let message = v["message"].as_str().unwrap();
            let version = v["version"].to_string();
            let hex = v["hex"].as_str().unwrap();
            let mut args: Vec<String> = vec!["decode".into(), "--version".into(), version.clone()];
            args.extend(flags(message));
            args.push(hex.into());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let decoded = run(&args, None);
            count += 1;
            if !decoded.status.success() {
                failures.push(format!(
                    "{message} v{version}: decode: {}",
                    String::from_utf8_lossy(&decoded.stderr)
                ));
                continue;
            }
            let mut args = args;
            args[0] = "encode";
            args.pop();
            let encoded = run(&args, Some(&stdout(&decoded)));
            let back = stdout(&encoded);
            if back.trim() != hex {
                failures.push(format!(
                    "{message} v{version}: {} gave {back} ({})",
                    stdout(&decoded).trim(),
                    String::from_utf8_lossy(&encoded.stderr)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(count >= 250, "{count} vectors");
}

#[test]
fn errors_are_one_line_with_the_field_path_and_the_byte() {
    // WriteTxnMarkers v2: one marker whose topics array is cut short.
    let out = run(
        &[
            "decode",
            "--api",
            "WriteTxnMarkers",
            "--version",
            "2",
            "--request",
            "02000000000000000100",
        ],
        None,
    );
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("WriteTxnMarkersRequest.markers") && err.contains("at byte"),
        "{err}"
    );

    let out = run(
        &["encode", "--api", "Fetch", "--version", "4", "--request"],
        Some(r#"{"topics": [{"topic": "a", "partitions": [{"partition": "x"}]}]}"#),
    );
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("kafka-wire: topics[0].partitions[0].partition: invalid type"),
        "{err}"
    );
}

#[test]
fn short_json_takes_the_defaults() {
    let out = run(
        &[
            "encode",
            "--api",
            "ApiVersions",
            "--version",
            "3",
            "--request",
            "{}",
        ],
        None,
    );
    assert!(out.status.success());
    // Two empty compact strings and an empty tagged section.
    assert_eq!(stdout(&out).trim(), "010100");
}

#[test]
fn the_librdkafka_capture_is_read_whole() {
    let capture = data("real-client.pcap");
    let out = run(&["pcap", capture.to_str().unwrap()], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let pairs = lines(&out);
    let mut apis = std::collections::BTreeSet::new();
    let mut answered = 0;
    for pair in &pairs {
        assert!(pair.get("error").is_none(), "{pair}");
        assert!(pair["request"].get("error").is_none(), "{pair}");
        assert!(pair["request"]["body"].is_object(), "{pair}");
        match &pair["response"] {
            Value::Null => {}
            response => {
                assert!(response.get("error").is_none(), "{pair}");
                assert_eq!(response["header"]["correlationId"], pair["correlationId"]);
                answered += 1;
            }
        }
        apis.insert(pair["api"].as_str().unwrap().to_owned());
    }
    // What the summary of real-client.sh lists, from the clients and between the brokers.
    for api in [
        "ApiVersions",
        "Metadata",
        "InitProducerId",
        "AddPartitionsToTxn",
        "Produce",
        "EndTxn",
        "Fetch",
        "FindCoordinator",
        "ListOffsets",
        "WriteTxnMarkers",
    ] {
        assert!(apis.contains(api), "no {api} in {apis:?}");
    }
    // Requests the session ended before answering (long-polling fetches) are listed without a
    // response; every response has its request.
    assert!(
        answered >= pairs.len() - 8,
        "{answered} of {} answered",
        pairs.len()
    );
    assert!(
        err.contains(&format!(
            "{} requests, {answered} paired with a response, 0 errors",
            pairs.len()
        )),
        "{err}"
    );

    // With the brokers' ports named, the same pairs.
    let mut args = vec!["pcap".to_owned()];
    for port in [41700, 41701, 41702, 41800, 41801, 41802] {
        args.extend(["--port".to_owned(), port.to_string()]);
    }
    args.push(capture.to_str().unwrap().to_owned());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let by_port = run(&args, None);
    assert!(by_port.status.success());
    assert_eq!(lines(&by_port).len(), pairs.len());
}

#[test]
fn log_segments_show_the_transaction_markers() {
    let files: Vec<String> = (0..3)
        .map(|p| {
            data(&format!("log-orders-{p}"))
                .to_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut args = vec!["log"];
    args.extend(files.iter().map(String::as_str));
    let out = run(&args, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let batches = lines(&out);
    let marker = |kind: &str| {
        batches
            .iter()
            .filter(|b| b["control"]["type"] == kind)
            .count()
    };
    // real-client.sh's summary of the run that wrote them: commit_markers=12 abort_markers=12.
    assert_eq!((marker("COMMIT"), marker("ABORT")), (12, 12));
    let data: usize = batches
        .iter()
        .filter(|b| b["isControl"] == false)
        .map(|b| b["records"].as_array().unwrap().len())
        .sum();
    assert_eq!(data, 24);
}

#[test]
fn records_show_each_batch() {
    let batch = RecordBatchBuilder::new()
        .producer(4000, 2, 17)
        .record(Record::new(Some("k".into()), Some("v".into())).with_timestamp(1_700_000_000_000))
        .encode()
        .unwrap();
    let mut two = batch.as_bytes().to_vec();
    two.extend_from_slice(batch.as_bytes());
    let out = run(&["records", &hex(&two)], None);
    assert!(out.status.success());
    let batches = lines(&out);
    assert_eq!(batches.len(), 2);
    assert_eq!(batches[1]["position"], json!(batch.len()));
    assert_eq!(batches[0]["producerId"], 4000);
    assert_eq!(batches[0]["lastSequence"], 17);
    assert_eq!(batches[0]["records"][0]["value"], "dg==");
    let cut = run(&["records", &hex(&two[..two.len() - 1])], None);
    assert!(!cut.status.success());
    assert!(String::from_utf8_lossy(&cut.stderr)
        .contains(&format!("incomplete batch at byte {}", batch.len())));
}

/// Known requests and their responses, as a client and a broker would write them.
fn exchange() -> Vec<(RequestHeader, RequestBody, ResponseHeader, ResponseBody)> {
    let records = RecordBatchBuilder::new()
        .record(Record::new(None, Some("hello".into())).with_timestamp(1_700_000_000_000))
        .encode()
        .unwrap();
    let produce = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(1500)
        .with_topic_data(vec![produce_request::TopicProduceData::default()
            .with_name("orders")
            .with_partition_data(vec![
                produce_request::PartitionProduceData::default()
                    .with_index(2)
                    .with_records(Some(Records::new(records.into_bytes()))),
            ])]);
    let header = |key: i16, version: i16, correlation_id: i32| {
        RequestHeader::default()
            .with_request_api_key(key)
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(KafkaString::from_static("synthetic")))
    };
    let answer =
        |correlation_id: i32| ResponseHeader::default().with_correlation_id(correlation_id);
    vec![
        (
            header(18, 3, 1),
            RequestBody::ApiVersions(ApiVersionsRequest::default()),
            answer(1),
            ResponseBody::ApiVersions(ApiVersionsResponse::default()),
        ),
        (
            header(3, 12, 2),
            RequestBody::Metadata(MetadataRequest::default()),
            answer(2),
            ResponseBody::Metadata(MetadataResponse::default()),
        ),
        (
            header(0, 9, 3),
            RequestBody::Produce(produce),
            answer(3),
            ResponseBody::Produce(ProduceResponse::default()),
        ),
    ]
}

/// A pcap file (Ethernet) of one connection carrying `to_server` and `to_client`, in segments
/// reordered, repeated, overlapping and split as described below.
fn capture(to_server: &[u8], to_client: &[u8]) -> Vec<u8> {
    let mut file = Vec::new();
    // Global header: magic, version 2.4, zone, accuracy, snap length, Ethernet.
    file.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
    file.extend_from_slice(&2u16.to_le_bytes());
    file.extend_from_slice(&4u16.to_le_bytes());
    file.extend_from_slice(&[0; 8]);
    file.extend_from_slice(&65535u32.to_le_bytes());
    file.extend_from_slice(&1u32.to_le_bytes());
    let mut time = 0u32;
    let mut packet =
        |file: &mut Vec<u8>, from_client: bool, seq: u32, syn: bool, payload: &[u8]| {
            let (src, dst, sport, dport) = if from_client {
                ([10, 0, 0, 1], [10, 0, 0, 2], 50000, 9092)
            } else {
                ([10, 0, 0, 2], [10, 0, 0, 1], 9092, 50000)
            };
            let builder = etherparse::PacketBuilder::ethernet2([1; 6], [2; 6])
                .ipv4(src, dst, 64)
                .tcp(sport, dport, seq, 65535);
            let builder = if syn { builder.syn() } else { builder.ack(1) };
            let mut bytes = Vec::new();
            builder.write(&mut bytes, payload).unwrap();
            time += 1;
            file.extend_from_slice(&1_700_000_000u32.to_le_bytes());
            file.extend_from_slice(&time.to_le_bytes());
            file.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            file.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
            file.extend_from_slice(&bytes);
        };
    let (client_isn, server_isn) = (u32::MAX - 20, 7000u32);
    packet(&mut file, true, client_isn, true, &[]);
    packet(&mut file, false, server_isn, true, &[]);
    // The client's bytes: split in 7-byte pieces, sent in pairs swapped, with every third
    // piece sent again overlapping its neighbour; the sequence numbers wrap past 2^32.
    let pieces: Vec<(u32, &[u8])> = to_server
        .chunks(7)
        .enumerate()
        .map(|(i, c)| (client_isn.wrapping_add(1 + 7 * i as u32), c))
        .collect();
    for pair in pieces.chunks(2) {
        for (k, (seq, chunk)) in pair.iter().enumerate().rev() {
            packet(&mut file, true, *seq, false, chunk);
            if k == 0 && pair.len() == 2 {
                // An overlapping retransmission: this piece and the start of the next.
                let mut both = chunk.to_vec();
                both.extend_from_slice(&pair[1].1[..pair[1].1.len().min(3)]);
                packet(&mut file, true, *seq, false, &both);
            }
        }
    }
    // The broker's bytes: in three uneven segments, the last first.
    let n = to_client.len();
    let cuts = [0, n / 5, n / 2, n];
    for i in [2usize, 0, 1] {
        let seq = server_isn.wrapping_add(1 + cuts[i] as u32);
        packet(
            &mut file,
            false,
            seq,
            false,
            &to_client[cuts[i]..cuts[i + 1]],
        );
    }
    file
}

#[test]
fn a_synthetic_capture_with_reordered_overlapping_and_split_segments() {
    let exchange = exchange();
    let (mut requests, mut responses) = (BytesMut::new(), BytesMut::new());
    for (header, body, answer_header, answer) in &exchange {
        encode_request(&mut requests, header, body).unwrap();
        encode_response(
            &mut responses,
            answer_header,
            answer,
            header.request_api_version,
        )
        .unwrap();
    }
    let dir = std::env::temp_dir().join(format!("kafka-wire-synthetic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("synthetic.pcap");
    std::fs::write(&path, capture(&requests, &responses)).unwrap();
    let out = run(&["pcap", path.to_str().unwrap()], None);

    // The same frames, as a raw stream of requests.
    let stream = dir.join("requests.bin");
    std::fs::write(&stream, &requests).unwrap();
    let frames = run(&["frames", stream.to_str().unwrap()], None);
    std::fs::remove_dir_all(&dir).unwrap();

    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pairs = lines(&out);
    assert_eq!(pairs.len(), exchange.len());
    let frames = lines(&frames);
    assert_eq!(frames.len(), exchange.len());
    for (pair, (header, body, answer_header, answer)) in pairs.iter().zip(&exchange) {
        let version = header.request_api_version;
        let request_header_version = kafka_wire::ApiSet::api(body).header_version(version);
        let response_header_version = kafka_wire::ApiSet::api(answer).header_version(version);
        assert_eq!(pair["connection"], "10.0.0.1:50000 -> 10.0.0.2:9092");
        assert_eq!(
            pair["request"]["header"],
            serde_json::to_value(at_version(header, request_header_version)).unwrap()
        );
        assert_eq!(
            pair["request"]["body"],
            serde_json::to_value(body.body_at_version(version)).unwrap()
        );
        assert_eq!(
            pair["response"]["header"],
            serde_json::to_value(at_version(answer_header, response_header_version)).unwrap()
        );
        assert_eq!(
            pair["response"]["body"],
            serde_json::to_value(answer.body_at_version(version)).unwrap()
        );
    }
    for (frame, (header, body, _, _)) in frames.iter().zip(&exchange) {
        assert_eq!(frame["correlationId"], header.correlation_id);
        assert_eq!(
            frame["body"],
            serde_json::to_value(body.body_at_version(header.request_api_version)).unwrap()
        );
    }
}

#[test]
fn a_capture_missing_a_segment_reports_the_hole() {
    let exchange = exchange();
    let mut requests = BytesMut::new();
    for (header, body, _, _) in &exchange {
        encode_request(&mut requests, header, body).unwrap();
    }
    let file = capture(&requests, &[]);
    // Drop the third packet record (after the two SYNs): the client's second piece, of which
    // the overlapping retransmission that follows carries only the first 3 of 7 bytes.
    let mut kept = file[..24].to_vec();
    let mut at = 24;
    let mut index = 0;
    while at < file.len() {
        let len = u32::from_le_bytes(file[at + 8..at + 12].try_into().unwrap()) as usize;
        if index != 2 {
            kept.extend_from_slice(&file[at..at + 16 + len]);
        }
        at += 16 + len;
        index += 1;
    }
    let file = kept;
    let path = std::env::temp_dir().join(format!("kafka-wire-hole-{}.pcap", std::process::id()));
    std::fs::write(&path, file).unwrap();
    let out = run(&["pcap", path.to_str().unwrap()], None);
    std::fs::remove_file(&path).unwrap();
    assert!(!out.status.success());
    let errors: Vec<Value> = lines(&out)
        .into_iter()
        .filter(|l| l.get("error").is_some())
        .collect();
    assert!(!errors.is_empty(), "{}", stdout(&out));
}

/// librdkafka 2.16's Metadata v9 request for all topics (`list_topics()`), without its size:
/// Kafka's broker reads its body and ignores the one byte after it.
const LIBRDKAFKA_METADATA_V9: &[u8] = b"\x00\x03\x00\x09\x00\x00\x00\x03\x00\x07rdkafka\x00\
    \x00\x00\x00\x00\x01\x00\x00\x00";

/// Bytes after a body are read past as Kafka reads them, and counted in `trailingBytes`, in
/// `frames` and in both directions of `pcap`; a frame without any has no such field.
#[test]
fn bytes_after_a_body_are_counted_in_frames_and_pcap() {
    let exact = RequestHeader::default()
        .with_request_api_key(3)
        .with_request_api_version(12)
        .with_correlation_id(2)
        .with_client_id(Some(KafkaString::from_static("synthetic")));
    let mut requests = BytesMut::new();
    requests.extend_from_slice(&(LIBRDKAFKA_METADATA_V9.len() as i32).to_be_bytes());
    requests.extend_from_slice(LIBRDKAFKA_METADATA_V9);
    let exact_body = RequestBody::Metadata(MetadataRequest::default());
    encode_request(&mut requests, &exact, &exact_body).unwrap();

    // The answer to correlation id 3 with two bytes after its body (its size counts them),
    // then the exact answer to correlation id 2.
    let answer = ResponseBody::Metadata(MetadataResponse::default().with_controller_id(1));
    let mut responses = BytesMut::new();
    let first = ResponseHeader::default().with_correlation_id(3);
    encode_response(&mut responses, &first, &answer, 9).unwrap();
    let size = responses.len() - 4 + 2;
    responses[..4].copy_from_slice(&(size as i32).to_be_bytes());
    responses.extend_from_slice(&[0x01, 0x02]);
    let second = ResponseHeader::default().with_correlation_id(2);
    encode_response(&mut responses, &second, &answer, 12).unwrap();

    let dir = std::env::temp_dir().join(format!("kafka-wire-trailing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stream = dir.join("requests.bin");
    std::fs::write(&stream, &requests).unwrap();
    let frames = run(&["frames", stream.to_str().unwrap()], None);
    let path = dir.join("trailing.pcap");
    std::fs::write(&path, capture(&requests, &responses)).unwrap();
    let pcap = run(&["pcap", path.to_str().unwrap()], None);
    std::fs::remove_dir_all(&dir).unwrap();

    assert!(
        frames.status.success(),
        "{}",
        String::from_utf8_lossy(&frames.stderr)
    );
    let frames = lines(&frames);
    assert_eq!(frames.len(), 2);
    assert_eq!(frames[0]["api"], "Metadata");
    assert_eq!(frames[0]["version"], 9);
    assert_eq!(frames[0]["correlationId"], 3);
    assert_eq!(frames[0]["header"]["clientId"], "rdkafka");
    assert_eq!(frames[0]["body"]["topics"], Value::Null);
    assert_eq!(frames[0]["trailingBytes"], 1);
    assert_eq!(frames[0]["size"], LIBRDKAFKA_METADATA_V9.len());
    assert_eq!(frames[1]["correlationId"], 2);
    assert_eq!(frames[1].get("trailingBytes"), None, "{}", frames[1]);

    assert!(
        pcap.status.success(),
        "{}",
        String::from_utf8_lossy(&pcap.stderr)
    );
    let pairs = lines(&pcap);
    assert_eq!(pairs.len(), 2);
    assert_eq!(pairs[0]["correlationId"], 3);
    assert_eq!(pairs[0]["request"]["trailingBytes"], 1);
    assert_eq!(pairs[0]["response"]["trailingBytes"], 2);
    assert_eq!(
        pairs[0]["response"]["body"],
        serde_json::to_value(answer.body_at_version(9)).unwrap()
    );
    assert_eq!(pairs[1]["correlationId"], 2);
    assert_eq!(pairs[1]["request"].get("trailingBytes"), None);
    assert_eq!(pairs[1]["response"].get("trailingBytes"), None);
    assert_eq!(
        pairs[1]["response"]["body"],
        serde_json::to_value(answer.body_at_version(12)).unwrap()
    );
}
