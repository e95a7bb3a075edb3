//! The vocabulary of Kafka's message schemas that kafka-wire's derive, its generator and its
//! runtime share: version ranges, and the rules of the schemas that more than one of them
//! applies.
//!
//! This crate is an implementation detail of `kafka-wire`, which re-exports
//! [`VersionRange`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod rules;
mod versions;

pub use crate::versions::{Gap, ParseVersionRangeError, VersionRange};
