//! Magic 2 record batches: the 61-byte header, CRC-32C, and varint-framed records.

use super::checksum::crc32c;
use super::compression::{compress, decompress};
use super::cursor::Cursor;
use super::{
    Compression, DecodeLimits, Header, Record, RecordBatch, RecordsError, RecordsErrorKind,
    TimestampType,
};
use crate::varint::{put_varint, put_varlong, varint_len, varlong_len};
use crate::KafkaString;
use alloc::vec::Vec;
use bytes::Bytes;

/// Bytes from the start of a batch to the end of its header.
pub(crate) const HEADER_LEN: usize = 61;
/// Where the CRC-covered part begins (the attributes).
const CRC_START: usize = 21;
/// Bytes before the batch-length field counts from (base offset and the length itself).
const LOG_OVERHEAD: usize = 12;
/// The smallest record: length, attributes, timestamp delta, offset delta, key length, value
/// length and header count, one byte each.
const MIN_RECORD: usize = 7;
/// The smallest header: key length and value length.
const MIN_HEADER: usize = 2;

/// Decodes the batch that fills `batch` exactly; `at` is its offset in the input.
pub(crate) fn decode(
    batch: Bytes,
    at: usize,
    limits: &DecodeLimits,
) -> Result<RecordBatch, RecordsError> {
    let mut c = Cursor::new(batch.clone(), at);
    let base_offset = c.i64()?;
    let size_at = c.pos();
    let size = c.i32()?;
    if usize::try_from(size).map_or(true, |s| s < HEADER_LEN - LOG_OVERHEAD) {
        return Err(RecordsError::new(RecordsErrorKind::BatchTooSmall {
            size: size.into(),
            min: HEADER_LEN - LOG_OVERHEAD,
        })
        .at(size_at));
    }
    let partition_leader_epoch = c.i32()?;
    let magic = c.i8()?;
    let crc = c.u32()?;
    let actual = crc32c(batch.get(CRC_START..).unwrap_or_default());
    if actual != crc {
        return Err(RecordsError::new(RecordsErrorKind::CrcMismatch {
            expected: crc,
            actual,
        })
        .at(at.saturating_add(CRC_START - 4)));
    }
    let attributes_at = c.pos();
    let attributes = c.i16()?;
    let codec = (attributes & 0x07) as u8;
    let compression = Compression::from_bits(codec).ok_or_else(|| {
        RecordsError::new(RecordsErrorKind::UnsupportedCompression { codec }).at(attributes_at)
    })?;
    let last_offset_delta = c.i32()?;
    let base_timestamp = c.i64()?;
    let max_timestamp = c.i64()?;
    let producer_id = c.i64()?;
    let producer_epoch = c.i16()?;
    let base_sequence = c.i32()?;
    let count_at = c.pos();
    let count = c.i32()?;
    let mut out = RecordBatch {
        base_offset,
        partition_leader_epoch,
        magic,
        compression,
        timestamp_type: if attributes & 0x08 != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        },
        is_transactional: attributes & 0x10 != 0,
        is_control: attributes & 0x20 != 0,
        has_delete_horizon: attributes & 0x40 != 0,
        last_offset_delta,
        base_timestamp,
        max_timestamp,
        producer_id,
        producer_epoch,
        base_sequence,
        records: Vec::new(),
    };
    let payload_at = c.pos();
    let payload = c.rest();
    out.records = if compression == Compression::None {
        read_records(&out, Cursor::new(payload, payload_at), count, count_at)?
    } else {
        let plain =
            decompress(compression, magic, &payload, limits).map_err(|e| e.at(payload_at))?;
        read_records(&out, Cursor::new(Bytes::from(plain), 0), count, count_at)
            .map_err(|e| e.decompressed(payload_at))?
    };
    Ok(out)
}

fn read_records(
    batch: &RecordBatch,
    mut c: Cursor,
    count: i32,
    count_at: usize,
) -> Result<Vec<Record>, RecordsError> {
    let Ok(count) = usize::try_from(count) else {
        return Err(RecordsError::new(RecordsErrorKind::NegativeLength {
            length: count.into(),
        })
        .at(count_at));
    };
    let most = c.remaining() / MIN_RECORD;
    if count > most {
        // For a compressed batch the offset is that of the count field in the input.
        return Err(RecordsError::new(RecordsErrorKind::CountExceedsRemaining {
            count: count as i64,
            remaining: c.remaining(),
        })
        .at(count_at));
    }
    let mut records = Vec::with_capacity(count);
    for index in 0..count {
        records.push(read_record(batch, &mut c).map_err(|e| e.in_record(index))?);
    }
    if c.remaining() != 0 {
        return Err(c.error(RecordsErrorKind::TrailingBytes {
            count: c.remaining(),
        }));
    }
    Ok(records)
}

fn read_record(batch: &RecordBatch, c: &mut Cursor) -> Result<Record, RecordsError> {
    let length_at = c.pos();
    let length = c.varint()?;
    let declared = usize::try_from(length).map_err(|_| {
        RecordsError::new(RecordsErrorKind::NegativeLength {
            length: length.into(),
        })
        .at(length_at)
    })?;
    if declared > c.remaining() {
        return Err(RecordsError::new(RecordsErrorKind::LengthExceedsRemaining {
            length: length.into(),
            remaining: c.remaining(),
        })
        .at(length_at));
    }
    let body_at = c.pos();
    let mut r = Cursor::new(c.take(declared)?, body_at);
    let _attributes = r.i8()?;
    let timestamp_delta = r.varlong()?;
    let offset_delta_at = r.pos();
    let offset_delta = r.varint()?;
    let key = r.varint_bytes()?;
    let value = r.varint_bytes()?;
    let count_at = r.pos();
    let count = r.varint()?;
    let count = usize::try_from(count).map_err(|_| {
        RecordsError::new(RecordsErrorKind::NegativeLength {
            length: count.into(),
        })
        .at(count_at)
    })?;
    if count > r.remaining() / MIN_HEADER {
        return Err(RecordsError::new(RecordsErrorKind::CountExceedsRemaining {
            count: count as i64,
            remaining: r.remaining(),
        })
        .at(count_at));
    }
    let mut headers = Vec::with_capacity(count);
    for _ in 0..count {
        let key_at = r.pos();
        let key = r.varint_bytes()?.ok_or_else(|| {
            RecordsError::new(RecordsErrorKind::NegativeLength { length: -1 }).at(key_at)
        })?;
        let key = KafkaString::from_utf8(key)
            .map_err(|_| RecordsError::new(RecordsErrorKind::InvalidUtf8).at(key_at))?;
        let value = r.varint_bytes()?;
        headers.push(Header { key, value });
    }
    if r.remaining() != 0 {
        return Err(RecordsError::new(RecordsErrorKind::RecordSizeMismatch {
            declared,
            used: declared.saturating_sub(r.remaining()),
        })
        .at(length_at));
    }
    let offset = batch
        .base_offset
        .checked_add(offset_delta.into())
        .ok_or_else(|| RecordsError::new(RecordsErrorKind::OffsetOverflow).at(offset_delta_at))?;
    let timestamp = match batch.timestamp_type {
        TimestampType::LogAppendTime => batch.max_timestamp,
        TimestampType::CreateTime => batch
            .base_timestamp
            .checked_add(timestamp_delta)
            .ok_or_else(|| RecordsError::new(RecordsErrorKind::TimestampOverflow).at(body_at))?,
    };
    Ok(Record {
        offset,
        timestamp,
        key,
        value,
        headers,
    })
}

/// Appends the batch as its fields say; offsets and timestamps are written as deltas from the
/// batch's base values.
pub(crate) fn encode(batch: &RecordBatch, out: &mut Vec<u8>) -> Result<(), RecordsError> {
    let count = to_i32(batch.records.len())?;
    let mut payload = Vec::new();
    let mut body = Vec::new();
    for (index, record) in batch.records.iter().enumerate() {
        body.clear();
        write_record(batch, record, &mut body).map_err(|e| e.in_record(index))?;
        put_varint(&mut payload, to_i32(body.len())?);
        payload.extend_from_slice(&body);
    }
    if batch.compression != Compression::None {
        payload = compress(batch.compression, batch.magic, &payload)?;
    }
    let size = to_i32((HEADER_LEN - LOG_OVERHEAD).saturating_add(payload.len()))?;
    let start = out.len();
    out.reserve(HEADER_LEN.saturating_add(payload.len()));
    out.extend_from_slice(&batch.base_offset.to_be_bytes());
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(&batch.partition_leader_epoch.to_be_bytes());
    out.push(2);
    let crc_at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&batch.attributes().to_be_bytes());
    out.extend_from_slice(&batch.last_offset_delta.to_be_bytes());
    out.extend_from_slice(&batch.base_timestamp.to_be_bytes());
    out.extend_from_slice(&batch.max_timestamp.to_be_bytes());
    out.extend_from_slice(&batch.producer_id.to_be_bytes());
    out.extend_from_slice(&batch.producer_epoch.to_be_bytes());
    out.extend_from_slice(&batch.base_sequence.to_be_bytes());
    out.extend_from_slice(&count.to_be_bytes());
    out.extend_from_slice(&payload);
    let crc = crc32c(
        out.get(start.saturating_add(CRC_START)..)
            .unwrap_or_default(),
    );
    if let Some(slot) = out.get_mut(crc_at..crc_at.saturating_add(4)) {
        slot.copy_from_slice(&crc.to_be_bytes());
    }
    Ok(())
}

fn write_record(
    batch: &RecordBatch,
    record: &Record,
    body: &mut Vec<u8>,
) -> Result<(), RecordsError> {
    let overflow = || RecordsError::new(RecordsErrorKind::OffsetOverflow);
    let offset_delta = record
        .offset
        .checked_sub(batch.base_offset)
        .and_then(|d| i32::try_from(d).ok())
        .ok_or_else(overflow)?;
    let delta = record.timestamp.checked_sub(batch.base_timestamp);
    let timestamp_delta = match batch.timestamp_type {
        TimestampType::CreateTime => {
            delta.ok_or_else(|| RecordsError::new(RecordsErrorKind::TimestampOverflow))?
        }
        // Readers take every record's timestamp from the batch's max timestamp and ignore the
        // deltas, so a batch read with a max timestamp far from its base one (which gives each
        // record that max timestamp) must still be writable: its delta is then written as 0.
        TimestampType::LogAppendTime => delta.unwrap_or(0),
    };
    // A hint only: each length prefix takes at most 5 bytes.
    let bytes_len = |b: Option<&Bytes>| b.map_or(1, |b| b.len().saturating_add(5));
    body.reserve(
        varlong_len(timestamp_delta)
            .saturating_add(varint_len(offset_delta))
            .saturating_add(1)
            .saturating_add(bytes_len(record.key.as_ref()))
            .saturating_add(bytes_len(record.value.as_ref())),
    );
    body.push(0);
    put_varlong(body, timestamp_delta);
    put_varint(body, offset_delta);
    put_bytes(body, record.key.as_deref())?;
    put_bytes(body, record.value.as_deref())?;
    put_varint(body, to_i32(record.headers.len())?);
    for header in &record.headers {
        put_bytes(body, Some(header.key.as_bytes()))?;
        put_bytes(body, header.value.as_deref())?;
    }
    Ok(())
}

fn put_bytes(out: &mut Vec<u8>, bytes: Option<&[u8]>) -> Result<(), RecordsError> {
    match bytes {
        None => put_varint(out, -1),
        Some(bytes) => {
            put_varint(out, to_i32(bytes.len())?);
            out.extend_from_slice(bytes);
        }
    }
    Ok(())
}

pub(crate) fn to_i32(size: usize) -> Result<i32, RecordsError> {
    i32::try_from(size).map_err(|_| RecordsError::new(RecordsErrorKind::TooLarge { size }))
}
