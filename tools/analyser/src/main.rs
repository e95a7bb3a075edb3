//! `kafka-wire`: any Kafka traffic as JSON. One message (`decode`, and `encode` back to bytes),
//! a stream of request frames (`frames`), a packet capture (`pcap`), a live client and cluster
//! (`tap`), record batches (`records`) and log segments (`log`).
#![forbid(unsafe_code)]

mod exchange;
mod input;
mod message;
mod pcap;
mod progress;
mod records;
mod stream;
mod tap;
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
        [
            ("request", "A request body"),
            ("response", "A response body"),
            ("request-header", "A request header"),
            ("response-header", "A response header"),
        ]
        .map(|(kind, help)| {
            Arg::new(kind)
                .long(kind)
                .action(ArgAction::SetTrue)
                .help(help)
        }),
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
                .arg(
                    Arg::new("file")
                        .value_name("FILE")
                        .required(true)
                        .help("The byte stream: request frames back to back"),
                ),
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
                .arg(
                    Arg::new("file")
                        .value_name("FILE")
                        .required(true)
                        .help("The capture, pcap or pcapng"),
                ),
        )
        .subcommand(tap_command())
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
                        .required(true)
                        .help("Log segment files (NNN.log), read one after the other"),
                ),
        )
}

fn run(matches: &ArgMatches) -> Result<ExitCode> {
    // The tap writes its lines from a thread of its own, which takes standard output itself.
    if let Some(("tap", m)) = matches.subcommand() {
        return tap::run(tap_options(m)?);
    }
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

const TAP_ABOUT: &str = "Forward Kafka clients to a cluster and print each request with its response as a JSON line, as it happens";

const TAP_LONG_ABOUT: &str = "\
Forward Kafka clients to a cluster and print each request with its response as a JSON line, as it happens.

Clients bootstrap from --listen; the tap forwards to --upstream. Responses that tell a client \
where brokers are (Metadata, FindCoordinator, DescribeCluster, the node endpoints of Produce, \
Fetch, ShareFetch and ShareAcknowledge, and KRaft's Vote, BeginQuorumEpoch, EndQuorumEpoch, \
FetchSnapshot, DescribeQuorum and UpdateRaftVoter) have each broker's host and port replaced by \
a listener of the tap's own, opened when a response first names that broker, so that every \
connection of the client passes through the tap. Every other frame is forwarded byte for byte, \
in order; a close on either side closes the other, after passing on what arrived of a frame it \
cut short. The endpoints of Kafka Streams instances \
(StreamsGroupHeartbeat, StreamsGroupDescribe) are left as they are.

Each line holds the connection, API, version, correlation id, the request and the response \
(time in microseconds since the epoch, size in bytes, header and body) and the latency. A \
Produce request with acks=0 has no response; a request whose connection closed first has \
\"response\": null and a note. A summary goes to standard error (requests per API, bytes each way, \
latency percentiles, lines dropped). Ctrl-C or SIGTERM stops the tap: responses already on \
their way are still read for up to two seconds, then every line is written.

On Linux, a frame of 64 KiB or more is read only as far as its line needs (its header, and a \
Produce request's acks) and the rest moves between the sockets in the kernel, through a pipe \
(splice; with --bodies full, tee takes the copy the line needs). Produce v10+ and Fetch v16+ \
responses are read at field level as they arrive, their records held in the pipe until the end \
of the frame shows whether it names brokers: if not it goes on untouched, if so it is read back \
and rewritten; one larger than a pipe holds (--pipe-size) is finished in memory. --copy, and \
other systems, read and write every byte instead. The summary counts the bytes spliced.

A frame above --max-frame or too short for a header is reported and both sides of its \
connection are closed. Lines wait in a bounded queue; when the output cannot keep up they are \
dropped and counted, and forwarding goes on.

SASL passes like any other request (SaslHandshake v1 and SaslAuthenticate, what clients send \
since Kafka 1.0); the raw tokens that follow SaslHandshake v0 are not Kafka frames and are not \
supported. TLS is out of scope: the tap reads plaintext listeners only.";

fn tap_command() -> Command {
    Command::new("tap")
        .about(TAP_ABOUT)
        .long_about(TAP_LONG_ABOUT)
        .arg(
            Arg::new("listen")
                .long("listen")
                .value_name("HOST:PORT")
                .required(true)
                .value_parser(value_parser!(std::net::SocketAddr))
                .help("Where clients connect: their bootstrap address"),
        )
        .arg(
            Arg::new("upstream")
                .long("upstream")
                .value_name("HOST:PORT")
                .required(true)
                .help("The cluster's bootstrap address"),
        )
        .arg(
            Arg::new("advertise")
                .long("advertise")
                .value_name("HOST")
                .help("The host written into rewritten endpoints [default: --listen's host; required when it is 0.0.0.0 or ::]"),
        )
        .arg(
            Arg::new("broker-port")
                .long("broker-port")
                .value_name("PORT")
                .value_parser(value_parser!(u16))
                .help("The broker with node id N gets a listener at PORT + N, on --listen's host [default: --listen's port + 1]"),
        )
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("FILE")
                .help("Write the lines to FILE (created or truncated) rather than standard output"),
        )
        .arg(
            Arg::new("api")
                .long("api")
                .value_name("NAME|KEY,...")
                .value_delimiter(',')
                .action(ArgAction::Append)
                .help("Print only these APIs (Produce,Fetch or 0,1); the summary counts every API"),
        )
        .arg(
            Arg::new("bodies")
                .long("bodies")
                .value_name("full|none")
                .value_parser(["full", "none"])
                .default_value("full")
                .help("Print bodies, or headers, sizes and times only"),
        )
        .arg(
            Arg::new("max-frame")
                .long("max-frame")
                .value_name("BYTES")
                .value_parser(value_parser!(usize))
                .help("The largest frame forwarded [default: 104857600, Kafka's socket.request.max.bytes]"),
        )
        .arg(
            Arg::new("summary")
                .long("summary")
                .value_name("SECONDS")
                .value_parser(value_parser!(u64))
                .default_value("10")
                .help("Print the summary every SECONDS on standard error; 0 for only when the tap stops"),
        )
        .arg(
            Arg::new("queue")
                .long("queue")
                .value_name("LINES")
                .value_parser(value_parser!(usize))
                .default_value("4096")
                .help("Lines that may wait for the output before new ones are dropped"),
        )
        .arg(
            Arg::new("copy")
                .long("copy")
                .action(ArgAction::SetTrue)
                .help("Read and write every byte in the tap's memory, rather than moving large frames between the sockets in the kernel (splice, Linux only)"),
        )
        .arg(
            Arg::new("pipe-size")
                .long("pipe-size")
                .value_name("BYTES")
                .value_parser(value_parser!(usize))
                .help("The capacity asked for each pipe that large frames pass through, which the kernel rounds up to a power of two pages [default: /proc/sys/fs/pipe-max-size]"),
        )
        .arg(
            Arg::new("queue-bytes")
                .long("queue-bytes")
                .value_name("BYTES")
                .value_parser(value_parser!(usize))
                .default_value("67108864")
                .help("Bytes of frames that may wait for the output before new lines are dropped"),
        )
}

fn tap_options(m: &ArgMatches) -> Result<tap::Options> {
    let listen = *m
        .get_one::<std::net::SocketAddr>("listen")
        .ok_or_else(|| Failure("--listen is required".into()))?;
    let advertise = match m.get_one::<String>("advertise") {
        Some(host) => host.clone(),
        None if listen.ip().is_unspecified() => {
            return Err(Failure(format!(
                "--listen {listen} is every address: give --advertise, the host clients reach the tap at"
            )))
        }
        None => listen.ip().to_string(),
    };
    let first_broker_port = match m.get_one::<u16>("broker-port") {
        Some(port) => *port,
        None => listen
            .port()
            .checked_add(1)
            .ok_or_else(|| Failure("--listen's port is 65535: give --broker-port".into()))?,
    };
    let apis = match m.get_many::<String>("api") {
        Some(names) => Some(
            names
                .map(|n| message::find_api(n.trim()).map(|api| api.key()))
                .collect::<Result<Vec<i16>>>()?,
        ),
        None => None,
    };
    let every = m.get_one::<u64>("summary").copied().unwrap_or(10);
    Ok(tap::Options {
        listen,
        upstream: required(m, "upstream").to_string(),
        advertise,
        first_broker_port,
        out: m.get_one::<String>("out").cloned(),
        apis,
        bodies: if required(m, "bodies") == "none" {
            tap::Bodies::None
        } else {
            tap::Bodies::Full
        },
        max_frame: m
            .get_one::<usize>("max-frame")
            .copied()
            .unwrap_or(kafka_wire::frame::DEFAULT_MAX_FRAME_SIZE),
        summary_every: (every > 0).then(|| std::time::Duration::from_secs(every)),
        queue_lines: m.get_one::<usize>("queue").copied().unwrap_or(4096),
        queue_bytes: m
            .get_one::<usize>("queue-bytes")
            .copied()
            .unwrap_or(64 << 20),
        copy: m.get_flag("copy"),
        pipe_size: m.get_one::<usize>("pipe-size").copied(),
    })
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

#[cfg(test)]
mod tests {
    use super::cli;

    #[test]
    fn the_command_line_is_well_formed_and_every_option_has_help() {
        let cli = cli();
        cli.clone().debug_assert();
        for command in cli.get_subcommands() {
            for arg in command.get_arguments() {
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                assert!(
                    !help.is_empty(),
                    "{} --{}",
                    command.get_name(),
                    arg.get_id()
                );
            }
        }
    }
}
