//! Varints (LEB128, as in protobuf): unsigned ones for compact lengths and tagged fields, and the
//! zigzag-signed 32- and 64-bit forms that record batches use.
//!
//! Decoding follows Kafka's Java reader, which refuses a continuation bit on the fifth byte (the
//! tenth for 64 bits), and goes one step further: bits that do not fit the type are an error, not
//! silently dropped.

use crate::codec::Sink;
use crate::{DecodeError, ErrorKind};
use bytes::{Buf, Bytes};

/// Writes `value` as an unsigned varint.
///
/// ```
/// let mut out = Vec::new();
/// kafka_wire::varint::put_uvarint(&mut out, 300);
/// assert_eq!(out, [0xac, 0x02]);
/// ```
#[inline]
pub fn put_uvarint<B: Sink>(buf: &mut B, mut value: u32) {
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
    let bits = u32::BITS.saturating_sub((value | 1).leading_zeros()) as usize;
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
    // One-byte varints are by far the most common: lengths and counts below 127. Only this
    // case is inlined into callers; the rest is one shared function.
    if let Some(&first) = buf.first() {
        if first < 0x80 {
            buf.advance(1);
            return Ok(u32::from(first));
        }
    }
    get_uvarint_slow(buf)
}

/// [`get_uvarint`] under `cx`: in strict mode, a varint longer than its value needs (`80 00`
/// for 0, say) is refused.
#[inline]
pub(crate) fn get_uvarint_in(buf: &mut Bytes, cx: crate::codec::Ctx) -> Result<u32, DecodeError> {
    let before = buf.len();
    let value = get_uvarint(buf)?;
    minimal_in(value, before.saturating_sub(buf.len()), before, cx)?;
    Ok(value)
}

/// An unsigned varint of one to three bytes at the front of `bytes`, read from one load of its
/// first four: `(value, bytes it takes)`, or `None` for a longer one or fewer than four bytes.
/// Every length and count of up to 2 MiB is this short, a record batch's among them; read so,
/// it costs no check per byte. The views' readers of lengths use it.
#[cfg(feature = "views")]
#[inline(always)]
pub(crate) fn short_uvarint(bytes: &[u8]) -> Option<(u32, usize)> {
    let word = u32::from_le_bytes(*bytes.first_chunk::<4>()?);
    // Bit 7 of each byte says whether another follows; the low seven of each are the value's.
    let low = word & 0x7f;
    if word & 0x80 == 0 {
        return Some((low, 1));
    }
    let two = low | (word >> 1) & 0x3f80;
    if word & 0x8000 == 0 {
        return Some((two, 2));
    }
    if word & 0x80_0000 == 0 {
        return Some((two | (word >> 2) & 0x1f_c000, 3));
    }
    None
}

/// [`get_uvarint_in`] on a slice, for the views: the value and the bytes it takes.
#[inline]
pub(crate) fn uvarint_in_at(
    buf: &[u8],
    cx: crate::codec::Ctx,
) -> Result<(u32, usize), DecodeError> {
    let (value, len) = match buf.first() {
        // One byte is always as short as it can be.
        Some(&first) if first < 0x80 => return Ok((u32::from(first), 1)),
        _ => uvarint_at(buf)?,
    };
    minimal_in(value, len, buf.len(), cx)?;
    Ok((value, len))
}

/// The strict rule: a varint of `len` bytes, read where `remaining` bytes were left, must be as
/// short as `value` allows.
#[inline]
fn minimal_in(
    value: u32,
    len: usize,
    remaining: usize,
    cx: crate::codec::Ctx,
) -> Result<(), DecodeError> {
    if cx.strict && len != uvarint_len(value) {
        return Err(DecodeError::new(ErrorKind::NonMinimalVarint, remaining));
    }
    Ok(())
}

#[inline(never)]
fn get_uvarint_slow(buf: &mut Bytes) -> Result<u32, DecodeError> {
    let (value, len) = uvarint_at(buf)?;
    buf.advance(len);
    Ok(value)
}

/// The rules of [`get_uvarint`] on a slice: the value and the bytes it takes.
#[inline]
pub(crate) fn uvarint_at(buf: &[u8]) -> Result<(u32, usize), DecodeError> {
    // Two to four bytes, as the lengths of records and of large byte fields are, with five
    // bytes at hand: read without a bounds check per byte, which is most of this path's cost.
    if let Some(&[b0, b1, b2, b3, _]) = buf.first_chunk::<5>() {
        let low = u32::from(b0 & 0x7f);
        let read = if b0 < 0x80 {
            (low, 1)
        } else if b1 < 0x80 {
            (low | u32::from(b1) << 7, 2)
        } else if b2 < 0x80 {
            (low | u32::from(b1 & 0x7f) << 7 | u32::from(b2) << 14, 3)
        } else if b3 < 0x80 {
            let high = u32::from(b2 & 0x7f) << 14 | u32::from(b3) << 21;
            (low | u32::from(b1 & 0x7f) << 7 | high, 4)
        } else {
            return uvarint_checked(buf);
        };
        return Ok(read);
    }
    uvarint_checked(buf)
}

/// Every varint, byte by byte, with every error.
fn uvarint_checked(buf: &[u8]) -> Result<(u32, usize), DecodeError> {
    let remaining = buf.len();
    let mut value: u32 = 0;
    for (i, shift) in (0..5usize).zip((0u32..).step_by(7)) {
        let Some(&byte) = buf.get(i) else {
            return Err(DecodeError::eof(i.saturating_add(1), remaining));
        };
        if i == 4 {
            if byte & 0x80 != 0 {
                return Err(DecodeError::new(ErrorKind::VarintTooLong, remaining));
            }
            if byte > 0x0f {
                return Err(DecodeError::new(ErrorKind::VarintOverflow, remaining));
            }
        }
        // The shift is at most 28 and the fifth byte holds 4 bits: nothing is shifted out.
        value |= u32::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
        if byte & 0x80 == 0 {
            return Ok((value, i.saturating_add(1)));
        }
    }
    // The loop returns on the fifth byte at the latest.
    Err(DecodeError::new(ErrorKind::VarintTooLong, remaining))
}

/// Writes `value` as an unsigned 64-bit varint.
#[inline]
pub fn put_uvarlong<B: Sink>(buf: &mut B, mut value: u64) {
    while value >= 0x80 {
        buf.put_u8((value as u8) | 0x80);
        value >>= 7;
    }
    buf.put_u8(value as u8);
}

/// The number of bytes [`put_uvarlong`] writes for `value`.
#[inline]
pub const fn uvarlong_len(value: u64) -> usize {
    let bits = u64::BITS.saturating_sub((value | 1).leading_zeros()) as usize;
    bits.div_ceil(7)
}

/// Reads an unsigned varint of at most 10 bytes whose value fits in 64 bits.
///
/// ```
/// use bytes::Bytes;
/// let max = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
/// assert_eq!(kafka_wire::varint::get_uvarlong(&mut max.clone()).unwrap(), u64::MAX);
/// // A tenth byte carrying bits beyond 64.
/// let wide = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]);
/// assert!(kafka_wire::varint::get_uvarlong(&mut wide.clone()).is_err());
/// ```
#[inline]
pub fn get_uvarlong(buf: &mut Bytes) -> Result<u64, DecodeError> {
    let remaining = buf.remaining();
    let mut value: u64 = 0;
    for (i, shift) in (0..10usize).zip((0u32..).step_by(7)) {
        let Some(&byte) = buf.get(i) else {
            return Err(DecodeError::eof(i.saturating_add(1), remaining));
        };
        if i == 9 {
            if byte & 0x80 != 0 {
                return Err(DecodeError::new(ErrorKind::VarintTooLong, remaining));
            }
            // The tenth byte carries bit 63 only.
            if byte > 0x01 {
                return Err(DecodeError::new(ErrorKind::VarintOverflow, remaining));
            }
        }
        // The shift is at most 63 and the tenth byte holds 1 bit: nothing is shifted out.
        value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
        if byte & 0x80 == 0 {
            buf.advance(i.saturating_add(1));
            return Ok(value);
        }
    }
    Err(DecodeError::new(ErrorKind::VarintTooLong, remaining))
}

/// Writes `value` as a zigzag varint (Kafka's `varint`): small magnitudes of either sign are short.
///
/// ```
/// let mut out = Vec::new();
/// kafka_wire::varint::put_varint(&mut out, -1);
/// kafka_wire::varint::put_varint(&mut out, 1);
/// assert_eq!(out, [0x01, 0x02]);
/// ```
#[inline]
pub fn put_varint<B: Sink>(buf: &mut B, value: i32) {
    put_uvarint(buf, zigzag32(value));
}

/// The number of bytes [`put_varint`] writes for `value`.
#[inline]
pub const fn varint_len(value: i32) -> usize {
    uvarint_len(zigzag32(value))
}

/// Reads a zigzag varint (Kafka's `varint`), with the limits of [`get_uvarint`].
///
/// ```
/// use bytes::Bytes;
/// assert_eq!(kafka_wire::varint::get_varint(&mut Bytes::from_static(&[0x03])).unwrap(), -2);
/// ```
#[inline]
pub fn get_varint(buf: &mut Bytes) -> Result<i32, DecodeError> {
    let raw = get_uvarint(buf)?;
    Ok(((raw >> 1) as i32) ^ ((raw & 1) as i32).wrapping_neg())
}

/// Writes `value` as a zigzag 64-bit varint (Kafka's `varlong`).
#[inline]
pub fn put_varlong<B: Sink>(buf: &mut B, value: i64) {
    put_uvarlong(buf, zigzag64(value));
}

/// The number of bytes [`put_varlong`] writes for `value`.
#[inline]
pub const fn varlong_len(value: i64) -> usize {
    uvarlong_len(zigzag64(value))
}

/// Reads a zigzag 64-bit varint (Kafka's `varlong`), with the limits of [`get_uvarlong`].
///
/// ```
/// use bytes::Bytes;
/// let mut input = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
/// assert_eq!(kafka_wire::varint::get_varlong(&mut input).unwrap(), i64::MIN);
/// ```
#[inline]
pub fn get_varlong(buf: &mut Bytes) -> Result<i64, DecodeError> {
    let raw = get_uvarlong(buf)?;
    Ok(((raw >> 1) as i64) ^ ((raw & 1) as i64).wrapping_neg())
}

// The casts reinterpret bits; zigzag maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
const fn zigzag32(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

const fn zigzag64(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
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
    fn zigzag_round_trips() {
        for v in [0i32, -1, 1, 63, -64, 64, i32::MAX, i32::MIN] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out.len(), varint_len(v), "{v}");
            assert_eq!(get_varint(&mut Bytes::from(out)).unwrap(), v);
        }
        for v in [0i64, -1, 1, i64::from(i32::MAX) + 1, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            put_varlong(&mut out, v);
            assert_eq!(out.len(), varlong_len(v), "{v}");
            assert_eq!(get_varlong(&mut Bytes::from(out)).unwrap(), v);
        }
        assert_eq!(
            *get_uvarlong(&mut Bytes::from_static(&[0x80; 10]))
                .unwrap_err()
                .kind(),
            ErrorKind::VarintTooLong
        );
    }

    /// The windowed path and the byte-by-byte one agree on every length and on what follows,
    /// including non-minimal forms and bytes that are no varint.
    #[test]
    fn windowed_reading_agrees_with_reading_byte_by_byte() {
        let mut values = vec![0u32, 1, 127, 128, 300, 16_383, 16_384, 2_097_151, 2_097_152];
        values.extend([268_435_455, 268_435_456, u32::MAX]);
        for v in values {
            let mut out = Vec::new();
            put_uvarint(&mut out, v);
            for tail in [&[][..], &[0x55], &[0x80, 0x80, 0x80, 0x80, 0x80]] {
                let bytes = Bytes::from([&out[..], tail].concat());
                let mut a = bytes.clone();
                assert_eq!(get_uvarint(&mut a).unwrap(), v, "{v}");
                let (value, len) = uvarint_checked(&bytes).unwrap();
                assert_eq!((value, a.len()), (v, bytes.len() - len), "{v}");
            }
        }
        for bytes in [
            &[0x80, 0x00, 9, 9, 9][..],
            &[0xff, 0x80, 0x00, 9, 9],
            &[0xff, 0xff, 0xff, 0xff, 0x0f],
            &[0xff, 0xff, 0xff, 0xff, 0x10],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            &[0x80, 0x80, 0x80, 0x80],
        ] {
            let mut a = Bytes::from(bytes);
            let x = get_uvarint(&mut a).map(|v| (v, bytes.len() - a.len()));
            assert_eq!(
                x.map_err(|e| e.kind().clone()),
                uvarint_checked(bytes).map_err(|e| e.kind().clone())
            );
        }
    }

    /// The one-load reader agrees with the byte-by-byte one on every first two bytes, with a
    /// third and a fourth of each kind (ending the varint or not, zero or not): the same value
    /// and length where it reads, and a varint of four or five bytes where it does not. Given
    /// fewer than four bytes, it leaves them to the other.
    #[cfg(feature = "views")]
    #[test]
    fn reading_from_one_word_agrees_with_reading_byte_by_byte() {
        let thirds = [0x00u32, 0x01, 0x40, 0x7f, 0x80, 0x81, 0xc0, 0xff];
        for first in 0u32..1 << 16 {
            for (third, fourth) in thirds.iter().flat_map(|t| [(t, 0x00u32), (t, 0x85)]) {
                let word = first | third << 16 | fourth << 24;
                let bytes = [word.to_le_bytes().as_slice(), &[0x01]].concat();
                let read = uvarint_checked(&bytes).map_err(|e| e.kind().clone());
                match short_uvarint(&bytes) {
                    Some(short) => assert_eq!(Ok(short), read, "{word:#x}"),
                    None => assert!(word & 0x80_8080 == 0x80_8080, "{word:#x}"),
                }
                assert_eq!(short_uvarint(&bytes[..3]), None, "{word:#x}");
            }
        }
    }

    #[test]
    fn truncated_varint_reports_eof() {
        let err = get_uvarint(&mut Bytes::from_static(&[0x80, 0x80])).unwrap_err();
        assert_eq!(
            *err.kind(),
            ErrorKind::UnexpectedEof {
                needed: 3,
                available: 2
            }
        );
    }
}
