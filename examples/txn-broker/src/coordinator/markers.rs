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

use super::state::{Txn, TxnState};
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

/// A send handed out by `poll_markers` and not yet reported: which partitions of which
/// transactions it carries.
#[derive(Debug)]
pub(super) struct InFlight {
    broker: BrokerId,
    parts: Vec<(String, i64, TopicPartition)>,
}

impl Coordinator {
    /// Makes every partition of a Prepare transaction due for a marker at `now_ms`.
    pub(super) fn queue_markers(txn: &mut Txn, now_ms: u64) {
        txn.deposed = false;
        txn.pending = txn
            .meta
            .partitions
            .iter()
            .map(|tp| {
                (
                    tp.clone(),
                    PendingMarker {
                        next_at_ms: now_ms,
                        backoff_ms: MARKER_BACKOFF_INITIAL_MS,
                        in_flight: None,
                    },
                )
            })
            .collect();
    }

    /// Phase 2: the WriteTxnMarkers requests due now, one per destination broker (leaders
    /// taken from `cluster`), each tagged with an id to match its outcome.
    pub fn poll_markers(&mut self, cluster: &Cluster, now_ms: u64) -> Vec<MarkerSend> {
        self.complete_finished(now_ms);
        let mut by_broker: BTreeMap<BrokerId, Vec<(String, TopicPartition)>> = BTreeMap::new();
        for (id, txn) in &mut self.txns {
            if txn.deposed || !txn.meta.state.is_prepare() {
                continue;
            }
            for (tp, p) in &mut txn.pending {
                if p.in_flight.is_some() || p.next_at_ms > now_ms {
                    continue;
                }
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
                        p.next_at_ms = now_ms + p.backoff_ms;
                        p.backoff_ms = (p.backoff_ms * 2).min(MARKER_BACKOFF_MAX_MS);
                    }
                }
            }
        }
        let mut sends = Vec::new();
        for (broker, parts) in by_broker {
            let send_id = self.next_send_id;
            self.next_send_id += 1;
            // One marker per transaction, its partitions grouped by topic.
            let mut grouped: BTreeMap<&str, BTreeMap<&str, Vec<i32>>> = BTreeMap::new();
            for (id, tp) in &parts {
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
                let txn = &self.txns[id];
                let commit = txn.meta.state == TxnState::PrepareCommit;
                trace!(
                    self.who,
                    "{id}: sending {} marker to broker {broker} (send {send_id}, producer {} epoch {}, coordinator epoch {}): {:?}",
                    if commit { "COMMIT" } else { "ABORT" },
                    txn.meta.producer_id,
                    txn.meta.producer_epoch,
                    self.epoch,
                    topics
                );
                markers.push(WritableTxnMarker {
                    producer_id: txn.meta.producer_id,
                    producer_epoch: txn.meta.producer_epoch,
                    transaction_result: commit,
                    topics: topics
                        .iter()
                        .map(|(topic, partitions)| WritableTxnMarkerTopic {
                            name: KafkaString::from((*topic).to_owned()),
                            partition_indexes: partitions.clone().into(),
                            ..Default::default()
                        })
                        .collect(),
                    coordinator_epoch: self.epoch,
                    transaction_version: txn.meta.transaction_version,
                    ..Default::default()
                });
                for (topic, partitions) in topics {
                    for p in partitions {
                        flight.push((
                            id.to_owned(),
                            txn.meta.producer_id,
                            TopicPartition::new(topic, p),
                        ));
                    }
                }
            }
            for (id, _, tp) in &flight {
                if let Some(p) = self.txns.get_mut(id).and_then(|t| t.pending.get_mut(tp)) {
                    p.in_flight = Some(send_id);
                }
            }
            self.in_flight.insert(
                send_id,
                InFlight {
                    broker,
                    parts: flight,
                },
            );
            sends.push(MarkerSend {
                id: send_id,
                broker,
                request: WriteTxnMarkersRequest {
                    markers,
                    ..Default::default()
                },
            });
        }
        sends
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
        let broker = flight.broker;
        let mut codes: HashMap<(i64, &str, i32), ErrorCode> = HashMap::new();
        if let Some(response) = result {
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
        } else {
            trace!(self.who, "marker send {id} to broker {broker} failed");
        }
        let mut touched = BTreeSet::new();
        for (txn_id, pid, tp) in &flight.parts {
            let Some(txn) = self.txns.get_mut(txn_id) else {
                continue;
            };
            let Some(p) = txn.pending.get_mut(tp) else {
                continue;
            };
            if p.in_flight != Some(id) {
                continue;
            }
            p.in_flight = None;
            touched.insert(txn_id.clone());
            let code = codes.get(&(*pid, tp.topic.as_str(), tp.partition)).copied();
            match code.map(fencing::marker_answer) {
                Some(MarkerAnswer::Acknowledged) => {
                    trace!(
                        self.who,
                        "{txn_id}: marker for {tp} acknowledged by broker {broker}"
                    );
                    txn.pending.remove(tp);
                }
                Some(MarkerAnswer::Superseded) => {
                    trace!(
                        self.who,
                        "{txn_id}: {tp} at broker {broker} was already finished by a newer epoch of producer {pid}; counted as acknowledged"
                    );
                    txn.pending.remove(tp);
                }
                Some(MarkerAnswer::Deposed) => {
                    trace!(
                        self.who,
                        "{txn_id}: broker {broker} has seen a newer coordinator than epoch {} for {tp}: deposed, no more markers for this transaction",
                        self.epoch
                    );
                    txn.deposed = true;
                    txn.pending.clear();
                }
                Some(MarkerAnswer::Retry) | None => {
                    let why = match code {
                        None if result.is_none() => "send failed".to_owned(),
                        None => "no answer for it".to_owned(),
                        Some(code) => format!("error {code:?}"),
                    };
                    trace!(
                        self.who,
                        "{txn_id}: marker for {tp} at broker {broker}: {why}, retry in {} ms",
                        p.backoff_ms
                    );
                    p.next_at_ms = now_ms + p.backoff_ms;
                    p.backoff_ms = (p.backoff_ms * 2).min(MARKER_BACKOFF_MAX_MS);
                }
            }
        }
        for txn_id in touched {
            self.complete_if_done(&txn_id, now_ms);
        }
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
        new.state = if new.state == TxnState::PrepareCommit {
            TxnState::CompleteCommit
        } else {
            TxnState::CompleteAbort
        };
        new.partitions.clear();
        new.last_update_ms = now_ms;
        if new.next_producer_id >= 0 {
            new.producer_id = new.next_producer_id;
            new.producer_epoch = 0;
            new.next_producer_id = -1;
        }
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
