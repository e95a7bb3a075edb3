//! `kafka-wire-codegen`: messages from schemas in Kafka's JSON format, kafka-wire's own
//! catalogue, and the wire compatibility check.
//!
//! ```text
//! kafka-wire-codegen generate schemas/ --out src/messages.rs --api-sets Requests,Responses
//! kafka-wire-codegen catalogue ../shared/kafka-schemas/3.9 ../shared/kafka-schemas/4.4 \
//!     --out kafka-wire/src/messages --test-support tests/support/generated.rs
//! kafka-wire-codegen compat ../shared/kafka-schemas/3.9 ../shared/kafka-schemas/4.4
//! ```
#![forbid(unsafe_code)]

use clap::{Arg, ArgAction, ArgMatches, Command};
use kafka_wire_codegen::compat::{self, Severity};
use kafka_wire_codegen::{catalogue, Error, Generator, SchemaSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn cli() -> Command {
    let dirs = |help: &'static str| {
        Arg::new("schemas")
            .value_name("SCHEMA_DIR")
            .required(true)
            .num_args(1..)
            .value_parser(clap::value_parser!(PathBuf))
            .help(help)
    };
    Command::new("kafka-wire-codegen")
        .about("kafka-wire messages from schemas in Kafka's JSON format, and their wire compatibility")
        .subcommand_required(true)
        .arg_required_else_help(true)
        .subcommand(
            Command::new("generate")
                .about("Writes one Rust file of messages (and API sets) for a crate of its own")
                .arg(dirs("Folders (or files) of schemas, oldest release first"))
                .arg(Arg::new("out").long("out").value_name("FILE").required(true)
                    .value_parser(clap::value_parser!(PathBuf)).help("The Rust file to write"))
                .arg(Arg::new("crate").long("crate").value_name("PATH").default_value("kafka_wire")
                    .help("How the generated code names kafka-wire (a renamed dependency, a facade)"))
                .arg(Arg::new("api-sets").long("api-sets").value_name("REQUESTS,RESPONSES")
                    .help("Also write a request set and a response set with these names"))
                .arg(Arg::new("kafka-api").long("kafka-api").value_name("NAME").action(ArgAction::Append)
                    .help("Add one of Kafka's APIs (e.g. ApiVersions) to the API sets")),
        )
        .subcommand(
            Command::new("catalogue")
                .about("Writes kafka-wire's own catalogue from Kafka's schema folders")
                .arg(dirs("Kafka's schema folders, oldest release first"))
                .arg(Arg::new("out").long("out").value_name("DIR").required(true)
                    .value_parser(clap::value_parser!(PathBuf)).help("kafka-wire/src/messages"))
                .arg(Arg::new("test-support").long("test-support").value_name("FILE").required(true)
                    .value_parser(clap::value_parser!(PathBuf)).help("tests/support/generated.rs")),
        )
        .subcommand(
            Command::new("compat")
                .about("Reports what breaks the wire between two releases of schemas")
                .arg(Arg::new("old").value_name("OLD").required(true)
                    .value_parser(clap::value_parser!(PathBuf)).help("The older folder, or schema file"))
                .arg(Arg::new("new").value_name("NEW").required(true)
                    .value_parser(clap::value_parser!(PathBuf)).help("The newer folder, or schema file"))
                .arg(Arg::new("output").long("output").value_name("FILE")
                    .value_parser(clap::value_parser!(PathBuf)).help("Write the report here instead of to standard output"))
                .arg(Arg::new("deny-breaking").long("deny-breaking").action(ArgAction::SetTrue)
                    .help("Exit with failure when a change breaks the wire")),
        )
}

fn main() -> ExitCode {
    let matches = cli().get_matches();
    let result = match matches.subcommand() {
        Some(("generate", m)) => generate(m),
        Some(("catalogue", m)) => run_catalogue(m),
        Some(("compat", m)) => run_compat(m),
        _ => unreachable!("clap requires a subcommand"),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            for problem in &e.problems {
                eprintln!("error: {problem}");
            }
            ExitCode::FAILURE
        }
    }
}

fn paths<'a>(m: &'a ArgMatches, id: &str) -> impl Iterator<Item = &'a PathBuf> {
    m.get_many::<PathBuf>(id).into_iter().flatten()
}

fn generate(m: &ArgMatches) -> Result<ExitCode, Error> {
    let out = m.get_one::<PathBuf>("out").expect("required");
    let mut g = Generator::new()
        .out_dir(
            out.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new(".")),
        )
        .file_name(
            out.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
    for dir in paths(m, "schemas") {
        g = g.schema_dir(dir);
    }
    if let Some(k) = m.get_one::<String>("crate") {
        g = g.crate_path(k);
    }
    if let Some(sets) = m.get_one::<String>("api-sets") {
        let Some((requests, responses)) = sets.split_once(',') else {
            return Err(Error {
                problems: vec!["--api-sets takes two names: Requests,Responses".into()],
            });
        };
        g = g.api_sets(requests.trim(), responses.trim());
    }
    for api in m.get_many::<String>("kafka-api").into_iter().flatten() {
        g = g.kafka_api(api);
    }
    let generated = g.generate()?;
    eprintln!(
        "wrote {} messages to {}",
        generated.messages.len(),
        generated.path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn run_catalogue(m: &ArgMatches) -> Result<ExitCode, Error> {
    let inputs: Vec<PathBuf> = paths(m, "schemas").cloned().collect();
    let out = m.get_one::<PathBuf>("out").expect("required");
    let support = m.get_one::<PathBuf>("test-support").expect("required");
    let count = catalogue::write_catalogue(&inputs, out, support)?;
    eprintln!("wrote {count} messages to {}", out.display());
    Ok(ExitCode::SUCCESS)
}

fn run_compat(m: &ArgMatches) -> Result<ExitCode, Error> {
    let old = SchemaSet::load(m.get_one::<PathBuf>("old").expect("required"))?;
    let new = SchemaSet::load(m.get_one::<PathBuf>("new").expect("required"))?;
    let findings = compat::compare_sets(&old.schemas, &new.schemas);
    let report = compat::report(&old.release, &new.release, &findings);
    match m.get_one::<PathBuf>("output") {
        Some(path) => std::fs::write(path, &report).map_err(|e| Error {
            problems: vec![format!("{}: {e}", path.display())],
        })?,
        None => print!("{report}"),
    }
    let breaking = findings.iter().any(|f| f.severity() == Severity::Breaking);
    Ok(if breaking && m.get_flag("deny-breaking") {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
