//! The views of the field types kafka-wire knows: scalars by value, strings and bytes as
//! slices, arrays as [`Array`] and [`Ints`].

use super::array::Array;
use super::cursor::Cursor;
use super::index::{ViewIndex, ABSENT, EMPTY, NULL};
use super::reader::Reader;
use super::source::Source;
use super::viewable::Viewable;
use crate::codec::Ctx;
use crate::int_array::Ints;
use crate::int_array::{Int, IntArray};
use crate::{KafkaString, Records, Uuid};
use bytes::Bytes;

/// Scalars of a fixed width: the view is the value.
macro_rules! fixed {
    ($($ty:ty),*) => {$(
        impl Viewable for $ty {
            type View<'a> = $ty;

            // No input reaches `ABSENT` or `NULL` (`MAX_INPUT`): the read there fails its
            // bounds check and gives the default, which is the empty view.
            const FOUND_OR_EMPTY: bool = true;

            #[inline(always)]
            fn walk(c: &mut Cursor<'_>, _: Ctx, _: &mut ViewIndex) -> Option<u32> {
                let at = c.place();
                c.skip(core::mem::size_of::<$ty>()).then_some(at)
            }

            #[inline]
            fn view_at<'a>(c: &mut Cursor<'a>, _: Ctx) -> $ty {
                match c.take(core::mem::size_of::<$ty>()).and_then(|b| b.try_into().ok()) {
                    Some(bytes) => <$ty>::from_be_bytes(bytes),
                    None => <$ty>::default(),
                }
            }

            #[inline]
            fn view_found<'a>(r: Reader<'a>, at: u32, _: Ctx) -> $ty {
                match r.fixed::<{ core::mem::size_of::<$ty>() }>(at) {
                    Some(bytes) => <$ty>::from_be_bytes(*bytes),
                    None => <$ty>::default(),
                }
            }

            #[inline]
            fn empty<'a>() -> Self::View<'a> {
                <$ty>::default()
            }

            #[inline]
            fn from_view<'a>(view: $ty, _: Source<'a>) -> $ty {
                view
            }
        }
    )*};
}

fixed!(i8, i16, u16, i32, u32, i64, f64);

/// Any byte but zero is `true`, as decoding reads it.
impl Viewable for bool {
    type View<'a> = bool;

    #[inline(always)]
    fn walk(c: &mut Cursor<'_>, _: Ctx, _: &mut ViewIndex) -> Option<u32> {
        let at = c.place();
        c.skip(1).then_some(at)
    }

    #[inline]
    fn view_at<'a>(c: &mut Cursor<'a>, _: Ctx) -> bool {
        c.take(1).is_some_and(|b| b != [0])
    }

    #[inline]
    fn empty<'a>() -> Self::View<'a> {
        false
    }

    #[inline]
    fn from_view<'a>(view: bool, _: Source<'a>) -> bool {
        view
    }
}

impl Viewable for Uuid {
    type View<'a> = Uuid;

    #[inline(always)]
    fn walk(c: &mut Cursor<'_>, _: Ctx, _: &mut ViewIndex) -> Option<u32> {
        let at = c.place();
        c.skip(16).then_some(at)
    }

    #[inline]
    fn view_at<'a>(c: &mut Cursor<'a>, _: Ctx) -> Uuid {
        match c.take(16).and_then(|b| b.try_into().ok()) {
            Some(bytes) => Uuid::from_bytes(bytes),
            None => Uuid::default(),
        }
    }

    #[inline]
    fn empty<'a>() -> Self::View<'a> {
        Uuid::default()
    }

    #[inline]
    fn from_view<'a>(view: Uuid, _: Source<'a>) -> Uuid {
        view
    }
}

/// Where a value that ends at `end` starts (`None` for a null), as [`Viewable::walk_span`] gives
/// them; a null is refused where the field is not `nullable`.
#[inline(always)]
fn span(start: Option<u32>, end: u32, nullable: bool) -> Option<(u32, u32)> {
    match start {
        Some(start) => Some((start, end)),
        None => nullable.then_some((NULL, NULL)),
    }
}

/// The views of `String` and `KafkaString`: the string in place.
macro_rules! string {
    ($($ty:ty => $owned:expr),*) => {$(
        impl Viewable for $ty {
            type View<'a> = &'a str;

            const SPAN: bool = true;

            #[inline(always)]
            fn walk(c: &mut Cursor<'_>, cx: Ctx, _: &mut ViewIndex) -> Option<u32> {
                let at = c.place();
                c.span_string(cx)?.map(|_| at)
            }

            #[inline(always)]
            fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx, _: &mut ViewIndex) -> Option<u32> {
                let at = c.place();
                Some(c.span_string(cx)?.map_or(NULL, |_| at))
            }

            #[inline(always)]
            fn walk_span(c: &mut Cursor<'_>, cx: Ctx, nullable: bool) -> Option<(u32, u32)> {
                let start = c.span_string(cx)?;
                span(start, c.place(), nullable)
            }

            /// Bytes the walk checked as a string; checking again is what lets safe code hand
            /// them out as `str`.
            #[inline(always)]
            fn view_span(bytes: &[u8]) -> &str {
                crate::ascii::to_str(bytes).unwrap_or_default()
            }

            #[inline(always)]
            fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
                Self::walk_nullable(c, cx, index)
            }

            /// The string was checked when the view opened; checking again is what lets safe
            /// code hand it out as `str`.
            #[inline]
            fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> &'a str {
                c.checked_str(cx)
            }

            #[inline]
            fn empty<'a>() -> Self::View<'a> {
                ""
            }

            fn from_view<'a>(view: &'a str, src: Source<'a>) -> $ty {
                let owned: fn(&'a str, Source<'a>) -> $ty = $owned;
                owned(view, src)
            }
        }
    )*};
}

string! {
    KafkaString => |s, src| KafkaString::checked(src.to_bytes(s.as_bytes())).unwrap_or_default(),
    String => |s, _| String::from(s)
}

/// The views of `Bytes` and `Records`: the bytes in place. Each is walked by its own step of the
/// cursor, which for records reads the lengths they usually have inline.
macro_rules! bytes {
    ($($ty:ty, $step:ident => $owned:expr),*) => {$(
        impl Viewable for $ty {
            type View<'a> = &'a [u8];

            const SPAN: bool = true;

            #[inline(always)]
            fn walk(c: &mut Cursor<'_>, cx: Ctx, _: &mut ViewIndex) -> Option<u32> {
                let at = c.place();
                c.$step(cx)?.map(|_| at)
            }

            #[inline(always)]
            fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx, _: &mut ViewIndex) -> Option<u32> {
                let at = c.place();
                Some(c.$step(cx)?.map_or(NULL, |_| at))
            }

            #[inline(always)]
            fn walk_span(c: &mut Cursor<'_>, cx: Ctx, nullable: bool) -> Option<(u32, u32)> {
                let start = c.$step(cx)?;
                span(start, c.place(), nullable)
            }

            #[inline(always)]
            fn view_span(bytes: &[u8]) -> &[u8] {
                bytes
            }

            #[inline(always)]
            fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
                Self::walk_nullable(c, cx, index)
            }

            #[inline]
            fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> &'a [u8] {
                c.checked_bytes(cx)
            }

            #[inline]
            fn empty<'a>() -> Self::View<'a> {
                &[]
            }

            fn from_view<'a>(view: &'a [u8], src: Source<'a>) -> $ty {
                let owned: fn(Bytes) -> $ty = $owned;
                owned(src.to_bytes(view))
            }
        }
    )*};
}

bytes! {
    Bytes, span_bytes => |b| b,
    Records, span_records => Records::from
}

/// Steps over an array's `count` elements after its count, recording those that are indexed.
/// Elements of a fixed size must all be there before any is read, as decoding requires; each
/// is then checked.
///
/// Elements of other sizes are found one after the other: where one starts depends on the
/// lengths read in the one before, a chain of loads that bounds the walk of a long array. But
/// the elements of an array are usually all of one length (a topic's partitions, each with as
/// many replicas), so the walk guesses that each element is as long as the one before. When the
/// guess holds, the next element is walked from the guess, a value the processor has before the
/// element's own loads are done, so that the walks of consecutive elements overlap; when it
/// does not, the next element starts where the walk ended, as without a guess, and the guess is
/// the new length. [`opaque`](crate::opaque::opaque) keeps the compiler from replacing the
/// guess by the equal position it was compared with, which would join the chain again. The
/// positions are the same either way.
#[inline(always)]
fn elements<T: Viewable>(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex, count: usize) -> bool {
    if let Some(size) = T::FIXED_LEN {
        if count
            .checked_mul(size)
            .is_none_or(|len| len > c.rest().len())
        {
            return false;
        }
        return (0..count).all(|_| T::walk_element(c, cx, index).is_some());
    }
    let mut len = 0usize;
    for _ in 0..count {
        let start = c.pos();
        let guess = start.wrapping_add(len);
        if T::walk_element(c, cx, index).is_none() {
            return false;
        }
        let end = c.pos();
        if end == guess {
            c.set_pos(crate::opaque::opaque(guess));
        } else {
            len = end.wrapping_sub(start);
        }
    }
    true
}

/// Steps over `count` elements of a [`PLACED`](Viewable::PLACED) type when every one is there
/// and its tagged section is empty, and gives the stride from one to the next; `None`, without
/// moving, when the elements need the walk of each: a field that is not all there, a section
/// that holds a field (or one that decoding refuses), or elements that take no byte.
#[inline(always)]
fn placed_elements<T: Viewable>(c: &mut Cursor<'_>, cx: Ctx, count: usize) -> Option<u32> {
    let width = T::placed_width(cx);
    let stride = width.wrapping_add(usize::from(cx.flexible));
    if stride == 0 {
        return None;
    }
    let len = count.checked_mul(stride)?;
    let elements = c.rest().get(..len)?;
    if cx.flexible {
        // An empty section is one zero byte, each element's last.
        let mut section = width;
        while let Some(&b) = elements.get(section) {
            if b != 0 {
                return None;
            }
            section = section.wrapping_add(stride);
        }
    }
    c.skip(len);
    // A stride is the width of a few scalars.
    u32::try_from(stride).ok()
}

/// Walks an array after its count, and says where its view finds it: at `at`, its position,
/// when its elements are found by position; otherwise at its record in the index, two words
/// (the count, and where the record after its elements' starts) before its elements' records.
/// An array of [`PLACED`](Viewable::PLACED) elements has two words more: the stride from one
/// element to the next and where the first starts, when they are all placed by it and keep no
/// record; 0 and 0 when they keep records after the four words as any struct's. An empty array
/// of a struct's field has no record: its place is [`EMPTY`]. One that is an element of an
/// array has one, as every element does, so that the next is a step away.
#[inline(always)]
fn array<T: Viewable>(
    c: &mut Cursor<'_>,
    cx: Ctx,
    index: &mut ViewIndex,
    at: u32,
    count: usize,
    element: bool,
) -> Option<u32> {
    if !T::INDEXED {
        return elements::<T>(c, cx, index, count).then_some(at);
    }
    if count == 0 && !element {
        return Some(EMPTY);
    }
    // The count is at most the input's length, which fits, and so does every position.
    if T::PLACED {
        let first = c.place();
        if let Some(stride) = placed_elements::<T>(c, cx, count) {
            let next = index.next().wrapping_add(4);
            return Some(index.push(&[count as u32, next, stride, first]));
        }
    }
    let record = if T::PLACED {
        index.push(&[count as u32, NULL, 0, 0])
    } else {
        index.push(&[count as u32, NULL])
    };
    if !elements::<T>(c, cx, index, count) {
        return None;
    }
    let next = index.next();
    index.set(record, 1, next);
    Some(record)
}

impl<T: Viewable> Viewable for Vec<T> {
    type View<'a> = Array<'a, T>;

    const INDEXED: bool = T::INDEXED;

    #[inline(always)]
    fn walk(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        let at = c.place();
        let count = c.count(cx)??;
        array::<T>(c, cx, index, at, count, false)
    }

    #[inline(always)]
    fn walk_element(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        let at = c.place();
        let count = c.count(cx)??;
        array::<T>(c, cx, index, at, count, true)
    }

    #[inline(always)]
    fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        let at = c.place();
        match c.count(cx)? {
            Some(count) => array::<T>(c, cx, index, at, count, false),
            None => Some(NULL),
        }
    }

    #[inline(always)]
    fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        Self::walk_nullable(c, cx, index)
    }

    /// An array of elements found by position, at the cursor; an indexed one is not read this
    /// way.
    #[inline]
    fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> Array<'a, T> {
        if T::INDEXED {
            return Array::default();
        }
        let r = Reader::unindexed(c.source());
        let at = c.place();
        let (view, next) = Self::element(r, at, cx);
        *c = r.cursor(next);
        view
    }

    #[inline]
    fn view_found<'a>(r: Reader<'a>, at: u32, cx: Ctx) -> Array<'a, T> {
        if T::INDEXED {
            if at == EMPTY {
                return Array::default();
            }
            let count = r.word(at) as usize;
            if !T::PLACED {
                return Array::new(r, at.wrapping_add(2), count, cx);
            }
            return match r.pair(at.wrapping_add(2)).unwrap_or((ABSENT, ABSENT)) {
                (0, _) => Array::new(r, at.wrapping_add(4), count, cx),
                (stride, first) => Array::placed(r, first, count, stride, cx),
            };
        }
        let mut c = r.cursor(at);
        let count = c.checked_count(cx);
        Array::new(r, c.place(), count, cx)
    }

    /// An array in an array: after an indexed one, the record its header points to; after one
    /// found by position, the position after its last element.
    #[inline]
    fn element<'a>(r: Reader<'a>, at: u32, cx: Ctx) -> (Array<'a, T>, u32) {
        let view = Self::view_found(r, at, cx);
        if T::INDEXED {
            return (view, r.word(at.wrapping_add(1)));
        }
        let mut next = view.start();
        for _ in 0..view.len() {
            next = T::element(r, next, cx).1;
        }
        (view, next)
    }

    #[inline]
    fn empty<'a>() -> Self::View<'a> {
        Array::default()
    }

    fn from_view<'a>(view: Array<'a, T>, src: Source<'a>) -> Vec<T> {
        view.iter().map(|v| T::from_view(v, src)).collect()
    }
}

impl<T: Int> Viewable for IntArray<T> {
    type View<'a> = Ints<'a, T>;

    // No input reaches `ABSENT` or `NULL`: neither reader finds a count there, and both give
    // the empty view.
    const FOUND_OR_EMPTY: bool = true;

    #[inline(always)]
    fn walk(c: &mut Cursor<'_>, cx: Ctx, _: &mut ViewIndex) -> Option<u32> {
        let at = c.place();
        c.skip_fixed_array(cx, T::SIZE)?.then_some(at)
    }

    #[inline(always)]
    fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx, _: &mut ViewIndex) -> Option<u32> {
        let at = c.place();
        Some(if c.skip_fixed_array(cx, T::SIZE)? {
            at
        } else {
            NULL
        })
    }

    #[inline(always)]
    fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        Self::walk_nullable(c, cx, index)
    }

    #[inline]
    fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> Ints<'a, T> {
        let count = c.checked_count(cx);
        Ints::new(c.fixed_elements(count, T::SIZE).unwrap_or_default())
    }

    #[inline]
    fn view_found<'a>(r: Reader<'a>, at: u32, cx: Ctx) -> Ints<'a, T> {
        if cx.flexible {
            if let Some(values) = r.short_compact_array(at, T::SIZE) {
                return Ints::new(values);
            }
        }
        Self::view_at(&mut r.cursor(at), cx)
    }

    #[inline]
    fn empty<'a>() -> Self::View<'a> {
        Ints::default()
    }

    fn from_view<'a>(view: Ints<'a, T>, src: Source<'a>) -> IntArray<T> {
        IntArray::from_be_bytes(src.to_bytes(view.as_be_bytes())).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::index::{ABSENT, NULL};

    /// What `FOUND_OR_EMPTY` promises for each scalar: read at the place of a field the version
    /// lacks, or of a null, it is the empty view, whatever the input holds.
    fn found_or_empty<T: Viewable>()
    where
        for<'a> T::View<'a>: PartialEq,
    {
        assert!(T::FOUND_OR_EMPTY);
        let bytes = [0x7f; 64];
        let r = Reader::unindexed(Source::new(&bytes));
        for cx in [Ctx::new(0, false), Ctx::new(12, true)] {
            for at in [ABSENT, NULL] {
                assert!(T::view_found(r, at, cx) == T::empty());
            }
            assert!(T::view_found(r, 0, cx) != T::empty());
        }
    }

    #[test]
    fn a_scalar_at_no_place_reads_as_its_empty_view() {
        found_or_empty::<i8>();
        found_or_empty::<i16>();
        found_or_empty::<u16>();
        found_or_empty::<i32>();
        found_or_empty::<u32>();
        found_or_empty::<i64>();
        found_or_empty::<f64>();
    }

    #[test]
    fn an_array_of_integers_at_no_place_reads_as_its_empty_view() {
        const { assert!(IntArray::<i32>::FOUND_OR_EMPTY) };
        let bytes = [2, 0, 0, 0, 5, 0x7f, 0x7f, 0x7f, 0x7f];
        let r = Reader::unindexed(Source::new(&bytes));
        for cx in [Ctx::new(0, false), Ctx::new(12, true)] {
            for at in [ABSENT, NULL] {
                assert!(IntArray::<i32>::view_found(r, at, cx).is_empty());
            }
        }
        // At a place the input has, the values are read: compact count 1 at byte 0.
        assert_eq!(
            IntArray::<i32>::view_found(r, 0, Ctx::new(12, true)).first(),
            Some(5)
        );
    }

    #[test]
    fn an_array_of_integers_reads_the_same_with_a_one_byte_count_or_a_longer_one() {
        // Compact count 2 (byte 3): the fast path; the same count as a two-byte varint (0x83 0x00)
        // goes through the cursor. Then a null (0) and a count past what remains.
        let short = [3, 0, 0, 0, 7, 0, 0, 0, 9];
        let long = [0x83, 0x00, 0, 0, 0, 7, 0, 0, 0, 9];
        let cx = Ctx::new(12, true);
        let read = |bytes: &[u8]| -> Vec<i32> {
            let r = Reader::unindexed(Source::new(bytes));
            IntArray::<i32>::view_found(r, 0, cx).into_iter().collect()
        };
        assert_eq!(read(&short), [7, 9]);
        assert_eq!(read(&long), [7, 9]);
        assert_eq!(read(&[0]), Vec::<i32>::new());
        assert_eq!(read(&[4, 0, 0, 0, 1]), Vec::<i32>::new());
    }
}
