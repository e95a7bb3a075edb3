//! InitProducerId: a producer id for an idempotent producer; for a transactional one, the next
//! epoch of its transactional id, which fences every older incarnation (and aborts the
//! transaction one of them left open).

use kafka_wire::messages::{InitProducerIdRequest, InitProducerIdResponse};
use kafka_wire::ErrorCode;

use crate::fencing;
use crate::trace;

use super::state::{TxnMeta, TxnState};
use super::{log_failed, Coordinator, MAX_TRANSACTION_TIMEOUT_MS, NO_PRODUCER};

/// The first InitProducerId version whose clients know PRODUCER_FENCED.
const FIRST_VERSION_WITH_FENCED: i16 = 4;

impl Coordinator {
    pub fn init_producer_id(
        &mut self,
        req: &InitProducerIdRequest,
        version: i16,
        now_ms: u64,
    ) -> InitProducerIdResponse {
        let answer = match req.transactional_id.as_deref() {
            None => self.init_idempotent(),
            Some(id) => self.init_transactional(id, req, version, now_ms),
        };
        let (error_code, (producer_id, producer_epoch)) = match answer {
            Ok(identity) => (ErrorCode::NONE, identity),
            Err(code) => (code, NO_PRODUCER),
        };
        InitProducerIdResponse::default()
            .with_error_code(error_code.code())
            .with_producer_id(producer_id)
            .with_producer_epoch(producer_epoch)
    }

    /// An idempotent producer: a fresh producer id, nothing else to remember.
    fn init_idempotent(&mut self) -> Result<(i64, i16), ErrorCode> {
        let pid = self.allocate_producer_id().map_err(log_failed)?;
        trace!(self.who, "idempotent producer gets producer id {pid}");
        Ok((pid, 0))
    }

    /// A transactional producer starts, or (from v3 on) a running one asks for its epoch to be
    /// bumped: the producer id and epoch it is to use from now on.
    fn init_transactional(
        &mut self,
        id: &str,
        req: &InitProducerIdRequest,
        version: i16,
        now_ms: u64,
    ) -> Result<(i64, i16), ErrorCode> {
        let timeout = req.transaction_timeout_ms;
        self.check_init_request(id, timeout)?;
        let Some(txn) = self.txns.get(id) else {
            return self.register(id, timeout, now_ms);
        };
        let meta = txn.meta.clone();
        fencing::check_markers_delivered(meta.state)
            .map_err(|f| self.refused(id, "InitProducerId", f))?;
        if version >= 3 && req.producer_id >= 0 {
            let given = (req.producer_id, req.producer_epoch);
            if given != meta.identity() && fencing::is_retried_bump(&meta, given) {
                let (pid, epoch) = meta.identity();
                trace!(
                    self.who,
                    "{id}: InitProducerId retried, answering producer {pid} epoch {epoch} again"
                );
                return Ok((pid, epoch));
            }
            let fenced = fencing::fenced_error(version, FIRST_VERSION_WITH_FENCED);
            fencing::check_producer(&meta, given, fenced)
                .map_err(|f| self.refused(id, "InitProducerId", f))?;
        }
        if meta.state == TxnState::Ongoing {
            return self.fence_and_abort(id, meta, now_ms);
        }
        self.bump(id, meta, timeout, now_ms)
    }

    /// A transactional id must not be empty, and its timeout must be positive and at most
    /// [`MAX_TRANSACTION_TIMEOUT_MS`].
    fn check_init_request(&self, id: &str, timeout_ms: i32) -> Result<(), ErrorCode> {
        if id.is_empty() {
            return Err(ErrorCode::INVALID_REQUEST);
        }
        if timeout_ms <= 0 || timeout_ms > MAX_TRANSACTION_TIMEOUT_MS {
            trace!(
                self.who,
                "{id}: transaction timeout {timeout_ms} ms refused"
            );
            return Err(ErrorCode::INVALID_TRANSACTION_TIMEOUT);
        }
        Ok(())
    }

    /// A transactional id seen for the first time: a new producer id at epoch 0.
    fn register(
        &mut self,
        id: &str,
        timeout_ms: i32,
        now_ms: u64,
    ) -> Result<(i64, i16), ErrorCode> {
        let pid = self.allocate_producer_id().map_err(log_failed)?;
        trace!(
            self.who,
            "{id}: new transactional id, producer id {pid} epoch 0"
        );
        self.persist(id, TxnMeta::new(pid, timeout_ms, now_ms))
            .map_err(log_failed)?;
        Ok((pid, 0))
    }

    /// A new incarnation while the previous one has a transaction open: the old epoch is fenced
    /// ([`fencing::fence_open_transaction`]) and what it left is aborted. The client is told
    /// CONCURRENT_TRANSACTIONS and retries until the abort is complete; then [`Self::bump`]
    /// gives it its epoch.
    fn fence_and_abort(
        &mut self,
        id: &str,
        meta: TxnMeta,
        now_ms: u64,
    ) -> Result<(i64, i16), ErrorCode> {
        let mut new = meta.clone();
        fencing::fence_open_transaction(&mut new);
        trace!(
            self.who,
            "{id}: InitProducerId during an ongoing transaction: epoch {} -> {}, aborting it",
            meta.producer_epoch,
            new.producer_epoch
        );
        self.decide(id, new, false, now_ms).map_err(log_failed)?;
        Err(ErrorCode::CONCURRENT_TRANSACTIONS)
    }

    /// A new incarnation with no transaction open: the next epoch, which fences the ones before
    /// it, or a new producer id at epoch 0 when the epoch is used up. The identity before the
    /// bump is kept, so that a retry of this request gets the same answer.
    fn bump(
        &mut self,
        id: &str,
        meta: TxnMeta,
        timeout_ms: i32,
        now_ms: u64,
    ) -> Result<(i64, i16), ErrorCode> {
        let mut new = meta.clone();
        new.last_update_ms = now_ms;
        new.prev_producer_id = meta.producer_id;
        new.prev_producer_epoch = meta.producer_epoch;
        if fencing::epoch_exhausted(meta.producer_epoch) {
            new.producer_id = self.replace_exhausted(id, meta.producer_id)?;
            new.producer_epoch = 0;
        } else {
            new.producer_epoch = fencing::next_epoch(meta.producer_epoch);
        }
        new.timeout_ms = timeout_ms;
        new.state = TxnState::Empty;
        new.partitions.clear();
        trace!(
            self.who,
            "{id}: InitProducerId bumps to producer {} epoch {}",
            new.producer_id,
            new.producer_epoch
        );
        let identity = new.identity();
        self.persist(id, new).map_err(log_failed)?;
        Ok(identity)
    }
}

#[cfg(test)]
mod tests;
