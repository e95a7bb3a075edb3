//! Version negotiation through ApiVersions: what a client and a broker both speak, and what a
//! server advertises.
//!
//! The application's own side is a list of `(API key, versions)`: the APIs of an API set
//! ([`ApiSet::APIS`](crate::ApiSet::APIS) converts as it is), or narrower ranges of its own.

use crate::messages::api_versions_response::ApiVersion;
use crate::messages::ApiVersionsResponse;
use crate::VersionRange;

/// For each API that both `ours` and the broker list, the highest request version both
/// speak, by key; APIs with no common version, and the broker's APIs that `ours` lacks, are
/// left out.
///
/// ```
/// use kafka_wire::messages::api::RequestBody;
/// use kafka_wire::messages::api_versions_response::ApiVersion;
/// use kafka_wire::messages::ApiVersionsResponse;
/// use kafka_wire::negotiate::negotiate;
/// use kafka_wire::{ApiSet, VersionRange};
///
/// let api = |key, min, max| {
///     ApiVersion::default().with_api_key(key).with_min_version(min).with_max_version(max)
/// };
/// let broker = ApiVersionsResponse::default()
///     .with_api_keys(vec![api(0, 3, 99), api(27, 1, 1), api(9999, 0, 5)]);
/// // Every API of Kafka's request set, at every version this build has.
/// let agreed = negotiate(RequestBody::APIS, &broker);
/// let produce = RequestBody::find(0).unwrap().versions().end().unwrap();
/// assert_eq!(agreed, [(0, produce), (27, 1)]);
///
/// // An application that speaks Produce 3-9 only.
/// assert_eq!(negotiate([(0, VersionRange::new(3, 9))], &broker), [(0, 9)]);
/// ```
pub fn negotiate<I>(ours: I, broker: &ApiVersionsResponse) -> Vec<(i16, i16)>
where
    I: IntoIterator,
    I::Item: Into<(i16, VersionRange)>,
{
    let mut out: Vec<(i16, i16)> = Vec::new();
    for (key, versions) in ours.into_iter().map(Into::into) {
        let (Some(lo), Some(hi)) = (versions.start(), versions.end()) else {
            continue;
        };
        // A broker listing an API twice: keep what both entries allow at best.
        let best = broker
            .api_keys
            .iter()
            .filter(|theirs| theirs.api_key == key)
            .filter_map(|theirs| {
                let top = hi.min(theirs.max_version);
                (top >= lo.max(theirs.min_version)).then_some(top)
            })
            .max();
        if let Some(version) = best {
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => *v = (*v).max(version),
                None => out.push((key, version)),
            }
        }
    }
    out.sort_by_key(|(key, _)| *key);
    out
}

/// The `api_keys` of an ApiVersions response that advertises `ours`, by key; empty ranges are
/// left out.
///
/// ```
/// use kafka_wire::messages::api::RequestBody;
/// use kafka_wire::negotiate::advertise;
/// use kafka_wire::{ApiSet, VersionRange};
///
/// let all = advertise(RequestBody::APIS);
/// assert_eq!(all.len(), RequestBody::APIS.len());
/// let mine = advertise([(27, VersionRange::new(0, 2)), (0, VersionRange::new(3, 9))]);
/// assert_eq!((mine[0].api_key, mine[0].min_version, mine[0].max_version), (0, 3, 9));
/// assert_eq!(mine[1].api_key, 27);
/// ```
pub fn advertise<I>(ours: I) -> Vec<ApiVersion>
where
    I: IntoIterator,
    I::Item: Into<(i16, VersionRange)>,
{
    let mut out: Vec<ApiVersion> = ours
        .into_iter()
        .map(Into::into)
        .filter_map(|(api_key, versions)| {
            // `ApiVersion` is `#[non_exhaustive]` outside its crate, as every message is.
            Some(
                ApiVersion::default()
                    .with_api_key(api_key)
                    .with_min_version(versions.start()?)
                    .with_max_version(versions.end()?),
            )
        })
        .collect();
    out.sort_by_key(|api| api.api_key);
    out
}
