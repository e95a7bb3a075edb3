//! The walker every view shares: it steps over the values of a message, checking them as
//! decoding does when a view is opened, and reads them where they lie afterwards.

use super::index::{ViewIndex, ABSENT};
use super::source::Source;
use crate::codec::Ctx;
use crate::primitives::bytes::{len_at, LenKind};
use crate::primitives::varint::{short_uvarint, uvarint_in_at};

/// A position in a view's [`Source`].
///
/// Opening a view walks the whole message with a cursor whose steps accept exactly what
/// [`Codec::decode_value`](crate::codec::Codec::decode_value) accepts: every length and count
/// against the bytes that remain, every varint, every string's UTF-8, every null where the
/// version allows one, every tagged section. Views then read with the same steps, at the
/// positions the walk recorded, over bytes that were checked.
///
/// A type of your own that is a field of a message implements
/// [`Viewable`](super::Viewable) with these steps. Each returns `None` or `false` when the
/// value is not there as it should be; the view then reports the error that decoding gives.
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'a> {
    /// What the cursor may read: the source, or the source up to the end of a tagged field.
    src: Source<'a>,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `src`.
    #[inline]
    pub fn new(src: Source<'a>) -> Self {
        Cursor::at(src, 0)
    }

    /// A cursor at byte `pos` of `src`.
    #[inline]
    pub(crate) fn at(src: Source<'a>, pos: usize) -> Self {
        Cursor { src, pos }
    }

    /// Where the cursor is, in bytes from the start of the source.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves the cursor to `pos`: for the walk of an array, to a position equal to where the
    /// cursor is, but known sooner (see `elements` in `leaf.rs`).
    #[inline(always)]
    pub(crate) fn set_pos(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// [`pos`](Self::pos) as a view records it. Views open only on inputs whose every position
    /// fits (`MAX_INPUT`).
    #[inline(always)]
    pub fn place(&self) -> u32 {
        self.pos as u32
    }

    /// The bytes the cursor walks.
    #[inline]
    pub fn source(&self) -> Source<'a> {
        self.src
    }

    /// Whether the cursor has reached the end of what it may read.
    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.src.bytes().len()
    }

    /// What is left to read.
    #[inline(always)]
    pub fn rest(&self) -> &'a [u8] {
        self.src.bytes().get(self.pos..).unwrap_or_default()
    }

    /// The byte at the cursor. Indexed from the source rather than read through
    /// [`rest`](Self::rest), whose slice of what remains would put a select between the load
    /// and the position it depends on: where one length decides where the next is read, that
    /// select would lengthen the chain of loads a walk waits on.
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.src.bytes().get(self.pos).copied()
    }

    /// Steps over `n` bytes, if there are that many.
    #[inline(always)]
    pub fn skip(&mut self, n: usize) -> bool {
        if n <= self.src.bytes().len().saturating_sub(self.pos) {
            self.pos = self.pos.wrapping_add(n);
            return true;
        }
        false
    }

    /// The next `n` bytes, if there are that many.
    #[inline(always)]
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let start = self.pos;
        if !self.skip(n) {
            return None;
        }
        self.src.bytes().get(start..self.pos)
    }

    /// An unsigned varint, under `cx`'s strictness.
    #[inline]
    pub fn uvarint(&mut self, cx: Ctx) -> Option<u32> {
        let rest = self.rest();
        if let Some(&first) = rest.first() {
            if first < 0x80 {
                self.pos = self.pos.wrapping_add(1);
                return Some(u32::from(first));
            }
        }
        let (value, len) = uvarint_in_at(rest, cx).ok()?;
        self.pos = self.pos.wrapping_add(len);
        Some(value)
    }

    /// A length or count prefix: `Some(None)` for null. The same rules as decoding's, and the
    /// same fast path: a prefix that is all there, giving a length that fits. The common cases,
    /// a compact length of one byte and a null, are read here, in the walk of every struct;
    /// longer lengths out of line.
    #[inline(always)]
    pub(crate) fn prefix(&mut self, cx: Ctx, kind: LenKind) -> Option<Option<usize>> {
        if cx.flexible {
            if let Some(b) = self.peek() {
                let n = usize::from(b).wrapping_sub(1);
                if b < 0x80 && (b == 0 || n < self.src.bytes().len().wrapping_sub(self.pos)) {
                    self.pos = self.pos.wrapping_add(1);
                    // Zero is a null: a length of -1, plus one.
                    return Some((b != 0).then_some(n));
                }
            }
            return self.advance(prefix_varint(self.rest(), cx, kind));
        }
        let rest = self.rest();
        let (prefix, len): (usize, i64) = if kind == LenKind::String {
            match rest.first_chunk::<2>() {
                Some(b) => (2, i64::from(i16::from_be_bytes(*b))),
                None => return self.advance(prefix_slow(rest, cx, kind)),
            }
        } else {
            match rest.first_chunk::<4>() {
                Some(b) => (4, i64::from(i32::from_be_bytes(*b))),
                None => return self.advance(prefix_slow(rest, cx, kind)),
            }
        };
        match usize::try_from(len) {
            Ok(n) if n <= rest.len().saturating_sub(prefix) => {
                self.pos = self.pos.wrapping_add(prefix);
                Some(Some(n))
            }
            _ => self.advance(prefix_slow(rest, cx, kind)),
        }
    }

    /// Moves past a prefix an out-of-line reader read, as `(bytes it takes, length)`. Those
    /// readers take the bytes rather than the cursor, so that the cursor is never handed to a
    /// call, and stays in registers through a walk.
    #[inline(always)]
    fn advance(&mut self, read: Option<(usize, Option<usize>)>) -> Option<Option<usize>> {
        let (prefix, len) = read?;
        self.pos = self.pos.wrapping_add(prefix);
        Some(len)
    }

    /// A length or count that the walk accepted, read again by a view: without the checks the
    /// walk made, as the reader of checked bytes may. A null reads as an empty value.
    #[inline(always)]
    pub(crate) fn checked_len(&mut self, cx: Ctx, kind: LenKind) -> usize {
        let rest = self.rest();
        if cx.flexible {
            // Up to three bytes from one load: every length a string, an array count or a
            // records field of up to 2 MiB has.
            let Some((value, prefix)) = short_uvarint(rest).or_else(|| long_uvarint(rest, cx))
            else {
                return 0;
            };
            self.pos = self.pos.wrapping_add(prefix);
            return (value as usize).saturating_sub(1);
        }
        let (prefix, len) = if kind == LenKind::String {
            match rest.first_chunk::<2>() {
                Some(b) => (2, i64::from(i16::from_be_bytes(*b))),
                None => return 0,
            }
        } else {
            match rest.first_chunk::<4>() {
                Some(b) => (4, i64::from(i32::from_be_bytes(*b))),
                None => return 0,
            }
        };
        self.pos = self.pos.wrapping_add(prefix);
        usize::try_from(len).unwrap_or(0)
    }

    /// The next `len` bytes, which the walk found there: the slice's own bounds check is the
    /// only one, where [`take`](Self::take) first checks that they remain. Empty where they do
    /// not, which no accepted input has.
    #[inline(always)]
    fn checked_take(&mut self, len: usize) -> &'a [u8] {
        let start = self.pos;
        self.pos = start.wrapping_add(len);
        self.src.bytes().get(start..self.pos).unwrap_or_default()
    }

    /// A string that the walk accepted, read again by a view; empty for a null.
    #[inline(always)]
    pub(crate) fn checked_str(&mut self, cx: Ctx) -> &'a str {
        let len = self.checked_len(cx, LenKind::String);
        crate::ascii::to_str(self.checked_take(len)).unwrap_or_default()
    }

    /// Bytes that the walk accepted, read again by a view; empty for a null.
    #[inline(always)]
    pub(crate) fn checked_bytes(&mut self, cx: Ctx) -> &'a [u8] {
        let len = self.checked_len(cx, LenKind::Bytes);
        self.checked_take(len)
    }

    /// An array's count that the walk accepted, read again by a view; 0 for a null.
    #[inline(always)]
    pub(crate) fn checked_count(&mut self, cx: Ctx) -> usize {
        self.checked_len(cx, LenKind::Array)
    }

    /// A string, `Some(None)` for null; `None` where its bytes are not UTF-8.
    #[inline(always)]
    pub fn string(&mut self, cx: Ctx) -> Option<Option<&'a str>> {
        let Some(len) = self.prefix(cx, LenKind::String)? else {
            return Some(None);
        };
        let bytes = self.take(len)?;
        core::str::from_utf8(bytes).ok().map(Some)
    }

    /// Steps over a string and its length, and says where its bytes start, `Some(None)` for
    /// null; `None` where they are not UTF-8. What the walk checks: nearly every string Kafka
    /// carries (names, ids, hosts) is ASCII, checked inline.
    #[inline(always)]
    pub(crate) fn span_string(&mut self, cx: Ctx) -> Option<Option<u32>> {
        let Some(len) = self.prefix(cx, LenKind::String)? else {
            return Some(None);
        };
        let start = self.place();
        let bytes = self.take(len)?;
        (bytes.is_ascii() || core::str::from_utf8(bytes).is_ok()).then_some(Some(start))
    }

    /// A run of bytes (`bytes` or `records`), `Some(None)` for null.
    #[inline(always)]
    pub fn bytes(&mut self, cx: Ctx) -> Option<Option<&'a [u8]>> {
        match self.prefix(cx, LenKind::Bytes)? {
            Some(len) => self.take(len).map(Some),
            None => Some(None),
        }
    }

    /// Steps over a run of bytes and its length, and says where the bytes start, `Some(None)`
    /// for null: what the walk needs of a `bytes` field, without making the slice
    /// [`bytes`](Self::bytes) returns (whose bounds the step has already checked, a second
    /// time).
    #[inline(always)]
    pub(crate) fn span_bytes(&mut self, cx: Ctx) -> Option<Option<u32>> {
        let len = self.prefix(cx, LenKind::Bytes)?;
        self.span_len(len)
    }

    /// [`span_bytes`](Self::span_bytes) for a `records` field, whose compact length of up to
    /// three bytes is read here, inline, and stepped over with the records in one step. Record
    /// batches are seldom shorter than 128 bytes, so for them the longer lengths are the common
    /// case, where other fields' go out of line to keep every struct's walk small.
    #[inline(always)]
    pub(crate) fn span_records(&mut self, cx: Ctx) -> Option<Option<u32>> {
        if cx.flexible {
            if let Some((prefix, n)) = batch_length(self.src.bytes(), self.pos) {
                // The length fits in what follows it: `batch_length` checked.
                let start = self.pos.wrapping_add(prefix);
                self.pos = start.wrapping_add(n);
                return Some(Some(start as u32));
            }
        }
        let len = self.prefix(cx, LenKind::Bytes)?;
        self.span_len(len)
    }

    /// Steps over `len` bytes, or over nothing for a null, and says where they start.
    #[inline(always)]
    fn span_len(&mut self, len: Option<usize>) -> Option<Option<u32>> {
        match len {
            Some(len) => {
                let start = self.place();
                self.skip(len).then_some(Some(start))
            }
            None => Some(None),
        }
    }

    /// An array's element count, `Some(None)` for null. The count is at most the bytes that
    /// remain, as decoding requires.
    #[inline(always)]
    pub fn count(&mut self, cx: Ctx) -> Option<Option<usize>> {
        self.prefix(cx, LenKind::Array)
    }

    /// Steps over an array of `size`-byte values, its count and its elements, as
    /// [`count`](Self::count) and [`fixed_elements`](Self::fixed_elements) do: `Some(false)`
    /// for null. A compact count of one byte is read here, and the array's end is computed
    /// from it in one step: the walk of a struct that holds several such arrays (a partition's
    /// replicas) waits on each count before it can read the next, so the fewer operations
    /// between the load of one count and the next, the shorter that chain.
    #[inline(always)]
    pub(crate) fn skip_fixed_array(&mut self, cx: Ctx, size: usize) -> Option<bool> {
        let bytes = self.src.bytes();
        if cx.flexible {
            if let Some(b) = self.peek() {
                // Count plus one, from 1 to 127: the array takes one byte and `b - 1` values.
                let span = usize::from(b)
                    .wrapping_mul(size)
                    .wrapping_add(1)
                    .wrapping_sub(size);
                if b.wrapping_sub(1) < 0x7f && span <= bytes.len().wrapping_sub(self.pos) {
                    self.pos = self.pos.wrapping_add(span);
                    return Some(true);
                }
            }
        }
        match self.count(cx)? {
            Some(count) => self.fixed_elements(count, size).map(|_| true),
            None => Some(false),
        }
    }

    /// The elements of an array of `count` values of `size` bytes each: all of them must be
    /// there, as decoding requires.
    #[inline(always)]
    pub fn fixed_elements(&mut self, count: usize, size: usize) -> Option<&'a [u8]> {
        self.take(count.checked_mul(size)?)
    }

    /// A struct's presence byte where it is nullable: `Some(false)` for null (any negative
    /// byte, as Kafka's reader has it).
    #[inline]
    pub(crate) fn presence(&mut self) -> Option<bool> {
        let byte = *self.take(1)?.first()?;
        Some((byte as i8) >= 0)
    }

    /// A struct's presence varint in a tagged field: null for 0, and for a value past
    /// `i32::MAX` (Kafka reads the varint as a signed integer that must be positive).
    #[inline]
    pub(crate) fn tagged_presence(&mut self, cx: Ctx) -> Option<bool> {
        let presence = self.uvarint(cx)?;
        Some(presence != 0 && i32::try_from(presence).is_ok())
    }

    /// The tagged section at the cursor. `known` walks a field whose tag the struct knows in
    /// this version, from a cursor that ends with the field, recording it in `index`, and
    /// returns whether it was accepted; `None` means the tag is not known here. Unknown tags are
    /// kept by a struct that `keeps_unknown`, and refused by any other, as decoding does.
    ///
    /// Says where the section is, for the view of its unknown fields: `ABSENT` for a section
    /// with no field, which is nearly every section; `None` where decoding would fail.
    #[inline(always)]
    pub fn tagged(
        &mut self,
        cx: Ctx,
        keeps_unknown: bool,
        index: &mut ViewIndex,
        known: &mut dyn FnMut(u32, &mut Cursor<'a>, &mut ViewIndex) -> Option<bool>,
    ) -> Option<u32> {
        // An empty section is one zero byte.
        if self.rest().first() == Some(&0) {
            self.pos = self.pos.wrapping_add(1);
            return Some(ABSENT);
        }
        let at = self.place();
        *self = self.tagged_fields(cx, keeps_unknown, index, known)?;
        Some(at)
    }

    #[inline(never)]
    fn tagged_fields(
        mut self,
        cx: Ctx,
        keeps_unknown: bool,
        index: &mut ViewIndex,
        known: &mut dyn FnMut(u32, &mut Cursor<'a>, &mut ViewIndex) -> Option<bool>,
    ) -> Option<Cursor<'a>> {
        let count = self.uvarint(cx)?;
        // Each field takes at least two bytes (tag and size).
        if count as usize > self.rest().len() / 2 {
            return None;
        }
        let mut previous: Option<u32> = None;
        for _ in 0..count {
            let tag = self.uvarint(cx)?;
            if cx.strict {
                if previous.is_some_and(|p| tag <= p) {
                    return None;
                }
                previous = Some(tag);
            }
            let size = self.uvarint(cx)? as usize;
            let start = self.pos;
            if !self.skip(size) {
                return None;
            }
            let mut field = Cursor {
                src: self.src.truncated(self.pos),
                pos: start,
            };
            match known(tag, &mut field, index) {
                // A known field uses its bytes exactly.
                Some(true) if field.at_end() => {}
                Some(_) => return None,
                None if keeps_unknown => {}
                None => return None,
            }
        }
        Some(self)
    }
}

/// A compact length of more than one byte at the front of `rest`, as `(bytes it takes,
/// length)`. Two and three bytes cover nearly every other length, records included; what
/// [`short_varint`] does not read the slow path decides.
#[inline(never)]
fn prefix_varint(rest: &[u8], cx: Ctx, kind: LenKind) -> Option<(usize, Option<usize>)> {
    match short_varint(rest, kind) {
        Some((prefix, n)) => Some((prefix, Some(n))),
        None => prefix_slow(rest, cx, kind),
    }
}

/// A compact length of one to three bytes at the front of `rest`, not null, as short as its
/// value allows and fitting in what follows, as `(bytes it takes, length)`; `None` for anything
/// else (a null, a varint with a last byte of zero, which strict reading refuses, a string past
/// the longest Kafka allows, fewer than four bytes left), which [`prefix_slow`] decides.
#[inline(always)]
fn short_varint(rest: &[u8], kind: LenKind) -> Option<(usize, usize)> {
    let (value, prefix) = short_uvarint(rest)?;
    // The last byte is not zero: the value needs all of the bytes before it, and more. Tested
    // per length, so that each is a comparison with a constant.
    let minimal = match prefix {
        1 => value >= 1,
        2 => value >= 0x80,
        _ => value >= 0x4000,
    };
    let n = (value as usize).wrapping_sub(1);
    (minimal && n <= kind.max() && n <= rest.len().wrapping_sub(prefix)).then_some((prefix, n))
}

/// A compact length of two or three bytes at byte `pos` of `bytes`, not null, as short as its
/// value allows and fitting in what follows, as `(bytes it takes, length)`: what a records field
/// of 127 bytes to 2 MiB has, a record batch's usual size. Read from one load of four bytes by
/// their index, as [`short_varint`] reads every length but tested for these two lengths alone;
/// `None` for anything else, which the general reader of a prefix decides.
#[inline(always)]
fn batch_length(bytes: &[u8], pos: usize) -> Option<(usize, usize)> {
    let rest = bytes.get(pos..)?;
    let word = u32::from_le_bytes(*rest.first_chunk::<4>()?);
    // A value of at least 0x80 is a length of at least 127, below `LenKind::Bytes`' longest;
    // tested in each branch, so that the prefix is a constant there.
    let fits = |value: u32, prefix: usize| {
        let n = (value as usize).wrapping_sub(1);
        (n <= rest.len().wrapping_sub(prefix)).then_some((prefix, n))
    };
    // The continuation bits of the first three bytes, then the last byte's value bits, which
    // are not all zero in a length as short as it can be.
    if word & 0x80_8080 == 0x8080 && word & 0x7f_0000 != 0 {
        fits(
            word & 0x7f | (word >> 1) & 0x3f80 | (word >> 2) & 0x1f_c000,
            3,
        )
    } else if word & 0x8080 == 0x80 && word & 0x7f00 != 0 {
        fits(word & 0x7f | (word >> 1) & 0x3f80, 2)
    } else {
        None
    }
}

/// A varint of four bytes or more at the front of `rest`, or one at the end of the input, as
/// `(value, bytes it takes)`: out of line, with the error it drops, so that the readers of
/// lengths the walk accepted stay small enough to be inlined into every accessor.
#[cold]
#[inline(never)]
fn long_uvarint(rest: &[u8], cx: Ctx) -> Option<(u32, usize)> {
    uvarint_in_at(rest, cx).ok()
}

/// Every rule of a prefix at the front of `rest`, as `(bytes it takes, length)`.
#[inline(never)]
fn prefix_slow(rest: &[u8], cx: Ctx, kind: LenKind) -> Option<(usize, Option<usize>)> {
    len_at(rest, cx, kind).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reader of a records length reads at its position, not at the front of the input,
    /// and needs four bytes there and the whole length after them.
    #[test]
    fn the_records_length_reader_reads_its_four_bytes_at_its_position() {
        // 300 (0xac 0x02) plus one, after a byte that is not part of it.
        let mut bytes = vec![0xff, 0xad, 0x02, 0x00];
        assert_eq!(batch_length(&bytes, 1), None, "three bytes left");
        bytes.resize(400, 0);
        assert_eq!(batch_length(&bytes, 1), Some((2, 300)));
        bytes.truncate(302);
        assert_eq!(batch_length(&bytes, 1), None, "299 bytes after the length");
    }

    /// Where the inline reader of a compact length reads one, it reads what every rule of a
    /// prefix reads, strict or not, for each kind of length, whatever follows and however much
    /// does; where it does not, the slow path decides alone. The reader of a records length
    /// reads exactly the two- and three-byte lengths among them.
    #[test]
    fn the_short_length_reader_agrees_with_every_rule() {
        let thirds = [0x00u8, 0x01, 0x7f, 0x80, 0xff];
        let mut inputs: Vec<Vec<u8>> = [4usize, 130, 20_000, 3_000_000]
            .map(|len| vec![0x80; len])
            .into();
        for b0 in 0..=255u8 {
            for b1 in 0..=255u8 {
                for b2 in thirds {
                    for bytes in &mut inputs {
                        let rest = bytes.len();
                        bytes[..3].copy_from_slice(&[b0, b1, b2]);
                        // The reader of a records length reads the two- and three-byte
                        // lengths the general one reads, and nothing else.
                        let general = short_varint(bytes, LenKind::Bytes);
                        assert_eq!(
                            batch_length(bytes, 0),
                            general.filter(|&(prefix, _)| prefix > 1),
                            "{b0:#x} {b1:#x} {b2:#x}, {rest} bytes"
                        );
                        for kind in [LenKind::String, LenKind::Bytes, LenKind::Array] {
                            let Some((prefix, n)) = short_varint(bytes, kind) else {
                                continue;
                            };
                            for strict in [false, true] {
                                let cx = Ctx::new(0, true).with_strict(strict);
                                assert_eq!(
                                    prefix_slow(bytes, cx, kind),
                                    Some((prefix, Some(n))),
                                    "{b0:#x} {b1:#x} {b2:#x}, {rest} bytes"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
