//! `kafka-wire tap` with large frames, which move between the sockets in the kernel (and, with
//! `--copy`, through the tap's memory): Produce requests and Fetch responses written by kio pass
//! byte for byte; a Fetch v16 response that names no broker is held in a pipe and passes
//! untouched, one that names brokers is rewritten, one larger than a pipe holds is finished in
//! memory; a peer that closes in the middle of a frame has its bytes passed on and its close
//! too, and a client that resets its connection between frames has closed it, with no error; a hostile size field buys no memory, garbage is forwarded and reported, and a signal
//! in the middle of a frame stops the tap cleanly.
// The kernel path is Linux's: elsewhere the tap copies, which tests/tap.rs covers.
#![cfg(target_os = "linux")]
#![forbid(unsafe_code)]

mod tap_support;

use kafka_wire::messages::api::ResponseBody;
use kafka_wire::ApiSet;
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::sync::OnceLock;
use std::thread;
use std::time::Duration;
use tap_support::*;

/// A frame of `tests/data/tap` (written by `gen_frames.py`), its size field first.
fn frame(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/data/tap/{name}.bin.gz",
        env!("CARGO_MANIFEST_DIR")
    );
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// The brokers' answers, by the request's correlation id: (correlation id, frame).
fn answers() -> &'static Vec<(i32, Vec<u8>)> {
    static ANSWERS: OnceLock<Vec<(i32, Vec<u8>)>> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        let mut garbage = vec![0, 0, 0, 7, 0];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        garbage.extend((0..300 << 10).map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        }));
        let mut sized = (garbage.len() as u32).to_be_bytes().to_vec();
        sized.extend(garbage);
        vec![
            (1, frame("fetch-v12")),
            (2, frame("fetch-v16-held")),
            (3, frame("fetch-v16-endpoints")),
            (4, frame("fetch-v16-beyond")),
            (5, frame("produce-v10-endpoints")),
            (6, sized),
        ]
    })
}

/// Answers a request with the frame of its correlation id, that id written in; Produce v9
/// requests (kio's, correlation id 7) with a few bytes that read as a Produce v9 response.
fn answer(key: i16, version: i16, correlation: i32, _: &[u8]) -> Option<Vec<u8>> {
    if key == 0 && version == 9 {
        // Correlation id, empty tagged section, no topics, throttle 0, empty tagged section.
        let mut out = vec![0, 0, 0, 11];
        out.extend(correlation.to_be_bytes());
        out.extend([0, 1, 0, 0, 0, 0, 0]);
        return Some(out);
    }
    let (_, frame) = answers().iter().find(|(c, _)| *c == correlation)?;
    let mut frame = frame.clone();
    frame[4..8].copy_from_slice(&correlation.to_be_bytes());
    Some(frame)
}

/// A request the test's broker answers by its correlation id: its body does not matter to it
/// (to the tap, it is a Produce request with no transactional id and acks -1).
fn request(key: i16, version: i16, correlation: i32) -> Vec<u8> {
    let mut body = vec![0, 0xff, 0xff];
    body.resize(16, 0);
    request_frame(key, version, correlation, &body)
}

/// Sends `requests` on one connection, then reads a response frame for each.
fn through(tap: &Tap, requests: &[Vec<u8>]) -> Vec<u8> {
    let mut conn = tap.connect();
    let mut reader = conn.try_clone().unwrap();
    let sent: Vec<u8> = requests.concat();
    let writing = thread::spawn(move || conn.write_all(&sent).map(|()| conn));
    reader
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let mut got = Vec::new();
    for _ in requests {
        let mut size = [0; 4];
        reader.read_exact(&mut size).unwrap();
        let mut frame = vec![0; u32::from_be_bytes(size) as usize];
        reader.read_exact(&mut frame).unwrap();
        got.extend(size);
        got.extend(frame);
    }
    drop(writing.join().unwrap());
    got
}

/// The tap's arguments for lines without bodies, through the kernel path or with `--copy`.
fn headers_only(copy: bool) -> &'static [&'static str] {
    if copy {
        &["--bodies", "none", "--copy"]
    } else {
        &["--bodies", "none"]
    }
}

/// A number the summary gives before `what`.
fn counted(summary: &str, what: &str) -> u64 {
    summary
        .split([';', ','])
        .find_map(|part| part.trim().strip_suffix(what))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no '{what}' in {summary}"))
}

#[test]
fn large_frames_pass_byte_for_byte_in_the_kernel_and_copied() {
    for copy in [false, true] {
        let broker = Broker::start(answer);
        let args = headers_only(copy);
        let tap = Tap::start(broker.addr, args, Stdio::piped());
        let requests = [
            frame("produce-v9-request"),
            request(1, 12, 1),
            request(1, 16, 2),
        ];
        let received = through(&tap, &requests);
        assert!(
            broker.received.lock().unwrap().as_slice() == requests.concat().as_slice(),
            "copy {copy}: what the broker received"
        );
        assert!(
            received == *broker.sent.lock().unwrap(),
            "copy {copy}: what the client received ({} bytes of {})",
            received.len(),
            broker.sent.lock().unwrap().len()
        );
        let (out, summary) = tap.stop_with_output();
        let printed = lines(&out);
        assert_eq!(printed.len(), 3, "{out}");
        for line in &printed {
            assert!(line["response"].is_object(), "{line}");
            assert!(line["request"].get("body").is_none(), "{line}");
        }
        assert_eq!(printed[0]["request"]["header"]["clientId"], "tap-test");
        assert_eq!(printed[0]["request"]["bytes"], requests[0].len() - 4);
        assert_eq!(printed[1]["response"]["bytes"], answers()[0].1.len() - 4);
        assert_eq!(counted(&summary, "responses rewritten"), 0, "{summary}");
        let spliced = counted(&summary, "of them spliced");
        if copy {
            assert_eq!(spliced, 0, "{summary}");
        } else {
            // The Produce request, the Fetch v12 response and the held Fetch v16 response, but
            // for the heads read into memory.
            let large = requests[0].len() + answers()[0].1.len() + answers()[1].1.len();
            assert!(spliced as usize > large - (200 << 10), "{summary}");
            assert!((spliced as usize) < large, "{summary}");
        }
    }
}

/// The length of the bytes a base64 string (records the lines could not read as batches) holds.
fn base64_len(text: &Value) -> usize {
    let text = text
        .as_str()
        .unwrap_or_else(|| panic!("records as base64: {text:.200}"));
    text.len() / 4 * 3 - text.bytes().rev().take_while(|b| *b == b'=').count()
}

#[test]
fn with_bodies_full_the_lines_have_every_byte_and_the_frames_still_move_in_the_kernel() {
    let broker = Broker::start(answer);
    let tap = Tap::start(broker.addr, &[], Stdio::piped());
    let requests = [frame("produce-v9-request"), request(1, 12, 1)];
    let received = through(&tap, &requests);
    assert!(broker.received.lock().unwrap().as_slice() == requests.concat().as_slice());
    assert!(received == *broker.sent.lock().unwrap(), "byte for byte");
    let (out, summary) = tap.stop_with_output();
    let printed = lines(&out);
    assert_eq!(printed.len(), 2, "{out}");
    let produced: usize = printed[0]["request"]["body"]["topicData"][0]["partitionData"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| base64_len(&p["records"]))
        .sum();
    assert_eq!(produced, 3 << 20, "{}", printed[0]["request"]["body"]);
    let fetched = &printed[1]["response"]["body"]["responses"][0]["partitions"][0]["records"];
    assert_eq!(base64_len(fetched), 3 << 20);
    // Teed: what went on was spliced, and the lines have their copy.
    let spliced = counted(&summary, "of them spliced") as usize;
    assert!(spliced > (6 << 20) - (128 << 10), "{summary}");
}

/// The bytes spliced while one Fetch v16 response of correlation id `correlation` passes, with
/// `args`.
fn spliced_for(correlation: i32, args: &[&str]) -> u64 {
    let broker = Broker::start(answer);
    let args = [&["--bodies", "none"], args].concat();
    let tap = Tap::start(broker.addr, &args, Stdio::null());
    let received = through(&tap, &[request(1, 16, correlation)]);
    assert!(received == *broker.sent.lock().unwrap(), "byte for byte");
    counted(&tap.stop(), "of them spliced")
}

#[test]
fn a_fetch_v16_response_naming_no_broker_is_held_in_the_kernel() {
    let held = &answers()[1].1;
    let spliced = spliced_for(2, &[]) as usize;
    // All of it but the head read into memory before the frame was seen to be large.
    assert!(
        spliced > held.len() - (64 << 10) && spliced <= held.len(),
        "{spliced}"
    );
}

#[test]
fn a_frame_larger_than_a_pipe_is_finished_in_memory() {
    // A pipe of one page holds what one slot refers to: a few of the socket's pages at most,
    // far from the frame's 5 MiB. Taken back from the pipe and written from memory, none of the
    // frame is spliced.
    assert_eq!(spliced_for(4, &["--pipe-size", "4096"]), 0);
    // With the largest pipes, it is held or not as the kernel's pages allow, and passes byte
    // for byte either way.
    spliced_for(4, &[]);
}

/// A node's id, host and port.
type Endpoint = (i32, String, i32);

/// The node endpoints and the records of every partition of a Fetch or Produce response.
fn endpoints_and_records(frame: &[u8], key: i16, version: i16) -> (Vec<Endpoint>, Vec<Vec<u8>>) {
    let (_, body) = kafka_wire::frame::decode_response::<ResponseBody>(
        frame[4..].to_vec().into(),
        key,
        version,
    )
    .unwrap();
    match body {
        ResponseBody::Fetch(r) => (
            r.node_endpoints
                .iter()
                .map(|e| (e.node_id, e.host.to_string(), e.port))
                .collect(),
            r.responses
                .iter()
                .flat_map(|t| &t.partitions)
                .map(|p| p.records.as_ref().unwrap().as_bytes().to_vec())
                .collect(),
        ),
        ResponseBody::Produce(r) => (
            r.node_endpoints
                .iter()
                .map(|e| (e.node_id, e.host.to_string(), e.port))
                .collect(),
            Vec::new(),
        ),
        other => panic!("{}", other.api().name()),
    }
}

#[test]
fn responses_naming_brokers_are_rewritten_in_both_paths() {
    for copy in [false, true] {
        let broker = Broker::start(answer);
        let first = free_ports(3);
        let port = first.to_string();
        let mut args = vec!["--bodies", "none", "--broker-port", &port];
        if copy {
            args.push("--copy");
        }
        let tap = Tap::start(broker.addr, &args, Stdio::null());
        let received = through(&tap, &[request(1, 16, 3), request(0, 10, 5)]);
        let fetch_len = u32::from_be_bytes(received[..4].try_into().unwrap()) as usize + 4;
        let (fetch, produce) = received.split_at(fetch_len);
        let (endpoints, records) = endpoints_and_records(fetch, 1, 16);
        let at = |node: i32| (node, "127.0.0.1".to_string(), i32::from(first) + node);
        assert_eq!(endpoints, [at(1)], "copy {copy}");
        let (_, golden) = endpoints_and_records(&answers()[2].1, 1, 16);
        assert!(
            records == golden,
            "copy {copy}: the records as kio wrote them"
        );
        assert_eq!(golden.iter().map(Vec::len).sum::<usize>(), 600 << 10);
        let (endpoints, _) = endpoints_and_records(produce, 0, 10);
        assert_eq!(endpoints, [at(2)], "copy {copy}");
        let summary = tap.stop();
        assert_eq!(counted(&summary, "responses rewritten"), 2, "{summary}");
    }
}

#[test]
fn garbage_in_a_held_frame_is_forwarded_and_reported() {
    let broker = Broker::start(answer);
    let tap = Tap::start(broker.addr, &["--bodies", "none"], Stdio::piped());
    let received = through(&tap, &[request(1, 16, 6), request(1, 16, 2)]);
    assert!(received == *broker.sent.lock().unwrap(), "byte for byte");
    let (out, summary) = tap.stop_with_output();
    let printed = lines(&out);
    let errors: Vec<&Value> = printed
        .iter()
        .filter(|l| l.get("error").is_some())
        .collect();
    assert_eq!(errors.len(), 1, "{out}");
    assert!(
        errors[0]["error"]
            .as_str()
            .unwrap()
            .contains("correlation id 6: the response cannot be read"),
        "{out}"
    );
    assert_eq!(printed.len(), 3, "two exchanges and the error: {out}");
    assert!(counted(&summary, "of them spliced") > 0, "{summary}");
}

#[test]
fn a_hostile_size_field_in_a_held_response_buys_no_memory() {
    // A Fetch v16 response that claims 90 MiB, one partition whose records claim 80 MiB, and
    // 2 MiB of them; then nothing.
    fn hostile(key: i16, _: i16, correlation: i32, _: &[u8]) -> Option<Vec<u8>> {
        if key != 1 {
            return None;
        }
        let mut out = (90u32 << 20).to_be_bytes().to_vec();
        out.extend(correlation.to_be_bytes());
        out.push(0);
        out.extend([0; 10]);
        out.push(2);
        out.extend([7; 16]);
        out.push(2);
        out.extend([0; 30]);
        out.push(0);
        out.extend([0xff; 4]);
        // 80 MiB + 1 as an unsigned varint.
        let mut n = (80u32 << 20) + 1;
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
        out.extend(std::iter::repeat_n(0x5a, 2 << 20));
        Some(out)
    }
    let broker = Broker::start(hostile);
    let tap = Tap::start(broker.addr, &["--bodies", "none"], Stdio::null());
    let before = data_kib(tap.child.id());
    let conns: Vec<TcpStream> = (0..8)
        .map(|i| {
            let mut conn = tap.connect();
            conn.write_all(&request(1, 16, i)).unwrap();
            conn
        })
        .collect();
    // Every connection's 2 MiB have reached the tap.
    let mut waited = 0;
    while broker.sent.lock().unwrap().len() < 8 * (2 << 20) && waited < 200 {
        thread::sleep(Duration::from_millis(50));
        waited += 1;
    }
    thread::sleep(Duration::from_millis(500));
    let grown = data_kib(tap.child.id()).saturating_sub(before);
    assert!(
        grown < 64 << 10,
        "the tap's data grew by {grown} KiB for 8 frames of 2 MiB that claim 90 MiB"
    );
    drop(conns);
    tap.stop();
}

#[test]
fn a_signal_in_the_middle_of_a_frame_stops_the_tap_cleanly() {
    for signal in ["-INT", "-TERM"] {
        let broker = Broker::start(answer);
        let tap = Tap::start(broker.addr, &["--bodies", "none"], Stdio::null());
        let mut conn = tap.connect();
        let produce = frame("produce-v9-request");
        conn.write_all(&produce[..1 << 20]).unwrap();
        // The tap is in the middle of the frame: the broker waits for the rest.
        thread::sleep(Duration::from_millis(300));
        assert_eq!(broker.received_frames(), 0);
        let summary = tap.stop_by(signal);
        assert!(
            summary.contains("1 requests (Produce 1)"),
            "{signal}: {summary}"
        );
        assert_eq!(
            counted(&summary, "without response"),
            1,
            "{signal}: {summary}"
        );
        let mut rest = Vec::new();
        conn.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        assert_eq!(conn.read_to_end(&mut rest).unwrap_or(0), 0, "closed");
    }
}

/// A broker for one connection that closes it in the middle of a frame: it reads one request
/// frame and writes the first `cut` bytes of `response` (`None`: reads until the client
/// closes, and writes nothing). Gives back every byte it received.
fn closing_broker(
    response: Option<(Vec<u8>, usize)>,
) -> (std::net::SocketAddr, thread::JoinHandle<Vec<u8>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut received = Vec::new();
        match response {
            Some((response, cut)) => {
                let mut size = [0; 4];
                conn.read_exact(&mut size).unwrap();
                let mut frame = vec![0; u32::from_be_bytes(size) as usize];
                conn.read_exact(&mut frame).unwrap();
                received.extend(size);
                received.extend(frame);
                conn.write_all(&response[..cut]).unwrap();
            }
            None => {
                conn.read_to_end(&mut received).unwrap();
            }
        }
        received
    });
    (addr, serving)
}

#[test]
fn a_peer_that_closes_in_the_middle_of_a_frame_gets_its_bytes_through_and_the_close() {
    // A Fetch v12 response, spliced as it comes; a Fetch v16 response naming no broker, held
    // in a pipe until its end, which never comes; a Produce request cut by the client.
    for copy in [false, true] {
        let args = headers_only(copy);
        for (version, correlation) in [(12, 1i32), (16, 2)] {
            let mut response = answers()[correlation as usize - 1].1.clone();
            response[4..8].copy_from_slice(&correlation.to_be_bytes());
            let cut = response.len() / 2;
            let (addr, broker) = closing_broker(Some((response.clone(), cut)));
            let tap = Tap::start(addr, args, Stdio::null());
            let mut conn = tap.connect();
            let sent = request(1, version, correlation);
            conn.write_all(&sent).unwrap();
            conn.set_read_timeout(Some(Duration::from_secs(20)))
                .unwrap();
            let mut got = Vec::new();
            conn.read_to_end(&mut got).unwrap_or_else(|e| {
                panic!("copy {copy}, v{version}: the close reaches the client: {e}")
            });
            assert_eq!(broker.join().unwrap(), sent, "copy {copy}, v{version}");
            assert!(
                got == response[..cut],
                "copy {copy}, v{version}: the client got {} bytes of the {cut} sent",
                got.len()
            );
            // A response cut short is an error of the connection's, reported once.
            let summary = tap.stop();
            assert_eq!(counted(&summary, "errors"), 1, "{summary}");
        }

        let (addr, broker) = closing_broker(None);
        let tap = Tap::start(addr, args, Stdio::null());
        let mut conn = tap.connect();
        let produce = frame("produce-v9-request");
        let cut = produce.len() / 2;
        conn.write_all(&produce[..cut]).unwrap();
        drop(conn);
        let received = broker.join().unwrap();
        assert!(
            received == produce[..cut],
            "copy {copy}: the broker got {} bytes of the {cut} sent",
            received.len()
        );
        let summary = tap.stop();
        assert_eq!(counted(&summary, "errors"), 1, "{summary}");
    }
}

#[test]
fn a_client_that_resets_its_connection_between_frames_closes_it_without_an_error() {
    // A socket closed with bytes it has not read sends a reset rather than an orderly close, as
    // librdkafka's can when it tears down a fenced producer: the client's close, not a failure.
    for copy in [false, true] {
        let broker = Broker::start(answer);
        let tap = Tap::start(broker.addr, headers_only(copy), Stdio::null());
        let mut conn = tap.connect();
        conn.write_all(&request(1, 12, 1)).unwrap();
        let sent = answers()[0].1.len();
        while broker.sent.lock().unwrap().len() < sent {
            thread::sleep(Duration::from_millis(10));
        }
        // The response reaches the client's socket, which closes without reading it.
        thread::sleep(Duration::from_millis(300));
        drop(conn);
        thread::sleep(Duration::from_millis(300));
        let summary = tap.stop();
        assert_eq!(counted(&summary, "errors"), 0, "copy {copy}: {summary}");
        assert_eq!(
            counted(&summary, "without response"),
            0,
            "copy {copy}: {summary}"
        );
    }
}
