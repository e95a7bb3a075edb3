//! What a struct's view holds: where each of its fields starts.

use super::cursor::Cursor;
use super::source::Source;
use super::viewable::{Viewable, ABSENT, NULL};
use crate::codec::Ctx;
use crate::fields::FieldInfo;
use crate::{RawTaggedField, UnknownTaggedFields};
use core::fmt;

/// The place of a struct in a view's source: where each of its `N - 1` fields starts, and
/// where its tagged section does. Every view `#[derive(KafkaMessage)]` writes wraps one; its
/// accessors read through it. Not part of the public API.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct RawStruct<'a, const N: usize> {
    src: Source<'a>,
    cx: Ctx,
    /// Per field, its start, `ABSENT` or `NULL`; last, the tagged section's start or `ABSENT`.
    at: [usize; N],
}

impl<'a, const N: usize> RawStruct<'a, N> {
    /// A struct whose fields start at `at`.
    #[inline]
    pub fn new(src: Source<'a>, cx: Ctx, at: [usize; N]) -> Self {
        RawStruct { src, cx, at }
    }

    /// The struct at the cursor, located by `walk` (a struct's generated walk), which checks it
    /// too when the cursor checks; `None` where it refuses.
    #[inline]
    pub fn walked(
        c: &mut Cursor<'a>,
        cx: Ctx,
        walk: impl FnOnce(&mut Cursor<'a>, Ctx, &mut [usize; N]) -> bool,
    ) -> Option<Self> {
        let mut at = [ABSENT; N];
        if !walk(c, cx, &mut at) {
            return None;
        }
        Some(RawStruct {
            src: c.source(),
            cx,
            at,
        })
    }

    /// A struct that is not there: every field reads as its default.
    #[inline]
    pub fn absent() -> Self {
        RawStruct {
            src: Source::default(),
            cx: Ctx::new(0, false),
            at: [ABSENT; N],
        }
    }

    /// What the view was opened on.
    #[inline]
    pub fn source(&self) -> Source<'a> {
        self.src
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

    #[inline]
    fn at(&self, i: usize) -> usize {
        self.at.get(i).copied().unwrap_or(ABSENT)
    }

    /// Whether field `i` is there: neither lacking in the version nor an absent tagged field.
    #[inline]
    pub fn has(&self, i: usize) -> bool {
        self.at(i) != ABSENT
    }

    /// Field `i`, which is never null; [`Viewable::empty`] when it is not there.
    #[inline]
    pub fn field<T: Viewable>(&self, i: usize) -> T::View<'a> {
        match self.at(i) {
            ABSENT | NULL => T::empty(),
            at => T::view_from(Cursor::skipping(self.src, at), self.cx),
        }
    }

    /// Field `i`, or `default` when it is not there.
    #[inline]
    pub fn field_or<T: Viewable>(&self, i: usize, default: T::View<'a>) -> T::View<'a> {
        match self.at(i) {
            ABSENT | NULL => default,
            at => T::view_from(Cursor::skipping(self.src, at), self.cx),
        }
    }

    /// Field `i` where it may be null, or `absent` when it is not there.
    #[inline]
    pub fn option<T: Viewable>(
        &self,
        i: usize,
        absent: Option<T::View<'a>>,
    ) -> Option<T::View<'a>> {
        match self.at(i) {
            ABSENT => absent,
            NULL => None,
            at => Some(T::view_from(Cursor::skipping(self.src, at), self.cx)),
        }
    }

    /// Field `i`, owned.
    #[inline]
    pub fn owned<T: Viewable>(&self, i: usize) -> T {
        T::from_view(self.field::<T>(i), self.src)
    }

    /// Field `i` where it may be null, owned.
    #[inline]
    pub fn owned_option<T: Viewable>(&self, i: usize) -> Option<T> {
        self.option::<T>(i, None).map(|v| T::from_view(v, self.src))
    }

    /// The fields of the tagged section whose tags `known` does not claim in this version.
    #[inline]
    pub fn unknown(&self, known: &'static [FieldInfo]) -> TaggedFields<'a> {
        TaggedFields {
            section: match self.at.last() {
                Some(&at) if at != ABSENT => Some(Cursor::skipping(self.src, at)),
                _ => None,
            },
            cx: self.cx,
            known,
        }
    }

    /// [`unknown`](Self::unknown), owned.
    pub fn unknown_owned(&self, known: &'static [FieldInfo]) -> UnknownTaggedFields {
        let mut fields = UnknownTaggedFields::default();
        for field in self.unknown(known) {
            fields.push(RawTaggedField {
                tag: field.tag,
                data: self.src.to_bytes(field.data),
            });
        }
        fields
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
    /// At the section's count; `None` where the version has no tagged section.
    section: Option<Cursor<'a>>,
    cx: Ctx,
    /// The struct's fields, whose tags, in the versions where they are tagged, are known.
    known: &'static [FieldInfo],
}

impl<'a> TaggedFields<'a> {
    /// The fields, in wire order.
    #[inline]
    pub fn iter(&self) -> TaggedIter<'a> {
        let mut section = self.section;
        let left = section
            .as_mut()
            .and_then(|c| c.uvarint(self.cx))
            .unwrap_or(0);
        TaggedIter {
            section,
            left,
            cx: self.cx,
            known: self.known,
        }
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.iter().next().is_none()
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
    section: Option<Cursor<'a>>,
    left: u32,
    cx: Ctx,
    known: &'static [FieldInfo],
}

impl<'a> Iterator for TaggedIter<'a> {
    type Item = TaggedField<'a>;

    #[inline]
    fn next(&mut self) -> Option<TaggedField<'a>> {
        if self.left == 0 {
            return None;
        }
        self.next_unknown()
    }
}

impl<'a> TaggedIter<'a> {
    #[inline(never)]
    fn next_unknown(&mut self) -> Option<TaggedField<'a>> {
        let c = self.section.as_mut()?;
        while self.left > 0 {
            self.left = self.left.wrapping_sub(1);
            let tag = c.uvarint(self.cx)?;
            let size = c.uvarint(self.cx)? as usize;
            let data = c.take(size)?;
            let version = self.cx.version;
            let known = self
                .known
                .iter()
                .any(|f| f.tag == Some(tag) && f.tagged.contains(version));
            if !known {
                return Some(TaggedField { tag, data });
            }
        }
        None
    }
}

impl fmt::Debug for TaggedIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaggedIter").finish_non_exhaustive()
    }
}
