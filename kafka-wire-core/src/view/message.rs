//! Opening a message's view: the checking walk, and the error decoding gives when it refuses.

use super::cursor::Cursor;
use super::source::Source;
use super::viewable::Viewable;
use crate::traits::{Decode, Message};
use crate::DecodeError;

/// Opening a message's view at a version. Implemented for every message.
///
/// ```
/// use kafka_wire::messages::WriteTxnMarkersResponse;
/// use kafka_wire::{ErrorKind, View};
///
/// // Version 1, no markers, no tagged fields.
/// let response = WriteTxnMarkersResponse::view(&[0x01, 0x00], 1)?;
/// assert!(response.markers().is_empty());
///
/// // A view refuses what decoding refuses, with decoding's error.
/// let err = WriteTxnMarkersResponse::view(&[0x02, 0x00], 1).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::UnexpectedEof { .. }));
/// assert_eq!(err.path(), "WriteTxnMarkersResponse.markers[0].producer_id");
/// # Ok::<(), kafka_wire::DecodeError>(())
/// ```
pub trait View: Message + Viewable {
    /// The view of a message that uses every byte of `input`, which may be a slice or a
    /// [`Bytes`](bytes::Bytes) (whose byte fields the view then shares). It opens on the
    /// inputs [`Decode::decode_exact`] accepts, and fails with the error it gives.
    fn view<'a>(input: impl Into<Source<'a>>, version: i16) -> Result<Self::View<'a>, DecodeError> {
        open_in::<Self>(input.into(), version, false)
    }

    /// [`view`](Self::view) under the rules of [`Decode::decode_strict`].
    fn view_strict<'a>(
        input: impl Into<Source<'a>>,
        version: i16,
    ) -> Result<Self::View<'a>, DecodeError> {
        open_in::<Self>(input.into(), version, true)
    }
}

impl<M: Message + Viewable> View for M {}

/// How much of its input a view reads, and under which rules: the readers of
/// [`Decode`] it answers to.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// A message at the front of the input, as [`Decode::decode`] reads it.
    Prefix,
    /// A message that uses the whole input, as [`Decode::decode_exact`] reads it.
    Whole,
    /// [`Whole`](Self::Whole), under the rules of [`Decode::decode_strict`].
    Strict,
}

/// Opens the view of `M` on all of `src`.
#[inline]
pub(crate) fn open_in<M: Message + Viewable>(
    src: Source<'_>,
    version: i16,
    strict: bool,
) -> Result<M::View<'_>, DecodeError> {
    let reading = if strict {
        Reading::Strict
    } else {
        Reading::Whole
    };
    open::<M>(src, version, reading).map(|(view, _)| view)
}

/// Opens the view of `M` at the start of `src`, read as `reading` says, and says how many bytes
/// the message takes. For the derive of API sets and for frames.
#[doc(hidden)]
#[inline]
pub fn open<M: Message + Viewable>(
    src: Source<'_>,
    version: i16,
    reading: Reading,
) -> Result<(M::View<'_>, usize), DecodeError> {
    if let Some(cx) = M::context(version) {
        let mut c = Cursor::checking(src);
        if let Some(view) = M::open(&mut c, cx.with_strict(reading == Reading::Strict)) {
            if reading == Reading::Prefix || c.at_end() {
                return Ok((view, c.pos()));
            }
        }
    }
    refused::<M>(src, version, reading)
}

/// What decoding says of an input the walk refused: its error.
///
/// Decoding refuses it too, unless the walk and decoding disagree, which the differential
/// fuzz target (`fuzz/src/targets.rs`) looks for on every input it makes. Should they disagree
/// all the same, decoding's verdict stands: the view is made by a walk that does not check.
#[cold]
#[inline(never)]
fn refused<M: Message + Viewable>(
    src: Source<'_>,
    version: i16,
    reading: Reading,
) -> Result<(M::View<'_>, usize), DecodeError> {
    let mut input = src.to_bytes(src.bytes());
    let decoded = match reading {
        Reading::Prefix => M::decode(&mut input, version).map(|_| ()),
        Reading::Whole => M::decode_exact(input, version).map(|_| ()),
        Reading::Strict => M::decode_strict(input, version).map(|_| ()),
    };
    decoded?;
    debug_assert!(
        false,
        "a view of {} refused an input decoding accepts",
        M::NAME
    );
    // The walk ran short of input where decoding did not.
    let short = || {
        let kind = crate::ErrorKind::UnexpectedEof {
            needed: 1,
            available: 0,
        };
        DecodeError::new(kind, 0)
            .in_message(M::NAME)
            .located(src.bytes().len())
    };
    let cx = M::context(version).ok_or_else(short)?;
    let mut c = Cursor::skipping(src, 0);
    let view = M::open(&mut c, cx).ok_or_else(short)?;
    Ok((view, c.pos()))
}

/// Whether the checking walk accepts `input` as a whole message: the verdict the differential
/// fuzz target compares with decoding's. Not part of the public API.
#[doc(hidden)]
pub fn walk_accepts<M: Message + Viewable>(input: &[u8], version: i16, strict: bool) -> bool {
    let Some(cx) = M::context(version) else {
        return false;
    };
    let mut c = Cursor::checking(Source::new(input));
    M::open(&mut c, cx.with_strict(strict)).is_some() && c.at_end()
}
