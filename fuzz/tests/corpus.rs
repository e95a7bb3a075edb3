//! Replays the regression corpus `tests/corpus/<target>/`: every stored input must keep every
//! property, every line of `valid.hex` must decode, and the known reproducers must be refused
//! with a typed error while allocating little.
//!
//! One test function only: the allocation counters are per thread, but the known-reproducer
//! checks read them right after each input, so keeping one flow keeps that simple.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::messages::{MetadataResponse, WriteTxnMarkersRequest};
use kafka_wire::records::{DecodeLimits, RecordsReader};
use kafka_wire::{Decode, ErrorKind};
use kafka_wire_fuzz::campaign;
use kafka_wire_fuzz::check::{hex, last_usage, Outcome};
use kafka_wire_fuzz::targets::{Kind, Subject, Target};
use std::collections::BTreeSet;

#[test]
fn corpus_replays_clean() {
    let dir = kafka_wire_fuzz::default_corpus_dir();
    let mut failures = Vec::new();
    let mut inputs = 0;
    let mut covered = BTreeSet::new();
    for target in Target::every() {
        let stored = campaign::load(&dir, &target).expect("corpus is readable");
        assert!(
            !stored.valid.is_empty(),
            "{target}: no valid inputs in the corpus (run with --write-valid)"
        );
        for (path, input) in &stored.reproducers {
            inputs += 1;
            if let Err(v) = target.run(input) {
                failures.push(format!("{target} {}: {v}", path.display()));
            }
        }
        for input in &stored.valid {
            inputs += 1;
            match target.run(input) {
                Ok(Outcome::Decoded) => {}
                other => failures.push(format!("{target} valid {}: {other:?}", hex(input))),
            }
            if target.kind == Kind::All {
                covered.insert(Subject::from_prefix(input).map(|(s, v)| (s.name(), v)));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {inputs} inputs fail:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // The `all` target holds one valid input for every message at every version.
    let mut every = BTreeSet::new();
    for subject in Subject::every() {
        let range = subject.versions();
        if let (Some(lo), Some(hi)) = (range.start(), range.end()) {
            every.extend((lo..=hi).map(|v| Some((subject.name(), v))));
        }
    }
    let missing: Vec<_> = every.difference(&covered).collect();
    assert!(missing.is_empty(), "no valid input for {missing:?}");

    known_reproducers(&dir);
}

/// Each known reproducer is in the corpus, replays clean, and is a typed error reached with
/// less than 4 KiB allocated.
fn known_reproducers(dir: &std::path::Path) {
    let cases = [
        (
            "write_txn_markers_request_v1",
            "forged-marker-count.bin",
            "ffffffff0f",
        ),
        (
            "metadata_response_v13",
            "forged-broker-count.bin",
            "00000000ffffffff0f",
        ),
        ("records_none", "forged-record-count.bin", ""),
    ];
    for (name, file, hex_form) in cases {
        let target = Target::by_name(name).expect("target exists");
        let input = std::fs::read(dir.join(name).join(file)).expect("reproducer is stored");
        if !hex_form.is_empty() {
            assert_eq!(hex(&input), hex_form, "{name}/{file}");
        }
        assert_eq!(target.run(&input), Ok(Outcome::Rejected), "{name}/{file}");
        let usage = last_usage();
        assert!(
            usage.total < 4096 && usage.largest < 4096,
            "{name}/{file}: {usage:?} allocated"
        );
    }

    // The counter does count: a valid batch of records allocates for its records.
    let target = Target::by_name("records_none").expect("target exists");
    let valid = campaign::load(dir, &target)
        .expect("corpus is readable")
        .valid;
    let batch = valid.iter().max_by_key(|v| v.len()).expect("a valid batch");
    assert_eq!(target.run(batch), Ok(Outcome::Decoded));
    assert!(
        last_usage().total > 0 && last_usage().largest > 0,
        "{:?}",
        last_usage()
    );

    // The errors are the typed ones, placed inside the input.
    let err = WriteTxnMarkersRequest::decode_exact(Bytes::from_static(b"\xff\xff\xff\xff\x0f"), 1)
        .expect_err("a forged count is refused");
    assert!(
        matches!(err.kind(), ErrorKind::CountExceedsRemaining { .. }),
        "{err}"
    );
    assert_eq!(err.offset(), Some(0), "{err}");

    let err =
        MetadataResponse::decode_exact(Bytes::from_static(b"\0\0\0\0\xff\xff\xff\xff\x0f"), 13)
            .expect_err("a forged count is refused");
    assert!(
        matches!(err.kind(), ErrorKind::CountExceedsRemaining { .. }),
        "{err}"
    );
    assert_eq!(err.offset(), Some(4), "{err}");

    let batch = std::fs::read(dir.join("records_none/forged-record-count.bin")).expect("stored");
    assert_eq!(
        &batch[57..61],
        &i32::MAX.to_be_bytes(),
        "the count field holds 2^31-1"
    );
    let err = RecordsReader::new(Bytes::from(batch))
        .with_limits(DecodeLimits::default())
        .next()
        .expect("one item")
        .expect_err("a forged record count is refused");
    assert!(
        matches!(err.kind(), ErrorKind::CountExceedsRemaining { .. }),
        "{err}"
    );
    assert_eq!(err.offset(), Some(57), "{err}");
}
