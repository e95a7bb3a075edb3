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
    rounds: usize,
    round_time: Duration,
    only: Option<String>,
    profile: Option<Side>,
    rows: Vec<Row>,
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
        self.row(None, group, case, bytes, ours, peer);
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
        self.row(Some(what.to_owned()), group, case, bytes, ours, reference);
    }

    #[allow(clippy::too_many_arguments)]
    fn row<A, B>(
        &mut self,
        reference: Option<String>,
        group: &str,
        case: &str,
        bytes: usize,
        mut ours: impl FnMut() -> A,
        mut peer: impl FnMut() -> B,
    ) {
        if !self.selects(group, case) {
            return;
        }
        if let Some(side) = self.profile {
            if let Some(n) = std::env::var("KW_BENCH_CALLS")
                .ok()
                .and_then(|n| n.parse().ok())
            {
                for _ in 0..n {
                    match side {
                        Side::Ours => drop(black_box(ours())),
                        Side::Other => drop(black_box(peer())),
                    }
                }
                return;
            }
            let calls = self.calls_per_round(&mut ours, &mut peer);
            let mut ns: Vec<f64> = (0..self.rounds)
                .map(|_| match side {
                    Side::Ours => time(&mut ours, calls),
                    Side::Other => time(&mut peer, calls),
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
        let ours_alloc = usage(&mut ours);
        let peer_alloc = usage(&mut peer);
        if let Some(c) = &mut self.criterion {
            let mut g = c.benchmark_group(group);
            g.throughput(Throughput::Bytes(bytes as u64));
            // Against a reference, kafka-wire's side is the one of its row against
            // kafka-protocol, under the same group and case: criterion measures it there.
            match &reference {
                None => {
                    g.bench_function(BenchmarkId::new("kafka-wire", case), |b| b.iter(&mut ours));
                    g.bench_function(BenchmarkId::new("kafka-protocol", case), |b| {
                        b.iter(&mut peer)
                    });
                }
                Some(what) => {
                    g.bench_function(BenchmarkId::new(what.as_str(), case), |b| b.iter(&mut peer));
                }
            }
            g.finish();
        }
        let calls = self.calls_per_round(&mut ours, &mut peer);
        let (mut ours_ns, mut peer_ns, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..self.rounds {
            let (o, p) = if round % 2 == 0 {
                let o = time(&mut ours, calls);
                (o, time(&mut peer, calls))
            } else {
                let p = time(&mut peer, calls);
                (time(&mut ours, calls), p)
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
        ours: &mut impl FnMut() -> A,
        peer: &mut impl FnMut() -> B,
    ) -> usize {
        time(ours, 1);
        time(peer, 1);
        let once = time(ours, 3).max(time(peer, 3));
        ((self.round_time.as_secs_f64() / once.max(1e-9)) as usize).max(1)
    }

    /// Prints the table (Markdown) and hands criterion its summary.
    pub fn finish(self, title: &str) {
        if self.profile.is_some() {
            return;
        }
        println!("\n{title}: time per call (medians of {} alternating rounds); ratio = kafka-protocol's time ÷ kafka-wire's (median, lowest-highest); allocations per call (count / bytes)\n", self.rounds);
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

/// The allocations of one call.
fn usage<T>(f: &mut impl FnMut() -> T) -> Usage {
    let region = Region::new();
    black_box(f());
    region.usage()
}

/// Seconds per call, over `calls` calls.
fn time<T>(f: &mut impl FnMut() -> T, calls: usize) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        black_box(f());
    }
    start.elapsed().as_secs_f64() / calls as f64
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
