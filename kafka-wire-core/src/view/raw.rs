//! What a struct's view holds: its record in the index, where each of its fields is.

use super::cursor::Cursor;
use super::index::{ViewIndex, ABSENT, NULL};
use super::reader::Reader;
use super::source::Source;
use super::viewable::Viewable;
use crate::codec::{Codec, Ctx};
use crate::fields::FieldInfo;
use crate::{RawTaggedField, UnknownTaggedFields};
use core::fmt;

/// A struct in a view: its record in the index, `N` words. A struct that opens with a run of
/// fields of one width each has one word for the run, first: where the struct starts, from
/// which each of them is at an offset ([`fixed`](Self::fixed)), and so is the field after the
/// run when its view is found by position. Every other field has a word saying where its view
/// finds it (a position in the input, a record of the index, `ABSENT` or `NULL`), and the last
/// word says where the tagged section starts. A struct that holds
/// indexed values (its record is followed by theirs) has one word more, where the next record
/// starts. Every view `#[derive(KafkaMessage)]` writes wraps one; its accessors read through
/// it. Not part of the public API.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawStruct<'a, const N: usize> {
    r: Reader<'a>,
    /// The record's first word.
    at: u32,
    /// What that word holds, read once: for a struct that opens with a run of fields of one
    /// width, where it starts. Nothing reads it for any other struct, and the read is then left
    /// out of the program.
    start: u32,
    cx: Ctx,
}

impl<'a, const N: usize> RawStruct<'a, N> {
    /// Walks a struct that holds no indexed value (a leaf) at the cursor with `walk` (its
    /// generated walk, which notes where each field is), records it, and says where the record
    /// is; `None` where decoding would fail. Nothing is recorded while the fields are walked,
    /// so the record is made on the stack and goes into the index whole.
    #[inline(always)]
    pub fn walk_leaf(
        c: &mut Cursor<'_>,
        cx: Ctx,
        index: &mut ViewIndex,
        walk: impl FnOnce(&mut Cursor<'_>, Ctx, &mut ViewIndex, &mut [u32; N]) -> bool,
    ) -> Option<u32> {
        let mut slots = [ABSENT; N];
        if !walk(c, cx, index, &mut slots) {
            return None;
        }
        Some(index.push(&slots))
    }

    /// [`walk_leaf`](Self::walk_leaf) for a struct that holds indexed values: its record is made
    /// first, so that it comes before theirs, and written as the walk goes; one more word,
    /// written last, says where the record after its own and theirs starts.
    #[inline(always)]
    pub fn walk_node(
        c: &mut Cursor<'_>,
        cx: Ctx,
        index: &mut ViewIndex,
        walk: impl FnOnce(&mut Cursor<'_>, Ctx, &mut ViewIndex, &mut InIndex) -> bool,
    ) -> Option<u32> {
        let at = index.push_absent(N.saturating_add(1));
        if !walk(c, cx, index, &mut InIndex(at)) {
            return None;
        }
        let next = index.next();
        index.set(at, N, next);
        Some(at)
    }

    /// The struct whose record is at `at`.
    #[inline]
    pub fn view(r: Reader<'a>, at: u32, cx: Ctx) -> Self {
        let start = r.word(at);
        RawStruct { r, at, start, cx }
    }

    /// A struct placed by its start alone ([`Viewable::PLACED`]), at byte `start`, with no
    /// record: it reads nothing but its run and its tagged section
    /// ([`unknown_after`](Self::unknown_after)).
    #[inline]
    pub fn placed(r: Reader<'a>, start: u32, cx: Ctx) -> Self {
        RawStruct {
            r,
            at: ABSENT,
            start,
            cx,
        }
    }

    /// The struct whose record is at `at`, as an element of an array, and where the next
    /// element's record is.
    #[inline]
    pub fn element(r: Reader<'a>, at: u32, cx: Ctx, leaf: bool) -> (Self, u32) {
        let end = at.wrapping_add(N as u32);
        let next = if leaf { end } else { r.word(end) };
        (Self::view(r, at, cx), next)
    }

    /// A struct that is not there: every field reads as its default.
    #[inline]
    pub fn absent() -> Self {
        RawStruct {
            r: Reader::empty(),
            at: ABSENT,
            start: ABSENT,
            cx: Ctx::new(0, false),
        }
    }

    /// What the view was opened on.
    #[inline]
    pub fn source(&self) -> Source<'a> {
        self.r.source()
    }

    /// The context the struct was read in.
    #[inline]
    pub fn cx(&self) -> Ctx {
        self.cx
    }

    /// The same struct, read as flexible or not: for a field whose flexible versions are its
    /// own.
    #[inline]
    #[must_use]
    pub fn with_flexible(self, flexible: bool) -> Self {
        RawStruct {
            cx: self.cx.with_flexible(flexible),
            ..self
        }
    }

    /// Where field `i` is (the tagged section's start for `N - 1`).
    #[inline]
    fn slot(&self, i: usize) -> u32 {
        // An absent struct reads no words: every field is `ABSENT`.
        if i >= N {
            return ABSENT;
        }
        self.r.word(self.at.wrapping_add(i as u32))
    }

    /// Whether field `i` is there: neither lacking in the version nor an absent tagged field.
    #[inline]
    pub fn has(&self, i: usize) -> bool {
        self.slot(i) != ABSENT
    }

    /// Field `i`, found through its word, or where it is instead: `ABSENT` or `NULL`.
    #[inline]
    fn found<T: Viewable>(&self, i: usize) -> Result<T::View<'a>, u32> {
        match self.slot(i) {
            at @ (ABSENT | NULL) => Err(at),
            at => Ok(T::view_found(self.r, at, self.cx)),
        }
    }

    /// Field `i`, which is never null; [`Viewable::empty`] when it is not there.
    #[inline]
    pub fn field<T: Viewable>(&self, i: usize) -> T::View<'a> {
        if T::FOUND_OR_EMPTY {
            return T::view_found(self.r, self.slot(i), self.cx);
        }
        self.found::<T>(i).unwrap_or_else(|_| T::empty())
    }

    /// The field at `offset` bytes from the struct's start, which the first word holds and which
    /// was read when the view of the struct was made: a field of the opening run, or the one
    /// right after it, found by its position.
    ///
    /// The walk stepped over the field inside the input, so the sum is a place in it and does
    /// not wrap. An absent struct's start is `ABSENT`: the sum wraps there, to a place that its
    /// empty input does not have, and reads as the empty view. A type whose view is found
    /// through a record of the index has no such place: naming one stops the build.
    #[inline]
    pub fn fixed<T: Viewable>(&self, offset: usize) -> T::View<'a> {
        const {
            assert!(
                !T::INDEXED,
                "a field at an offset from its struct's start needs a view found by position"
            );
        }
        T::view_found(self.r, self.start.wrapping_add(offset as u32), self.cx)
    }

    /// Field `i`, or `default` when it is not there.
    #[inline]
    pub fn field_or<T: Viewable>(&self, i: usize, default: T::View<'a>) -> T::View<'a> {
        self.found::<T>(i).unwrap_or(default)
    }

    /// Field `i` where it may be null, or `absent` when it is not there.
    #[inline]
    pub fn option<T: Viewable>(
        &self,
        i: usize,
        absent: Option<T::View<'a>>,
    ) -> Option<T::View<'a>> {
        present_or(self.found::<T>(i), absent)
    }

    /// Field `i` of a [`SPAN`](Viewable::SPAN) type, whose bytes' start and end the walk noted
    /// in words `i` and `i + 1`, or where the field is not there (`ABSENT`) or null.
    #[inline]
    fn span_at<T: Viewable>(&self, i: usize) -> Result<T::View<'a>, u32> {
        const { spans::<T>() };
        // An absent struct reads no words.
        if i >= N {
            return Err(ABSENT);
        }
        let Some((start, end)) = self.r.pair(self.at.wrapping_add(i as u32)) else {
            return Err(ABSENT);
        };
        // The walk noted bytes it stepped over inside the input; `ABSENT` and `NULL` are past
        // any input's end, so the slice is there exactly when the field is.
        match self.source().bytes().get(start as usize..end as usize) {
            Some(bytes) => Ok(T::view_span(bytes)),
            None if start == NULL => Err(NULL),
            None => Err(ABSENT),
        }
    }

    /// Field `i` of a [`SPAN`](Viewable::SPAN) type, never null; empty when it is not there.
    #[inline]
    pub fn span<T: Viewable>(&self, i: usize) -> T::View<'a> {
        self.span_at::<T>(i).unwrap_or_else(|_| T::empty())
    }

    /// [`span`](Self::span), or `default` when the field is not there.
    #[inline]
    pub fn span_or<T: Viewable>(&self, i: usize, default: T::View<'a>) -> T::View<'a> {
        self.span_at::<T>(i).unwrap_or(default)
    }

    /// [`span`](Self::span) where the field may be null, or `absent` when it is not there.
    #[inline]
    pub fn span_option<T: Viewable>(
        &self,
        i: usize,
        absent: Option<T::View<'a>>,
    ) -> Option<T::View<'a>> {
        present_or(self.span_at::<T>(i), absent)
    }

    /// Field `i`, owned.
    #[inline]
    pub fn owned<T: Viewable>(&self, i: usize) -> T {
        T::from_view(self.field::<T>(i), self.source())
    }

    /// Field `i` where it may be null, owned.
    #[inline]
    pub fn owned_option<T: Viewable>(&self, i: usize) -> Option<T> {
        self.option::<T>(i, None)
            .map(|v| T::from_view(v, self.source()))
    }

    /// The fields of the tagged section whose tags `known` does not claim in this version.
    #[inline]
    pub fn unknown(&self, known: &'static [FieldInfo]) -> TaggedFields<'a> {
        let section = match N.checked_sub(1).map(|last| self.slot(last)) {
            Some(at) if at != ABSENT => self.source().bytes().get(at as usize..),
            _ => None,
        };
        TaggedFields {
            section: section.unwrap_or_default(),
            cx: self.cx,
            known,
        }
    }

    /// [`unknown`](Self::unknown) for a struct placed by its start ([`Viewable::PLACED`]),
    /// whose tagged section is `width` bytes after it: read from there, with or without a
    /// record.
    #[inline]
    pub fn unknown_after(&self, width: usize, known: &'static [FieldInfo]) -> TaggedFields<'a> {
        // An absent struct's start is past any input. Nearly every section is empty, one zero
        // byte, and reads as no section at all, so that no field's reader is called for it.
        let at = (self.start as usize).wrapping_add(width);
        let section = match self.source().bytes().get(at..) {
            Some(section) if self.cx.flexible && section.first() != Some(&0) => section,
            _ => &[],
        };
        TaggedFields {
            section,
            cx: self.cx,
            known,
        }
    }

    /// The fields [`unknown`](Self::unknown) or [`unknown_after`](Self::unknown_after) gave,
    /// owned.
    pub fn unknown_owned(&self, unknown: TaggedFields<'a>) -> UnknownTaggedFields {
        let mut fields = UnknownTaggedFields::default();
        let src = self.source();
        for field in unknown {
            fields.push(RawTaggedField {
                tag: field.tag,
                data: src.to_bytes(field.data),
            });
        }
        fields
    }
}

/// A field that may be null, as found (its view, or `ABSENT` or `NULL` where it is instead):
/// `absent` where the version lacks it or its tag is absent.
#[inline(always)]
fn present_or<V>(found: Result<V, u32>, absent: Option<V>) -> Option<V> {
    match found {
        Ok(view) => Some(view),
        Err(NULL) => None,
        Err(_) => absent,
    }
}

/// Stops the build where a field noted by the start and end of its bytes has a type whose view
/// is not those bytes ([`Viewable::SPAN`]): the derive chooses such fields by their types'
/// names, as it chooses the fields of a run.
const fn spans<T: Viewable>() {
    assert!(
        T::SPAN,
        "a field noted by the start and end of its bytes needs a type whose view they are"
    );
}

/// Steps over a field whose record keeps the start and end of its bytes, a null too where
/// `nullable` ([`Viewable::walk_span`]). Not part of the public API.
#[doc(hidden)]
#[inline(always)]
pub fn walk_span<T: Viewable>(c: &mut Cursor<'_>, cx: Ctx, nullable: bool) -> Option<(u32, u32)> {
    const { spans::<T>() };
    T::walk_span(c, cx, nullable)
}

/// The bytes every value of `T` takes ([`Codec::FIXED_LEN`]), for a field of a struct's opening
/// run, which its view finds at an offset. The derive puts into a run only the types it takes
/// for scalars by their names, and evaluates this at compile time: a type of such a name
/// without a fixed length stops the build instead of misplacing the fields after it. Not part
/// of the public API.
#[doc(hidden)]
pub const fn fixed_width<T: Codec>() -> usize {
    match T::FIXED_LEN {
        Some(n) => n,
        None => panic!("a field at a fixed offset in its struct needs a type of fixed length"),
    }
}

/// Where a struct's walk notes where its fields are: on the stack, or in its record in the
/// index. Not part of the public API.
#[doc(hidden)]
pub trait Slots {
    /// Notes that field `i` is at `at`.
    fn set(&mut self, index: &mut ViewIndex, i: usize, at: u32);
}

impl<const N: usize> Slots for [u32; N] {
    #[inline(always)]
    fn set(&mut self, _: &mut ViewIndex, i: usize, at: u32) {
        if let Some(slot) = self.get_mut(i) {
            *slot = at;
        }
    }
}

/// The record at a place of the index.
#[doc(hidden)]
#[derive(Debug)]
pub struct InIndex(u32);

impl Slots for InIndex {
    #[inline(always)]
    fn set(&mut self, index: &mut ViewIndex, i: usize, at: u32) {
        index.set(self.0, i, at);
    }
}

/// A tagged field that a struct does not know, in place: the view of a
/// [`RawTaggedField`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TaggedField<'a> {
    /// Its tag.
    pub tag: u32,
    /// Its bytes, after the tag and size.
    pub data: &'a [u8],
}

/// The tagged fields a struct does not know, in wire order: the view of an
/// [`UnknownTaggedFields`] field.
#[derive(Clone, Copy)]
pub struct TaggedFields<'a> {
    /// From the section's count to the end of the input; empty where the version has no tagged
    /// section or the section has no field.
    section: &'a [u8],
    cx: Ctx,
    /// The struct's fields, whose tags, in the versions where they are tagged, are known.
    known: &'static [FieldInfo],
}

impl<'a> TaggedFields<'a> {
    /// The fields, in wire order.
    #[inline]
    pub fn iter(&self) -> TaggedIter<'a> {
        TaggedIter {
            section: self.section,
            left: None,
            cx: self.cx,
            known: self.known,
        }
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.section.is_empty() || self.iter().next().is_none()
    }
}

impl<'a> IntoIterator for TaggedFields<'a> {
    type Item = TaggedField<'a>;
    type IntoIter = TaggedIter<'a>;

    #[inline]
    fn into_iter(self) -> TaggedIter<'a> {
        self.iter()
    }
}

impl fmt::Debug for TaggedFields<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The fields of a [`TaggedFields`], in wire order.
#[derive(Clone)]
pub struct TaggedIter<'a> {
    /// What is left of the section.
    section: &'a [u8],
    /// The fields left to read, once the count is read.
    left: Option<u32>,
    cx: Ctx,
    known: &'static [FieldInfo],
}

impl<'a> Iterator for TaggedIter<'a> {
    type Item = TaggedField<'a>;

    #[inline]
    fn next(&mut self) -> Option<TaggedField<'a>> {
        // Nearly every struct's section has no field: the walk recorded none. The iterator's
        // state goes to the reader of a field by value, not by reference, so that a loop over
        // an empty section keeps it in registers rather than writing it out for a call it never
        // makes.
        if self.section.is_empty() || self.left == Some(0) {
            return None;
        }
        let (found, section, left) = next_unknown(self.section, self.left, self.cx, self.known);
        self.section = section;
        self.left = left;
        found
    }
}

/// The next field of `section` whose tag `known` does not claim, and what is left of the section
/// and of its count after it; `left` is `None` while the count is unread.
#[inline(never)]
fn next_unknown<'a>(
    section: &'a [u8],
    left: Option<u32>,
    cx: Ctx,
    known: &'static [FieldInfo],
) -> (Option<TaggedField<'a>>, &'a [u8], Option<u32>) {
    let mut c = Cursor::new(Source::new(section));
    let Some(mut left) = left.or_else(|| c.uvarint(cx)) else {
        return (None, section, left);
    };
    let found = loop {
        if left == 0 {
            break None;
        }
        left = left.wrapping_sub(1);
        let (Some(tag), Some(size)) = (c.uvarint(cx), c.uvarint(cx)) else {
            return (None, &[], Some(0));
        };
        let Some(data) = c.take(size as usize) else {
            return (None, &[], Some(0));
        };
        let version = cx.version;
        let claimed = known
            .iter()
            .any(|f| f.tag == Some(tag) && f.tagged.contains(version));
        if !claimed {
            break Some(TaggedField { tag, data });
        }
    };
    (found, c.rest(), Some(left))
}

impl fmt::Debug for TaggedIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaggedIter").finish_non_exhaustive()
    }
}
