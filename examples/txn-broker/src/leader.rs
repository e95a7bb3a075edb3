//! Partition leaders: the partitions one broker leads, each an append-only log of RecordBatch
//! v2 bytes with the producer state derived from it.
//!
//! The leader answers Produce (offsets assigned here, idempotence and zombie fencing),
//! WriteTxnMarkers (phase 2 of a transaction: one control batch per partition that has the
//! transaction open, retries and stale markers answered without writing), Fetch (up to the high
//! watermark, or to the last stable offset with the aborted transactions for read_committed)
//! and ListOffsets. A leader change is the new leader loading the same log file.

mod log;
mod producer;
mod read;
mod validate;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io;
use std::time::{SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use kafka_wire::messages::fetch_request::FetchRequestView;
use kafka_wire::messages::fetch_response::{
    AbortedTransaction, FetchableTopicResponse, PartitionData,
};
use kafka_wire::messages::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
};
use kafka_wire::messages::produce_request::ProduceRequestView;
use kafka_wire::messages::produce_response::{PartitionProduceResponse, TopicProduceResponse};
use kafka_wire::messages::write_txn_markers_request::WritableTxnMarker;
use kafka_wire::messages::write_txn_markers_response::{
    WritableTxnMarkerPartitionResult, WritableTxnMarkerResult, WritableTxnMarkerTopicResult,
};
use kafka_wire::messages::{
    FetchRequest, FetchResponse, ListOffsetsRequest, ListOffsetsResponse, ProduceRequest,
    ProduceResponse, WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};
use kafka_wire::records::RecordBatch;
use kafka_wire::view::Source;
use kafka_wire::{ErrorCode, KafkaString, Records, Uuid};

use crate::cluster::{BrokerId, Cluster, TopicPartition};
use crate::fencing;
use crate::storage::Storage;
use crate::trace;
use log::{MarkerOutcome, MarkerRequest, Partition};

/// Which listener a request came in on. WriteTxnMarkers is only accepted on InterBroker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    Client,
    InterBroker,
}

/// ListOffsets: the special timestamps.
const LATEST: i64 = -1;
const EARLIEST: i64 = -2;
const MAX_TIMESTAMP: i64 = -3;
const EARLIEST_LOCAL: i64 = -4;

/// Fetch and ListOffsets isolation level 1.
const READ_COMMITTED: i8 = 1;

/// What a Fetch may still return: the bytes left under its limit, and whether it has taken
/// anything yet (the first batch it finds is taken whatever its size).
struct FetchBudget {
    left: usize,
    sent_any: bool,
}

/// What a Fetch asks of one partition.
struct PartitionFetch {
    partition: i32,
    fetch_offset: i64,
    max_bytes: i32,
}

/// All partitions one broker leads.
pub struct Leaders {
    broker: BrokerId,
    who: String,
    storage: Box<dyn Storage>,
    /// The cluster of the last `sync`, to tell unknown partitions from those led elsewhere.
    cluster: Option<Cluster>,
    partitions: BTreeMap<TopicPartition, Partition>,
    /// A fixed clock (milliseconds) when set; otherwise the system clock is read.
    now_ms: Option<u64>,
}

impl Leaders {
    /// A broker that leads nothing until [`sync`](Self::sync).
    pub fn new(broker: BrokerId, storage: Box<dyn Storage>) -> Self {
        Leaders {
            broker,
            who: format!("broker {broker} leader"),
            storage,
            cluster: None,
            partitions: BTreeMap::new(),
            now_ms: None,
        }
    }

    /// Fixes the time stamped on transaction markers and log-append-time batches (the
    /// simulation passes its own clock); until called, the system clock is used.
    pub fn set_time(&mut self, now_ms: u64) {
        self.now_ms = Some(now_ms);
    }

    fn now(&self) -> i64 {
        let ms = self.now_ms.unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64)
        });
        i64::try_from(ms).unwrap_or(i64::MAX)
    }

    /// Brings the led set in line with `cluster`: loads (from storage, rebuilding producer
    /// state from the log) every partition `cluster` says this broker now leads, forgets the
    /// ones it no longer leads. Unknown partitions => UNKNOWN_TOPIC_OR_PARTITION, partitions
    /// led elsewhere => NOT_LEADER_OR_FOLLOWER.
    pub fn sync(&mut self, cluster: &Cluster) -> io::Result<()> {
        let led: Vec<TopicPartition> = cluster.led_by(self.broker).cloned().collect();
        let before = self.partitions.len();
        self.partitions.retain(|tp, _| led.contains(tp));
        if self.partitions.len() != before {
            trace!(
                self.who,
                "gave up {} partition(s) led elsewhere now",
                before - self.partitions.len()
            );
        }
        for tp in led {
            if self.partitions.contains_key(&tp) {
                continue;
            }
            let part = Partition::load(tp.clone(), self.storage.as_mut(), &self.who)?;
            trace!(
                self.who,
                "now leading {tp}: {} batches, high watermark {}, {} open transaction(s)",
                part.index.len(),
                part.high_watermark(),
                part.ongoing.len()
            );
            self.partitions.insert(tp, part);
        }
        self.cluster = Some(cluster.clone());
        Ok(())
    }

    /// The error code for a partition this broker does not lead.
    fn not_here(&self, tp: &TopicPartition) -> ErrorCode {
        match self.cluster.as_ref().and_then(|c| c.leader(tp)) {
            Some(_) => ErrorCode::NOT_LEADER_OR_FOLLOWER,
            None => ErrorCode::UNKNOWN_TOPIC_OR_PARTITION,
        }
    }

    /// Appends one batch per partition (offsets assigned here) after validating it and
    /// checking the producer's epoch and sequence; a retried batch answers its first offset.
    /// `acks` outside -1, 0, 1 => INVALID_REQUIRED_ACKS; every valid one is leader-durable.
    pub fn produce(&mut self, req: &ProduceRequest, _version: i16) -> ProduceResponse {
        let topics = req.topic_data.iter().map(|topic| {
            let partitions = topic.partition_data.iter().map(|data| {
                let records = data.records.as_ref().map(|r| r.as_bytes().clone());
                (data.index, records.unwrap_or_default())
            });
            (topic.name.as_str(), topic.topic_id, partitions)
        });
        self.produce_topics(req.acks, topics)
    }

    /// [`produce`](Self::produce), reading the request through its view on `frame`, the bytes
    /// the view was opened on: no part of the request is decoded into owned values, and each
    /// partition's records are handed to its log as a `Bytes` that shares `frame`'s buffer
    /// (when `frame` is a `Bytes`; a slice is copied).
    pub fn produce_view(
        &mut self,
        req: ProduceRequestView<'_>,
        frame: Source<'_>,
    ) -> ProduceResponse {
        let topics = req.topic_data().iter().map(|topic| {
            let partitions = topic.partition_data().iter().map(move |data| {
                let records = data.records().map(|r| frame.to_bytes(r));
                (data.index(), records.unwrap_or_default())
            });
            (topic.name(), topic.topic_id(), partitions)
        });
        self.produce_topics(req.acks(), topics)
    }

    /// Produce over its topics, each a name, an id and its partitions' indexes and records,
    /// however the request was read.
    fn produce_topics<'t, P>(
        &mut self,
        acks: i16,
        topics: impl ExactSizeIterator<Item = (&'t str, Uuid, P)>,
    ) -> ProduceResponse
    where
        P: ExactSizeIterator<Item = (i32, Bytes)>,
    {
        let acks_ok = matches!(acks, -1..=1);
        let now = self.now();
        let mut responses = Vec::with_capacity(topics.len());
        for (name, topic_id, partitions) in topics {
            let mut partition_responses = Vec::with_capacity(partitions.len());
            for (index, records) in partitions {
                let tp = TopicPartition::new(name, index);
                let mut out = PartitionProduceResponse::default()
                    .with_index(index)
                    .with_base_offset(-1);
                let fail =
                    |out: &mut PartitionProduceResponse, code: ErrorCode, message: String| {
                        out.error_code = code.code();
                        out.error_message = Some(KafkaString::from(message));
                    };
                if !acks_ok {
                    fail(
                        &mut out,
                        ErrorCode::INVALID_REQUIRED_ACKS,
                        format!("acks {acks} (only -1, 0 and 1 are valid)"),
                    );
                } else if !self.partitions.contains_key(&tp) {
                    let code = self.not_here(&tp);
                    fail(&mut out, code, format!("{tp} is not led by this broker"));
                } else if let Some(part) = self.partitions.get_mut(&tp) {
                    match part.produce(self.storage.as_mut(), &records, now, &self.who) {
                        Ok(appended) => {
                            out.base_offset = appended.base_offset;
                            out.log_append_time_ms = appended.log_append_time;
                            out.log_start_offset = part.log_start_offset();
                        }
                        Err(refusal) => fail(&mut out, refusal.code, refusal.message),
                    }
                }
                partition_responses.push(out);
            }
            responses.push(
                TopicProduceResponse::default()
                    .with_name(name.to_owned())
                    .with_topic_id(topic_id)
                    .with_partition_responses(partition_responses),
            );
        }
        ProduceResponse::default().with_responses(responses)
    }

    /// Phase 2 of a transaction: per partition, the checks and no-op rules of the design, then
    /// one COMMIT or ABORT control batch where the producer has a transaction open.
    pub fn write_txn_markers(
        &mut self,
        req: &WriteTxnMarkersRequest,
        _version: i16,
        listener: Listener,
    ) -> WriteTxnMarkersResponse {
        let now = self.now();
        answer_markers(req, |marker, tp| {
            if let Err(fenced) = fencing::check_marker_listener(listener) {
                trace!(
                    self.who,
                    "{tp}: refused marker of producer {}: {}",
                    marker.producer_id,
                    fenced.reason
                );
                return fenced.code;
            }
            let Some(part) = self.partitions.get_mut(tp) else {
                return self.not_here(tp);
            };
            let ask = MarkerRequest {
                producer_id: marker.producer_id,
                producer_epoch: marker.producer_epoch,
                commit: marker.transaction_result,
                coordinator_epoch: marker.coordinator_epoch,
                transaction_version: marker.transaction_version,
            };
            match part.write_marker(self.storage.as_mut(), &ask, now, &self.who) {
                Ok(MarkerOutcome::Written(_) | MarkerOutcome::NoOp) => ErrorCode::NONE,
                Err(refusal) => refusal.code,
            }
        })
    }

    /// Whole raw batches from the one holding the fetch offset, up to the high watermark
    /// (read_uncommitted) or the last stable offset with the aborted transactions
    /// (read_committed), within the byte limits but never empty-handed on the first partition
    /// with data. Answers at once: `min_bytes` and `max_wait_ms` are not waited for.
    pub fn fetch(&self, req: &FetchRequest, _version: i16) -> FetchResponse {
        let topics = req.topics.iter().map(|topic| {
            let partitions = topic.partitions.iter().map(|fp| PartitionFetch {
                partition: fp.partition,
                fetch_offset: fp.fetch_offset,
                max_bytes: fp.partition_max_bytes,
            });
            (topic.topic.as_str(), topic.topic_id, partitions)
        });
        self.fetch_topics(req.isolation_level, req.max_bytes, topics)
    }

    /// [`fetch`](Self::fetch), reading the request through its view: no part of it is decoded
    /// into owned values.
    pub fn fetch_view(&self, req: FetchRequestView<'_>, _version: i16) -> FetchResponse {
        let topics = req.topics().iter().map(|topic| {
            let partitions = topic.partitions().iter().map(|fp| PartitionFetch {
                partition: fp.partition(),
                fetch_offset: fp.fetch_offset(),
                max_bytes: fp.partition_max_bytes(),
            });
            (topic.topic(), topic.topic_id(), partitions)
        });
        self.fetch_topics(req.isolation_level(), req.max_bytes(), topics)
    }

    /// Fetch over its topics, each a name, an id and what is asked of its partitions, however
    /// the request was read.
    fn fetch_topics<'t, P>(
        &self,
        isolation_level: i8,
        max_bytes: i32,
        topics: impl ExactSizeIterator<Item = (&'t str, Uuid, P)>,
    ) -> FetchResponse
    where
        P: Iterator<Item = PartitionFetch>,
    {
        let committed = isolation_level == READ_COMMITTED;
        let mut budget = FetchBudget {
            left: usize::try_from(max_bytes).unwrap_or(0),
            sent_any: false,
        };
        let mut responses = Vec::with_capacity(topics.len());
        for (name, topic_id, partitions) in topics {
            let partitions = partitions
                .map(|fp| {
                    let tp = TopicPartition::new(name, fp.partition);
                    self.fetch_partition(&tp, &fp, committed, &mut budget)
                })
                .collect();
            responses.push(
                FetchableTopicResponse::default()
                    .with_topic(name.to_owned())
                    .with_topic_id(topic_id)
                    .with_partitions(partitions),
            );
        }
        FetchResponse::default().with_responses(responses)
    }

    /// One partition of a Fetch, taking what it returns from `budget`.
    fn fetch_partition(
        &self,
        tp: &TopicPartition,
        fp: &PartitionFetch,
        committed: bool,
        budget: &mut FetchBudget,
    ) -> PartitionData {
        let mut out = PartitionData::default()
            .with_partition_index(fp.partition)
            .with_high_watermark(-1)
            .with_last_stable_offset(-1)
            .with_log_start_offset(-1)
            .with_aborted_transactions(None)
            .with_records(Some(Records::default()));
        let Some(part) = self.partitions.get(tp) else {
            out.error_code = self.not_here(tp).code();
            return out;
        };
        let hw = part.high_watermark();
        let lso = part.last_stable_offset();
        out.high_watermark = hw;
        out.last_stable_offset = lso;
        out.log_start_offset = part.log_start_offset();
        if fp.fetch_offset < part.log_start_offset() || fp.fetch_offset > hw {
            out.error_code = ErrorCode::OFFSET_OUT_OF_RANGE.code();
            return out;
        }
        let upper = if committed { lso } else { hw };
        let limit = usize::try_from(fp.max_bytes).unwrap_or(0).min(budget.left);
        let slice = part.read(fp.fetch_offset, upper, limit, !budget.sent_any);
        if !slice.bytes.is_empty() {
            budget.sent_any = true;
            budget.left = budget.left.saturating_sub(slice.bytes.len());
        }
        if committed && slice.bytes.is_empty() {
            out.aborted_transactions = Some(Vec::new());
        } else if committed {
            out.aborted_transactions = Some(
                part.aborted_between(slice.from, slice.to)
                    .into_iter()
                    .map(|a| {
                        AbortedTransaction::default()
                            .with_producer_id(a.producer_id)
                            .with_first_offset(a.first_offset)
                    })
                    .collect(),
            );
        }
        out.records = Some(Records::new(slice.bytes));
        out
    }

    /// -2 (and -4): the log start; -1: the high watermark, or the last stable offset for
    /// read_committed; -3: the record with the largest timestamp; a timestamp: the first record
    /// at or after it. Nothing found => offset and timestamp -1.
    pub fn list_offsets(&self, req: &ListOffsetsRequest, version: i16) -> ListOffsetsResponse {
        let committed = req.isolation_level == READ_COMMITTED;
        let mut topics = Vec::with_capacity(req.topics.len());
        for topic in &req.topics {
            let mut partitions = Vec::with_capacity(topic.partitions.len());
            for lp in &topic.partitions {
                let tp = TopicPartition::new(topic.name.as_str(), lp.partition_index);
                let mut out = ListOffsetsPartitionResponse::default()
                    .with_partition_index(lp.partition_index);
                match self.partitions.get(&tp) {
                    None => out.error_code = self.not_here(&tp).code(),
                    Some(part) => {
                        let upper = if committed {
                            part.last_stable_offset()
                        } else {
                            part.high_watermark()
                        };
                        let found = match lp.timestamp {
                            EARLIEST | EARLIEST_LOCAL => Some((part.log_start_offset(), -1)),
                            LATEST => Some((upper, -1)),
                            MAX_TIMESTAMP => part.max_timestamp_offset(upper),
                            t if t >= 0 => part.offset_for_timestamp(t, upper),
                            _ => None,
                        };
                        match found {
                            // Version 0 has only the list of offsets.
                            Some((offset, _)) if version == 0 => {
                                out.old_style_offsets = vec![offset].into();
                            }
                            Some((offset, timestamp)) => {
                                out.offset = offset;
                                out.timestamp = timestamp;
                            }
                            None => {}
                        }
                    }
                }
                partitions.push(out);
            }
            topics.push(
                ListOffsetsTopicResponse::default()
                    .with_name(topic.name.clone())
                    .with_partitions(partitions),
            );
        }
        ListOffsetsResponse::default().with_topics(topics)
    }

    /// Read access for tests and invariant checks: every batch of a led partition's log.
    pub fn batches(&self, tp: &TopicPartition) -> Option<Vec<RecordBatch>> {
        self.partitions.get(tp).map(Partition::batches)
    }
}

/// The response to a WriteTxnMarkers request, in the request's shape: `code` gives each
/// partition's error code, called in request order (markers, then topics, then partitions).
pub fn answer_markers(
    req: &WriteTxnMarkersRequest,
    mut code: impl FnMut(&WritableTxnMarker, &TopicPartition) -> ErrorCode,
) -> WriteTxnMarkersResponse {
    let markers = req
        .markers
        .iter()
        .map(|marker| {
            WritableTxnMarkerResult::default()
                .with_producer_id(marker.producer_id)
                .with_topics(
                    marker
                        .topics
                        .iter()
                        .map(|topic| {
                            WritableTxnMarkerTopicResult::default()
                                .with_name(topic.name.clone())
                                .with_partitions(
                                    topic
                                        .partition_indexes
                                        .iter()
                                        .map(|index| {
                                            WritableTxnMarkerPartitionResult::default()
                                                .with_partition_index(index)
                                                .with_error_code(
                                                    code(
                                                        marker,
                                                        &TopicPartition::new(
                                                            topic.name.as_str(),
                                                            index,
                                                        ),
                                                    )
                                                    .code(),
                                                )
                                        })
                                        .collect(),
                                )
                        })
                        .collect(),
                )
        })
        .collect();
    WriteTxnMarkersResponse::default().with_markers(markers)
}
