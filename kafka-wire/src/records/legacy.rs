//! Magic 0 and 1 message sets: one message per record, or a compressed wrapper message whose
//! value is an inner message set.
//!
//! In a magic 1 wrapper the inner offsets are relative (0 to n-1) and the wrapper carries the
//! absolute offset of the last inner message; magic 0 inner messages carry absolute offsets.

use super::checksum::crc32;
use super::compression::{compress, decompress};
use super::cursor::Cursor;
use super::v2::to_i32;
use super::{
    Compression, DecodeLimits, Record, RecordBatch, RecordsError, RecordsErrorKind, TimestampType,
};
use alloc::vec::Vec;
use bytes::Bytes;

/// crc, magic, attributes, key length, value length.
const MIN_SIZE_V0: usize = 14;
/// The same plus the timestamp.
const MIN_SIZE_V1: usize = 22;

struct Message {
    offset: i64,
    magic: i8,
    attributes: i8,
    timestamp: i64,
    key: Option<Bytes>,
    value: Option<Bytes>,
}

/// Reads one whole message from `c`, checking its size and CRC.
fn read_message(c: &mut Cursor) -> Result<Message, RecordsError> {
    let offset = c.i64()?;
    let size_at = c.pos();
    let size = c.i32()?;
    let Some(body_len) = usize::try_from(size).ok().filter(|&s| s >= MIN_SIZE_V0) else {
        return Err(RecordsError::new(RecordsErrorKind::BatchTooSmall {
            size: size.into(),
            min: MIN_SIZE_V0,
        })
        .at(size_at));
    };
    if body_len > c.remaining() {
        return Err(RecordsError::new(RecordsErrorKind::LengthExceedsRemaining {
            length: size.into(),
            remaining: c.remaining(),
        })
        .at(size_at));
    }
    let crc_at = c.pos();
    let mut m = Cursor::new(c.take(body_len)?, crc_at);
    let crc = m.u32()?;
    let covered_at = m.pos();
    let covered = m.rest();
    let actual = crc32(&covered);
    if actual != crc {
        return Err(RecordsError::new(RecordsErrorKind::CrcMismatch {
            expected: crc,
            actual,
        })
        .at(crc_at));
    }
    let mut m = Cursor::new(covered, covered_at);
    let magic_at = m.pos();
    let magic = m.i8()?;
    let timestamp = match magic {
        0 => -1,
        1 if body_len < MIN_SIZE_V1 => {
            return Err(RecordsError::new(RecordsErrorKind::BatchTooSmall {
                size: size.into(),
                min: MIN_SIZE_V1,
            })
            .at(size_at))
        }
        1 => 0,
        magic => {
            return Err(
                RecordsError::new(RecordsErrorKind::UnsupportedMagic { magic }).at(magic_at),
            )
        }
    };
    let attributes = m.i8()?;
    let timestamp = if magic == 1 { m.i64()? } else { timestamp };
    let key = m.i32_bytes()?;
    let value = m.i32_bytes()?;
    if m.remaining() != 0 {
        return Err(m.error(RecordsErrorKind::TrailingBytes {
            count: m.remaining(),
        }));
    }
    Ok(Message {
        offset,
        magic,
        attributes,
        timestamp,
        key,
        value,
    })
}

/// Decodes the message that fills `bytes` exactly; `at` is its offset in the input.
pub(crate) fn decode(
    bytes: Bytes,
    at: usize,
    limits: &DecodeLimits,
) -> Result<RecordBatch, RecordsError> {
    let mut c = Cursor::new(bytes, at);
    let wrapper = read_message(&mut c)?;
    let codec = (wrapper.attributes & 0x07) as u8;
    let timestamp_type = if wrapper.magic == 1 && wrapper.attributes & 0x08 != 0 {
        TimestampType::LogAppendTime
    } else {
        TimestampType::CreateTime
    };
    let compression = match Compression::from_bits(codec) {
        Some(c) if c != Compression::Zstd => c,
        _ => {
            return Err(
                RecordsError::new(RecordsErrorKind::UnsupportedCompression { codec })
                    .at(at.saturating_add(17)),
            )
        }
    };
    let records = if compression == Compression::None {
        vec![Record {
            offset: wrapper.offset,
            timestamp: wrapper.timestamp,
            key: wrapper.key,
            value: wrapper.value,
            headers: Vec::new(),
        }]
    } else {
        let Some(value) = wrapper.value.clone() else {
            return Err(RecordsError::new(RecordsErrorKind::InvalidWrapper).at(at));
        };
        // The value ends the message, which ends at the cursor.
        let payload_at = c.pos().saturating_sub(value.len());
        let plain =
            decompress(compression, wrapper.magic, &value, limits).map_err(|e| e.at(payload_at))?;
        inner_records(&wrapper, timestamp_type, Bytes::from(plain))
            .map_err(|e| e.decompressed(payload_at))?
    };
    let (Some(first), Some(last)) = (records.first(), records.last()) else {
        return Err(RecordsError::new(RecordsErrorKind::EmptyBatch).at(at));
    };
    let last_offset_delta = last
        .offset
        .checked_sub(first.offset)
        .and_then(|d| i32::try_from(d).ok())
        .ok_or_else(|| RecordsError::new(RecordsErrorKind::OffsetOverflow).at(at))?;
    Ok(RecordBatch {
        base_offset: first.offset,
        partition_leader_epoch: -1,
        magic: wrapper.magic,
        compression,
        timestamp_type,
        is_transactional: false,
        is_control: false,
        has_delete_horizon: false,
        last_offset_delta,
        base_timestamp: wrapper.timestamp,
        max_timestamp: wrapper.timestamp,
        producer_id: -1,
        producer_epoch: -1,
        base_sequence: -1,
        records,
    })
}

fn inner_records(
    wrapper: &Message,
    timestamp_type: TimestampType,
    plain: Bytes,
) -> Result<Vec<Record>, RecordsError> {
    let mut c = Cursor::new(plain, 0);
    let mut inner = Vec::new();
    while c.remaining() > 0 {
        let at = c.pos();
        let m = read_message(&mut c).map_err(|e| e.in_record(inner.len()))?;
        if m.attributes & 0x07 != 0 {
            return Err(RecordsError::new(RecordsErrorKind::InvalidWrapper)
                .at(at)
                .in_record(inner.len()));
        }
        inner.push(m);
    }
    let Some(last) = inner.last() else {
        return Err(RecordsError::new(RecordsErrorKind::EmptyBatch));
    };
    // Magic 1: the wrapper's offset is that of the last inner message.
    let base = if wrapper.magic == 1 {
        wrapper
            .offset
            .checked_sub(last.offset)
            .ok_or_else(|| RecordsError::new(RecordsErrorKind::OffsetOverflow))?
    } else {
        0
    };
    inner
        .into_iter()
        .enumerate()
        .map(|(index, m)| {
            let offset = base.checked_add(m.offset).ok_or_else(|| {
                RecordsError::new(RecordsErrorKind::OffsetOverflow).in_record(index)
            })?;
            let timestamp = match timestamp_type {
                TimestampType::LogAppendTime => wrapper.timestamp,
                TimestampType::CreateTime => m.timestamp,
            };
            Ok(Record {
                offset,
                timestamp,
                key: m.key,
                value: m.value,
                headers: Vec::new(),
            })
        })
        .collect()
}

/// Appends the batch: one message per record, or one wrapper holding them all compressed.
pub(crate) fn encode(batch: &RecordBatch, out: &mut Vec<u8>) -> Result<(), RecordsError> {
    let magic = batch.magic;
    if batch.records.iter().any(|r| !r.headers.is_empty()) {
        return Err(RecordsErrorKind::HeadersInLegacy.into());
    }
    let Some(last) = batch.records.last() else {
        return Err(RecordsErrorKind::EmptyBatch.into());
    };
    if batch.compression == Compression::Zstd {
        return Err(RecordsErrorKind::UnsupportedCompression { codec: 4 }.into());
    }
    let time_bit = if magic == 1 && batch.timestamp_type == TimestampType::LogAppendTime {
        0x08
    } else {
        0
    };
    if batch.compression == Compression::None {
        for record in &batch.records {
            let message = Message {
                offset: record.offset,
                magic,
                attributes: time_bit,
                timestamp: record.timestamp,
                key: record.key.clone(),
                value: record.value.clone(),
            };
            write_message(out, &message)?;
        }
        return Ok(());
    }
    let mut inner = Vec::new();
    for (index, record) in batch.records.iter().enumerate() {
        let offset = if magic == 1 {
            record
                .offset
                .checked_sub(batch.base_offset)
                .ok_or_else(|| {
                    RecordsError::new(RecordsErrorKind::OffsetOverflow).in_record(index)
                })?
        } else {
            record.offset
        };
        let message = Message {
            offset,
            magic,
            attributes: 0,
            timestamp: record.timestamp,
            key: record.key.clone(),
            value: record.value.clone(),
        };
        write_message(&mut inner, &message)?;
    }
    let compressed = compress(batch.compression, magic, &inner)?;
    let wrapper = Message {
        offset: last.offset,
        magic,
        attributes: batch.compression.bits() as i8 | time_bit,
        timestamp: batch.max_timestamp,
        key: None,
        value: Some(Bytes::from(compressed)),
    };
    write_message(out, &wrapper)
}

fn write_message(out: &mut Vec<u8>, m: &Message) -> Result<(), RecordsError> {
    let key_len = m.key.as_ref().map_or(0, Bytes::len);
    let value_len = m.value.as_ref().map_or(0, Bytes::len);
    let fixed = if m.magic == 1 {
        MIN_SIZE_V1
    } else {
        MIN_SIZE_V0
    };
    let size = fixed
        .checked_add(key_len)
        .and_then(|s| s.checked_add(value_len))
        .ok_or(RecordsError::new(RecordsErrorKind::TooLarge {
            size: usize::MAX,
        }))?;
    let size = to_i32(size)?;
    out.extend_from_slice(&m.offset.to_be_bytes());
    out.extend_from_slice(&size.to_be_bytes());
    let crc_at = out.len();
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&m.magic.to_be_bytes());
    out.extend_from_slice(&m.attributes.to_be_bytes());
    if m.magic == 1 {
        out.extend_from_slice(&m.timestamp.to_be_bytes());
    }
    for bytes in [&m.key, &m.value] {
        match bytes {
            None => out.extend_from_slice(&(-1i32).to_be_bytes()),
            Some(b) => {
                out.extend_from_slice(&to_i32(b.len())?.to_be_bytes());
                out.extend_from_slice(b);
            }
        }
    }
    let crc_end = crc_at.saturating_add(4);
    let crc = crc32(out.get(crc_end..).unwrap_or_default());
    if let Some(slot) = out.get_mut(crc_at..crc_end) {
        slot.copy_from_slice(&crc.to_be_bytes());
    }
    Ok(())
}
