//! What a view reads from: the bytes it was opened on and the index its opening recorded.

use super::cursor::Cursor;
use super::index::{ViewIndex, ABSENT};
use super::source::Source;
use core::fmt;

/// What a view reads: the bytes it was opened on, and the index the opening walk recorded.
/// Every view `#[derive(KafkaMessage)]` writes holds one. Not part of the public API.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct Reader<'a> {
    src: Source<'a>,
    words: &'a [u32],
}

impl<'a> Reader<'a> {
    /// A reader of `src` through `index`.
    #[inline]
    pub(crate) fn new(src: Source<'a>, index: &'a ViewIndex) -> Self {
        Reader {
            src,
            words: index.words(),
        }
    }

    /// A reader of `src` alone, for values found by position.
    #[inline]
    pub(crate) fn unindexed(src: Source<'a>) -> Self {
        Reader { src, words: &[] }
    }

    /// A reader of nothing, for views of values that are not there.
    #[inline]
    pub(crate) fn empty() -> Self {
        Reader {
            src: Source::default(),
            words: &[],
        }
    }

    /// What the view was opened on.
    #[inline]
    pub fn source(&self) -> Source<'a> {
        self.src
    }

    /// Word `at` of the index; [`ABSENT`] past its end, which no record the walk made reaches.
    #[inline]
    pub(crate) fn word(&self, at: u32) -> u32 {
        self.words.get(at as usize).copied().unwrap_or(ABSENT)
    }

    /// Words `at` and `at + 1` of the index, with one bounds check; `None` past its end, which
    /// no record the walk made reaches.
    #[inline]
    pub(crate) fn pair(&self, at: u32) -> Option<(u32, u32)> {
        let at = at as usize;
        match self.words.get(at..at.wrapping_add(2)) {
            Some(&[a, b]) => Some((a, b)),
            _ => None,
        }
    }

    /// The `N` bytes at byte `at` of the source, if there are as many.
    #[inline]
    pub(crate) fn fixed<const N: usize>(&self, at: u32) -> Option<&'a [u8; N]> {
        // A position from a `u32` plus a few bytes cannot overflow, so this is one comparison
        // with the source's length.
        let start = at as usize;
        self.src
            .bytes()
            .get(start..start.wrapping_add(N))?
            .first_chunk::<N>()
    }

    /// The values of the array of `size`-byte values at byte `at`, when its count is compact
    /// and one byte long, as nearly every array of integers' is: the count is read by its index
    /// and the values taken as one slice, without the general prefix reader's steps. `None`
    /// for any other count, which a cursor reads.
    #[inline(always)]
    pub(crate) fn short_compact_array(&self, at: u32, size: usize) -> Option<&'a [u8]> {
        let bytes = self.src.bytes();
        let start = at as usize;
        // The count plus one; 0 is a null.
        let count = usize::from(*bytes.get(start)?).wrapping_sub(1);
        if count >= 0x7f {
            return None;
        }
        // `start` is inside the input and the span at most a few hundred bytes. Where the sum
        // wraps (a 32-bit target, at the end of a huge input), the range ends before it starts
        // and is refused, and the cursor reads the array instead.
        let first = start.wrapping_add(1);
        bytes.get(first..first.wrapping_add(count.wrapping_mul(size)))
    }

    /// A cursor at byte `at` of the source, over bytes the walk checked.
    #[inline]
    pub(crate) fn cursor(&self, at: u32) -> Cursor<'a> {
        Cursor::at(self.src, at as usize)
    }
}

impl fmt::Debug for Reader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reader").finish_non_exhaustive()
    }
}
