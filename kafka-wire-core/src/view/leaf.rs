//! The views of the field types kafka-wire knows: scalars by value, strings and bytes as
//! slices, arrays as [`Array`] and [`Ints`].

use super::array::Array;
use super::cursor::Cursor;
use super::source::Source;
use super::viewable::{Viewable, NULL};
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

            #[inline]
            fn walk(c: &mut Cursor<'_>, _: Ctx) -> bool {
                c.skip(core::mem::size_of::<$ty>())
            }

            #[inline]
            fn view_at<'a>(c: &mut Cursor<'a>, _: Ctx) -> $ty {
                match c.take(core::mem::size_of::<$ty>()).and_then(|b| b.try_into().ok()) {
                    Some(bytes) => <$ty>::from_be_bytes(bytes),
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

    #[inline]
    fn walk(c: &mut Cursor<'_>, _: Ctx) -> bool {
        c.skip(1)
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

    #[inline]
    fn walk(c: &mut Cursor<'_>, _: Ctx) -> bool {
        c.skip(16)
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

/// The steps of a length-prefixed value that may be null, for `walk_nullable`: `step` reads
/// the prefix and the contents, `None` for null.
#[inline]
fn nullable<'a, T>(
    c: &mut Cursor<'a>,
    step: impl FnOnce(&mut Cursor<'a>) -> Option<Option<T>>,
) -> Option<usize> {
    let at = c.pos();
    match step(c)? {
        Some(_) => Some(at),
        None => Some(NULL),
    }
}

/// The views of `String` and `KafkaString`: the string in place.
macro_rules! string {
    ($($ty:ty => $owned:expr),*) => {$(
        impl Viewable for $ty {
            type View<'a> = &'a str;

            #[inline]
            fn walk(c: &mut Cursor<'_>, cx: Ctx) -> bool {
                matches!(c.string(cx), Some(Some(_)))
            }

            #[inline]
            fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
                nullable(c, |c| c.string(cx))
            }

            #[inline]
            fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
                Self::walk_nullable(c, cx)
            }

            /// The string was checked when the view opened; checking again is what lets safe
            /// code hand it out as `str`.
            #[inline]
            fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> &'a str {
                match c.string(cx) {
                    Some(Some(bytes)) => core::str::from_utf8(bytes).unwrap_or_default(),
                    _ => "",
                }
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

/// The views of `Bytes` and `Records`: the bytes in place.
macro_rules! bytes {
    ($($ty:ty => $owned:expr),*) => {$(
        impl Viewable for $ty {
            type View<'a> = &'a [u8];

            #[inline]
            fn walk(c: &mut Cursor<'_>, cx: Ctx) -> bool {
                matches!(c.bytes(cx), Some(Some(_)))
            }

            #[inline]
            fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
                nullable(c, |c| c.bytes(cx))
            }

            #[inline]
            fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
                Self::walk_nullable(c, cx)
            }

            #[inline]
            fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> &'a [u8] {
                match c.bytes(cx) {
                    Some(Some(bytes)) => bytes,
                    _ => &[],
                }
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
    Bytes => |b| b,
    Records => Records::from
}

/// Steps over an array's elements after its count. Elements of a fixed size must all be there
/// before any is read, as decoding requires; a checking cursor then checks each one, and a
/// cursor that only steps steps over them at once.
#[inline]
fn elements<T: Viewable>(c: &mut Cursor<'_>, cx: Ctx, count: usize) -> bool {
    if let Some(size) = T::FIXED_LEN {
        let start = c.pos();
        if c.fixed_elements(count, size).is_none() {
            return false;
        }
        if !c.checks() {
            return true;
        }
        *c = c.moved_to(start);
    }
    (0..count).all(|_| T::walk(c, cx))
}

impl<T: Viewable> Viewable for Vec<T> {
    type View<'a> = Array<'a, T>;

    #[inline]
    fn walk(c: &mut Cursor<'_>, cx: Ctx) -> bool {
        match c.count(cx) {
            Some(Some(count)) => elements::<T>(c, cx, count),
            _ => false,
        }
    }

    #[inline]
    fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
        let at = c.pos();
        match c.count(cx)? {
            Some(count) => elements::<T>(c, cx, count).then_some(at),
            None => Some(NULL),
        }
    }

    #[inline]
    fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
        Self::walk_nullable(c, cx)
    }

    #[inline]
    fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> Array<'a, T> {
        let count = c.count(cx).flatten().unwrap_or(0);
        let array = Array::new(*c, count, cx);
        elements::<T>(c, cx, count);
        array
    }

    /// The array is read later, element by element: nothing to step over now.
    #[inline]
    fn view_from<'a>(mut c: Cursor<'a>, cx: Ctx) -> Array<'a, T> {
        let count = c.count(cx).flatten().unwrap_or(0);
        Array::new(c, count, cx)
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

    #[inline]
    fn walk(c: &mut Cursor<'_>, cx: Ctx) -> bool {
        match c.count(cx) {
            Some(Some(count)) => c.fixed_elements(count, T::SIZE).is_some(),
            _ => false,
        }
    }

    #[inline]
    fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
        nullable(c, |c| match c.count(cx)? {
            Some(count) => c.fixed_elements(count, T::SIZE).map(Some),
            None => Some(None),
        })
    }

    #[inline]
    fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
        Self::walk_nullable(c, cx)
    }

    #[inline]
    fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> Ints<'a, T> {
        let count = c.count(cx).flatten().unwrap_or(0);
        Ints::new(c.fixed_elements(count, T::SIZE).unwrap_or_default())
    }

    #[inline]
    fn empty<'a>() -> Self::View<'a> {
        Ints::default()
    }

    fn from_view<'a>(view: Ints<'a, T>, src: Source<'a>) -> IntArray<T> {
        IntArray::from_be_bytes(src.to_bytes(view.as_be_bytes())).unwrap_or_default()
    }
}
