//! Arrays: an element count, then the elements.

use super::bytes::{prefix_len, read_len, unexpected_null, write_len, LenKind};
use crate::codec::{Codec, Ctx, NullableCodec};
use crate::{DecodeError, DecodeErrorKind, EncodeError};
use bytes::{Buf, BufMut, Bytes};

/// The most memory an array reserves up front from a count it read; beyond this it grows as
/// elements actually decode, so a forged count costs at most this much.
const PREALLOC_BYTES: usize = 4096;

// The element loops below are instantiated once per element type, hundreds of times across
// the catalogue, so they use a plain `match` rather than `map_err(..)?`, which multiplies the
// code the compiler backend has to chew through for no gain at run time.

/// The elements' total size, saturating.
#[inline]
fn elements_len<T: Codec>(items: &[T], cx: Ctx) -> usize {
    if let Some(n) = T::FIXED_LEN {
        return n.saturating_mul(items.len());
    }
    // Slice patterns rather than `iter()`: the pattern needs no function per element type,
    // where an iterator would be one more instantiation for each of them.
    let mut total = 0usize;
    let mut rest = items;
    while let [item, tail @ ..] = rest {
        total = total.saturating_add(item.value_len(cx));
        rest = tail;
    }
    total
}

/// How many elements to reserve for `count` announced ones, or an error if elements of a fixed
/// size cannot all fit in what is left.
#[inline]
fn initial_capacity(
    count: usize,
    fixed_len: Option<usize>,
    size_of: usize,
    remaining: usize,
    start: usize,
) -> Result<usize, DecodeError> {
    match fixed_len {
        // Fixed-size elements must all fit in what is left; then the count is trustworthy.
        Some(n) if count.saturating_mul(n) > remaining => Err(DecodeError::new(
            DecodeErrorKind::CountExceedsRemaining {
                count: count as u64,
                remaining,
            },
            start,
        )),
        Some(_) => Ok(count),
        None => Ok(count.min(
            PREALLOC_BYTES
                .checked_div(size_of)
                .unwrap_or(PREALLOC_BYTES),
        )),
    }
}

#[inline]
fn decode_elements<T: Codec>(
    buf: &mut Bytes,
    cx: Ctx,
    count: usize,
    start: usize,
) -> Result<Vec<T>, DecodeError> {
    let capacity = initial_capacity(
        count,
        T::FIXED_LEN,
        core::mem::size_of::<T>(),
        buf.remaining(),
        start,
    )?;
    let mut items = Vec::with_capacity(capacity);
    for i in 0..count {
        match T::decode_value(buf, cx) {
            Ok(item) => items.push(item),
            Err(e) => return Err(e.at_index(i)),
        }
    }
    Ok(items)
}

impl<T: Codec> Codec for Vec<T> {
    #[inline]
    fn encode_value<B: BufMut>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
        write_len(buf, cx, LenKind::Array, Some(self.len()))?;
        // Slice patterns, as in `elements_len`.
        let mut rest = self.as_slice();
        while let [item, tail @ ..] = rest {
            if let Err(e) = item.encode_value(buf, cx) {
                return Err(e.at_index(self.len().saturating_sub(rest.len())));
            }
            rest = tail;
        }
        Ok(())
    }

    #[inline]
    fn value_len(&self, cx: Ctx) -> usize {
        prefix_len(cx, LenKind::Array, Some(self.len())).saturating_add(elements_len(self, cx))
    }

    #[inline]
    fn decode_value(buf: &mut Bytes, cx: Ctx) -> Result<Self, DecodeError> {
        let start = buf.remaining();
        match read_len(buf, cx, LenKind::Array)? {
            Some(count) => decode_elements(buf, cx, count, start),
            None => Err(unexpected_null(cx, start)),
        }
    }
}

impl<T: Codec> NullableCodec for Vec<T> {
    // Present values look like non-nullable ones; only the null differs.
    #[inline]
    fn encode_present<B: BufMut>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
        self.encode_value(buf, cx)
    }

    #[inline]
    fn present_len(&self, cx: Ctx) -> usize {
        self.value_len(cx)
    }

    fn encode_null<B: BufMut>(buf: &mut B, cx: Ctx) {
        // A null prefix never fails.
        let _ = write_len(buf, cx, LenKind::Array, None);
    }

    fn null_len(cx: Ctx) -> usize {
        if cx.flexible {
            1
        } else {
            4
        }
    }

    #[inline]
    fn decode_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        let start = buf.remaining();
        match read_len(buf, cx, LenKind::Array)? {
            Some(count) => decode_elements(buf, cx, count, start).map(Some),
            None => Ok(None),
        }
    }
}
