//! InitProducerId: a producer id for an idempotent producer, and for a transactional one the
//! next epoch of its transactional id, which fences every older incarnation.

use kafka_wire::messages::{InitProducerIdRequest, InitProducerIdResponse};
use kafka_wire::ErrorCode;

use crate::trace;

use super::state::{TxnMeta, TxnState};
use super::{fenced_code, fencing_epoch, Coordinator, EXHAUSTED_EPOCH, MAX_TRANSACTION_TIMEOUT_MS};

fn init_response(error_code: ErrorCode, identity: (i64, i16)) -> InitProducerIdResponse {
    InitProducerIdResponse {
        error_code: error_code.code(),
        producer_id: identity.0,
        producer_epoch: identity.1,
        ..Default::default()
    }
}

impl Coordinator {
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
}

#[cfg(test)]
mod tests;
