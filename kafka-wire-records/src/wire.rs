//! A reader over a byte slice that knows where the slice sits, so that every error it raises
//! carries its offset: in the input, or in a decompressed payload.
//!
//! Records are read from borrowed slices rather than from `Bytes`: splitting a `Bytes` costs a
//! reference-count update per key, value and header, which was a third of the time of reading an
//! uncompressed fetch. A caller that wants a `Bytes` takes it with `Bytes::slice_ref`.

use crate::error::RecordsError;
use kafka_wire_core::ErrorKind;

/// The unread part of a slice, and the offset of the slice's first byte in the input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wire<'a> {
    data: &'a [u8],
    pos: usize,
    origin: usize,
}

impl<'a> Wire<'a> {
    /// `data`, whose first byte is at `origin` in the input.
    pub(crate) fn new(data: &'a [u8], origin: usize) -> Self {
        Wire {
            data,
            pos: 0,
            origin,
        }
    }

    /// The input offset of the next byte.
    pub(crate) fn at(&self) -> usize {
        self.origin.saturating_add(self.pos)
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// The unread bytes.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or_default()
    }

    /// An error of `kind` at the next byte.
    #[cold]
    pub(crate) fn error(&self, kind: ErrorKind) -> RecordsError {
        RecordsError::new(kind).at(self.at())
    }

    #[cold]
    fn eof(&self, needed: usize) -> RecordsError {
        self.error(ErrorKind::UnexpectedEof {
            needed,
            available: self.remaining(),
        })
    }

    /// The next `n` bytes.
    #[inline]
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], RecordsError> {
        let end = self.pos.checked_add(n).ok_or_else(|| self.eof(n))?;
        let bytes = self.data.get(self.pos..end).ok_or_else(|| self.eof(n))?;
        self.pos = end;
        Ok(bytes)
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], RecordsError> {
        let bytes = self.take(N)?;
        // `take` returned exactly N bytes.
        bytes.try_into().map_err(|_| self.eof(N))
    }

    pub(crate) fn i8(&mut self) -> Result<i8, RecordsError> {
        Ok(i8::from_be_bytes(self.array()?))
    }

    pub(crate) fn i16(&mut self) -> Result<i16, RecordsError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    pub(crate) fn i32(&mut self) -> Result<i32, RecordsError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    pub(crate) fn u32(&mut self) -> Result<u32, RecordsError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub(crate) fn i64(&mut self) -> Result<i64, RecordsError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    /// An unsigned varint of at most `max_bytes` bytes whose value fits in `bits` bits, as
    /// Kafka's reader has it (a continuation bit on the last allowed byte is an error), and one
    /// step further: bits beyond the type are an error, not dropped.
    #[inline]
    fn uvarint(&mut self, max_bytes: usize, bits: u32) -> Result<u64, RecordsError> {
        // Nearly every varint in a batch (lengths, deltas, counts) is one byte.
        if let Some(&first) = self.data.get(self.pos) {
            if first < 0x80 {
                self.pos = self.pos.saturating_add(1);
                return Ok(u64::from(first));
            }
        }
        self.uvarint_slow(max_bytes, bits)
    }

    #[inline(never)]
    fn uvarint_slow(&mut self, max_bytes: usize, bits: u32) -> Result<u64, RecordsError> {
        let mut value: u64 = 0;
        for i in 0..max_bytes {
            let Some(&byte) = self.data.get(self.pos.saturating_add(i)) else {
                return Err(self.eof(i.saturating_add(1)));
            };
            let shift = u32::try_from(i).unwrap_or(u32::MAX).saturating_mul(7);
            let last = i.saturating_add(1) == max_bytes;
            if last && byte & 0x80 != 0 {
                return Err(self.error(ErrorKind::VarintTooLong));
            }
            // Bits of this byte that land at or beyond `bits`.
            let room = bits.saturating_sub(shift);
            if room < 7 && u32::from(byte & 0x7f) >> room != 0 {
                return Err(self.error(ErrorKind::VarintOverflow));
            }
            value |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                self.pos = self.pos.saturating_add(i).saturating_add(1);
                return Ok(value);
            }
        }
        Err(self.error(ErrorKind::VarintTooLong))
    }

    /// A zigzag varint (Kafka's `varint`).
    #[inline]
    pub(crate) fn varint(&mut self) -> Result<i32, RecordsError> {
        // At most 32 bits: the cast keeps them all.
        let raw = self.uvarint(5, 32)? as u32;
        Ok(((raw >> 1) as i32) ^ ((raw & 1) as i32).wrapping_neg())
    }

    /// A zigzag varlong (Kafka's `varlong`).
    #[inline]
    pub(crate) fn varlong(&mut self) -> Result<i64, RecordsError> {
        let raw = self.uvarint(10, 64)?;
        Ok(((raw >> 1) as i64) ^ ((raw & 1) as i64).wrapping_neg())
    }

    /// A count or length that must not be negative, with the offset it was read at.
    pub(crate) fn varint_count(&mut self) -> Result<usize, RecordsError> {
        let at = self.at();
        let n = self.varint()?;
        usize::try_from(n)
            .map_err(|_| RecordsError::from(ErrorKind::NegativeLength { length: n.into() }).at(at))
    }

    /// Bytes behind a varint length, -1 for null; the length is checked against what is left.
    #[inline]
    pub(crate) fn varint_bytes(&mut self) -> Result<Option<&'a [u8]>, RecordsError> {
        let at = self.at();
        let length = self.varint()?;
        self.sized(length, at)
    }

    /// Bytes behind an `i32` length, -1 for null.
    pub(crate) fn i32_bytes(&mut self) -> Result<Option<&'a [u8]>, RecordsError> {
        let at = self.at();
        let length = self.i32()?;
        self.sized(length, at)
    }

    #[inline]
    fn sized(&mut self, length: i32, at: usize) -> Result<Option<&'a [u8]>, RecordsError> {
        let Ok(n) = usize::try_from(length) else {
            if length == -1 {
                return Ok(None);
            }
            return Err(RecordsError::from(ErrorKind::NegativeLength {
                length: length.into(),
            })
            .at(at));
        };
        if n > self.remaining() {
            return Err(RecordsError::from(ErrorKind::LengthExceedsRemaining {
                length: u64::try_from(n).unwrap_or(u64::MAX),
                remaining: self.remaining(),
            })
            .at(at));
        }
        self.take(n).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kafka_wire_core::varint::{put_varint, put_varlong};

    #[test]
    fn varints_agree_with_the_writer_and_refuse_what_kafka_refuses() {
        for v in [0i32, -1, 1, 63, -64, 64, 8191, -8192, i32::MAX, i32::MIN] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut w = Wire::new(&out, 10);
            assert_eq!(w.varint().unwrap(), v);
            assert_eq!((w.remaining(), w.at()), (0, 10 + out.len()));
        }
        for v in [0i64, -1, 1, i64::from(i32::MAX) + 1, i64::MAX, i64::MIN] {
            let mut out = Vec::new();
            put_varlong(&mut out, v);
            assert_eq!(Wire::new(&out, 0).varlong().unwrap(), v);
        }
        let kind = |bytes: &[u8], long: bool| {
            let mut w = Wire::new(bytes, 100);
            let err = if long {
                w.varlong().unwrap_err()
            } else {
                w.varint().unwrap_err()
            };
            assert_eq!(err.offset(), Some(100));
            err.kind().clone()
        };
        assert_eq!(kind(&[0x80; 5], false), ErrorKind::VarintTooLong);
        assert_eq!(
            kind(&[0xff, 0xff, 0xff, 0xff, 0x1f], false),
            ErrorKind::VarintOverflow
        );
        assert_eq!(kind(&[0x80; 10], true), ErrorKind::VarintTooLong);
        assert_eq!(
            kind(
                &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
                true
            ),
            ErrorKind::VarintOverflow
        );
        assert_eq!(
            kind(&[0x80, 0x80], false),
            ErrorKind::UnexpectedEof {
                needed: 3,
                available: 2
            }
        );
    }

    #[test]
    fn lengths_are_checked_against_what_is_left() {
        let mut w = Wire::new(&[0x08, b'a', b'b'], 0);
        let err = w.varint_bytes().unwrap_err();
        assert_eq!(
            err.kind(),
            &ErrorKind::LengthExceedsRemaining {
                length: 4,
                remaining: 2
            }
        );
        assert_eq!(Wire::new(&[0x01], 0).varint_bytes().unwrap(), None);
        let err = Wire::new(&[0x03], 0).varint_bytes().unwrap_err();
        assert_eq!(err.kind(), &ErrorKind::NegativeLength { length: -2 });
    }
}
