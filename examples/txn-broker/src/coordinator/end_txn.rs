//! EndTxn: phase 1, the decision to commit or abort, logged before it is answered.

use kafka_wire::messages::{EndTxnRequest, EndTxnResponse};
use kafka_wire::ErrorCode;

use crate::trace;

use super::state::TxnState;
use super::{fenced_code, fencing_epoch, Coordinator, EXHAUSTED_EPOCH};

fn end_response(error_code: ErrorCode, identity: (i64, i16)) -> EndTxnResponse {
    EndTxnResponse {
        error_code: error_code.code(),
        producer_id: identity.0,
        producer_epoch: identity.1,
        ..Default::default()
    }
}

impl Coordinator {
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
}

#[cfg(test)]
mod tests;
