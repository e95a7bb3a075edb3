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
/// let request = SaslAuthenticateRequest { auth_bytes: token.clone(), ..Default::default() };
/// let mut out = Segments::new();
/// request.encode(&mut out, 2)?;
/// assert_eq!(out.remaining(), request.encoded_len(2)?);
/// // The length prefix and tagged fields are copied; the token is shared, not copied.
/// let chunks: Vec<Bytes> = out.into_segments().collect();
/// assert_eq!(chunks.len(), 3);
/// assert_eq!(chunks[1].as_ptr(), token.as_ptr());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Segments {
    /// Segments written, in order.
    done: VecDeque<Bytes>,
    /// Small fields being written, after `done`.
    current: BytesMut,
    threshold: usize,
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
        Segments {
            done: VecDeque::new(),
            current: BytesMut::new(),
            threshold,
        }
    }

    /// The segments, in order, each a `Bytes` (the copied ones share one buffer).
    pub fn into_segments(mut self) -> impl Iterator<Item = Bytes> {
        self.close();
        self.done.into_iter()
    }

    /// All of it in one buffer (a copy): for tests and small messages.
    pub fn to_bytes(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(self.remaining());
        for segment in &self.done {
            out.extend_from_slice(segment);
        }
        out.extend_from_slice(&self.current);
        out.freeze()
    }

    /// Ends the segment of copied fields being written, if it has any bytes.
    fn close(&mut self) {
        if !self.current.is_empty() {
            self.done.push_back(self.current.split().freeze());
        }
    }
}

impl Sink for Segments {
    #[inline]
    fn put_u8(&mut self, n: u8) {
        BufMut::put_u8(&mut self.current, n);
    }

    #[inline]
    fn put_slice(&mut self, src: &[u8]) {
        self.current.extend_from_slice(src);
    }

    #[inline]
    fn put_shared(&mut self, src: &Bytes) {
        if src.len() < self.threshold {
            self.current.extend_from_slice(src);
        } else {
            self.close();
            self.done.push_back(src.clone());
        }
    }
}

impl Buf for Segments {
    fn remaining(&self) -> usize {
        self.done
            .iter()
            .map(Bytes::len)
            .fold(self.current.len(), usize::saturating_add)
    }

    fn chunk(&self) -> &[u8] {
        match self.done.front() {
            Some(segment) => segment,
            None => &self.current,
        }
    }

    fn advance(&mut self, mut cnt: usize) {
        while cnt > 0 {
            let Some(front) = self.done.front_mut() else {
                let n = cnt.min(self.current.len());
                self.current.advance(n);
                return;
            };
            if cnt < front.len() {
                front.advance(cnt);
                return;
            }
            cnt = cnt.saturating_sub(front.len());
            self.done.pop_front();
        }
    }

    fn chunks_vectored<'a>(&'a self, dst: &mut [IoSlice<'a>]) -> usize {
        let segments = self
            .done
            .iter()
            .map(|b| &b[..])
            .chain(core::iter::once(&self.current[..]))
            .filter(|s| !s.is_empty());
        let mut n: usize = 0;
        for (slot, segment) in dst.iter_mut().zip(segments) {
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
}
