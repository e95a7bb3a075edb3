//! Side by side: kafka-wire and the `kafka-protocol` crate on the same work, in one run.
//!
//! Each comparison runs three passes:
//! 1. one call of each under a counting allocator, for the allocations (count and bytes) the
//!    call makes;
//! 2. criterion's own measurement of each (skipped with `KW_BENCH=quick`), for its statistics
//!    and its saved baselines;
//! 3. the figure the table reports: both timed in alternation, in rounds of a few tens of
//!    milliseconds each, which side goes first changing every round. The ratio of each round
//!    (peer time ÷ ours) is taken, and the table shows the median over the rounds with the
//!    lowest and highest. Timings on a small shared machine drift by tens of percent over
//!    seconds; alternating keeps both sides under the same drift, so the ratio holds where the
//!    absolute times do not.
//!
//! Reading rows model an application that reads each frame into a buffer of its own: the buffer
//! is allocated before each call and freed after it ([`Compare::framed`]). By default neither is
//! timed, only the reading between them; `KW_BENCH_FRAME=inside` times them with the reading,
//! which adds the same allocation and release to both sides, and `KW_BENCH_FRAME=none` leaves
//! the buffer out, for a loop that reads the same bytes with the allocator and the caches in
//! the state the loop alone leaves them in.
//!
//! `KW_BENCH=quick` runs few short rounds and no criterion pass: a smoke test for CI.
//! `KW_BENCH_ONLY=<text>` runs only the comparisons whose "group case" contains the text (for a
//! profiler), and `KW_BENCH_ROUNDS=<n>` sets the number of rounds. `KW_BENCH_PROFILE=kafka-wire`
//! (or `other`) times that side alone, in the same rounds, without criterion or a table: what a
//! profiler then records is one side's work. With `KW_BENCH_CALLS=<n>` as well, that side is
//! called exactly `n` times and not timed: for `valgrind --tool=callgrind`, whose instruction
//! counts hold on a busy machine where times do not (run it with `n` and with 0, and subtract).

use criterion::{BenchmarkId, Criterion, Throughput};
use kafka_wire_alloc_count::{Region, Usage};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: kafka_wire_alloc_count::Counting = kafka_wire_alloc_count::Counting;

/// One line of the table.
pub struct Row {
    /// Against a reference (a hand-written codec, a copy of the bytes) rather than the peer.
    pub reference: Option<String>,
    pub group: String,
    pub case: String,
    /// Median time per call, nanoseconds.
    pub ours_ns: f64,
    pub peer_ns: f64,
    /// Median, lowest and highest of the per-round ratios (peer time ÷ ours).
    pub ratio: (f64, f64, f64),
    pub ours_alloc: Usage,
    pub peer_alloc: Usage,
}

pub struct Compare {
    criterion: Option<Criterion>,
    /// Where a reading row's frame buffer is allocated and freed.
    frame: Frame,
    rounds: usize,
    round_time: Duration,
    only: Option<String>,
    profile: Option<Side>,
    rows: Vec<Row>,
}

/// Where a reading row's frame buffer is allocated and freed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Frame {
    /// Around each call, outside the timed span.
    Outside,
    /// Around each call, inside the timed span.
    Inside,
    /// Not at all.
    None,
}

/// The side a profiling run times.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours,
    Other,
}

impl Compare {
    /// Reads `KW_BENCH` (`quick` for the smoke run) and criterion's command line.
    pub fn from_env() -> Self {
        let quick = std::env::var("KW_BENCH").is_ok_and(|v| v == "quick");
        let profile = std::env::var("KW_BENCH_PROFILE")
            .ok()
            .map(|side| match side.as_str() {
                "kafka-wire" => Side::Ours,
                "other" => Side::Other,
                _ => panic!("KW_BENCH_PROFILE is `kafka-wire` or `other`, not `{side}`"),
            });
        Compare {
            criterion: (!quick && profile.is_none()).then(|| {
                Criterion::default()
                    .warm_up_time(Duration::from_millis(500))
                    .measurement_time(Duration::from_secs(2))
                    .sample_size(30)
                    .configure_from_args()
            }),
            frame: match std::env::var("KW_BENCH_FRAME").as_deref() {
                Ok("inside") => Frame::Inside,
                Ok("none") => Frame::None,
                Ok("outside") | Err(_) => Frame::Outside,
                Ok(other) => {
                    panic!("KW_BENCH_FRAME is `outside`, `inside` or `none`, not `{other}`")
                }
            },
            rounds: std::env::var("KW_BENCH_ROUNDS")
                .ok()
                .and_then(|r| r.parse().ok())
                .unwrap_or(if quick { 3 } else { 31 }),
            round_time: Duration::from_millis(if quick { 5 } else { 25 }),
            only: std::env::var("KW_BENCH_ONLY").ok(),
            profile,
            rows: Vec::new(),
        }
    }

    /// Whether any of `cases` of `group` runs: a benchmark can skip building and checking what
    /// `KW_BENCH_ONLY` leaves out.
    // Each benchmark compiles this module on its own, and the records one has no use for it.
    #[allow(dead_code)]
    pub fn wants(&self, group: &str, cases: &[&str]) -> bool {
        cases.iter().any(|case| self.selects(group, case))
    }

    fn selects(&self, group: &str, case: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| format!("{group} {case}").contains(only.as_str()))
    }

    /// Compares `ours` and `peer`, two ways of doing the same work on `bytes` bytes.
    pub fn run<A, B>(
        &mut self,
        group: &str,
        case: &str,
        bytes: usize,
        ours: impl FnMut() -> A,
        peer: impl FnMut() -> B,
    ) {
        self.row(None, group, case, bytes, None, ours, peer);
    }

    /// [`run`](Self::run) for two ways of reading a frame of `bytes` bytes: before each call a
    /// buffer of the frame's size is allocated, and after it freed, as a socket reader does
    /// with each frame it reads; the buffer is not written, as the bytes read are the input.
    /// Only the reading is timed, unless `KW_BENCH_FRAME=inside`; the allocations reported
    /// are the reading's own, or with the buffer's when it is inside.
    // The records benchmark compiles this module too, and reads no frames.
    #[allow(dead_code)]
    pub fn framed<A, B>(
        &mut self,
        group: &str,
        case: &str,
        bytes: usize,
        ours: impl FnMut() -> A,
        peer: impl FnMut() -> B,
    ) {
        self.row(None, group, case, bytes, Some(bytes), ours, peer);
    }

    /// Times `ours` against `reference`, the least the work can cost (named `what`): a
    /// straight-line codec written by hand for one message, or a copy of the bytes.
    pub fn reference<A, B>(
        &mut self,
        what: &str,
        group: &str,
        case: &str,
        bytes: usize,
        ours: impl FnMut() -> A,
        reference: impl FnMut() -> B,
    ) {
        self.row(
            Some(what.to_owned()),
            group,
            case,
            bytes,
            None,
            ours,
            reference,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn row<A, B>(
        &mut self,
        reference: Option<String>,
        group: &str,
        case: &str,
        bytes: usize,
        frame: Option<usize>,
        ours: impl FnMut() -> A,
        peer: impl FnMut() -> B,
    ) {
        if !self.selects(group, case) {
            return;
        }
        let frame = frame.filter(|_| self.frame != Frame::None);
        let inside = self.frame == Frame::Inside;
        let mut ours = Timed::new(ours, frame, inside);
        let mut peer = Timed::new(peer, frame, inside);
        if let Some(side) = self.profile {
            if let Some(n) = std::env::var("KW_BENCH_CALLS")
                .ok()
                .and_then(|n| n.parse().ok())
            {
                for _ in 0..n {
                    match side {
                        Side::Ours => ours.untimed(),
                        Side::Other => peer.untimed(),
                    }
                }
                return;
            }
            let calls = self.calls_per_round(&mut ours, &mut peer);
            let mut ns: Vec<f64> = (0..self.rounds)
                .map(|_| match side {
                    Side::Ours => ours.time(calls),
                    Side::Other => peer.time(calls),
                } * 1e9)
                .collect();
            let who = match side {
                Side::Ours => "kafka-wire",
                Side::Other => reference.as_deref().unwrap_or("kafka-protocol"),
            };
            eprintln!(
                "{group} {case}: {who} alone, {} per call (median of {} rounds)",
                show(median(&mut ns)),
                self.rounds
            );
            return;
        }
        let ours_alloc = ours.usage();
        let peer_alloc = peer.usage();
        if let Some(c) = &mut self.criterion {
            let mut g = c.benchmark_group(group);
            g.throughput(Throughput::Bytes(bytes as u64));
            // Against a reference, kafka-wire's side is the one of its row against
            // kafka-protocol, under the same group and case: criterion measures it there.
            match &reference {
                None => {
                    g.bench_function(BenchmarkId::new("kafka-wire", case), |b| ours.criterion(b));
                    g.bench_function(BenchmarkId::new("kafka-protocol", case), |b| {
                        peer.criterion(b)
                    });
                }
                Some(what) => {
                    g.bench_function(BenchmarkId::new(what.as_str(), case), |b| peer.criterion(b));
                }
            }
            g.finish();
        }
        let calls = self.calls_per_round(&mut ours, &mut peer);
        let (mut ours_ns, mut peer_ns, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..self.rounds {
            let (o, p) = if round % 2 == 0 {
                let o = ours.time(calls);
                (o, peer.time(calls))
            } else {
                let p = peer.time(calls);
                (ours.time(calls), p)
            };
            ours_ns.push(o * 1e9);
            peer_ns.push(p * 1e9);
            ratios.push(p / o);
        }
        let row = Row {
            reference,
            group: group.to_owned(),
            case: case.to_owned(),
            ours_ns: median(&mut ours_ns),
            peer_ns: median(&mut peer_ns),
            ratio: (
                median(&mut ratios),
                ratios.iter().copied().fold(f64::INFINITY, f64::min),
                ratios.iter().copied().fold(0.0, f64::max),
            ),
            ours_alloc,
            peer_alloc,
        };
        eprintln!(
            "{group} {case}: kafka-wire {:.1} µs, {} {:.1} µs, ratio {:.2}",
            row.ours_ns / 1e3,
            row.reference.as_deref().unwrap_or("kafka-protocol"),
            row.peer_ns / 1e3,
            row.ratio.0
        );
        self.rows.push(row);
    }

    /// Calls per round: about `round_time` of the slower side, once both have run once (a first
    /// call can take many times longer: a large buffer's first allocation maps fresh pages).
    fn calls_per_round<A, B>(
        &self,
        ours: &mut Timed<impl FnMut() -> A>,
        peer: &mut Timed<impl FnMut() -> B>,
    ) -> usize {
        ours.time(1);
        peer.time(1);
        let once = ours.time(3).max(peer.time(3));
        ours.batch_for(once);
        peer.batch_for(once);
        ((self.round_time.as_secs_f64() / once.max(1e-9)) as usize).max(1)
    }

    /// Prints the table (Markdown) and hands criterion its summary.
    pub fn finish(self, title: &str) {
        if self.profile.is_some() {
            return;
        }
        println!("\n{title}: time per call (medians of {} alternating rounds); ratio = kafka-protocol's time ÷ kafka-wire's (median, lowest-highest); allocations per call (count / bytes)\n", self.rounds);
        println!(
            "Reading rows: the frame's buffer allocated and freed {} the timed span.\n",
            match self.frame {
                Frame::Outside => "outside",
                Frame::Inside => "inside",
                Frame::None => "not at all, around",
            }
        );
        // The figures depend on what else the machine was doing: say how busy it was (Linux).
        if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
            let load: Vec<&str> = load.split_whitespace().take(3).collect();
            println!(
                "Load average at the end of the run (1, 5, 15 minutes): {}\n",
                load.join(", ")
            );
        }
        println!("| | case | kafka-wire | kafka-protocol | ratio | allocations, kafka-wire | allocations, kafka-protocol |");
        println!("|---|---|---|---|---|---|---|");
        for r in self.rows.iter().filter(|r| r.reference.is_none()) {
            println!(
                "| {} | {} | {} | {} | **{:.2}×** ({:.2}-{:.2}) | {} / {} | {} / {} |",
                r.group,
                r.case,
                show(r.ours_ns),
                show(r.peer_ns),
                r.ratio.0,
                r.ratio.1,
                r.ratio.2,
                r.ours_alloc.count,
                r.ours_alloc.total,
                r.peer_alloc.count,
                r.peer_alloc.total,
            );
        }
        let references: Vec<&Row> = self.rows.iter().filter(|r| r.reference.is_some()).collect();
        if !references.is_empty() {
            println!("\nAgainst the least the work can cost: kafka-wire's time ÷ the reference's (1.00 is as fast)\n");
            println!("| | case | reference | kafka-wire | reference's time | kafka-wire ÷ reference | allocations, kafka-wire | allocations, reference |");
            println!("|---|---|---|---|---|---|---|---|");
            for r in references {
                println!(
                    "| {} | {} | {} | {} | {} | **{:.2}** ({:.2}-{:.2}) | {} / {} | {} / {} |",
                    r.group,
                    r.case,
                    r.reference.as_deref().unwrap_or_default(),
                    show(r.ours_ns),
                    show(r.peer_ns),
                    1.0 / r.ratio.0,
                    1.0 / r.ratio.2,
                    1.0 / r.ratio.1,
                    r.ours_alloc.count,
                    r.ours_alloc.total,
                    r.peer_alloc.count,
                    r.peer_alloc.total,
                );
            }
        }
        if let Some(c) = self.criterion {
            c.final_summary();
        }
    }
}

/// One side of a row, and the frame buffer its calls read in, if any.
struct Timed<F> {
    call: F,
    /// The size of the buffer allocated before each call and freed after it.
    frame: Option<usize>,
    /// Whether that buffer's allocation and release are timed with the call.
    inside: bool,
    /// Calls made between two readings of the clock, their buffers allocated before the first
    /// and freed after the last: one, unless a call is so short that the clock's own cost would
    /// show.
    batch: usize,
}

/// The least time between two readings of the clock when a frame's buffers are outside the
/// timed span: reading the clock costs tens of nanoseconds.
const LEAST_SPAN: Duration = Duration::from_micros(20);

impl<T, F: FnMut() -> T> Timed<F> {
    fn new(call: F, frame: Option<usize>, inside: bool) -> Self {
        Timed {
            call,
            frame,
            inside,
            batch: 1,
        }
    }

    /// Sets the batch for calls that take `once` seconds each.
    fn batch_for(&mut self, once: f64) {
        self.batch = ((LEAST_SPAN.as_secs_f64() / once.max(1e-9)).ceil() as usize).max(1);
    }

    /// One call with its buffer, if it has one, as the timed ones make it.
    fn untimed(&mut self) {
        let frame = self
            .frame
            .map(|len| black_box(Vec::<u8>::with_capacity(len)));
        drop(black_box((self.call)()));
        drop(frame);
    }

    /// The allocations of one call: with its buffer when the buffer is timed with it.
    fn usage(&mut self) -> Usage {
        match (self.frame, self.inside) {
            (Some(len), false) => {
                let frame = black_box(Vec::<u8>::with_capacity(len));
                let region = Region::new();
                drop(black_box((self.call)()));
                let usage = region.usage();
                drop(frame);
                usage
            }
            _ => {
                let region = Region::new();
                self.untimed();
                region.usage()
            }
        }
    }

    /// Seconds per call, over `calls` calls.
    fn time(&mut self, calls: usize) -> f64 {
        match (self.frame, self.inside) {
            (Some(len), false) => {
                let mut spent = Duration::ZERO;
                let mut left = calls;
                while left > 0 {
                    let n = left.min(self.batch);
                    let frames: Vec<Vec<u8>> =
                        (0..n).map(|_| black_box(Vec::with_capacity(len))).collect();
                    let start = Instant::now();
                    for _ in 0..n {
                        drop(black_box((self.call)()));
                    }
                    spent += start.elapsed();
                    drop(black_box(frames));
                    left -= n;
                }
                spent.as_secs_f64() / calls as f64
            }
            _ => {
                let start = Instant::now();
                for _ in 0..calls {
                    self.untimed();
                }
                start.elapsed().as_secs_f64() / calls as f64
            }
        }
    }

    /// Criterion's measurement of the call, its buffer treated as [`time`](Self::time) does.
    fn criterion(&mut self, b: &mut criterion::Bencher<'_>) {
        match (self.frame, self.inside) {
            (Some(len), false) => b.iter_batched(
                || Vec::<u8>::with_capacity(len),
                |frame| {
                    drop(black_box((self.call)()));
                    frame
                },
                criterion::BatchSize::SmallInput,
            ),
            _ => b.iter(|| self.untimed()),
        }
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn show(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}
