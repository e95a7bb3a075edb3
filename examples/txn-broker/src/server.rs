//! One broker process: the two TCP listeners (clients, other brokers), framing, the answers
//! the server gives itself (ApiVersions, Metadata, FindCoordinator), the hand-off of every other
//! request to [`Leaders`] or [`Coordinator`], and the thread that sends the coordinator's
//! phase-2 markers.
//!
//! Threads and `std::net` only: a thread per connection, requests of one connection handled in
//! the order they arrive, and a single `Mutex` around the broker's state so that the leaders
//! and the coordinator see one request at a time.
//!
//! The rooms: `connection` (listeners and the connection loop), `apis` (the versions each
//! listener answers), `dispatch` (each request handed to the leaders or the coordinator),
//! `discovery` (Metadata and FindCoordinator), `cluster_file`, `marker_sender` (the phase-2
//! thread) and `client` (the blocking client it and the tests use). This module starts a
//! broker and holds what its threads share.

mod apis;
mod client;
mod cluster_file;
mod connection;
mod discovery;
mod dispatch;
mod marker_sender;

#[cfg(test)]
mod tests;

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Instant, SystemTime};

use crate::cluster::{BrokerId, BrokerInfo, Cluster};
use crate::coordinator::Coordinator;
use crate::leader::{Leaders, Listener};
use crate::storage::FileStorage;
use crate::trace;

pub use apis::{advertised, BROKER_ONLY_APIS, CLIENT_APIS};
pub use client::Client;
pub use cluster_file::{read_cluster, write_cluster, CLUSTER_FILE};
pub use discovery::{find_coordinator, metadata};

use cluster_file::stamp_of;
use connection::accept_loop;
use marker_sender::marker_loop;

/// The cluster id the brokers report in Metadata.
pub const CLUSTER_ID: &str = "txn-broker";

/// How a broker process is started.
#[derive(Debug, Clone)]
pub struct Options {
    /// The data directory: `cluster.txt`, the partition logs and the transaction log.
    pub data: PathBuf,
    /// Which broker of `cluster.txt` this process is.
    pub id: BrokerId,
    /// Fault-test aid: phase 2 starts no earlier than this many milliseconds after the last
    /// decision (EndTxn answered without error), so a test can kill the coordinator between
    /// its decision and its markers.
    pub hold_markers_ms: u64,
    /// Fault-test aid: a pause after each marker send, so a test can kill the coordinator
    /// after some leaders acknowledged their markers and before the others got theirs.
    pub marker_gap_ms: u64,
}

impl Options {
    pub fn new(data: impl Into<PathBuf>, id: BrokerId) -> Self {
        Self {
            data: data.into(),
            id,
            hold_markers_ms: 0,
            marker_gap_ms: 0,
        }
    }
}

/// The broker's state, behind one lock.
struct State {
    cluster: Cluster,
    /// Modification time and length of the cluster file last read.
    cluster_stamp: Option<(SystemTime, u64)>,
    leaders: Leaders,
    /// Present while this broker is the cluster's coordinator.
    coordinator: Option<Coordinator>,
    /// When the coordinator last answered an EndTxn without error (for `hold_markers_ms`).
    last_decision_ms: Option<u64>,
}

/// What every thread of the process shares.
struct Shared {
    opts: Options,
    who: String,
    started: Instant,
    state: Mutex<State>,
}

/// A running broker: its listeners are bound and its threads started.
pub struct Server {
    pub client_addr: SocketAddr,
    pub broker_addr: SocketAddr,
}

impl Server {
    /// Blocks for ever (the broker runs until its process ends).
    pub fn wait(self) -> ! {
        loop {
            thread::park();
        }
    }
}

/// Monotonic milliseconds since the process started.
fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Shared {
    fn now_ms(&self) -> u64 {
        elapsed_ms(self.started)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic in one request handler must not take the whole broker down with it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn load_coordinator(opts: &Options) -> io::Result<Coordinator> {
    Coordinator::load(opts.id, Box::new(FileStorage::open(&opts.data)?))
}

/// Reads the cluster file, loads the partitions this broker leads (and the coordinator if it
/// is this broker), binds both listeners and starts the threads.
pub fn start(opts: Options) -> io::Result<Server> {
    let who = format!("broker {}", opts.id);
    let cluster = read_cluster(&opts.data)?;
    let me: BrokerInfo = cluster.broker(opts.id).cloned().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("broker {} is not in {CLUSTER_FILE}", opts.id),
        )
    })?;
    let stamp = stamp_of(&opts.data.join(CLUSTER_FILE)).ok();
    let mut leaders = Leaders::new(opts.id, Box::new(FileStorage::open(&opts.data)?));
    leaders.sync(&cluster)?;
    let coordinator = if cluster.coordinator == opts.id {
        let c = load_coordinator(&opts)?;
        trace!(who, "coordinator loaded, coordinator epoch {}", c.epoch());
        Some(c)
    } else {
        None
    };
    let client = TcpListener::bind((me.host.as_str(), me.client_port))?;
    let broker = TcpListener::bind((me.host.as_str(), me.broker_port))?;
    let server = Server {
        client_addr: client.local_addr()?,
        broker_addr: broker.local_addr()?,
    };
    let shared = Arc::new(Shared {
        who,
        started: Instant::now(),
        state: Mutex::new(State {
            cluster,
            cluster_stamp: stamp,
            leaders,
            coordinator,
            last_decision_ms: None,
        }),
        opts,
    });
    trace!(
        shared.who,
        "listening: clients on {}, brokers on {}",
        server.client_addr,
        server.broker_addr
    );
    for (socket, listener) in [(client, Listener::Client), (broker, Listener::InterBroker)] {
        let shared = Arc::clone(&shared);
        thread::Builder::new()
            .name(format!("accept-{listener:?}"))
            .spawn(move || accept_loop(shared, socket, listener))?;
    }
    let sender = Arc::clone(&shared);
    thread::Builder::new()
        .name("marker-sender".into())
        .spawn(move || marker_loop(sender))?;
    Ok(server)
}

/// Starts the broker and serves until the process ends.
pub fn run(opts: Options) -> io::Result<()> {
    start(opts)?.wait()
}
