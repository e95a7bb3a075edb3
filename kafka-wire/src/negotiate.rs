//! Version negotiation: what a client and a broker both speak, from the broker's ApiVersions
//! response.

use crate::messages::api::ApiKey;
use crate::messages::ApiVersionsResponse;

/// For each API the broker lists and this crate knows, the highest request version both sides
/// speak; APIs with no common version are left out.
///
/// ```
/// use kafka_wire::messages::api::ApiKey;
/// use kafka_wire::messages::api_versions_response::ApiVersion;
/// use kafka_wire::messages::ApiVersionsResponse;
///
/// let broker = ApiVersionsResponse {
///     api_keys: vec![
///         ApiVersion { api_key: 0, min_version: 3, max_version: 99, ..Default::default() },
///         ApiVersion { api_key: 27, min_version: 1, max_version: 1, ..Default::default() },
///         ApiVersion { api_key: 9999, min_version: 0, max_version: 5, ..Default::default() },
///     ],
///     ..Default::default()
/// };
/// let agreed = kafka_wire::negotiate::negotiate(&broker);
/// assert!(agreed.contains(&(ApiKey::Produce, ApiKey::Produce.request_versions().end().unwrap())));
/// assert!(agreed.contains(&(ApiKey::WriteTxnMarkers, 1)));
/// assert_eq!(agreed.len(), 2);
/// ```
pub fn negotiate(broker: &ApiVersionsResponse) -> Vec<(ApiKey, i16)> {
    let mut out: Vec<(ApiKey, i16)> = Vec::new();
    for theirs in &broker.api_keys {
        let Some(api) = ApiKey::from_key(theirs.api_key) else {
            continue;
        };
        let ours = api.request_versions();
        let (Some(lo), Some(hi)) = (ours.start(), ours.end()) else {
            continue;
        };
        let top = hi.min(theirs.max_version);
        if top >= lo.max(theirs.min_version) {
            match out.iter_mut().find(|(a, _)| *a == api) {
                // A broker listing an API twice: keep what both entries allow at best.
                Some((_, v)) => *v = (*v).max(top),
                None => out.push((api, top)),
            }
        }
    }
    out.sort_by_key(|(api, _)| *api);
    out
}
