//! `cargo run -p kafka-wire-fuzz --profile fuzz -- --target <name|flagship|list> --iterations N`
//!
//! Options:
//!   --target T        a target name, `every` (the default), or a comma-separated list
//!   --iterations N    inputs per target (default 100000)
//!   --seed S          the mutation seed (default 1)
//!   --jobs J          targets run in parallel (default 1)
//!   --corpus-dir D    where violations are written (default: the checkout's tests/corpus)
//!   --minimize / --no-minimize   minimise a violating input before writing it (default on)
//!   --replay PATH     check one input file (or a target's corpus directory) for --target
//!   --write-valid     regenerate `valid.hex`, the valid inputs of each target's corpus
//!   --list            print the target names

#![forbid(unsafe_code)]

use kafka_wire_fuzz::campaign::{self, Options, Report};
use kafka_wire_fuzz::check::{hex, quiet_panics};
use kafka_wire_fuzz::targets::Target;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

struct Args {
    targets: Vec<Target>,
    options: Options,
    jobs: usize,
    replay: Option<PathBuf>,
    write_valid: bool,
}

fn parse() -> Result<Args, String> {
    let mut names = "every".to_owned();
    let mut options = Options {
        iterations: 100_000,
        seed: 1,
        corpus_dir: kafka_wire_fuzz::default_corpus_dir(),
        minimize: true,
    };
    let mut jobs = 1;
    let mut replay = None;
    let mut write_valid = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |what: &str| args.next().ok_or(format!("{arg} needs {what}"));
        match arg.as_str() {
            "--target" => names = value("a name")?,
            "--iterations" => {
                options.iterations = value("a count")?
                    .parse()
                    .map_err(|e| format!("--iterations: {e}"))?
            }
            "--seed" => {
                options.seed = value("a number")?
                    .parse()
                    .map_err(|e| format!("--seed: {e}"))?
            }
            "--jobs" => {
                jobs = value("a count")?
                    .parse()
                    .map_err(|e| format!("--jobs: {e}"))?
            }
            "--corpus-dir" => options.corpus_dir = value("a directory")?.into(),
            "--replay" => replay = Some(value("a path")?.into()),
            "--minimize" => options.minimize = true,
            "--no-minimize" => options.minimize = false,
            "--write-valid" => write_valid = true,
            "--list" => names = "list".into(),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let every = Target::every();
    let targets = match names.as_str() {
        "every" => every,
        "list" => {
            for t in &every {
                println!("{t}");
            }
            std::process::exit(0);
        }
        list => list
            .split(',')
            .map(|n| Target::by_name(n).ok_or(format!("no target `{n}` (try --list)")))
            .collect::<Result<_, _>>()?,
    };
    Ok(Args {
        targets,
        options,
        jobs: jobs.max(1),
        replay,
        write_valid,
    })
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    quiet_panics();
    if args.write_valid {
        for target in &args.targets {
            match campaign::save_valid(&args.options.corpus_dir, target) {
                Ok((path, n)) => println!("{target}: {n} valid inputs in {}", path.display()),
                Err(e) => {
                    eprintln!("{target}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    if let Some(path) = &args.replay {
        return replay(&args.targets, path);
    }
    fuzz(&args)
}

fn replay(targets: &[Target], path: &PathBuf) -> ExitCode {
    let Ok(input) = std::fs::read(path) else {
        eprintln!("cannot read {}", path.display());
        return ExitCode::from(2);
    };
    let mut failed = false;
    for target in targets {
        match target.run(&input) {
            Ok(outcome) => println!("{target}: {outcome:?}"),
            Err(v) => {
                failed = true;
                println!("{target}: VIOLATION {v}\ninput {}", hex(&input));
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn fuzz(args: &Args) -> ExitCode {
    let next = AtomicUsize::new(0);
    let reports: Mutex<Vec<(usize, Report)>> = Mutex::new(Vec::new());
    println!(
        "{:<36} {:>10} {:>10} {:>9} {:>10}",
        "target", "inputs", "inputs/s", "decoded", "violations"
    );
    std::thread::scope(|s| {
        for _ in 0..args.jobs {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(target) = args.targets.get(i) else {
                    break;
                };
                let report = campaign::run(target, &args.options);
                print_report(target, &report);
                if let Ok(mut all) = reports.lock() {
                    all.push((i, report));
                }
            });
        }
    });
    let reports = reports.into_inner().unwrap_or_default();
    let inputs: u64 = reports.iter().map(|r| r.1.inputs).sum();
    let violations: u64 = reports.iter().map(|r| r.1.violations).sum();
    println!("total: {inputs} inputs, {violations} violations");
    if violations == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn print_report(target: &Target, r: &Report) {
    let decoded = 100.0 * r.decoded as f64 / r.inputs.max(1) as f64;
    println!(
        "{:<36} {:>10} {:>10.0} {:>8.1}% {:>10}   (seeds {}/{} valid, slowest input {:.1} ms)",
        target.name,
        r.inputs,
        r.per_second(),
        decoded,
        r.violations,
        r.seeds_decoded,
        r.seeds,
        r.slowest.as_secs_f64() * 1e3
    );
    for found in r.found.values() {
        println!("  VIOLATION {}", found.violation);
        println!(
            "    minimal input ({} bytes): {}",
            found.input.len(),
            hex(&found.input)
        );
        if let Some(path) = &found.saved {
            println!(
                "    saved to {}\n    replay: cargo run -p kafka-wire-fuzz --profile fuzz -- --target {} --replay {}",
                path.display(),
                target.name,
                path.display()
            );
        }
    }
}
