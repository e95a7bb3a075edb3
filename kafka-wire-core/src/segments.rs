//! Encoding without copying large byte fields: a message or frame as a list of segments.

use crate::codec::Sink;
use bytes::{Buf, BufMut, Bytes, BytesMut};
use std::collections::VecDeque;
use std::io::IoSlice;

/// A message or frame written as byte segments: the small fields copied into buffers of its
/// own, and large byte fields (a records field, a large `bytes` value) kept by reference to the
/// `Bytes` they are held in, not copied. It is a [`Sink`] to encode into and a [`Buf`] to write
/// out, with `chunks_vectored` for `write_vectored`.
///
/// A broker serving a Fetch, or a producer sending a Produce request, then writes its records
/// from where they already are: encoding costs the small fields, whatever the size of the
/// records.
///
/// ```
/// use bytes::{Buf, Bytes};
/// use kafka_wire::messages::SaslAuthenticateRequest;
/// use kafka_wire::{Encode, Segments};
///
/// let token = Bytes::from(vec![7u8; 64 * 1024]);
/// let request = SaslAuthenticateRequest::default().with_auth_bytes(token.clone());
/// let mut out = Segments::new();
/// request.encode(&mut out, 2)?;
/// assert_eq!(out.remaining(), request.encoded_len(2)?);
/// // The length prefix and tagged fields are copied; the token is shared, not copied.
/// let chunks: Vec<Bytes> = out.into_segments().collect();
/// assert_eq!(chunks.len(), 3);
/// assert_eq!(chunks[1].as_ptr(), token.as_ptr());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Segments {
    /// The copied bytes not yet read: first those of the `Copied` parts, in order, then the
    /// ones written since the last part was closed.
    copied: BytesMut,
    /// The closed parts, in order.
    parts: VecDeque<Part>,
    /// Bytes of `copied` that belong to closed parts.
    closed: usize,
    /// Bytes in the `Shared` parts.
    shared: usize,
    threshold: usize,
}

/// One segment: the next bytes of the copied buffer, or a byte field kept by reference.
#[derive(Clone, Debug)]
enum Part {
    Copied(usize),
    Shared(Bytes),
}

impl Segments {
    /// Byte fields at least this long are kept by reference: below it, a copy costs less than
    /// a segment of its own (one more entry for `write_vectored` to walk).
    pub const DEFAULT_THRESHOLD: usize = 1024;

    /// An empty list that keeps byte fields of [`DEFAULT_THRESHOLD`](Self::DEFAULT_THRESHOLD)
    /// bytes or more by reference.
    pub fn new() -> Self {
        Self::with_threshold(Self::DEFAULT_THRESHOLD)
    }

    /// An empty list that keeps byte fields of `threshold` bytes or more by reference.
    pub fn with_threshold(threshold: usize) -> Self {
        // Room for the small fields of a Produce or Fetch of a few dozen partitions, so that
        // writing one allocates a few times, not once per doubling of a buffer grown from
        // empty.
        Segments {
            copied: BytesMut::with_capacity(512),
            parts: VecDeque::with_capacity(16),
            closed: 0,
            shared: 0,
            threshold,
        }
    }

    /// The segments, in order, each a `Bytes` (the copied ones slices of one buffer).
    pub fn into_segments(mut self) -> impl Iterator<Item = Bytes> {
        self.close();
        let mut copied = self.copied.freeze();
        self.parts.into_iter().map(move |part| match part {
            Part::Copied(len) => copied.split_to(len),
            Part::Shared(bytes) => bytes,
        })
    }

    /// All of it in one buffer (a copy): for tests and small messages.
    pub fn to_bytes(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(self.remaining());
        for segment in self.slices() {
            out.extend_from_slice(segment);
        }
        out.freeze()
    }

    /// The bytes not yet read, segment by segment (an empty one at the end, at times).
    fn slices(&self) -> impl Iterator<Item = &[u8]> {
        let mut copied = &self.copied[..];
        self.parts
            .iter()
            .map(move |part| match part {
                Part::Copied(len) => {
                    let (this, rest) = copied.split_at_checked(*len).unwrap_or((copied, &[]));
                    copied = rest;
                    this
                }
                Part::Shared(bytes) => &bytes[..],
            })
            .chain(core::iter::once(
                self.copied.get(self.closed..).unwrap_or_default(),
            ))
    }

    /// Ends the part of copied bytes being written, if it has any.
    fn close(&mut self) {
        let open = self.copied.len().saturating_sub(self.closed);
        if open > 0 {
            self.parts.push_back(Part::Copied(open));
            self.closed = self.copied.len();
        }
    }
}

impl Default for Segments {
    fn default() -> Self {
        Self::new()
    }
}

impl Sink for Segments {
    #[inline]
    fn put_u8(&mut self, n: u8) {
        BufMut::put_u8(&mut self.copied, n);
    }

    #[inline]
    fn put_slice(&mut self, src: &[u8]) {
        self.copied.extend_from_slice(src);
    }

    #[inline]
    fn put_shared(&mut self, src: &Bytes) {
        if src.len() < self.threshold {
            self.copied.extend_from_slice(src);
        } else {
            self.close();
            self.shared = self.shared.saturating_add(src.len());
            self.parts.push_back(Part::Shared(src.clone()));
        }
    }
}

impl Buf for Segments {
    fn remaining(&self) -> usize {
        // Every byte is in memory: the sum does not saturate.
        self.copied.len().saturating_add(self.shared)
    }

    fn chunk(&self) -> &[u8] {
        match self.parts.front() {
            Some(Part::Copied(len)) => self.copied.get(..*len).unwrap_or_default(),
            Some(Part::Shared(bytes)) => bytes,
            None => &self.copied,
        }
    }

    fn advance(&mut self, mut cnt: usize) {
        while cnt > 0 {
            match self.parts.front_mut() {
                None => {
                    assert!(cnt <= self.copied.len(), "advanced past the end");
                    self.copied.advance(cnt);
                    return;
                }
                Some(Part::Copied(len)) => {
                    let n = cnt.min(*len);
                    self.copied.advance(n);
                    self.closed = self.closed.saturating_sub(n);
                    *len = len.saturating_sub(n);
                    cnt = cnt.saturating_sub(n);
                    if *len == 0 {
                        self.parts.pop_front();
                    }
                }
                Some(Part::Shared(bytes)) => {
                    let n = cnt.min(bytes.len());
                    bytes.advance(n);
                    self.shared = self.shared.saturating_sub(n);
                    cnt = cnt.saturating_sub(n);
                    if bytes.is_empty() {
                        self.parts.pop_front();
                    }
                }
            }
        }
    }

    fn chunks_vectored<'a>(&'a self, dst: &mut [IoSlice<'a>]) -> usize {
        let mut n: usize = 0;
        for (slot, segment) in dst.iter_mut().zip(self.slices().filter(|s| !s.is_empty())) {
            *slot = IoSlice::new(segment);
            // At most `dst.len()`.
            n = n.saturating_add(1);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_fields_are_copied_large_ones_shared_and_reading_consumes_in_order() {
        let large = Bytes::from(vec![9u8; 2000]);
        let mut s = Segments::new();
        s.put_i32(7);
        s.put_shared(&Bytes::from_static(b"small"));
        s.put_shared(&large);
        s.put_u8(1);
        assert_eq!(s.remaining(), 4 + 5 + 2000 + 1);
        let mut slices = [IoSlice::new(&[]); 8];
        assert_eq!(s.chunks_vectored(&mut slices), 3);
        assert_eq!(slices[1].as_ptr(), large.as_ptr());
        let whole = s.to_bytes();
        assert_eq!(&whole[..9], b"\0\0\0\x07small");
        let mut read = s.clone();
        read.advance(10);
        assert_eq!(read.remaining(), 2000);
        read.advance(1998);
        assert_eq!(read.chunk(), &[9]);
        read.advance(1);
        assert_eq!(read.chunk(), &[1]);
        let chunks: Vec<Bytes> = s.into_segments().collect();
        assert_eq!(
            chunks.iter().map(Bytes::len).collect::<Vec<_>>(),
            [9, 2000, 1]
        );
    }

    /// Writes of every kind, then reads in steps of every size, each checked against the same
    /// bytes written into one vector.
    #[test]
    fn reading_in_any_steps_gives_what_was_written() {
        let large = |n: u8| Bytes::from(vec![n; 1500]);
        let mut written = Segments::with_threshold(1000);
        let mut expected = Vec::new();
        for round in 0u8..12 {
            match round % 4 {
                0 => {
                    written.put_slice(&[round; 3]);
                    expected.extend_from_slice(&[round; 3]);
                }
                1 | 2 => {
                    written.put_shared(&large(round));
                    expected.extend_from_slice(&large(round));
                }
                _ => {
                    written.put_u8(round);
                    written.put_shared(&Bytes::from(vec![round; 10]));
                    expected.push(round);
                    expected.extend_from_slice(&[round; 10]);
                }
            }
        }
        assert_eq!(written.remaining(), expected.len());
        assert_eq!(written.to_bytes(), expected);
        for step in [1, 2, 7, 999, 1500, 1501, 4000] {
            let mut read = written.clone();
            let mut got = Vec::new();
            while read.has_remaining() {
                let mut slices = [IoSlice::new(&[]); 4];
                let n = read.chunks_vectored(&mut slices);
                assert!(n > 0 && slices[0].as_ptr() == read.chunk().as_ptr());
                let take = step.min(read.remaining());
                let mut left = take;
                while left > 0 {
                    let chunk = read.chunk();
                    let n = left.min(chunk.len());
                    got.extend_from_slice(&chunk[..n]);
                    read.advance(n);
                    left -= n;
                }
                assert_eq!(read.remaining(), expected.len() - got.len());
                if read.has_remaining() {
                    // What is left still comes apart into the same bytes.
                    let rest: Vec<u8> = read.clone().into_segments().flatten().collect();
                    assert_eq!(rest, expected[got.len()..]);
                }
            }
            assert_eq!(got, expected, "steps of {step}");
        }
        let segments: Vec<Bytes> = written.into_segments().collect();
        // Copied runs between the six large fields, which are not copied.
        assert_eq!(segments.iter().filter(|s| s.len() == 1500).count(), 6);
        assert_eq!(segments.concat(), expected);
    }
}
