//! What a view reads from: a slice, or a `Bytes` whose parts it can share.

use bytes::{Bytes, BytesMut};

/// The bytes a view was opened on.
///
/// A view opened on a [`Bytes`] can hand out its byte and records fields as `Bytes` that share
/// the buffer ([`to_bytes`](Self::to_bytes)); opened on a slice, it copies them.
///
/// ```
/// use bytes::Bytes;
/// use kafka_wire::view::Source;
///
/// let frame = Bytes::from_static(b"header and body");
/// let source = Source::from(&frame);
/// let body = &source.bytes()[11..];
/// let shared = source.to_bytes(body);
/// assert_eq!(shared, "body");
/// // The same memory, not a copy.
/// assert_eq!(shared.as_ptr(), body.as_ptr());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Source<'a> {
    bytes: &'a [u8],
    shared: Option<&'a Bytes>,
}

impl<'a> Source<'a> {
    /// A source over a slice.
    pub const fn new(bytes: &'a [u8]) -> Self {
        Source {
            bytes,
            shared: None,
        }
    }

    /// The source's two parts, for a call that takes them in registers.
    #[inline(always)]
    pub(crate) const fn parts(self) -> (&'a [u8], Option<&'a Bytes>) {
        (self.bytes, self.shared)
    }

    /// The source of [`parts`](Self::parts).
    #[inline(always)]
    pub(crate) const fn from_parts(bytes: &'a [u8], shared: Option<&'a Bytes>) -> Self {
        Source { bytes, shared }
    }

    /// Every byte of the source.
    #[inline]
    pub const fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The source from byte `at` on (none past the end), sharing as this one does.
    #[inline]
    pub fn split_off(&self, at: usize) -> Source<'a> {
        Source {
            bytes: self.bytes.get(at..).unwrap_or_default(),
            shared: self.shared,
        }
    }

    /// The source up to byte `end` (all of it past its end), sharing as this one does:
    /// positions in it are those in this one.
    #[inline]
    pub(crate) fn truncated(&self, end: usize) -> Source<'a> {
        Source {
            bytes: self.bytes.get(..end).unwrap_or(self.bytes),
            shared: self.shared,
        }
    }

    /// Whether the source is a `Bytes`, whose parts [`to_bytes`](Self::to_bytes) shares.
    pub const fn is_shared(&self) -> bool {
        self.shared.is_some()
    }

    /// `part` as a `Bytes`: sharing the source's buffer when the source is a `Bytes` and `part`
    /// lies within it, as every slice a view hands out does; a copy otherwise.
    pub fn to_bytes(&self, part: &[u8]) -> Bytes {
        match self.shared {
            Some(shared) if within(shared, part) => shared.slice_ref(part),
            _ => Bytes::copy_from_slice(part),
        }
    }
}

/// Whether `part` lies within `whole`'s memory.
fn within(whole: &[u8], part: &[u8]) -> bool {
    let start = whole.as_ptr() as usize;
    let at = part.as_ptr() as usize;
    at >= start && at.saturating_add(part.len()) <= start.saturating_add(whole.len())
}

impl<'a> From<&'a [u8]> for Source<'a> {
    fn from(bytes: &'a [u8]) -> Self {
        Source::new(bytes)
    }
}

impl<'a, const N: usize> From<&'a [u8; N]> for Source<'a> {
    fn from(bytes: &'a [u8; N]) -> Self {
        Source::new(bytes)
    }
}

impl<'a> From<&'a Vec<u8>> for Source<'a> {
    fn from(bytes: &'a Vec<u8>) -> Self {
        Source::new(bytes)
    }
}

impl<'a> From<&'a BytesMut> for Source<'a> {
    fn from(bytes: &'a BytesMut) -> Self {
        Source::new(bytes)
    }
}

impl<'a> From<&'a Bytes> for Source<'a> {
    fn from(bytes: &'a Bytes) -> Self {
        Source {
            bytes,
            shared: Some(bytes),
        }
    }
}

impl Default for Source<'_> {
    fn default() -> Self {
        Source::new(&[])
    }
}
