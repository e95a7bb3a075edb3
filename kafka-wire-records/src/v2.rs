//! Magic 2 record batches: the 61-byte header, CRC-32C, and varint-framed records.

use crate::batch::{attributes, BatchHeader, TimestampType, LOG_OVERHEAD};
use crate::checksum::crc32c;
use crate::error::RecordsError;
use crate::wire::Wire;
use kafka_wire_core::Compression;
use kafka_wire_core::ErrorKind;

/// Bytes from the start of a batch to the end of its header.
pub(crate) const HEADER_LEN: usize = 61;
/// Where the CRC sits, and where the part it covers begins (the attributes).
pub(crate) const CRC_AT: usize = 17;
pub(crate) const CRC_START: usize = 21;
/// Where the fields the writer fills in last sit in the header.
pub(crate) const LAST_OFFSET_DELTA_AT: usize = 23;
pub(crate) const BASE_TIMESTAMP_AT: usize = 27;
pub(crate) const MAX_TIMESTAMP_AT: usize = 35;
pub(crate) const COUNT_AT: usize = 57;
/// The smallest record: length, attributes, timestamp delta, offset delta, key length, value
/// length and header count, one byte each.
pub(crate) const MIN_RECORD: usize = 7;
/// The smallest header: key length and value length.
pub(crate) const MIN_HEADER: usize = 2;

/// A batch's header, read and checked (size, checksum, codec), with its record count.
pub(crate) struct Head {
    pub header: BatchHeader,
    /// The record count the header declares, not yet checked against the records.
    pub count: i32,
}

/// Reads the header of the batch that fills `batch` exactly (its size field agrees with its
/// length); `at` is its offset in the input.
pub(crate) fn read_header(batch: &[u8], at: usize) -> Result<Head, RecordsError> {
    let mut w = Wire::new(batch, at);
    let base_offset = w.i64()?;
    let size_at = w.at();
    let size = w.i32()?;
    const MIN_SIZE: usize = HEADER_LEN - LOG_OVERHEAD;
    if usize::try_from(size).map_or(true, |s| s < MIN_SIZE) {
        return Err(RecordsError::new(ErrorKind::BatchTooSmall {
            size: size.into(),
            min: MIN_SIZE,
        })
        .at(size_at));
    }
    let partition_leader_epoch = w.i32()?;
    let magic = w.i8()?;
    let crc_at = w.at();
    let crc = w.u32()?;
    let actual = crc32c(batch.get(CRC_START..).unwrap_or_default());
    if actual != crc {
        return Err(RecordsError::new(ErrorKind::CrcMismatch {
            expected: crc,
            actual,
        })
        .at(crc_at));
    }
    let attributes_at = w.at();
    let bits = w.i16()?;
    // The mask keeps three bits: the cast cannot lose any.
    let codec = (bits & attributes::COMPRESSION_MASK) as u8;
    let compression = Compression::from_bits(codec).ok_or_else(|| {
        RecordsError::new(ErrorKind::UnsupportedCompression { codec }).at(attributes_at)
    })?;
    let header = BatchHeader {
        base_offset,
        partition_leader_epoch,
        magic,
        compression,
        timestamp_type: if bits & attributes::LOG_APPEND_TIME != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        },
        is_transactional: bits & attributes::TRANSACTIONAL != 0,
        is_control: bits & attributes::CONTROL != 0,
        has_delete_horizon: bits & attributes::DELETE_HORIZON != 0,
        last_offset_delta: w.i32()?,
        base_timestamp: w.i64()?,
        max_timestamp: w.i64()?,
        producer_id: w.i64()?,
        producer_epoch: w.i16()?,
        base_sequence: w.i32()?,
    };
    let count = w.i32()?;
    Ok(Head { header, count })
}

/// The declared record count as a `usize`, checked against the bytes of the records section:
/// a record takes at least [`MIN_RECORD`] bytes, so no more can be present. `count_at` is the
/// count's offset in the input, where a compressed batch's error is placed too.
pub(crate) fn check_count(
    count: i32,
    records_len: usize,
    count_at: usize,
) -> Result<usize, RecordsError> {
    let Ok(n) = usize::try_from(count) else {
        return Err(RecordsError::from(ErrorKind::NegativeLength {
            length: count.into(),
        })
        .at(count_at));
    };
    if n > records_len / MIN_RECORD {
        return Err(RecordsError::from(ErrorKind::CountExceedsRemaining {
            count: u64::try_from(n).unwrap_or(u64::MAX),
            remaining: records_len,
        })
        .at(count_at));
    }
    Ok(n)
}

/// One record as it sits in the records section, every field checked except the header keys'
/// UTF-8, which is checked when a header is read.
pub(crate) struct RawRecord<'a> {
    pub timestamp_delta: i64,
    pub offset_delta: i32,
    /// Where the record's body starts, for errors in the fields computed from the deltas.
    pub body_at: usize,
    pub offset_delta_at: usize,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
    /// The headers, from the first one's key to the record's end.
    pub headers: Wire<'a>,
    pub header_count: usize,
}

/// Reads the next record off `w`: its length, then its body, which must use exactly that many
/// bytes. The headers are walked to check their lengths, without being kept.
#[inline]
pub(crate) fn read_record<'a>(w: &mut Wire<'a>) -> Result<RawRecord<'a>, RecordsError> {
    let length_at = w.at();
    let declared = w.varint_count()?;
    if declared > w.remaining() {
        return Err(RecordsError::from(ErrorKind::LengthExceedsRemaining {
            length: u64::try_from(declared).unwrap_or(u64::MAX),
            remaining: w.remaining(),
        })
        .at(length_at));
    }
    let body_at = w.at();
    let mut r = Wire::new(w.take(declared)?, body_at);
    let _attributes = r.i8()?;
    let timestamp_delta = r.varlong()?;
    let offset_delta_at = r.at();
    let offset_delta = r.varint()?;
    let key = r.varint_bytes()?;
    let value = r.varint_bytes()?;
    let count_at = r.at();
    let header_count = r.varint_count()?;
    if header_count > r.remaining() / MIN_HEADER {
        return Err(RecordsError::from(ErrorKind::CountExceedsRemaining {
            count: u64::try_from(header_count).unwrap_or(u64::MAX),
            remaining: r.remaining(),
        })
        .at(count_at));
    }
    let headers = r;
    for _ in 0..header_count {
        read_header_field(&mut r)?;
    }
    if r.remaining() != 0 {
        return Err(RecordsError::new(ErrorKind::RecordSizeMismatch {
            declared,
            used: declared.saturating_sub(r.remaining()),
        })
        .at(length_at));
    }
    Ok(RawRecord {
        timestamp_delta,
        offset_delta,
        body_at,
        offset_delta_at,
        key,
        value,
        headers,
        header_count,
    })
}

/// One header as it sits in a record, its key's UTF-8 not yet checked.
pub(crate) struct RawHeader<'a> {
    pub key: &'a [u8],
    pub value: Option<&'a [u8]>,
    /// Where the key's length sits, for the error of a key that is not UTF-8.
    pub key_at: usize,
}

/// Reads one header: a key, which is never null, and a nullable value.
#[inline]
pub(crate) fn read_header_field<'a>(w: &mut Wire<'a>) -> Result<RawHeader<'a>, RecordsError> {
    let key_at = w.at();
    let Some(key) = w.varint_bytes()? else {
        return Err(RecordsError::from(ErrorKind::NegativeLength { length: -1 }).at(key_at));
    };
    let value = w.varint_bytes()?;
    Ok(RawHeader { key, value, key_at })
}
