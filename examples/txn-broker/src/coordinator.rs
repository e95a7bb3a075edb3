//! The transaction coordinator: the state of every transactional id, kept in a durable log,
//! and the two-phase finish of a transaction.
//!
//! Phase 1 is the decision: EndTxn (or an abort forced by a new incarnation of the producer, or
//! by a timeout) writes PrepareCommit / PrepareAbort to the log, and only then answers. Phase 2
//! delivers the decision to the leader of every partition the transaction wrote to, as
//! WriteTxnMarkers requests handed out by [`Coordinator::poll_markers`]; their outcomes come
//! back through [`Coordinator::on_marker_result`], failed partitions are retried with an
//! exponential backoff, and once every partition has acknowledged, CompleteCommit /
//! CompleteAbort is written. A coordinator that crashes between the phases finds the Prepare
//! record again in [`Coordinator::load`] and sends the markers anew, with a higher coordinator
//! epoch.
//!
//! Every state change is appended to the log and synced before it takes effect in memory or is
//! answered; when the append fails the request is answered COORDINATOR_NOT_AVAILABLE and the
//! state stays as it was. Time is always passed in (`now_ms`).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;

use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use kafka_wire::messages::add_partitions_to_txn_response::{
    AddPartitionsToTxnPartitionResult, AddPartitionsToTxnResult, AddPartitionsToTxnTopicResult,
};
use kafka_wire::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, EndTxnRequest, EndTxnResponse,
    InitProducerIdRequest, InitProducerIdResponse, WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};
use kafka_wire::{ErrorCode, KafkaString};

use crate::cluster::{BrokerId, Cluster, TopicPartition};
use crate::storage::Storage;
use crate::trace;
use crate::txn_log::{
    CoordinatorEpochRecord, LogRecord, ProducerIdBlockRecord, TxnLog, TxnMetadataRecord,
    TxnTopicRecord,
};

/// The longest transaction timeout a producer may ask for (Kafka's default maximum).
pub const MAX_TRANSACTION_TIMEOUT_MS: i32 = 900_000;
/// The wait before the first resend of a partition's marker.
pub const MARKER_BACKOFF_INITIAL_MS: u64 = 50;
/// The backoff doubles after each failure up to this.
pub const MARKER_BACKOFF_MAX_MS: u64 = 2_000;
/// Producer ids are reserved in the log this many at a time.
const PRODUCER_ID_BLOCK: i64 = 1000;
/// From this epoch on a producer id is used up: the next bump hands out a new producer id.
const EXHAUSTED_EPOCH: i16 = i16::MAX - 1;

/// Where a transaction stands (Kafka's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnState {
    /// A producer id and epoch, no transaction under way.
    Empty,
    /// Partitions were added; neither committed nor aborted yet.
    Ongoing,
    /// Commit decided and logged; markers being delivered.
    PrepareCommit,
    /// Abort decided and logged; markers being delivered.
    PrepareAbort,
    /// Every partition has its commit marker.
    CompleteCommit,
    /// Every partition has its abort marker.
    CompleteAbort,
}

impl TxnState {
    fn code(self) -> i8 {
        match self {
            TxnState::Empty => 0,
            TxnState::Ongoing => 1,
            TxnState::PrepareCommit => 2,
            TxnState::PrepareAbort => 3,
            TxnState::CompleteCommit => 4,
            TxnState::CompleteAbort => 5,
        }
    }

    fn from_code(code: i8) -> Option<Self> {
        Some(match code {
            0 => TxnState::Empty,
            1 => TxnState::Ongoing,
            2 => TxnState::PrepareCommit,
            3 => TxnState::PrepareAbort,
            4 => TxnState::CompleteCommit,
            5 => TxnState::CompleteAbort,
            _ => return None,
        })
    }

    fn is_prepare(self) -> bool {
        matches!(self, TxnState::PrepareCommit | TxnState::PrepareAbort)
    }

    fn is_complete(self) -> bool {
        matches!(self, TxnState::CompleteCommit | TxnState::CompleteAbort)
    }

    /// The outcome this state stands for, if it stands for one.
    fn outcome(self) -> Option<bool> {
        match self {
            TxnState::PrepareCommit | TxnState::CompleteCommit => Some(true),
            TxnState::PrepareAbort | TxnState::CompleteAbort => Some(false),
            _ => None,
        }
    }
}

/// What [`Coordinator::state_of`] tells about one transactional id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnSummary {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub state: TxnState,
    /// The partitions of the transaction under way (empty once complete).
    pub partitions: Vec<TopicPartition>,
    /// Partitions whose marker is not acknowledged yet.
    pub pending_markers: Vec<TopicPartition>,
    /// 1 or 2, as learnt from the last EndTxn.
    pub transaction_version: i8,
    /// A leader answered TRANSACTION_COORDINATOR_FENCED: this coordinator gave up on it.
    pub deposed: bool,
}

/// One WriteTxnMarkers request to send, and the id to report its outcome with.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkerSend {
    pub id: u64,
    pub broker: BrokerId,
    pub request: WriteTxnMarkersRequest,
}

impl MarkerSend {
    /// The WriteTxnMarkers version to send the request at: 1, or 2 when a marker belongs to a
    /// transaction of version 2 (the field that tells the leader so exists from version 2 on).
    pub fn version(&self) -> i16 {
        if self
            .request
            .markers
            .iter()
            .any(|m| m.transaction_version >= 2)
        {
            2
        } else {
            1
        }
    }
}

/// The durable part of a transactional id's state.
#[derive(Debug, Clone, PartialEq)]
struct TxnMeta {
    producer_id: i64,
    producer_epoch: i16,
    prev_producer_id: i64,
    prev_producer_epoch: i16,
    next_producer_id: i64,
    timeout_ms: i32,
    state: TxnState,
    partitions: BTreeSet<TopicPartition>,
    txn_start_ms: u64,
    last_update_ms: u64,
    transaction_version: i8,
}

impl TxnMeta {
    fn new(producer_id: i64, timeout_ms: i32, now_ms: u64) -> Self {
        TxnMeta {
            producer_id,
            producer_epoch: 0,
            prev_producer_id: -1,
            prev_producer_epoch: -1,
            next_producer_id: -1,
            timeout_ms,
            state: TxnState::Empty,
            partitions: BTreeSet::new(),
            txn_start_ms: now_ms,
            last_update_ms: now_ms,
            transaction_version: 1,
        }
    }

    /// The producer id and epoch the client holds now.
    fn identity(&self) -> (i64, i16) {
        if self.next_producer_id >= 0 {
            (self.next_producer_id, 0)
        } else {
            (self.producer_id, self.producer_epoch)
        }
    }

    fn prev_identity(&self) -> (i64, i16) {
        (self.prev_producer_id, self.prev_producer_epoch)
    }

    fn to_record(&self, transactional_id: &str) -> TxnMetadataRecord {
        let mut topics: Vec<TxnTopicRecord> = Vec::new();
        for tp in &self.partitions {
            match topics.last_mut() {
                Some(t) if t.name == tp.topic => t.partitions.push(tp.partition),
                _ => topics.push(TxnTopicRecord {
                    name: tp.topic.clone(),
                    partitions: vec![tp.partition],
                    ..Default::default()
                }),
            }
        }
        TxnMetadataRecord {
            transactional_id: transactional_id.to_owned(),
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            prev_producer_id: self.prev_producer_id,
            prev_producer_epoch: self.prev_producer_epoch,
            next_producer_id: self.next_producer_id,
            timeout_ms: self.timeout_ms,
            state: self.state.code(),
            topics,
            txn_start_ms: self.txn_start_ms as i64,
            last_update_ms: self.last_update_ms as i64,
            transaction_version: self.transaction_version,
            ..Default::default()
        }
    }

    fn from_record(r: &TxnMetadataRecord) -> io::Result<Self> {
        let state = TxnState::from_code(r.state).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "txn-log: transaction {} has unknown state {}",
                    r.transactional_id, r.state
                ),
            )
        })?;
        let partitions = r
            .topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(|&p| TopicPartition::new(t.name.clone(), p))
            })
            .collect();
        Ok(TxnMeta {
            producer_id: r.producer_id,
            producer_epoch: r.producer_epoch,
            prev_producer_id: r.prev_producer_id,
            prev_producer_epoch: r.prev_producer_epoch,
            next_producer_id: r.next_producer_id,
            timeout_ms: r.timeout_ms,
            state,
            partitions,
            txn_start_ms: r.txn_start_ms.max(0) as u64,
            last_update_ms: r.last_update_ms.max(0) as u64,
            transaction_version: r.transaction_version,
        })
    }
}

/// Delivery state of one partition's marker.
#[derive(Debug, Clone)]
struct PendingMarker {
    /// Not sent again before this.
    next_at_ms: u64,
    /// The wait after the next failure.
    backoff_ms: u64,
    /// The send it is part of, while one is out.
    in_flight: Option<u64>,
}

#[derive(Debug)]
struct Txn {
    meta: TxnMeta,
    pending: BTreeMap<TopicPartition, PendingMarker>,
    deposed: bool,
}

/// A send handed out by `poll_markers` and not yet reported: which partitions of which
/// transactions it carries.
#[derive(Debug)]
struct InFlight {
    broker: BrokerId,
    parts: Vec<(String, i64, TopicPartition)>,
}

/// The transaction coordinator of one broker.
pub struct Coordinator {
    who: String,
    log: TxnLog,
    epoch: i32,
    txns: BTreeMap<String, Txn>,
    next_producer_id: i64,
    producer_id_block_end: i64,
    next_send_id: u64,
    in_flight: HashMap<u64, InFlight>,
}

/// The error for a request from a fenced producer: PRODUCER_FENCED for clients that know it,
/// INVALID_PRODUCER_EPOCH for the request versions that came before it.
fn fenced_code(version: i16, first_version_with_fenced: i16) -> ErrorCode {
    if version >= first_version_with_fenced {
        ErrorCode::PRODUCER_FENCED
    } else {
        ErrorCode::INVALID_PRODUCER_EPOCH
    }
}

/// The epoch that fences the current one, or the same one when no higher exists.
fn fencing_epoch(epoch: i16) -> i16 {
    if epoch < i16::MAX {
        epoch + 1
    } else {
        epoch
    }
}

fn init_response(error_code: ErrorCode, identity: (i64, i16)) -> InitProducerIdResponse {
    InitProducerIdResponse {
        error_code: error_code.code(),
        producer_id: identity.0,
        producer_epoch: identity.1,
        ..Default::default()
    }
}

fn end_response(error_code: ErrorCode, identity: (i64, i16)) -> EndTxnResponse {
    EndTxnResponse {
        error_code: error_code.code(),
        producer_id: identity.0,
        producer_epoch: identity.1,
        ..Default::default()
    }
}

impl Coordinator {
    /// Replays the transaction log in `storage` (file `txn-log`), bumps and durably records
    /// the coordinator epoch, and queues phase-2 markers for every transaction left in
    /// PrepareCommit/PrepareAbort.
    pub fn load(broker: BrokerId, storage: Box<dyn Storage>) -> io::Result<Self> {
        let who = format!("broker {broker} coordinator");
        let (mut log, records) = TxnLog::open(storage)?;
        let mut epoch = 0;
        let mut block_end = 0i64;
        let mut highest_pid = -1i64;
        let mut txns = BTreeMap::new();
        let replayed = records.len();
        for record in records {
            match record {
                LogRecord::Txn(r) => {
                    let meta = TxnMeta::from_record(&r)?;
                    highest_pid = highest_pid
                        .max(meta.producer_id)
                        .max(meta.prev_producer_id)
                        .max(meta.next_producer_id);
                    txns.insert(
                        r.transactional_id,
                        Txn {
                            meta,
                            pending: BTreeMap::new(),
                            deposed: false,
                        },
                    );
                }
                LogRecord::CoordinatorEpoch(r) => epoch = epoch.max(r.coordinator_epoch),
                LogRecord::ProducerIdBlock(r) => block_end = block_end.max(r.block_end),
            }
        }
        let epoch = epoch.checked_add(1).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidData, "coordinator epoch exhausted")
        })?;
        log.append(&LogRecord::CoordinatorEpoch(CoordinatorEpochRecord {
            coordinator_epoch: epoch,
            ..Default::default()
        }))?;
        let next_producer_id = block_end.max(highest_pid + 1);
        trace!(
            who,
            "loaded {replayed} log records: {} transactional ids, coordinator epoch {epoch}, next producer id {next_producer_id}",
            txns.len()
        );
        let mut coordinator = Coordinator {
            who,
            log,
            epoch,
            txns,
            next_producer_id,
            // The block in memory is empty: the first id handed out reserves a new one.
            producer_id_block_end: next_producer_id,
            next_send_id: 1,
            in_flight: HashMap::new(),
        };
        let unfinished: Vec<String> = coordinator
            .txns
            .iter()
            .filter(|(_, t)| t.meta.state.is_prepare())
            .map(|(id, _)| id.clone())
            .collect();
        for id in unfinished {
            let txn = coordinator.txns.get_mut(&id).expect("listed above");
            trace!(
                coordinator.who,
                "{id}: found in {:?} after load, markers for {} partitions queued again",
                txn.meta.state,
                txn.meta.partitions.len()
            );
            Self::queue_markers(txn, 0);
        }
        Ok(coordinator)
    }

    /// The coordinator epoch of this incarnation (the number of times the log was loaded).
    pub fn epoch(&self) -> i32 {
        self.epoch
    }

    /// For tests and invariant checks.
    pub fn state_of(&self, transactional_id: &str) -> Option<TxnSummary> {
        self.txns.get(transactional_id).map(|t| TxnSummary {
            producer_id: t.meta.producer_id,
            producer_epoch: t.meta.producer_epoch,
            state: t.meta.state,
            partitions: t.meta.partitions.iter().cloned().collect(),
            pending_markers: t.pending.keys().cloned().collect(),
            transaction_version: t.meta.transaction_version,
            deposed: t.deposed,
        })
    }

    /// A producer id never handed out before, by any incarnation of this coordinator.
    fn allocate_producer_id(&mut self) -> io::Result<i64> {
        if self.next_producer_id >= self.producer_id_block_end {
            let block_end = self.next_producer_id + PRODUCER_ID_BLOCK;
            self.log
                .append(&LogRecord::ProducerIdBlock(ProducerIdBlockRecord {
                    block_end,
                    ..Default::default()
                }))?;
            trace!(
                self.who,
                "reserved producer ids {}..{block_end}",
                self.next_producer_id
            );
            self.producer_id_block_end = block_end;
        }
        let id = self.next_producer_id;
        self.next_producer_id += 1;
        Ok(id)
    }

    /// Writes `meta` for `id` to the log and, once durable, makes it the state in memory.
    fn persist(&mut self, id: &str, meta: TxnMeta) -> io::Result<()> {
        if let Err(e) = self.log.append(&LogRecord::Txn(meta.to_record(id))) {
            trace!(self.who, "{id}: txn-log append failed: {e}");
            return Err(e);
        }
        trace!(
            self.who,
            "{id}: logged {:?} producer {} epoch {} partitions {}",
            meta.state,
            meta.producer_id,
            meta.producer_epoch,
            meta.partitions.len()
        );
        match self.txns.get_mut(id) {
            Some(txn) => txn.meta = meta,
            None => {
                self.txns.insert(
                    id.to_owned(),
                    Txn {
                        meta,
                        pending: BTreeMap::new(),
                        deposed: false,
                    },
                );
            }
        }
        Ok(())
    }

    /// Makes every partition of a Prepare transaction due for a marker at `now_ms`.
    fn queue_markers(txn: &mut Txn, now_ms: u64) {
        txn.deposed = false;
        txn.pending = txn
            .meta
            .partitions
            .iter()
            .map(|tp| {
                (
                    tp.clone(),
                    PendingMarker {
                        next_at_ms: now_ms,
                        backoff_ms: MARKER_BACKOFF_INITIAL_MS,
                        in_flight: None,
                    },
                )
            })
            .collect();
    }

    /// Logs the decision `commit` for `id` (whose new producer id / epoch are already in
    /// `meta`) and queues its markers; a transaction without partitions is complete at once.
    fn decide(&mut self, id: &str, mut meta: TxnMeta, commit: bool, now_ms: u64) -> io::Result<()> {
        meta.last_update_ms = now_ms;
        if meta.partitions.is_empty() {
            meta.state = if commit {
                TxnState::CompleteCommit
            } else {
                TxnState::CompleteAbort
            };
            if meta.next_producer_id >= 0 {
                meta.producer_id = meta.next_producer_id;
                meta.producer_epoch = 0;
                meta.next_producer_id = -1;
            }
            trace!(
                self.who,
                "{id}: no partitions, {:?} without markers",
                meta.state
            );
            return self.persist(id, meta);
        }
        meta.state = if commit {
            TxnState::PrepareCommit
        } else {
            TxnState::PrepareAbort
        };
        self.persist(id, meta)?;
        let txn = self.txns.get_mut(id).expect("just persisted");
        Self::queue_markers(txn, now_ms);
        Ok(())
    }

    /// Checks that `(producer_id, epoch)` is the producer `meta` belongs to now.
    fn check_producer(
        &self,
        id: &str,
        meta: &TxnMeta,
        producer_id: i64,
        epoch: i16,
        fenced: ErrorCode,
    ) -> Result<(), ErrorCode> {
        let (pid, current) = meta.identity();
        if (producer_id, epoch) == (pid, current) {
            return Ok(());
        }
        let known = producer_id == pid
            || producer_id == meta.producer_id
            || producer_id == meta.prev_producer_id;
        if !known {
            trace!(
                self.who,
                "{id}: producer id {producer_id} is not this transactional id's ({pid})"
            );
            return Err(ErrorCode::INVALID_PRODUCER_ID_MAPPING);
        }
        trace!(
            self.who,
            "{id}: fenced zombie producer {producer_id} epoch {epoch} (current {pid} epoch {current})"
        );
        Err(fenced)
    }

    pub fn init_producer_id(
        &mut self,
        req: &InitProducerIdRequest,
        version: i16,
        now_ms: u64,
    ) -> InitProducerIdResponse {
        let fenced = fenced_code(version, 4);
        let Some(id) = req.transactional_id.as_deref().map(str::to_owned) else {
            // An idempotent producer: a fresh producer id, nothing else to remember.
            return match self.allocate_producer_id() {
                Ok(pid) => {
                    trace!(self.who, "idempotent producer gets producer id {pid}");
                    init_response(ErrorCode::NONE, (pid, 0))
                }
                Err(_) => init_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
            };
        };
        if id.is_empty() {
            return init_response(ErrorCode::INVALID_REQUEST, (-1, -1));
        }
        let timeout = req.transaction_timeout_ms;
        if timeout <= 0 || timeout > MAX_TRANSACTION_TIMEOUT_MS {
            trace!(self.who, "{id}: transaction timeout {timeout} ms refused");
            return init_response(ErrorCode::INVALID_TRANSACTION_TIMEOUT, (-1, -1));
        }
        let Some(txn) = self.txns.get(&id) else {
            let pid = match self.allocate_producer_id() {
                Ok(pid) => pid,
                Err(_) => return init_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
            };
            trace!(
                self.who,
                "{id}: new transactional id, producer id {pid} epoch 0"
            );
            return match self.persist(&id, TxnMeta::new(pid, timeout, now_ms)) {
                Ok(()) => init_response(ErrorCode::NONE, (pid, 0)),
                Err(_) => init_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
            };
        };
        let meta = txn.meta.clone();
        if meta.state.is_prepare() {
            trace!(
                self.who,
                "{id}: InitProducerId while {:?}: CONCURRENT_TRANSACTIONS",
                meta.state
            );
            return init_response(ErrorCode::CONCURRENT_TRANSACTIONS, (-1, -1));
        }
        // From version 3 on a running producer may name itself to have its epoch bumped.
        if version >= 3 && req.producer_id >= 0 {
            let given = (req.producer_id, req.producer_epoch);
            if given != meta.identity() {
                if given == meta.prev_identity() && meta.state != TxnState::Ongoing {
                    trace!(
                        self.who,
                        "{id}: InitProducerId retried, answering producer {} epoch {} again",
                        meta.identity().0,
                        meta.identity().1
                    );
                    return init_response(ErrorCode::NONE, meta.identity());
                }
                if let Err(code) = self.check_producer(&id, &meta, given.0, given.1, fenced) {
                    return init_response(code, (-1, -1));
                }
            }
        }
        let mut new = meta.clone();
        new.last_update_ms = now_ms;
        if meta.state == TxnState::Ongoing {
            // A new incarnation while the previous one is in a transaction: fence the old
            // epoch and abort what it left. The client retries until the abort is complete.
            // The fenced epoch is not recorded as the previous one: that slot is what the
            // retry rules (EndTxn v5, InitProducerId v3+) match, and a match would hand the
            // current epoch back to the fenced incarnation.
            new.prev_producer_id = -1;
            new.prev_producer_epoch = -1;
            new.producer_epoch = fencing_epoch(meta.producer_epoch);
            trace!(
                self.who,
                "{id}: InitProducerId during an ongoing transaction: epoch {} -> {}, aborting it",
                meta.producer_epoch,
                new.producer_epoch
            );
            return match self.decide(&id, new, false, now_ms) {
                Ok(()) => init_response(ErrorCode::CONCURRENT_TRANSACTIONS, (-1, -1)),
                Err(_) => init_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
            };
        }
        new.prev_producer_id = meta.producer_id;
        new.prev_producer_epoch = meta.producer_epoch;
        if meta.producer_epoch >= EXHAUSTED_EPOCH {
            let pid = match self.allocate_producer_id() {
                Ok(pid) => pid,
                Err(_) => return init_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
            };
            trace!(
                self.who,
                "{id}: epoch of producer {} exhausted, new producer id {pid}",
                meta.producer_id
            );
            new.producer_id = pid;
            new.producer_epoch = 0;
        } else {
            new.producer_epoch = meta.producer_epoch + 1;
        }
        new.timeout_ms = timeout;
        new.state = TxnState::Empty;
        new.partitions.clear();
        trace!(
            self.who,
            "{id}: InitProducerId bumps to producer {} epoch {}",
            new.producer_id,
            new.producer_epoch
        );
        let identity = new.identity();
        match self.persist(&id, new) {
            Ok(()) => init_response(ErrorCode::NONE, identity),
            Err(_) => init_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
        }
    }

    pub fn add_partitions_to_txn(
        &mut self,
        req: &AddPartitionsToTxnRequest,
        version: i16,
        cluster: &Cluster,
        now_ms: u64,
    ) -> AddPartitionsToTxnResponse {
        let fenced = fenced_code(version, 2);
        if version <= 3 {
            let results = self.add_for_one(
                &req.v3_and_below_transactional_id,
                req.v3_and_below_producer_id,
                req.v3_and_below_producer_epoch,
                &req.v3_and_below_topics,
                false,
                fenced,
                cluster,
                now_ms,
            );
            return AddPartitionsToTxnResponse {
                results_by_topic_v3_and_below: results,
                ..Default::default()
            };
        }
        // Version 4 on: the batched form brokers send, several transactions at once.
        let results = req
            .transactions
            .iter()
            .map(|t| AddPartitionsToTxnResult {
                transactional_id: t.transactional_id.clone(),
                topic_results: self.add_for_one(
                    &t.transactional_id,
                    t.producer_id,
                    t.producer_epoch,
                    &t.topics,
                    t.verify_only,
                    fenced,
                    cluster,
                    now_ms,
                ),
                ..Default::default()
            })
            .collect();
        AddPartitionsToTxnResponse {
            error_code: ErrorCode::NONE.code(),
            results_by_transaction: results,
            ..Default::default()
        }
    }

    /// AddPartitionsToTxn for one transaction: one error code per partition.
    #[allow(clippy::too_many_arguments)]
    fn add_for_one(
        &mut self,
        id: &str,
        producer_id: i64,
        epoch: i16,
        topics: &[AddPartitionsToTxnTopic],
        verify_only: bool,
        fenced: ErrorCode,
        cluster: &Cluster,
        now_ms: u64,
    ) -> Vec<AddPartitionsToTxnTopicResult> {
        let wanted: Vec<TopicPartition> = topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(|p| TopicPartition::new(t.name.as_str(), p))
            })
            .collect();
        let unknown: BTreeSet<&TopicPartition> = wanted
            .iter()
            .filter(|tp| cluster.leader(tp).is_none())
            .collect();
        let codes: HashMap<TopicPartition, ErrorCode> = if !unknown.is_empty() {
            trace!(
                self.who,
                "{id}: AddPartitionsToTxn names {} unknown partitions, nothing added",
                unknown.len()
            );
            wanted
                .iter()
                .map(|tp| {
                    let code = if unknown.contains(tp) {
                        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
                    } else {
                        ErrorCode::OPERATION_NOT_ATTEMPTED
                    };
                    (tp.clone(), code)
                })
                .collect()
        } else if verify_only {
            self.verify_partitions(id, producer_id, epoch, &wanted, fenced)
        } else {
            let code = match self.add_partitions(id, producer_id, epoch, &wanted, fenced, now_ms) {
                Ok(()) => ErrorCode::NONE,
                Err(code) => code,
            };
            wanted.iter().map(|tp| (tp.clone(), code)).collect()
        };
        topics
            .iter()
            .map(|t| AddPartitionsToTxnTopicResult {
                name: t.name.clone(),
                results_by_partition: t
                    .partitions
                    .iter()
                    .map(|p| AddPartitionsToTxnPartitionResult {
                        partition_index: p,
                        partition_error_code: codes[&TopicPartition::new(t.name.as_str(), p)]
                            .code(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            })
            .collect()
    }

    fn add_partitions(
        &mut self,
        id: &str,
        producer_id: i64,
        epoch: i16,
        wanted: &[TopicPartition],
        fenced: ErrorCode,
        now_ms: u64,
    ) -> Result<(), ErrorCode> {
        let Some(txn) = self.txns.get(id) else {
            trace!(
                self.who,
                "{id}: AddPartitionsToTxn for an unknown transactional id"
            );
            return Err(ErrorCode::INVALID_PRODUCER_ID_MAPPING);
        };
        let meta = txn.meta.clone();
        self.check_producer(id, &meta, producer_id, epoch, fenced)?;
        if meta.state.is_prepare() {
            trace!(
                self.who,
                "{id}: AddPartitionsToTxn while {:?}: CONCURRENT_TRANSACTIONS",
                meta.state
            );
            return Err(ErrorCode::CONCURRENT_TRANSACTIONS);
        }
        if meta.state == TxnState::Ongoing && wanted.iter().all(|tp| meta.partitions.contains(tp)) {
            return Ok(());
        }
        let mut new = meta.clone();
        if meta.state != TxnState::Ongoing {
            new.state = TxnState::Ongoing;
            new.partitions.clear();
            new.txn_start_ms = now_ms;
            trace!(self.who, "{id}: transaction begins");
        }
        new.partitions.extend(wanted.iter().cloned());
        new.last_update_ms = now_ms;
        self.persist(id, new)
            .map_err(|_| ErrorCode::COORDINATOR_NOT_AVAILABLE)
    }

    /// The verify-only form: NONE for each partition already in the transaction under way.
    fn verify_partitions(
        &self,
        id: &str,
        producer_id: i64,
        epoch: i16,
        wanted: &[TopicPartition],
        fenced: ErrorCode,
    ) -> HashMap<TopicPartition, ErrorCode> {
        let common = match self.txns.get(id) {
            None => Err(ErrorCode::INVALID_PRODUCER_ID_MAPPING),
            Some(txn) => self
                .check_producer(id, &txn.meta, producer_id, epoch, fenced)
                .and_then(|()| {
                    if txn.meta.state == TxnState::Ongoing {
                        Ok(&txn.meta.partitions)
                    } else {
                        Err(ErrorCode::INVALID_TXN_STATE)
                    }
                }),
        };
        wanted
            .iter()
            .map(|tp| {
                let code = match common {
                    Ok(parts) if parts.contains(tp) => ErrorCode::NONE,
                    Ok(_) => ErrorCode::INVALID_TXN_STATE,
                    Err(code) => code,
                };
                (tp.clone(), code)
            })
            .collect()
    }

    pub fn end_txn(&mut self, req: &EndTxnRequest, version: i16, now_ms: u64) -> EndTxnResponse {
        let fenced = fenced_code(version, 2);
        // EndTxn version 5 is transaction version 2: the epoch is bumped at every EndTxn.
        let tv2 = version >= 5;
        let id = req.transactional_id.as_str();
        let commit = req.committed;
        let Some(txn) = self.txns.get(id) else {
            trace!(self.who, "{id}: EndTxn for an unknown transactional id");
            return end_response(ErrorCode::INVALID_PRODUCER_ID_MAPPING, (-1, -1));
        };
        let meta = txn.meta.clone();
        let given = (req.producer_id, req.producer_epoch);
        let same_outcome = meta.state.outcome() == Some(commit);
        if given != meta.identity() {
            let finishing = meta.state.is_prepare() || meta.state.is_complete();
            if tv2 && finishing && given == meta.prev_identity() {
                // The client did not get the answer (and the bumped epoch) of its EndTxn.
                let code = if !same_outcome {
                    ErrorCode::INVALID_TXN_STATE
                } else if meta.state.is_prepare() {
                    ErrorCode::CONCURRENT_TRANSACTIONS
                } else {
                    ErrorCode::NONE
                };
                trace!(
                    self.who,
                    "{id}: EndTxn retried with the epoch before the bump: {code:?}"
                );
                return end_response(code, meta.identity());
            }
            // `given` differs from the identity, so this is always an error.
            let code = self
                .check_producer(id, &meta, given.0, given.1, fenced)
                .err()
                .unwrap_or(fenced);
            return end_response(code, (-1, -1));
        }
        match meta.state {
            TxnState::PrepareCommit | TxnState::PrepareAbort => {
                trace!(
                    self.who,
                    "{id}: EndTxn while {:?}: CONCURRENT_TRANSACTIONS",
                    meta.state
                );
                return end_response(ErrorCode::CONCURRENT_TRANSACTIONS, (-1, -1));
            }
            TxnState::CompleteCommit | TxnState::CompleteAbort if !tv2 => {
                let code = if same_outcome {
                    ErrorCode::NONE
                } else {
                    ErrorCode::INVALID_TXN_STATE
                };
                trace!(
                    self.who,
                    "{id}: EndTxn(commit={commit}) after {:?}: {code:?}",
                    meta.state
                );
                return end_response(code, meta.identity());
            }
            _ => {}
        }
        let mut new = meta.clone();
        if meta.state != TxnState::Ongoing {
            // Nothing was added since the last transaction ended: an empty one.
            new.partitions.clear();
        }
        new.transaction_version = if tv2 { 2 } else { 1 };
        if tv2 {
            new.prev_producer_id = meta.producer_id;
            new.prev_producer_epoch = meta.producer_epoch;
            new.producer_epoch = fencing_epoch(meta.producer_epoch);
            if new.producer_epoch >= EXHAUSTED_EPOCH {
                match self.allocate_producer_id() {
                    Ok(pid) => {
                        trace!(
                            self.who,
                            "{id}: epoch of producer {} exhausted, producer id {pid} after this transaction",
                            meta.producer_id
                        );
                        new.next_producer_id = pid;
                    }
                    Err(_) => return end_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
                }
            }
        }
        trace!(
            self.who,
            "{id}: EndTxn decides {} for {} partitions (producer {} epoch {})",
            if commit { "COMMIT" } else { "ABORT" },
            new.partitions.len(),
            new.producer_id,
            new.producer_epoch
        );
        match self.decide(id, new, commit, now_ms) {
            Ok(()) => {
                let identity = self.txns[id].meta.identity();
                end_response(ErrorCode::NONE, identity)
            }
            Err(_) => end_response(ErrorCode::COORDINATOR_NOT_AVAILABLE, (-1, -1)),
        }
    }

    /// Phase 2: the WriteTxnMarkers requests due now, one per destination broker (leaders
    /// taken from `cluster`), each tagged with an id to match its outcome.
    pub fn poll_markers(&mut self, cluster: &Cluster, now_ms: u64) -> Vec<MarkerSend> {
        self.complete_finished(now_ms);
        let mut by_broker: BTreeMap<BrokerId, Vec<(String, TopicPartition)>> = BTreeMap::new();
        for (id, txn) in &mut self.txns {
            if txn.deposed || !txn.meta.state.is_prepare() {
                continue;
            }
            for (tp, p) in &mut txn.pending {
                if p.in_flight.is_some() || p.next_at_ms > now_ms {
                    continue;
                }
                match cluster.leader(tp) {
                    Some(broker) => by_broker
                        .entry(broker)
                        .or_default()
                        .push((id.clone(), tp.clone())),
                    None => {
                        trace!(
                            self.who,
                            "{id}: no leader for {tp}, marker retried in {} ms",
                            p.backoff_ms
                        );
                        p.next_at_ms = now_ms + p.backoff_ms;
                        p.backoff_ms = (p.backoff_ms * 2).min(MARKER_BACKOFF_MAX_MS);
                    }
                }
            }
        }
        let mut sends = Vec::new();
        for (broker, parts) in by_broker {
            let send_id = self.next_send_id;
            self.next_send_id += 1;
            // One marker per transaction, its partitions grouped by topic.
            let mut grouped: BTreeMap<&str, BTreeMap<&str, Vec<i32>>> = BTreeMap::new();
            for (id, tp) in &parts {
                grouped
                    .entry(id.as_str())
                    .or_default()
                    .entry(tp.topic.as_str())
                    .or_default()
                    .push(tp.partition);
            }
            let mut markers = Vec::new();
            let mut flight = Vec::new();
            for (id, topics) in grouped {
                let txn = &self.txns[id];
                let commit = txn.meta.state == TxnState::PrepareCommit;
                trace!(
                    self.who,
                    "{id}: sending {} marker to broker {broker} (send {send_id}, producer {} epoch {}, coordinator epoch {}): {:?}",
                    if commit { "COMMIT" } else { "ABORT" },
                    txn.meta.producer_id,
                    txn.meta.producer_epoch,
                    self.epoch,
                    topics
                );
                markers.push(WritableTxnMarker {
                    producer_id: txn.meta.producer_id,
                    producer_epoch: txn.meta.producer_epoch,
                    transaction_result: commit,
                    topics: topics
                        .iter()
                        .map(|(topic, partitions)| WritableTxnMarkerTopic {
                            name: KafkaString::from((*topic).to_owned()),
                            partition_indexes: partitions.clone().into(),
                            ..Default::default()
                        })
                        .collect(),
                    coordinator_epoch: self.epoch,
                    transaction_version: txn.meta.transaction_version,
                    ..Default::default()
                });
                for (topic, partitions) in topics {
                    for p in partitions {
                        flight.push((
                            id.to_owned(),
                            txn.meta.producer_id,
                            TopicPartition::new(topic, p),
                        ));
                    }
                }
            }
            for (id, _, tp) in &flight {
                if let Some(p) = self.txns.get_mut(id).and_then(|t| t.pending.get_mut(tp)) {
                    p.in_flight = Some(send_id);
                }
            }
            self.in_flight.insert(
                send_id,
                InFlight {
                    broker,
                    parts: flight,
                },
            );
            sends.push(MarkerSend {
                id: send_id,
                broker,
                request: WriteTxnMarkersRequest {
                    markers,
                    ..Default::default()
                },
            });
        }
        sends
    }

    /// The outcome of a send: the leader's response, or None when the send failed
    /// (connection refused, timeout). Partitions that failed are retried with backoff;
    /// a transaction whose markers are all acknowledged is recorded Complete.
    pub fn on_marker_result(
        &mut self,
        id: u64,
        result: Option<&WriteTxnMarkersResponse>,
        now_ms: u64,
    ) {
        let Some(flight) = self.in_flight.remove(&id) else {
            trace!(self.who, "outcome of unknown marker send {id} ignored");
            return;
        };
        let broker = flight.broker;
        let mut codes: HashMap<(i64, &str, i32), ErrorCode> = HashMap::new();
        if let Some(response) = result {
            for marker in &response.markers {
                for topic in &marker.topics {
                    for p in &topic.partitions {
                        codes.insert(
                            (marker.producer_id, topic.name.as_str(), p.partition_index),
                            ErrorCode::from(p.error_code),
                        );
                    }
                }
            }
        } else {
            trace!(self.who, "marker send {id} to broker {broker} failed");
        }
        let mut touched = BTreeSet::new();
        for (txn_id, pid, tp) in &flight.parts {
            let Some(txn) = self.txns.get_mut(txn_id) else {
                continue;
            };
            let Some(p) = txn.pending.get_mut(tp) else {
                continue;
            };
            if p.in_flight != Some(id) {
                continue;
            }
            p.in_flight = None;
            touched.insert(txn_id.clone());
            let code = codes.get(&(*pid, tp.topic.as_str(), tp.partition)).copied();
            match code {
                Some(ErrorCode::NONE) => {
                    trace!(
                        self.who,
                        "{txn_id}: marker for {tp} acknowledged by broker {broker}"
                    );
                    txn.pending.remove(tp);
                }
                Some(ErrorCode::INVALID_PRODUCER_EPOCH) => {
                    trace!(
                        self.who,
                        "{txn_id}: {tp} at broker {broker} was already finished by a newer epoch of producer {pid}; counted as acknowledged"
                    );
                    txn.pending.remove(tp);
                }
                Some(ErrorCode::TRANSACTION_COORDINATOR_FENCED) => {
                    trace!(
                        self.who,
                        "{txn_id}: broker {broker} has seen a newer coordinator than epoch {} for {tp}: deposed, no more markers for this transaction",
                        self.epoch
                    );
                    txn.deposed = true;
                    txn.pending.clear();
                }
                other => {
                    let why = match other {
                        None if result.is_none() => "send failed".to_owned(),
                        None => "no answer for it".to_owned(),
                        Some(code) => format!("error {code:?}"),
                    };
                    trace!(
                        self.who,
                        "{txn_id}: marker for {tp} at broker {broker}: {why}, retry in {} ms",
                        p.backoff_ms
                    );
                    p.next_at_ms = now_ms + p.backoff_ms;
                    p.backoff_ms = (p.backoff_ms * 2).min(MARKER_BACKOFF_MAX_MS);
                }
            }
        }
        for txn_id in touched {
            self.complete_if_done(&txn_id, now_ms);
        }
    }

    /// Records Complete for a Prepare transaction whose markers are all acknowledged.
    fn complete_if_done(&mut self, id: &str, now_ms: u64) {
        let Some(txn) = self.txns.get(id) else {
            return;
        };
        if txn.deposed || !txn.meta.state.is_prepare() || !txn.pending.is_empty() {
            return;
        }
        let mut new = txn.meta.clone();
        new.state = if new.state == TxnState::PrepareCommit {
            TxnState::CompleteCommit
        } else {
            TxnState::CompleteAbort
        };
        new.partitions.clear();
        new.last_update_ms = now_ms;
        if new.next_producer_id >= 0 {
            new.producer_id = new.next_producer_id;
            new.producer_epoch = 0;
            new.next_producer_id = -1;
        }
        // On failure the state stays Prepare with nothing pending; the next poll or tick tries
        // the write again.
        let _ = self.persist(id, new);
    }

    /// Retries the Complete writes that failed earlier.
    fn complete_finished(&mut self, now_ms: u64) {
        let done: Vec<String> = self
            .txns
            .iter()
            .filter(|(_, t)| !t.deposed && t.meta.state.is_prepare() && t.pending.is_empty())
            .map(|(id, _)| id.clone())
            .collect();
        for id in done {
            self.complete_if_done(&id, now_ms);
        }
    }

    /// Aborts transactions past their timeout (call periodically).
    pub fn tick(&mut self, now_ms: u64) {
        self.complete_finished(now_ms);
        let expired: Vec<String> = self
            .txns
            .iter()
            .filter(|(_, t)| {
                t.meta.state == TxnState::Ongoing
                    && now_ms
                        >= t.meta
                            .txn_start_ms
                            .saturating_add(t.meta.timeout_ms.max(0) as u64)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            let meta = self.txns[&id].meta.clone();
            let mut new = meta.clone();
            new.producer_epoch = fencing_epoch(meta.producer_epoch);
            trace!(
                self.who,
                "{id}: timed out after {} ms, aborting with epoch {} -> {}",
                meta.timeout_ms,
                meta.producer_epoch,
                new.producer_epoch
            );
            let _ = self.decide(&id, new, false, now_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemStorage;
    use crate::txn_log::TXN_LOG_FILE;
    use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTransaction;
    use kafka_wire::Encode;

    /// orders-0, audit-0 at broker 0; orders-1, audit-1 at broker 1; orders-2 at broker 2.
    fn cluster() -> Cluster {
        Cluster::new("127.0.0.1", 9092, 3, &[("orders", 3), ("audit", 2)])
    }

    fn tp(topic: &str, partition: i32) -> TopicPartition {
        TopicPartition::new(topic, partition)
    }

    fn fresh() -> (Coordinator, MemStorage) {
        let storage = MemStorage::default();
        let c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
        (c, storage)
    }

    fn init_req(id: Option<&str>, timeout_ms: i32) -> InitProducerIdRequest {
        InitProducerIdRequest {
            transactional_id: id.map(|s| KafkaString::from(s.to_owned())),
            transaction_timeout_ms: timeout_ms,
            ..Default::default()
        }
    }

    fn init(c: &mut Coordinator, id: &str, now_ms: u64) -> (i64, i16) {
        let r = c.init_producer_id(&init_req(Some(id), 60_000), 4, now_ms);
        assert_eq!(r.error_code, ErrorCode::NONE, "InitProducerId {id}");
        (r.producer_id, r.producer_epoch)
    }

    fn topics_of(parts: &[(&str, i32)]) -> Vec<AddPartitionsToTxnTopic> {
        let mut topics: Vec<(&str, Vec<i32>)> = Vec::new();
        for &(topic, p) in parts {
            match topics.iter_mut().find(|(name, _)| *name == topic) {
                Some((_, partitions)) => partitions.push(p),
                None => topics.push((topic, vec![p])),
            }
        }
        topics
            .into_iter()
            .map(|(name, partitions)| AddPartitionsToTxnTopic {
                name: KafkaString::from(name.to_owned()),
                partitions: partitions.into(),
                ..Default::default()
            })
            .collect()
    }

    /// AddPartitionsToTxn (v0-3 form); the error code of every partition, in request order.
    fn add_v(
        c: &mut Coordinator,
        id: &str,
        who: (i64, i16),
        parts: &[(&str, i32)],
        version: i16,
        now_ms: u64,
    ) -> Vec<(TopicPartition, ErrorCode)> {
        let req = AddPartitionsToTxnRequest {
            v3_and_below_transactional_id: KafkaString::from(id.to_owned()),
            v3_and_below_producer_id: who.0,
            v3_and_below_producer_epoch: who.1,
            v3_and_below_topics: topics_of(parts),
            ..Default::default()
        };
        let resp = c.add_partitions_to_txn(&req, version, &cluster(), now_ms);
        resp.results_by_topic_v3_and_below
            .iter()
            .flat_map(|t| {
                t.results_by_partition.iter().map(|p| {
                    (
                        tp(&t.name, p.partition_index),
                        ErrorCode::from(p.partition_error_code),
                    )
                })
            })
            .collect()
    }

    fn add(c: &mut Coordinator, id: &str, who: (i64, i16), parts: &[(&str, i32)]) -> ErrorCode {
        let codes = add_v(c, id, who, parts, 3, 0);
        assert_eq!(codes.len(), parts.len());
        let first = codes[0].1;
        assert!(codes.iter().all(|(_, code)| *code == first), "{codes:?}");
        first
    }

    fn end(
        c: &mut Coordinator,
        id: &str,
        who: (i64, i16),
        commit: bool,
        version: i16,
        now_ms: u64,
    ) -> EndTxnResponse {
        let req = EndTxnRequest {
            transactional_id: KafkaString::from(id.to_owned()),
            producer_id: who.0,
            producer_epoch: who.1,
            committed: commit,
            ..Default::default()
        };
        c.end_txn(&req, version, now_ms)
    }

    /// A leader's answer to `send`, with the error code `code` gives each partition.
    fn answer(
        send: &MarkerSend,
        code: impl Fn(&TopicPartition) -> ErrorCode,
    ) -> WriteTxnMarkersResponse {
        crate::leader::answer_markers(&send.request, |_, tp| code(tp))
    }

    /// Every (broker, partition) a list of sends carries, with its marker.
    fn carried(sends: &[MarkerSend]) -> Vec<(BrokerId, TopicPartition, WritableTxnMarker)> {
        let mut out = Vec::new();
        for s in sends {
            for m in &s.request.markers {
                for t in &m.topics {
                    for p in &t.partition_indexes {
                        out.push((s.broker, tp(&t.name, p), m.clone()));
                    }
                }
            }
        }
        out.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        out
    }

    fn state(c: &Coordinator, id: &str) -> TxnState {
        c.state_of(id).unwrap().state
    }

    /// Answers every send NONE until nothing is due; the number of sends.
    fn deliver_all(c: &mut Coordinator, now_ms: u64) -> usize {
        let mut count = 0;
        loop {
            let sends = c.poll_markers(&cluster(), now_ms);
            if sends.is_empty() {
                return count;
            }
            for s in &sends {
                c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), now_ms);
            }
            count += sends.len();
        }
    }

    fn finish_flow(commit: bool) {
        // Runs the trace's formatting too (the output is captured by the test harness).
        crate::trace::set_verbose(true);
        let (mut c, _) = fresh();
        assert_eq!(c.epoch(), 1);
        let who = init(&mut c, "t1", 0);
        assert_eq!(who.1, 0);
        assert_eq!(state(&c, "t1"), TxnState::Empty);
        assert_eq!(
            add(&mut c, "t1", who, &[("orders", 0), ("orders", 1)]),
            ErrorCode::NONE
        );
        assert_eq!(
            add(&mut c, "t1", who, &[("audit", 0), ("orders", 0)]),
            ErrorCode::NONE
        );
        let s = c.state_of("t1").unwrap();
        assert_eq!(s.state, TxnState::Ongoing);
        assert_eq!(
            s.partitions,
            vec![tp("audit", 0), tp("orders", 0), tp("orders", 1)]
        );

        let r = end(&mut c, "t1", who, commit, 3, 10);
        assert_eq!(r.error_code, ErrorCode::NONE);
        let prepared = if commit {
            TxnState::PrepareCommit
        } else {
            TxnState::PrepareAbort
        };
        assert_eq!(state(&c, "t1"), prepared);

        let sends = c.poll_markers(&cluster(), 10);
        assert_eq!(sends.len(), 2, "one request per leader");
        assert!(sends.iter().all(|s| s.version() == 1));
        let got = carried(&sends);
        let places: Vec<(BrokerId, TopicPartition)> =
            got.iter().map(|(b, tp, _)| (*b, tp.clone())).collect();
        assert_eq!(
            places,
            vec![
                (0, tp("audit", 0)),
                (0, tp("orders", 0)),
                (1, tp("orders", 1))
            ]
        );
        for (_, _, m) in &got {
            assert_eq!((m.producer_id, m.producer_epoch), who);
            assert_eq!(m.transaction_result, commit);
            assert_eq!(m.coordinator_epoch, 1);
            assert_eq!(m.transaction_version, 1);
        }
        // Nothing more is due while the sends are out.
        assert!(c.poll_markers(&cluster(), 5_000).is_empty());

        let to0 = sends.iter().find(|s| s.broker == 0).unwrap();
        let to1 = sends.iter().find(|s| s.broker == 1).unwrap();
        c.on_marker_result(to0.id, Some(&answer(to0, |_| ErrorCode::NONE)), 20);
        let s = c.state_of("t1").unwrap();
        assert_eq!(s.state, prepared);
        assert_eq!(s.pending_markers, vec![tp("orders", 1)]);
        c.on_marker_result(to1.id, Some(&answer(to1, |_| ErrorCode::NONE)), 20);
        let s = c.state_of("t1").unwrap();
        let complete = if commit {
            TxnState::CompleteCommit
        } else {
            TxnState::CompleteAbort
        };
        assert_eq!(s.state, complete);
        assert!(s.partitions.is_empty() && s.pending_markers.is_empty());
        assert_eq!((s.producer_id, s.producer_epoch), who);
        assert!(c.poll_markers(&cluster(), 100_000).is_empty());

        // The same producer goes on with a new transaction.
        assert_eq!(add(&mut c, "t1", who, &[("orders", 2)]), ErrorCode::NONE);
        assert_eq!(state(&c, "t1"), TxnState::Ongoing);
        assert_eq!(c.state_of("t1").unwrap().partitions, vec![tp("orders", 2)]);
    }

    #[test]
    fn commit_flow_sends_markers_to_each_leader_and_completes() {
        finish_flow(true);
    }

    #[test]
    fn abort_flow_sends_abort_markers_and_completes() {
        finish_flow(false);
    }

    #[test]
    fn markers_are_retried_after_a_failed_send_and_not_leader() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        assert_eq!(add(&mut c, "t", who, &[("orders", 0)]), ErrorCode::NONE);
        assert_eq!(
            end(&mut c, "t", who, true, 3, 1_000).error_code,
            ErrorCode::NONE
        );
        let mut cl = cluster();

        let first = c.poll_markers(&cl, 1_000);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].broker, 0);
        c.on_marker_result(first[0].id, None, 1_000);
        assert_eq!(state(&c, "t"), TxnState::PrepareCommit);
        // First backoff: 50 ms.
        assert!(c.poll_markers(&cl, 1_049).is_empty());
        let second = c.poll_markers(&cl, 1_050);
        assert_eq!(second.len(), 1);
        assert_ne!(second[0].id, first[0].id);
        // A late answer to the first send changes nothing.
        c.on_marker_result(
            first[0].id,
            Some(&answer(&first[0], |_| ErrorCode::NONE)),
            1_050,
        );
        assert_eq!(state(&c, "t"), TxnState::PrepareCommit);

        c.on_marker_result(
            second[0].id,
            Some(&answer(&second[0], |_| ErrorCode::NOT_LEADER_OR_FOLLOWER)),
            1_050,
        );
        // Doubled: 100 ms. Meanwhile the partition moves to broker 2.
        assert!(cl.move_leader(&tp("orders", 0), 2));
        assert!(c.poll_markers(&cl, 1_149).is_empty());
        let third = c.poll_markers(&cl, 1_150);
        assert_eq!(third.len(), 1);
        assert_eq!(third[0].broker, 2, "leader looked up again at each send");

        // An answer that leaves the partition out is a failure too (backoff now 200 ms).
        c.on_marker_result(
            third[0].id,
            Some(&WriteTxnMarkersResponse::default()),
            1_150,
        );
        assert!(c.poll_markers(&cl, 1_349).is_empty());
        let fourth = c.poll_markers(&cl, 1_350);
        assert_eq!(fourth.len(), 1);
        c.on_marker_result(
            fourth[0].id,
            Some(&answer(&fourth[0], |_| ErrorCode::NONE)),
            1_350,
        );
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    }

    #[test]
    fn backoff_doubles_up_to_two_seconds() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("orders", 1)]);
        end(&mut c, "t", who, false, 3, 0);
        let mut now = 0;
        let first = c.poll_markers(&cluster(), now);
        assert_eq!(first.len(), 1);
        c.on_marker_result(first[0].id, None, now);
        for wait in [50, 100, 200, 400, 800, 1_600, 2_000, 2_000] {
            assert!(
                c.poll_markers(&cluster(), now + wait - 1).is_empty(),
                "before {wait}"
            );
            let sends = c.poll_markers(&cluster(), now + wait);
            assert_eq!(sends.len(), 1, "after {wait}");
            now += wait;
            c.on_marker_result(sends[0].id, None, now);
        }
        assert_eq!(state(&c, "t"), TxnState::PrepareAbort);
    }

    #[test]
    fn restart_after_prepare_commit_requeues_markers_with_a_higher_coordinator_epoch() {
        let (mut c, storage) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("orders", 0), ("orders", 2)]);
        assert_eq!(
            end(&mut c, "t", who, true, 3, 5).error_code,
            ErrorCode::NONE
        );
        let before = c.poll_markers(&cluster(), 5);
        assert!(carried(&before)
            .iter()
            .all(|(_, _, m)| m.coordinator_epoch == 1));
        drop(c); // crash before any marker was acknowledged

        let mut c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
        assert_eq!(c.epoch(), 2);
        let s = c.state_of("t").unwrap();
        assert_eq!(s.state, TxnState::PrepareCommit);
        assert_eq!(s.pending_markers, vec![tp("orders", 0), tp("orders", 2)]);
        let sends = c.poll_markers(&cluster(), 0);
        let got = carried(&sends);
        assert_eq!(got.len(), 2);
        for (_, _, m) in &got {
            assert_eq!(m.coordinator_epoch, 2);
            assert!(m.transaction_result);
            assert_eq!((m.producer_id, m.producer_epoch), who);
        }
        for s in &sends {
            c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 1);
        }
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
        drop(c);

        let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
        assert_eq!(c.epoch(), 3);
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
        assert!(c.poll_markers(&cluster(), 0).is_empty());
    }

    #[test]
    fn restart_after_complete_sends_nothing_and_keeps_the_producer() {
        let (mut c, storage) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("audit", 1)]);
        end(&mut c, "t", who, false, 3, 0);
        assert_eq!(deliver_all(&mut c, 0), 1);
        assert_eq!(state(&c, "t"), TxnState::CompleteAbort);
        drop(c);

        let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
        assert_eq!(c.epoch(), 2);
        let s = c.state_of("t").unwrap();
        assert_eq!(s.state, TxnState::CompleteAbort);
        assert!(s.pending_markers.is_empty());
        assert!(c.poll_markers(&cluster(), 1_000_000).is_empty());
        c.tick(1_000_000);
        assert!(c.poll_markers(&cluster(), 1_000_000).is_empty());
        // A new incarnation keeps the producer id and gets the next epoch.
        assert_eq!(init(&mut c, "t", 0), (who.0, who.1 + 1));
    }

    #[test]
    fn init_producer_id_during_a_transaction_bumps_aborts_and_fences_the_old_epoch() {
        let (mut c, _) = fresh();
        let old = init(&mut c, "t", 0);
        assert_eq!(
            add(&mut c, "t", old, &[("orders", 1), ("audit", 0)]),
            ErrorCode::NONE
        );

        // A new incarnation of the producer.
        let r = c.init_producer_id(&init_req(Some("t"), 60_000), 4, 10);
        assert_eq!(r.error_code, ErrorCode::CONCURRENT_TRANSACTIONS);
        let s = c.state_of("t").unwrap();
        assert_eq!(s.state, TxnState::PrepareAbort);
        assert_eq!((s.producer_id, s.producer_epoch), (old.0, old.1 + 1));

        // The old incarnation is fenced, with the error its request version knows.
        assert_eq!(
            add(&mut c, "t", old, &[("orders", 2)]),
            ErrorCode::PRODUCER_FENCED
        );
        assert_eq!(
            add_v(&mut c, "t", old, &[("orders", 2)], 1, 10)[0].1,
            ErrorCode::INVALID_PRODUCER_EPOCH
        );
        assert_eq!(
            end(&mut c, "t", old, true, 3, 10).error_code,
            ErrorCode::PRODUCER_FENCED
        );
        assert_eq!(
            end(&mut c, "t", old, true, 1, 10).error_code,
            ErrorCode::INVALID_PRODUCER_EPOCH
        );
        // A producer id that was never this transactional id's.
        assert_eq!(
            end(&mut c, "t", (old.0 + 77, 0), true, 3, 10).error_code,
            ErrorCode::INVALID_PRODUCER_ID_MAPPING
        );
        // Still aborting: the new incarnation's retry waits.
        let r = c.init_producer_id(&init_req(Some("t"), 60_000), 4, 11);
        assert_eq!(r.error_code, ErrorCode::CONCURRENT_TRANSACTIONS);

        let sends = c.poll_markers(&cluster(), 11);
        let got = carried(&sends);
        assert_eq!(got.len(), 2);
        for (_, _, m) in &got {
            assert!(!m.transaction_result, "abort markers");
            assert_eq!((m.producer_id, m.producer_epoch), (old.0, old.1 + 1));
        }
        for s in &sends {
            c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 12);
        }
        assert_eq!(state(&c, "t"), TxnState::CompleteAbort);

        let new = init(&mut c, "t", 13);
        assert_eq!(new, (old.0, old.1 + 2));
        assert_eq!(state(&c, "t"), TxnState::Empty);
        assert_eq!(add(&mut c, "t", new, &[("orders", 0)]), ErrorCode::NONE);
        assert_eq!(
            add(&mut c, "t", (old.0, old.1 + 1), &[("orders", 0)]),
            ErrorCode::PRODUCER_FENCED
        );
    }

    /// Regression (found by the simulation): the fencing abort recorded the fenced epoch as the
    /// "previous" one, so the zombie's EndTxn v5 (abort) passed for a retry of an EndTxn and was
    /// answered NONE with the current epoch, and its InitProducerId v4 naming itself was taken
    /// for a retry of a bump: either way the fenced incarnation got the live epoch back.
    #[test]
    fn the_fenced_incarnation_is_not_taken_for_a_retry() {
        let (mut c, _) = fresh();
        let old = init(&mut c, "t", 0);
        assert_eq!(add(&mut c, "t", old, &[("orders", 1)]), ErrorCode::NONE);
        let r = c.init_producer_id(&init_req(Some("t"), 60_000), 4, 10);
        assert_eq!(r.error_code, ErrorCode::CONCURRENT_TRANSACTIONS);
        let zombie_bump = |c: &mut Coordinator| {
            let req = InitProducerIdRequest {
                producer_id: old.0,
                producer_epoch: old.1,
                ..init_req(Some("t"), 60_000)
            };
            c.init_producer_id(&req, 4, 11)
        };
        // While the abort is out.
        let r = end(&mut c, "t", old, false, 5, 11);
        assert_eq!(
            (ErrorCode::from(r.error_code), r.producer_epoch),
            (ErrorCode::PRODUCER_FENCED, -1)
        );
        for s in &c.poll_markers(&cluster(), 11) {
            c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 12);
        }
        assert_eq!(state(&c, "t"), TxnState::CompleteAbort);
        // After it completed, before the new incarnation's InitProducerId went through.
        let r = end(&mut c, "t", old, false, 5, 13);
        assert_eq!(
            (ErrorCode::from(r.error_code), r.producer_epoch),
            (ErrorCode::PRODUCER_FENCED, -1)
        );
        let r = zombie_bump(&mut c);
        assert_eq!(
            (ErrorCode::from(r.error_code), r.producer_epoch),
            (ErrorCode::PRODUCER_FENCED, -1)
        );
        // The new incarnation still gets its epoch.
        assert_eq!(init(&mut c, "t", 14), (old.0, old.1 + 2));
    }

    #[test]
    fn prepare_states_answer_concurrent_transactions() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("orders", 0)]);
        assert_eq!(
            end(&mut c, "t", who, true, 3, 0).error_code,
            ErrorCode::NONE
        );
        assert_eq!(
            add(&mut c, "t", who, &[("orders", 1)]),
            ErrorCode::CONCURRENT_TRANSACTIONS
        );
        assert_eq!(
            end(&mut c, "t", who, true, 3, 0).error_code,
            ErrorCode::CONCURRENT_TRANSACTIONS
        );
        assert_eq!(
            end(&mut c, "t", who, false, 3, 0).error_code,
            ErrorCode::CONCURRENT_TRANSACTIONS
        );
        assert_eq!(
            c.init_producer_id(&init_req(Some("t"), 60_000), 4, 0)
                .error_code,
            ErrorCode::CONCURRENT_TRANSACTIONS
        );
        // Nothing of that changed the decision.
        let s = c.state_of("t").unwrap();
        assert_eq!(s.state, TxnState::PrepareCommit);
        assert_eq!(s.partitions, vec![tp("orders", 0)]);
        assert_eq!((s.producer_id, s.producer_epoch), who);
    }

    #[test]
    fn end_txn_retry_after_completion_is_none() {
        let (mut c, storage) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("orders", 0)]);
        end(&mut c, "t", who, true, 3, 0);
        deliver_all(&mut c, 0);
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
        let log_len = storage.read(TXN_LOG_FILE).unwrap().len();

        let r = end(&mut c, "t", who, true, 3, 1);
        assert_eq!(r.error_code, ErrorCode::NONE);
        // The other outcome is not a retry.
        assert_eq!(
            end(&mut c, "t", who, false, 3, 1).error_code,
            ErrorCode::INVALID_TXN_STATE
        );
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
        assert!(c.poll_markers(&cluster(), 10).is_empty());
        assert_eq!(
            storage.read(TXN_LOG_FILE).unwrap().len(),
            log_len,
            "nothing written"
        );
    }

    #[test]
    fn end_txn_without_partitions_completes_without_markers() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        assert_eq!(
            end(&mut c, "t", who, true, 3, 0).error_code,
            ErrorCode::NONE
        );
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
        assert!(c.poll_markers(&cluster(), 0).is_empty());
        // Transaction version 2: the same, with the epoch bumped.
        let who2 = init(&mut c, "u", 0);
        let r = end(&mut c, "u", who2, false, 5, 0);
        assert_eq!(r.error_code, ErrorCode::NONE);
        assert_eq!((r.producer_id, r.producer_epoch), (who2.0, who2.1 + 1));
        assert_eq!(state(&c, "u"), TxnState::CompleteAbort);
        assert!(c.poll_markers(&cluster(), 0).is_empty());
    }

    #[test]
    fn transaction_version_2_end_txn_bumps_the_epoch_and_returns_it() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("orders", 0), ("orders", 1)]);
        let r = end(&mut c, "t", who, true, 5, 0);
        assert_eq!(r.error_code, ErrorCode::NONE);
        let bumped = (who.0, who.1 + 1);
        assert_eq!((r.producer_id, r.producer_epoch), bumped);
        // The field is written at version 5 only.
        let bytes = r.encode_to_bytes(5).unwrap();
        assert!(bytes.len() > r.encode_to_bytes(4).unwrap().len());
        let s = c.state_of("t").unwrap();
        assert_eq!((s.producer_id, s.producer_epoch), bumped);
        assert_eq!(s.transaction_version, 2);

        let sends = c.poll_markers(&cluster(), 0);
        assert_eq!(sends.len(), 2);
        for s in &sends {
            assert_eq!(s.version(), 2);
            s.request.encode_to_bytes(s.version()).unwrap();
        }
        for (_, _, m) in carried(&sends) {
            assert_eq!((m.producer_id, m.producer_epoch), bumped);
            assert_eq!(m.transaction_version, 2);
        }
        // A retry with the pre-bump epoch while markers are out, then after completion.
        assert_eq!(
            end(&mut c, "t", who, true, 5, 0).error_code,
            ErrorCode::CONCURRENT_TRANSACTIONS
        );
        for s in &sends {
            c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 1);
        }
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
        let r = end(&mut c, "t", who, true, 5, 2);
        assert_eq!(r.error_code, ErrorCode::NONE);
        assert_eq!((r.producer_id, r.producer_epoch), bumped);
        assert_eq!(
            end(&mut c, "t", who, false, 5, 2).error_code,
            ErrorCode::INVALID_TXN_STATE
        );

        // The next transaction runs with the bumped epoch; the old one is fenced.
        assert_eq!(
            add(&mut c, "t", who, &[("orders", 2)]),
            ErrorCode::PRODUCER_FENCED
        );
        assert_eq!(add(&mut c, "t", bumped, &[("orders", 2)]), ErrorCode::NONE);
        let r = end(&mut c, "t", bumped, false, 5, 3);
        assert_eq!(
            (ErrorCode::from(r.error_code), r.producer_epoch),
            (ErrorCode::NONE, bumped.1 + 1)
        );
        let got = carried(&c.poll_markers(&cluster(), 3));
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].2.producer_epoch, bumped.1 + 1);
    }

    #[test]
    fn transaction_version_2_exhausted_epoch_moves_to_a_new_producer_id() {
        let storage = MemStorage::default();
        let mut s = storage.clone();
        let mut meta = TxnMeta::new(7, 60_000, 0);
        meta.producer_epoch = EXHAUSTED_EPOCH - 1;
        meta.state = TxnState::Ongoing;
        meta.partitions.insert(tp("orders", 0));
        s.append(
            TXN_LOG_FILE,
            &LogRecord::Txn(meta.to_record("t")).to_frame().unwrap(),
        )
        .unwrap();
        let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
        let old = (7, EXHAUSTED_EPOCH - 1);
        let r = end(&mut c, "t", old, true, 5, 0);
        assert_eq!(r.error_code, ErrorCode::NONE);
        let next = (r.producer_id, r.producer_epoch);
        assert_ne!(next.0, 7);
        assert_eq!(next.1, 0);
        // Markers still carry the old producer id with the bumped epoch.
        let sends = c.poll_markers(&cluster(), 0);
        let got = carried(&sends);
        assert_eq!(
            (got[0].2.producer_id, got[0].2.producer_epoch),
            (7, EXHAUSTED_EPOCH)
        );
        // While they are out the client, already holding the new id, is told to wait.
        assert_eq!(
            add(&mut c, "t", next, &[("orders", 1)]),
            ErrorCode::CONCURRENT_TRANSACTIONS
        );
        for s in &sends {
            c.on_marker_result(s.id, Some(&answer(s, |_| ErrorCode::NONE)), 1);
        }
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
        let s = c.state_of("t").unwrap();
        assert_eq!((s.producer_id, s.producer_epoch), next);
        assert_eq!(add(&mut c, "t", next, &[("orders", 1)]), ErrorCode::NONE);
        assert_eq!(
            add(&mut c, "t", old, &[("orders", 1)]),
            ErrorCode::PRODUCER_FENCED
        );
    }

    #[test]
    fn exhausted_epoch_gets_a_new_producer_id_at_init() {
        let storage = MemStorage::default();
        let mut s = storage.clone();
        let mut meta = TxnMeta::new(5, 60_000, 0);
        meta.producer_epoch = EXHAUSTED_EPOCH;
        meta.state = TxnState::CompleteCommit;
        s.append(
            TXN_LOG_FILE,
            &LogRecord::Txn(meta.to_record("t")).to_frame().unwrap(),
        )
        .unwrap();
        let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
        let (pid, epoch) = init(&mut c, "t", 0);
        assert!(pid > 5);
        assert_eq!(epoch, 0);
        // The old producer id is fenced, not unknown.
        assert_eq!(
            add(&mut c, "t", (5, EXHAUSTED_EPOCH), &[("orders", 0)]),
            ErrorCode::PRODUCER_FENCED
        );
        // One below the limit just bumps.
        assert_eq!(init(&mut c, "t", 0), (pid, 1));
    }

    #[test]
    fn producer_ids_are_unique_across_restarts() {
        let (mut c, storage) = fresh();
        let mut seen = BTreeSet::new();
        for _ in 0..3 {
            let r = c.init_producer_id(&init_req(None, 0), 4, 0);
            assert_eq!(
                (ErrorCode::from(r.error_code), r.producer_epoch),
                (ErrorCode::NONE, 0)
            );
            assert!(seen.insert(r.producer_id));
        }
        assert!(seen.insert(init(&mut c, "a", 0).0));
        drop(c);
        let mut c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
        for _ in 0..3 {
            assert!(seen.insert(c.init_producer_id(&init_req(None, 0), 0, 0).producer_id));
        }
        assert!(seen.insert(init(&mut c, "b", 0).0));
        drop(c);
        let mut c = Coordinator::load(0, Box::new(storage)).unwrap();
        assert!(seen.insert(init(&mut c, "c", 0).0));
        assert_eq!(seen.len(), 9);
    }

    #[test]
    fn init_producer_id_refuses_bad_timeouts_and_empty_ids() {
        let (mut c, _) = fresh();
        for timeout in [0, -1, MAX_TRANSACTION_TIMEOUT_MS + 1] {
            let r = c.init_producer_id(&init_req(Some("t"), timeout), 4, 0);
            assert_eq!(r.error_code, ErrorCode::INVALID_TRANSACTION_TIMEOUT);
        }
        assert!(c.state_of("t").is_none());
        let r = c.init_producer_id(&init_req(Some(""), 1000), 4, 0);
        assert_eq!(r.error_code, ErrorCode::INVALID_REQUEST);
    }

    #[test]
    fn init_producer_id_v3_bump_by_a_running_producer_and_its_retry() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        let named = InitProducerIdRequest {
            producer_id: who.0,
            producer_epoch: who.1,
            ..init_req(Some("t"), 60_000)
        };
        let r = c.init_producer_id(&named, 4, 1);
        assert_eq!(
            (
                ErrorCode::from(r.error_code),
                r.producer_id,
                r.producer_epoch
            ),
            (ErrorCode::NONE, who.0, 1)
        );
        // The same request again (its answer was lost): the same answer, no second bump.
        let r = c.init_producer_id(&named, 4, 2);
        assert_eq!(
            (
                ErrorCode::from(r.error_code),
                r.producer_id,
                r.producer_epoch
            ),
            (ErrorCode::NONE, who.0, 1)
        );
        // An epoch that is neither current nor the one before: fenced.
        let stale = InitProducerIdRequest {
            producer_epoch: 7,
            ..named.clone()
        };
        assert_eq!(
            c.init_producer_id(&stale, 4, 3).error_code,
            ErrorCode::PRODUCER_FENCED
        );
        assert_eq!(
            c.init_producer_id(&stale, 3, 3).error_code,
            ErrorCode::INVALID_PRODUCER_EPOCH
        );
    }

    #[test]
    fn unknown_partitions_fail_the_whole_request() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        let codes = add_v(
            &mut c,
            "t",
            who,
            &[("orders", 0), ("orders", 7), ("nosuch", 0)],
            3,
            0,
        );
        assert_eq!(
            codes,
            vec![
                (tp("orders", 0), ErrorCode::OPERATION_NOT_ATTEMPTED),
                (tp("orders", 7), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
                (tp("nosuch", 0), ErrorCode::UNKNOWN_TOPIC_OR_PARTITION),
            ]
        );
        let s = c.state_of("t").unwrap();
        assert_eq!(s.state, TxnState::Empty);
        assert!(s.partitions.is_empty());
        // Unknown transactional id.
        assert_eq!(
            add(&mut c, "zz", who, &[("orders", 0)]),
            ErrorCode::INVALID_PRODUCER_ID_MAPPING
        );
    }

    #[test]
    fn batched_add_partitions_v4_handles_each_transaction() {
        let (mut c, _) = fresh();
        let a = init(&mut c, "a", 0);
        let b = init(&mut c, "b", 0);
        assert_eq!(add(&mut c, "b", b, &[("audit", 1)]), ErrorCode::NONE);
        let txn = |id: &str, who: (i64, i16), verify_only: bool, parts: &[(&str, i32)]| {
            AddPartitionsToTxnTransaction {
                transactional_id: KafkaString::from(id.to_owned()),
                producer_id: who.0,
                producer_epoch: who.1,
                verify_only,
                topics: topics_of(parts),
                ..Default::default()
            }
        };
        let req = AddPartitionsToTxnRequest {
            transactions: vec![
                txn("a", a, false, &[("orders", 0)]),
                txn("b", b, true, &[("audit", 1), ("audit", 0)]),
                txn("a", (a.0, a.1 + 3), false, &[("orders", 1)]),
            ],
            ..Default::default()
        };
        let resp = c.add_partitions_to_txn(&req, 4, &cluster(), 0);
        resp.encode_to_bytes(4).unwrap();
        let codes: Vec<Vec<i16>> = resp
            .results_by_transaction
            .iter()
            .map(|t| {
                t.topic_results
                    .iter()
                    .flat_map(|r| {
                        r.results_by_partition
                            .iter()
                            .map(|p| p.partition_error_code)
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            codes,
            vec![
                vec![ErrorCode::NONE],
                vec![ErrorCode::NONE, ErrorCode::INVALID_TXN_STATE],
                vec![ErrorCode::PRODUCER_FENCED]
            ]
        );
        assert_eq!(c.state_of("a").unwrap().partitions, vec![tp("orders", 0)]);
        assert_eq!(c.state_of("b").unwrap().partitions, vec![tp("audit", 1)]);
    }

    #[test]
    fn timed_out_transaction_is_aborted_with_an_epoch_bump() {
        let (mut c, _) = fresh();
        let r = c.init_producer_id(&init_req(Some("t"), 1_000), 4, 0);
        let who = (r.producer_id, r.producer_epoch);
        assert_eq!(
            add_v(&mut c, "t", who, &[("orders", 2)], 3, 100)[0].1,
            ErrorCode::NONE
        );
        c.tick(1_099);
        assert_eq!(state(&c, "t"), TxnState::Ongoing);
        c.tick(1_100);
        let s = c.state_of("t").unwrap();
        assert_eq!(s.state, TxnState::PrepareAbort);
        assert_eq!(s.producer_epoch, who.1 + 1);
        assert_eq!(
            end(&mut c, "t", who, true, 3, 1_101).error_code,
            ErrorCode::PRODUCER_FENCED
        );
        let sends = c.poll_markers(&cluster(), 1_101);
        let got = carried(&sends);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0, got[0].1.clone()), (2, tp("orders", 2)));
        assert!(!got[0].2.transaction_result);
        assert_eq!(got[0].2.producer_epoch, who.1 + 1);
        c.on_marker_result(
            sends[0].id,
            Some(&answer(&sends[0], |_| ErrorCode::NONE)),
            1_102,
        );
        assert_eq!(state(&c, "t"), TxnState::CompleteAbort);
    }

    #[test]
    fn invalid_producer_epoch_from_a_leader_counts_as_acknowledged() {
        let (mut c, _) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("orders", 0), ("orders", 1)]);
        end(&mut c, "t", who, true, 3, 0);
        let sends = c.poll_markers(&cluster(), 0);
        for s in &sends {
            let code = if s.broker == 0 {
                ErrorCode::INVALID_PRODUCER_EPOCH
            } else {
                ErrorCode::NONE
            };
            c.on_marker_result(s.id, Some(&answer(s, |_| code)), 0);
        }
        assert_eq!(state(&c, "t"), TxnState::CompleteCommit);
    }

    #[test]
    fn coordinator_fenced_answer_stops_sending_for_that_transaction() {
        // t at brokers 0 and 1, u at broker 1: both markers share the request to broker 1.
        let (mut c, _) = fresh();
        let t = init(&mut c, "t", 0);
        let u = init(&mut c, "u", 0);
        add(&mut c, "t", t, &[("orders", 0), ("orders", 1)]);
        add(&mut c, "u", u, &[("orders", 1)]);
        end(&mut c, "t", t, true, 3, 0);
        end(&mut c, "u", u, false, 3, 0);
        let sends = c.poll_markers(&cluster(), 0);
        let to1 = sends.iter().find(|s| s.broker == 1).unwrap();
        assert_eq!(to1.request.markers.len(), 2);
        let mut resp = answer(to1, |_| ErrorCode::NONE);
        for m in &mut resp.markers {
            if m.producer_id == t.0 {
                m.topics[0].partitions[0].error_code =
                    ErrorCode::TRANSACTION_COORDINATOR_FENCED.code();
            }
        }
        c.on_marker_result(to1.id, Some(&resp), 0);
        let to0 = sends.iter().find(|s| s.broker == 0).unwrap();
        c.on_marker_result(to0.id, None, 0);
        let s = c.state_of("t").unwrap();
        assert!(s.deposed);
        assert_eq!(s.state, TxnState::PrepareCommit, "never completed here");
        assert!(s.pending_markers.is_empty());
        assert_eq!(state(&c, "u"), TxnState::CompleteAbort);
        assert!(c.poll_markers(&cluster(), 1_000_000).is_empty());
        c.tick(1_000_000);
        assert!(c.poll_markers(&cluster(), 2_000_000).is_empty());
    }

    #[test]
    fn torn_log_tail_is_cut_and_the_rest_replays() {
        let (mut c, storage) = fresh();
        let who = init(&mut c, "t", 0);
        add(&mut c, "t", who, &[("orders", 0), ("audit", 1)]);
        let ongoing = c.state_of("t").unwrap();
        drop(c);
        let whole = storage.read(TXN_LOG_FILE).unwrap().len();
        // A crash in the middle of the next append.
        let next = LogRecord::Txn(TxnMetadataRecord {
            transactional_id: "t".into(),
            state: 2,
            ..Default::default()
        })
        .to_frame()
        .unwrap();
        let mut s = storage.clone();
        s.append(TXN_LOG_FILE, &next[..next.len() / 2]).unwrap();

        let c = Coordinator::load(0, Box::new(storage.clone())).unwrap();
        assert_eq!(c.state_of("t").unwrap(), ongoing);
        assert_eq!(c.epoch(), 2);
        let epoch_frame = LogRecord::CoordinatorEpoch(CoordinatorEpochRecord {
            coordinator_epoch: 2,
            ..Default::default()
        })
        .to_frame()
        .unwrap();
        assert_eq!(
            storage.read(TXN_LOG_FILE).unwrap().len(),
            whole + epoch_frame.len(),
            "torn frame cut, epoch record appended after the last whole frame"
        );
        drop(c);
        // And everything still replays after that.
        let c = Coordinator::load(0, Box::new(storage)).unwrap();
        assert_eq!(c.epoch(), 3);
        assert_eq!(c.state_of("t").unwrap(), ongoing);
    }

    #[test]
    fn corrupt_log_is_an_error_not_a_panic() {
        let mut storage = MemStorage::default();
        let mut meta = TxnMeta::new(1, 1000, 0);
        meta.state = TxnState::Empty;
        let mut rec = meta.to_record("t");
        rec.state = 42;
        storage
            .append(TXN_LOG_FILE, &LogRecord::Txn(rec).to_frame().unwrap())
            .unwrap();
        let err = Coordinator::load(0, Box::new(storage)).err().unwrap();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);

        let mut storage = MemStorage::default();
        storage
            .append(TXN_LOG_FILE, &[0, 0, 0, 5, 0, 9, 0, 0, 0])
            .unwrap();
        assert!(Coordinator::load(0, Box::new(storage)).is_err());
    }

    #[test]
    fn txn_metadata_survives_the_log_exactly() {
        let mut meta = TxnMeta::new(42, 30_000, 17);
        meta.producer_epoch = 3;
        meta.prev_producer_id = 42;
        meta.prev_producer_epoch = 2;
        meta.state = TxnState::PrepareAbort;
        meta.partitions = [tp("b", 1), tp("a", 0), tp("b", 0)].into_iter().collect();
        meta.transaction_version = 2;
        let rec = meta.to_record("x");
        assert_eq!(rec.topics.len(), 2, "grouped by topic");
        let frame = LogRecord::Txn(rec).to_frame().unwrap();
        let (records, used) = crate::txn_log::parse_frames(&frame).unwrap();
        assert_eq!(used, frame.len());
        let LogRecord::Txn(back) = &records[0] else {
            panic!("not a txn record: {records:?}");
        };
        assert_eq!(TxnMeta::from_record(back).unwrap(), meta);
    }
}
