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

/// One transaction's part of an AddPartitionsToTxn request.
struct AddRequest<'a> {
    id: &'a str,
    producer: (i64, i16),
    topics: &'a [AddPartitionsToTxnTopic],
    verify_only: bool,
}

/// An answer per topic in the shape of `topics`, with `code` for each partition.
pub(crate) fn results_by_topic(
    topics: &[AddPartitionsToTxnTopic],
    code: impl Fn(&TopicPartition) -> ErrorCode,
) -> Vec<AddPartitionsToTxnTopicResult> {
    topics
        .iter()
        .map(|t| {
            AddPartitionsToTxnTopicResult::default()
                .with_name(t.name.clone())
                .with_results_by_partition(
                    t.partitions
                        .iter()
                        .map(|p| {
                            AddPartitionsToTxnPartitionResult::default()
                                .with_partition_index(p)
                                .with_partition_error_code(
                                    code(&TopicPartition::new(t.name.as_str(), p)).code(),
                                )
                        })
                        .collect(),
                )
        })
        .collect()
}

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
            let one = AddRequest {
                id: &req.v3_and_below_transactional_id,
                producer: (
                    req.v3_and_below_producer_id,
                    req.v3_and_below_producer_epoch,
                ),
                topics: &req.v3_and_below_topics,
                verify_only: false,
            };
            return AddPartitionsToTxnResponse::default().with_results_by_topic_v3_and_below(
                self.add_for_one(&one, fenced, cluster, now_ms),
            );
        }
        // Version 4 on: the batched form brokers send, several transactions at once.
        let results = req
            .transactions
            .iter()
            .map(|t| {
                let one = AddRequest {
                    id: &t.transactional_id,
                    producer: (t.producer_id, t.producer_epoch),
                    topics: &t.topics,
                    verify_only: t.verify_only,
                };
                AddPartitionsToTxnResult::default()
                    .with_transactional_id(t.transactional_id.clone())
                    .with_topic_results(self.add_for_one(&one, fenced, cluster, now_ms))
            })
            .collect();
        AddPartitionsToTxnResponse::default()
            .with_error_code(ErrorCode::NONE.code())
            .with_results_by_transaction(results)
    }

    /// AddPartitionsToTxn for one transaction: one error code per partition.
    fn add_for_one(
        &mut self,
        one: &AddRequest,
        fenced: ErrorCode,
        cluster: &Cluster,
        now_ms: u64,
    ) -> Vec<AddPartitionsToTxnTopicResult> {
        let wanted: Vec<TopicPartition> = one
            .topics
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(|p| TopicPartition::new(t.name.as_str(), p))
            })
            .collect();
        let codes = match self.refuse_unknown(one.id, &wanted, cluster) {
            Some(codes) => codes,
            None if one.verify_only => {
                self.verify_partitions(one.id, one.producer, &wanted, fenced)
            }
            None => {
                let added = self.add_partitions(one.id, one.producer, &wanted, fenced, now_ms);
                let code = added.err().unwrap_or(ErrorCode::NONE);
                wanted.iter().map(|tp| (tp.clone(), code)).collect()
            }
        };
        results_by_topic(one.topics, |tp| codes[tp])
    }

    /// When a partition is unknown nothing is added: the answer is UNKNOWN_TOPIC_OR_PARTITION
    /// for the unknown ones and OPERATION_NOT_ATTEMPTED for the others.
    fn refuse_unknown(
        &self,
        id: &str,
        wanted: &[TopicPartition],
        cluster: &Cluster,
    ) -> Option<HashMap<TopicPartition, ErrorCode>> {
        let unknown: BTreeSet<&TopicPartition> = wanted
            .iter()
            .filter(|tp| cluster.leader(tp).is_none())
            .collect();
        if unknown.is_empty() {
            return None;
        }
        trace!(
            self.who,
            "{id}: AddPartitionsToTxn names {} unknown partitions, nothing added",
            unknown.len()
        );
        let codes = wanted.iter().map(|tp| {
            let code = if unknown.contains(tp) {
                ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
            } else {
                ErrorCode::OPERATION_NOT_ATTEMPTED
            };
            (tp.clone(), code)
        });
        Some(codes.collect())
    }

    /// Adds `wanted` to the producer's transaction, beginning one when none is under way.
    fn add_partitions(
        &mut self,
        id: &str,
        producer: (i64, i16),
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
        fencing::check_producer(&meta, producer, fenced)
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
        producer: (i64, i16),
        wanted: &[TopicPartition],
        fenced: ErrorCode,
    ) -> HashMap<TopicPartition, ErrorCode> {
        let common = match self.txns.get(id) {
            None => Err(ErrorCode::INVALID_PRODUCER_ID_MAPPING),
            Some(txn) => fencing::check_producer(&txn.meta, producer, fenced)
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
