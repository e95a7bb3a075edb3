//! `kafka-wire tap` against a direct connection, in one run: Produce v9 requests, Fetch v12
//! responses and Fetch v16 responses (no `NodeEndpoints`) of 1 MiB, straight to the broker,
//! through the tap moving large frames in the kernel, and through the tap with `--copy`, in
//! rounds whose order turns; then small requests one at a time, for the latency each adds. All
//! of it twice: with the client, the broker and the tap sharing every core, and with the tap on a
//! core of its own while the client and the broker share another.
//!
//! `cargo bench -p kafka-wire-analyser --bench tap` prints the tables of BENCHMARKS.md;
//! `KW_BENCH=quick` moves a few megabytes only, as a smoke test. The broker is this program again,
//! in a process of its own (so that its CPU time is its own), and does no work but reading a
//! frame and writing a prepared answer: the tap's cost shows where it shows most. Beside the tap
//! runs the floor of any proxy that splices: the same program again, forwarding with blocking
//! threads and nothing else. The processes' ids go to standard error at the start, for a
//! profiler to attach to.

use bytes::{Bytes, BytesMut};
use kafka_wire::frame::{encode_request, encode_response};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::*;
use kafka_wire::{KafkaString, Records, Uuid};
use rustix::thread::{sched_getaffinity, sched_setaffinity, CpuSet};
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
/// Set in the broker's process.
const BROKER_ENV: &str = "KW_TAP_BENCH_BROKER";
/// Set, to the broker's address, in the splice floor's process.
const FORWARDER_ENV: &str = "KW_TAP_BENCH_FORWARDER";

fn request(key: i16, version: i16, body: RequestBody) -> Vec<u8> {
    let header = RequestHeader::default()
        .with_request_api_key(key)
        .with_request_api_version(version)
        .with_client_id(Some(KafkaString::from_static("bench")));
    let mut out = BytesMut::new();
    encode_request(&mut out, &header, &body).unwrap();
    out.to_vec()
}

fn response(version: i16, body: ResponseBody) -> Vec<u8> {
    let mut out = BytesMut::new();
    encode_response(&mut out, &ResponseHeader::default(), &body, version).unwrap();
    out.to_vec()
}

fn records() -> Option<Records> {
    Some(Records::new(Bytes::from(
        (0..MIB).map(|i| (i * 31 % 251) as u8).collect::<Vec<u8>>(),
    )))
}

/// A workload: its request, and the broker's answer, by API key and version.
struct Workload {
    name: &'static str,
    request: Vec<u8>,
}

fn workloads() -> Vec<Workload> {
    let produce = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(30_000)
        .with_topic_data(vec![produce_request::TopicProduceData::default()
            .with_name("bench")
            .with_partition_data(vec![
                produce_request::PartitionProduceData::default().with_records(records()),
            ])]);
    let fetch = |version| {
        let body = FetchRequest::default()
            .with_max_wait_ms(500)
            .with_max_bytes(64 << 20)
            .with_topics(vec![fetch_request::FetchTopic::default()
                .with_topic("bench")
                .with_topic_id(Uuid::from_bytes([7; 16]))
                .with_partitions(vec![
                    fetch_request::FetchPartition::default().with_partition_max_bytes(2 << 20)
                ])]);
        request(1, version, RequestBody::Fetch(body))
    };
    vec![
        Workload {
            name: "Produce v9, 1 MiB requests",
            request: request(0, 9, RequestBody::Produce(produce)),
        },
        Workload {
            name: "Fetch v12, 1 MiB responses",
            request: fetch(12),
        },
        Workload {
            name: "Fetch v16, 1 MiB responses",
            request: fetch(16),
        },
    ]
}

/// The broker's answer to a request of API `key` at `version`.
fn answer(key: i16, version: i16) -> Vec<u8> {
    match key {
        0 => {
            let partition = produce_response::PartitionProduceResponse::default();
            let topic = produce_response::TopicProduceResponse::default()
                .with_name("bench")
                .with_partition_responses(vec![partition]);
            let body = ProduceResponse::default().with_responses(vec![topic]);
            response(version, ResponseBody::Produce(body))
        }
        1 => {
            let partition = fetch_response::PartitionData::default()
                .with_high_watermark(1 << 30)
                .with_records(records());
            let topic = fetch_response::FetchableTopicResponse::default()
                .with_topic("bench")
                .with_topic_id(Uuid::from_bytes([7; 16]))
                .with_partitions(vec![partition]);
            let body = FetchResponse::default().with_responses(vec![topic]);
            response(version, ResponseBody::Fetch(body))
        }
        _ => response(3, ResponseBody::ApiVersions(ApiVersionsResponse::default())),
    }
}

/// The broker's process: listens, says where on standard output, and answers every frame.
fn broker_main() {
    let answers: &'static [(i16, i16, Vec<u8>)] = Box::leak(Box::new(
        [(0, 9), (1, 12), (1, 16), (18, 3)].map(|(k, v)| (k, v, answer(k, v))),
    ));
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("{}", listener.local_addr().unwrap());
    for conn in listener.incoming() {
        let Ok(conn) = conn else { return };
        thread::spawn(move || serve(conn, answers));
    }
}

fn serve(conn: TcpStream, answers: &[(i16, i16, Vec<u8>)]) {
    conn.set_nodelay(true).unwrap();
    let mut reader = BufReader::with_capacity(256 << 10, conn.try_clone().unwrap());
    let mut writer = conn;
    let mut frame = Vec::new();
    while read_frame(&mut reader, &mut frame).is_ok() {
        let key = i16::from_be_bytes([frame[0], frame[1]]);
        let version = i16::from_be_bytes([frame[2], frame[3]]);
        let Some((_, _, answer)) = answers.iter().find(|a| (a.0, a.1) == (key, version)) else {
            return;
        };
        // The correlation id, after the size field of the answer.
        let mut out = answer.clone();
        out[4..8].copy_from_slice(&frame[4..8]);
        if writer.write_all(&out).is_err() {
            return;
        }
    }
}

fn read_frame(conn: &mut impl Read, buf: &mut Vec<u8>) -> std::io::Result<()> {
    let mut size = [0u8; 4];
    conn.read_exact(&mut size)?;
    buf.resize(u32::from_be_bytes(size) as usize, 0);
    conn.read_exact(buf)
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
        read_frame(&mut reader, &mut buf).unwrap();
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
            read_frame(&mut conn, &mut buf).unwrap();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect()
}

/// A child process of the bench: the broker or a tap.
struct Process {
    child: Child,
    addr: SocketAddr,
}

impl Process {
    fn broker() -> Process {
        Process::this_again(BROKER_ENV, "1")
    }

    fn forwarder(upstream: SocketAddr) -> Process {
        Process::this_again(FORWARDER_ENV, &upstream.to_string())
    }

    /// This program again, with `env` set to `value`: it says its address on standard output.
    fn this_again(env: &str, value: &str) -> Process {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .env(env, value)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line.trim().parse().unwrap();
        Process { child, addr }
    }

    fn tap(upstream: SocketAddr, extra: &[&str]) -> Process {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let mut child = Command::new(BIN)
            .args(["tap", "--listen", &format!("127.0.0.1:{port}")])
            .args(["--upstream", &upstream.to_string()])
            .args(["--bodies", "none", "--out", "/dev/null", "--summary", "0"])
            .args(extra)
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stderr.as_mut().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(line.contains("listening on"), "{line}");
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        Process { child, addr }
    }

    /// User and system CPU seconds the process has used.
    fn cpu(&self) -> [f64; 2] {
        cpu(&self.child.id().to_string())
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// User and system CPU seconds of a process (`/proc/PID/stat`, in clock ticks of a hundredth of
/// a second).
fn cpu(pid: &str) -> [f64; 2] {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // After the command's name in parentheses: state is field 3, utime 14 and stime 15.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks = |i: usize| fields[i - 3].parse::<f64>().unwrap() / 100.0;
    [ticks(14), ticks(15)]
}

/// The calling thread (and the threads and processes it starts) on these cores.
fn pin(cores: &[usize]) {
    let mut set = CpuSet::new();
    cores.iter().for_each(|c| set.set(*c));
    sched_setaffinity(None, &set).unwrap();
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

/// How the three processes sit on the cores.
struct Layout {
    name: &'static str,
    /// The cores of the client and the broker, and of the tap.
    cores: [Vec<usize>; 2],
}

/// The ways from the client to the broker: straight, through the tap, through the tap copying,
/// and through the floor of any proxy that moves bytes in the kernel ([`forwarder_main`]).
const PATHS: [&str; 4] = ["direct", "tap", "tap --copy", "splice floor"];

/// One layout's runs: every workload through every path, then the round trips.
fn run(layout: &Layout, rounds: usize, frames: usize, trips: usize) {
    // Each process starts on the cores of the thread that starts it. The broker first, so that
    // the others know where it is.
    pin(&layout.cores[0]);
    let broker = Process::broker();
    pin(&layout.cores[1]);
    let middle = [
        Process::tap(broker.addr, &[]),
        Process::tap(broker.addr, &["--copy"]),
        Process::forwarder(broker.addr),
    ];
    pin(&layout.cores[0]);
    eprintln!(
        "{}: broker pid {}, tap pid {}, tap --copy pid {}, floor pid {}",
        layout.name,
        broker.child.id(),
        middle[0].child.id(),
        middle[1].child.id(),
        middle[2].child.id()
    );
    let addrs = [broker.addr, middle[0].addr, middle[1].addr, middle[2].addr];
    let n = PATHS.len();
    println!("\n### {}\n", layout.name);
    println!("| workload | direct | tap ÷ direct | tap --copy ÷ direct | splice floor ÷ direct |");
    println!("|---|---|---|---|---|");
    let mut cpu_rows = Vec::new();
    // `KW_TAP_BENCH_ONLY=v16` runs only the workloads whose name holds that text, to profile.
    let only = std::env::var("KW_TAP_BENCH_ONLY").unwrap_or_default();
    for w in workloads().into_iter().filter(|w| w.name.contains(&only)) {
        let mut rates = vec![Vec::new(); n];
        // CPU seconds [client, broker, middle] × [user, system], and GiB moved, by path.
        let mut cpu_sums = vec![[[0.0; 2]; 3]; n];
        let mut moved = vec![0.0; n];
        for round in 0..rounds {
            for i in 0..n {
                // The order turns every round.
                let path = (i + round) % n;
                let mid = |p: usize| p.checked_sub(1).map_or([0.0; 2], |m| middle[m].cpu());
                let before = [cpu("self"), broker.cpu(), mid(path)];
                let (bytes, time) = pipeline(addrs[path], &w.request, frames);
                let after = [cpu("self"), broker.cpu(), mid(path)];
                for who in 0..3 {
                    for k in 0..2 {
                        cpu_sums[path][who][k] += after[who][k] - before[who][k];
                    }
                }
                moved[path] += bytes as f64 / (1u64 << 30) as f64;
                rates[path].push(bytes as f64 / time.as_secs_f64() / MIB as f64);
            }
        }
        // Per round, each path against the direct run of the same round.
        let ratio = |p: usize| {
            let v: Vec<f64> = (0..rounds).map(|r| rates[p][r] / rates[0][r]).collect();
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0, f64::max);
            format!("**{:.2}** ({lo:.2}-{hi:.2})", median(v))
        };
        println!(
            "| {} | {:.0} MiB/s | {} | {} | {} |",
            w.name,
            median(rates[0].clone()),
            ratio(1),
            ratio(2),
            ratio(3)
        );
        cpu_rows.push((w.name, cpu_sums, moved));
    }
    println!("\nCPU seconds per GiB moved, user + system, summed over the rounds:\n");
    println!("| workload | path | client | broker | tap (or floor) | all |");
    println!("|---|---|---|---|---|---|");
    for (name, sums, moved) in cpu_rows {
        for path in 0..n {
            let per = |who: usize| sums[path][who].map(|c| c / moved[path]);
            let all: f64 = (0..3).map(|w| per(w)[0] + per(w)[1]).sum();
            let cell = |who: usize| {
                let [u, s] = per(who);
                format!("{u:.2} + {s:.2}")
            };
            let mid = if path == 0 { "-".to_string() } else { cell(2) };
            println!(
                "| {name} | {} | {} | {} | {mid} | {all:.2} |",
                PATHS[path],
                cell(0),
                cell(1)
            );
        }
    }
    let small = request(
        18,
        3,
        RequestBody::ApiVersions(ApiVersionsRequest::default()),
    );
    let mut trips_by = vec![Vec::new(); n];
    for round in 0..rounds {
        for i in 0..n {
            let path = (i + round) % n;
            trips_by[path].extend(round_trips(addrs[path], &small, trips / rounds));
        }
    }
    println!(
        "\nRound trips of one ApiVersions request at a time ({} by each path), and what each path adds to direct:\n",
        trips_by[0].len()
    );
    println!("| | direct | tap | tap --copy | splice floor |");
    println!("|---|---|---|---|---|");
    for (label, q) in [("p50", 0.5), ("p99", 0.99)] {
        let at: Vec<f64> = trips_by.iter().map(|t| quantile(t, q)).collect();
        let added = |p: usize| format!("{:.0} µs ({:+.0})", at[p], at[p] - at[0]);
        println!(
            "| {label} | {:.0} µs | {} | {} | {} |",
            at[0],
            added(1),
            added(2),
            added(3)
        );
    }
}

/// The floor's process: forwards every connection to `upstream` with `splice(2)` through a
/// pipe, a blocking thread per direction, reading nothing: what moving the bytes costs, without
/// framing, lines or an async runtime.
fn forwarder_main(upstream: &str) {
    use rustix::pipe::{pipe, splice, SpliceFlags};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    println!("{}", listener.local_addr().unwrap());
    let one_way = |from: TcpStream, to: TcpStream| {
        thread::spawn(move || {
            let (out, into) = pipe().unwrap();
            let _ = rustix::pipe::fcntl_setpipe_size(&into, 1 << 20);
            loop {
                let n = match splice(&from, None, &into, None, 1 << 20, SpliceFlags::MOVE) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut left = n;
                while left > 0 {
                    match splice(&out, None, &to, None, left, SpliceFlags::MOVE) {
                        Ok(0) | Err(_) => return,
                        Ok(m) => left -= m,
                    }
                }
            }
            let _ = to.shutdown(std::net::Shutdown::Write);
        })
    };
    for client in listener.incoming() {
        let Ok(client) = client else { return };
        let server = TcpStream::connect(upstream).unwrap();
        client.set_nodelay(true).unwrap();
        server.set_nodelay(true).unwrap();
        one_way(client.try_clone().unwrap(), server.try_clone().unwrap());
        one_way(server, client);
    }
}

fn main() {
    if std::env::var_os(BROKER_ENV).is_some() {
        return broker_main();
    }
    if let Ok(upstream) = std::env::var(FORWARDER_ENV) {
        return forwarder_main(&upstream);
    }
    let quick = std::env::var("KW_BENCH").is_ok_and(|v| v == "quick");
    let (rounds, frames, trips) = if quick { (1, 8, 200) } else { (7, 256, 21_000) };
    let cores: Vec<usize> = {
        let set = sched_getaffinity(None).unwrap();
        (0..CpuSet::MAX_CPU).filter(|c| set.is_set(*c)).collect()
    };
    println!(
        "Straight to the broker, through `kafka-wire tap --bodies none`, through `kafka-wire tap --bodies none --copy` and through the splice floor, {rounds} round(s) each in turn;"
    );
    println!(
        "{frames} frames of 1 MiB per round and workload, {IN_FLIGHT} on their way at a time."
    );
    let mut layouts = vec![Layout {
        name: "Client, broker and tap sharing every core",
        cores: [cores.clone(), cores.clone()],
    }];
    if cores.len() >= 2 {
        layouts.push(Layout {
            name: "The tap on a core of its own, client and broker on another",
            cores: [vec![cores[0]], vec![cores[1]]],
        });
    }
    for layout in &layouts {
        run(layout, rounds, frames, trips);
    }
    pin(&cores);
}
