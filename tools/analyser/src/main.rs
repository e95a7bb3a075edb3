//! `kafka-wire`: any Kafka traffic as JSON. One message (`decode`, and `encode` back to bytes),
//! a stream of request frames (`frames`), a packet capture (`pcap`), record batches (`records`)
//! and log segments (`log`).
#![forbid(unsafe_code)]

mod input;
mod message;
mod pcap;
mod progress;
mod records;
mod stream;
mod tcp;

use clap::{value_parser, Arg, ArgAction, ArgGroup, ArgMatches, Command};
use std::io::Write;
use std::process::ExitCode;

/// What a command failed with: one line for standard error.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, Failure>;

/// Writes one JSON line to standard output.
pub fn emit(out: &mut impl Write, value: &impl serde::Serialize) -> Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")?;
    Ok(())
}

fn message_args(cmd: Command) -> Command {
    cmd.arg(
        Arg::new("api")
            .long("api")
            .value_name("NAME|KEY")
            .help("The API, by name (Fetch) or key (1); not needed for headers"),
    )
    .arg(
        Arg::new("version")
            .long("version")
            .value_name("N")
            .required(true)
            .allow_negative_numbers(true)
            .value_parser(value_parser!(i16))
            .help("The message version (for a header, the header version)"),
    )
    .args(
        ["request", "response", "request-header", "response-header"]
            .map(|kind| Arg::new(kind).long(kind).action(ArgAction::SetTrue)),
    )
    .group(
        ArgGroup::new("kind")
            .args(["request", "response", "request-header", "response-header"])
            .required(true),
    )
}

fn cli() -> Command {
    Command::new("kafka-wire")
        .about("Kafka messages, frame streams, captures and log segments as JSON, and JSON back to bytes")
        .version(env!("CARGO_PKG_VERSION"))
        .subcommand_required(true)
        .subcommand(message_args(
            Command::new("decode")
                .about("Print one message as JSON")
                .arg(Arg::new("input").value_name("INPUT").help(input::HELP)),
        ))
        .subcommand(message_args(
            Command::new("encode")
                .about("Print the bytes of one message, given as JSON, in lowercase hex")
                .arg(
                    Arg::new("json")
                        .value_name("JSON|@FILE|-")
                        .help("The message's JSON, @FILE to read it from a file, - (the default) for standard input"),
                ),
        ))
        .subcommand(
            Command::new("frames")
                .about("Print each request frame of a raw byte stream (what a client sends) as a JSON line")
                .arg(
                    Arg::new("max-frame")
                        .long("max-frame")
                        .value_name("BYTES")
                        .value_parser(value_parser!(usize))
                        .help("The largest frame accepted [default: 104857600, Kafka's socket.request.max.bytes]"),
                )
                .arg(Arg::new("file").value_name("FILE").required(true)),
        )
        .subcommand(
            Command::new("pcap")
                .about("Print each request of a pcap or pcapng capture, with its response, as a JSON line")
                .arg(
                    Arg::new("port")
                        .long("port")
                        .value_name("PORT")
                        .action(ArgAction::Append)
                        .value_parser(value_parser!(u16))
                        .help("A broker port (repeatable); without it every TCP connection is read, its client told by its SYN"),
                )
                .arg(Arg::new("file").value_name("FILE").required(true)),
        )
        .subcommand(
            Command::new("records")
                .about("Print each record batch of a records field as a JSON line")
                .arg(Arg::new("input").value_name("INPUT").help(input::HELP)),
        )
        .subcommand(
            Command::new("log")
                .about("Print each record batch of Kafka log segment files as a JSON line")
                .arg(
                    Arg::new("files")
                        .value_name("FILE")
                        .num_args(1..)
                        .required(true),
                ),
        )
}

fn run(matches: &ArgMatches) -> Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let code = match matches.subcommand() {
        Some(("decode", m)) => {
            let target = message::Target::from_args(m)?;
            let bytes = input::read(m.get_one::<String>("input").map(String::as_str))?;
            emit(&mut out, &message::decode(&target, bytes)?)?;
            ExitCode::SUCCESS
        }
        Some(("encode", m)) => {
            let target = message::Target::from_args(m)?;
            let text = input::read_text(m.get_one::<String>("json").map(String::as_str))?;
            let bytes = message::encode(&target, &text)?;
            writeln!(out, "{}", input::to_hex(&bytes))?;
            ExitCode::SUCCESS
        }
        Some(("frames", m)) => {
            let max = m
                .get_one::<usize>("max-frame")
                .copied()
                .unwrap_or(kafka_wire::frame::DEFAULT_MAX_FRAME_SIZE);
            stream::frames(required(m, "file"), max, &mut out)?
        }
        Some(("pcap", m)) => {
            let ports: Vec<u16> = m
                .get_many::<u16>("port")
                .into_iter()
                .flatten()
                .copied()
                .collect();
            pcap::run(required(m, "file"), &ports, &mut out)?
        }
        Some(("records", m)) => {
            let bytes = input::read(m.get_one::<String>("input").map(String::as_str))?;
            records::batches(bytes, &mut out)?;
            ExitCode::SUCCESS
        }
        Some(("log", m)) => {
            for file in m.get_many::<String>("files").into_iter().flatten() {
                let bytes = input::read_file(file)?;
                records::batches(bytes, &mut out)
                    .map_err(|e| Failure(format!("{file}: {}", e.0)))?;
            }
            ExitCode::SUCCESS
        }
        _ => unreachable!("clap requires a subcommand"),
    };
    out.flush()?;
    Ok(code)
}

fn required<'a>(m: &'a ArgMatches, name: &str) -> &'a str {
    m.get_one::<String>(name).map_or("", String::as_str)
}

fn main() -> ExitCode {
    let matches = cli().get_matches();
    match run(&matches) {
        Ok(code) => code,
        Err(Failure(message)) => {
            // One line, whatever the error's own text holds.
            eprintln!("kafka-wire: {}", message.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}
