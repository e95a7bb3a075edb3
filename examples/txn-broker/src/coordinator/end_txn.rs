//! EndTxn: phase 1, the decision to commit or abort, logged before it is answered. With
//! transaction version 2 the decision also bumps the producer's epoch.

use kafka_wire::messages::{EndTxnRequest, EndTxnResponse};
use kafka_wire::ErrorCode;

use crate::fencing;
use crate::trace;

use super::state::{TxnMeta, TxnState};
use super::{log_failed, Coordinator, NO_PRODUCER};

/// The first EndTxn version whose clients know PRODUCER_FENCED.
const FIRST_VERSION_WITH_FENCED: i16 = 2;

fn end_response(error_code: ErrorCode, identity: (i64, i16)) -> EndTxnResponse {
    EndTxnResponse::default()
        .with_error_code(error_code.code())
        .with_producer_id(identity.0)
        .with_producer_epoch(identity.1)
}

impl Coordinator {
    pub fn end_txn(&mut self, req: &EndTxnRequest, version: i16, now_ms: u64) -> EndTxnResponse {
        self.end(req, version, now_ms)
            .unwrap_or_else(|code| end_response(code, NO_PRODUCER))
    }

    /// The answer to EndTxn; an error code alone for the answers that name no producer.
    fn end(
        &mut self,
        req: &EndTxnRequest,
        version: i16,
        now_ms: u64,
    ) -> Result<EndTxnResponse, ErrorCode> {
        let id = req.transactional_id.as_str();
        let transaction_version = fencing::transaction_version(version);
        let Some(txn) = self.txns.get(id) else {
            trace!(self.who, "{id}: EndTxn for an unknown transactional id");
            return Err(ErrorCode::INVALID_PRODUCER_ID_MAPPING);
        };
        let meta = txn.meta.clone();
        let given = (req.producer_id, req.producer_epoch);
        if given != meta.identity() {
            if fencing::is_retried_end_txn(&meta, given, transaction_version) {
                return Ok(self.outcome_again(id, &meta, req.committed));
            }
            let fenced = fencing::fenced_error(version, FIRST_VERSION_WITH_FENCED);
            // `given` differs from the identity, so the check always refuses it.
            return Err(fencing::check_producer(&meta, given, fenced)
                .err()
                .map_or(fenced, |f| self.refused(id, "EndTxn", f)));
        }
        fencing::check_markers_delivered(meta.state).map_err(|f| self.refused(id, "EndTxn", f))?;
        // With version 2 the producer of a finished transaction has a new epoch, so an EndTxn
        // naming it ends the next (empty) transaction; with version 1 it is taken for a retry.
        if meta.state.is_complete() && transaction_version < 2 {
            return Ok(self.outcome_again(id, &meta, req.committed));
        }
        self.decide_end(id, meta, req.committed, transaction_version, now_ms)
    }

    /// An EndTxn for a transaction already decided: a retry whose answer was lost. The same
    /// outcome is NONE once complete and CONCURRENT_TRANSACTIONS while its markers are out; the
    /// other outcome is INVALID_TXN_STATE. Either way the answer names the current producer.
    fn outcome_again(&self, id: &str, meta: &TxnMeta, commit: bool) -> EndTxnResponse {
        let code = if meta.state.outcome() != Some(commit) {
            ErrorCode::INVALID_TXN_STATE
        } else if meta.state.is_prepare() {
            ErrorCode::CONCURRENT_TRANSACTIONS
        } else {
            ErrorCode::NONE
        };
        trace!(
            self.who,
            "{id}: EndTxn(commit={commit}) again after {:?}: {code:?}",
            meta.state
        );
        end_response(code, meta.identity())
    }

    /// The decision: logged, its markers queued, and answered with the producer's identity
    /// (bumped with transaction version 2).
    fn decide_end(
        &mut self,
        id: &str,
        meta: TxnMeta,
        commit: bool,
        transaction_version: i8,
        now_ms: u64,
    ) -> Result<EndTxnResponse, ErrorCode> {
        let mut new = meta.clone();
        if meta.state != TxnState::Ongoing {
            // Nothing was added since the last transaction ended: an empty one.
            new.partitions.clear();
        }
        new.transaction_version = transaction_version;
        if transaction_version >= 2 {
            self.bump_at_end(id, &mut new)?;
        }
        trace!(
            self.who,
            "{id}: EndTxn decides {} for {} partitions (producer {} epoch {})",
            if commit { "COMMIT" } else { "ABORT" },
            new.partitions.len(),
            new.producer_id,
            new.producer_epoch
        );
        self.decide(id, new, commit, now_ms).map_err(log_failed)?;
        Ok(end_response(ErrorCode::NONE, self.txns[id].meta.identity()))
    }

    /// Transaction version 2: the decision moves the producer to the next epoch, which its
    /// markers carry and the next transaction's data will too, so that a leader can tell a late
    /// marker of this transaction from one of the next. The identity before the bump is kept
    /// for a retried EndTxn. When the new epoch uses the producer id up, the client moves to a
    /// new producer id once the markers are delivered.
    fn bump_at_end(&mut self, id: &str, new: &mut TxnMeta) -> Result<(), ErrorCode> {
        new.prev_producer_id = new.producer_id;
        new.prev_producer_epoch = new.producer_epoch;
        new.producer_epoch = fencing::next_epoch(new.producer_epoch);
        if fencing::epoch_exhausted(new.producer_epoch) {
            new.next_producer_id = self.replace_exhausted(id, new.producer_id)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
