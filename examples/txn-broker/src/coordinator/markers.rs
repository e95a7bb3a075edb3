//! Phase 2: the COMMIT or ABORT markers of a decided transaction, delivered to the leader of
//! every partition it wrote to. [`Coordinator::poll_markers`] hands out the WriteTxnMarkers
//! requests that are due, one per leader, and [`Coordinator::on_marker_result`] takes each
//! outcome back. A partition whose marker failed is sent again after an exponential backoff
//! (its leader looked up anew), and a transaction whose partitions have all acknowledged is
//! recorded Complete.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use kafka_wire::messages::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
use kafka_wire::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use kafka_wire::{ErrorCode, KafkaString};

use crate::cluster::{BrokerId, Cluster, TopicPartition};
use crate::fencing::{self, MarkerAnswer};
use crate::trace;

use super::state::{Txn, TxnMeta, TxnState};
use super::Coordinator;

/// The wait before the first resend of a partition's marker.
pub const MARKER_BACKOFF_INITIAL_MS: u64 = 50;
/// The backoff doubles after each failure up to this.
pub const MARKER_BACKOFF_MAX_MS: u64 = 2_000;

/// One WriteTxnMarkers request to send, and the id to report its outcome with.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkerSend {
    pub id: u64,
    pub broker: BrokerId,
    pub request: WriteTxnMarkersRequest,
}

impl MarkerSend {
    /// The WriteTxnMarkers version to send the request at: 1, or 2 when a marker belongs to a
    /// transaction of version 2 (the field that tells the leader so exists from version 2 on).
    pub fn version(&self) -> i16 {
        fencing::write_txn_markers_version(&self.request.markers)
    }
}

/// Delivery state of one partition's marker.
#[derive(Debug, Clone)]
pub(super) struct PendingMarker {
    /// Not sent again before this.
    next_at_ms: u64,
    /// The wait after the next failure.
    backoff_ms: u64,
    /// The send it is part of, while one is out.
    in_flight: Option<u64>,
}

impl PendingMarker {
    fn due_at(now_ms: u64) -> Self {
        PendingMarker {
            next_at_ms: now_ms,
            backoff_ms: MARKER_BACKOFF_INITIAL_MS,
            in_flight: None,
        }
    }

    fn is_due(&self, now_ms: u64) -> bool {
        self.in_flight.is_none() && self.next_at_ms <= now_ms
    }

    /// After a failure: not sent again before the backoff has passed, and the next backoff
    /// twice as long, up to [`MARKER_BACKOFF_MAX_MS`].
    fn back_off(&mut self, now_ms: u64) {
        self.next_at_ms = now_ms + self.backoff_ms;
        self.backoff_ms = (self.backoff_ms * 2).min(MARKER_BACKOFF_MAX_MS);
    }
}

/// A send handed out by `poll_markers` and not yet reported: which partitions of which
/// transactions it carries.
#[derive(Debug)]
pub(super) struct InFlight {
    broker: BrokerId,
    parts: Vec<(String, i64, TopicPartition)>,
}

/// One partition's share of a send's outcome: the leader's error code for it, or why there is
/// none.
type PartAnswer = Result<ErrorCode, &'static str>;

/// The error code of every partition a WriteTxnMarkers answer names, by producer id, topic and
/// partition.
fn answer_codes(response: &WriteTxnMarkersResponse) -> HashMap<(i64, &str, i32), ErrorCode> {
    let mut codes = HashMap::new();
    for marker in &response.markers {
        for topic in &marker.topics {
            for p in &topic.partitions {
                codes.insert(
                    (marker.producer_id, topic.name.as_str(), p.partition_index),
                    ErrorCode::from(p.error_code),
                );
            }
        }
    }
    codes
}

/// The marker of a Prepare transaction for its partitions `topics` (by topic), sent by the
/// coordinator of epoch `coordinator_epoch`.
fn marker_for(
    meta: &TxnMeta,
    topics: &BTreeMap<&str, Vec<i32>>,
    coordinator_epoch: i32,
) -> WritableTxnMarker {
    WritableTxnMarker::default()
        .with_producer_id(meta.producer_id)
        .with_producer_epoch(meta.producer_epoch)
        .with_transaction_result(meta.state == TxnState::PrepareCommit)
        .with_topics(
            topics
                .iter()
                .map(|(topic, partitions)| {
                    WritableTxnMarkerTopic::default()
                        .with_name(KafkaString::from((*topic).to_owned()))
                        .with_partition_indexes(partitions.clone().into())
                })
                .collect(),
        )
        .with_coordinator_epoch(coordinator_epoch)
        .with_transaction_version(meta.transaction_version)
}

impl Coordinator {
    /// Makes every partition of a Prepare transaction due for a marker at `now_ms`.
    pub(super) fn queue_markers(txn: &mut Txn, now_ms: u64) {
        txn.deposed = false;
        txn.pending = txn
            .meta
            .partitions
            .iter()
            .map(|tp| (tp.clone(), PendingMarker::due_at(now_ms)))
            .collect();
    }

    /// Phase 2: the WriteTxnMarkers requests due now, one per destination broker (leaders
    /// taken from `cluster`), each tagged with an id to match its outcome.
    pub fn poll_markers(&mut self, cluster: &Cluster, now_ms: u64) -> Vec<MarkerSend> {
        self.complete_finished(now_ms);
        let due = self.due_markers(cluster, now_ms);
        due.into_iter()
            .map(|(broker, parts)| self.marker_send(broker, &parts))
            .collect()
    }

    /// The partitions whose marker is due now, by the broker that leads them. A partition
    /// without a leader waits out a backoff.
    fn due_markers(
        &mut self,
        cluster: &Cluster,
        now_ms: u64,
    ) -> BTreeMap<BrokerId, Vec<(String, TopicPartition)>> {
        let mut by_broker: BTreeMap<BrokerId, Vec<(String, TopicPartition)>> = BTreeMap::new();
        for (id, txn) in &mut self.txns {
            if txn.deposed || !txn.meta.state.is_prepare() {
                continue;
            }
            for (tp, p) in txn.pending.iter_mut().filter(|(_, p)| p.is_due(now_ms)) {
                match cluster.leader(tp) {
                    Some(broker) => by_broker
                        .entry(broker)
                        .or_default()
                        .push((id.clone(), tp.clone())),
                    None => {
                        trace!(
                            self.who,
                            "{id}: no leader for {tp}, marker retried in {} ms",
                            p.backoff_ms
                        );
                        p.back_off(now_ms);
                    }
                }
            }
        }
        by_broker
    }

    /// One request to `broker` for the partitions `parts`: a marker per transaction, its
    /// partitions grouped by topic. They stay in flight until the outcome is reported.
    fn marker_send(&mut self, broker: BrokerId, parts: &[(String, TopicPartition)]) -> MarkerSend {
        let send_id = self.next_send_id;
        self.next_send_id += 1;
        let mut grouped: BTreeMap<&str, BTreeMap<&str, Vec<i32>>> = BTreeMap::new();
        for (id, tp) in parts {
            grouped
                .entry(id.as_str())
                .or_default()
                .entry(tp.topic.as_str())
                .or_default()
                .push(tp.partition);
        }
        let mut markers = Vec::new();
        let mut flight = Vec::new();
        for (id, topics) in grouped {
            let meta = &self.txns[id].meta;
            let commit = meta.state == TxnState::PrepareCommit;
            trace!(
                self.who,
                "{id}: sending {} marker to broker {broker} (send {send_id}, producer {} epoch {}, coordinator epoch {}): {:?}",
                if commit { "COMMIT" } else { "ABORT" },
                meta.producer_id,
                meta.producer_epoch,
                self.epoch,
                topics
            );
            markers.push(marker_for(meta, &topics, self.epoch));
            for (topic, partitions) in topics {
                for p in partitions {
                    let tp = TopicPartition::new(topic, p);
                    flight.push((id.to_owned(), meta.producer_id, tp));
                }
            }
        }
        for (id, _, tp) in &flight {
            if let Some(p) = self.txns.get_mut(id).and_then(|t| t.pending.get_mut(tp)) {
                p.in_flight = Some(send_id);
            }
        }
        let parts = flight;
        self.in_flight.insert(send_id, InFlight { broker, parts });
        MarkerSend {
            id: send_id,
            broker,
            request: WriteTxnMarkersRequest::default().with_markers(markers),
        }
    }

    /// The outcome of a send: the leader's response, or None when the send failed
    /// (connection refused, timeout). Partitions that failed are retried with backoff;
    /// a transaction whose markers are all acknowledged is recorded Complete.
    pub fn on_marker_result(
        &mut self,
        id: u64,
        result: Option<&WriteTxnMarkersResponse>,
        now_ms: u64,
    ) {
        let Some(flight) = self.in_flight.remove(&id) else {
            trace!(self.who, "outcome of unknown marker send {id} ignored");
            return;
        };
        let codes = match result {
            Some(response) => answer_codes(response),
            None => {
                trace!(
                    self.who,
                    "marker send {id} to broker {} failed",
                    flight.broker
                );
                HashMap::new()
            }
        };
        let mut touched = BTreeSet::new();
        for part in &flight.parts {
            let (txn_id, pid, tp) = part;
            let answer = match result {
                None => Err("send failed"),
                Some(_) => codes
                    .get(&(*pid, tp.topic.as_str(), tp.partition))
                    .copied()
                    .ok_or("no answer for it"),
            };
            if self.settle(id, flight.broker, part, answer, now_ms) {
                touched.insert(txn_id.clone());
            }
        }
        for txn_id in touched {
            self.complete_if_done(&txn_id, now_ms);
        }
    }

    /// Applies a leader's answer to one partition of send `id` (see
    /// [`fencing::marker_answer`]); false when the partition was no longer waiting for that
    /// send (a late answer to an earlier one).
    fn settle(
        &mut self,
        id: u64,
        broker: BrokerId,
        (txn_id, pid, tp): &(String, i64, TopicPartition),
        answer: PartAnswer,
        now_ms: u64,
    ) -> bool {
        let Some(txn) = self.txns.get_mut(txn_id) else {
            return false;
        };
        let Some(p) = txn.pending.get_mut(tp).filter(|p| p.in_flight == Some(id)) else {
            return false;
        };
        p.in_flight = None;
        match answer.map(fencing::marker_answer) {
            Ok(MarkerAnswer::Acknowledged) => {
                trace!(
                    self.who,
                    "{txn_id}: marker for {tp} acknowledged by broker {broker}"
                );
                txn.pending.remove(tp);
            }
            Ok(MarkerAnswer::Superseded) => {
                trace!(
                    self.who,
                    "{txn_id}: {tp} at broker {broker} was already finished by a newer epoch of producer {pid}; counted as acknowledged"
                );
                txn.pending.remove(tp);
            }
            Ok(MarkerAnswer::Deposed) => {
                trace!(
                    self.who,
                    "{txn_id}: broker {broker} has seen a newer coordinator than epoch {} for {tp}: deposed, no more markers for this transaction",
                    self.epoch
                );
                txn.deposed = true;
                txn.pending.clear();
            }
            Ok(MarkerAnswer::Retry) | Err(_) => {
                let why = match answer {
                    Ok(code) => format!("error {code:?}"),
                    Err(why) => why.to_owned(),
                };
                trace!(
                    self.who,
                    "{txn_id}: marker for {tp} at broker {broker}: {why}, retry in {} ms",
                    p.backoff_ms
                );
                p.back_off(now_ms);
            }
        }
        true
    }

    /// Records Complete for a Prepare transaction whose markers are all acknowledged.
    fn complete_if_done(&mut self, id: &str, now_ms: u64) {
        let Some(txn) = self.txns.get(id) else {
            return;
        };
        if txn.deposed || !txn.meta.state.is_prepare() || !txn.pending.is_empty() {
            return;
        }
        let mut new = txn.meta.clone();
        new.complete(new.state == TxnState::PrepareCommit);
        new.last_update_ms = now_ms;
        // On failure the state stays Prepare with nothing pending; the next poll or tick tries
        // the write again.
        let _ = self.persist(id, new);
    }

    /// Retries the Complete writes that failed earlier.
    pub(super) fn complete_finished(&mut self, now_ms: u64) {
        let done: Vec<String> = self
            .txns
            .iter()
            .filter(|(_, t)| !t.deposed && t.meta.state.is_prepare() && t.pending.is_empty())
            .map(|(id, _)| id.clone())
            .collect();
        for id in done {
            self.complete_if_done(&id, now_ms);
        }
    }
}

#[cfg(test)]
mod tests;
