//! Hostile record batches: each is a typed error, and reading it allocates little, measured with a
//! counting global allocator.
//!
//! One test function only: the counters are process-wide, so a second test running on another
//! thread would blur them.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::records::{
    compress, Compression, DecodeLimits, Record, RecordBatchBuilder, RecordsError, RecordsReader,
};
use kafka_wire::varint::put_varint;
use kafka_wire::ErrorKind;
use kafka_wire_tests::batches::{body_with_header_count, legacy_wrapper, record, v2_batch};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The first error met reading `input` through the views: every batch, record and header.
fn first_error(input: Bytes, limits: DecodeLimits) -> Option<RecordsError> {
    for batch in RecordsReader::new(input).with_limits(limits) {
        let batch = match batch {
            Ok(batch) => batch,
            Err(e) => return Some(e),
        };
        let records = match batch.records() {
            Ok(records) => records,
            Err(e) => return Some(e),
        };
        for record in records {
            let record = match record {
                Ok(record) => record,
                Err(e) => return Some(e),
            };
            if let Some(Err(e)) = record.headers().find(Result::is_err) {
                return Some(e);
            }
        }
    }
    None
}

/// Reads `input` through the views and returns the kind of the first error and the bytes
/// allocated: every allocation plus every growth by reallocation, an upper bound of the peak.
/// The owned form must meet the same error.
fn read(input: &[u8], limits: DecodeLimits) -> (Option<ErrorKind>, usize) {
    let input = Bytes::copy_from_slice(input);
    let region = Region::new(GLOBAL);
    let error = first_error(input.clone(), limits);
    let stats = region.change();
    // stats_alloc already adds what a reallocation grows by to `bytes_allocated`
    // (`bytes_reallocated` repeats it): this is every byte ever requested, an upper bound on
    // the peak.
    let allocated = stats.bytes_allocated;
    let kind = error.map(|e| e.kind().clone());
    let owned = RecordsReader::new(input)
        .with_limits(limits)
        .into_owned()
        .find_map(Result::err)
        .map(|e| e.kind().clone());
    assert_eq!(owned, kind, "the owned form meets the same error");
    (kind, allocated)
}

#[test]
fn hostile_batches_are_typed_errors_and_allocate_little() {
    const KIB: usize = 1024;
    let small = DecodeLimits::default();
    let mut report = Vec::new();
    let mut check = |name: &str,
                     input: &[u8],
                     limits: DecodeLimits,
                     bound: usize,
                     want: &dyn Fn(&ErrorKind) -> bool| {
        let (kind, allocated) = read(input, limits);
        let kind = kind.unwrap_or_else(|| panic!("{name}: no error"));
        assert!(want(&kind), "{name}: {kind:?}");
        assert!(
            allocated < bound,
            "{name}: {allocated} bytes allocated, bound {bound}"
        );
        report.push(format!("{name}: {allocated} bytes ({kind})"));
    };

    // 2^31-1 records declared in an 85-byte batch.
    let one = record(&body_with_header_count(0, &[]));
    let mut payload = one.clone();
    payload.resize(24, 0);
    let batch = v2_batch(i32::MAX, 0, &payload, false);
    assert_eq!(batch.len(), 85);
    check("record count 2^31-1", &batch, small, 4 * KIB, &|k| {
        matches!(
            k,
            ErrorKind::CountExceedsRemaining {
                count: 2147483647,
                remaining: 24
            }
        )
    });
    // 2^31-1 headers in one record.
    let mut body = body_with_header_count(i32::MAX, &[]);
    body.resize(17, 0);
    let batch = v2_batch(1, 0, &record(&body), false);
    assert_eq!(batch.len(), 79);
    check("header count 2^31-1", &batch, small, 4 * KIB, &|k| {
        matches!(
            k,
            ErrorKind::CountExceedsRemaining {
                count: 2147483647,
                ..
            }
        )
    });
    // Negative counts.
    check(
        "record count -1",
        &v2_batch(-1, 0, &one, false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::NegativeLength { length: -1 }),
    );
    let batch = v2_batch(1, 0, &record(&body_with_header_count(-5, &[])), false);
    check("header count -5", &batch, small, 4 * KIB, &|k| {
        matches!(k, ErrorKind::NegativeLength { length: -5 })
    });
    // A bad CRC.
    check(
        "bad CRC",
        &v2_batch(1, 0, &one, true),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::CrcMismatch { .. }),
    );
    // A key length past the end of its record.
    let mut body = vec![0u8, 0, 0];
    put_varint(&mut body, 1000);
    body.extend_from_slice(b"short");
    check(
        "key length past the end",
        &v2_batch(1, 0, &record(&body), false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::LengthExceedsRemaining { length: 1000, .. }),
    );
    // A record length past the end of the batch.
    let mut payload = Vec::new();
    put_varint(&mut payload, 500);
    payload.extend_from_slice(&[0; 10]);
    check(
        "record length past the end",
        &v2_batch(1, 0, &payload, false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::LengthExceedsRemaining { length: 500, .. }),
    );
    // Truncated varints: cut at the end of the record, too long, too wide.
    let body = [0u8, 0, 0, 0x04, b'a', b'b', 0x80, 0x80];
    check(
        "truncated varint",
        &v2_batch(1, 0, &record(&body), false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::UnexpectedEof { .. }),
    );
    let body = [0u8, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0];
    check(
        "varint of 6 bytes",
        &v2_batch(1, 0, &record(&body), false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::VarintTooLong),
    );
    let body = [0u8, 0, 0xff, 0xff, 0xff, 0xff, 0x7f];
    check(
        "varint over 32 bits",
        &v2_batch(1, 0, &record(&body), false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::VarintOverflow),
    );
    let body = [
        0u8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0,
    ];
    check(
        "varlong of 11 bytes",
        &v2_batch(1, 0, &record(&body), false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::VarintTooLong),
    );
    // A batch size field below the header.
    let mut batch = v2_batch(1, 0, &one, false);
    batch[8..12].copy_from_slice(&20i32.to_be_bytes());
    check("batch size 20", &batch, small, 4 * KIB, &|k| {
        matches!(k, ErrorKind::BatchTooSmall { size: 20, .. })
    });
    // Codec bits 5, and an unknown magic.
    check(
        "codec 5",
        &v2_batch(1, 5, &one, false),
        small,
        4 * KIB,
        &|k| matches!(k, ErrorKind::UnsupportedCompression { codec: 5 }),
    );
    let mut batch = v2_batch(1, 0, &one, false);
    batch[16] = 3;
    check("magic 3", &batch, small, 4 * KIB, &|k| {
        matches!(k, ErrorKind::UnsupportedMagic { magic: 3 })
    });
    // A legacy message claiming more than it has is a truncated tail, not an error.
    let mut message = legacy_wrapper(0, b"v");
    message[8..12].copy_from_slice(&i32::MAX.to_be_bytes());
    let mut reader = RecordsReader::new(Bytes::from(message));
    assert!(reader.next().is_none());
    assert_eq!(
        reader.truncated_tail().unwrap().needed,
        Some(i32::MAX as usize + 12)
    );

    // Bombs: 100 MiB of zeros in every codec, against a 1 MiB limit.
    let limit = 1 << 20;
    let limits = DecodeLimits {
        max_decompressed: limit,
    };
    let zeros = vec![0u8; 100 << 20];
    for compression in [
        Compression::Gzip,
        Compression::Snappy,
        Compression::Lz4,
        Compression::Zstd,
    ] {
        let bomb = compress(compression, 2, &zeros).unwrap();
        let batch = v2_batch(1, i16::from(compression.bits()), &bomb, false);
        let name = format!("{compression} bomb of 100 MiB, magic 2");
        // The output may take the whole limit; beyond it only the decoder's own state is
        // allowed (gzip's window, lz4's block buffers, zstd's window and tables).
        let bound = limit + 512 * KIB;
        check(&name, &batch, limits, bound, &|k| {
            matches!(k, ErrorKind::DecompressionLimit { limit: 1048576 })
        });
        if compression != Compression::Zstd {
            let wrapper = legacy_wrapper(compression.bits(), &bomb);
            let name = format!("{compression} bomb of 100 MiB, magic 1");
            check(&name, &wrapper, limits, bound, &|k| {
                matches!(k, ErrorKind::DecompressionLimit { .. })
            });
        }
    }
    drop(zeros);
    // A smaller gzip bomb under a limit it fits in decodes to its zero-filled records section,
    // which is then refused as records (a record of length 0 has no attributes byte).
    let bomb = compress(Compression::Gzip, 2, &vec![0u8; 4 << 20]).unwrap();
    let batch = v2_batch(1, 1, &bomb, false);
    check(
        "gzip of 4 MiB under an 8 MiB limit",
        &batch,
        DecodeLimits {
            max_decompressed: 8 << 20,
        },
        (4 << 20) + 512 * KIB,
        &|k| {
            matches!(
                k,
                ErrorKind::UnexpectedEof {
                    needed: 1,
                    available: 0
                }
            )
        },
    );

    // Every prefix of a valid compressed batch: an error or a truncated tail, never a panic.
    let valid = RecordBatchBuilder::new()
        .compression(Compression::Lz4)
        .record(Record::new(Some("k".into()), Some("v".repeat(300).into())))
        .encode()
        .unwrap()
        .into_bytes();
    for cut in 0..valid.len() {
        let (_, allocated) = read(&valid[..cut], small);
        assert!(allocated < 64 * KIB, "prefix {cut}: {allocated}");
    }
    for line in &report {
        println!("{line}");
    }
}
