//! The async client against a txn-broker cluster of two brokers, started in this process on
//! free ports: it finds the leader of the partition through the other broker, falls back from
//! an ApiVersions version the broker does not know, and its records are in the broker's log.
#![forbid(unsafe_code)]

use kafka_wire::records::{read_all, DecodeLimits};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Output};
use txn_broker::cluster::Cluster;
use txn_broker::server::{self, Options};

/// A data directory with a cluster of two brokers on free ports, topic `orders:2` (partition
/// `p` led by broker `p`), both brokers started; returns the directory and the client ports.
fn cluster() -> (PathBuf, Vec<u16>) {
    let dir = std::env::temp_dir().join(format!("async-client-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Ports the OS hands out are free; the brokers bind them again right after.
    let free = || {
        TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .unwrap()
            .port()
    };
    let mut cluster = Cluster::new("127.0.0.1", 1, 2, &[("orders", 2)]);
    for b in &mut cluster.brokers {
        b.client_port = free();
        b.broker_port = free();
    }
    server::write_cluster(&dir, &cluster).unwrap();
    let ports = cluster
        .brokers
        .iter()
        .map(|b| {
            let started = server::start(Options::new(&dir, b.id)).unwrap();
            started.client_addr.port()
        })
        .collect();
    (dir, ports)
}

fn client(args: &[&str]) -> (Output, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_async-client"))
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output, stdout, stderr)
}

/// The values of the records in the log of `orders-partition`, read from the broker's file.
fn logged_values(dir: &std::path::Path, partition: i32) -> Vec<String> {
    let bytes = std::fs::read(dir.join(format!("log-orders-{partition}"))).unwrap_or_default();
    read_all(bytes.into(), DecodeLimits::default())
        .unwrap()
        .iter()
        .flat_map(|batch| &batch.records)
        .map(|r| String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned())
        .collect()
}

#[test]
fn produces_and_fetches_back_through_the_leader() {
    let (dir, ports) = cluster();
    let bootstrap = format!("127.0.0.1:{}", ports[0]);

    // Partition 1 is led by broker 1: the client learns it from broker 0 and goes there.
    let (output, stdout, stderr) = client(&["--bootstrap", &bootstrap, "--partition", "1"]);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let leader = format!("orders-1 is led by broker 1 at 127.0.0.1:{}", ports[1]);
    assert!(stdout.contains(&leader), "{stdout}");
    assert!(stdout.contains("agreed: Produce v9, Fetch v12, Metadata v9, ApiVersions v3"));
    assert!(stdout.contains("written at offset 0"), "{stdout}");
    assert!(stdout.contains("the 3 records fetched back match what was produced"));
    assert!(stdout.ends_with("async-client: OK\n"), "{stdout}");
    let values = logged_values(&dir, 1);
    assert_eq!(values.len(), 3, "{values:?}");
    assert!(values[2].starts_with("value 2 of run "), "{values:?}");
    assert!(logged_values(&dir, 0).is_empty());

    // ApiVersions v5 is newer than the broker's 0-3: answered at v0, asked again at v3. The
    // records land after the first three.
    let (output, stdout, stderr) = client(&[
        "--bootstrap",
        &bootstrap,
        "--partition",
        "1",
        "--api-versions",
        "5",
        "--records",
        "4",
    ]);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("ApiVersions v5: UNSUPPORTED_VERSION, answered at v0; asking again at v3"),
        "{stdout}"
    );
    assert!(stdout.contains("written at offset 3"), "{stdout}");
    assert!(stdout.contains("the 4 records fetched back match what was produced"));
    assert_eq!(logged_values(&dir, 1).len(), 7);

    // The broker does not create topics: a topic it lacks fails the run.
    let (output, stdout, stderr) = client(&["--bootstrap", &bootstrap, "--topic", "missing"]);
    assert!(!output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("async-client: FAIL: topic missing: UNKNOWN_TOPIC_OR_PARTITION"),
        "{stderr}"
    );

    // Nobody listens: the run fails and says where it tried.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let nowhere = closed.local_addr().unwrap().to_string();
    drop(closed);
    let (output, _, stderr) = client(&["--bootstrap", &nowhere, "--timeout-ms", "2000"]);
    assert!(!output.status.success());
    assert!(
        stderr.contains(&format!("connecting to {nowhere}")),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
