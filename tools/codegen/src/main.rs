//! Writes `kafka-wire/src/messages/` from Kafka's JSON message schemas.
//!
//! ```text
//! cargo run -p kafka-wire-codegen -- ../shared/kafka-schemas/3.9 ../shared/kafka-schemas/4.4 \
//!     kafka-wire/src/messages tests/support/generated.rs
//! ```
//!
//! The last argument is the tests' `ToJson` support file.
//!
//! The schema folders come oldest first. The protocol is their union: each version of a message
//! is taken from the newest folder that defines it, and the fields of all folders are merged
//! into one struct per schema struct, each field carrying the versions in which it exists.
//! Where two folders define the same version differently the generator stops, unless the
//! difference is listed in [`RESOLVED`].
#![forbid(unsafe_code)]

mod merge;
mod render;
mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Differences between schema folders, for the same message version, that were checked by
/// hand and may be ignored: `(message, field path, what differs)`.
pub const RESOLVED: &[(&str, &str, &str)] = &[
    // 4.4 renamed the API (key 74) and its struct; at version 0 both are one string per
    // resource, so the bytes are the same.
    (
        "ListConfigResourcesResponse",
        "ClientMetricsResource",
        "struct renamed ConfigResource",
    ),
    (
        "ListConfigResourcesResponse",
        "ConfigResource:",
        "struct renamed from ClientMetricsResource",
    ),
    (
        "ListConfigResourcesResponse",
        "ListConfigResourcesResponse.ConfigResources",
        "element struct renamed",
    ),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 4 {
        eprintln!("usage: kafka-wire-codegen <schema dir, oldest first>... <messages dir> <test support file>");
        return ExitCode::from(2);
    }
    let (inputs, output) = args.split_at(args.len() - 2);
    match run(inputs, Path::new(&output[0]), Path::new(&output[1])) {
        Ok(count) => {
            eprintln!("wrote {count} messages to {}", output[0]);
            ExitCode::SUCCESS
        }
        Err(errors) => {
            for e in &errors {
                eprintln!("error: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

fn run(inputs: &[String], output: &Path, test_support: &Path) -> Result<usize, Vec<String>> {
    // name -> one schema per folder that has it, oldest first.
    let mut by_name: BTreeMap<String, Vec<(String, schema::Schema)>> = BTreeMap::new();
    for dir in inputs {
        let release = Path::new(dir)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.clone());
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| vec![format!("{dir}: {e}")])?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            let s = schema::Schema::load(&file)
                .map_err(|e| vec![format!("{}: {e}", file.display())])?;
            // An API keeps its key when it is renamed (ListClientMetricsResources became
            // ListConfigResources): group requests and responses by key, not by name.
            let group = match (s.kind.as_str(), s.api_key) {
                ("request" | "response", Some(k)) => format!("{}:{k:03}", s.kind),
                _ => s.name.clone(),
            };
            by_name.entry(group).or_default().push((release.clone(), s));
        }
    }
    let unstable = schema::unstable_versions(&by_name);
    let mut messages = Vec::new();
    let mut errors = Vec::new();
    for versions in by_name.values() {
        // The newest release names the message.
        let name = &versions[versions.len() - 1].1.name;
        match merge::merge(name, versions, &unstable) {
            Ok(Some(m)) => messages.push(m),
            Ok(None) => {}
            Err(mut e) => errors.append(&mut e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    render::write_all(&messages, output).map_err(|e| vec![e])?;
    // kafka-wire/src/messages -> kafka-wire/Cargo.toml
    let manifest = output
        .parent()
        .and_then(Path::parent)
        .map(|crate_dir| crate_dir.join("Cargo.toml"))
        .ok_or_else(|| vec![format!("{}: not inside a crate", output.display())])?;
    render::write_features(&messages, &manifest).map_err(|e| vec![e])?;
    std::fs::write(test_support, render::render_json(&messages))
        .map_err(|e| vec![e.to_string()])?;
    render::rustfmt(&[test_support.to_path_buf()]).map_err(|e| vec![e])?;
    Ok(messages.len())
}
