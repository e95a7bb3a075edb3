//! What a leader knows of each producer in one partition: its epoch, its latest sequence
//! numbers (to recognise a retried batch), the transaction it has open here and the
//! coordinator epoch of its last marker, all derived from the log.

use std::collections::VecDeque;

use crate::fencing::ProducerAtLeader;

/// How many of a producer's latest batches are remembered to recognise a retried one.
pub(super) const RECENT_BATCHES: usize = 5;

/// Sequence numbers count up to `i32::MAX` and then start again at 0.
pub(super) fn add_sequence(base: i32, delta: i64) -> i32 {
    let wrapped = (i64::from(base.max(0)) + delta) % (i64::from(i32::MAX) + 1);
    i32::try_from(wrapped).unwrap_or(0)
}

pub(super) fn next_sequence(last: i32) -> i32 {
    add_sequence(last, 1)
}

/// One of a producer's latest batches, kept to recognise a retry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SequencedBatch {
    pub first_sequence: i32,
    pub last_sequence: i32,
    pub base_offset: i64,
}

/// The transaction a producer has open in this partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OngoingTxn {
    pub first_offset: i64,
    /// The epoch of the batch that opened it.
    pub epoch: i16,
}

/// The last transaction of a producer that a marker ended here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FinishedTxn {
    pub epoch: i16,
    pub commit: bool,
}

/// What the leader knows about one producer in one partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ProducerState {
    pub epoch: i16,
    /// The coordinator epoch of the last marker written for this producer; -1 before any.
    pub coordinator_epoch: i32,
    pub ongoing: Option<OngoingTxn>,
    /// The latest batches with sequence numbers at the current epoch, oldest first.
    pub recent: VecDeque<SequencedBatch>,
    pub last_finished: Option<FinishedTxn>,
}

impl ProducerState {
    pub(super) fn new() -> Self {
        ProducerState {
            epoch: -1,
            coordinator_epoch: -1,
            ongoing: None,
            recent: VecDeque::new(),
            last_finished: None,
        }
    }

    /// What the marker rules look at.
    pub(super) fn at_leader(&self) -> ProducerAtLeader {
        ProducerAtLeader {
            epoch: self.epoch,
            coordinator_epoch: self.coordinator_epoch,
            open_epoch: self.ongoing.map(|t| t.epoch),
        }
    }

    /// Moves to `epoch` when it is newer; a new epoch starts its sequences afresh.
    pub(super) fn observe_epoch(&mut self, epoch: i16) {
        if epoch > self.epoch {
            self.epoch = epoch;
            self.recent.clear();
        }
    }
}
