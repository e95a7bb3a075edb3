//! `kafka-wire tap` against a direct connection, in one run: Produce and Fetch traffic of 1 MiB
//! frames through the tap (`--bodies none`) and straight to the broker, in alternating rounds;
//! then small requests one at a time, for the latency the tap adds; and the tap's resident
//! memory after each round.
//!
//! `cargo bench -p kafka-wire-analyser --bench tap` prints the table of BENCHMARKS.md;
//! `KW_BENCH=quick` moves a few megabytes only, as a smoke test. The broker is the bench's own
//! and does no work but reading a frame and writing a prepared answer, so that the tap's cost
//! is measured where it shows most: against a real broker, which writes to disk, its share is
//! smaller.

use bytes::{Bytes, BytesMut};
use kafka_wire::frame::{encode_request, encode_response};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::*;
use kafka_wire::{KafkaString, Records};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_kafka-wire");
const MIB: usize = 1 << 20;
/// Requests a client keeps on their way, as a producer's `max.in.flight` does.
const IN_FLIGHT: usize = 5;

fn header(key: i16, version: i16, correlation_id: i32) -> RequestHeader {
    RequestHeader::default()
        .with_request_api_key(key)
        .with_request_api_version(version)
        .with_correlation_id(correlation_id)
        .with_client_id(Some(KafkaString::from_static("bench")))
}

fn request(key: i16, version: i16, body: RequestBody) -> Vec<u8> {
    let mut out = BytesMut::new();
    encode_request(&mut out, &header(key, version, 0), &body).unwrap();
    out.to_vec()
}

/// What the bench's broker answers to each API: a frame whose correlation id it fills in.
struct Answers {
    produce: Vec<u8>,
    fetch: Vec<u8>,
    api_versions: Vec<u8>,
}

fn response(version: i16, body: ResponseBody) -> Vec<u8> {
    let mut out = BytesMut::new();
    encode_response(&mut out, &ResponseHeader::default(), &body, version).unwrap();
    out.to_vec()
}

/// The size of each Produce request's and Fetch response's records.
fn frame_bytes() -> usize {
    std::env::var("KW_TAP_FRAME_KIB")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(MIB, |k| k << 10)
}

fn payload(len: usize) -> Records {
    Records::new(Bytes::from(
        (0..len).map(|i| (i * 31 % 251) as u8).collect::<Vec<u8>>(),
    ))
}

fn answers() -> Answers {
    let produce = ProduceResponse::default().with_responses(vec![
        produce_response::TopicProduceResponse::default()
            .with_name("bench")
            .with_partition_responses(vec![produce_response::PartitionProduceResponse::default()]),
    ]);
    let fetch = FetchResponse::default().with_responses(vec![
        fetch_response::FetchableTopicResponse::default()
            .with_topic("bench")
            .with_partitions(vec![fetch_response::PartitionData::default()
                .with_high_watermark(1 << 30)
                .with_records(Some(payload(frame_bytes())))]),
    ]);
    Answers {
        produce: response(9, ResponseBody::Produce(produce)),
        fetch: response(12, ResponseBody::Fetch(fetch)),
        api_versions: response(3, ResponseBody::ApiVersions(ApiVersionsResponse::default())),
    }
}

/// The requests of the three workloads.
struct Requests {
    produce: Vec<u8>,
    fetch: Vec<u8>,
    api_versions: Vec<u8>,
}

fn requests() -> Requests {
    let produce = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![produce_request::TopicProduceData::default()
            .with_name("bench")
            .with_partition_data(vec![
                produce_request::PartitionProduceData::default()
                    .with_records(Some(payload(frame_bytes()))),
            ])]);
    let fetch = FetchRequest::default()
        .with_max_wait_ms(500)
        .with_max_bytes(64 << 20)
        .with_topics(vec![fetch_request::FetchTopic::default()
            .with_topic("bench")
            .with_partitions(vec![
                fetch_request::FetchPartition::default().with_partition_max_bytes(2 << 20)
            ])]);
    Requests {
        produce: request(0, 9, RequestBody::Produce(produce)),
        fetch: request(1, 12, RequestBody::Fetch(fetch)),
        api_versions: request(
            18,
            3,
            RequestBody::ApiVersions(ApiVersionsRequest::default()),
        ),
    }
}

/// The bench's broker: reads each frame and writes the prepared answer of its API.
fn broker(answers: &'static Answers) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            thread::spawn(move || serve(conn, answers));
        }
    });
    addr
}

fn serve(conn: TcpStream, answers: &Answers) {
    conn.set_nodelay(true).unwrap();
    let mut reader = BufReader::with_capacity(256 << 10, conn.try_clone().unwrap());
    let mut writer = conn;
    let mut frame = Vec::new();
    loop {
        let mut size = [0u8; 4];
        if reader.read_exact(&mut size).is_err() {
            return;
        }
        frame.resize(u32::from_be_bytes(size) as usize, 0);
        if reader.read_exact(&mut frame).is_err() {
            return;
        }
        let answer = match i16::from_be_bytes([frame[0], frame[1]]) {
            0 => &answers.produce,
            1 => &answers.fetch,
            _ => &answers.api_versions,
        };
        // The correlation id, after the size field of the answer.
        let mut out = answer.clone();
        out[4..8].copy_from_slice(&frame[4..8]);
        if writer.write_all(&out).is_err() {
            return;
        }
    }
}

fn read_frame(conn: &mut impl Read, buf: &mut Vec<u8>) {
    let mut size = [0u8; 4];
    conn.read_exact(&mut size).unwrap();
    buf.resize(u32::from_be_bytes(size) as usize, 0);
    conn.read_exact(buf).unwrap();
}

/// Sends `count` copies of `frame`, keeping `IN_FLIGHT` on their way, and reads every answer;
/// gives the bytes moved both ways and the time taken.
fn pipeline(to: SocketAddr, frame: &[u8], count: usize) -> (u64, Duration) {
    let conn = TcpStream::connect(to).unwrap();
    conn.set_nodelay(true).unwrap();
    let mut reader = BufReader::with_capacity(256 << 10, conn.try_clone().unwrap());
    let (slot_tx, slot_rx) = mpsc::sync_channel::<()>(IN_FLIGHT);
    let start = Instant::now();
    let frame = frame.to_vec();
    let sending = thread::spawn(move || {
        let mut conn = conn;
        for i in 0..count {
            slot_tx.send(()).unwrap();
            let mut f = frame.clone();
            f[8..12].copy_from_slice(&(i as i32).to_be_bytes());
            conn.write_all(&f).unwrap();
        }
        (frame.len() * count) as u64
    });
    let mut buf = Vec::new();
    let mut received = 0u64;
    for _ in 0..count {
        read_frame(&mut reader, &mut buf);
        received += buf.len() as u64 + 4;
        slot_rx.recv().unwrap();
    }
    let sent = sending.join().unwrap();
    (sent + received, start.elapsed())
}

/// Round trips of one small request at a time, in microseconds.
fn round_trips(to: SocketAddr, frame: &[u8], count: usize) -> Vec<f64> {
    let mut conn = TcpStream::connect(to).unwrap();
    conn.set_nodelay(true).unwrap();
    let mut buf = Vec::new();
    (0..count)
        .map(|_| {
            let start = Instant::now();
            conn.write_all(frame).unwrap();
            read_frame(&mut conn, &mut buf);
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}

struct Tap {
    child: Child,
    port: u16,
}

impl Tap {
    fn start(upstream: SocketAddr) -> Tap {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(BIN)
            .args(["tap", "--listen", &format!("127.0.0.1:{port}")])
            .args(["--upstream", &upstream.to_string()])
            .args(["--bodies", "none", "--out", "/dev/null", "--summary", "0"])
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.contains("listening on"), "{line}");
        Tap { child, port }
    }

    fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The tap's resident memory, in KiB.
    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
            .unwrap()
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User and system CPU seconds a process has used (`/proc/PID/stat`, in clock ticks of a
/// hundredth of a second).
fn cpu(pid: &str) -> (f64, f64) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's name in parentheses: state is field 3, utime 14 and stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields[i - 3].parse::<f64>().unwrap() / 100.0;
    (ticks(14), ticks(15))
}

/// CPU seconds (user, system) of the bench's own process (client and broker) and of the tap
/// while `f` runs.
fn measured<T>(tap: &Tap, f: impl FnOnce() -> T) -> (T, [f64; 4]) {
    let tap_pid = tap.child.id().to_string();
    let (own0, tap0) = (cpu("self"), cpu(&tap_pid));
    let out = f();
    let (own1, tap1) = (cpu("self"), cpu(&tap_pid));
    (
        out,
        [
            own1.0 - own0.0,
            own1.1 - own0.1,
            tap1.0 - tap0.0,
            tap1.1 - tap0.1,
        ],
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let quick = std::env::var("KW_BENCH").is_ok_and(|v| v == "quick");
    let (rounds, frames, trips) = if quick { (1, 8, 200) } else { (7, 256, 20_000) };
    let answers: &'static Answers = Box::leak(Box::new(answers()));
    let requests = requests();
    let broker = broker(answers);
    let tap = Tap::start(broker);
    let first_rss = tap.rss_kib();
    let mut rss = Vec::new();

    println!("Through `kafka-wire tap --bodies none` and straight to the broker, alternating, {rounds} round(s) each:");
    println!(
        "{frames} frames of 1 MiB per round and workload, {IN_FLIGHT} on their way at a time.\n"
    );
    println!("| workload | direct | through the tap | tap ÷ direct (median, lowest-highest) |");
    println!("|---|---|---|---|");
    // CPU seconds per GiB moved: [user, system] of client and broker, then of the tap.
    let mut cpu_rows = Vec::new();
    for (name, frame) in [
        ("Produce (1 MiB requests)", &requests.produce),
        ("Fetch (1 MiB responses)", &requests.fetch),
    ] {
        let (mut direct, mut tapped, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        let (mut cpu_direct, mut cpu_tapped, mut moved) = ([0.0; 4], [0.0; 4], 0.0);
        for _ in 0..rounds {
            let ((bytes, time), c) = measured(&tap, || pipeline(broker, frame, frames));
            let d = bytes as f64 / time.as_secs_f64() / MIB as f64;
            moved += bytes as f64 / (1u64 << 30) as f64;
            cpu_direct.iter_mut().zip(c).for_each(|(a, b)| *a += b);
            let ((bytes, time), c) = measured(&tap, || pipeline(tap.addr(), frame, frames));
            cpu_tapped.iter_mut().zip(c).for_each(|(a, b)| *a += b);
            let t = bytes as f64 / time.as_secs_f64() / MIB as f64;
            rss.push(tap.rss_kib());
            direct.push(d);
            tapped.push(t);
            ratios.push(t / d);
        }
        let (lo, hi) = (
            ratios.iter().copied().fold(f64::INFINITY, f64::min),
            ratios.iter().copied().fold(0.0, f64::max),
        );
        println!(
            "| {name} | {:.0} MiB/s | {:.0} MiB/s | **{:.2}** ({lo:.2}-{hi:.2}) |",
            median(direct),
            median(tapped),
            median(ratios)
        );
        cpu_rows.push((
            name,
            cpu_direct.map(|c| c / moved),
            cpu_tapped.map(|c| c / moved),
        ));
    }
    println!("\nCPU seconds per GiB moved (user + system), summed over the rounds:\n");
    println!(
        "| workload | direct: client and broker | through the tap: client and broker | the tap |"
    );
    println!("|---|---|---|---|");
    for (name, d, t) in cpu_rows {
        println!(
            "| {name} | {:.2} + {:.2} | {:.2} + {:.2} | {:.2} + {:.2} |",
            d[0], d[1], t[0], t[1], t[2], t[3]
        );
    }

    let mut direct = Vec::new();
    let mut tapped = Vec::new();
    for _ in 0..rounds {
        direct.extend(round_trips(broker, &requests.api_versions, trips / rounds));
        tapped.extend(round_trips(
            tap.addr(),
            &requests.api_versions,
            trips / rounds,
        ));
        rss.push(tap.rss_kib());
    }
    println!(
        "\nRound trips of one ApiVersions request at a time ({} each way):\n",
        direct.len()
    );
    println!("| | direct | through the tap | added by the tap |");
    println!("|---|---|---|---|");
    for (label, q) in [("median", 0.5), ("p99", 0.99)] {
        let (d, t) = (quantile(&direct, q), quantile(&tapped, q));
        println!("| {label} | {d:.0} µs | {t:.0} µs | {:.0} µs |", t - d);
    }
    println!(
        "\nThe tap's resident memory: {} KiB at the start, then after each round {} KiB.",
        first_rss,
        rss.iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    );
}
