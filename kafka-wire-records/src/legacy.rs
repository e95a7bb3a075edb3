//! Magic 0 and 1 message sets: one message per record, or a compressed wrapper message whose
//! value is an inner message set.
//!
//! In a magic 1 wrapper the inner offsets are relative (0 to n-1) and the wrapper carries the
//! absolute offset of the last inner message; magic 0 inner messages carry absolute offsets.

use crate::batch::{attributes, TimestampType};
use crate::checksum::crc32;
use crate::error::RecordsError;
use crate::wire::Wire;
use kafka_wire_core::Compression;
use kafka_wire_core::ErrorKind;

/// crc, magic, attributes, key length, value length.
pub(crate) const MIN_SIZE_V0: usize = 14;
/// The same plus the timestamp.
pub(crate) const MIN_SIZE_V1: usize = 22;
/// Where the attributes sit in a message: after the offset, size, CRC and magic.
pub(crate) const ATTRIBUTES_AT: usize = 17;

/// One message, read and checked (size, CRC, magic).
pub(crate) struct Message<'a> {
    pub offset: i64,
    pub magic: i8,
    pub attributes: i8,
    /// -1 for magic 0.
    pub timestamp: i64,
    pub key: Option<&'a [u8]>,
    pub value: Option<&'a [u8]>,
}

impl Message<'_> {
    pub(crate) fn codec(&self) -> u8 {
        // The mask keeps three bits.
        (i16::from(self.attributes) & attributes::COMPRESSION_MASK) as u8
    }

    pub(crate) fn timestamp_type(&self) -> TimestampType {
        if self.magic == 1 && i16::from(self.attributes) & attributes::LOG_APPEND_TIME != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }
}

/// A message's offset, its size field and where it sits, and its body (CRC onwards), taken off
/// `w` after checking the size against the smallest message and against what is left.
struct Framed<'a> {
    offset: i64,
    size: i32,
    size_at: usize,
    body: Wire<'a>,
}

fn framed<'a>(w: &mut Wire<'a>) -> Result<Framed<'a>, RecordsError> {
    let offset = w.i64()?;
    let size_at = w.at();
    let size = w.i32()?;
    let Some(body_len) = usize::try_from(size).ok().filter(|&s| s >= MIN_SIZE_V0) else {
        return Err(RecordsError::new(ErrorKind::BatchTooSmall {
            size: size.into(),
            min: MIN_SIZE_V0,
        })
        .at(size_at));
    };
    if body_len > w.remaining() {
        return Err(RecordsError::from(ErrorKind::LengthExceedsRemaining {
            length: u64::try_from(body_len).unwrap_or(u64::MAX),
            remaining: w.remaining(),
        })
        .at(size_at));
    }
    let body_at = w.at();
    let body = Wire::new(w.take(body_len)?, body_at);
    Ok(Framed {
        offset,
        size,
        size_at,
        body,
    })
}

/// Reads one whole message off `w`, checking its size and CRC.
pub(crate) fn read_message<'a>(w: &mut Wire<'a>) -> Result<Message<'a>, RecordsError> {
    let Framed {
        offset,
        size,
        size_at,
        body: mut m,
    } = framed(w)?;
    let crc_at = m.at();
    let crc = m.u32()?;
    let actual = crc32(m.rest());
    if actual != crc {
        return Err(RecordsError::new(ErrorKind::CrcMismatch {
            expected: crc,
            actual,
        })
        .at(crc_at));
    }
    let magic_at = m.at();
    let magic = m.i8()?;
    match magic {
        0 => {}
        1 if usize::try_from(size).map_or(true, |s| s < MIN_SIZE_V1) => {
            return Err(RecordsError::new(ErrorKind::BatchTooSmall {
                size: size.into(),
                min: MIN_SIZE_V1,
            })
            .at(size_at))
        }
        1 => {}
        magic => return Err(RecordsError::new(ErrorKind::UnsupportedMagic { magic }).at(magic_at)),
    }
    let attributes = m.i8()?;
    let timestamp = if magic == 1 { m.i64()? } else { -1 };
    let key = m.i32_bytes()?;
    let value = m.i32_bytes()?;
    if m.remaining() != 0 {
        return Err(m.error(ErrorKind::TrailingBytes {
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

/// The codec of a wrapper message; zstd and the bits naming no codec are refused, as magic 0
/// and 1 cannot carry them.
pub(crate) fn compression(message: &Message<'_>, at: usize) -> Result<Compression, RecordsError> {
    let codec = message.codec();
    match Compression::from_bits(codec) {
        Some(c) if c != Compression::Zstd => Ok(c),
        _ => Err(
            RecordsError::new(ErrorKind::UnsupportedCompression { codec })
                .at(at.saturating_add(ATTRIBUTES_AT)),
        ),
    }
}

/// The first and last offsets and the number of the messages of an inner message set, from
/// their framing alone (each message is checked in full when it is read).
pub(crate) fn span(inner: &[u8]) -> Result<(i64, i64, usize), RecordsError> {
    let mut w = Wire::new(inner, 0);
    let mut first = None;
    let mut last = 0;
    let mut count = 0usize;
    while w.remaining() > 0 {
        let offset = framed(&mut w).map_err(|e| e.in_record(count))?.offset;
        first.get_or_insert(offset);
        last = offset;
        count = count.saturating_add(1);
    }
    match first {
        Some(first) => Ok((first, last, count)),
        None => Err(RecordsError::new(ErrorKind::EmptyBatch)),
    }
}
