//! API sets: an enum of request bodies, or of response bodies, read and written by `(API key,
//! version)` at run time.
//!
//! `#[derive(ApiSet)]` on an enum whose variants each wrap one message deriving
//! [`KafkaMessage`](crate::KafkaMessage) with a `key` writes the dispatch: the API facts of
//! every variant ([`ApiSet::APIS`]), decoding by key and version, encoding, sizes, and for a
//! request set the link to its response set. Kafka's own sets, `RequestBody` and `ResponseBody`
//! in `kafka_wire::messages::api`, are derived the same way, and so is any set that mixes Kafka's
//! APIs with an application's own; [`frame`](crate::frame) and `kafka_wire::negotiate` work on
//! any of them.
//!
//! ```
//! use kafka_wire::api::{RequestSet, Side};
//! use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse};
//! use kafka_wire::{ApiSet, KafkaMessage, UnknownTaggedFields};
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(key = 1000, versions = "0-1", flexible = "1+")]
//! pub struct PingRequest {
//!     #[kafka(versions = "0+")]
//!     pub sequence: i32,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
//! #[kafka(key = 1000, versions = "0-1", flexible = "1+")]
//! pub struct PingResponse {
//!     #[kafka(versions = "0+")]
//!     pub sequence: i32,
//!     #[kafka(unknown_tagged_fields)]
//!     pub unknown_tagged_fields: UnknownTaggedFields,
//! }
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(requests, response_set = Responses)]
//! pub enum Requests {
//!     Ping(PingRequest),
//!     ApiVersions(ApiVersionsRequest),
//! }
//!
//! #[derive(Debug, Clone, PartialEq, ApiSet)]
//! #[kafka(responses)]
//! pub enum Responses {
//!     Ping(PingResponse),
//!     // Kafka's rule: an ApiVersions response always has header v0.
//!     #[kafka(header_v0 = "0+")]
//!     ApiVersions(ApiVersionsResponse),
//! }
//!
//! let ping = Requests::find(1000).unwrap();
//! assert_eq!((ping.name(), ping.message(), ping.side()), ("Ping", "PingRequest", Side::Request));
//! assert_eq!(ping.header_version(0), 1);
//! assert_eq!(ping.header_version(1), 2); // flexible
//! assert_eq!(Responses::find(18).unwrap().header_version(3), 0);
//! assert_eq!(Requests::find_by_name("ApiVersions").unwrap().key(), 18);
//!
//! let body = Requests::Ping(PingRequest { sequence: 7, ..Default::default() });
//! let mut bytes = bytes::BytesMut::new();
//! body.encode(&mut bytes, 1)?;
//! assert_eq!(bytes.len(), body.encoded_len(1)?);
//! assert_eq!(Requests::decode(1000, &mut bytes.freeze(), 1)?, body);
//!
//! // The response set of a request set, for a client that reads the answers.
//! fn answers<R: RequestSet>() -> &'static [kafka_wire::api::ApiInfo] {
//!     <R::Responses as ApiSet>::APIS
//! }
//! assert_eq!(answers::<Requests>().len(), 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The set-level and variant-level attributes are described in
//! `kafka_wire::attributes` (section "API sets").

use crate::codec::Sink;
#[cfg(feature = "views")]
use crate::view::{Reading, Source, ViewIndex, Walked};
use crate::{DecodeError, EncodeError, VersionRange};
use bytes::Bytes;
use core::fmt;

/// Which way a message travels: the header version rule differs between the two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// From client to broker: request header v1, or v2 in flexible versions.
    Request,
    /// From broker to client: response header v0, or v1 in flexible versions.
    Response,
}

/// One API of a set, from the side of the set: its key, name, the message type a variant
/// wraps, its versions and the header version each of them uses.
///
/// Built by `#[derive(ApiSet)]`; read through [`ApiSet::APIS`], [`ApiSet::find`] and
/// [`ApiSet::api`].
///
/// ```
/// use kafka_wire::messages::api::{RequestBody, ResponseBody};
/// use kafka_wire::{ApiSet, VersionRange};
///
/// let fetch = RequestBody::find(1).unwrap();
/// assert_eq!(fetch.name(), "Fetch");
/// assert_eq!(fetch.message(), "FetchRequest");
/// assert_eq!(fetch.versions(), VersionRange::new(0, 18));
/// assert_eq!(fetch.header_version(11), 1);
/// assert_eq!(fetch.header_version(12), 2);
/// // The schemas' exceptions: ControlledShutdown v0 has request header v0, and ApiVersions
/// // answers always have response header v0.
/// assert_eq!(RequestBody::find(7).unwrap().header_version(0), 0);
/// assert_eq!(ResponseBody::find(18).unwrap().header_version(4), 0);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApiInfo {
    key: i16,
    name: &'static str,
    message: &'static str,
    versions: VersionRange,
    flexible: VersionRange,
    header_v0: VersionRange,
    side: Side,
}

impl ApiInfo {
    /// The facts of message `M` with key `key`; `#[derive(ApiSet)]` calls it through
    /// `__private::api_info`.
    pub(crate) const fn new<M: crate::Message>(
        key: i16,
        name: &'static str,
        header_v0: VersionRange,
        side: Side,
    ) -> Self {
        ApiInfo {
            key,
            name,
            message: M::NAME,
            versions: M::VERSIONS,
            flexible: M::FLEXIBLE_VERSIONS.intersect(M::VERSIONS),
            header_v0,
            side,
        }
    }

    /// The API key.
    pub const fn key(&self) -> i16 {
        self.key
    }

    /// The API's name: the variant's name unless `#[kafka(name = "...")]` says otherwise.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The name of the message the variant wraps (`FetchRequest`).
    pub const fn message(&self) -> &'static str {
        self.message
    }

    /// The versions of the message.
    pub const fn versions(&self) -> VersionRange {
        self.versions
    }

    /// The flexible versions of the message, within [`versions`](Self::versions).
    pub const fn flexible_versions(&self) -> VersionRange {
        self.flexible
    }

    /// Requests or responses.
    pub const fn side(&self) -> Side {
        self.side
    }

    /// The header version that goes with `version` of the message. Kafka's rule: a request
    /// has header v2 in flexible versions and v1 before; a response v1 and v0. The versions a
    /// variant lists in `#[kafka(header_v0 = "...")]` have header v0 instead.
    ///
    /// A version above the newest the message has takes the newest one's header version, as
    /// in Kafka, whose schemas leave flexible versions open towards newer ones (`"3+"`): that
    /// is the header of an ApiVersions request from a client newer than this side, which a
    /// server reads before answering it at version 0.
    ///
    /// ```
    /// use kafka_wire::messages::api::RequestBody;
    /// use kafka_wire::ApiSet;
    ///
    /// let api_versions = RequestBody::find(18).unwrap();
    /// assert_eq!(api_versions.header_version(2), 1);
    /// assert_eq!(api_versions.header_version(3), 2);
    /// assert_eq!(api_versions.header_version(99), 2);
    /// ```
    pub const fn header_version(&self, version: i16) -> i16 {
        let version = match self.versions.end() {
            Some(newest) if version > newest => newest,
            _ => version,
        };
        let flexible = self.flexible.contains(version);
        if self.header_v0.contains(version) {
            0
        } else {
            match (self.side, flexible) {
                (Side::Request, true) => 2,
                (Side::Request, false) => 1,
                (Side::Response, true) => 1,
                (Side::Response, false) => 0,
            }
        }
    }
}

impl fmt::Debug for ApiInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiInfo")
            .field("key", &self.key)
            .field("name", &self.name)
            .field("message", &self.message)
            .field("versions", &self.versions)
            .field("flexible", &self.flexible)
            .field("header_v0", &self.header_v0)
            .field("side", &self.side)
            .finish()
    }
}

/// An enum of message bodies, one variant per API, read and written by key and version.
///
/// Derived with `#[derive(ApiSet)]` (see the [module](self) for an example); every method
/// dispatches through one `match`. A set is either a [`RequestSet`] or a [`ResponseSet`].
pub trait ApiSet: Sized {
    /// The APIs of the set, in the order of the variants.
    const APIS: &'static [ApiInfo];

    /// The API of this body.
    fn api(&self) -> &'static ApiInfo;

    /// Reads the body of API `key` at `version` from the front of `buf`. A key the set lacks
    /// is [`UnknownApiKey`](crate::ErrorKind::UnknownApiKey); a version the message
    /// lacks is [`UnsupportedVersion`](crate::ErrorKind::UnsupportedVersion).
    fn decode(key: i16, buf: &mut Bytes, version: i16) -> Result<Self, DecodeError>;

    /// The borrowed view of a body of the set: `#[derive(ApiSet)]` writes an enum named after
    /// the set (`RequestBodyView<'a>` for `RequestBody`) whose variants hold the messages'
    /// views.
    #[cfg(feature = "views")]
    type View<'a>: BodyView<'a, Body = Self>;

    /// The view of the body of API `key` at `version`, which uses every byte of `input`,
    /// recorded in `index`: what [`View::view_in`](crate::view::View::view_in) is to a message,
    /// chosen at run time. It opens on the inputs that [`decode`](Self::decode) reads whole and
    /// fails with decoding's error.
    #[inline]
    #[cfg(feature = "views")]
    fn view_in<'a>(
        key: i16,
        input: impl Into<Source<'a>>,
        version: i16,
        index: &'a mut ViewIndex,
    ) -> Result<Self::View<'a>, DecodeError> {
        open_body::<Self>(key, input.into(), version, Reading::Whole, index).map(|(view, _)| view)
    }

    /// [`view_in`](Self::view_in) under the rules of
    /// [`Decode::decode_strict`](crate::Decode::decode_strict).
    #[inline]
    #[cfg(feature = "views")]
    fn view_strict_in<'a>(
        key: i16,
        input: impl Into<Source<'a>>,
        version: i16,
        index: &'a mut ViewIndex,
    ) -> Result<Self::View<'a>, DecodeError> {
        open_body::<Self>(key, input.into(), version, Reading::Strict, index).map(|(view, _)| view)
    }

    /// Walks the body of API `key` at the start of `src`, read as `reading` says, recording it
    /// in `index` after what it holds. Written by the derive.
    #[doc(hidden)]
    #[cfg(feature = "views")]
    fn walk_view(
        key: i16,
        src: Source<'_>,
        version: i16,
        reading: Reading,
        index: &mut ViewIndex,
    ) -> Result<Walked, DecodeError>;

    /// The view of the body [`walk_view`](Self::walk_view) walked; `None` for a key the set
    /// lacks, which `walk_view` refuses. Written by the derive.
    #[doc(hidden)]
    #[cfg(feature = "views")]
    fn walked_view<'a>(
        key: i16,
        walked: Walked,
        src: Source<'a>,
        index: &'a ViewIndex,
    ) -> Option<Self::View<'a>>;

    /// Writes the body at `version`. On error, `buf` may hold part of it.
    fn encode(&self, buf: &mut impl Sink, version: i16) -> Result<(), EncodeError>;

    /// The size [`encode`](Self::encode) writes when it succeeds; fails only for a version
    /// the message lacks (as [`Encode::encoded_len`](crate::Encode::encoded_len)).
    fn encoded_len(&self, version: i16) -> Result<usize, EncodeError>;

    /// The API key of this body.
    fn api_key(&self) -> i16 {
        self.api().key()
    }

    /// The API with this key, if the set has it.
    fn find(key: i16) -> Option<&'static ApiInfo> {
        Self::APIS.iter().find(|api| api.key == key)
    }

    /// The API with this name (`"Fetch"`), if the set has it.
    fn find_by_name(name: &str) -> Option<&'static ApiInfo> {
        Self::APIS.iter().find(|api| api.name == name)
    }
}

/// The view of a body of an API set ([`ApiSet::View`]): the view of one API's message.
/// `#[derive(ApiSet)]` implements it, and gives the view type the same methods inherently.
#[cfg(feature = "views")]
#[cfg_attr(docsrs, doc(cfg(feature = "views")))]
pub trait BodyView<'a>: Copy + fmt::Debug {
    /// The set whose body this is a view of.
    type Body: ApiSet;

    /// The API of this body.
    fn api(&self) -> &'static ApiInfo;

    /// The owned body, equal to what [`ApiSet::decode`] gives for the same bytes.
    fn into_owned(self) -> Self::Body;
}

/// A set of request bodies: `#[kafka(requests, response_set = ...)]`.
pub trait RequestSet: ApiSet {
    /// The set of the responses, with the same API keys.
    type Responses: ResponseSet;
}

/// A set of response bodies: `#[kafka(responses)]`.
pub trait ResponseSet: ApiSet {}

/// Opens the view of the body of API `key` at the start of `src` into `index`, read as `reading`
/// says, and says how many bytes the body takes.
#[cfg(feature = "views")]
#[inline]
pub(crate) fn open_body<'a, S: ApiSet>(
    key: i16,
    src: Source<'a>,
    version: i16,
    reading: Reading,
    index: &'a mut ViewIndex,
) -> Result<(S::View<'a>, usize), DecodeError> {
    index.clear();
    let walked = S::walk_view(key, src, version, reading, index)?;
    match S::walked_view(key, walked, src, index) {
        Some(view) => Ok((view, walked.len)),
        None => Err(DecodeError::at(crate::ErrorKind::UnknownApiKey { key }, 0)),
    }
}

/// An API as `kafka_wire::negotiate` reads it: its key and versions.
impl From<&ApiInfo> for (i16, VersionRange) {
    fn from(api: &ApiInfo) -> Self {
        (api.key, api.versions)
    }
}
