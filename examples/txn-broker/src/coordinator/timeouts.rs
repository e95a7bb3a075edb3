//! Transaction timeouts: a transaction open longer than its producer asked for is aborted, with
//! the epoch bumped so that the producer that let it lapse is fenced.

use crate::fencing;
use crate::trace;

use super::state::TxnState;
use super::Coordinator;

impl Coordinator {
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
            new.producer_epoch = fencing::next_epoch(meta.producer_epoch);
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
mod tests;
