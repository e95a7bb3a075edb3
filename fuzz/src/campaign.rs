//! The fuzz loop, minimisation and the corpus on disk.

use crate::check::{hex, Outcome, Property, Violation};
use crate::mutate::Mutator;
use crate::records_fix;
use crate::targets::{Kind, Target};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The most inputs the pool grows to from inputs that decoded.
const POOL_MAX: usize = 4096;

/// Options of one campaign.
#[derive(Clone, Debug)]
pub struct Options {
    pub iterations: u64,
    pub seed: u64,
    pub corpus_dir: PathBuf,
    pub minimize: bool,
}

/// A violation as found, minimised and saved.
#[derive(Clone, Debug)]
pub struct Found {
    pub violation: Violation,
    pub input: Vec<u8>,
    pub saved: Option<PathBuf>,
}

/// What a campaign on one target did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The target's seeds, run first.
    pub seeds: u64,
    /// Seeds that decoded.
    pub seeds_decoded: u64,
    pub inputs: u64,
    pub decoded: u64,
    pub violations: u64,
    pub elapsed: Duration,
    pub slowest: Duration,
    /// The first input of each property broken (later ones of the same property are counted).
    pub found: BTreeMap<Property, Found>,
}

impl Report {
    pub fn per_second(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Runs `options.iterations` inputs on `target`: its seeds, then mutants of the pool.
pub fn run(target: &Target, options: &Options) -> Report {
    let started = Instant::now();
    let mut report = Report::default();
    let mut pool = target.seeds();
    if pool.is_empty() {
        pool.push(Vec::new());
    }
    let mut mutator = Mutator::new(options.seed ^ fnv(target.name.as_bytes()));
    let prefix = target.prefix_len();
    let seeds = pool.len() as u64;
    report.seeds = seeds;
    for i in 0..options.iterations {
        let input = if i < seeds {
            pool[i as usize].clone()
        } else {
            let parent = pool[mutator.rng().below(pool.len() as u64) as usize].clone();
            let other = &pool[mutator.rng().below(pool.len() as u64) as usize];
            let cut = prefix.min(parent.len());
            let (head, body) = parent.split_at(cut);
            let mut body = body.to_vec();
            let mut done = false;
            if matches!(target.kind, Kind::Records(_)) && mutator.rng().one_in(4) {
                done = records_fix::mutate_payload(&mut body, &mut mutator);
            }
            if !done {
                mutator.mutate(&mut body, other.get(cut..).unwrap_or_default());
            }
            let mut input = head.to_vec();
            input.extend_from_slice(&body);
            if matches!(target.kind, Kind::Records(_)) && mutator.rng().one_in(2) {
                records_fix::fix_last_size(&mut input);
            }
            if !mutator.rng().one_in(16) {
                target.fix_up(&mut input);
            }
            input
        };
        let one = Instant::now();
        let result = target.run(&input);
        report.slowest = report.slowest.max(one.elapsed());
        report.inputs += 1;
        match result {
            Ok(Outcome::Decoded) => {
                report.decoded += 1;
                if i < seeds {
                    report.seeds_decoded += 1;
                }
                if i >= seeds && mutator.rng().one_in(4) {
                    if pool.len() < POOL_MAX {
                        pool.push(input);
                    } else {
                        let slot = mutator.rng().below(pool.len() as u64) as usize;
                        pool[slot] = input;
                    }
                }
            }
            Ok(Outcome::Rejected) => {}
            Err(violation) => {
                report.violations += 1;
                if report.found.contains_key(&violation.property) {
                    continue;
                }
                let input = if options.minimize {
                    minimize(target, input, violation.property)
                } else {
                    input
                };
                let violation = target.run(&input).err().unwrap_or(violation);
                let saved = save(&options.corpus_dir, target, &input).ok();
                report.found.insert(
                    violation.property,
                    Found {
                        violation,
                        input,
                        saved,
                    },
                );
            }
        }
    }
    report.elapsed = started.elapsed();
    report
}

/// Greedy minimisation: removes chunks, halving their size down to one byte, keeping each
/// removal after which the input still breaks `property`.
pub fn minimize(target: &Target, mut input: Vec<u8>, property: Property) -> Vec<u8> {
    let prefix = target.prefix_len().min(input.len());
    let breaks = |candidate: &mut Vec<u8>| {
        target.fix_up(candidate);
        matches!(target.run(candidate), Err(v) if v.property == property)
    };
    let mut budget = 20_000u32;
    let mut chunk = (input.len() - prefix).max(1).next_power_of_two();
    while chunk >= 1 && budget > 0 {
        let mut at = prefix;
        while at < input.len() && budget > 0 {
            budget -= 1;
            let end = (at + chunk).min(input.len());
            let mut candidate = input[..at].to_vec();
            candidate.extend_from_slice(&input[end..]);
            if breaks(&mut candidate) {
                input = candidate;
            } else {
                at += chunk;
            }
        }
        chunk /= 2;
    }
    // Then make bytes small: zero where possible.
    for at in prefix..input.len() {
        if budget == 0 {
            break;
        }
        budget -= 1;
        if input[at] != 0 {
            let mut candidate = input.clone();
            candidate[at] = 0;
            if breaks(&mut candidate) {
                input = candidate;
            }
        }
    }
    target.fix_up(&mut input);
    input
}

/// FNV-1a, for file names and per-target seeds.
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The directory of `target`'s corpus.
pub fn target_dir(corpus_dir: &Path, target: &Target) -> PathBuf {
    corpus_dir.join(&target.name)
}

/// Writes `input` to `<corpus>/<target>/<hash>.bin`.
pub fn save(corpus_dir: &Path, target: &Target, input: &[u8]) -> std::io::Result<PathBuf> {
    let dir = target_dir(corpus_dir, target);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{:012x}.bin", fnv(input) >> 16));
    std::fs::write(&path, input)?;
    Ok(path)
}

/// Writes the target's valid inputs, one hex line each, to `<corpus>/<target>/valid.hex`.
pub fn save_valid(corpus_dir: &Path, target: &Target) -> std::io::Result<(PathBuf, usize)> {
    let dir = target_dir(corpus_dir, target);
    std::fs::create_dir_all(&dir)?;
    let inputs = target.valid_inputs();
    let text: String = inputs.iter().map(|i| hex(i) + "\n").collect();
    let path = dir.join("valid.hex");
    std::fs::write(&path, text)?;
    Ok((path, inputs.len()))
}

/// The inputs stored for `target`: the `.bin` reproducers, then the lines of `valid.hex`.
pub struct Stored {
    pub reproducers: Vec<(PathBuf, Vec<u8>)>,
    pub valid: Vec<Vec<u8>>,
}

pub fn load(corpus_dir: &Path, target: &Target) -> std::io::Result<Stored> {
    let dir = target_dir(corpus_dir, target);
    let mut reproducers = Vec::new();
    let mut valid = Vec::new();
    if !dir.is_dir() {
        return Ok(Stored { reproducers, valid });
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        match path.extension().and_then(|e| e.to_str()) {
            Some("bin") => {
                let bytes = std::fs::read(&path)?;
                reproducers.push((path, bytes));
            }
            Some("hex") => {
                let text = std::fs::read_to_string(&path)?;
                // An empty line is an empty input (ApiVersionsRequest v0 has no fields).
                valid.extend(text.lines().map(|l| kafka_wire_tests::from_hex(l.trim())));
            }
            _ => {}
        }
    }
    Ok(Stored { reproducers, valid })
}
