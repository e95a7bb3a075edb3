//! Where a transactional id stands: the states of a transaction ([`TxnState`]) and the durable
//! record of a transactional id ([`TxnMeta`]), as it is written to the log and read back.

use std::collections::{BTreeMap, BTreeSet};
use std::io;

use crate::cluster::TopicPartition;
use crate::txn_log::{TxnMetadataRecord, TxnTopicRecord};

use super::markers::PendingMarker;

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
    pub(super) fn code(self) -> i8 {
        match self {
            TxnState::Empty => 0,
            TxnState::Ongoing => 1,
            TxnState::PrepareCommit => 2,
            TxnState::PrepareAbort => 3,
            TxnState::CompleteCommit => 4,
            TxnState::CompleteAbort => 5,
        }
    }

    pub(super) fn from_code(code: i8) -> Option<Self> {
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

    pub(crate) fn is_prepare(self) -> bool {
        matches!(self, TxnState::PrepareCommit | TxnState::PrepareAbort)
    }

    pub(crate) fn is_complete(self) -> bool {
        matches!(self, TxnState::CompleteCommit | TxnState::CompleteAbort)
    }

    /// The outcome this state stands for, if it stands for one.
    pub(super) fn outcome(self) -> Option<bool> {
        match self {
            TxnState::PrepareCommit | TxnState::CompleteCommit => Some(true),
            TxnState::PrepareAbort | TxnState::CompleteAbort => Some(false),
            _ => None,
        }
    }
}

/// The durable part of a transactional id's state.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TxnMeta {
    pub(crate) producer_id: i64,
    pub(crate) producer_epoch: i16,
    pub(crate) prev_producer_id: i64,
    pub(crate) prev_producer_epoch: i16,
    pub(crate) next_producer_id: i64,
    pub(crate) timeout_ms: i32,
    pub(crate) state: TxnState,
    pub(crate) partitions: BTreeSet<TopicPartition>,
    pub(crate) txn_start_ms: u64,
    pub(crate) last_update_ms: u64,
    pub(crate) transaction_version: i8,
}

impl TxnMeta {
    pub(crate) fn new(producer_id: i64, timeout_ms: i32, now_ms: u64) -> Self {
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
    pub(crate) fn identity(&self) -> (i64, i16) {
        if self.next_producer_id >= 0 {
            (self.next_producer_id, 0)
        } else {
            (self.producer_id, self.producer_epoch)
        }
    }

    pub(crate) fn prev_identity(&self) -> (i64, i16) {
        (self.prev_producer_id, self.prev_producer_epoch)
    }

    /// The transaction is finished with `commit`: every marker is delivered, or it had none to
    /// deliver. A producer whose epoch ran out moves to its next producer id now.
    pub(super) fn complete(&mut self, commit: bool) {
        self.state = if commit {
            TxnState::CompleteCommit
        } else {
            TxnState::CompleteAbort
        };
        self.partitions.clear();
        if self.next_producer_id >= 0 {
            self.producer_id = self.next_producer_id;
            self.producer_epoch = 0;
            self.next_producer_id = -1;
        }
    }

    pub(super) fn to_record(&self, transactional_id: &str) -> TxnMetadataRecord {
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

    pub(super) fn from_record(r: &TxnMetadataRecord) -> io::Result<Self> {
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

#[derive(Debug)]
pub(super) struct Txn {
    pub(super) meta: TxnMeta,
    pub(super) pending: BTreeMap<TopicPartition, PendingMarker>,
    pub(super) deposed: bool,
}

#[cfg(test)]
mod tests;
