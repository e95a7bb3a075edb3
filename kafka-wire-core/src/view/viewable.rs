//! The trait of a field type's view, and the positions a view records for fields that are not
//! there.

use super::cursor::Cursor;
use super::source::Source;
use crate::codec::{Codec, Ctx};
use core::fmt;

/// Where a field that the version lacks, or a tagged field that is absent, starts: nowhere.
pub(crate) const ABSENT: usize = usize::MAX;
/// Where a null starts: a field is either null or starts at a position in the input, which is
/// never this large.
pub(crate) const NULL: usize = usize::MAX - 1;

/// A field type's borrowed view: what a view's accessor returns for a field of this type, and
/// how a view steps over one.
///
/// Implemented for every field type kafka-wire knows and, by `#[derive(KafkaMessage)]`, for
/// every struct. A type of your own that implements [`Codec`] to be a field of a message
/// implements this too, with the steps of a [`Cursor`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a Kafka message",
    label = "derive `KafkaMessage` for `{Self}`, or implement `kafka_wire::view::Viewable` for it"
)]
pub trait Viewable: Codec {
    /// What an accessor returns.
    type View<'a>: Clone + fmt::Debug;

    /// Steps over a value that is not null. With a [checking](Cursor::checks) cursor, accepts
    /// exactly the values [`Codec::decode_value`] accepts.
    fn walk(c: &mut Cursor<'_>, cx: Ctx) -> bool;

    /// Steps over a value or a null where the field is nullable, returning where the value
    /// starts, or `NULL` (a position no input has). By default a struct's: a presence byte,
    /// negative for null.
    #[doc(hidden)]
    #[inline]
    fn walk_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
        if !c.presence()? {
            return Some(NULL);
        }
        let at = c.pos();
        Self::walk(c, cx).then_some(at)
    }

    /// [`walk_nullable`](Self::walk_nullable) in a tagged field. By default a struct's: a
    /// presence varint, 0 for null.
    #[doc(hidden)]
    #[inline]
    fn walk_tagged_nullable(c: &mut Cursor<'_>, cx: Ctx) -> Option<usize> {
        if !c.tagged_presence(cx)? {
            return Some(NULL);
        }
        let at = c.pos();
        Self::walk(c, cx).then_some(at)
    }

    /// The view of the value at the cursor, which [`walk`](Self::walk) accepted, moving the
    /// cursor past it.
    fn view_at<'a>(c: &mut Cursor<'a>, cx: Ctx) -> Self::View<'a>;

    /// The view of the value at `c`, which [`walk`](Self::walk) accepted, where nothing reads
    /// on after it. By default [`view_at`](Self::view_at); an array's view skips the
    /// elements it has yet to read.
    #[doc(hidden)]
    #[inline]
    fn view_from<'a>(mut c: Cursor<'a>, cx: Ctx) -> Self::View<'a> {
        Self::view_at(&mut c, cx)
    }

    /// The view of a value that is not there: what a field without a declared default reads as
    /// when its version lacks it.
    fn empty<'a>() -> Self::View<'a>;

    /// The owned value of a view, equal to what decoding gives. `src` is what the view was
    /// opened on; byte fields share it when it is a `Bytes`.
    fn from_view<'a>(view: Self::View<'a>, src: Source<'a>) -> Self;

    /// A view of a message from a checking cursor at its start: a walk, then the view. A
    /// struct's view comes out of the walk itself.
    #[doc(hidden)]
    #[inline]
    fn open<'a>(c: &mut Cursor<'a>, cx: Ctx) -> Option<Self::View<'a>> {
        let at = c.pos();
        if !Self::walk(c, cx) {
            return None;
        }
        Some(Self::view_at(&mut Cursor::skipping(c.source(), at), cx))
    }
}

/// The view of a field of type `T`: `<T as Viewable>::View<'a>`.
pub type ViewOf<'a, T> = <T as Viewable>::View<'a>;
