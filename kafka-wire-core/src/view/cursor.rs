//! The walker every view shares: it steps over the values of a message, checking them as
//! decoding does when a view is opened, and only finding where they are afterwards.

use super::source::Source;
use crate::codec::Ctx;
use crate::primitives::bytes::{len_at, LenKind};
use crate::primitives::varint::uvarint_in_at;

/// A position in a view's [`Source`], and whether values stepped over are checked.
///
/// Opening a view walks the whole message with a *checking* cursor, which accepts exactly what
/// [`Codec::decode_value`](crate::codec::Codec::decode_value) accepts: every length and count
/// against the bytes that remain, every varint, every string's UTF-8, every null where the
/// version allows one, every tagged section. Views then read with cursors that only step, over
/// bytes that were checked.
///
/// A type of your own that is a field of a message implements
/// [`Viewable`](super::Viewable) with these steps. Each returns `None` or `false` when the
/// value is not there as it should be; the view then reports the error that decoding gives.
#[derive(Clone, Copy, Debug)]
pub struct Cursor<'a> {
    src: Source<'a>,
    /// The end of what this cursor may read: the source's end, or a tagged field's.
    end: usize,
    pos: usize,
    check: bool,
}

impl<'a> Cursor<'a> {
    /// A checking cursor at the start of `src`: every step checks its value as decoding does.
    #[inline]
    pub fn checking(src: Source<'a>) -> Self {
        Cursor {
            src,
            end: src.bytes().len(),
            pos: 0,
            check: true,
        }
    }

    /// A cursor that steps over checked bytes, from `at`.
    #[inline]
    pub(crate) fn skipping(src: Source<'a>, at: usize) -> Self {
        Cursor {
            src,
            end: src.bytes().len(),
            pos: at,
            check: false,
        }
    }

    /// Where the cursor is, in bytes from the start of the source.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes the cursor walks.
    #[inline]
    pub fn source(&self) -> Source<'a> {
        self.src
    }

    /// Whether values are checked, as when a view is opened, or only stepped over.
    #[inline]
    pub fn checks(&self) -> bool {
        self.check
    }

    /// Whether the cursor has reached the end of what it may read.
    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.end
    }

    /// What is left to read.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.src.bytes().get(self.pos..self.end).unwrap_or_default()
    }

    /// A cursor like this one, at `at`.
    #[inline]
    pub(crate) fn moved_to(&self, at: usize) -> Self {
        Cursor { pos: at, ..*self }
    }

    /// Steps over `n` bytes, if there are that many.
    #[inline]
    pub fn skip(&mut self, n: usize) -> bool {
        match self.pos.checked_add(n) {
            Some(end) if end <= self.end => {
                self.pos = end;
                true
            }
            _ => false,
        }
    }

    /// The next `n` bytes, if there are that many.
    #[inline]
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
    /// same fast path: a prefix that is all there, giving a length that fits.
    #[inline]
    pub(crate) fn prefix(&mut self, cx: Ctx, kind: LenKind) -> Option<Option<usize>> {
        let rest = self.rest();
        let (prefix, len): (usize, i64) = if cx.flexible {
            // Up to three bytes cover nearly every length, records included. A last byte of
            // zero makes a varint longer than it needs to be, which strict reading refuses:
            // the slow path decides.
            match *rest {
                [b, ..] if b < 0x80 => (1, i64::from(b).wrapping_sub(1)),
                [b0, b1, ..] if b1 < 0x80 && b1 != 0 => {
                    let value = i64::from(b0 & 0x7f) | (i64::from(b1) << 7);
                    (2, value.wrapping_sub(1))
                }
                [b0, b1, b2, ..] if b1 >= 0x80 && b2 < 0x80 && b2 != 0 => {
                    let value =
                        i64::from(b0 & 0x7f) | (i64::from(b1 & 0x7f) << 7) | (i64::from(b2) << 14);
                    (3, value.wrapping_sub(1))
                }
                _ => return self.prefix_slow(cx, kind),
            }
        } else if kind == LenKind::String {
            match rest.first_chunk::<2>() {
                Some(b) => (2, i64::from(i16::from_be_bytes(*b))),
                None => return self.prefix_slow(cx, kind),
            }
        } else {
            match rest.first_chunk::<4>() {
                Some(b) => (4, i64::from(i32::from_be_bytes(*b))),
                None => return self.prefix_slow(cx, kind),
            }
        };
        match usize::try_from(len) {
            Ok(n) if n <= rest.len().saturating_sub(prefix) => {
                self.pos = self.pos.wrapping_add(prefix);
                Some(Some(n))
            }
            _ => self.prefix_slow(cx, kind),
        }
    }

    #[inline(never)]
    fn prefix_slow(&mut self, cx: Ctx, kind: LenKind) -> Option<Option<usize>> {
        let (prefix, len) = len_at(self.rest(), cx, kind).ok()?;
        self.pos = self.pos.wrapping_add(prefix);
        Some(len)
    }

    /// A string's bytes, `Some(None)` for null; a checking cursor also checks that they are
    /// UTF-8.
    #[inline]
    pub fn string(&mut self, cx: Ctx) -> Option<Option<&'a [u8]>> {
        let Some(len) = self.prefix(cx, LenKind::String)? else {
            return Some(None);
        };
        let bytes = self.take(len)?;
        if self.check && core::str::from_utf8(bytes).is_err() {
            return None;
        }
        Some(Some(bytes))
    }

    /// A run of bytes (`bytes` or `records`), `Some(None)` for null.
    #[inline]
    pub fn bytes(&mut self, cx: Ctx) -> Option<Option<&'a [u8]>> {
        match self.prefix(cx, LenKind::Bytes)? {
            Some(len) => self.take(len).map(Some),
            None => Some(None),
        }
    }

    /// An array's element count, `Some(None)` for null. The count is at most the bytes that
    /// remain, as decoding requires.
    #[inline]
    pub fn count(&mut self, cx: Ctx) -> Option<Option<usize>> {
        self.prefix(cx, LenKind::Array)
    }

    /// The elements of an array of `count` values of `size` bytes each: all of them must be
    /// there, as decoding requires.
    #[inline]
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
    /// this version, from a cursor that ends with the field, and returns whether it was
    /// accepted; `None` means the tag is not known here. Unknown tags are kept by a struct that
    /// `keeps_unknown`, and refused by any other, as decoding does.
    #[inline]
    pub fn tagged(
        &mut self,
        cx: Ctx,
        keeps_unknown: bool,
        known: &mut dyn FnMut(u32, &mut Cursor<'a>) -> Option<bool>,
    ) -> bool {
        // Nearly every section is empty: one zero byte.
        if self.rest().first() == Some(&0) {
            self.pos = self.pos.wrapping_add(1);
            return true;
        }
        self.tagged_fields(cx, keeps_unknown, known).is_some()
    }

    #[inline(never)]
    fn tagged_fields(
        &mut self,
        cx: Ctx,
        keeps_unknown: bool,
        known: &mut dyn FnMut(u32, &mut Cursor<'a>) -> Option<bool>,
    ) -> Option<()> {
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
                end: self.pos,
                pos: start,
                ..*self
            };
            match known(tag, &mut field) {
                // A known field uses its bytes exactly.
                Some(true) if field.at_end() => {}
                Some(_) => return None,
                None if keeps_unknown => {}
                None => return None,
            }
        }
        Some(())
    }
}
