//! `txn-broker`: start brokers of a small transactional cluster (see `--help`).
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Duration;
use txn_broker::cluster::{Cluster, TopicPartition};
use txn_broker::server::{self, Options, CLUSTER_FILE};

const HELP: &str = "\
txn-broker: a small Kafka-compatible cluster with transactions (kafka-wire example)

USAGE
  txn-broker init --data DIR [--brokers 3] [--base-port 9092] [--topic NAME:PARTITIONS ...]
      Writes DIR/cluster.txt: broker i listens for clients on BASE+i and for the other brokers
      (transaction markers) on BASE+100+i, all on 127.0.0.1. Partitions are spread over the
      brokers round robin; broker 0 runs the transaction coordinator. Without --topic the
      cluster has one topic, orders:3. Refuses to overwrite an existing cluster.txt.

  txn-broker start --data DIR --id N [--verbose] [--hold-markers-ms MS] [--marker-gap-ms MS]
      Runs broker N of DIR/cluster.txt in the foreground (both listeners). Partition logs
      (log-TOPIC-PARTITION) and the transaction log (txn-log) are files in DIR. Brokers
      re-read cluster.txt whenever it changes.
      --verbose            trace connections, every request (API, version, correlation id),
                           decisions and marker sends on standard error
      --hold-markers-ms MS fault-test aid: no markers are sent until MS ms after the last
                           EndTxn decision (time to kill -9 the coordinator in between)
      --marker-gap-ms MS   fault-test aid: pause MS ms after each marker send

  txn-broker cluster --data DIR [--verbose] [init options]
      Runs `init` when DIR/cluster.txt is missing, then starts every broker as a child
      process and waits. Ctrl-C stops them all; when one broker dies the others are stopped.

  txn-broker move-leader --data DIR --topic T --partition P --to N
      Makes broker N the leader of T-P in cluster.txt (the new leader loads the same log
      file, as if it had been replicated). The running brokers pick the change up.

  txn-broker dump --data DIR
      Prints every partition log: batches, producers, transactional data and COMMIT/ABORT
      markers, then per partition how many records were committed, aborted or are still in
      an open transaction. Reads the files directly: works with the brokers up or down.

DEMO (three commands, from the repository root; needs python3 for step 2)
  1. cargo run -p txn-broker -- cluster --data /tmp/txn-demo --verbose
         starts three brokers (clients on 127.0.0.1:9092-9094, brokers on 9192-9194, topic
         orders:3, broker 0 coordinates) and stays in the foreground; Ctrl-C stops them
  2. examples/txn-broker/tests/real-client.sh --bootstrap 127.0.0.1:9092
         in another terminal: librdkafka (confluent-kafka, installed once into a virtualenv
         under target/) commits and aborts transactions across the three brokers, a second
         producer fences the first, read_committed and read_uncommitted consumers check what
         they read; prints a summary and `real-client: PASS`, exits non-zero on any mismatch.
         It can run again and again against the same cluster.
  3. cargo run -p txn-broker -- dump --data /tmp/txn-demo
         the partition logs: each transaction's data batches followed by its COMMIT or ABORT
         marker, per partition, with the totals

  Without --bootstrap, real-client.sh builds the broker, starts its own cluster on free ports
  in a temporary directory, also checks the logs on disk against its summary, prints the API
  versions the client used, and stops the cluster afterwards. rm -rf /tmp/txn-demo starts
  the demo over.
";

/// Parsed `--name value` options; `--topic` may repeat.
struct Args {
    values: HashMap<String, Vec<String>>,
    flags: Vec<String>,
}

const FLAGS: &[&str] = &["--verbose", "--help", "--exit-with-stdin"];

impl Args {
    fn parse(args: &[String]) -> Result<Self, String> {
        let mut values: HashMap<String, Vec<String>> = HashMap::new();
        let mut flags = Vec::new();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            if FLAGS.contains(&arg.as_str()) {
                flags.push(arg.clone());
            } else if arg.starts_with("--") {
                let value = it
                    .next()
                    .ok_or_else(|| format!("{arg} needs a value"))?
                    .clone();
                values.entry(arg.clone()).or_default().push(value);
            } else {
                return Err(format!("unexpected argument {arg:?}"));
            }
        }
        Ok(Self { values, flags })
    }

    fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    fn one(&self, name: &str) -> Option<&str> {
        self.values
            .get(name)
            .and_then(|v| v.last())
            .map(String::as_str)
    }

    fn required(&self, name: &str) -> Result<&str, String> {
        self.one(name).ok_or_else(|| format!("{name} is required"))
    }

    fn number<T: std::str::FromStr>(&self, name: &str, default: Option<T>) -> Result<T, String> {
        match self.one(name) {
            Some(s) => s
                .parse()
                .map_err(|_| format!("{name}: {s:?} is not a valid number")),
            None => default.ok_or_else(|| format!("{name} is required")),
        }
    }

    /// Fails on options the subcommand does not know.
    fn only(&self, allowed: &[&str]) -> Result<(), String> {
        for name in self.values.keys().chain(&self.flags) {
            if !allowed.contains(&name.as_str()) && name != "--help" {
                return Err(format!("unknown option {name} for this subcommand"));
            }
        }
        Ok(())
    }
}

fn data_dir(args: &Args) -> Result<PathBuf, String> {
    args.required("--data").map(PathBuf::from)
}

const INIT_OPTIONS: &[&str] = &["--data", "--brokers", "--base-port", "--topic"];

fn init(args: &Args, dir: &Path) -> Result<(), String> {
    let brokers: i32 = args.number("--brokers", Some(3))?;
    let base_port: u16 = args.number("--base-port", Some(9092))?;
    if !(1..=100).contains(&brokers) {
        return Err("--brokers must be between 1 and 100".into());
    }
    if u32::from(base_port) + 100 + brokers as u32 > 65535 {
        return Err("--base-port too high for that many brokers".into());
    }
    let mut topics: Vec<(String, i32)> = Vec::new();
    for spec in args.values.get("--topic").into_iter().flatten() {
        let (name, count) = spec
            .split_once(':')
            .ok_or_else(|| format!("--topic {spec:?}: expected NAME:PARTITIONS"))?;
        let count: i32 = count
            .parse()
            .ok()
            .filter(|&c| c > 0)
            .ok_or_else(|| format!("--topic {spec:?}: bad partition count"))?;
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("--topic {spec:?}: bad topic name"));
        }
        topics.push((name.to_owned(), count));
    }
    if topics.is_empty() {
        topics.push(("orders".into(), 3));
    }
    let refs: Vec<(&str, i32)> = topics.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    let cluster = Cluster::new("127.0.0.1", base_port, brokers, &refs);
    server::write_cluster(dir, &cluster).map_err(|e| format!("writing cluster.txt: {e}"))?;
    eprintln!(
        "txn-broker: wrote {} ({brokers} brokers, client ports {}..{}, broker ports {}..{})",
        dir.join(CLUSTER_FILE).display(),
        base_port,
        base_port + brokers as u16 - 1,
        base_port + 100,
        base_port + 100 + brokers as u16 - 1
    );
    Ok(())
}

/// Ends this process when standard input reaches its end: a broker started by `cluster` (or
/// a test) goes away with its parent, however the parent ended.
fn exit_with_stdin() {
    std::thread::spawn(|| {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        loop {
            match stdin.read(&mut sink) {
                Ok(0) | Err(_) => std::process::exit(0),
                Ok(_) => {}
            }
        }
    });
}

fn start(args: &Args) -> Result<(), String> {
    args.only(&[
        "--data",
        "--id",
        "--verbose",
        "--hold-markers-ms",
        "--marker-gap-ms",
        "--exit-with-stdin",
    ])?;
    let mut opts = Options::new(data_dir(args)?, args.number("--id", None)?);
    opts.hold_markers_ms = args.number("--hold-markers-ms", Some(0))?;
    opts.marker_gap_ms = args.number("--marker-gap-ms", Some(0))?;
    if args.flag("--exit-with-stdin") {
        exit_with_stdin();
    }
    let id = opts.id;
    let server = server::start(opts).map_err(|e| format!("broker {id}: {e}"))?;
    eprintln!(
        "txn-broker: broker {id} up: clients {}, brokers {}",
        server.client_addr, server.broker_addr
    );
    server.wait()
}

fn kill_all(children: &mut [(i32, Child)]) {
    for (_, child) in children.iter_mut() {
        let _ = child.kill();
        let _ = child.wait();
    }
}

fn cluster(args: &Args) -> Result<(), String> {
    let mut allowed = INIT_OPTIONS.to_vec();
    allowed.push("--verbose");
    args.only(&allowed)?;
    let dir = data_dir(args)?;
    if !dir.join(CLUSTER_FILE).exists() {
        init(args, &dir)?;
    }
    let cluster = server::read_cluster(&dir).map_err(|e| format!("cluster.txt: {e}"))?;
    let exe = std::env::current_exe().map_err(|e| format!("own executable: {e}"))?;
    let mut children: Vec<(i32, Child)> = Vec::new();
    for b in &cluster.brokers {
        let mut cmd = Command::new(&exe);
        cmd.arg("start")
            .arg("--data")
            .arg(&dir)
            .arg("--id")
            .arg(b.id.to_string())
            .arg("--exit-with-stdin")
            .stdin(Stdio::piped());
        if args.flag("--verbose") {
            cmd.arg("--verbose");
        }
        match cmd.spawn() {
            Ok(child) => children.push((b.id, child)),
            Err(e) => {
                kill_all(&mut children);
                return Err(format!("starting broker {}: {e}", b.id));
            }
        }
    }
    eprintln!(
        "txn-broker: {} brokers started (Ctrl-C stops them)",
        children.len()
    );
    loop {
        for i in 0..children.len() {
            let (id, child) = &mut children[i];
            if let Ok(Some(status)) = child.try_wait() {
                let id = *id;
                children.remove(i);
                kill_all(&mut children);
                return Err(format!("broker {id} ended ({status}); stopped the others"));
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn move_leader(args: &Args) -> Result<(), String> {
    args.only(&["--data", "--topic", "--partition", "--to"])?;
    let dir = data_dir(args)?;
    let topic = args.required("--topic")?;
    let partition: i32 = args.number("--partition", None)?;
    let to: i32 = args.number("--to", None)?;
    let mut cluster = server::read_cluster(&dir).map_err(|e| format!("cluster.txt: {e}"))?;
    let tp = TopicPartition::new(topic, partition);
    if !cluster.move_leader(&tp, to) {
        return Err(format!("no partition {tp} or no broker {to}"));
    }
    server::write_cluster(&dir, &cluster).map_err(|e| format!("writing cluster.txt: {e}"))?;
    eprintln!("txn-broker: broker {to} now leads {tp}");
    Ok(())
}

fn dump(args: &Args) -> Result<(), String> {
    args.only(&["--data"])?;
    let dir = data_dir(args)?;
    let cluster = server::read_cluster(&dir).map_err(|e| format!("cluster.txt: {e}"))?;
    for (tp, leader) in &cluster.leaders {
        let path = dir.join(format!("log-{}-{}", tp.topic, tp.partition));
        let bytes = std::fs::read(&path).unwrap_or_default();
        println!("{tp} (leader {leader}): {} bytes", bytes.len());
        dump_log(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// What `dump` counts in one partition log.
#[derive(Default)]
struct LogTotals {
    /// Data records per producer since its last marker.
    open: HashMap<i64, usize>,
    committed: usize,
    aborted: usize,
    commits: usize,
    aborts: usize,
}

/// Prints every batch of one partition log, then its totals.
fn dump_log(bytes: Vec<u8>) -> Result<(), kafka_wire::records::RecordsError> {
    let mut reader = kafka_wire::records::RecordsReader::new(bytes.into());
    let mut totals = LogTotals::default();
    for batch in reader.by_ref() {
        let batch = batch?;
        let what = describe_batch(&batch, &mut totals)?;
        println!(
            "  offset {:>5}  producer {} epoch {}  {what}",
            batch.header.base_offset, batch.header.producer_id, batch.header.producer_epoch
        );
    }
    println!(
        "  = records: {} committed, {} aborted, {} in open transactions; \
         markers: {} COMMIT, {} ABORT",
        totals.committed,
        totals.aborted,
        totals.open.values().sum::<usize>(),
        totals.commits,
        totals.aborts
    );
    if let Some(tail) = reader.truncated_tail() {
        println!("  truncated tail: {tail:?}");
    }
    Ok(())
}

/// One batch, as `dump` prints it, counted into `totals`.
fn describe_batch(
    batch: &kafka_wire::records::BatchView,
    totals: &mut LogTotals,
) -> Result<String, kafka_wire::records::RecordsError> {
    use kafka_wire::records::ControlRecordType;
    let producer = batch.header.producer_id;
    match batch.control_record() {
        Some(Ok(c)) => {
            let pending = totals.open.remove(&producer).unwrap_or(0);
            Ok(match c.kind {
                ControlRecordType::Commit => {
                    totals.commits += 1;
                    totals.committed += pending;
                    "COMMIT marker".to_owned()
                }
                ControlRecordType::Abort => {
                    totals.aborts += 1;
                    totals.aborted += pending;
                    "ABORT marker".to_owned()
                }
                other => format!("control {other:?}"),
            })
        }
        Some(Err(e)) => Ok(format!("bad control record: {e}")),
        None => {
            let mut records = 0;
            for record in batch.records()? {
                record?;
                records += 1;
            }
            let transactional = batch.header.is_transactional;
            if transactional {
                *totals.open.entry(producer).or_default() += records;
            } else {
                totals.committed += records;
            }
            let kind = if transactional { ", transactional" } else { "" };
            Ok(format!("{records} record(s){kind}"))
        }
    }
}

fn run(argv: &[String]) -> Result<(), String> {
    let Some((command, rest)) = argv.split_first() else {
        print!("{HELP}");
        return Err("no subcommand".into());
    };
    if command == "--help" || command == "-h" || command == "help" {
        print!("{HELP}");
        return Ok(());
    }
    let args = Args::parse(rest)?;
    if args.flag("--help") {
        print!("{HELP}");
        return Ok(());
    }
    txn_broker::trace::set_verbose(args.flag("--verbose"));
    match command.as_str() {
        "init" => {
            args.only(INIT_OPTIONS)?;
            let dir = data_dir(&args)?;
            if dir.join(CLUSTER_FILE).exists() {
                return Err(format!(
                    "{} exists already",
                    dir.join(CLUSTER_FILE).display()
                ));
            }
            init(&args, &dir)
        }
        "start" => start(&args),
        "cluster" => cluster(&args),
        "move-leader" => move_leader(&args),
        "dump" => dump(&args),
        other => Err(format!("unknown subcommand {other:?} (see --help)")),
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match run(&argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("txn-broker: {e}");
            ExitCode::from(2)
        }
    }
}
