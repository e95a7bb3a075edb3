//! Rust sources for kafka-wire from message schemas in Kafka's JSON format, and a wire
//! compatibility check between two releases of such schemas.
//!
//! A crate with schemas of its own generates its messages from `build.rs`:
//!
//! ```no_run
//! // build.rs; `kafka-wire-codegen` is a build dependency (without its `cli` feature).
//! fn main() -> Result<(), kafka_wire_codegen::Error> {
//!     kafka_wire_codegen::Generator::new()
//!         .schema_dir("schemas")
//!         .api_sets("Requests", "Responses")
//!         .kafka_api("ApiVersions")
//!         .generate()?;
//!     Ok(())
//! }
//! ```
//!
//! and includes the result where it wants the messages:
//!
//! ```text
//! mod messages {
//!     include!(concat!(env!("OUT_DIR"), "/messages.rs"));
//! }
//! ```
//!
//! Several schema folders, oldest first, are merged as Kafka's releases are: each version of
//! a message comes from the newest folder that defines it, and the generator stops where two
//! folders give one version different bytes ([`compat`] tells which changes those are).
//!
//! The same tool, as the `kafka-wire-codegen` command, writes kafka-wire's own catalogue from
//! Kafka's schemas and runs the compatibility check (`kafka-wire-codegen --help`).
#![forbid(unsafe_code)]

// The stages, in order: `schema` parses a file into the typed model (ranges are `versions`),
// `merge` joins releases into the `model`, `check` holds the rules over it, and `emit` writes
// Rust from it; `catalogue` and `user` drive them for kafka-wire and for a build script.
pub mod catalogue;
mod check;
pub mod compat;
mod emit;
mod error;
mod merge;
mod model;
pub mod schema;
mod user;

pub use crate::error::Error;
pub use crate::schema::SchemaSet;
pub use crate::user::{Generated, Generator};
