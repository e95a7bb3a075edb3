//! AddPartitionsToTxn: the partitions a transaction writes to, recorded before it writes there
//! (the v0-3 form of one producer, the batched v4+ form of brokers, and its verify-only form).

use std::collections::{BTreeSet, HashMap};

use kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic;
use kafka_wire::messages::add_partitions_to_txn_response::{
    AddPartitionsToTxnPartitionResult, AddPartitionsToTxnResult, AddPartitionsToTxnTopicResult,
};
use kafka_wire::messages::{AddPartitionsToTxnRequest, AddPartitionsToTxnResponse};
use kafka_wire::ErrorCode;

use crate::cluster::{Cluster, TopicPartition};
use crate::fencing;
use crate::trace;

use super::state::TxnState;
use super::{log_failed, Coordinator};

/// The first AddPartitionsToTxn version whose clients know PRODUCER_FENCED.
const FIRST_VERSION_WITH_FENCED: i16 = 2;

impl Coordinator {
    pub fn add_partitions_to_txn(
        &mut self,
        req: &AddPartitionsToTxnRequest,
        version: i16,
        cluster: &Cluster,
        now_ms: u64,
    ) -> AddPartitionsToTxnResponse {
        let fenced = fencing::fenced_error(version, FIRST_VERSION_WITH_FENCED);
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
        fencing::check_producer(&meta, (producer_id, epoch), fenced)
            .and_then(|()| fencing::check_markers_delivered(meta.state))
            .map_err(|f| self.refused(id, "AddPartitionsToTxn", f))?;
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
        self.persist(id, new).map_err(log_failed)
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
            Some(txn) => fencing::check_producer(&txn.meta, (producer_id, epoch), fenced)
                .map_err(|f| self.refused(id, "AddPartitionsToTxn", f))
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
}

#[cfg(test)]
mod tests;
