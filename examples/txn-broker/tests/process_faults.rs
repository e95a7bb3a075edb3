//! Process faults on a real three-broker cluster (three `txn-broker start` processes on free
//! ports in a temporary directory): a transaction spanning partitions led by every broker is
//! committed, then the coordinator process is killed with SIGKILL
//!
//! - after its decision is durable and before any marker went out (`--hold-markers-ms`), or
//! - while its markers are going out, after one leader acknowledged (`--marker-gap-ms`),
//!
//! and restarted. The restarted coordinator must finish the transaction: every partition the
//! transaction wrote to ends with exactly one COMMIT marker for it and no ABORT.
//!
//! The producer is written here with kafka-wire messages over TCP
//! (`txn_broker::server::Client`), so each request and its version is the test's choice.

use bytes::Bytes;
use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, EndTxnRequest, InitProducerIdRequest, ProduceRequest,
};
use kafka_wire::records::{ControlRecordType, Record, RecordBatchBuilder, RecordsReader};
use kafka_wire::ErrorCode;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};
use txn_broker::cluster::{Cluster, TopicPartition};
use txn_broker::server::{write_cluster, Client};

const EXE: &str = env!("CARGO_BIN_EXE_txn-broker");
const TOPIC: &str = "orders";
const PARTITIONS: i32 = 3;
const TXN_ID: &str = "fault-txn";
const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// One broker process, its standard error read line by line on a thread.
struct Broker {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Broker {
    fn start(dir: &Path, id: i32, extra: &[&str]) -> Broker {
        let mut child = Command::new(EXE)
            .arg("start")
            .arg("--data")
            .arg(dir)
            .arg("--id")
            .arg(id.to_string())
            .arg("--verbose")
            // The broker ends when the test's end of this pipe closes, even if the test dies.
            .arg("--exit-with-stdin")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start a broker process");
        let stderr = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut broker = Broker {
            child,
            lines,
            seen: Vec::new(),
        };
        broker.wait_for(&format!("broker {id} up"), Duration::from_secs(20));
        broker
    }

    /// Waits for a trace line containing `needle`; panics with what was seen on timeout.
    fn wait_for(&mut self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no line with {needle:?} within {timeout:?}; the broker said:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }

    /// SIGKILL: no chance to flush or say goodbye.
    fn kill(mut self) {
        self.child.kill().expect("kill -9 the broker");
        self.child.wait().expect("reap the broker");
    }
}

/// A cluster in a temporary directory; its processes are killed when it is dropped.
struct Harness {
    dir: PathBuf,
    cluster: Cluster,
    brokers: Vec<Option<Broker>>,
}

impl Drop for Harness {
    fn drop(&mut self) {
        for b in self.brokers.iter_mut().filter_map(Option::take) {
            b.kill();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn port_free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// A base port whose three client and three broker ports are free right now.
fn free_base_port(salt: u16) -> u16 {
    let seed = (std::process::id() as u16)
        .wrapping_mul(31)
        .wrapping_add(salt * 997);
    (0..500u16)
        .map(|i| 20_000 + (seed.wrapping_add(i.wrapping_mul(211)) % 40_000))
        .find(|&base| (0..3).all(|i| port_free(base + i) && port_free(base + 100 + i)))
        .expect("a free range of ports")
}

impl Harness {
    fn new(name: &str, salt: u16, coordinator_extra: &[&str]) -> Harness {
        let dir = std::env::temp_dir().join(format!(
            "txn-broker-faults-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let cluster = Cluster::new("127.0.0.1", free_base_port(salt), 3, &[(TOPIC, PARTITIONS)]);
        // Every broker leads one partition: markers go to three processes.
        for p in 0..PARTITIONS {
            assert_eq!(cluster.leader(&TopicPartition::new(TOPIC, p)), Some(p));
        }
        write_cluster(&dir, &cluster).expect("write cluster.txt");
        let mut h = Harness {
            dir,
            cluster,
            brokers: Vec::new(),
        };
        for id in 0..3 {
            let extra = if id == h.cluster.coordinator {
                coordinator_extra
            } else {
                &[]
            };
            let b = Broker::start(&h.dir, id, extra);
            h.brokers.push(Some(b));
        }
        h
    }

    fn client_addr(&self, id: i32) -> (String, u16) {
        let b = self.cluster.broker(id).expect("broker in the cluster");
        (b.host.clone(), b.client_port)
    }

    fn client(&self, id: i32) -> Client {
        Client::connect(
            self.client_addr(id),
            "process-faults-test",
            IO_TIMEOUT,
            IO_TIMEOUT,
        )
        .expect("connect to a broker")
    }

    fn coordinator(&mut self) -> &mut Broker {
        let id = self.cluster.coordinator as usize;
        self.brokers[id].as_mut().expect("coordinator running")
    }

    fn kill_coordinator(&mut self) {
        let id = self.cluster.coordinator as usize;
        self.brokers[id].take().expect("coordinator running").kill();
    }

    fn restart_coordinator(&mut self) {
        let id = self.cluster.coordinator;
        self.brokers[id as usize] = Some(Broker::start(&self.dir, id, &[]));
    }

    /// Per partition: (data batches, COMMIT markers, ABORT markers) of `producer_id`.
    fn log_counts(&self, producer_id: i64) -> Vec<(usize, usize, usize)> {
        (0..PARTITIONS)
            .map(|p| {
                let bytes =
                    std::fs::read(self.dir.join(format!("log-{TOPIC}-{p}"))).unwrap_or_default();
                let (mut data, mut commits, mut aborts) = (0, 0, 0);
                // A batch being appended right now may be cut short: the reader stops there.
                for batch in RecordsReader::new(Bytes::from(bytes)) {
                    let batch = batch.expect("a well-formed log");
                    if batch.header.producer_id != producer_id {
                        continue;
                    }
                    match batch.control_record() {
                        None => data += 1,
                        Some(Ok(c)) if c.kind == ControlRecordType::Commit => commits += 1,
                        Some(Ok(c)) if c.kind == ControlRecordType::Abort => aborts += 1,
                        Some(other) => panic!("unexpected control batch {other:?}"),
                    }
                }
                (data, commits, aborts)
            })
            .collect()
    }

    /// Waits until every partition holds a marker of `producer_id`, then a little longer for
    /// late duplicates, and returns the counts.
    fn wait_for_markers(&self, producer_id: i64, timeout: Duration) -> Vec<(usize, usize, usize)> {
        let deadline = Instant::now() + timeout;
        loop {
            let counts = self.log_counts(producer_id);
            if counts.iter().all(|&(_, c, a)| c + a > 0) {
                thread::sleep(Duration::from_millis(500));
                return self.log_counts(producer_id);
            }
            assert!(
                Instant::now() < deadline,
                "markers missing after {timeout:?}: {counts:?} (data, commits, aborts per partition)"
            );
            thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Retries `call` while the error code is one Kafka's clients retry (the coordinator busy
/// with another operation on the transaction, or not there yet), as a client does; returns the
/// first other error code and the answer.
fn retrying<T>(what: &str, mut call: impl FnMut() -> (i16, T)) -> (ErrorCode, T) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (code, answer) = call();
        let code = ErrorCode::from(code);
        if !code.is_retriable() || Instant::now() > deadline {
            return (code, answer);
        }
        eprintln!("{what}: {code}, retrying");
        thread::sleep(Duration::from_millis(100));
    }
}

/// A transactional producer speaking kafka-wire messages: InitProducerId, AddPartitionsToTxn
/// for every partition, one transactional batch per partition to its leader, EndTxn commit.
/// Returns the producer id and epoch.
fn commit_one_transaction(h: &Harness) -> (i64, i16) {
    let mut coord = h.client(h.cluster.coordinator);
    let (code, (producer_id, epoch)) = retrying("InitProducerId", || {
        let request = InitProducerIdRequest::default()
            .with_transactional_id(Some(TXN_ID.into()))
            .with_transaction_timeout_ms(60_000)
            .with_producer_id(-1)
            .with_producer_epoch(-1);
        match coord.call(RequestBody::InitProducerId(request), 4) {
            Ok(ResponseBody::InitProducerId(r)) => {
                (r.error_code, (r.producer_id, r.producer_epoch))
            }
            other => panic!("InitProducerId: {other:?}"),
        }
    });
    assert_eq!(code, ErrorCode::NONE, "InitProducerId");
    assert!(
        producer_id >= 0 && epoch >= 0,
        "producer {producer_id} epoch {epoch}"
    );

    let request = AddPartitionsToTxnRequest::default()
        .with_v3_and_below_transactional_id(TXN_ID)
        .with_v3_and_below_producer_id(producer_id)
        .with_v3_and_below_producer_epoch(epoch)
        .with_v3_and_below_topics(vec![AddPartitionsToTxnTopic::default()
            .with_name(TOPIC)
            .with_partitions((0..PARTITIONS).collect())]);
    let answer = match coord.call(RequestBody::AddPartitionsToTxn(request), 3) {
        Ok(ResponseBody::AddPartitionsToTxn(r)) => r,
        other => panic!("AddPartitionsToTxn: {other:?}"),
    };
    for p in 0..PARTITIONS {
        let code = answer
            .results_by_topic_v3_and_below
            .iter()
            .filter(|t| &*t.name == TOPIC)
            .flat_map(|t| &t.results_by_partition)
            .find(|r| r.partition_index == p)
            .map(|r| ErrorCode::from(r.partition_error_code));
        assert_eq!(
            code,
            Some(ErrorCode::NONE),
            "AddPartitionsToTxn {TOPIC}-{p}"
        );
    }

    for p in 0..PARTITIONS {
        let leader = h
            .cluster
            .leader(&TopicPartition::new(TOPIC, p))
            .expect("leader");
        let records = RecordBatchBuilder::new()
            .producer(producer_id, epoch, 0)
            .transactional(true)
            .record(Record::new(
                Some(Bytes::from(format!("k{p}"))),
                Some(Bytes::from(format!("committed value for partition {p}"))),
            ))
            .encode()
            .expect("encode a batch");
        let request = ProduceRequest::default()
            .with_transactional_id(Some(TXN_ID.into()))
            .with_acks(-1)
            .with_timeout_ms(5_000)
            .with_topic_data(vec![TopicProduceData::default()
                .with_name(TOPIC)
                .with_partition_data(vec![PartitionProduceData::default()
                    .with_index(p)
                    .with_records(Some(records))])]);
        let answer = match h.client(leader).call(RequestBody::Produce(request), 9) {
            Ok(ResponseBody::Produce(r)) => r,
            other => panic!("Produce: {other:?}"),
        };
        let code = answer
            .responses
            .iter()
            .flat_map(|t| &t.partition_responses)
            .find(|r| r.index == p)
            .map(|r| ErrorCode::from(r.error_code));
        assert_eq!(code, Some(ErrorCode::NONE), "Produce {TOPIC}-{p}");
    }

    let (code, ()) = retrying("EndTxn", || {
        let request = EndTxnRequest::default()
            .with_transactional_id(TXN_ID)
            .with_producer_id(producer_id)
            .with_producer_epoch(epoch)
            .with_committed(true);
        match coord.call(RequestBody::EndTxn(request), 3) {
            Ok(ResponseBody::EndTxn(r)) => (r.error_code, ()),
            other => panic!("EndTxn: {other:?}"),
        }
    });
    assert_eq!(code, ErrorCode::NONE, "EndTxn commit");
    (producer_id, epoch)
}

fn assert_committed_once(counts: &[(usize, usize, usize)]) {
    for (p, &(data, commits, aborts)) in counts.iter().enumerate() {
        assert_eq!(data, 1, "{TOPIC}-{p}: data batches ({counts:?})");
        assert_eq!(commits, 1, "{TOPIC}-{p}: COMMIT markers ({counts:?})");
        assert_eq!(aborts, 0, "{TOPIC}-{p}: ABORT markers ({counts:?})");
    }
}

#[test]
fn coordinator_killed_after_decision_before_markers_commits_after_restart() {
    // Markers held for a minute: the kill always lands before phase 2.
    let mut h = Harness::new("decision", 1, &["--hold-markers-ms", "60000"]);
    let (producer_id, _) = commit_one_transaction(&h);
    h.coordinator()
        .wait_for("decision written (commit)", Duration::from_secs(10));
    let before = h.log_counts(producer_id);
    assert!(
        before
            .iter()
            .all(|&(data, c, a)| data == 1 && c == 0 && a == 0),
        "markers went out before the kill: {before:?}"
    );
    h.kill_coordinator();

    h.restart_coordinator();
    let counts = h.wait_for_markers(producer_id, Duration::from_secs(20));
    assert_committed_once(&counts);
}

#[test]
fn coordinator_killed_between_marker_sends_commits_after_restart() {
    // Five seconds between two marker sends: the kill lands after the first acknowledgement
    // and before the next send.
    let mut h = Harness::new("markers", 2, &["--marker-gap-ms", "5000"]);
    let (producer_id, _) = commit_one_transaction(&h);
    h.coordinator()
        .wait_for(": acknowledged", Duration::from_secs(10));
    h.kill_coordinator();
    let before = h.log_counts(producer_id);
    let marked = before.iter().filter(|&&(_, c, _)| c > 0).count();
    assert!(
        (1..PARTITIONS as usize).contains(&marked),
        "expected some but not all partitions marked at the kill: {before:?}"
    );
    assert!(
        before.iter().all(|&(_, c, a)| c <= 1 && a == 0),
        "{before:?}"
    );

    h.restart_coordinator();
    let counts = h.wait_for_markers(producer_id, Duration::from_secs(20));
    assert_committed_once(&counts);
}
