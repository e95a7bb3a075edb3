//! The marker sender: the thread that carries out the coordinator's phase 2, sending each
//! WriteTxnMarkers request to its leader's inter-broker listener and reporting the outcome.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{WriteTxnMarkersRequest, WriteTxnMarkersResponse};
use kafka_wire::{ApiSet, ErrorCode};

use crate::cluster::BrokerInfo;
use crate::coordinator::MarkerSend;
use crate::trace;

use super::{Client, Shared};

/// How long the marker sender waits to connect, and then for an answer.
const MARKER_CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
const MARKER_IO_TIMEOUT: Duration = Duration::from_secs(2);

/// The pause between two rounds of the marker sender.
const MARKER_POLL: Duration = Duration::from_millis(20);

/// The phase-2 loop of the coordinator broker (idle on the others): poll the coordinator for
/// markers, send each to its leader's inter-broker port, report the outcome, tick.
pub(super) fn marker_loop(shared: Arc<Shared>) {
    let client_id = format!("txn-broker-{}-markers", shared.opts.id);
    loop {
        let now = shared.now_ms();
        let sends: Vec<(MarkerSend, Option<BrokerInfo>)> = {
            let mut guard = shared.lock();
            shared.refresh(&mut guard);
            let state = &mut *guard;
            let held = state
                .last_decision_ms
                .is_some_and(|d| now < d.saturating_add(shared.opts.hold_markers_ms));
            match state.coordinator.as_mut() {
                Some(c) if !held => c
                    .poll_markers(&state.cluster, now)
                    .into_iter()
                    .map(|s| {
                        let to = state.cluster.broker(s.broker).cloned();
                        (s, to)
                    })
                    .collect(),
                _ => Vec::new(),
            }
        };
        for (send, to) in sends {
            let result = send_markers(&shared, &client_id, &send, to.as_ref());
            let now = shared.now_ms();
            let mut guard = shared.lock();
            if let Some(c) = guard.coordinator.as_mut() {
                c.on_marker_result(send.id, result.as_ref(), now);
            }
            drop(guard);
            if shared.opts.marker_gap_ms > 0 {
                thread::sleep(Duration::from_millis(shared.opts.marker_gap_ms));
            }
        }
        {
            let now = shared.now_ms();
            let mut guard = shared.lock();
            if let Some(c) = guard.coordinator.as_mut() {
                c.tick(now);
            }
        }
        thread::sleep(MARKER_POLL);
    }
}

/// `topic-partition,...` of a marker request, for the trace.
fn marker_partitions(req: &WriteTxnMarkersRequest) -> String {
    let mut out = Vec::new();
    for m in &req.markers {
        for t in &m.topics {
            for p in &t.partition_indexes {
                out.push(format!(
                    "{}-{p} (producer {} epoch {} {})",
                    &*t.name,
                    m.producer_id,
                    m.producer_epoch,
                    if m.transaction_result {
                        "COMMIT"
                    } else {
                        "ABORT"
                    }
                ));
            }
        }
    }
    out.join(", ")
}

/// Sends `send` to its leader `to` (`None`: not in the cluster file) and returns the answer;
/// `None` when there is none, which the coordinator treats as a failed send.
fn send_markers(
    shared: &Shared,
    client_id: &str,
    send: &MarkerSend,
    to: Option<&BrokerInfo>,
) -> Option<WriteTxnMarkersResponse> {
    let tag = format!("marker {} to broker {}", send.id, send.broker);
    let version = send.version();
    trace!(
        shared.who,
        "{tag}: sending WriteTxnMarkers v{version}: {}",
        marker_partitions(&send.request)
    );
    let Some(to) = to else {
        trace!(shared.who, "{tag}: not in the cluster file");
        return None;
    };
    // Version 2 for a transaction of version 2: older versions drop the field that tells the
    // leader to apply the strict epoch rule.
    let result = Client::connect(
        (to.host.as_str(), to.broker_port),
        client_id,
        MARKER_CONNECT_TIMEOUT,
        MARKER_IO_TIMEOUT,
    )
    .and_then(|mut client| {
        client.call(RequestBody::WriteTxnMarkers(send.request.clone()), version)
    });
    match result {
        Ok(ResponseBody::WriteTxnMarkers(resp)) => {
            let failed = failed_partitions(&resp);
            if failed.is_empty() {
                trace!(shared.who, "{tag}: acknowledged");
            } else {
                trace!(shared.who, "{tag}: answered with errors: {failed}");
            }
            Some(resp)
        }
        Ok(other) => {
            trace!(
                shared.who,
                "{tag}: unexpected answer {}",
                other.api().name()
            );
            None
        }
        Err(e) => {
            trace!(shared.who, "{tag}: send failed: {e}");
            None
        }
    }
}

/// The partitions a leader answered with an error, for the trace; empty when there are none.
fn failed_partitions(resp: &WriteTxnMarkersResponse) -> String {
    let mut failed = Vec::new();
    for m in &resp.markers {
        for t in &m.topics {
            for p in t
                .partitions
                .iter()
                .filter(|p| p.error_code != ErrorCode::NONE)
            {
                failed.push(format!(
                    "{}-{} producer {}: error {:?}",
                    &*t.name,
                    p.partition_index,
                    m.producer_id,
                    ErrorCode::from(p.error_code)
                ));
            }
        }
    }
    failed.join(", ")
}

#[cfg(test)]
mod tests;
