//! Which APIs, at which versions, each listener answers, and the ApiVersions answer that says
//! so.

use kafka_wire::messages::api_versions_response::ApiVersion;
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, ApiVersionsRequest, ApiVersionsResponse, EndTxnRequest,
    FetchRequest, FindCoordinatorRequest, InitProducerIdRequest, ListOffsetsRequest,
    MetadataRequest, ProduceRequest, WriteTxnMarkersRequest,
};
use kafka_wire::{ApiMessage, ErrorCode};

use crate::leader::Listener;

/// The APIs (by key) and version ranges this broker answers, on both listeners.
pub const CLIENT_APIS: &[(i16, i16, i16)] = &[
    (ProduceRequest::API_KEY, 3, 9),
    (FetchRequest::API_KEY, 4, 12),
    (ListOffsetsRequest::API_KEY, 1, 7),
    (MetadataRequest::API_KEY, 0, 9),
    (FindCoordinatorRequest::API_KEY, 0, 3),
    (ApiVersionsRequest::API_KEY, 0, 3),
    (InitProducerIdRequest::API_KEY, 0, 4),
    (AddPartitionsToTxnRequest::API_KEY, 0, 3),
    // Version 5 is transaction version 2 (the coordinator bumps the epoch at every EndTxn).
    // librdkafka asks for version 1 at most.
    (EndTxnRequest::API_KEY, 0, 5),
];

/// The one API only the inter-broker listener advertises (the client listener still reads it,
/// and the leaders refuse it there). Version 2 carries the transaction version of each marker;
/// the marker sender uses it for transactions of version 2 (see [`MarkerSend::version`](crate::coordinator::MarkerSend::version)).
pub const BROKER_ONLY_APIS: &[(i16, i16, i16)] = &[(WriteTxnMarkersRequest::API_KEY, 0, 2)];

/// Which versions of which APIs a listener advertises.
pub fn advertised(listener: Listener) -> Vec<(i16, i16, i16)> {
    let mut apis = CLIENT_APIS.to_vec();
    if listener == Listener::InterBroker {
        apis.extend_from_slice(BROKER_ONLY_APIS);
    }
    apis.sort_by_key(|(key, _, _)| *key);
    apis
}

/// The versions this broker reads for API `key` (on either listener), if it reads it at all.
pub(super) fn readable_versions(key: i16) -> Option<(i16, i16)> {
    CLIENT_APIS
        .iter()
        .chain(BROKER_ONLY_APIS)
        .find(|(k, _, _)| *k == key)
        .map(|&(_, lo, hi)| (lo, hi))
}

pub(super) fn api_versions_response(
    listener: Listener,
    error_code: ErrorCode,
) -> ApiVersionsResponse {
    ApiVersionsResponse::default()
        .with_error_code(error_code.code())
        .with_api_keys(
            advertised(listener)
                .into_iter()
                .map(|(api_key, min_version, max_version)| {
                    ApiVersion::default()
                        .with_api_key(api_key)
                        .with_min_version(min_version)
                        .with_max_version(max_version)
                })
                .collect(),
        )
}

#[cfg(test)]
mod tests;
