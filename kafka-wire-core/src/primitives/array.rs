//! Arrays: an element count, then the elements.

use super::bytes::{prefix_len, read_len, unexpected_null, write_len, LenKind};
use crate::codec::{Codec, Ctx, NullableCodec, Sink};
use crate::int_array::{Int, IntArray};
use crate::slot::push_filled;
use crate::{DecodeError, EncodeError, ErrorKind};
use bytes::{Buf, Bytes};

/// The most memory an array reserves up front from a count it cannot trust; beyond this it
/// grows as elements actually decode, so a forged count costs at most this much.
const PREALLOC_BYTES: usize = 4096;

/// How many bytes of memory an element may take for each byte of input an honest count
/// promises. Reserving a whole array at once spares the reallocations of a growing one (with
/// glibc, regrown buffers made a large MetadataResponse spend half its decoding time in the
/// kernel and in malloc: benches/messages.rs); this ratio keeps what a forged count can make
/// the decoder reserve within a small multiple of the input.
const MEMORY_PER_INPUT_BYTE: usize = 16;

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
///
/// A count is honest when that many elements could fit in the bytes left, each taking at
/// least `min_len` bytes; it is then reserved at once, as long as the memory stays within
/// [`MEMORY_PER_INPUT_BYTE`] times those bytes. Otherwise the array starts with
/// [`PREALLOC_BYTES`] and grows as its elements decode.
#[inline]
fn initial_capacity(
    count: usize,
    fixed_len: Option<usize>,
    min_len: usize,
    size_of: usize,
    remaining: usize,
    start: usize,
) -> Result<usize, DecodeError> {
    if let Some(n) = fixed_len {
        // Fixed-size elements must all fit in what is left; then the count is trustworthy.
        if count.saturating_mul(n) > remaining {
            return Err(DecodeError::new(
                ErrorKind::CountExceedsRemaining {
                    count: count as u64,
                    remaining,
                },
                start,
            ));
        }
        return Ok(count);
    }
    let per_element = min_len.max(size_of.div_ceil(MEMORY_PER_INPUT_BYTE));
    if min_len > 0 && count.saturating_mul(per_element) <= remaining {
        return Ok(count);
    }
    Ok(count.min(
        PREALLOC_BYTES
            .checked_div(size_of)
            .unwrap_or(PREALLOC_BYTES),
    ))
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
        T::MIN_LEN,
        core::mem::size_of::<T>(),
        buf.remaining(),
        start,
    )?;
    let mut items = Vec::with_capacity(capacity);
    for i in 0..count {
        if let Err(e) = push_filled(&mut items, |slot| T::decode_into(buf, cx, slot)) {
            return Err(e.at_index(i));
        }
    }
    Ok(items)
}

impl<T: Codec> Codec for Vec<T> {
    // A compact length of one byte at least.
    const MIN_LEN: usize = 1;

    #[inline]
    fn encode_value<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
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
    length_prefixed_null!(LenKind::Array);

    #[inline]
    fn decode_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        let start = buf.remaining();
        match read_len(buf, cx, LenKind::Array)? {
            Some(count) => decode_elements(buf, cx, count, start).map(Some),
            None => Ok(None),
        }
    }
}

/// Reads the values of an array of `count` integers as a view of `buf`: no allocation. The
/// values must all be there.
#[inline]
fn decode_ints<T: Int>(
    buf: &mut Bytes,
    count: usize,
    start: usize,
) -> Result<IntArray<T>, DecodeError> {
    let len = count
        .checked_mul(T::SIZE)
        .filter(|&len| len <= buf.remaining())
        .ok_or_else(|| {
            DecodeError::new(
                ErrorKind::CountExceedsRemaining {
                    count: count as u64,
                    remaining: buf.remaining(),
                },
                start,
            )
        })?;
    Ok(IntArray::take_from(buf, len))
}

impl<T: Int> Codec for IntArray<T> {
    // A compact length of one byte at least.
    const MIN_LEN: usize = 1;

    #[inline]
    fn encode_value<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
        write_len(buf, cx, LenKind::Array, Some(self.len()))?;
        buf.put_slice(self.as_be_bytes());
        Ok(())
    }

    #[inline]
    fn value_len(&self, cx: Ctx) -> usize {
        // The bytes of a slice in memory: with a prefix of at most 5 bytes, no overflow.
        prefix_len(cx, LenKind::Array, Some(self.len())).wrapping_add(self.byte_len())
    }

    #[inline]
    fn decode_value(buf: &mut Bytes, cx: Ctx) -> Result<Self, DecodeError> {
        let start = buf.remaining();
        match read_len(buf, cx, LenKind::Array)? {
            Some(count) => decode_ints(buf, count, start),
            None => Err(unexpected_null(cx, start)),
        }
    }
}

impl<T: Int> NullableCodec for IntArray<T> {
    length_prefixed_null!(LenKind::Array);

    #[inline]
    fn decode_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        let start = buf.remaining();
        match read_len(buf, cx, LenKind::Array)? {
            Some(count) => decode_ints(buf, count, start).map(Some),
            None => Ok(None),
        }
    }
}
