//! What `#[derive(KafkaMessage)]` records about each field: the attributes as it understood
//! them, available at run time.
//!
//! Protocol analysers and documentation tools can walk a message's layout from this, and the
//! test suite checks it against the facts the generator took from Kafka's schemas.
//!
//! ```
//! use kafka_wire::messages::write_txn_markers_request::WritableTxnMarker;
//! use kafka_wire::{Fields, VersionRange};
//!
//! let version = WritableTxnMarker::FIELDS.iter().find(|f| f.name == "transaction_version").unwrap();
//! assert_eq!(version.versions.start(), Some(2));
//! assert!(version.ignorable);
//! ```

use crate::VersionRange;

/// A struct's fields in wire order, as declared. Implemented by the derive for every struct;
/// the field that keeps unknown tagged fields is not listed.
pub trait Fields {
    /// The fields, in declaration order (which is the order on the wire).
    const FIELDS: &'static [FieldInfo];
}

/// One field's declared layout. Open-ended ranges (`"1+"`) end at `i16::MAX`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FieldInfo {
    /// The field's name, without a raw-identifier prefix.
    pub name: &'static str,
    /// `versions`: where the field exists.
    pub versions: VersionRange,
    /// `nullable`: where it may be null, within `versions`.
    pub nullable: VersionRange,
    /// `tag`, for a tagged field.
    pub tag: Option<u32>,
    /// `tagged`: where the field travels in the tagged section.
    pub tagged: VersionRange,
    /// `flexible`, when the field overrides its message's flexible versions.
    pub flexible: Option<VersionRange>,
    /// `default`, when one is given.
    pub default: Option<DefaultInfo>,
    /// `ignorable`: dropped silently in versions that lack it.
    pub ignorable: bool,
}

/// A `default = ...` value.
///
/// The derive may learn more kinds of literal: a `match` needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum DefaultInfo {
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(&'static str),
    /// `"null"`.
    Null,
    /// A uuid, given in Kafka's text form.
    Uuid(crate::Uuid),
}
