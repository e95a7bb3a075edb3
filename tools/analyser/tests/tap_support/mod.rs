//! What the tap's integration tests share: the tap as a child process, brokers of the tests' own
//! on loopback, and request frames written by hand.
#![allow(dead_code)]

use kafka_wire::messages::api::RequestBody;
use kafka_wire::ApiSet;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

pub const BIN: &str = env!("CARGO_BIN_EXE_kafka-wire");

/// A port free now, with the next `more` ones.
pub fn free_ports(more: u16) -> u16 {
    for _ in 0..100 {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if port < u16::MAX - more
            && (1..=more).all(|i| TcpListener::bind(("127.0.0.1", port + i)).is_ok())
        {
            return port;
        }
    }
    panic!("no free ports");
}

pub struct Tap {
    pub child: Child,
    pub port: u16,
    pub stderr: BufReader<ChildStderr>,
}

impl Tap {
    /// Starts the tap in front of `upstream` and waits until it listens.
    pub fn start(upstream: SocketAddr, args: &[&str], stdout: Stdio) -> Tap {
        let port = free_ports(3);
        let mut child = Command::new(BIN)
            .args(["tap", "--listen", &format!("127.0.0.1:{port}")])
            .args(["--upstream", &upstream.to_string(), "--summary", "0"])
            .args(args)
            .stdout(stdout)
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        assert!(line.contains("listening on"), "the tap said: {line}");
        Tap {
            child,
            port,
            stderr,
        }
    }

    pub fn connect(&self) -> TcpStream {
        TcpStream::connect(("127.0.0.1", self.port)).unwrap()
    }

    /// SIGTERM, then what the tap printed on standard output (which must be piped) and, after
    /// it started, on standard error.
    pub fn stop_with_output(mut self) -> (String, String) {
        let mut stdout = self.child.stdout.take().expect("standard output piped");
        let reading = thread::spawn(move || {
            let mut out = String::new();
            stdout.read_to_string(&mut out).unwrap();
            out
        });
        let summary = self.stop();
        (reading.join().unwrap(), summary)
    }

    /// SIGTERM, then everything the tap printed on standard error after it started.
    pub fn stop(self) -> String {
        self.stop_by("-TERM")
    }

    /// `signal` (as `kill` names it), then everything the tap printed on standard error after
    /// it started.
    pub fn stop_by(mut self, signal: &str) -> String {
        let status = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let mut rest = String::new();
        self.stderr.read_to_string(&mut rest).unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the tap exited with {status}: {rest}");
        // A task that panicked would end its connection quietly, but for this.
        assert!(!rest.contains("panicked"), "{rest}");
        rest
    }
}

/// A broker of the test's: answers each request frame with what `answer` gives (nothing for
/// `None`), and keeps every byte it received and sent.
pub struct Broker {
    pub addr: SocketAddr,
    pub received: Arc<Mutex<Vec<u8>>>,
    pub sent: Arc<Mutex<Vec<u8>>>,
    /// Request frames read whole, each answered (in `sent`) or not by now.
    pub handled: Arc<AtomicUsize>,
}

pub type Answer = fn(i16, i16, i32, &[u8]) -> Option<Vec<u8>>;

impl Broker {
    pub fn start(answer: Answer) -> Broker {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let sent = Arc::new(Mutex::new(Vec::new()));
        let handled = Arc::new(AtomicUsize::new(0));
        let (r, s, h) = (
            Arc::clone(&received),
            Arc::clone(&sent),
            Arc::clone(&handled),
        );
        thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                let (r, s, h) = (Arc::clone(&r), Arc::clone(&s), Arc::clone(&h));
                thread::spawn(move || {
                    let mut size = [0u8; 4];
                    while conn.read_exact(&mut size).is_ok() {
                        let mut frame = vec![0; u32::from_be_bytes(size) as usize];
                        if conn.read_exact(&mut frame).is_err() {
                            return;
                        }
                        r.lock().unwrap().extend_from_slice(&size);
                        r.lock().unwrap().extend_from_slice(&frame);
                        let key = i16::from_be_bytes([frame[0], frame[1]]);
                        let version = i16::from_be_bytes([frame[2], frame[3]]);
                        let correlation = i32::from_be_bytes(frame[4..8].try_into().unwrap());
                        let response = answer(key, version, correlation, &frame);
                        if let Some(response) = &response {
                            s.lock().unwrap().extend_from_slice(response);
                        }
                        h.fetch_add(1, Ordering::SeqCst);
                        if let Some(response) = response {
                            if conn.write_all(&response).is_err() {
                                return;
                            }
                        }
                    }
                });
            }
        });
        Broker {
            addr,
            received,
            sent,
            handled,
        }
    }

    pub fn received_frames(&self) -> usize {
        self.handled.load(Ordering::SeqCst)
    }
}

/// A request frame written by hand: size, key, version, correlation id, client id "tap-test"
/// from header version 1, the header's tagged section from header version 2, then `body`.
pub fn request_frame(key: i16, version: i16, correlation: i32, body: &[u8]) -> Vec<u8> {
    let header_version = RequestBody::find(key).unwrap().header_version(version);
    let mut frame = Vec::new();
    frame.extend_from_slice(&key.to_be_bytes());
    frame.extend_from_slice(&version.to_be_bytes());
    frame.extend_from_slice(&correlation.to_be_bytes());
    if header_version >= 1 {
        frame.extend_from_slice(&8i16.to_be_bytes());
        frame.extend_from_slice(b"tap-test");
    }
    if header_version >= 2 {
        frame.push(0);
    }
    frame.extend_from_slice(body);
    let mut sized = (frame.len() as u32).to_be_bytes().to_vec();
    sized.extend(frame);
    sized
}

pub fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

pub fn exchange(conn: &mut TcpStream, request: &[u8]) -> Vec<u8> {
    conn.write_all(request).unwrap();
    let mut size = [0u8; 4];
    conn.read_exact(&mut size).unwrap();
    let mut frame = vec![0; u32::from_be_bytes(size) as usize];
    conn.read_exact(&mut frame).unwrap();
    frame
}

/// The tap's data segment (heap and anonymous maps), in KiB.
pub fn data_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmData:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .unwrap()
}
