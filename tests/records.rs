//! Record batches against kafka-python's and kio's bytes (`tests/golden/records.json`), and round
//! trips of the builder through every codec and magic.
#![forbid(unsafe_code)]

use bytes::{Bytes, BytesMut};
use kafka_wire::records::{
    decompress, BatchHeader, Compression, ControlRecordType, DecodeLimits, Header, Record,
    RecordBatch, RecordBatchBuilder, RecordsReader, TimestampType, Truncated, TxnMarker,
};
use kafka_wire_tests::{from_hex, to_hex};
use serde_json::Value;

const GOLDEN: &str = include_str!("golden/records.json");

fn cases() -> Vec<Value> {
    let all: Value = serde_json::from_str(GOLDEN).expect("golden file is JSON");
    all.as_array().expect("a list of cases").clone()
}

fn opt_bytes(v: &Value) -> Option<Bytes> {
    v.as_str().map(|h| Bytes::from(from_hex(h)))
}

fn int(v: &Value) -> i64 {
    v.as_i64().expect("an integer")
}

/// The batch the JSON describes, field by field.
fn expected_batch(v: &Value) -> RecordBatch {
    let records = v["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| Record {
            offset: int(&r["offset"]),
            timestamp: int(&r["timestamp"]),
            key: opt_bytes(&r["key"]),
            value: opt_bytes(&r["value"]),
            headers: r["headers"]
                .as_array()
                .expect("headers")
                .iter()
                .map(|h| Header::new(h[0].as_str().expect("key").to_owned(), opt_bytes(&h[1])))
                .collect(),
        })
        .collect();
    let header = BatchHeader {
        base_offset: int(&v["base_offset"]),
        partition_leader_epoch: int(&v["partition_leader_epoch"]) as i32,
        magic: int(&v["magic"]) as i8,
        compression: Compression::from_bits(int(&v["compression"]) as u8).expect("codec"),
        timestamp_type: if int(&v["timestamp_type"]) == 1 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        },
        is_transactional: v["is_transactional"].as_bool().expect("flag"),
        is_control: v["is_control"].as_bool().expect("flag"),
        has_delete_horizon: false,
        last_offset_delta: int(&v["last_offset_delta"]) as i32,
        base_timestamp: int(&v["base_timestamp"]),
        max_timestamp: int(&v["max_timestamp"]),
        producer_id: int(&v["producer_id"]),
        producer_epoch: int(&v["producer_epoch"]) as i16,
        base_sequence: int(&v["base_sequence"]) as i32,
    };
    RecordBatch { header, records }
}

fn expected_batches(case: &Value) -> Vec<RecordBatch> {
    case["batches"]
        .as_array()
        .expect("batches")
        .iter()
        .map(expected_batch)
        .collect()
}

fn label(case: &Value) -> String {
    format!(
        "`{}` ({})",
        case["case"].as_str().unwrap_or_default(),
        case["source"].as_str().unwrap_or_default()
    )
}

/// The compressed payload of one encoded batch: after the 61-byte header for magic 2, the
/// wrapper's value for magic 0 and 1 (a null key is assumed, as every writer here uses).
fn compressed_payload(batch: &[u8]) -> &[u8] {
    match batch[16] {
        2 => &batch[61..],
        0 => &batch[26..],
        _ => &batch[34..],
    }
}

/// The batches of `input` read through the views, each record and header copied out by hand,
/// as a consumer iterating the views sees them.
fn through_views(input: Bytes) -> (Vec<RecordBatch>, Option<Truncated>) {
    let mut reader = RecordsReader::new(input);
    let mut batches = Vec::new();
    for view in reader.by_ref() {
        let view = view.expect("the batch reads");
        let mut records = Vec::new();
        for record in view.records().expect("the records read") {
            let record = record.expect("the record reads");
            let headers = record
                .headers()
                .map(|h| h.map(|h| Header::new(h.key().to_owned(), h.value_bytes())))
                .collect::<Result<_, _>>()
                .expect("the headers read");
            records.push(Record {
                offset: record.offset(),
                timestamp: record.timestamp(),
                key: record.key().map(Bytes::copy_from_slice),
                value: record.value().map(Bytes::copy_from_slice),
                headers,
            });
        }
        batches.push(RecordBatch {
            header: view.header,
            records,
        });
    }
    (batches, reader.truncated_tail())
}

#[test]
fn golden_batches_decode_to_the_recorded_values() {
    let mut checked = 0;
    for case in cases() {
        let input = Bytes::from(from_hex(case["hex"].as_str().expect("hex")));
        let truncated = case["truncated"].as_object().map(|t| Truncated {
            offset: t["offset"].as_u64().expect("offset") as usize,
            available: t["available"].as_u64().expect("available") as usize,
            needed: t["needed"].as_u64().map(|n| n as usize),
        });
        // The owned form.
        let mut owned = RecordsReader::new(input.clone()).into_owned();
        let got: Vec<RecordBatch> = owned
            .by_ref()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("{}: {e}", label(&case)));
        assert_eq!(got, expected_batches(&case), "{}", label(&case));
        assert_eq!(owned.truncated_tail(), truncated, "{}", label(&case));
        // The views.
        let (viewed, tail) = through_views(input);
        assert_eq!(viewed, expected_batches(&case), "{} (views)", label(&case));
        assert_eq!(tail, truncated, "{} (views)", label(&case));
        checked += 1;
    }
    assert_eq!(checked, 21);
}

#[test]
fn uncompressed_golden_batches_encode_byte_for_byte() {
    let mut exact = 0;
    for case in cases() {
        let batches = expected_batches(&case);
        if !case["truncated"].is_null()
            || batches
                .iter()
                .any(|b| b.header.compression != Compression::None)
        {
            continue;
        }
        let mut out = BytesMut::new();
        for batch in &batches {
            batch.encode_into(&mut out).expect("encodes");
        }
        assert_eq!(
            to_hex(&out),
            case["hex"].as_str().unwrap(),
            "{}",
            label(&case)
        );
        exact += 1;
    }
    // v2 (2), magic 0 and 1 (1 each), the two control batches.
    assert_eq!(exact, 6);
}

#[test]
fn compressed_golden_batches_match_payloads_and_round_trip() {
    let limits = DecodeLimits::default();
    let mut compressed = 0;
    for case in cases() {
        let Some(payload) = case["payload"].as_str().map(from_hex) else {
            continue;
        };
        let bytes = from_hex(case["hex"].as_str().unwrap());
        let [batch] = &expected_batches(&case)[..] else {
            panic!("{}: one batch", label(&case));
        };
        // Our decompression of kafka-python's payload gives kafka-python's decompression.
        let ours = decompress(
            batch.header.compression,
            batch.header.magic,
            compressed_payload(&bytes),
            &limits,
        )
        .unwrap_or_else(|e| panic!("{}: {e}", label(&case)));
        assert_eq!(ours, payload, "{}", label(&case));
        // Our encoding with the same codec decompresses to the same payload and decodes to
        // the same batch.
        let encoded = batch.encode().expect("encodes").into_bytes();
        let ours = decompress(
            batch.header.compression,
            batch.header.magic,
            compressed_payload(&encoded),
            &limits,
        )
        .unwrap();
        assert_eq!(ours, payload, "{}: our payload", label(&case));
        let back: Vec<_> = RecordsReader::new(encoded)
            .into_owned()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(back, std::slice::from_ref(batch), "{}", label(&case));
        compressed += 1;
    }
    // Magic 2: 4 codecs and the transactional gzip batch; magic 0 and 1: 3 codecs each.
    assert_eq!(compressed, 11);
}

#[test]
fn control_batches_are_written_like_kafka_writes_them() {
    for (commit, epoch, name) in [(true, 17, "COMMIT"), (false, 5, "ABORT")] {
        let case = cases()
            .into_iter()
            .find(|c| c["case"] == format!("control batch: {name} marker"))
            .expect("case");
        let marker = TxnMarker {
            commit,
            coordinator_epoch: epoch,
        };
        let batch = marker.batch(8000, 1_700_000_123_000, 4, 424242, 9);
        let bytes = batch.encode().unwrap().into_bytes();
        assert_eq!(to_hex(&bytes), case["hex"].as_str().unwrap(), "{name}");

        let read = RecordsReader::new(bytes).next().unwrap().unwrap();
        let control = read.control_record().expect("a control batch").unwrap();
        let kind = if commit {
            ControlRecordType::Commit
        } else {
            ControlRecordType::Abort
        };
        assert_eq!((control.version, control.kind), (0, kind));
        assert_eq!(control.marker, Some(marker));
    }
}

fn sample_records(with_headers: bool) -> Vec<Record> {
    let long = Bytes::from("round trip value ".repeat(40));
    let mut records = vec![
        Record::new(Some("k0".into()), Some(long.clone())).with_timestamp(1_600_000_000_000),
        Record::new(None, None).with_timestamp(1_600_000_000_900),
        Record::new(Some(Bytes::new()), Some(Bytes::new())).with_timestamp(1_500_000_000_000),
        Record::new(Some("k3".into()), Some(long)).with_timestamp(1_600_000_000_001),
    ];
    if with_headers {
        records[0] = records[0]
            .clone()
            .with_header("a", Some("1".into()))
            .with_header("b", None);
        records[3] = records[3].clone().with_header("", Some(Bytes::new()));
    }
    records
}

#[test]
fn builder_round_trips_every_codec_and_magic() {
    let codecs = [
        Compression::None,
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ];
    for magic in [0i8, 1, 2] {
        for compression in codecs {
            if magic < 2 && compression == Compression::Zstd {
                continue;
            }
            let builder = RecordBatchBuilder::new()
                .magic(magic)
                .base_offset(77)
                .compression(compression)
                .records(sample_records(magic == 2));
            let built = builder.clone().build();
            // Written record by record as a producer does, and written from the built batch's
            // fields: the same bytes.
            let bytes = builder.encode().unwrap().into_bytes();
            assert_eq!(
                bytes,
                built.encode().unwrap().into_bytes(),
                "magic {magic} {compression}"
            );
            let back: Vec<RecordBatch> = RecordsReader::new(bytes)
                .into_owned()
                .collect::<Result<_, _>>()
                .unwrap();
            if magic < 2 && compression == Compression::None {
                // One message per record.
                let records: Vec<Record> = back.into_iter().flat_map(|b| b.records).collect();
                assert_eq!(records, built.records, "magic {magic}");
            } else {
                assert_eq!(back, [built], "magic {magic} {compression}");
            }
        }
    }
}

#[test]
fn transactional_idempotent_batches_round_trip() {
    let built = RecordBatchBuilder::new()
        .producer(1234, 5, 2_147_483_000)
        .transactional(true)
        .partition_leader_epoch(3)
        .compression(Compression::Zstd)
        .records(sample_records(true))
        .build();
    let back = RecordsReader::new(built.encode().unwrap().into_bytes())
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(back.to_record_batch().unwrap(), built);
    assert!(back.control_record().is_none());
}
