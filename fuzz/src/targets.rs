//! The fuzz targets: what an input is decoded as, the seeds it starts from, and the checks.

use crate::alloc_count::{Region, Usage};
use crate::catalogue;
use crate::check::{
    check_alloc, check_offset, guarded, hex, is_reflexive, Outcome, Property, Violation,
};
use crate::records_fix;
use bytes::{Bytes, BytesMut};
use kafka_wire::api::ApiInfo;
use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::RequestHeader;
use kafka_wire::messages::{
    ApiVersionsRequest, FetchRequest, MetadataRequest, ProduceRequest, SaslAuthenticateRequest,
    WriteTxnMarkersRequest,
};
use kafka_wire::records::{
    read_all, Compression, DecodeLimits, Header, Record, RecordBatch, RecordBatchBuilder,
    RecordsError, RecordsReader, TimestampType, TxnMarker,
};
use kafka_wire::ErrorKind;
use kafka_wire::{ApiMessage, ApiSet, KafkaString, Message, VersionRange, ViewIndex};
use kafka_wire_tests::random::{Random, Rng};
use std::fmt;

/// The decompression cap of the records targets; every compressed batch may add this much to
/// the allocation bounds.
pub const DECOMPRESSION_CAP: usize = 1 << 20;

/// A message the fuzzer can decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// An API of Kafka's request set.
    Request(&'static ApiInfo),
    /// An API of Kafka's response set.
    Response(&'static ApiInfo),
    /// A header or data schema, by its index in [`catalogue::schemas`].
    Schema(usize),
}

impl Subject {
    pub fn name(self) -> String {
        match self {
            Subject::Request(api) | Subject::Response(api) => api.message().to_owned(),
            Subject::Schema(i) => catalogue::schemas()
                .get(i)
                .map_or_else(|| format!("schema {i}"), |s| s.0.to_owned()),
        }
    }

    pub fn versions(self) -> VersionRange {
        match self {
            Subject::Request(api) | Subject::Response(api) => api.versions(),
            Subject::Schema(i) => catalogue::schemas()
                .get(i)
                .map_or(VersionRange::new(0, -1), |s| s.1),
        }
    }

    /// The request and the response of the API `key` of Kafka's sets.
    fn both(key: i16) -> impl Iterator<Item = Subject> {
        let request = RequestBody::find(key).map(Subject::Request);
        let response = ResponseBody::find(key).map(Subject::Response);
        request.into_iter().chain(response)
    }

    /// Every message: requests, responses, then headers and data schemas.
    pub fn every() -> Vec<Subject> {
        let mut all: Vec<Subject> = RequestBody::APIS.iter().map(Subject::Request).collect();
        all.extend(ResponseBody::APIS.iter().map(Subject::Response));
        all.extend((0..catalogue::schemas().len()).map(Subject::Schema));
        all
    }

    /// Checks `input` as this message at `version`.
    pub fn check(self, input: &[u8], version: i16) -> Result<Outcome, Violation> {
        let checked = match self {
            Subject::Request(api) => catalogue::check_request(api, input, version),
            Subject::Response(api) => catalogue::check_response(api, input, version),
            Subject::Schema(i) => catalogue::check_schema(i, input, version),
        };
        checked.unwrap_or(Ok(Outcome::Rejected))
    }

    /// A random value encoded at `version`.
    pub fn random(self, r: &mut Rng, version: i16) -> Option<Vec<u8>> {
        let mut buf = BytesMut::new();
        match self {
            Subject::Request(api) => catalogue::random_request(api, r, version)?
                .encode(&mut buf, version)
                .ok()?,
            Subject::Response(api) => catalogue::random_response(api, r, version)?
                .encode(&mut buf, version)
                .ok()?,
            Subject::Schema(i) => return catalogue::random_schema(i, r, version),
        }
        Some(buf.to_vec())
    }

    /// The 5-byte prefix naming this message and version in the `all` target's inputs.
    pub fn prefix(self, version: i16) -> [u8; 5] {
        let (tag, key) = match self {
            Subject::Request(api) => (0, api.key()),
            Subject::Response(api) => (1, api.key()),
            Subject::Schema(i) => (2, i as i16),
        };
        let [k0, k1] = key.to_be_bytes();
        let [v0, v1] = version.to_be_bytes();
        [tag, k0, k1, v0, v1]
    }

    /// Reads a prefix written by [`prefix`](Self::prefix).
    pub fn from_prefix(prefix: &[u8]) -> Option<(Subject, i16)> {
        let &[tag, k0, k1, v0, v1] = prefix.get(..5)? else {
            return None;
        };
        let key = i16::from_be_bytes([k0, k1]);
        let version = i16::from_be_bytes([v0, v1]);
        let subject = match tag {
            0 => Subject::Request(RequestBody::find(key)?),
            1 => Subject::Response(ResponseBody::find(key)?),
            2 => Subject::Schema(usize::try_from(key).ok()?),
            _ => return None,
        };
        Some((subject, version))
    }
}

/// What a target decodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One message at one version.
    Message(Subject, i16),
    /// A records field read with `RecordsReader`; seeds use this codec.
    Records(Compression),
    /// A request frame: `split_frame`, then `decode_request` and `decode_request_lenient`.
    RequestFrame,
    /// Every message at every version; an input starts with a 5-byte [`Subject::prefix`].
    All,
}

/// A named fuzz target.
#[derive(Clone, Debug)]
pub struct Target {
    pub name: String,
    pub kind: Kind,
}

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

impl Target {
    fn message(subject: Subject, version: i16) -> Target {
        Target {
            name: format!("{}_v{version}", snake(&subject.name())),
            kind: Kind::Message(subject, version),
        }
    }

    /// Every target, flagships first, `all` last.
    pub fn every() -> Vec<Target> {
        let mut targets = Vec::new();
        let mut both_ends = |subject: Subject, versions: &[i16]| {
            for &v in versions {
                targets.push(Target::message(subject, v));
            }
        };
        for key in [
            ProduceRequest::API_KEY,
            FetchRequest::API_KEY,
            MetadataRequest::API_KEY,
            SaslAuthenticateRequest::API_KEY,
        ] {
            for subject in Subject::both(key) {
                let range = subject.versions();
                let (Some(lo), Some(hi)) = (range.start(), range.end()) else {
                    continue;
                };
                both_ends(subject, &[lo, hi]);
            }
        }
        for subject in Subject::both(WriteTxnMarkersRequest::API_KEY) {
            both_ends(subject, &[0, 1, 2]);
        }
        for subject in Subject::both(ApiVersionsRequest::API_KEY) {
            both_ends(subject, &[0, 3]);
        }
        for codec in CODECS {
            targets.push(Target {
                name: format!("records_{codec}"),
                kind: Kind::Records(codec),
            });
        }
        targets.push(Target {
            name: "request_frame".into(),
            kind: Kind::RequestFrame,
        });
        targets.push(Target {
            name: "all".into(),
            kind: Kind::All,
        });
        targets
    }

    pub fn by_name(name: &str) -> Option<Target> {
        Target::every().into_iter().find(|t| t.name == name)
    }

    /// Bytes at the start of an input that mutations leave alone.
    pub fn prefix_len(&self) -> usize {
        match self.kind {
            Kind::All => 5,
            _ => 0,
        }
    }

    /// Checks one input; a broken property is the error.
    pub fn run(&self, input: &[u8]) -> Result<Outcome, Violation> {
        guarded(|| match self.kind {
            Kind::Message(subject, version) => subject.check(input, version),
            Kind::Records(_) => check_records(input),
            Kind::RequestFrame => check_frame(input),
            Kind::All => match Subject::from_prefix(input) {
                Some((subject, version)) => subject.check(&input[5..], version),
                None => Ok(Outcome::Rejected),
            },
        })
    }

    /// Repairs what mutation breaks but the decoder must get past to reach deeper code: the
    /// checksums of record batches.
    pub fn fix_up(&self, input: &mut [u8]) {
        if let Kind::Records(_) = self.kind {
            records_fix::fix_checksums(input);
        }
    }

    /// The starting inputs: golden vectors and random values of the target's messages.
    pub fn seeds(&self) -> Vec<Vec<u8>> {
        match self.kind {
            Kind::Message(subject, version) => {
                let mut seeds = golden_messages(&subject.name(), version);
                let mut r = Rng::new(0x5eed ^ version as u64);
                seeds.extend((0..48).filter_map(|_| subject.random(&mut r, version)));
                seeds
            }
            Kind::Records(codec) => record_seeds(codec),
            Kind::RequestFrame => frame_seeds(),
            Kind::All => {
                let mut seeds = Vec::new();
                let mut r = Rng::new(0xa11);
                for subject in Subject::every() {
                    for version in versions_of(subject.versions()) {
                        let mut bodies = golden_messages(&subject.name(), version);
                        bodies.extend((0..3).filter_map(|_| subject.random(&mut r, version)));
                        for body in bodies {
                            let mut input = subject.prefix(version).to_vec();
                            input.extend_from_slice(&body);
                            seeds.push(input);
                        }
                    }
                }
                seeds
            }
        }
    }

    /// Valid inputs for the corpus: for `all`, one per message and version; otherwise a few.
    pub fn valid_inputs(&self) -> Vec<Vec<u8>> {
        match self.kind {
            Kind::All => {
                let mut out = Vec::new();
                let mut r = Rng::new(0xc0de);
                for subject in Subject::every() {
                    for version in versions_of(subject.versions()) {
                        // The shortest of a few random values keeps the file small.
                        let shortest = (0..4)
                            .filter_map(|_| subject.random(&mut r, version))
                            .min_by_key(Vec::len);
                        if let Some(body) = shortest {
                            let mut input = subject.prefix(version).to_vec();
                            input.extend_from_slice(&body);
                            out.push(input);
                        }
                    }
                }
                out
            }
            _ => {
                let mut seeds = self.seeds();
                seeds.sort_by_key(Vec::len);
                seeds.dedup();
                seeds
                    .into_iter()
                    .filter(|s| matches!(self.run(s), Ok(Outcome::Decoded)))
                    .take(4)
                    .collect()
            }
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

fn versions_of(range: VersionRange) -> Vec<i16> {
    match (range.start(), range.end()) {
        (Some(lo), Some(hi)) => (lo..=hi).collect(),
        _ => Vec::new(),
    }
}

const CODECS: [Compression; 5] = [
    Compression::None,
    Compression::Gzip,
    Compression::Snappy,
    Compression::Lz4,
    Compression::Zstd,
];

/// Golden vectors of `message` at `version`, from every vector file.
fn golden_messages(message: &str, version: i16) -> Vec<Vec<u8>> {
    kafka_wire_tests::catalogue_vectors()
        .iter()
        .chain(kafka_wire_tests::write_txn_markers_vectors())
        .filter(|v| v.message == message && v.version == version)
        .map(|v| v.bytes.clone())
        .collect()
}

fn record_seeds(codec: Compression) -> Vec<Vec<u8>> {
    let golden: serde_json::Value =
        serde_json::from_str(include_str!("../../tests/golden/records.json")).unwrap_or_default();
    let wanted = codec.to_string();
    let mut seeds: Vec<Vec<u8>> = golden
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| {
            let c = v["codec"].as_str().unwrap_or_default();
            c == wanted || (codec == Compression::None && c == "mixed")
        })
        .filter_map(|v| v["hex"].as_str().map(kafka_wire_tests::from_hex))
        .collect();
    let mut r = Rng::new(0x7ec0 ^ u64::from(codec.bits()));
    let magics: &[i8] = if codec == Compression::Zstd {
        &[2]
    } else {
        &[2, 1, 0]
    };
    for &magic in magics {
        for n in u64::from(magic < 2)..4 {
            let records: Vec<Record> = (0..n).map(|i| random_record(&mut r, magic, i)).collect();
            let mut builder = RecordBatchBuilder::new()
                .magic(magic)
                .compression(codec)
                .base_offset(r.below(1 << 40) as i64)
                .records(records);
            if magic == 2 && r.one_in(2) {
                builder = builder
                    .producer(r.below(1 << 20) as i64, 3, 7)
                    .transactional(true);
            }
            if magic > 0 && r.one_in(3) {
                builder = builder.timestamp_type(TimestampType::LogAppendTime);
            }
            if let Ok(records) = builder.encode() {
                seeds.push(records.into_bytes().to_vec());
            }
        }
    }
    if codec == Compression::None {
        let marker = TxnMarker {
            commit: true,
            coordinator_epoch: 5,
        }
        .batch(100, 1_700_000_000_000, 3, 4000, 1);
        if let Ok(records) = marker.encode() {
            seeds.push(records.into_bytes().to_vec());
        }
    }
    // Two batches back to back.
    if let (Some(a), Some(b)) = (seeds.first().cloned(), seeds.last().cloned()) {
        seeds.push([a, b].concat());
    }
    seeds
}

fn random_record(r: &mut Rng, magic: i8, i: u64) -> Record {
    let mut record = Record::new(
        (!r.one_in(3)).then(|| Bytes::random(r, 0, false)),
        (!r.one_in(4)).then(|| Bytes::random(r, 0, false)),
    )
    .with_timestamp(if magic == 0 {
        -1
    } else {
        1_700_000_000_000 + i as i64 * 7
    });
    if magic == 2 {
        for _ in 0..r.below(3) {
            record.headers.push(Header::new(
                KafkaString::random(r, 0, false),
                (!r.one_in(3)).then(|| Bytes::random(r, 0, false)),
            ));
        }
    }
    record
}

fn frame_seeds() -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    let mut r = Rng::new(0xf4a3e);
    for api in RequestBody::APIS {
        for version in versions_of(api.versions()) {
            let Some(body) = catalogue::random_request(api, &mut r, version) else {
                continue;
            };
            let header_version = api.header_version(version);
            let flexible = RequestHeader::FLEXIBLE_VERSIONS.contains(header_version);
            let mut header = RequestHeader::random(&mut r, header_version, flexible);
            header.request_api_key = api.key();
            header.request_api_version = version;
            let mut wire = BytesMut::new();
            if frame::encode_request(&mut wire, &header, &body).is_ok() {
                seeds.push(wire.to_vec());
            }
        }
    }
    seeds
}

/// The number of compressed batches in a records field, each of which may decompress to
/// [`DECOMPRESSION_CAP`].
fn compressed_batches(input: &[u8]) -> usize {
    records_fix::batches(input)
        .filter(|b| {
            let attributes = match b.magic {
                2 => b.bytes.get(22),
                _ => b.bytes.get(17),
            };
            attributes.is_some_and(|a| a & 0x07 != 0)
        })
        .count()
}

/// Reads every batch, record and header of `input` through the views, dropping each batch
/// before the next as a consumer does; the number of records read, or the first error.
fn walk_views(input: &Bytes, limits: DecodeLimits) -> Result<usize, RecordsError> {
    let mut records = 0usize;
    for batch in RecordsReader::new(input.clone()).with_limits(limits) {
        for record in batch?.records()? {
            let record = record?;
            std::hint::black_box((record.key(), record.value()));
            for header in record.headers() {
                std::hint::black_box(header?.value());
            }
            records += 1;
        }
    }
    Ok(records)
}

/// The batches of `input` as the views show them, copied out field by field (not through the
/// owned form, which is what they are compared with).
fn copied_from_views(
    input: &Bytes,
    limits: DecodeLimits,
) -> Result<Vec<RecordBatch>, RecordsError> {
    let mut batches = Vec::new();
    for batch in RecordsReader::new(input.clone()).with_limits(limits) {
        let batch = batch?;
        let mut records = Vec::new();
        for record in batch.records()? {
            let record = record?;
            let headers = record
                .headers()
                .map(|h| h.map(|h| Header::new(h.key().to_owned(), h.value_bytes())))
                .collect::<Result<_, _>>()?;
            records.push(Record {
                offset: record.offset(),
                timestamp: record.timestamp(),
                key: record.key_bytes(),
                value: record.value_bytes(),
                headers,
            });
        }
        batches.push(RecordBatch {
            header: batch.header,
            records,
        });
    }
    Ok(batches)
}

/// The bound on what reading records may hold at once, for any public reading API.
fn check_peak(usage: Usage, input_len: usize, how: &str) -> Result<(), Violation> {
    let bound = DECOMPRESSION_CAP + 512 * 1024 + 256 * input_len;
    if usage.peak > bound {
        return Err(Violation::new(
            Property::AllocPeak,
            format!("{how}: {} bytes held at once, bound {bound}", usage.peak),
        ));
    }
    Ok(())
}

fn check_records(input: &[u8]) -> Result<Outcome, Violation> {
    let bytes = Bytes::copy_from_slice(input);
    let compressed = compressed_batches(input);
    let limits = DecodeLimits {
        max_decompressed: DECOMPRESSION_CAP,
    };
    let region = Region::new();
    let viewed = walk_views(&bytes, limits);
    let usage = region.usage();
    crate::check::note_usage(usage);
    let extra = if compressed > 0 { DECOMPRESSION_CAP } else { 0 };
    check_alloc(usage, input.len(), extra, DECOMPRESSION_CAP * compressed)?;
    check_peak(usage, input.len(), "views")?;

    let region = Region::new();
    let owned = read_all(bytes.clone(), limits);
    check_peak(region.usage(), input.len(), "owned batches")?;

    if let Err(e) = &viewed {
        if !e.in_decompressed() {
            match e.offset() {
                Some(offset) if offset <= input.len() => {}
                Some(offset) => {
                    return Err(Violation::new(
                        Property::Offset,
                        format!(
                            "offset {offset} past the input's {} bytes: {e}",
                            input.len()
                        ),
                    ))
                }
                None => {}
            }
        }
    }
    // The owned form reads what the views read, or stops at the same error, or at its memory
    // limit.
    let batches = match (&owned, &viewed) {
        (Ok(batches), Ok(_)) => {
            let copied = copied_from_views(&bytes, limits);
            if copied.as_ref() != Ok(batches) {
                return Err(Violation::new(
                    Property::RoundTrip,
                    format!("owned batches {batches:?}\nviews {copied:?}"),
                ));
            }
            batches.as_slice()
        }
        (Err(e), _) if matches!(e.kind(), ErrorKind::MemoryLimit { .. }) => &[],
        (Err(a), Err(b)) if a.kind() == b.kind() => &[],
        (owned, viewed) => {
            return Err(Violation::new(
                Property::RoundTrip,
                format!("owned batches {owned:?}\nviews {viewed:?}"),
            ))
        }
    };
    for batch in batches {
        round_trip_batch(batch, limits)?;
    }
    Ok(if viewed.is_err() || batches.is_empty() {
        Outcome::Rejected
    } else {
        Outcome::Decoded
    })
}

fn round_trip_batch(batch: &RecordBatch, limits: DecodeLimits) -> Result<(), Violation> {
    let fail = |p: Property, what: String| Err(Violation::new(p, what));
    let first = match batch.encode() {
        Ok(records) => records.into_bytes(),
        Err(e) => {
            return fail(
                Property::RoundTrip,
                format!("a decoded batch does not encode: {e}"),
            )
        }
    };
    let mut reader = RecordsReader::new(first.clone())
        .with_limits(limits)
        .into_owned();
    let again: Result<Vec<RecordBatch>, _> = reader.by_ref().collect();
    let again = match again {
        Ok(again) => again,
        Err(e) => {
            return fail(
                Property::RoundTrip,
                format!(
                    "the encoding does not read back: {e}; encoding {}",
                    hex(&first)
                ),
            )
        }
    };
    if again.len() != 1 || again[0] != *batch || reader.truncated_tail().is_some() {
        return fail(
            Property::RoundTrip,
            format!("decoded {batch:?}\nread back {again:?}"),
        );
    }
    match again[0].encode() {
        Ok(second) if second.as_bytes() == &first => Ok(()),
        Ok(second) => fail(
            Property::Reencode,
            format!("first {}\nsecond {}", hex(&first), hex(second.as_bytes())),
        ),
        Err(e) => fail(
            Property::RoundTrip,
            format!("re-read batch does not encode: {e}"),
        ),
    }
}

/// The lenient reader on the contents of a frame the strict one read (`strict`): the same
/// allocation bounds, errors at an offset within the input, and the strict reader's header and
/// body, with no trailing bytes where the strict one read the frame, and where it refused only
/// trailing bytes, the header and body the strict one reads without them. An ApiVersions
/// request at a version the set lacks, which the strict reader refuses, is read as version 0
/// with its body unread.
fn check_lenient(
    contents: &Bytes,
    input_len: usize,
    strict: &Result<Option<(RequestHeader, RequestBody)>, kafka_wire::DecodeError>,
) -> Result<(), Violation> {
    let region = Region::new();
    let lenient = frame::decode_request_lenient::<RequestBody>(contents.clone());
    let usage = region.usage();
    crate::check::note_usage(usage);
    check_alloc(usage, input_len, 0, 0)?;
    let disagree = |what: String| Err(Violation::new(Property::Lenient, what));
    let unknown_api_versions = matches!(contents.get(..4), Some(&[k0, k1, v0, v1])
        if i16::from_be_bytes([k0, k1]) == 18
            && RequestBody::find(18)
                .is_some_and(|api| !api.versions().contains(i16::from_be_bytes([v0, v1]))));
    match (strict, lenient) {
        (_, Err(e)) => {
            check_offset(&e, input_len)?;
            match strict {
                Err(s) if *s == e || unknown_api_versions => Ok(()),
                other => disagree(format!("lenient {e}; strict {other:?}")),
            }
        }
        (Ok(Some((header, body))), Ok(read)) => {
            let same_body = !is_reflexive(body) || read.body == *body;
            if read.header == *header
                && same_body
                && read.version == header.request_api_version
                && read.trailing_bytes == 0
            {
                Ok(())
            } else {
                disagree(format!("lenient {read:?}; strict {header:?} {body:?}"))
            }
        }
        (Err(_), Ok(read)) if unknown_api_versions => {
            if read.version == 0 && read.body == RequestBody::ApiVersions(Default::default()) {
                Ok(())
            } else {
                disagree(format!(
                    "ApiVersions at an unknown version read as {read:?}"
                ))
            }
        }
        (Err(e), Ok(read)) => {
            let count = read.trailing_bytes;
            if *e.kind() != (kafka_wire::ErrorKind::TrailingBytes { count }) {
                return disagree(format!("lenient {read:?}; strict {e}"));
            }
            let without = contents.slice(..contents.len().saturating_sub(count));
            match frame::decode_request::<RequestBody>(without) {
                Ok((header, body))
                    if header == read.header && (!is_reflexive(&body) || body == read.body) =>
                {
                    Ok(())
                }
                other => disagree(format!(
                    "lenient {read:?}; strict without the {count} trailing bytes {other:?}"
                )),
            }
        }
        (Ok(None), Ok(read)) => disagree(format!("no frame, yet the lenient reader read {read:?}")),
    }
}

/// The view property for frames: `view_request`, `view_request_lenient` and `peek_request`
/// open where their decoding counterparts succeed, without allocating, read the same header
/// and body, and fail with the same error.
fn check_frame_views(contents: &Bytes) -> Result<(), Violation> {
    let disagree = |what: String| Err(Violation::new(Property::View, what));
    // A refusal decodes to find its error; what opens is held to no allocation.
    fn counted<T, E>(open: impl FnOnce() -> Result<T, E>) -> (Result<T, E>, usize) {
        let region = Region::new();
        let opened = open();
        (opened, region.usage().count)
    }
    // Each opens into an index of its own, warmed by opening the frame once: the second
    // opening is the one counted, as in steady state.
    let (mut one, mut two, mut three) = (ViewIndex::new(), ViewIndex::new(), ViewIndex::new());
    let warm = frame::view_request::<RequestBody>(&contents[..], &mut one).is_ok()
        | frame::view_request_lenient::<RequestBody>(&contents[..], &mut two).is_ok()
        | frame::peek_request::<RequestBody>(&contents[..], &mut three).is_ok();
    let _ = warm;
    let (one, two, three) = (&mut one, &mut two, &mut three);
    let (strict, a) = counted(move || frame::view_request::<RequestBody>(&contents[..], one));
    let (lenient, b) =
        counted(move || frame::view_request_lenient::<RequestBody>(&contents[..], two));
    let (peeked, c) = counted(move || frame::peek_request::<RequestBody>(&contents[..], three));
    for (name, ok, count) in [
        ("view_request", strict.is_ok(), a),
        ("view_request_lenient", lenient.is_ok(), b),
        ("peek_request", peeked.is_ok(), c),
    ] {
        if ok && count != 0 {
            return disagree(format!("{name} made {count} allocations"));
        }
    }
    match (
        strict,
        frame::decode_request::<RequestBody>(contents.clone()),
    ) {
        (Ok((h, b)), Ok((header, body))) => {
            if h.into_owned() != header || (is_reflexive(&body) && b.into_owned() != body) {
                return disagree(format!("view_request reads another frame than {header:?}"));
            }
        }
        (Err(a), Err(b)) if a == b => {}
        (a, b) => return disagree(format!("view_request {a:?}\ndecode_request {b:?}")),
    }
    match (
        lenient,
        frame::decode_request_lenient::<RequestBody>(contents.clone()),
    ) {
        (Ok(v), Ok(d)) => {
            let same_body = !is_reflexive(&d.body) || v.body.into_owned() == d.body;
            if v.header.into_owned() != d.header
                || !same_body
                || v.version != d.version
                || v.trailing_bytes != d.trailing_bytes
            {
                return disagree(format!(
                    "view_request_lenient reads another frame than {d:?}"
                ));
            }
        }
        (Err(a), Err(b)) if a == b => {}
        (a, b) => {
            return disagree(format!(
                "view_request_lenient {a:?}\ndecode_request_lenient {b:?}"
            ))
        }
    }
    // Peeking checks the header as the lenient reader does; where that reader got past the
    // header, so does the peek, to the same header.
    if let (Ok((header, _)), Ok(d)) = (
        peeked,
        frame::decode_request_lenient::<RequestBody>(contents.clone()),
    ) {
        if header.into_owned() != d.header {
            return disagree(format!(
                "peek_request reads another header than {:?}",
                d.header
            ));
        }
    } else if let (Err(e), Ok(d)) = (
        frame::peek_request::<RequestBody>(&contents[..], &mut ViewIndex::new()),
        frame::decode_request_lenient::<RequestBody>(contents.clone()),
    ) {
        return disagree(format!(
            "peek_request refuses ({e}) a frame the lenient reader reads: {d:?}"
        ));
    }
    Ok(())
}

fn check_frame(input: &[u8]) -> Result<Outcome, Violation> {
    let mut stream = BytesMut::from(input);
    let region = Region::new();
    let split = frame::split_frame(&mut stream, DEFAULT_MAX_FRAME_SIZE);
    let decoded = split
        .clone()
        .and_then(|f| f.map(frame::decode_request::<RequestBody>).transpose());
    let usage = region.usage();
    crate::check::note_usage(usage);
    check_alloc(usage, input.len(), 0, 0)?;
    if let Ok(Some(contents)) = &split {
        check_lenient(contents, input.len(), &decoded)?;
        check_frame_views(contents)?;
    }
    let (header, body) = match decoded {
        Err(e) => {
            check_offset(&e, input.len())?;
            return Ok(Outcome::Rejected);
        }
        Ok(None) => return Ok(Outcome::Rejected),
        Ok(Some(pair)) => pair,
    };
    let encode = |h: &RequestHeader, b: &_| {
        let mut wire = BytesMut::new();
        frame::encode_request(&mut wire, h, b).map(|()| wire)
    };
    let mut first = encode(&header, &body).map_err(|e| {
        Violation::new(
            Property::RoundTrip,
            format!("a decoded frame does not encode: {e}"),
        )
    })?;
    let snapshot = first.clone().freeze();
    let again = frame::split_frame(&mut first, DEFAULT_MAX_FRAME_SIZE)
        .and_then(|f| f.map(frame::decode_request::<RequestBody>).transpose());
    let (header2, body2) = match again {
        Ok(Some(pair)) => pair,
        other => {
            return Err(Violation::new(
                Property::RoundTrip,
                format!(
                    "the encoding does not read back: {other:?}; {}",
                    hex(&snapshot)
                ),
            ))
        }
    };
    if header2 != header || (is_reflexive(&body) && body2 != body) {
        return Err(Violation::new(
            Property::RoundTrip,
            format!("decoded {header:?} {body:?}\nread back {header2:?} {body2:?}"),
        ));
    }
    let second = encode(&header2, &body2).map_err(|e| {
        Violation::new(
            Property::RoundTrip,
            format!("re-read frame does not encode: {e}"),
        )
    })?;
    if second.freeze() != snapshot {
        return Err(Violation::new(
            Property::Reencode,
            "the frame encodes differently the second time",
        ));
    }
    Ok(Outcome::Decoded)
}
