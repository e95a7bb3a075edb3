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
mod merge;
mod model;
pub mod schema;
mod user;

pub use crate::user::{Generated, Generator};

use crate::model::Message;
use crate::schema::Schema;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// What went wrong: every problem found, one a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub problems: Vec<String>,
}

impl Error {
    fn one(problem: impl Into<String>) -> Self {
        Error {
            problems: vec![problem.into()],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("\n"))
    }
}

impl std::error::Error for Error {}

/// A folder of schemas: the `.json` files in it, by file name; named after the folder (the
/// release, for Kafka's).
#[derive(Debug, Clone)]
pub struct SchemaSet {
    pub release: String,
    pub schemas: Vec<Schema>,
    /// The files read, for a build script to watch.
    pub files: Vec<PathBuf>,
}

impl SchemaSet {
    /// Reads every `.json` file of `dir`, or the one file `dir` names.
    pub fn load(dir: impl AsRef<Path>) -> Result<SchemaSet, Error> {
        let dir = dir.as_ref();
        let release = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        let mut files: Vec<PathBuf> = if dir.is_file() {
            vec![dir.to_path_buf()]
        } else {
            std::fs::read_dir(dir)
                .map_err(|e| Error::one(format!("{}: {e}", dir.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        };
        files.sort();
        let mut schemas = Vec::new();
        let mut problems = Vec::new();
        for file in &files {
            match Schema::load(file) {
                Ok(s) => schemas.push(s),
                Err(e) => problems.push(format!("{}: {e}", file.display())),
            }
        }
        if problems.is_empty() {
            Ok(SchemaSet {
                release,
                schemas,
                files,
            })
        } else {
            Err(Error { problems })
        }
    }
}

/// Merges releases (oldest first) into one model per message, sorted by identity, and checks
/// it.
fn merge_sets(sets: &[SchemaSet]) -> Result<Vec<Message>, Error> {
    // identity -> one schema per release that has it, oldest first.
    let mut by_id: BTreeMap<String, Vec<(String, Schema)>> = BTreeMap::new();
    for set in sets {
        for s in &set.schemas {
            by_id
                .entry(compat::identity(s))
                .or_default()
                .push((set.release.clone(), s.clone()));
        }
    }
    let unstable = merge::unstable_versions(&by_id);
    let mut messages = Vec::new();
    let mut problems = Vec::new();
    for versions in by_id.values() {
        // The newest release names the message.
        let name = &versions[versions.len() - 1].1.name;
        match merge::merge(name, versions, &unstable) {
            Ok(Some(m)) => messages.push(m),
            Ok(None) => {}
            Err(mut e) => problems.append(&mut e),
        }
    }
    problems.extend(check::messages(&messages));
    if problems.is_empty() {
        Ok(messages)
    } else {
        Err(Error { problems })
    }
}
