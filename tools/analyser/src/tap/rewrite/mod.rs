//! The responses that tell a client where brokers are, with every broker's host and port
//! replaced by the tap's listener for that broker, so that the client's next connections come
//! through the tap too.
//!
//! Only these responses are decoded and written again; every other frame passes untouched. A
//! rewritten frame differs from the broker's only in those hosts and ports: its header, every
//! other field and any bytes after the body stay as they were. (Decoding reads what Kafka's
//! clients read, and writing gives the canonical form of it, which is what brokers send.)

use super::scan;
use bytes::{BufMut, Bytes, BytesMut};
use kafka_wire::frame::{decode_response_lenient, encode_response};
use kafka_wire::messages::api::ResponseBody;
use kafka_wire::{DecodeError, EncodeError, KafkaString};

/// The APIs whose responses carry the host and port of brokers (or, in KRaft's own requests,
/// of controllers), by name. `tools/check-tap-endpoints.py` holds this list to Kafka's
/// schemas.
///
/// Left out on purpose: StreamsGroupHeartbeat and StreamsGroupDescribe, whose endpoints are
/// those of the Kafka Streams application's own instances, which its members reach directly.
pub const ENDPOINT_APIS: [&str; 13] = [
    "Produce",
    "Fetch",
    "Metadata",
    "FindCoordinator",
    "Vote",
    "BeginQuorumEpoch",
    "EndQuorumEpoch",
    "DescribeQuorum",
    "FetchSnapshot",
    "DescribeCluster",
    "ShareFetch",
    "ShareAcknowledge",
    "UpdateRaftVoter",
];

/// Where the tap listens for the broker with a node id: what an endpoint becomes, or `None` to
/// leave it as the broker wrote it.
pub trait Listeners {
    fn listener(&mut self, node_id: i32, host: &str, port: i32) -> Option<(KafkaString, i32)>;
}

impl<F: FnMut(i32, &str, i32) -> Option<(KafkaString, i32)>> Listeners for F {
    fn listener(&mut self, node_id: i32, host: &str, port: i32) -> Option<(KafkaString, i32)> {
        self(node_id, host, port)
    }
}

/// Why a response that carries endpoints could not be rewritten.
#[derive(Debug)]
pub enum RewriteError {
    Decode(DecodeError),
    Encode(EncodeError),
}

impl std::fmt::Display for RewriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RewriteError::Decode(e) => write!(f, "the response cannot be read: {e}"),
            RewriteError::Encode(e) => write!(f, "the rewritten response cannot be written: {e}"),
        }
    }
}

/// Whether responses of API `key` at `version` can carry endpoints (Produce from version 10 and
/// Fetch from 16 only).
pub fn carries_endpoints(key: i16, version: i16) -> bool {
    use kafka_wire::ApiSet;
    ResponseBody::find(key).is_some_and(|api| ENDPOINT_APIS.contains(&api.name()))
        && scan::may_name_nodes(key, version) != Some(false)
}

/// A response frame (without its size) to a request of API `key` at `version`, with its
/// endpoints rewritten: `Ok(None)` when it carries none to rewrite, so that the frame goes on
/// as it came. The result holds its size in front.
pub fn rewrite(
    frame: &Bytes,
    key: i16,
    version: i16,
    to: &mut impl Listeners,
) -> Result<Option<Bytes>, RewriteError> {
    if !carries_endpoints(key, version) {
        return Ok(None);
    }
    // A Produce or Fetch response is decoded only when its last tagged section names nodes.
    if scan::readable(key, version) && scan::frame_names_nodes(frame, key, version) == Some(false) {
        return Ok(None);
    }
    let mut response = decode_response_lenient::<ResponseBody>(frame.clone(), key, version)
        .map_err(RewriteError::Decode)?;
    if endpoints(&mut response.body, response.version, to) == 0 {
        return Ok(None);
    }
    let mut out = BytesMut::with_capacity(frame.len().saturating_add(64));
    encode_response(&mut out, &response.header, &response.body, response.version)
        .map_err(RewriteError::Encode)?;
    if response.trailing_bytes > 0 {
        let tail = frame.len().saturating_sub(response.trailing_bytes);
        out.put_slice(frame.get(tail..).unwrap_or_default());
        let size = i32::try_from(out.len().saturating_sub(4)).map_err(|_| {
            RewriteError::Encode(EncodeError::new(kafka_wire::ErrorKind::TooLong {
                length: out.len(),
                max: i32::MAX as usize,
            }))
        })?;
        if let Some(prefix) = out.get_mut(..4) {
            prefix.copy_from_slice(&size.to_be_bytes());
        }
    }
    Ok(Some(out.freeze()))
}

/// One endpoint: replaced when `to` has a listener for it (at a port the field can hold).
/// Gives 1 when it was.
fn endpoint<P: Copy + Into<i32> + TryFrom<i32>>(
    node_id: i32,
    host: &mut KafkaString,
    port: &mut P,
    to: &mut impl Listeners,
) -> usize {
    let Some((new_host, new_port)) = to.listener(node_id, host, (*port).into()) else {
        return 0;
    };
    let Ok(new_port) = P::try_from(new_port) else {
        return 0;
    };
    *host = new_host;
    *port = new_port;
    1
}

/// Rewrites every endpoint of `body` at `version` that `to` has a listener for; gives how many
/// it rewrote.
pub fn endpoints(body: &mut ResponseBody, version: i16, to: &mut impl Listeners) -> usize {
    let mut n = 0;
    // Every element of a list of nodes, each with its id, host and port under these names.
    macro_rules! each {
        ($list:expr, $id:ident) => {
            for e in &mut $list {
                n += endpoint(e.$id, &mut e.host, &mut e.port, to);
            }
        };
    }
    match body {
        ResponseBody::Produce(r) => each!(r.node_endpoints, node_id),
        ResponseBody::Fetch(r) => each!(r.node_endpoints, node_id),
        ResponseBody::Metadata(r) => each!(r.brokers, node_id),
        ResponseBody::FindCoordinator(r) => {
            // Before version 4 the one coordinator is at the top; from 4 there is one per key.
            if version < 4 {
                n += endpoint(r.node_id, &mut r.host, &mut r.port, to);
            }
            each!(r.coordinators, node_id);
        }
        ResponseBody::Vote(r) => each!(r.node_endpoints, node_id),
        ResponseBody::BeginQuorumEpoch(r) => each!(r.node_endpoints, node_id),
        ResponseBody::EndQuorumEpoch(r) => each!(r.node_endpoints, node_id),
        ResponseBody::DescribeQuorum(r) => {
            for node in &mut r.nodes {
                for l in &mut node.listeners {
                    n += endpoint(node.node_id, &mut l.host, &mut l.port, to);
                }
            }
        }
        ResponseBody::FetchSnapshot(r) => each!(r.node_endpoints, node_id),
        ResponseBody::DescribeCluster(r) => each!(r.brokers, broker_id),
        ResponseBody::ShareFetch(r) => each!(r.node_endpoints, node_id),
        ResponseBody::ShareAcknowledge(r) => each!(r.node_endpoints, node_id),
        ResponseBody::UpdateRaftVoter(r) => {
            let leader = &mut r.current_leader;
            n += endpoint(leader.leader_id, &mut leader.host, &mut leader.port, to);
        }
        _ => {}
    }
    n
}

#[cfg(test)]
mod tests;
