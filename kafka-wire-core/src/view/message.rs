//! Opening a message's view: the checking walk, and the error decoding gives when it refuses.

use super::cursor::Cursor;
use super::index::{ViewIndex, EMPTY, MAX_INPUT};
use super::reader::Reader;
use super::source::Source;
use super::viewable::Viewable;
use crate::codec::Ctx;
use crate::traits::{Decode, Message};
use crate::DecodeError;

/// Opening a message's view at a version, into a [`ViewIndex`]. Implemented for every message.
///
/// ```
/// use kafka_wire::messages::WriteTxnMarkersResponse;
/// use kafka_wire::view::{View, ViewIndex};
/// use kafka_wire::ErrorKind;
///
/// let mut index = ViewIndex::new();
/// // Version 1, no markers, no tagged fields.
/// let response = WriteTxnMarkersResponse::view_in(&[0x01, 0x00], 1, &mut index)?;
/// assert!(response.markers().is_empty());
///
/// // A view refuses what decoding refuses, with decoding's error.
/// let err = WriteTxnMarkersResponse::view_in(&[0x02, 0x00], 1, &mut index).unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::UnexpectedEof { .. }));
/// assert_eq!(err.path(), "WriteTxnMarkersResponse.markers[0].producer_id");
/// # Ok::<(), kafka_wire::DecodeError>(())
/// ```
pub trait View: Message + Viewable {
    /// The view of a message that uses every byte of `input`, which may be a slice or a
    /// [`Bytes`](bytes::Bytes) (whose byte fields the view then shares), recorded in `index`.
    /// It opens on the inputs [`Decode::decode_exact`] accepts, and fails with the error it
    /// gives.
    fn view_in<'a>(
        input: impl Into<Source<'a>>,
        version: i16,
        index: &'a mut ViewIndex,
    ) -> Result<Self::View<'a>, DecodeError> {
        open::<Self>(input.into(), version, Reading::Whole, index).map(|(view, _)| view)
    }

    /// [`view_in`](Self::view_in) under the rules of [`Decode::decode_strict`].
    fn view_strict_in<'a>(
        input: impl Into<Source<'a>>,
        version: i16,
        index: &'a mut ViewIndex,
    ) -> Result<Self::View<'a>, DecodeError> {
        open::<Self>(input.into(), version, Reading::Strict, index).map(|(view, _)| view)
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

/// A message the walk accepted: where its view finds it, the context it was read in, and the
/// bytes it takes.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct Walked {
    at: u32,
    cx: Ctx,
    /// The bytes the message takes.
    pub len: usize,
}

impl Walked {
    /// The view of the message, once everything read into `index` has been.
    #[inline]
    pub fn view<'a, M: Viewable>(self, src: Source<'a>, index: &'a ViewIndex) -> M::View<'a> {
        M::view_found(Reader::new(src, index), self.at, self.cx)
    }
}

/// Opens the view of `M` at the start of `src` into `index`, read as `reading` says, and says
/// how many bytes the message takes.
#[doc(hidden)]
#[inline(always)]
pub fn open<'a, M: Message + Viewable>(
    src: Source<'a>,
    version: i16,
    reading: Reading,
    index: &'a mut ViewIndex,
) -> Result<(M::View<'a>, usize), DecodeError> {
    // A `Source` is three words, which a call passes through memory; the caller writes them a
    // word at a time just before it, and the callee's first load reads two at once, which the
    // processor cannot forward from those writes and waits for. Its parts go in registers.
    let (bytes, shared) = src.parts();
    open_parts::<M>(bytes, shared, version, reading, index)
}

/// [`open`], from the source's parts.
#[inline]
fn open_parts<'a, M: Message + Viewable>(
    bytes: &'a [u8],
    shared: Option<&'a bytes::Bytes>,
    version: i16,
    reading: Reading,
    index: &'a mut ViewIndex,
) -> Result<(M::View<'a>, usize), DecodeError> {
    let src = Source::from_parts(bytes, shared);
    index.clear();
    let walked = walk::<M>(src, version, reading, index)?;
    Ok((walked.view::<M>(src, index), walked.len))
}

/// Walks `M` at the start of `src`, read as `reading` says, recording it in `index` after what
/// it holds already: for a frame, whose header and body share one index.
#[doc(hidden)]
#[inline]
pub fn walk<M: Message + Viewable>(
    src: Source<'_>,
    version: i16,
    reading: Reading,
    index: &mut ViewIndex,
) -> Result<Walked, DecodeError> {
    if let Some(cx) = M::context(version) {
        if src.bytes().len() > MAX_INPUT {
            return Err(too_long(src.bytes().len()));
        }
        let cx = cx.with_strict(reading == Reading::Strict);
        let mut c = Cursor::new(src);
        if let Some(at) = M::walk(&mut c, cx, index) {
            if reading == Reading::Prefix || c.at_end() {
                // Every record starts below the index's end, and so below the places that
                // are no record.
                if index.next() >= EMPTY {
                    return Err(too_long(src.bytes().len()));
                }
                return Ok(Walked {
                    at,
                    cx,
                    len: c.pos(),
                });
            }
        }
    }
    Err(refused::<M>(src, version, reading))
}

/// An input longer than a view reads.
#[cold]
fn too_long(len: usize) -> DecodeError {
    DecodeError::at(
        crate::ErrorKind::FrameTooLarge {
            size: len,
            max: MAX_INPUT,
        },
        0,
    )
}

/// What decoding says of an input the walk refused: its error.
///
/// Decoding refuses it too, unless the walk and decoding disagree, which the differential
/// fuzz target (`fuzz/src/targets.rs`) looks for on every input it makes. Should they disagree
/// all the same, the view cannot be made, and the error says the input ended where the walk
/// stopped reading it.
#[cold]
#[inline(never)]
fn refused<M: Message + Viewable>(src: Source<'_>, version: i16, reading: Reading) -> DecodeError {
    let mut input = src.to_bytes(src.bytes());
    let decoded = match reading {
        Reading::Prefix => M::decode(&mut input, version).map(|_| ()),
        Reading::Whole => M::decode_exact(input, version).map(|_| ()),
        Reading::Strict => M::decode_strict(input, version).map(|_| ()),
    };
    if let Err(e) = decoded {
        return e;
    }
    debug_assert!(
        false,
        "a view of {} refused an input decoding accepts",
        M::NAME
    );
    let kind = crate::ErrorKind::UnexpectedEof {
        needed: 1,
        available: 0,
    };
    DecodeError::new(kind, 0)
        .in_message(M::NAME)
        .located(src.bytes().len())
}

/// Whether the walk accepts `input` as a whole message: the verdict the differential fuzz
/// target compares with decoding's. Not part of the public API.
#[doc(hidden)]
pub fn walk_accepts<M: Message + Viewable>(input: &[u8], version: i16, strict: bool) -> bool {
    let Some(cx) = M::context(version) else {
        return false;
    };
    let mut index = ViewIndex::new();
    let mut c = Cursor::new(Source::new(input));
    M::walk(&mut c, cx.with_strict(strict), &mut index).is_some() && c.at_end()
}
