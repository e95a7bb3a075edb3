//! One broker process: the two TCP listeners (clients, other brokers), framing, the answers
//! the server gives itself (ApiVersions, Metadata, FindCoordinator), the hand-off of every other
//! request to [`Leaders`] or [`Coordinator`], and the thread that sends the coordinator's
//! phase-2 markers.
//!
//! Threads and `std::net` only: a thread per connection, requests of one connection handled in
//! the order they arrive, and a single `Mutex` around the broker's state so that the leaders
//! and the coordinator see one request at a time.

use crate::cluster::{BrokerId, BrokerInfo, Cluster};
use crate::coordinator::{results_by_topic, Coordinator, MarkerSend};
use crate::leader::{Leaders, Listener};
use crate::storage::FileStorage;
use crate::trace;
use bytes::{Bytes, BytesMut};
use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::api_versions_response::ApiVersion;
use kafka_wire::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, ApiVersionsRequest, ApiVersionsResponse,
    EndTxnRequest, EndTxnResponse, FetchRequest, FetchResponse, FindCoordinatorRequest,
    FindCoordinatorResponse, InitProducerIdRequest, InitProducerIdResponse, ListOffsetsRequest,
    MetadataRequest, MetadataResponse, ProduceRequest, RequestHeader, ResponseHeader,
    WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};
use kafka_wire::{ApiMessage, ApiSet, ErrorCode, KafkaString};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant, SystemTime};

/// The name of the cluster file inside the data directory.
pub const CLUSTER_FILE: &str = "cluster.txt";

/// The cluster id the brokers report in Metadata.
pub const CLUSTER_ID: &str = "txn-broker";

/// The APIs (by key) and version ranges this broker answers, on both listeners.
pub const CLIENT_APIS: &[(i16, i16, i16)] = &[
    (ProduceRequest::API_KEY, 3, 9),
    (FetchRequest::API_KEY, 4, 12),
    (ListOffsetsRequest::API_KEY, 1, 7),
    (MetadataRequest::API_KEY, 0, 9),
    (FindCoordinatorRequest::API_KEY, 0, 3),
    (ApiVersionsRequest::API_KEY, 0, 3),
    (InitProducerIdRequest::API_KEY, 0, 4),
    (AddPartitionsToTxnRequest::API_KEY, 0, 3),
    // Version 5 is transaction version 2 (the coordinator bumps the epoch at every EndTxn).
    // librdkafka asks for version 1 at most.
    (EndTxnRequest::API_KEY, 0, 5),
];

/// The one API only the inter-broker listener advertises (the client listener still reads it,
/// and the leaders refuse it there). Version 2 carries the transaction version of each marker;
/// the marker sender uses it for transactions of version 2 (see [`MarkerSend::version`]).
pub const BROKER_ONLY_APIS: &[(i16, i16, i16)] = &[(WriteTxnMarkersRequest::API_KEY, 0, 2)];

/// The longest a Fetch that found nothing new is held before the empty answer goes out,
/// whatever the client's `max_wait_ms` asks for.
const FETCH_MAX_HOLD: Duration = Duration::from_secs(1);

/// How often a held Fetch looks at the logs again.
const FETCH_RECHECK: Duration = Duration::from_millis(10);

/// How long the marker sender waits to connect, and then for an answer.
const MARKER_CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
const MARKER_IO_TIMEOUT: Duration = Duration::from_secs(2);

/// The pause between two rounds of the marker sender.
const MARKER_POLL: Duration = Duration::from_millis(20);

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

/// Which versions of which APIs a listener advertises.
pub fn advertised(listener: Listener) -> Vec<(i16, i16, i16)> {
    let mut apis = CLIENT_APIS.to_vec();
    if listener == Listener::InterBroker {
        apis.extend_from_slice(BROKER_ONLY_APIS);
    }
    apis.sort_by_key(|(key, _, _)| *key);
    apis
}

/// The versions this broker reads for API `key` (on either listener), if it reads it at all.
fn readable_versions(key: i16) -> Option<(i16, i16)> {
    CLIENT_APIS
        .iter()
        .chain(BROKER_ONLY_APIS)
        .find(|(k, _, _)| *k == key)
        .map(|&(_, lo, hi)| (lo, hi))
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

fn stamp_of(path: &Path) -> io::Result<(SystemTime, u64)> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.modified()?, meta.len()))
}

/// Reads and parses the cluster file of `data`.
pub fn read_cluster(data: &Path) -> io::Result<Cluster> {
    let text = std::fs::read_to_string(data.join(CLUSTER_FILE))?;
    Cluster::from_text(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Writes the cluster file of `data` so that a reader never sees half of it (a temporary file
/// renamed over the old one).
pub fn write_cluster(data: &Path, cluster: &Cluster) -> io::Result<()> {
    std::fs::create_dir_all(data)?;
    let tmp = data.join(format!("{CLUSTER_FILE}.tmp.{}", std::process::id()));
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(cluster.to_text().as_bytes())?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, data.join(CLUSTER_FILE))
}

impl Shared {
    fn now_ms(&self) -> u64 {
        elapsed_ms(self.started)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic in one request handler must not take the whole broker down with it.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Re-reads the cluster file when it changed, and brings leaders and coordinator in line.
    fn refresh(&self, state: &mut State) {
        let path = self.opts.data.join(CLUSTER_FILE);
        let stamp = match stamp_of(&path) {
            Ok(stamp) => stamp,
            Err(e) => {
                trace!(self.who, "cannot stat {}: {e}", path.display());
                return;
            }
        };
        if state.cluster_stamp == Some(stamp) {
            return;
        }
        match read_cluster(&self.opts.data) {
            Ok(cluster) => {
                state.cluster_stamp = Some(stamp);
                if cluster != state.cluster {
                    trace!(self.who, "cluster file changed; syncing leaders");
                    state.cluster = cluster;
                    self.apply_cluster(state);
                }
            }
            // Keep the old map; the next request tries again.
            Err(e) => trace!(
                self.who,
                "cluster file unreadable, keeping the old one: {e}"
            ),
        }
    }

    fn apply_cluster(&self, state: &mut State) {
        if let Err(e) = state.leaders.sync(&state.cluster) {
            trace!(self.who, "leader sync failed: {e}");
        }
        let ours = state.cluster.coordinator == self.opts.id;
        if ours && state.coordinator.is_none() {
            match load_coordinator(&self.opts) {
                Ok(c) => {
                    trace!(
                        self.who,
                        "coordinator loaded, coordinator epoch {}",
                        c.epoch()
                    );
                    state.coordinator = Some(c);
                }
                Err(e) => trace!(self.who, "coordinator load failed: {e}"),
            }
        } else if !ours && state.coordinator.take().is_some() {
            trace!(self.who, "no longer the coordinator");
        }
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

fn accept_loop(shared: Arc<Shared>, socket: TcpListener, listener: Listener) {
    for stream in socket.incoming() {
        match stream {
            Ok(stream) => {
                let conn = Arc::clone(&shared);
                let spawned = thread::Builder::new()
                    .name("connection".into())
                    .spawn(move || serve_connection(&conn, stream, listener));
                if let Err(e) = spawned {
                    trace!(shared.who, "cannot start a connection thread: {e}");
                }
            }
            Err(e) => trace!(shared.who, "{listener:?} accept failed: {e}"),
        }
    }
}

/// What to do after a request.
enum Reply {
    /// Write these bytes (a whole response frame).
    Send(BytesMut),
    /// Nothing to write (Produce with acks=0).
    Nothing,
    /// Close the connection, for this reason.
    Close(String),
}

fn serve_connection(shared: &Shared, mut stream: TcpStream, listener: Listener) {
    let peer = stream
        .peer_addr()
        .map_or_else(|_| "?".to_owned(), |a| a.to_string());
    trace!(shared.who, "{listener:?} connection from {peer}");
    let _ = stream.set_nodelay(true);
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        loop {
            let frame = match frame::split_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE) {
                Ok(Some(frame)) => frame,
                Ok(None) => break,
                Err(e) => {
                    trace!(shared.who, "{peer}: bad frame, closing: {e}");
                    return;
                }
            };
            match handle_frame(shared, frame, listener) {
                Reply::Send(bytes) => {
                    if let Err(e) = stream.write_all(&bytes) {
                        trace!(shared.who, "{peer}: write failed, closing: {e}");
                        return;
                    }
                }
                Reply::Nothing => {}
                Reply::Close(reason) => {
                    trace!(shared.who, "{peer}: closing: {reason}");
                    return;
                }
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) => {
                trace!(shared.who, "{peer}: connection closed by the client");
                return;
            }
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                trace!(shared.who, "{peer}: read failed, closing: {e}");
                return;
            }
        }
    }
}

/// API key, API version and correlation id, which sit at the same place in every request
/// header version.
fn peek_header(frame: &[u8]) -> Option<(i16, i16, i32)> {
    match frame.get(..8) {
        Some(&[k0, k1, v0, v1, c0, c1, c2, c3]) => Some((
            i16::from_be_bytes([k0, k1]),
            i16::from_be_bytes([v0, v1]),
            i32::from_be_bytes([c0, c1, c2, c3]),
        )),
        _ => None,
    }
}

fn api_versions_response(listener: Listener, error_code: ErrorCode) -> ApiVersionsResponse {
    ApiVersionsResponse {
        error_code: error_code.code(),
        api_keys: advertised(listener)
            .into_iter()
            .map(|(api_key, min_version, max_version)| ApiVersion {
                api_key,
                min_version,
                max_version,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn encode(correlation_id: i32, body: &ResponseBody, version: i16) -> Reply {
    let header = ResponseHeader {
        correlation_id,
        ..Default::default()
    };
    let mut out = BytesMut::new();
    match frame::encode_response(&mut out, &header, body, version) {
        Ok(()) => Reply::Send(out),
        Err(e) => Reply::Close(format!("cannot encode the response: {e}")),
    }
}

fn handle_frame(shared: &Shared, frame: Bytes, listener: Listener) -> Reply {
    let Some((key, version, correlation_id)) = peek_header(&frame) else {
        return Reply::Close("frame shorter than a request header".into());
    };
    let (lo, hi) = readable_versions(ApiVersionsRequest::API_KEY).unwrap_or((0, 0));
    if key == ApiVersionsRequest::API_KEY && !(lo..=hi).contains(&version) {
        // A client probing with a newer ApiVersions than ours: answer at v0, which every
        // client reads, with the error and our list, so that it retries with a version we know.
        trace!(
            shared.who,
            "ApiVersions v{version} corr {correlation_id}: unsupported, answered at v0"
        );
        let body = ResponseBody::ApiVersions(api_versions_response(
            listener,
            ErrorCode::UNSUPPORTED_VERSION,
        ));
        return encode(correlation_id, &body, 0);
    }
    let api = RequestBody::find(key);
    match readable_versions(key) {
        Some((lo, hi)) if (lo..=hi).contains(&version) => {}
        Some(_) => {
            return Reply::Close(format!(
                "{} v{version} corr {correlation_id}: version not supported",
                api.map_or("?", |api| api.name())
            ))
        }
        None => {
            return Reply::Close(format!(
                "API key {key} v{version} corr {correlation_id}: API not handled"
            ))
        }
    }
    let (header, body) = match frame::decode_request::<RequestBody>(frame) {
        Ok(decoded) => decoded,
        Err(e) => return Reply::Close(format!("undecodable request: {e}")),
    };
    trace!(
        shared.who,
        "{listener:?} {} v{version} corr {correlation_id} from {}",
        body.api().name(),
        header.client_id.as_deref().unwrap_or("-")
    );
    if let RequestBody::Fetch(req) = &body {
        let response = fetch_waiting(shared, req, version);
        return encode(correlation_id, &ResponseBody::Fetch(response), version);
    }
    match respond(shared, &header, body, listener) {
        Some(response) => encode(correlation_id, &response, version),
        None => Reply::Nothing,
    }
}

/// Fetch with a wait: when the logs have fewer than `min_bytes` (at least one byte) to return
/// and no partition has an error, the request is looked at again every few milliseconds
/// (without holding the lock in between) until there is, or until `max_wait_ms` (at most
/// [`FETCH_MAX_HOLD`]) have passed; then the last answer goes out. Without this, a consumer
/// that has read everything would send its next Fetch at once, over and over.
fn fetch_waiting(shared: &Shared, req: &FetchRequest, version: i16) -> FetchResponse {
    let started = Instant::now();
    let wait =
        Duration::from_millis(u64::try_from(req.max_wait_ms).unwrap_or(0)).min(FETCH_MAX_HOLD);
    let enough = usize::try_from(req.min_bytes).unwrap_or(0).max(1);
    loop {
        let response = {
            let mut guard = shared.lock();
            shared.refresh(&mut guard);
            guard.leaders.fetch(req, version)
        };
        let partitions = response.responses.iter().flat_map(|t| &t.partitions);
        let mut bytes = 0usize;
        let mut failed = false;
        for p in partitions {
            bytes += p.records.as_ref().map_or(0, |r| r.as_bytes().len());
            failed |= p.error_code != ErrorCode::NONE;
        }
        if bytes >= enough || failed || started.elapsed() + FETCH_RECHECK > wait {
            return response;
        }
        thread::sleep(FETCH_RECHECK);
    }
}

/// The answer to one decoded request; `None` when the request takes no answer.
fn respond(
    shared: &Shared,
    header: &RequestHeader,
    body: RequestBody,
    listener: Listener,
) -> Option<ResponseBody> {
    let version = header.request_api_version;
    let now = shared.now_ms();
    let mut guard = shared.lock();
    shared.refresh(&mut guard);
    let state = &mut *guard;
    let response = match body {
        RequestBody::ApiVersions(_) => {
            ResponseBody::ApiVersions(api_versions_response(listener, ErrorCode::NONE))
        }
        RequestBody::Metadata(req) => {
            ResponseBody::Metadata(metadata(&state.cluster, &req, version))
        }
        RequestBody::FindCoordinator(req) => {
            ResponseBody::FindCoordinator(find_coordinator(&state.cluster, &req, version))
        }
        RequestBody::Produce(req) => {
            let response = state.leaders.produce(&req, version);
            if req.acks == 0 {
                return None;
            }
            ResponseBody::Produce(response)
        }
        // Answered without waiting here; `handle_frame` sends Fetch through `fetch_waiting`.
        RequestBody::Fetch(req) => ResponseBody::Fetch(state.leaders.fetch(&req, version)),
        RequestBody::ListOffsets(req) => {
            ResponseBody::ListOffsets(state.leaders.list_offsets(&req, version))
        }
        RequestBody::WriteTxnMarkers(req) => {
            ResponseBody::WriteTxnMarkers(state.leaders.write_txn_markers(&req, version, listener))
        }
        RequestBody::InitProducerId(req) => {
            ResponseBody::InitProducerId(match state.coordinator.as_mut() {
                Some(c) => c.init_producer_id(&req, version, now),
                None => InitProducerIdResponse {
                    error_code: ErrorCode::NOT_COORDINATOR.code(),
                    producer_id: -1,
                    producer_epoch: -1,
                    ..Default::default()
                },
            })
        }
        RequestBody::AddPartitionsToTxn(req) => {
            ResponseBody::AddPartitionsToTxn(match state.coordinator.as_mut() {
                Some(c) => c.add_partitions_to_txn(&req, version, &state.cluster, now),
                None => not_coordinator_add_partitions(&req),
            })
        }
        RequestBody::EndTxn(req) => ResponseBody::EndTxn(match state.coordinator.as_mut() {
            Some(c) => {
                let response = c.end_txn(&req, version, now);
                if response.error_code == ErrorCode::NONE {
                    state.last_decision_ms = Some(now);
                    trace!(
                        shared.who,
                        "EndTxn {} producer {} epoch {}: decision written ({}); markers held {} ms",
                        &*req.transactional_id,
                        req.producer_id,
                        req.producer_epoch,
                        if req.committed { "commit" } else { "abort" },
                        shared.opts.hold_markers_ms
                    );
                }
                response
            }
            None => EndTxnResponse {
                error_code: ErrorCode::NOT_COORDINATOR.code(),
                producer_id: -1,
                producer_epoch: -1,
                ..Default::default()
            },
        }),
        other => {
            // Only reachable if the table of readable APIs names an API without a handler.
            trace!(shared.who, "no handler for {}", other.api().name());
            return None;
        }
    };
    Some(response)
}

fn not_coordinator_add_partitions(req: &AddPartitionsToTxnRequest) -> AddPartitionsToTxnResponse {
    AddPartitionsToTxnResponse {
        results_by_topic_v3_and_below: results_by_topic(&req.v3_and_below_topics, |_| {
            ErrorCode::NOT_COORDINATOR
        }),
        ..Default::default()
    }
}

/// Brokers (with their client ports), and the requested topics (all of them for a null list,
/// or an empty one at v0) with their partition leaders. Topics are never created here.
pub fn metadata(cluster: &Cluster, req: &MetadataRequest, version: i16) -> MetadataResponse {
    let names: Vec<String> = match &req.topics {
        None => cluster.topics.iter().map(|t| t.name.clone()).collect(),
        // v0 cannot send null: an empty list means every topic there.
        Some(topics) if topics.is_empty() && version == 0 => {
            cluster.topics.iter().map(|t| t.name.clone()).collect()
        }
        Some(topics) => topics
            .iter()
            .filter_map(|t| t.name.as_deref().map(str::to_owned))
            .collect(),
    };
    let topics = names
        .into_iter()
        .map(|name| match cluster.topic(&name) {
            None => MetadataResponseTopic {
                error_code: ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code(),
                name: Some(name.into()),
                ..Default::default()
            },
            Some(topic) => MetadataResponseTopic {
                error_code: ErrorCode::NONE.code(),
                name: Some(name.clone().into()),
                partitions: (0..topic.partitions)
                    .map(|p| {
                        let tp = crate::cluster::TopicPartition::new(name.clone(), p);
                        match cluster.leader(&tp) {
                            Some(leader) => MetadataResponsePartition {
                                error_code: ErrorCode::NONE.code(),
                                partition_index: p,
                                leader_id: leader,
                                replica_nodes: vec![leader].into(),
                                isr_nodes: vec![leader].into(),
                                ..Default::default()
                            },
                            None => MetadataResponsePartition {
                                error_code: ErrorCode::LEADER_NOT_AVAILABLE.code(),
                                partition_index: p,
                                leader_id: -1,
                                ..Default::default()
                            },
                        }
                    })
                    .collect(),
                ..Default::default()
            },
        })
        .collect();
    MetadataResponse {
        brokers: cluster
            .brokers
            .iter()
            .map(|b| MetadataResponseBroker {
                node_id: b.id,
                host: b.host.clone().into(),
                port: i32::from(b.client_port),
                rack: None,
                ..Default::default()
            })
            .collect(),
        cluster_id: Some(KafkaString::from_static(CLUSTER_ID)),
        controller_id: cluster.coordinator,
        topics,
        ..Default::default()
    }
}

/// Key type 1 (transactions): the coordinator's client address. Key type 0 (groups): this
/// cluster has no group coordinator.
pub fn find_coordinator(
    cluster: &Cluster,
    req: &FindCoordinatorRequest,
    _version: i16,
) -> FindCoordinatorResponse {
    let unavailable = |message: &'static str| FindCoordinatorResponse {
        error_code: ErrorCode::COORDINATOR_NOT_AVAILABLE.code(),
        error_message: Some(KafkaString::from_static(message)),
        node_id: -1,
        host: KafkaString::from_static(""),
        port: -1,
        ..Default::default()
    };
    if req.key_type != 1 {
        return unavailable("this cluster has no group coordinator");
    }
    match cluster.broker(cluster.coordinator) {
        Some(b) => FindCoordinatorResponse {
            error_code: ErrorCode::NONE.code(),
            error_message: None,
            node_id: b.id,
            host: b.host.clone().into(),
            port: i32::from(b.client_port),
            ..Default::default()
        },
        None => unavailable("the coordinator broker is not in the cluster file"),
    }
}

/// The phase-2 loop of the coordinator broker (idle on the others): poll the coordinator for
/// markers, send each to its leader's inter-broker port, report the outcome, tick.
fn marker_loop(shared: Arc<Shared>) {
    let client_id = format!("txn-broker-{}-markers", shared.opts.id);
    loop {
        let now = shared.now_ms();
        let sends: Vec<(MarkerSend, Option<BrokerInfo>)> = {
            let mut guard = shared.lock();
            shared.refresh(&mut guard);
            let state = &mut *guard;
            let held = state
                .last_decision_ms
                .is_some_and(|d| now < d.saturating_add(shared.opts.hold_markers_ms));
            match state.coordinator.as_mut() {
                Some(c) if !held => c
                    .poll_markers(&state.cluster, now)
                    .into_iter()
                    .map(|s| {
                        let to = state.cluster.broker(s.broker).cloned();
                        (s, to)
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        for (send, to) in sends {
            let result = send_markers(&shared, &client_id, &send, to.as_ref());
            let now = shared.now_ms();
            let mut guard = shared.lock();
            if let Some(c) = guard.coordinator.as_mut() {
                c.on_marker_result(send.id, result.as_ref(), now);
            }
            drop(guard);
            if shared.opts.marker_gap_ms > 0 {
                thread::sleep(Duration::from_millis(shared.opts.marker_gap_ms));
            }
        }
        {
            let now = shared.now_ms();
            let mut guard = shared.lock();
            if let Some(c) = guard.coordinator.as_mut() {
                c.tick(now);
            }
        }
        thread::sleep(MARKER_POLL);
    }
}

/// `topic-partition,...` of a marker request, for the trace.
fn marker_partitions(req: &WriteTxnMarkersRequest) -> String {
    let mut out = Vec::new();
    for m in &req.markers {
        for t in &m.topics {
            for p in &t.partition_indexes {
                out.push(format!(
                    "{}-{p} (producer {} epoch {} {})",
                    &*t.name,
                    m.producer_id,
                    m.producer_epoch,
                    if m.transaction_result {
                        "COMMIT"
                    } else {
                        "ABORT"
                    }
                ));
            }
        }
    }
    out.join(", ")
}

fn send_markers(
    shared: &Shared,
    client_id: &str,
    send: &MarkerSend,
    to: Option<&BrokerInfo>,
) -> Option<WriteTxnMarkersResponse> {
    let version = send.version();
    trace!(
        shared.who,
        "marker {} to broker {}: sending WriteTxnMarkers v{version}: {}",
        send.id,
        send.broker,
        marker_partitions(&send.request)
    );
    let Some(to) = to else {
        trace!(
            shared.who,
            "marker {} to broker {}: not in the cluster file",
            send.id,
            send.broker
        );
        return None;
    };
    let result = Client::connect(
        (to.host.as_str(), to.broker_port),
        client_id,
        MARKER_CONNECT_TIMEOUT,
        MARKER_IO_TIMEOUT,
    )
    .and_then(|mut client| {
        // Version 2 for a transaction of version 2: older versions drop the field that tells
        // the leader to apply the strict epoch rule.
        client.call(RequestBody::WriteTxnMarkers(send.request.clone()), version)
    });
    match result {
        Ok(ResponseBody::WriteTxnMarkers(resp)) => {
            let failed: Vec<String> = resp
                .markers
                .iter()
                .flat_map(|m| {
                    m.topics.iter().flat_map(move |t| {
                        t.partitions
                            .iter()
                            .filter(|p| p.error_code != ErrorCode::NONE)
                            .map(move |p| {
                                format!(
                                    "{}-{} producer {}: error {:?}",
                                    &*t.name,
                                    p.partition_index,
                                    m.producer_id,
                                    ErrorCode::from(p.error_code)
                                )
                            })
                    })
                })
                .collect();
            if failed.is_empty() {
                trace!(
                    shared.who,
                    "marker {} to broker {}: acknowledged",
                    send.id,
                    send.broker
                );
            } else {
                trace!(
                    shared.who,
                    "marker {} to broker {}: answered with errors: {}",
                    send.id,
                    send.broker,
                    failed.join(", ")
                );
            }
            Some(resp)
        }
        Ok(other) => {
            trace!(
                shared.who,
                "marker {} to broker {}: unexpected answer {}",
                send.id,
                send.broker,
                other.api().name()
            );
            None
        }
        Err(e) => {
            trace!(
                shared.who,
                "marker {} to broker {}: send failed: {e}",
                send.id,
                send.broker
            );
            None
        }
    }
}

/// A minimal blocking Kafka client over one TCP connection: one request at a time, each
/// waiting for its answer. Used by the marker sender and by the tests. Not for requests that
/// take no answer (Produce with acks=0).
pub struct Client {
    stream: TcpStream,
    client_id: String,
    next_correlation_id: i32,
    buf: BytesMut,
}

fn invalid(what: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

impl Client {
    /// Connects to the first address of `addr` that answers within `connect_timeout`; reads
    /// and writes then time out after `io_timeout`.
    pub fn connect(
        addr: impl ToSocketAddrs,
        client_id: &str,
        connect_timeout: Duration,
        io_timeout: Duration,
    ) -> io::Result<Self> {
        let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
        for a in addr.to_socket_addrs()? {
            match TcpStream::connect_timeout(&a, connect_timeout) {
                Ok(stream) => {
                    stream.set_read_timeout(Some(io_timeout))?;
                    stream.set_write_timeout(Some(io_timeout))?;
                    let _ = stream.set_nodelay(true);
                    return Ok(Self {
                        stream,
                        client_id: client_id.to_owned(),
                        next_correlation_id: 1,
                        buf: BytesMut::new(),
                    });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Sends `body` at `version` and returns the answer's body.
    pub fn call(&mut self, body: RequestBody, version: i16) -> io::Result<ResponseBody> {
        let key = body.api_key();
        let correlation_id = self.next_correlation_id;
        self.next_correlation_id = self.next_correlation_id.wrapping_add(1);
        let header = RequestHeader {
            request_api_key: key,
            request_api_version: version,
            correlation_id,
            client_id: Some(self.client_id.clone().into()),
            ..Default::default()
        };
        let mut out = BytesMut::new();
        frame::encode_request(&mut out, &header, &body).map_err(invalid)?;
        self.stream.write_all(&out)?;
        let mut chunk = vec![0u8; 64 * 1024];
        let frame = loop {
            if let Some(frame) =
                frame::split_frame(&mut self.buf, DEFAULT_MAX_FRAME_SIZE).map_err(invalid)?
            {
                break frame;
            }
            let n = self.stream.read(&mut chunk)?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "connection closed before the answer",
                ));
            }
            self.buf.extend_from_slice(&chunk[..n]);
        };
        // ApiVersions answers a version it does not know at v0.
        let decoded = frame::decode_response(frame.clone(), key, version).or_else(|e| {
            if key == ApiVersionsRequest::API_KEY && version != 0 {
                frame::decode_response(frame, key, 0)
            } else {
                Err(e)
            }
        });
        let (response_header, response) = decoded.map_err(invalid)?;
        if response_header.correlation_id != correlation_id {
            return Err(invalid(format!(
                "answer for correlation id {} while waiting for {correlation_id}",
                response_header.correlation_id
            )));
        }
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_wire::messages::metadata_request::MetadataRequestTopic;
    use kafka_wire::messages::{ApiVersionsRequest, EndTxnRequest, InitProducerIdRequest};

    /// A data directory and a cluster of `brokers` brokers on free ports, coordinated by
    /// `coordinator`, with topic `orders:3`.
    fn setup(name: &str, brokers: i32, coordinator: BrokerId) -> (PathBuf, Cluster) {
        let dir =
            std::env::temp_dir().join(format!("txn-broker-server-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        // Ports the OS hands out are free; the tests bind them again right after.
        let ports: Vec<u16> = (0..2 * brokers)
            .map(|_| {
                TcpListener::bind("127.0.0.1:0")
                    .and_then(|l| l.local_addr())
                    .unwrap()
                    .port()
            })
            .collect();
        let mut cluster = Cluster::new("127.0.0.1", 1, brokers, &[("orders", 3)]);
        for (i, b) in cluster.brokers.iter_mut().enumerate() {
            b.client_port = ports[2 * i];
            b.broker_port = ports[2 * i + 1];
        }
        cluster.coordinator = coordinator;
        write_cluster(&dir, &cluster).unwrap();
        (dir, cluster)
    }

    fn client(addr: SocketAddr) -> Client {
        Client::connect(
            addr,
            "server-test",
            Duration::from_secs(2),
            Duration::from_secs(5),
        )
        .unwrap()
    }

    /// A raw request frame: any key and version, header v1 (client id), `body` bytes.
    fn raw_frame(key: i16, version: i16, correlation_id: i32, body: &[u8]) -> Vec<u8> {
        let mut inner = Vec::new();
        inner.extend_from_slice(&key.to_be_bytes());
        inner.extend_from_slice(&version.to_be_bytes());
        inner.extend_from_slice(&correlation_id.to_be_bytes());
        inner.extend_from_slice(&4i16.to_be_bytes());
        inner.extend_from_slice(b"test");
        inner.extend_from_slice(body);
        let mut out = (inner.len() as i32).to_be_bytes().to_vec();
        out.extend_from_slice(&inner);
        out
    }

    fn read_frame(stream: &mut TcpStream) -> Option<Bytes> {
        let mut buf = BytesMut::new();
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(frame) = frame::split_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE).unwrap() {
                return Some(frame);
            }
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return None,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    fn versions(resp: &ApiVersionsResponse) -> Vec<(i16, i16, i16)> {
        resp.api_keys
            .iter()
            .map(|k| (k.api_key, k.min_version, k.max_version))
            .collect()
    }

    #[test]
    fn api_versions_lists_the_handled_apis_and_answers_newer_probes_at_v0() {
        let (dir, _) = setup("apiversions", 1, 0);
        let server = start(Options::new(&dir, 0)).unwrap();
        let expected_client: Vec<(i16, i16, i16)> = vec![
            (0, 3, 9),
            (1, 4, 12),
            (2, 1, 7),
            (3, 0, 9),
            (10, 0, 3),
            (18, 0, 3),
            (22, 0, 4),
            (24, 0, 3),
            (26, 0, 5),
        ];
        let mut c = client(server.client_addr);
        let ResponseBody::ApiVersions(resp) = c
            .call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 3)
            .unwrap()
        else {
            panic!("not an ApiVersions answer")
        };
        assert_eq!(resp.error_code, ErrorCode::NONE);
        assert_eq!(versions(&resp), expected_client);

        // The inter-broker listener adds WriteTxnMarkers.
        let mut b = client(server.broker_addr);
        let ResponseBody::ApiVersions(resp) = b
            .call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 0)
            .unwrap()
        else {
            panic!("not an ApiVersions answer")
        };
        let mut expected_broker = expected_client.clone();
        expected_broker.push((27, 0, 2));
        assert_eq!(versions(&resp), expected_broker);

        // A probe at v4 (which kafka-wire can read) and at v99 (which it cannot): both are
        // answered at v0 with UNSUPPORTED_VERSION and the list, correlation id kept, and the
        // connection stays open.
        let mut raw = TcpStream::connect(server.client_addr).unwrap();
        raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        for (version, corr) in [(4i16, 41), (99, 42)] {
            // v3+ bodies are flexible: two empty compact strings and no tagged fields; the
            // header of a flexible ApiVersions request is v2 (a tag section after the client id).
            raw.write_all(&raw_frame(18, version, corr, &[0, 1, 1, 0]))
                .unwrap();
            let frame = read_frame(&mut raw).expect("an answer");
            let (header, body) =
                frame::decode_response::<ResponseBody>(frame, ApiVersionsRequest::API_KEY, 0)
                    .expect("a v0 answer");
            assert_eq!(header.correlation_id, corr);
            let ResponseBody::ApiVersions(resp) = body else {
                panic!("not ApiVersions")
            };
            assert_eq!(resp.error_code, ErrorCode::UNSUPPORTED_VERSION);
            assert_eq!(versions(&resp), expected_client);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn metadata_reports_leaders_unknown_topics_and_follows_the_cluster_file() {
        let (dir, mut cluster) = setup("metadata", 3, 1);
        let server = start(Options::new(&dir, 0)).unwrap();
        let mut c = client(server.client_addr);
        let mut ask = |topics: Option<Vec<&str>>, version: i16| {
            let req = MetadataRequest {
                topics: topics.map(|names| {
                    names
                        .into_iter()
                        .map(|n| MetadataRequestTopic {
                            name: Some(n.to_owned().into()),
                            ..Default::default()
                        })
                        .collect()
                }),
                // The field exists from v4 on.
                allow_auto_topic_creation: version < 4,
                ..Default::default()
            };
            match c.call(RequestBody::Metadata(req), version).unwrap() {
                ResponseBody::Metadata(m) => m,
                other => panic!("{other:?}"),
            }
        };
        let all = ask(None, 9);
        let brokers: Vec<(i32, i32)> = all.brokers.iter().map(|b| (b.node_id, b.port)).collect();
        let expected: Vec<(i32, i32)> = cluster
            .brokers
            .iter()
            .map(|b| (b.id, i32::from(b.client_port)))
            .collect();
        assert_eq!(brokers, expected);
        assert_eq!(all.controller_id, 1);
        assert_eq!(all.topics.len(), 1);
        let leaders: Vec<(i32, i32, Vec<i32>)> = all.topics[0]
            .partitions
            .iter()
            .map(|p| (p.partition_index, p.leader_id, p.isr_nodes.to_vec()))
            .collect();
        assert_eq!(
            leaders,
            vec![(0, 0, vec![0]), (1, 1, vec![1]), (2, 2, vec![2])]
        );
        // v0: the empty list means all topics; v1+: an empty list means none.
        assert_eq!(ask(Some(vec![]), 0).topics.len(), 1);
        assert_eq!(ask(Some(vec![]), 1).topics.len(), 0);
        let unknown = ask(Some(vec!["nope", "orders"]), 9);
        assert_eq!(
            unknown.topics[0].error_code,
            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
        );
        assert_eq!(unknown.topics[0].name.as_deref(), Some("nope"));
        assert_eq!(unknown.topics[1].error_code, ErrorCode::NONE);

        // A leader moved in the file shows in the next answer.
        assert!(cluster.move_leader(&crate::cluster::TopicPartition::new("orders", 0), 2));
        // Coarse file-system clocks: make sure the modification time changes.
        thread::sleep(Duration::from_millis(20));
        write_cluster(&dir, &cluster).unwrap();
        let moved = ask(None, 9);
        assert_eq!(moved.topics[0].partitions[0].leader_id, 2);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn find_coordinator_and_requests_to_a_broker_that_does_not_coordinate() {
        // Broker 1 coordinates; only broker 0 runs.
        let (dir, cluster) = setup("coordinator", 2, 1);
        let server = start(Options::new(&dir, 0)).unwrap();
        let mut c = client(server.client_addr);
        let find = |c: &mut Client, key_type: i8| {
            let req = FindCoordinatorRequest {
                key: "some-id".into(),
                key_type,
                ..Default::default()
            };
            match c.call(RequestBody::FindCoordinator(req), 3).unwrap() {
                ResponseBody::FindCoordinator(r) => r,
                other => panic!("{other:?}"),
            }
        };
        let txn = find(&mut c, 1);
        assert_eq!(txn.error_code, ErrorCode::NONE);
        assert_eq!(txn.node_id, 1);
        assert_eq!(txn.port, i32::from(cluster.brokers[1].client_port));
        assert_eq!(&*txn.host, "127.0.0.1");
        let group = find(&mut c, 0);
        assert_eq!(group.error_code, ErrorCode::COORDINATOR_NOT_AVAILABLE);

        let init = InitProducerIdRequest {
            transactional_id: Some("t".into()),
            transaction_timeout_ms: 1000,
            producer_id: -1,
            producer_epoch: -1,
            ..Default::default()
        };
        match c.call(RequestBody::InitProducerId(init), 4).unwrap() {
            ResponseBody::InitProducerId(r) => assert_eq!(r.error_code, ErrorCode::NOT_COORDINATOR),
            other => panic!("{other:?}"),
        }
        let end = EndTxnRequest {
            transactional_id: "t".into(),
            producer_id: 1,
            producer_epoch: 0,
            committed: true,
            ..Default::default()
        };
        match c.call(RequestBody::EndTxn(end), 3).unwrap() {
            ResponseBody::EndTxn(r) => assert_eq!(r.error_code, ErrorCode::NOT_COORDINATOR),
            other => panic!("{other:?}"),
        }
        let add = AddPartitionsToTxnRequest {
            v3_and_below_transactional_id: "t".into(),
            v3_and_below_producer_id: 1,
            v3_and_below_topics: vec![
                kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic {
                    name: "orders".into(),
                    partitions: vec![0, 2].into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        match c.call(RequestBody::AddPartitionsToTxn(add), 3).unwrap() {
            ResponseBody::AddPartitionsToTxn(r) => {
                let codes: Vec<(i32, ErrorCode)> = r.results_by_topic_v3_and_below[0]
                    .results_by_partition
                    .iter()
                    .map(|p| (p.partition_index, ErrorCode::from(p.partition_error_code)))
                    .collect();
                assert_eq!(
                    codes,
                    vec![
                        (0, ErrorCode::NOT_COORDINATOR),
                        (2, ErrorCode::NOT_COORDINATOR)
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn unknown_apis_unsupported_versions_and_garbage_close_the_connection() {
        let (dir, _) = setup("close", 1, 0);
        let server = start(Options::new(&dir, 0)).unwrap();
        let cases: [Vec<u8>; 4] = [
            // OffsetFetch (key 9): not handled here.
            raw_frame(9, 1, 1, &[]),
            // Produce v2: below the advertised range.
            raw_frame(0, 2, 2, &[]),
            // Metadata v9 with a body cut short.
            raw_frame(3, 9, 3, &[0]),
            // Shorter than a request header.
            vec![0, 0, 0, 2, 0, 3],
        ];
        for frame in cases {
            let mut raw = TcpStream::connect(server.client_addr).unwrap();
            raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
            raw.write_all(&frame).unwrap();
            assert!(read_frame(&mut raw).is_none(), "answered {frame:?}");
        }
        // The broker still serves new connections.
        let mut c = client(server.client_addr);
        assert!(c
            .call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 3)
            .is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn fetch_v12(c: &mut Client, partition: i32, offset: i64, max_wait_ms: i32) -> FetchResponse {
        use kafka_wire::messages::fetch_request::{FetchPartition, FetchTopic};
        let req = FetchRequest {
            replica_id: -1,
            max_wait_ms,
            min_bytes: 1,
            max_bytes: 1 << 20,
            isolation_level: 0,
            topics: vec![FetchTopic {
                topic: "orders".into(),
                partitions: vec![FetchPartition {
                    partition,
                    fetch_offset: offset,
                    partition_max_bytes: 1 << 20,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        match c.call(RequestBody::Fetch(req), 12).unwrap() {
            ResponseBody::Fetch(r) => r,
            other => panic!("{other:?}"),
        }
    }

    /// Every batch of one partition, read from its leader with read_uncommitted.
    fn log_of(c: &mut Client, partition: i32) -> Vec<kafka_wire::records::RecordBatch> {
        let resp = fetch_v12(c, partition, 0, 0);
        let data = &resp.responses[0].partitions[0];
        assert_eq!(data.error_code, ErrorCode::NONE);
        let bytes = data.records.as_ref().map(|r| r.as_bytes().clone());
        kafka_wire::records::RecordsReader::new(bytes.unwrap_or_default())
            .into_owned()
            .map(|b| b.unwrap())
            .collect()
    }

    fn produce_txn(c: &mut Client, partition: i32, producer: (i64, i16), sequence: i32) -> i16 {
        use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
        use kafka_wire::messages::ProduceRequest;
        use kafka_wire::records::{Record, RecordBatchBuilder};
        let records = RecordBatchBuilder::new()
            .producer(producer.0, producer.1, sequence)
            .transactional(true)
            .record(Record::new(None, Some(Bytes::from_static(b"v"))))
            .encode()
            .unwrap();
        let req = ProduceRequest {
            transactional_id: Some("tv2".into()),
            acks: -1,
            timeout_ms: 5000,
            topic_data: vec![TopicProduceData {
                name: "orders".into(),
                partition_data: vec![PartitionProduceData {
                    index: partition,
                    records: Some(records),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        match c.call(RequestBody::Produce(req), 9).unwrap() {
            ResponseBody::Produce(r) => r.responses[0].partition_responses[0].error_code,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_empty_fetch_waits_for_max_wait_ms_and_data_is_answered_at_once() {
        let (dir, _) = setup("fetchwait", 1, 0);
        let server = start(Options::new(&dir, 0)).unwrap();
        let mut c = client(server.client_addr);
        let t = Instant::now();
        let empty = fetch_v12(&mut c, 0, 0, 300);
        assert!(
            t.elapsed() >= Duration::from_millis(250),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(empty.responses[0].partitions[0].error_code, ErrorCode::NONE);
        // A fetch that cannot succeed (no such partition) is answered without waiting.
        let t = Instant::now();
        let bad = fetch_v12(&mut c, 7, 0, 5000);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        assert_eq!(
            bad.responses[0].partitions[0].error_code,
            ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
        );
        // Data is answered at once, however long the client would wait.
        assert_eq!(produce_txn(&mut c, 0, (5, 0), 0), ErrorCode::NONE);
        let t = Instant::now();
        let full = fetch_v12(&mut c, 0, 0, 5000);
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        let records = full.responses[0].partitions[0].records.as_ref().unwrap();
        assert!(!records.as_bytes().is_empty());
        // The brokers' threads go on running (and may still write there).
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn init_producer(c: &mut Client, id: &str) -> (i64, i16) {
        use kafka_wire::messages::InitProducerIdRequest;
        let init = InitProducerIdRequest {
            transactional_id: Some(id.to_owned().into()),
            transaction_timeout_ms: 60_000,
            producer_id: -1,
            producer_epoch: -1,
            ..Default::default()
        };
        match c.call(RequestBody::InitProducerId(init), 4).unwrap() {
            ResponseBody::InitProducerId(r) => {
                assert_eq!(r.error_code, ErrorCode::NONE);
                (r.producer_id, r.producer_epoch)
            }
            other => panic!("{other:?}"),
        }
    }

    /// AddPartitionsToTxn, retried while the previous transaction is still finishing.
    fn add_partitions(c: &mut Client, id: &str, producer: (i64, i16), partitions: Vec<i32>) {
        use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
        let add = AddPartitionsToTxnRequest {
            v3_and_below_transactional_id: id.to_owned().into(),
            v3_and_below_producer_id: producer.0,
            v3_and_below_producer_epoch: producer.1,
            v3_and_below_topics: vec![AddPartitionsToTxnTopic {
                name: "orders".into(),
                partitions: partitions.into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let codes: Vec<ErrorCode> = match c
                .call(RequestBody::AddPartitionsToTxn(add.clone()), 3)
                .unwrap()
            {
                ResponseBody::AddPartitionsToTxn(r) => r.results_by_topic_v3_and_below[0]
                    .results_by_partition
                    .iter()
                    .map(|p| ErrorCode::from(p.partition_error_code))
                    .collect(),
                other => panic!("{other:?}"),
            };
            let busy = codes.contains(&ErrorCode::CONCURRENT_TRANSACTIONS);
            if busy && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(20));
                continue;
            }
            assert!(
                codes.iter().all(|&code| code == ErrorCode::NONE),
                "{codes:?}"
            );
            return;
        }
    }

    /// EndTxn commit at `version`; the epoch the producer has afterwards.
    fn commit(c: &mut Client, id: &str, producer: (i64, i16), version: i16) -> i16 {
        use kafka_wire::messages::EndTxnRequest;
        let end = EndTxnRequest {
            transactional_id: id.to_owned().into(),
            producer_id: producer.0,
            producer_epoch: producer.1,
            committed: true,
            ..Default::default()
        };
        match c.call(RequestBody::EndTxn(end), version).unwrap() {
            ResponseBody::EndTxn(r) => {
                assert_eq!(r.error_code, ErrorCode::NONE);
                if version >= 5 {
                    assert_eq!(r.producer_id, producer.0);
                    r.producer_epoch
                } else {
                    producer.1
                }
            }
            other => panic!("{other:?}"),
        }
    }

    /// The marker sender picks the WriteTxnMarkers version per transaction: a fake leader on
    /// broker 1's inter-broker port records what arrives. A transaction ended with EndTxn v3
    /// (transaction version 1) gets v1 markers; one ended with EndTxn v5 gets v2 markers that
    /// carry transaction version 2 and the bumped epoch.
    #[test]
    fn the_marker_sender_uses_v2_for_transaction_version_2() {
        // Broker 0 coordinates; broker 1 (leader of orders-1) is the fake below.
        let (dir, cluster) = setup("senderversion", 2, 0);
        let fake = TcpListener::bind(("127.0.0.1", cluster.brokers[1].broker_port)).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        thread::spawn(move || {
            for stream in fake.incoming() {
                let Ok(mut stream) = stream else { return };
                let Some(frame) = read_frame(&mut stream) else {
                    continue;
                };
                let (header, body) = frame::decode_request::<RequestBody>(frame).unwrap();
                let RequestBody::WriteTxnMarkers(req) = body else {
                    panic!("the fake leader got {:?}", body.api_key())
                };
                let version = header.request_api_version;
                // Every partition acknowledged, so the coordinator completes the transaction.
                let answer = crate::leader::answer_markers(&req, |_, _| ErrorCode::NONE);
                let mut out = BytesMut::new();
                let header = ResponseHeader {
                    correlation_id: header.correlation_id,
                    ..Default::default()
                };
                frame::encode_response(
                    &mut out,
                    &header,
                    &ResponseBody::WriteTxnMarkers(answer),
                    version,
                )
                .unwrap();
                let _ = stream.write_all(&out);
                if tx.send((version, req)).is_err() {
                    return;
                }
            }
        });
        let server = start(Options::new(&dir, 0)).unwrap();
        let mut c = client(server.client_addr);
        let id = "sender-version";
        let first = init_producer(&mut c, id);
        add_partitions(&mut c, id, first, vec![1]);
        assert_eq!(commit(&mut c, id, first, 3), first.1);
        let (version, req) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(version, 1);
        assert_eq!(req.markers[0].producer_epoch, first.1);

        add_partitions(&mut c, id, first, vec![1]);
        let bumped = commit(&mut c, id, first, 5);
        assert_eq!(bumped, first.1 + 1);
        let (version, req) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert_eq!(version, 2);
        assert_eq!(req.markers[0].transaction_version, 2);
        assert_eq!(req.markers[0].producer_epoch, bumped);
        // The brokers' threads go on running (and may still write there).
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// EndTxn v5 (transaction version 2) over TCP between real brokers: the coordinator bumps
    /// the epoch and its v2 markers are accepted on the inter-broker listener and written with
    /// the bumped epoch. A marker that reaches a leader at v2 is held to the strict rule (a
    /// marker epoch equal to the epoch of the open transaction's data is a stale duplicate and
    /// is refused), while the same marker at v1 cannot say so and is applied.
    #[test]
    fn transaction_version_2_markers_travel_at_v2_and_are_held_to_the_strict_rule() {
        use kafka_wire::messages::write_txn_markers_request::{
            WritableTxnMarker, WritableTxnMarkerTopic,
        };
        use kafka_wire::records::ControlRecordType;

        // Broker 0 coordinates and leads orders-0 and orders-2; broker 1 leads orders-1.
        let (dir, _) = setup("tv2", 2, 0);
        let b0 = start(Options::new(&dir, 0)).unwrap();
        let b1 = start(Options::new(&dir, 1)).unwrap();
        let mut c0 = client(b0.client_addr);
        let mut c1 = client(b1.client_addr);
        let (pid, epoch) = init_producer(&mut c0, "tv2");
        add_partitions(&mut c0, "tv2", (pid, epoch), vec![0, 1]);
        assert_eq!(produce_txn(&mut c0, 0, (pid, epoch), 0), ErrorCode::NONE);
        assert_eq!(produce_txn(&mut c1, 1, (pid, epoch), 0), ErrorCode::NONE);
        let bumped = commit(&mut c0, "tv2", (pid, epoch), 5);
        assert_eq!(bumped, epoch + 1);

        // Both leaders get their COMMIT marker, written with the bumped epoch.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut coordinator_epoch = None;
        for (c, partition) in [(&mut c0, 0), (&mut c1, 1)] {
            loop {
                let log = log_of(c, partition);
                if let Some(marker) = log.iter().find(|b| b.header.is_control) {
                    let control = marker.control_record().unwrap().unwrap();
                    assert_eq!(control.kind, ControlRecordType::Commit);
                    assert_eq!(
                        (marker.header.producer_id, marker.header.producer_epoch),
                        (pid, bumped)
                    );
                    coordinator_epoch = control.marker.map(|m| m.coordinator_epoch);
                    assert_eq!(log.len(), 2, "data and one marker");
                    break;
                }
                assert!(Instant::now() < deadline, "no marker on orders-{partition}");
                thread::sleep(Duration::from_millis(20));
            }
        }
        let coordinator_epoch = coordinator_epoch.expect("the marker names its coordinator epoch");

        // The next transaction's data is at the bumped epoch. A COMMIT marker at that same
        // epoch is what a stale duplicate of the previous transaction's marker looks like.
        assert_eq!(produce_txn(&mut c1, 1, (pid, bumped), 0), ErrorCode::NONE);
        let stale = WriteTxnMarkersRequest {
            markers: vec![WritableTxnMarker {
                producer_id: pid,
                producer_epoch: bumped,
                transaction_result: true,
                topics: vec![WritableTxnMarkerTopic {
                    name: "orders".into(),
                    partition_indexes: vec![1].into(),
                    ..Default::default()
                }],
                coordinator_epoch,
                transaction_version: 2,
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut inter = client(b1.broker_addr);
        let code_at = |inter: &mut Client, version: i16| match inter
            .call(RequestBody::WriteTxnMarkers(stale.clone()), version)
            .unwrap()
        {
            ResponseBody::WriteTxnMarkers(r) => r.markers[0].topics[0].partitions[0].error_code,
            other => panic!("{other:?}"),
        };
        assert_eq!(code_at(&mut inter, 2), ErrorCode::INVALID_PRODUCER_EPOCH);
        assert_eq!(log_of(&mut c1, 1).len(), 3, "nothing appended");
        // At v1 the transaction version is lost on the wire and the lenient rule applies: the
        // stale marker would end the new transaction. This is why the sender must use v2.
        assert_eq!(code_at(&mut inter, 1), ErrorCode::NONE);
        assert_eq!(log_of(&mut c1, 1).len(), 4);
        // The brokers' threads go on running (and may still write there).
        let _ = std::fs::remove_dir_all(&dir);
    }
}
