//! Memory on hostile record batches that are valid, or nearly: small inputs whose records,
//! headers or codec headers claim far more than the input holds. For an input of `n` bytes and a
//! decompression limit `L`, reading through any public API must reserve at most
//! `L + 512 KiB + 256 n` bytes, whatever the counts and claims say, and a claim the bytes cannot
//! back must cost next to nothing.
//!
//! Measured with a counting global allocator (every byte ever requested, reallocations by their
//! growth: an upper bound of the peak). One test function only: the counters are process-wide,
//! so a second test running on another thread would blur them.
#![forbid(unsafe_code)]

use bytes::Bytes;
use kafka_wire::records::{
    compress, read_all, Compression, DecodeLimits, Record, RecordBatchBuilder, RecordsReader,
};
use kafka_wire::varint::put_varint;
use kafka_wire::ErrorKind;
use kafka_wire_tests::batches::{record, v2_batch};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// The bytes allocated while `f` runs.
fn allocated<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let region = Region::new(GLOBAL);
    let out = f();
    (out, region.change().bytes_allocated)
}

/// What reading through the views gave: (records, headers), or the first error.
type Walked = Result<(usize, usize), ErrorKind>;

/// Reads every record and header of `input` through the views.
fn walk(input: &Bytes, limits: DecodeLimits) -> Walked {
    let (mut records, mut headers) = (0, 0);
    for batch in RecordsReader::new(input.clone()).with_limits(limits) {
        let batch = batch.map_err(|e| e.kind().clone())?;
        for r in batch.records().map_err(|e| e.kind().clone())? {
            let r = r.map_err(|e| e.kind().clone())?;
            records += 1;
            for h in r.headers() {
                h.map_err(|e| e.kind().clone())?;
                headers += 1;
            }
        }
    }
    Ok((records, headers))
}

struct Report(Vec<String>);

impl Report {
    /// Checks one input read both ways against the bound, and what each gave.
    fn case(
        &mut self,
        name: &str,
        input: &[u8],
        limit: usize,
        views: &dyn Fn(&Walked) -> bool,
        owned: &dyn Fn(&Option<ErrorKind>) -> bool,
    ) {
        let limits = DecodeLimits {
            max_decompressed: limit,
        };
        let n = input.len();
        let bound = limit + 512 * KIB + 256 * n;
        let input = Bytes::copy_from_slice(input);
        let (walked, by_views) = allocated(|| walk(&input, limits));
        assert!(views(&walked), "{name}, L = {limit}: views gave {walked:?}");
        assert!(
            by_views <= bound,
            "{name}, L = {limit}: views allocated {by_views}, bound {bound}"
        );
        let (read, by_owned) = allocated(|| {
            read_all(input.clone(), limits)
                .err()
                .map(|e| e.kind().clone())
        });
        assert!(owned(&read), "{name}, L = {limit}: owned gave {read:?}");
        assert!(
            by_owned <= bound,
            "{name}, L = {limit}: owned allocated {by_owned}, bound {bound}"
        );
        self.0.push(format!(
            "{name} ({n} bytes, L = {} KiB): views {by_views} bytes, owned {by_owned} bytes, bound {bound}",
            limit / KIB
        ));
    }
}

#[test]
fn small_inputs_cannot_make_the_reader_reserve_more_than_the_bound() {
    let mut report = Report(Vec::new());
    for limit in [MIB, DecodeLimits::DEFAULT.max_decompressed] {
        // Many empty 7-byte records (length, attributes, deltas, null key and value, no
        // headers) in a small gzip batch that inflates to just under the limit. Owned records
        // would take 15 times the payload; the views hold the payload only.
        let empty = record(&[0, 0, 0, 1, 1, 0]);
        assert_eq!(empty.len(), 7);
        let count = (limit - 64 * KIB) / empty.len();
        let payload = empty.repeat(count);
        let gzip = compress(Compression::Gzip, 2, &payload).unwrap();
        let batch = v2_batch(count as i32, 1, &gzip, false);
        report.case(
            &format!("{count} empty records, gzip"),
            &batch,
            limit,
            &|r| *r == Ok((count, 0)),
            &|r| matches!(r, Some(ErrorKind::MemoryLimit { .. })),
        );

        // One record with as many empty headers (null value, empty key) as fit under the limit.
        // Owned headers would take 32 times the payload.
        let headers = (limit - 64 * KIB) / 2;
        let mut body = vec![0u8, 0, 0, 1, 1];
        put_varint(&mut body, headers as i32);
        body.extend_from_slice(&[0, 1].repeat(headers));
        let payload = record(&body);
        let gzip = compress(Compression::Gzip, 2, &payload).unwrap();
        let batch = v2_batch(1, 1, &gzip, false);
        report.case(
            &format!("1 record with {headers} empty headers, gzip"),
            &batch,
            limit,
            &|r| *r == Ok((1, headers)),
            &|r| matches!(r, Some(ErrorKind::MemoryLimit { .. })),
        );
    }

    for limit in [MIB, DecodeLimits::DEFAULT.max_decompressed] {
        let small = 16 * KIB;
        let refused = |r: &Walked| r.is_err();
        let refused_owned = |r: &Option<ErrorKind>| r.is_some();

        // A raw snappy block whose preamble claims 64 MiB, in a 69-byte batch.
        let mut block = Vec::new();
        let mut claim = 64 * MIB as u64;
        while claim >= 0x80 {
            block.push(claim as u8 | 0x80);
            claim >>= 7;
        }
        block.push(claim as u8);
        // A one-byte literal, then a copy of 11 bytes from one back: 12 bytes of output.
        block.extend_from_slice(&[0x00, b'a', 0x1d, 0x01]);
        let batch = v2_batch(1, 2, &block, false);
        assert_eq!(batch.len(), 69);
        let (read, cost) = allocated(|| walk(&Bytes::from(batch.clone()), limits(limit)));
        assert!(read.is_err(), "snappy claim, L = {limit}: {read:?}");
        assert!(cost < small, "snappy claim, L = {limit}: {cost} bytes");
        report.case(
            "snappy block claiming 64 MiB",
            &batch,
            limit,
            &refused,
            &refused_owned,
        );

        // The same claim inside xerial framing.
        let mut xerial = b"\x82SNAPPY\x00".to_vec();
        xerial.extend_from_slice(&1i32.to_be_bytes());
        xerial.extend_from_slice(&1i32.to_be_bytes());
        xerial.extend_from_slice(&(block.len() as i32).to_be_bytes());
        xerial.extend_from_slice(&block);
        let batch = v2_batch(1, 2, &xerial, false);
        let (_, cost) = allocated(|| walk(&Bytes::from(batch.clone()), limits(limit)));
        assert!(cost < small, "xerial claim, L = {limit}: {cost} bytes");
        report.case(
            "xerial block claiming 64 MiB",
            &batch,
            limit,
            &refused,
            &refused_owned,
        );

        // An LZ4 frame that declares 4 MiB blocks and a content size of 60 MiB, with one small
        // block: nothing is reserved from either claim.
        let mut frame = vec![0x04, 0x22, 0x4d, 0x18, 0x68, 0x70];
        frame.extend_from_slice(&(60 * MIB as u64).to_le_bytes());
        frame.push(lz4_header_checksum(&frame[4..]));
        let literal = [0x50, b'h', b'e', b'l', b'l', b'o'];
        frame.extend_from_slice(&(literal.len() as u32).to_le_bytes());
        frame.extend_from_slice(&literal);
        frame.extend_from_slice(&0u32.to_le_bytes());
        let batch = v2_batch(1, 3, &frame, false);
        let (read, cost) = allocated(|| walk(&Bytes::from(batch.clone()), limits(limit)));
        assert!(read.is_err(), "lz4 claim, L = {limit}: {read:?}");
        assert!(cost < small, "lz4 claim, L = {limit}: {cost} bytes");
        report.case(
            "lz4 frame claiming 60 MiB in 4 MiB blocks",
            &batch,
            limit,
            &refused,
            &refused_owned,
        );

        // An LZ4 frame of 4 MiB linked blocks whose one block claims to be 4 MiB long.
        let mut frame = vec![0x04, 0x22, 0x4d, 0x18, 0x40, 0x70];
        frame.push(lz4_header_checksum(&frame[4..]));
        frame.extend_from_slice(&(4 * MIB as u32).to_le_bytes());
        frame.extend_from_slice(&literal);
        let batch = v2_batch(1, 3, &frame, false);
        let (_, cost) = allocated(|| walk(&Bytes::from(batch.clone()), limits(limit)));
        assert!(cost < small, "lz4 block claim, L = {limit}: {cost} bytes");
        report.case(
            "lz4 block claiming 4 MiB",
            &batch,
            limit,
            &refused,
            &refused_owned,
        );

        // A zstd frame declaring a 64 MiB window (the limit, at the default) whose one RLE
        // block writes 100 bytes: the window is not reserved up front.
        let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x80];
        // Last block, RLE, 100 bytes of 'z'.
        let header = 1u32 | (1 << 1) | (100 << 3);
        frame.extend_from_slice(&header.to_le_bytes()[..3]);
        frame.push(b'z');
        let batch = v2_batch(0, 4, &frame, false);
        let (read, cost) = allocated(|| walk(&Bytes::from(batch.clone()), limits(limit)));
        if limit >= 64 * MIB {
            // 100 bytes of 'z' are not records: a well-formed frame, then a record error.
            assert!(read.is_err(), "zstd window, L = {limit}: {read:?}");
            assert!(cost < 2 * MIB, "zstd window, L = {limit}: {cost} bytes");
        } else {
            assert_eq!(
                read,
                Err(ErrorKind::DecompressionLimit { limit }),
                "zstd window over the limit"
            );
            assert!(cost < small, "zstd window, L = {limit}: {cost} bytes");
        }
        report.case(
            "zstd frame with a 64 MiB window",
            &batch,
            limit,
            &refused,
            &refused_owned,
        );
    }

    // Reading an uncompressed field through the views allocates nothing per record or header:
    // the same for 64 batches of 100 records with two headers each as for 64 batches of one
    // bare record.
    let field = |records: usize, headers: usize| {
        let mut out = Vec::new();
        for b in 0..64 {
            let batch = RecordBatchBuilder::new()
                .base_offset(b * 1000)
                .records((0..records).map(|i| {
                    let mut r = Record::new(
                        Some(vec![b as u8; 16].into()),
                        Some(vec![i as u8; 100].into()),
                    )
                    .with_timestamp(1_700_000_000_000 + i as i64);
                    for h in 0..headers {
                        r = r.with_header(format!("h{h}"), Some(vec![7u8; 16].into()));
                    }
                    r
                }));
            out.extend_from_slice(batch.encode().unwrap().as_bytes());
        }
        Bytes::from(out)
    };
    let allocations = |input: Bytes| {
        let region = Region::new(GLOBAL);
        let read = walk(&input, DecodeLimits::default());
        let stats = region.change();
        (
            read,
            stats.allocations + stats.reallocations,
            stats.bytes_allocated,
        )
    };
    let (read, big_count, big_bytes) = allocations(field(100, 2));
    assert_eq!(read, Ok((6400, 12800)));
    let (read, small_count, small_bytes) = allocations(field(1, 0));
    assert_eq!(read, Ok((64, 0)));
    assert_eq!((big_count, big_bytes), (small_count, small_bytes));
    report.0.push(format!(
        "allocations reading 64 uncompressed batches: {big_count} ({big_bytes} bytes) for 6400 records with 12800 headers, {small_count} for 64 records"
    ));

    for line in &report.0 {
        println!("{line}");
    }
}

fn limits(limit: usize) -> DecodeLimits {
    DecodeLimits {
        max_decompressed: limit,
    }
}

/// The LZ4 frame header checksum: the second byte of the xxh32 of the descriptor, computed here
/// by a plain implementation of xxh32 for short inputs.
fn lz4_header_checksum(descriptor: &[u8]) -> u8 {
    (xxh32(descriptor, 0) >> 8) as u8
}

/// xxh32 for inputs under 16 bytes (the only ones a frame descriptor has).
fn xxh32(input: &[u8], seed: u32) -> u32 {
    const P1: u32 = 2_654_435_761;
    const P2: u32 = 2_246_822_519;
    const P3: u32 = 3_266_489_917;
    const P4: u32 = 668_265_263;
    const P5: u32 = 374_761_393;
    assert!(input.len() < 16);
    let mut h = seed.wrapping_add(P5).wrapping_add(input.len() as u32);
    let mut chunks = input.chunks_exact(4);
    for c in chunks.by_ref() {
        let v = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        h = h
            .wrapping_add(v.wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
    }
    for &b in chunks.remainder() {
        h = h
            .wrapping_add(u32::from(b).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^ (h >> 16)
}
