//! The merged model the emitters read: each message over every release, its structs in order,
//! each field with the ranges where it exists, is nullable and is tagged.

pub use crate::schema::Field;
use crate::schema::{Kind, VersionRange};

/// A message merged over releases.
#[derive(Clone, Debug)]
pub struct Message {
    pub name: String,
    pub kind: Kind,
    pub api_key: Option<i16>,
    /// The versions some release speaks: a closed range, never empty.
    pub versions: VersionRange,
    /// Open when the newest version is flexible, as Kafka writes it.
    pub flexible: VersionRange,
    /// Which release each run of versions comes from, oldest first.
    pub sources: Vec<(String, VersionRange)>,
    /// The top-level struct first.
    pub structs: Vec<Struct>,
    /// Names older releases gave the message.
    pub old_names: Vec<String>,
}

impl Message {
    /// The API key of a request or response; `None` for headers and data.
    pub fn api(&self) -> Option<i16> {
        self.api_key
            .filter(|_| matches!(self.kind, Kind::Request | Kind::Response))
    }

    /// The newest version.
    pub fn last(&self) -> i16 {
        self.versions.end().unwrap_or(0)
    }
}

/// A struct of a message, the message's own first.
#[derive(Clone, Debug)]
pub struct Struct {
    pub name: String,
    /// Fields merged over releases, their ranges open when they reach the message's newest
    /// version, as the schemas write them. A field's inline struct is a [`Struct`] of the
    /// message in its own right: [`Field::fields`] stays empty.
    pub fields: Vec<Field>,
    /// Tags that only fields of versions left out of the model use (an unstable version), in
    /// order: the struct's tags number from 0 without gaps once these are counted.
    pub reserved_tags: Vec<u32>,
}

/// A request and its response.
#[derive(Clone, Copy, Debug)]
pub struct Api<'a> {
    pub key: i16,
    pub request: &'a Message,
    pub response: &'a Message,
}

impl Api<'_> {
    /// The API's name: the request's, less `Request` (`WriteTxnMarkers`).
    pub fn name(&self) -> &str {
        self.request.name.trim_end_matches("Request")
    }
}
