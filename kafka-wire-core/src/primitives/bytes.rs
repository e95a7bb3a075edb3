//! Length prefixes, `Bytes` and `Records`.
//!
//! Classic versions prefix a string with an `i16` length and bytes, records and arrays with an
//! `i32`, -1 meaning null. Flexible versions use an unsigned varint of length + 1, 0 meaning
//! null.

use super::varint::{put_uvarint, uvarint_in_at, uvarint_len};
use crate::codec::{Codec, Ctx, NullableCodec, Sink};
use crate::{DecodeError, EncodeError, ErrorKind, Records};
use bytes::{Buf, Bytes};

/// Which classic prefix a value uses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum LenKind {
    /// `i16` classic prefix; Kafka caps strings at 32767 bytes in both encodings.
    String,
    /// `i32` classic prefix: bytes and records.
    Bytes,
    /// `i32` classic prefix, and the value is an element count.
    Array,
}

impl LenKind {
    pub(crate) const fn max(self) -> usize {
        match self {
            LenKind::String => i16::MAX as usize,
            // Compact lengths are written as length + 1 in an unsigned varint that Kafka reads
            // into an `int`, so both forms stop at `i32::MAX - 1`.
            LenKind::Bytes | LenKind::Array => (i32::MAX - 1) as usize,
        }
    }
}

/// The size of the prefix for `len` (`None` is null). A length above `kind.max()`, which
/// [`write_len`] refuses, is counted as though the prefix could hold it.
#[inline]
pub(crate) fn prefix_len(cx: Ctx, kind: LenKind, len: Option<usize>) -> usize {
    match (cx.flexible, len) {
        // The common case, inlined: a compact length below 127 is one byte.
        (true, Some(0..=126)) | (true, None) => 1,
        // Saturating, so that a length past `u32::MAX` stays a 5-byte varint.
        (true, Some(len)) => uvarint_len(u32::try_from(len).unwrap_or(u32::MAX).saturating_add(1)),
        (false, _) if kind == LenKind::String => 2,
        (false, _) => 4,
    }
}

/// The size of a length-prefixed run of `len` bytes, as [`encode_bytes`] writes it.
#[inline]
pub(crate) fn bytes_len(cx: Ctx, kind: LenKind, len: usize) -> usize {
    // `len` is the length of a slice in memory, at most `isize::MAX`, and the prefix at most
    // 5 bytes: the sum cannot overflow, so it needs no saturating (which costs a compare and
    // a move in every sizer).
    prefix_len(cx, kind, Some(len)).wrapping_add(len)
}

#[cold]
fn too_long(length: usize, kind: LenKind) -> EncodeError {
    EncodeError::new(ErrorKind::TooLong {
        length,
        max: kind.max(),
    })
}

/// Writes the prefix for `len` (`None` is null).
///
/// Inlined into every string, bytes and array field, so only the common case of flexible
/// versions is here: a length below 127, whose compact prefix is the single byte `len + 1`.
/// Everything else goes through [`write_len_slow`].
#[inline]
pub(crate) fn write_len<B: Sink>(
    buf: &mut B,
    cx: Ctx,
    kind: LenKind,
    len: Option<usize>,
) -> Result<(), EncodeError> {
    if let (true, Some(small @ 0..=126)) = (cx.flexible, len) {
        // In range: `small + 1` is at most 127.
        buf.put_u8((small as u8).wrapping_add(1));
        return Ok(());
    }
    write_len_slow(buf, cx, kind, len)
}

#[inline(never)]
fn write_len_slow<B: Sink>(
    buf: &mut B,
    cx: Ctx,
    kind: LenKind,
    len: Option<usize>,
) -> Result<(), EncodeError> {
    let Some(len) = len else {
        match (cx.flexible, kind) {
            (true, _) => buf.put_u8(0),
            (false, LenKind::String) => buf.put_i16(-1),
            (false, _) => buf.put_i32(-1),
        }
        return Ok(());
    };
    if len > kind.max() {
        return Err(too_long(len, kind));
    }
    // Both casts are in range: `len` is at most `kind.max()`, below `i32::MAX`.
    match (cx.flexible, kind) {
        (true, _) => put_uvarint(buf, (len as u32).saturating_add(1)),
        (false, LenKind::String) => buf.put_i16(len as i16),
        (false, _) => buf.put_i32(len as i32),
    }
    Ok(())
}

/// Reads a prefix, `None` for null. The length is checked against the bytes left (for an array,
/// each element takes at least one byte) before anything is allocated from it.
///
/// Inlined into every string, bytes and array field, so only the common case is here: a
/// prefix that is all there and a length that fits. Everything else, errors included, goes
/// through [`read_len_slow`], which starts over from the same position.
#[inline]
pub(crate) fn read_len(
    buf: &mut Bytes,
    cx: Ctx,
    kind: LenKind,
) -> Result<Option<usize>, DecodeError> {
    // Prefix bytes and the length they give; a one-byte compact length is below 127 and a
    // classic string length below 32768, so neither can break the string limit.
    let (prefix, len): (usize, i64) = if cx.flexible {
        match buf.first() {
            Some(&b) if b < 0x80 => (1, i64::from(b).saturating_sub(1)),
            _ => return read_len_slow(buf, cx, kind),
        }
    } else if kind == LenKind::String {
        match buf.first_chunk::<2>() {
            Some(b) => (2, i64::from(i16::from_be_bytes(*b))),
            None => return read_len_slow(buf, cx, kind),
        }
    } else {
        match buf.first_chunk::<4>() {
            Some(b) => (4, i64::from(i32::from_be_bytes(*b))),
            None => return read_len_slow(buf, cx, kind),
        }
    };
    match usize::try_from(len) {
        Ok(n) if n <= buf.remaining().saturating_sub(prefix) => {
            buf.advance(prefix);
            Ok(Some(n))
        }
        _ => read_len_slow(buf, cx, kind),
    }
}

#[inline(never)]
fn read_len_slow(buf: &mut Bytes, cx: Ctx, kind: LenKind) -> Result<Option<usize>, DecodeError> {
    let (prefix, len) = len_at(buf, cx, kind)?;
    buf.advance(prefix);
    Ok(len)
}

/// Every rule of a prefix, on a slice: the bytes the prefix takes and the length it gives,
/// `None` for null. Decoding reaches it through [`read_len`], and views directly.
pub(crate) fn len_at(
    buf: &[u8],
    cx: Ctx,
    kind: LenKind,
) -> Result<(usize, Option<usize>), DecodeError> {
    let start = buf.len();
    let (prefix, len): (usize, i64) = if cx.flexible {
        let (value, prefix) = uvarint_in_at(buf, cx)?;
        // A `u32` less one: no overflow.
        (prefix, i64::from(value).saturating_sub(1))
    } else if kind == LenKind::String {
        match buf.first_chunk::<2>() {
            Some(b) => (2, i64::from(i16::from_be_bytes(*b))),
            None => return Err(DecodeError::eof(2, start)),
        }
    } else {
        match buf.first_chunk::<4>() {
            Some(b) => (4, i64::from(i32::from_be_bytes(*b))),
            None => return Err(DecodeError::eof(4, start)),
        }
    };
    if len < 0 {
        if len == -1 {
            return Ok((prefix, None));
        }
        return Err(DecodeError::new(
            ErrorKind::NegativeLength { length: len },
            start,
        ));
    }
    let len_u = len as u64;
    let remaining = start.saturating_sub(prefix);
    if kind == LenKind::String && len_u > LenKind::String.max() as u64 {
        return Err(DecodeError::new(
            ErrorKind::TooLong {
                length: usize::try_from(len_u).unwrap_or(usize::MAX),
                max: i16::MAX as usize,
            },
            start,
        ));
    }
    if len_u > remaining as u64 {
        let kind = if kind == LenKind::Array {
            ErrorKind::CountExceedsRemaining {
                count: len_u,
                remaining,
            }
        } else {
            ErrorKind::LengthExceedsRemaining {
                length: len_u,
                remaining,
            }
        };
        return Err(DecodeError::new(kind, start));
    }
    Ok((prefix, Some(len as usize)))
}

#[cold]
pub(crate) fn unexpected_null(cx: Ctx, remaining: usize) -> DecodeError {
    DecodeError::new(
        ErrorKind::UnexpectedNull {
            version: cx.version,
        },
        remaining,
    )
}

/// Writes a length-prefixed run of bytes.
#[inline]
pub(crate) fn encode_bytes<B: Sink>(
    buf: &mut B,
    cx: Ctx,
    kind: LenKind,
    data: &[u8],
) -> Result<(), EncodeError> {
    write_len(buf, cx, kind, Some(data.len()))?;
    buf.put_slice(data);
    Ok(())
}

/// Reads a length-prefixed run of bytes as a zero-copy slice of `buf`.
#[inline]
pub(crate) fn decode_bytes(
    buf: &mut Bytes,
    cx: Ctx,
    kind: LenKind,
) -> Result<Option<Bytes>, DecodeError> {
    Ok(read_len(buf, cx, kind)?.map(|len| buf.split_to(len)))
}

macro_rules! byte_codec {
    ($ty:ty, $as_slice:expr, $wrap:expr) => {
        impl Codec for $ty {
            // A compact length of one byte at least.
            const MIN_LEN: usize = 1;

            /// The length, then the bytes as one `put_shared`: copied by a buffer, kept by
            /// reference by [`Segments`](crate::Segments).
            #[inline]
            fn encode_value<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
                let bytes: &Bytes = $as_slice(self);
                write_len(buf, cx, LenKind::Bytes, Some(bytes.len()))?;
                buf.put_shared(bytes);
                Ok(())
            }

            #[inline]
            fn value_len(&self, cx: Ctx) -> usize {
                bytes_len(cx, LenKind::Bytes, $as_slice(self).len())
            }

            #[inline]
            fn decode_value(buf: &mut Bytes, cx: Ctx) -> Result<Self, DecodeError> {
                let start = buf.remaining();
                match decode_bytes(buf, cx, LenKind::Bytes)? {
                    Some(bytes) => Ok($wrap(bytes)),
                    None => Err(unexpected_null(cx, start)),
                }
            }
        }

        impl NullableCodec for $ty {
            length_prefixed_null!(LenKind::Bytes);

            #[inline]
            fn decode_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
                Ok(decode_bytes(buf, cx, LenKind::Bytes)?.map($wrap))
            }
        }
    };
}

fn bytes_slice(b: &Bytes) -> &Bytes {
    b
}

fn records_slice(r: &Records) -> &Bytes {
    r.as_bytes()
}

fn bytes_from(b: Bytes) -> Bytes {
    b
}

byte_codec!(Bytes, bytes_slice, bytes_from);
byte_codec!(Records, records_slice, Records::new);

#[cfg(test)]
// Tests may panic on what they check.
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The one-byte fast path of compact prefixes and the general path meet at 126/127.
    #[test]
    fn compact_prefixes_around_the_one_byte_limit() {
        let flexible = Ctx::new(1, true);
        for (len, prefix) in [
            (0usize, &[0x01][..]),
            (125, &[0x7e]),
            (126, &[0x7f]),
            (127, &[0x80, 0x01]),
            (128, &[0x81, 0x01]),
            (16_382, &[0xff, 0x7f]),
            (16_383, &[0x80, 0x80, 0x01]),
        ] {
            let mut out = Vec::new();
            write_len(&mut out, flexible, LenKind::Array, Some(len)).unwrap();
            assert_eq!(out, prefix, "length {len}");
            assert_eq!(
                prefix_len(flexible, LenKind::Array, Some(len)),
                prefix.len()
            );
        }
        let mut null = Vec::new();
        write_len(&mut null, flexible, LenKind::String, None).unwrap();
        assert_eq!(null, [0]);
        let mut classic = Vec::new();
        write_len(&mut classic, Ctx::new(0, false), LenKind::String, Some(126)).unwrap();
        assert_eq!(classic, [0, 126]);
    }
}
