//! Unsigned varints (LEB128, as in protobuf) for compact lengths and tagged fields.
//!
//! Decoding follows Kafka's Java reader, which refuses a continuation bit on the fifth byte, and
//! goes one step further: bits that do not fit in 32 are an error, not silently dropped.

use crate::{DecodeError, DecodeErrorKind};
use bytes::{Buf, BufMut, Bytes};

/// Writes `value` as an unsigned varint.
///
/// ```
/// let mut out = Vec::new();
/// kafka_wire::varint::put_uvarint(&mut out, 300);
/// assert_eq!(out, [0xac, 0x02]);
/// ```
#[inline]
pub fn put_uvarint<B: BufMut>(buf: &mut B, mut value: u32) {
    while value >= 0x80 {
        buf.put_u8((value as u8) | 0x80);
        value >>= 7;
    }
    buf.put_u8(value as u8);
}

/// The number of bytes [`put_uvarint`] writes for `value`.
#[inline]
pub const fn uvarint_len(value: u32) -> usize {
    // Counts, lengths and tags are nearly always below 128: skip the division for them.
    if value < 0x80 {
        return 1;
    }
    // One byte per started group of 7 bits.
    let bits = 32 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Reads an unsigned varint of at most 5 bytes whose value fits in 32 bits.
///
/// ```
/// use bytes::Bytes;
/// let mut input = Bytes::from_static(&[0xac, 0x02, 0xff]);
/// assert_eq!(kafka_wire::varint::get_uvarint(&mut input).unwrap(), 300);
/// assert_eq!(input.len(), 1);
///
/// // A continuation bit on the fifth byte, and a fifth byte carrying bits 32 and up.
/// assert!(kafka_wire::varint::get_uvarint(&mut Bytes::from_static(&[0xff; 5])).is_err());
/// assert!(kafka_wire::varint::get_uvarint(&mut Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0x1f])).is_err());
/// ```
#[inline]
pub fn get_uvarint(buf: &mut Bytes) -> Result<u32, DecodeError> {
    let remaining = buf.remaining();
    // One-byte varints are by far the most common: lengths and counts below 127.
    if let Some(&first) = buf.first() {
        if first < 0x80 {
            buf.advance(1);
            return Ok(u32::from(first));
        }
    }
    let mut value: u32 = 0;
    for i in 0..5u32 {
        let Some(&byte) = buf.get(i as usize) else {
            return Err(DecodeError::eof(i as usize + 1, remaining));
        };
        if i == 4 {
            if byte & 0x80 != 0 {
                return Err(DecodeError::new(DecodeErrorKind::VarintTooLong, remaining));
            }
            if byte > 0x0f {
                return Err(DecodeError::new(DecodeErrorKind::VarintOverflow, remaining));
            }
        }
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            buf.advance(i as usize + 1);
            return Ok(value);
        }
    }
    // The loop returns on the fifth byte at the latest.
    Err(DecodeError::new(DecodeErrorKind::VarintTooLong, remaining))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_match_encoding() {
        for v in [
            0u32,
            1,
            127,
            128,
            16_383,
            16_384,
            2_097_151,
            2_097_152,
            u32::MAX,
        ] {
            let mut out = Vec::new();
            put_uvarint(&mut out, v);
            assert_eq!(out.len(), uvarint_len(v), "{v}");
            let mut input = Bytes::from(out);
            assert_eq!(get_uvarint(&mut input).unwrap(), v);
            assert!(input.is_empty());
        }
    }

    #[test]
    fn truncated_varint_reports_eof() {
        let err = get_uvarint(&mut Bytes::from_static(&[0x80, 0x80])).unwrap_err();
        assert_eq!(
            *err.kind(),
            DecodeErrorKind::UnexpectedEof {
                needed: 3,
                available: 2
            }
        );
    }
}
