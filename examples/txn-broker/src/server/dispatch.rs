//! The hand-off of each request: to the server's own answers, to this broker's
//! [`Leaders`](crate::leader::Leaders), or to its
//! [`Coordinator`](crate::coordinator::Coordinator) (NOT_COORDINATOR when it has none), all
//! under the one lock. Produce and Fetch, the requests that carry and ask for data, are read
//! through their views on the frame; Fetch may wait for data without holding the lock.

use std::thread;
use std::time::{Duration, Instant};

use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{fetch_request::FetchRequestView, produce_request::ProduceRequestView};
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, EndTxnRequest, EndTxnResponse,
    FetchResponse, InitProducerIdResponse, ProduceResponse, RequestHeader,
};
use kafka_wire::view::Source;
use kafka_wire::{ApiSet, ErrorCode};

use crate::coordinator::results_by_topic;
use crate::leader::Listener;
use crate::trace;

use super::apis::api_versions_response;
use super::discovery::{find_coordinator, metadata};
use super::{Shared, State};

/// The longest a Fetch that found nothing new is held before the empty answer goes out,
/// whatever the client's `max_wait_ms` asks for.
const FETCH_MAX_HOLD: Duration = Duration::from_secs(1);

/// How often a held Fetch looks at the logs again.
const FETCH_RECHECK: Duration = Duration::from_millis(10);

/// Fetch with a wait: when the logs have fewer than `min_bytes` (at least one byte) to return
/// and no partition has an error, the request is looked at again every few milliseconds
/// (without holding the lock in between) until there is, or until `max_wait_ms` (at most
/// [`FETCH_MAX_HOLD`]) have passed; then the last answer goes out. Without this, a consumer
/// that has read everything would send its next Fetch at once, over and over.
pub(super) fn fetch_waiting(
    shared: &Shared,
    req: FetchRequestView<'_>,
    version: i16,
) -> FetchResponse {
    let started = Instant::now();
    let wait =
        Duration::from_millis(u64::try_from(req.max_wait_ms()).unwrap_or(0)).min(FETCH_MAX_HOLD);
    let enough = usize::try_from(req.min_bytes()).unwrap_or(0).max(1);
    loop {
        let response = {
            let mut guard = shared.lock();
            shared.refresh(&mut guard);
            guard.leaders.fetch_view(req, version)
        };
        let partitions = response.responses.iter().flat_map(|t| &t.partitions);
        let mut bytes = 0usize;
        let mut failed = false;
        for p in partitions {
            bytes += p.records.as_ref().map_or(0, |r| r.as_bytes().len());
            failed |= p.error_code != ErrorCode::NONE;
        }
        if bytes >= enough || failed || started.elapsed() + FETCH_RECHECK > wait {
            return response;
        }
        thread::sleep(FETCH_RECHECK);
    }
}

/// Produce, read through its view on `frame`: each partition's records go to the log as a
/// `Bytes` sharing the frame. `None` when the producer asked for no answer (acks=0).
pub(super) fn produce(
    shared: &Shared,
    req: ProduceRequestView<'_>,
    frame: Source<'_>,
) -> Option<ProduceResponse> {
    let response = {
        let mut guard = shared.lock();
        shared.refresh(&mut guard);
        guard.leaders.produce_view(req, frame)
    };
    (req.acks() != 0).then_some(response)
}

/// The answer to one decoded request other than Produce and Fetch; `None` when the request
/// takes no answer.
pub(super) fn respond(
    shared: &Shared,
    header: &RequestHeader,
    body: RequestBody,
    listener: Listener,
) -> Option<ResponseBody> {
    let version = header.request_api_version;
    let now = shared.now_ms();
    let mut guard = shared.lock();
    shared.refresh(&mut guard);
    let state = &mut *guard;
    let response = match body {
        RequestBody::ApiVersions(_) => {
            ResponseBody::ApiVersions(api_versions_response(listener, ErrorCode::NONE))
        }
        RequestBody::Metadata(req) => {
            ResponseBody::Metadata(metadata(&state.cluster, &req, version))
        }
        RequestBody::FindCoordinator(req) => {
            ResponseBody::FindCoordinator(find_coordinator(&state.cluster, &req, version))
        }
        RequestBody::ListOffsets(req) => {
            ResponseBody::ListOffsets(state.leaders.list_offsets(&req, version))
        }
        RequestBody::WriteTxnMarkers(req) => {
            ResponseBody::WriteTxnMarkers(state.leaders.write_txn_markers(&req, version, listener))
        }
        RequestBody::InitProducerId(req) => {
            ResponseBody::InitProducerId(match state.coordinator.as_mut() {
                Some(c) => c.init_producer_id(&req, version, now),
                None => not_coordinator_init(),
            })
        }
        RequestBody::AddPartitionsToTxn(req) => {
            ResponseBody::AddPartitionsToTxn(match state.coordinator.as_mut() {
                Some(c) => c.add_partitions_to_txn(&req, version, &state.cluster, now),
                None => not_coordinator_add_partitions(&req),
            })
        }
        RequestBody::EndTxn(req) => {
            ResponseBody::EndTxn(end_txn(shared, state, &req, version, now))
        }
        other => {
            // Produce and Fetch go to `produce` and `fetch_waiting` from their views; any other
            // API here means the table of readable APIs names one without a handler.
            trace!(shared.who, "no handler for {}", other.api().name());
            return None;
        }
    };
    Some(response)
}

/// EndTxn, answered by the coordinator, which notes when it last decided (see
/// [`Options::hold_markers_ms`](super::Options::hold_markers_ms)).
fn end_txn(
    shared: &Shared,
    state: &mut State,
    req: &EndTxnRequest,
    version: i16,
    now: u64,
) -> EndTxnResponse {
    let Some(c) = state.coordinator.as_mut() else {
        return EndTxnResponse::default()
            .with_error_code(ErrorCode::NOT_COORDINATOR.code())
            .with_producer_id(-1)
            .with_producer_epoch(-1);
    };
    let response = c.end_txn(req, version, now);
    if response.error_code == ErrorCode::NONE {
        state.last_decision_ms = Some(now);
        trace!(
            shared.who,
            "EndTxn {} producer {} epoch {}: decision written ({}); markers held {} ms",
            &*req.transactional_id,
            req.producer_id,
            req.producer_epoch,
            if req.committed { "commit" } else { "abort" },
            shared.opts.hold_markers_ms
        );
    }
    response
}

fn not_coordinator_init() -> InitProducerIdResponse {
    InitProducerIdResponse::default()
        .with_error_code(ErrorCode::NOT_COORDINATOR.code())
        .with_producer_id(-1)
        .with_producer_epoch(-1)
}

fn not_coordinator_add_partitions(req: &AddPartitionsToTxnRequest) -> AddPartitionsToTxnResponse {
    AddPartitionsToTxnResponse::default()
        .with_results_by_topic_v3_and_below(results_by_topic(&req.v3_and_below_topics, |_| {
            ErrorCode::NOT_COORDINATOR
        }))
}

#[cfg(test)]
mod tests;
