//! `async-client`: a small Kafka client on tokio, built on kafka-wire's async framing
//! (`kafka_wire::tokio::ClientCodec`). It agrees on versions with ApiVersions, finds a
//! partition's leader with Metadata, produces a few records there and fetches them back,
//! printing each step; any failure ends it with a non-zero exit status.
#![forbid(unsafe_code)]

/// Sends `$api($request)` at `$version` on `$conn` and evaluates to the body of the answer, of
/// the same API (the codec reads an answer as the body of the request it answers); returns the
/// error from the enclosing function.
macro_rules! call {
    ($conn:expr, $api:ident($request:expr), $version:expr) => {
        match $conn
            .call(RequestBody::$api($request), $version)
            .await?
            .body
        {
            ResponseBody::$api(answer) => answer,
            other => {
                let (asked, answered) = (stringify!($api), other.api().name());
                return Err(format!("{asked} answered with {answered}").into());
            }
        }
    };
}

mod connection;

use bytes::{Bytes, BytesMut};
use clap::{value_parser, Arg, ArgMatches, Command};
use connection::{Connection, Error};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::fetch_request::{FetchPartition, FetchTopic};
use kafka_wire::messages::metadata_request::MetadataRequestTopic;
use kafka_wire::messages::produce_request::{PartitionProduceData, TopicProduceData};
use kafka_wire::messages::{FetchRequest, MetadataRequest, ProduceRequest};
use kafka_wire::records::{RecordBatchBuilder, RecordsReader};
use kafka_wire::{ApiMessage, ApiSet, ErrorCode, KafkaString, Records};
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The header every produced record carries, checked on the way back.
const HEADER: (&str, &[u8]) = ("sent-by", b"kafka-wire async-client");

fn cli() -> Command {
    Command::new("async-client")
        .about(
            "Connects to a Kafka broker, agrees on versions (ApiVersions), finds a partition's \
             leader (Metadata), produces a few records there and fetches them back",
        )
        .arg(
            Arg::new("bootstrap")
                .long("bootstrap")
                .value_name("HOST:PORT[,HOST:PORT...]")
                .required(true)
                .help("Brokers to ask for metadata, tried in order"),
        )
        .arg(
            Arg::new("topic")
                .long("topic")
                .default_value("orders")
                .help("An existing topic (the client does not create topics)"),
        )
        .arg(
            Arg::new("partition")
                .long("partition")
                .value_parser(value_parser!(i32))
                .default_value("0"),
        )
        .arg(
            Arg::new("records")
                .long("records")
                .value_name("N")
                .value_parser(value_parser!(u16).range(1..=1000))
                .default_value("3")
                .help("How many records to produce, in one batch"),
        )
        .arg(
            Arg::new("api-versions")
                .long("api-versions")
                .value_name("VERSION")
                .value_parser(value_parser!(i16).range(0..))
                .default_value("3")
                .help(
                    "The ApiVersions version to ask with first; a broker that does not know it \
                     answers at v0 and the client asks again at the broker's newest",
                ),
        )
        .arg(
            Arg::new("timeout-ms")
                .long("timeout-ms")
                .value_parser(value_parser!(u64).range(1..))
                .default_value("10000")
                .help("How long to wait to connect, and for each answer"),
        )
        .arg(
            Arg::new("client-id")
                .long("client-id")
                .default_value("async-client"),
        )
}

struct Options {
    bootstrap: Vec<String>,
    topic: String,
    partition: i32,
    records: u16,
    api_versions: i16,
    timeout: Duration,
    client_id: String,
}

impl Options {
    fn from_matches(m: &ArgMatches) -> Options {
        let text = |name: &str| m.get_one::<String>(name).cloned().unwrap_or_default();
        Options {
            bootstrap: text("bootstrap")
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(str::to_owned)
                .collect(),
            topic: text("topic"),
            partition: m.get_one("partition").copied().unwrap_or(0),
            records: m.get_one("records").copied().unwrap_or(3),
            api_versions: m.get_one("api-versions").copied().unwrap_or(3),
            timeout: Duration::from_millis(m.get_one("timeout-ms").copied().unwrap_or(10_000)),
            client_id: text("client-id"),
        }
    }

    async fn open(&self, addr: &str) -> Result<Connection, Error> {
        Connection::open(addr, &self.client_id, self.timeout, self.api_versions).await
    }
}

fn main() -> ExitCode {
    let options = Options::from_matches(&cli().get_matches());
    // One thread is plenty for one request at a time.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    let result = match runtime {
        Ok(runtime) => runtime.block_on(run(&options)),
        Err(e) => Err(e.into()),
    };
    match result {
        Ok(()) => {
            println!("async-client: OK");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("async-client: FAIL: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(options: &Options) -> Result<(), Error> {
    let mut bootstrap = None;
    for addr in &options.bootstrap {
        match options.open(addr).await {
            Ok(conn) => {
                bootstrap = Some(conn);
                break;
            }
            Err(e) => eprintln!("async-client: {e}; trying the next broker"),
        }
    }
    let mut bootstrap = bootstrap.ok_or("no bootstrap broker could be reached")?;

    let leader_addr = leader_of(&mut bootstrap, &options.topic, options.partition).await?;
    let mut leader = if leader_addr == bootstrap.addr {
        bootstrap
    } else {
        // Versions are agreed per broker: the leader may speak other versions.
        options.open(&leader_addr).await?
    };

    let run_id = format!("{}-{}", std::process::id(), now_ms());
    let records: Vec<(String, String)> = (0..options.records)
        .map(|i| (format!("key-{i}"), format!("value {i} of run {run_id}")))
        .collect();
    let base_offset = produce(&mut leader, options, &records).await?;
    fetch_back(&mut leader, options, base_offset, &records).await
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Asks `conn` for the topic's metadata and returns the address of the partition's leader.
async fn leader_of(conn: &mut Connection, topic: &str, partition: i32) -> Result<String, Error> {
    let version = conn.version_of(MetadataRequest::API_KEY)?;
    let request = MetadataRequest::default()
        .with_topics(Some(vec![
            MetadataRequestTopic::default().with_name(Some(KafkaString::from(topic.to_owned())))
        ]))
        // Asking must not create the topic; before v4 the field is absent (at its default) and
        // the broker's own setting decides.
        .with_allow_auto_topic_creation(version < 4);
    let metadata = call!(conn, Metadata(request), version);
    println!(
        "[{}] Metadata v{version}: cluster {}, brokers {:?}, controller {}",
        conn.addr,
        metadata.cluster_id.as_deref().unwrap_or("(none)"),
        metadata
            .brokers
            .iter()
            .map(|b| b.node_id)
            .collect::<Vec<_>>(),
        metadata.controller_id
    );
    let found = metadata
        .topics
        .iter()
        .find(|t| t.name.as_deref() == Some(topic))
        .ok_or_else(|| format!("topic {topic} is not in the Metadata answer"))?;
    ErrorCode::from(found.error_code)
        .as_result()
        .map_err(|e| format!("topic {topic}: {e}"))?;
    let part = found
        .partitions
        .iter()
        .find(|p| p.partition_index == partition)
        .ok_or_else(|| {
            format!(
                "topic {topic} has no partition {partition} ({} partitions)",
                found.partitions.len()
            )
        })?;
    ErrorCode::from(part.error_code)
        .as_result()
        .map_err(|e| format!("{topic}-{partition}: {e}"))?;
    let broker = metadata
        .brokers
        .iter()
        .find(|b| b.node_id == part.leader_id)
        .ok_or_else(|| {
            format!(
                "the leader of {topic}-{partition}, broker {}, is not listed",
                part.leader_id
            )
        })?;
    let addr = format!("{}:{}", &*broker.host, broker.port);
    println!(
        "[{}] topic {topic}: {} partitions; {topic}-{partition} is led by broker {} at {addr}",
        conn.addr,
        found.partitions.len(),
        broker.node_id
    );
    Ok(addr)
}

/// Produces `records` as one batch (acks = all) and returns the offset of the first.
async fn produce(
    conn: &mut Connection,
    options: &Options,
    records: &[(String, String)],
) -> Result<i64, Error> {
    let (topic, partition) = (&options.topic, options.partition);
    let version = conn.version_of(ProduceRequest::API_KEY)?;
    let mut batch = BytesMut::new();
    let mut writer = RecordBatchBuilder::new().writer(&mut batch)?;
    let timestamp = now_ms();
    for (key, value) in records {
        let headers = [(HEADER.0, Some(HEADER.1))];
        writer.append(
            timestamp,
            Some(key.as_bytes()),
            Some(value.as_bytes()),
            headers,
        )?;
    }
    writer.finish()?;
    let size = batch.len();
    let request = ProduceRequest::default()
        .with_acks(-1)
        .with_timeout_ms(i32::try_from(options.timeout.as_millis()).unwrap_or(i32::MAX))
        .with_topic_data(vec![TopicProduceData::default()
            .with_name(KafkaString::from(topic.clone()))
            .with_partition_data(vec![PartitionProduceData::default()
                .with_index(partition)
                .with_records(Some(Records::new(batch.freeze())))])]);
    let response = call!(conn, Produce(request), version);
    let answer = response
        .responses
        .iter()
        .filter(|t| &*t.name == topic.as_str())
        .flat_map(|t| &t.partition_responses)
        .find(|p| p.index == partition)
        .ok_or_else(|| format!("the Produce answer has no {topic}-{partition}"))?;
    if let Err(code) = ErrorCode::from(answer.error_code).as_result() {
        let message = answer.error_message.as_deref().unwrap_or("");
        return Err(format!("Produce to {topic}-{partition}: {code} {message}").into());
    }
    println!(
        "[{}] Produce v{version}: {} records in one batch of {size} bytes to {topic}-{partition}: \
         written at offset {}",
        conn.addr,
        records.len(),
        answer.base_offset
    );
    Ok(answer.base_offset)
}

/// One record as fetched.
struct Fetched {
    offset: i64,
    key: Option<Bytes>,
    value: Option<Bytes>,
    headers: Vec<(String, Option<Bytes>)>,
}

/// Fetches from `offset` until `records` are back, and checks each against what was produced.
async fn fetch_back(
    conn: &mut Connection,
    options: &Options,
    offset: i64,
    records: &[(String, String)],
) -> Result<(), Error> {
    let (topic, partition) = (&options.topic, options.partition);
    let version = conn.version_of(FetchRequest::API_KEY)?;
    let mut fetched: Vec<Fetched> = Vec::new();
    let mut next = offset;
    // A broker may answer with less than was written (or nothing, within max_wait_ms); a few
    // more Fetches from where the last one stopped, then it is a failure.
    for _ in 0..5 {
        if fetched.len() >= records.len() {
            break;
        }
        let request = FetchRequest::default()
            .with_max_wait_ms(500)
            .with_min_bytes(1)
            .with_max_bytes(1 << 20)
            .with_topics(vec![FetchTopic::default()
                .with_topic(KafkaString::from(topic.clone()))
                .with_partitions(vec![FetchPartition::default()
                    .with_partition(partition)
                    .with_fetch_offset(next)
                    .with_partition_max_bytes(1 << 20)])]);
        let response = call!(conn, Fetch(request), version);
        ErrorCode::from(response.error_code)
            .as_result()
            .map_err(|e| format!("Fetch: {e}"))?;
        let data = response
            .responses
            .into_iter()
            .filter(|t| &*t.topic == topic.as_str())
            .flat_map(|t| t.partitions)
            .find(|p| p.partition_index == partition)
            .ok_or_else(|| format!("the Fetch answer has no {topic}-{partition}"))?;
        ErrorCode::from(data.error_code)
            .as_result()
            .map_err(|e| format!("Fetch from {topic}-{partition}: {e}"))?;
        let bytes = data.records.map(Records::into_bytes).unwrap_or_default();
        let (mut batches, from) = (0, next);
        for batch in RecordsReader::new(bytes) {
            let batch = batch?;
            batches += 1;
            if batch.header.is_control {
                continue;
            }
            for record in batch.records()? {
                let record = record?;
                // A batch comes whole: records before the offset asked for are skipped.
                if record.offset() < next {
                    continue;
                }
                let mut headers = Vec::new();
                for header in record.headers() {
                    let header = header?;
                    headers.push((header.key().to_owned(), header.value_bytes()));
                }
                next = record.offset() + 1;
                fetched.push(Fetched {
                    offset: record.offset(),
                    key: record.key_bytes(),
                    value: record.value_bytes(),
                    headers,
                });
            }
        }
        println!(
            "[{}] Fetch v{version} from offset {from}: {batches} batch(es), {} record(s) so far, \
             high watermark {}",
            conn.addr,
            fetched.len(),
            data.high_watermark
        );
    }
    if fetched.len() < records.len() {
        return Err(format!(
            "fetched {} of the {} records written at offset {offset}",
            fetched.len(),
            records.len()
        )
        .into());
    }
    for (i, ((key, value), got)) in records.iter().zip(&fetched).enumerate() {
        let want_offset = offset + i as i64;
        let header = (HEADER.0.to_owned(), Some(Bytes::from_static(HEADER.1)));
        if got.offset != want_offset
            || got.key.as_deref() != Some(key.as_bytes())
            || got.value.as_deref() != Some(value.as_bytes())
            || got.headers != [header]
        {
            return Err(format!(
                "record {i}: expected {key:?} = {value:?} at offset {want_offset} with header {:?}, \
                 fetched {:?} = {:?} at offset {} with headers {:?}",
                HEADER.0,
                got.key,
                got.value,
                got.offset,
                got.headers
            )
            .into());
        }
        println!(
            "  offset {}: {key} = {value:?} (header {})",
            got.offset, HEADER.0
        );
    }
    println!(
        "[{}] the {} records fetched back match what was produced",
        conn.addr,
        records.len()
    );
    Ok(())
}
