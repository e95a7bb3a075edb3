//! The index a view opens into: what the one walk that checks a message records, so that no
//! accessor has to walk again.

use core::fmt;

/// Where a field that the version lacks, or a tagged field that is absent, is: nowhere.
pub(crate) const ABSENT: u32 = u32::MAX;
/// Where a null is: a field is either null or found at a position, which is never this large.
pub(crate) const NULL: u32 = u32::MAX - 1;
/// Where an empty array of indexed elements is, when it is a struct's field: it keeps no
/// record, since nothing of it is read but its count.
pub(crate) const EMPTY: u32 = u32::MAX - 2;
/// The longest input a view reads: every position in it, and every word of its index, fits in
/// a `u32` below [`EMPTY`]. A Kafka frame is at most `i32::MAX` bytes.
pub(crate) const MAX_INPUT: usize = EMPTY as usize - 1;

/// Memory that views open into, lent by the caller and reused from one message to the next.
///
/// Opening a view walks the message once, checking it as decoding does, and records in the
/// index where each struct's fields start and where each array of structs has its elements. The
/// accessors then read from those records: a field is one look-up, an element of an array the
/// next record, and nothing is walked twice. The index holds a few words per struct of the
/// message. Kept across messages (one per connection, or per thread), it stops growing once it
/// has held the largest, and opening allocates nothing from then on.
///
/// A view borrows its index, so opening another message into it ends the first view:
///
/// ```
/// use kafka_wire::messages::WriteTxnMarkersResponse;
/// use kafka_wire::view::{View, ViewIndex};
///
/// let mut index = ViewIndex::new();
/// for bytes in [&[0x01, 0x00][..], &[0x01, 0x00]] {
///     // Version 1, no markers, no tagged fields.
///     let response = WriteTxnMarkersResponse::view_in(bytes, 1, &mut index)?;
///     assert!(response.markers().is_empty());
/// }
/// # Ok::<(), kafka_wire::DecodeError>(())
/// ```
#[derive(Clone, Default)]
pub struct ViewIndex {
    words: Vec<u32>,
}

impl ViewIndex {
    /// An empty index; it allocates when the first message is opened into it.
    pub const fn new() -> Self {
        ViewIndex { words: Vec::new() }
    }

    /// An index with room for `words` words: a struct takes at most one word per field (its
    /// opening integers, booleans and uuids share one; strings, bytes and records take two),
    /// one for its tagged section and one more if it holds structs; an array of structs, two,
    /// and none when it is empty; four for an array of structs of scalars alone, whose elements
    /// keep no record while their tagged sections are empty.
    pub fn with_capacity(words: usize) -> Self {
        ViewIndex {
            words: Vec::with_capacity(words),
        }
    }

    /// The bytes of memory the index holds.
    pub fn memory(&self) -> usize {
        self.words
            .capacity()
            .saturating_mul(core::mem::size_of::<u32>())
    }

    /// Gives back memory beyond `words` words, as after an unusually large message.
    pub fn shrink_to(&mut self, words: usize) {
        self.words.shrink_to(words);
    }

    /// Forgets what the last message recorded: each opening starts here.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.words.clear();
    }

    /// Where the next record starts.
    #[inline]
    pub(crate) fn next(&self) -> u32 {
        // The index holds no more words than its input has bytes times a small factor, and the
        // input is at most `MAX_INPUT` bytes; a longer index only makes views read defaults.
        u32::try_from(self.words.len()).unwrap_or(ABSENT)
    }

    /// Records `words` as the next record, and says where it starts.
    #[inline]
    pub(crate) fn push(&mut self, words: &[u32]) -> u32 {
        let at = self.next();
        self.words.extend_from_slice(words);
        at
    }

    /// Makes a record of `n` words, every one `ABSENT`, and says where it starts.
    #[inline(always)]
    pub(crate) fn push_absent(&mut self, n: usize) -> u32 {
        let at = self.next();
        self.words
            .resize(self.words.len().saturating_add(n), ABSENT);
        at
    }

    /// Writes word `i` of the record at `at`, which [`push`](Self::push) made: a field's place,
    /// as the walk finds it. Not part of the public API.
    #[doc(hidden)]
    #[inline(always)]
    pub fn set(&mut self, at: u32, i: usize, word: u32) {
        if let Some(w) = self.words.get_mut((at as usize).wrapping_add(i)) {
            *w = word;
        }
    }

    /// The words a view reads.
    #[inline]
    pub(crate) fn words(&self) -> &[u32] {
        &self.words
    }
}

impl fmt::Debug for ViewIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ViewIndex")
            .field("words", &self.words.len())
            .field("capacity", &self.words.capacity())
            .finish()
    }
}
