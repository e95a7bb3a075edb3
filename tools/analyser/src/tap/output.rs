//! What the tap prints: each exchange as one JSON line, written by a thread of its own from a
//! bounded queue, and the running counts behind the summary on standard error.
//!
//! Forwarding never waits for the output: an exchange that finds the queue full (by lines, or
//! by the bytes of the frames it holds) is dropped and counted, so that a slow terminal or a
//! full disk slows nothing and grows nothing.

use crate::exchange;
use bytes::Bytes;
use hdrhistogram::Histogram;
use kafka_wire::json::{at_version, JsonCodec};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{RequestHeader, ResponseHeader};
use kafka_wire::{ApiSet, Decode};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Microseconds since the epoch, as the lines give times.
pub fn now_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

/// One side of an exchange as it crossed the tap.
pub struct Part {
    pub time_us: u64,
    /// The frame's size, without its size field.
    pub size: usize,
    /// The whole frame (without its size field), or with `--bodies none` a copy of its header.
    pub bytes: Bytes,
}

/// A request and what became of it.
pub struct Exchange {
    pub connection: Arc<str>,
    pub key: i16,
    pub version: i16,
    pub correlation: i32,
    pub request: Part,
    pub response: Option<Part>,
    /// Why there is no response, when there is none.
    pub note: Option<String>,
}

enum Item {
    Exchange(Exchange),
    Error {
        connection: Arc<str>,
        time_us: u64,
        what: String,
    },
}

impl Item {
    /// The bytes of frames the item keeps alive while it waits.
    fn weight(&self) -> usize {
        match self {
            Item::Exchange(e) => e
                .request
                .bytes
                .len()
                .saturating_add(e.response.as_ref().map_or(0, |r| r.bytes.len())),
            Item::Error { what, .. } => what.len(),
        }
    }
}

/// Whether lines carry the bodies, or headers, sizes and times only.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bodies {
    Full,
    None,
}

/// The queue's bounds.
pub struct Bounds {
    pub lines: usize,
    pub bytes: usize,
}

/// The counts of the summary.
pub struct Counts {
    started: Instant,
    requests: BTreeMap<i16, u64>,
    to_brokers: u64,
    to_clients: u64,
    latency_us: Histogram<u64>,
    unanswered: u64,
    rewritten: u64,
    spliced: u64,
    errors: u64,
    open: u64,
    connections: u64,
}

/// The sending end: where connections put their exchanges.
pub struct Output {
    queue: Mutex<Option<SyncSender<Item>>>,
    queued_bytes: Arc<AtomicUsize>,
    max_bytes: usize,
    bodies: Bodies,
    /// The APIs to print (all when `None`); the counts cover every API.
    apis: Option<Vec<i16>>,
    dropped: AtomicU64,
    counts: Mutex<Counts>,
}

/// The writing thread's end of the queue.
pub struct Writer {
    queue: Receiver<Item>,
    queued_bytes: Arc<AtomicUsize>,
    bodies: Bodies,
}

pub fn output(bounds: &Bounds, bodies: Bodies, apis: Option<Vec<i16>>) -> (Output, Writer) {
    let (tx, rx) = std::sync::mpsc::sync_channel(bounds.lines.max(1));
    let queued_bytes = Arc::new(AtomicUsize::new(0));
    let counts = Counts {
        started: Instant::now(),
        requests: BTreeMap::new(),
        to_brokers: 0,
        to_clients: 0,
        // Three significant figures, up to an hour: a few tens of kilobytes, whatever the run.
        latency_us: Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("the bounds are valid"),
        unanswered: 0,
        rewritten: 0,
        spliced: 0,
        errors: 0,
        open: 0,
        connections: 0,
    };
    let output = Output {
        queue: Mutex::new(Some(tx)),
        queued_bytes: Arc::clone(&queued_bytes),
        max_bytes: bounds.bytes,
        bodies,
        apis,
        dropped: AtomicU64::new(0),
        counts: Mutex::new(counts),
    };
    let writer = Writer {
        queue: rx,
        queued_bytes,
        bodies,
    };
    (output, writer)
}

impl Output {
    pub fn bodies(&self) -> Bodies {
        self.bodies
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, item: Item) {
        let weight = item.weight();
        let queued = self.queued_bytes.fetch_add(weight, Ordering::Relaxed);
        let sent = if queued.saturating_add(weight) > self.max_bytes && queued > 0 {
            false
        } else {
            let queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
            queue.as_ref().is_some_and(|q| q.try_send(item).is_ok())
        };
        if !sent {
            self.queued_bytes.fetch_sub(weight, Ordering::Relaxed);
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A request whose frame went to the broker.
    pub fn request_sent(&self, key: i16, size: usize) {
        let mut c = self.counts();
        *c.requests.entry(key).or_default() += 1;
        c.to_brokers = c.to_brokers.saturating_add(size as u64 + 4);
    }

    /// A response whose frame went to the client.
    pub fn response_sent(&self, size: usize, latency_us: Option<u64>, rewritten: bool) {
        let mut c = self.counts();
        c.to_clients = c.to_clients.saturating_add(size as u64 + 4);
        if let Some(l) = latency_us {
            c.latency_us.saturating_record(l);
        }
        c.rewritten += u64::from(rewritten);
    }

    /// Bytes that went on from a pipe, never through the tap's memory.
    pub fn spliced(&self, bytes: u64) {
        if bytes > 0 {
            let mut c = self.counts();
            c.spliced = c.spliced.saturating_add(bytes);
        }
    }

    /// Whether exchanges of API `key` are printed (`--api`).
    pub fn prints(&self, key: i16) -> bool {
        self.apis.as_ref().is_none_or(|apis| apis.contains(&key))
    }

    /// An exchange, finished: printed unless `--api` leaves its API out.
    pub fn exchange(&self, e: Exchange) {
        if e.response.is_none() {
            self.counts().unanswered += 1;
        }
        if !self.prints(e.key) {
            return;
        }
        self.push(Item::Exchange(e));
    }

    /// Something that went wrong on a connection.
    pub fn error(&self, connection: &Arc<str>, what: String) {
        self.counts().errors += 1;
        self.push(Item::Error {
            connection: Arc::clone(connection),
            time_us: now_us(),
            what,
        });
    }

    pub fn connection_opened(&self) {
        let mut c = self.counts();
        c.open += 1;
        c.connections += 1;
    }

    pub fn connection_closed(&self) {
        let mut c = self.counts();
        c.open = c.open.saturating_sub(1);
    }

    /// No more lines: the writer finishes what waits and stops.
    pub fn close(&self) {
        self.queue.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// The summary line: requests by API, bytes each way, latency percentiles, and what was
    /// dropped or went wrong.
    pub fn summary(&self) -> String {
        let c = self.counts();
        let total: u64 = c.requests.values().sum();
        let by_api: Vec<String> = c
            .requests
            .iter()
            .map(|(key, n)| {
                let name = RequestBody::find(*key)
                    .map_or_else(|| format!("key {key}"), |a| a.name().to_string());
                format!("{name} {n}")
            })
            .collect();
        let h = &c.latency_us;
        let latency = if h.is_empty() {
            "no responses yet".to_string()
        } else {
            format!(
                "latency p50 {} µs, p90 {} µs, p99 {} µs, max {} µs",
                h.value_at_quantile(0.5),
                h.value_at_quantile(0.9),
                h.value_at_quantile(0.99),
                h.max()
            )
        };
        format!(
            "kafka-wire tap: {:.1} s: {total} requests ({}); {} bytes to brokers, {} bytes to clients, {} of them spliced; {latency}; {} responses rewritten; {} without response; connections {} open, {} in all; {} lines dropped; {} errors",
            c.started.elapsed().as_secs_f64(),
            if by_api.is_empty() { "none".to_string() } else { by_api.join(", ") },
            c.to_brokers,
            c.to_clients,
            c.spliced,
            c.rewritten,
            c.unanswered,
            c.open,
            c.connections,
            self.dropped.load(Ordering::Relaxed),
            c.errors,
        )
    }
}

impl Writer {
    /// Writes every line as it comes, flushing whenever the queue is empty, until the queue
    /// is closed and empty or `out` fails.
    pub fn run(self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
        loop {
            let item = match self.queue.try_recv() {
                Ok(item) => item,
                Err(TryRecvError::Empty) => {
                    out.flush()?;
                    match self.queue.recv() {
                        Ok(item) => item,
                        Err(_) => break,
                    }
                }
                Err(TryRecvError::Disconnected) => break,
            };
            let weight = item.weight();
            let line = self.line(item);
            self.queued_bytes.fetch_sub(weight, Ordering::Relaxed);
            serde_json::to_writer(&mut out, &line)?;
            out.write_all(b"\n")?;
        }
        out.flush()
    }

    fn line(&self, item: Item) -> Value {
        let e = match item {
            Item::Error {
                connection,
                time_us,
                what,
            } => return exchange::error_line(&connection, time_us, &what),
            Item::Exchange(e) => e,
        };
        let request = match self.bodies {
            Bodies::Full => exchange::request_part(e.request.bytes, e.request.time_us),
            Bodies::None => {
                let header_version = RequestBody::find(e.key).map(|a| a.header_version(e.version));
                header_part::<RequestHeader>(&e.request, header_version, e.key)
            }
        };
        let request = sized(request, e.request.size);
        let response = e.response.map(|r| {
            let part = match self.bodies {
                Bodies::Full => exchange::response_part(r.bytes, e.key, e.version, r.time_us),
                Bodies::None => {
                    let header_version =
                        ResponseBody::find(e.key).map(|a| a.header_version(e.version));
                    header_part::<ResponseHeader>(&r, header_version, e.key)
                }
            };
            sized(part, r.size)
        });
        let latency = response
            .as_ref()
            .and_then(|r| r["timeUs"].as_u64())
            .map(|t| t.saturating_sub(e.request.time_us));
        let mut line = exchange::line(
            &e.connection,
            e.key,
            e.version,
            e.correlation,
            request,
            response,
        );
        if let Some(latency) = latency {
            line["latencyUs"] = json!(latency);
        }
        if let Some(note) = e.note {
            line["note"] = json!(note);
        }
        line
    }
}

fn sized(mut part: Value, size: usize) -> Value {
    part["bytes"] = json!(size);
    part
}

/// A side's time and header, read from the copy of its header at `header_version` (`None`
/// when the API is not known, and neither is the header's form).
fn header_part<H: Decode + JsonCodec>(p: &Part, header_version: Option<i16>, key: i16) -> Value {
    let mut part = json!({ "timeUs": p.time_us });
    match header_version.map(|v| (v, H::decode(&mut p.bytes.clone(), v))) {
        Some((v, Ok(h))) => part["header"] = json!(at_version(&h, v)),
        Some((_, Err(e))) => part["error"] = json!(e.to_string()),
        None => part["error"] = json!(format!("API key {key} is not known")),
    }
    part
}
