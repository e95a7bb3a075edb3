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
//!
//! The rooms: `state` (a transactional id's durable record and its states), `recovery` (loading
//! the log), one module per request (`init_producer_id`, `add_partitions`, `end_txn`), `markers`
//! (phase 2) and `timeouts`. This module holds the coordinator itself and the writes every
//! request goes through.

mod add_partitions;
mod end_txn;
mod init_producer_id;
mod markers;
mod recovery;
mod state;
mod timeouts;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::io;

use kafka_wire::ErrorCode;

use crate::cluster::TopicPartition;
use crate::fencing::Fenced;
use crate::trace;
use crate::txn_log::{LogRecord, ProducerIdBlockRecord, TxnLog};

pub(crate) use add_partitions::results_by_topic;
use markers::InFlight;
pub use markers::{MarkerSend, MARKER_BACKOFF_INITIAL_MS, MARKER_BACKOFF_MAX_MS};
use state::Txn;
pub(crate) use state::TxnMeta;
pub use state::TxnState;

/// The longest transaction timeout a producer may ask for (Kafka's default maximum).
pub const MAX_TRANSACTION_TIMEOUT_MS: i32 = 900_000;
/// Producer ids are reserved in the log this many at a time.
const PRODUCER_ID_BLOCK: i64 = 1000;
/// The producer id and epoch of an answer that hands out none.
const NO_PRODUCER: (i64, i16) = (-1, -1);

/// The answer to a request whose log append failed: nothing changed (the state in memory moves
/// only once its record is durable) and the client may try again.
fn log_failed(_: io::Error) -> ErrorCode {
    ErrorCode::COORDINATOR_NOT_AVAILABLE
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

impl Coordinator {
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

    /// The producer id that takes over from `pid`, whose epochs `id` has used up.
    fn replace_exhausted(&mut self, id: &str, pid: i64) -> Result<i64, ErrorCode> {
        let next = self.allocate_producer_id().map_err(log_failed)?;
        trace!(
            self.who,
            "{id}: epoch of producer {pid} exhausted, producer id {next} takes over"
        );
        Ok(next)
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

    /// Logs the decision `commit` for `id` (whose new producer id / epoch are already in
    /// `meta`) and queues its markers; a transaction without partitions is complete at once.
    fn decide(&mut self, id: &str, mut meta: TxnMeta, commit: bool, now_ms: u64) -> io::Result<()> {
        meta.last_update_ms = now_ms;
        if meta.partitions.is_empty() {
            meta.complete(commit);
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

    /// The code to answer a `request` for `id` that a fencing rule refused, with its trace.
    fn refused(&self, id: &str, request: &str, fenced: Fenced) -> ErrorCode {
        trace!(self.who, "{id}: {request} refused: {}", fenced.reason);
        fenced.code
    }
}
