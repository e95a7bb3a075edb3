//! Starting up: the transaction log replayed into memory, a new coordinator epoch recorded, and
//! the markers of every transaction found between its phases queued again.

use std::collections::{BTreeMap, HashMap};
use std::io;

use crate::cluster::BrokerId;
use crate::storage::Storage;
use crate::trace;
use crate::txn_log::{CoordinatorEpochRecord, LogRecord, TxnLog};

use super::state::{Txn, TxnMeta};
use super::Coordinator;

/// What a replay of the log found.
struct Replayed {
    txns: BTreeMap<String, Txn>,
    /// The highest coordinator epoch recorded; 0 in a new log.
    epoch: i32,
    /// The first producer id no incarnation handed out: past every reserved block and every id
    /// a transactional id holds.
    next_producer_id: i64,
}

/// Every transactional id's last record, and the highest coordinator epoch and producer id
/// block recorded.
fn replay(records: Vec<LogRecord>) -> io::Result<Replayed> {
    let mut epoch = 0;
    let mut block_end = 0i64;
    let mut highest_pid = -1i64;
    let mut txns = BTreeMap::new();
    for record in records {
        match record {
            LogRecord::Txn(r) => {
                let meta = TxnMeta::from_record(&r)?;
                highest_pid = highest_pid
                    .max(meta.producer_id)
                    .max(meta.prev_producer_id)
                    .max(meta.next_producer_id);
                let txn = Txn {
                    meta,
                    pending: BTreeMap::new(),
                    deposed: false,
                };
                txns.insert(r.transactional_id, txn);
            }
            LogRecord::CoordinatorEpoch(r) => epoch = epoch.max(r.coordinator_epoch),
            LogRecord::ProducerIdBlock(r) => block_end = block_end.max(r.block_end),
        }
    }
    Ok(Replayed {
        txns,
        epoch,
        next_producer_id: block_end.max(highest_pid + 1),
    })
}

impl Coordinator {
    /// Replays the transaction log in `storage` (file `txn-log`), bumps and durably records
    /// the coordinator epoch, and queues phase-2 markers for every transaction left in
    /// PrepareCommit/PrepareAbort.
    pub fn load(broker: BrokerId, storage: Box<dyn Storage>) -> io::Result<Self> {
        let who = format!("broker {broker} coordinator");
        let (mut log, records) = TxnLog::open(storage)?;
        let count = records.len();
        let found = replay(records)?;
        let epoch = found.epoch.checked_add(1).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidData, "coordinator epoch exhausted")
        })?;
        log.append(&LogRecord::CoordinatorEpoch(CoordinatorEpochRecord {
            coordinator_epoch: epoch,
            ..Default::default()
        }))?;
        let next_producer_id = found.next_producer_id;
        trace!(
            who,
            "loaded {count} log records: {} transactional ids, coordinator epoch {epoch}, next producer id {next_producer_id}",
            found.txns.len()
        );
        let mut coordinator = Coordinator {
            who,
            log,
            epoch,
            txns: found.txns,
            next_producer_id,
            // The block in memory is empty: the first id handed out reserves a new one.
            producer_id_block_end: next_producer_id,
            next_send_id: 1,
            in_flight: HashMap::new(),
        };
        coordinator.requeue_unfinished();
        Ok(coordinator)
    }

    /// The transactions the log left between their phases send their markers again, now with
    /// the new coordinator epoch.
    fn requeue_unfinished(&mut self) {
        for (id, txn) in &mut self.txns {
            if !txn.meta.state.is_prepare() {
                continue;
            }
            trace!(
                self.who,
                "{id}: found in {:?} after load, markers for {} partitions queued again",
                txn.meta.state,
                txn.meta.partitions.len()
            );
            Self::queue_markers(txn, 0);
        }
    }
}

#[cfg(test)]
mod tests;
