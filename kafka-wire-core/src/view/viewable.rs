//! The trait of a field type's view.

use super::cursor::Cursor;
use super::index::{ViewIndex, NULL};
use super::reader::Reader;
use super::source::Source;
use crate::codec::{Codec, Ctx};
use core::fmt;

/// A field type's borrowed view: what a view's accessor returns for a field of this type, how
/// the walk that opens a view steps over one, and how the view finds it again.
///
/// A value is found again in one of two ways. Most types are found by their position in the
/// input, which [`walk`](Self::walk) returns, and read from there by
/// [`view_at`](Self::view_at). A struct, and an array of structs, keeps a record in the
/// [`ViewIndex`] instead ([`INDEXED`](Self::INDEXED)), so that reading it never walks its
/// fields or its elements again.
///
/// Implemented for every field type kafka-wire knows and, by `#[derive(KafkaMessage)]`, for
/// every struct. A type of your own that implements [`Codec`] to be a field of a message
/// implements this too, with the steps of a [`Cursor`]: `walk`, `view_at`, `empty` and
/// `from_view`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a Kafka message",
    label = "derive `KafkaMessage` for `{Self}`, or implement `kafka_wire::view::Viewable` for it"
)]
pub trait Viewable: Codec {
    /// What an accessor returns.
    type View<'a>: Clone + fmt::Debug;

    /// Whether a value keeps a record in the index rather than being found by its position: a
    /// struct's, or an array's whose elements keep one.
    #[doc(hidden)]
    const INDEXED: bool = false;

    /// Whether [`view_found`](Self::view_found) reads a place no input has (that of a field
    /// the version lacks, or of a null) as [`empty`](Self::empty) through its own bounds check,
    /// so that an accessor need not test for those places first: a scalar's, whose read is one
    /// comparison with the input's length.
    #[doc(hidden)]
    const FOUND_OR_EMPTY: bool = false;

    /// Whether a value's view is made from the run of bytes after its length alone (strings,
    /// bytes, records), whose start and end [`walk_span`](Self::walk_span) gives, so that a
    /// struct's record can keep both and an accessor read the value without reading its length
    /// again ([`view_span`](Self::view_span)).
    #[doc(hidden)]
    const SPAN: bool = false;

    /// Whether a value is found wholly from where it starts: a struct whose every field is of
    /// one width and in its opening run, with no tagged field of its own. An array of such
    /// values whose tagged sections are all empty keeps no record per element: each element is
    /// a stride after the one before ([`placed_width`](Self::placed_width) and the section's
    /// byte), read by [`view_placed`](Self::view_placed).
    #[doc(hidden)]
    const PLACED: bool = false;

    /// For a [`PLACED`](Self::PLACED) type: the bytes its fields take in `cx`'s version, up to
    /// its tagged section.
    #[doc(hidden)]
    #[inline]
    fn placed_width(cx: Ctx) -> usize {
        let _ = cx;
        0
    }

    /// For a [`PLACED`](Self::PLACED) type: the view of a value the walk accepted at byte
    /// `start`, whose tagged section is empty. Any other type's is empty.
    #[doc(hidden)]
    #[inline]
    fn view_placed<'a>(r: Reader<'a>, start: u32, cx: Ctx) -> Self::View<'a> {
        let _ = (r, start, cx);
        Self::empty()
    }

    /// Steps over a value that is not null, accepting exactly the values
    /// [`Codec::decode_value`] accepts, and says where its view finds it: its position
    /// ([`Cursor::place`] before the step), or, for an indexed value, its record in `index`.
    /// `None` where decoding would fail.
    fn walk(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32>;

    /// For a [`SPAN`](Self::SPAN) type: steps over a value as [`walk`](Self::walk) does, or a
    /// value or a null as [`walk_nullable`](Self::walk_nullable) does when `nullable`, and gives
    /// where its bytes start and end, `(NULL, NULL)` for a null. Any other type refuses.
    #[doc(hidden)]
    #[inline]
    fn walk_span(c: &mut Cursor<'_>, cx: Ctx, nullable: bool) -> Option<(u32, u32)> {
        let _ = (c, cx, nullable);
        None
    }

    /// For a [`SPAN`](Self::SPAN) type: the view of a value whose bytes, after its length, the
    /// walk accepted. Any other type's is empty.
    #[doc(hidden)]
    #[inline]
    fn view_span(bytes: &[u8]) -> Self::View<'_> {
        let _ = bytes;
        Self::empty()
    }

    /// [`walk`](Self::walk) for an element of an array, whose view is found by a step from the
    /// element before: by default the same. An array of indexed elements keeps a record even
    /// when it is empty here, which as a struct's field it need not.
    #[doc(hidden)]
    #[inline]
    fn walk_element(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        Self::walk(c, cx, index)
    }

    /// Steps over a value or a null where the field is nullable: where the value is, or `NULL`
    /// (a place no input has). By default a struct's: a presence byte, negative for null.
    #[doc(hidden)]
    #[inline]
    fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        if !c.presence()? {
            return Some(NULL);
        }
        Self::walk(c, cx, index)
    }

    /// [`walk_nullable`](Self::walk_nullable) in a tagged field. By default a struct's: a
    /// presence varint, 0 for null.
    #[doc(hidden)]
    #[inline]
    fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx, index: &mut ViewIndex) -> Option<u32> {
        if !c.tagged_presence(cx)? {
            return Some(NULL);
        }
        Self::walk(c, cx, index)
    }

    /// The view of the value at the cursor, which [`walk`](Self::walk) accepted, moving the
    /// cursor past it. An indexed value is not read this way: its view is
    /// [`empty`](Self::empty) here.
    fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> Self::View<'a>;

    /// The view of the value that [`walk`](Self::walk) found at `at`.
    #[doc(hidden)]
    #[inline]
    fn view_found<'a>(r: Reader<'a>, at: u32, cx: Ctx) -> Self::View<'a> {
        Self::view_at(&mut r.cursor(at), cx)
    }

    /// The view of an array's element at `at`, and where the next element is: for a value
    /// found by position, the position after it; for an indexed one, the record after its own.
    #[doc(hidden)]
    #[inline]
    fn element<'a>(r: Reader<'a>, at: u32, cx: Ctx) -> (Self::View<'a>, u32) {
        let mut c = r.cursor(at);
        let view = Self::view_at(&mut c, cx);
        (view, c.place())
    }

    /// The view of a value that is not there: what a field without a declared default reads as
    /// when its version lacks it.
    fn empty<'a>() -> Self::View<'a>;

    /// The owned value of a view, equal to what decoding gives. `src` is what the view was
    /// opened on; byte fields share it when it is a `Bytes`.
    fn from_view<'a>(view: Self::View<'a>, src: Source<'a>) -> Self;
}

/// The view of a field of type `T`: `<T as Viewable>::View<'a>`.
pub type ViewOf<'a, T> = <T as Viewable>::View<'a>;
