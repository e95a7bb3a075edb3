//! TCP reassembly: the bytes one side of a connection sent, from its segments as captured,
//! in any order, repeated or overlapping.
//!
//! Positions in the stream are counted in 64 bits from the first byte; a segment is placed by
//! its sequence number's signed distance from the next byte expected, so streams may pass the
//! 32-bit wrap as long as no segment lies more than 2 GiB from that byte.

use std::collections::BTreeMap;

#[derive(Debug, Default)]
pub struct Reassembler {
    /// The sequence number of the next byte expected, once known.
    next: Option<u32>,
    /// The bytes delivered so far.
    delivered: u64,
    /// Segments that start past `delivered`, by stream position.
    pending: BTreeMap<u64, Vec<u8>>,
}

impl Reassembler {
    /// A SYN: the stream starts after its sequence number.
    pub fn syn(&mut self, seq: u32) {
        if self.next.is_none() {
            self.next = Some(seq.wrapping_add(1));
        }
    }

    /// Takes a segment; appends to `out` the bytes it makes contiguous.
    pub fn segment(&mut self, seq: u32, data: &[u8], out: &mut Vec<u8>) {
        if data.is_empty() {
            return;
        }
        // A capture that starts mid-connection starts its stream at the first segment seen.
        let next = *self.next.get_or_insert(seq);
        let distance = i64::from(seq.wrapping_sub(next) as i32);
        let delivered = self.delivered as i64;
        let start = delivered + distance;
        let end = start + data.len() as i64;
        if end <= delivered {
            return; // a retransmission of what was delivered
        }
        let skip = usize::try_from(delivered - start).unwrap_or(0);
        let start = (start.max(delivered)) as u64;
        let data = &data[skip..];
        // Of two segments starting at one position, the longer one holds both.
        let slot = self.pending.entry(start).or_default();
        if data.len() > slot.len() {
            *slot = data.to_vec();
        }
        self.drain(out);
    }

    fn drain(&mut self, out: &mut Vec<u8>) {
        while let Some(entry) = self.pending.first_entry() {
            let start = *entry.key();
            if start > self.delivered {
                break;
            }
            let data = entry.remove();
            let skip = usize::try_from(self.delivered - start).unwrap_or(usize::MAX);
            if let Some(new) = data.get(skip..).filter(|d| !d.is_empty()) {
                out.extend_from_slice(new);
                self.delivered += new.len() as u64;
                self.next = self.next.map(|n| n.wrapping_add(new.len() as u32));
            }
        }
    }

    /// The missing bytes before the first segment still waiting: `(position, length)`.
    pub fn gap(&self) -> Option<(u64, u64)> {
        let (&start, _) = self.pending.first_key_value()?;
        Some((self.delivered, start - self.delivered))
    }
}

#[cfg(test)]
mod tests {
    use super::Reassembler;

    fn feed(segments: &[(u32, &[u8])]) -> (Vec<u8>, Option<(u64, u64)>) {
        let mut r = Reassembler::default();
        r.syn(999);
        let mut out = Vec::new();
        for (seq, data) in segments {
            r.segment(*seq, data, &mut out);
        }
        (out, r.gap())
    }

    #[test]
    fn in_order_out_of_order_and_repeated_segments_give_the_stream() {
        assert_eq!(feed(&[(1000, b"abc"), (1003, b"def")]).0, b"abcdef");
        assert_eq!(feed(&[(1003, b"def"), (1000, b"abc")]).0, b"abcdef");
        assert_eq!(
            feed(&[(1000, b"abc"), (1000, b"abc"), (1003, b"def")]).0,
            b"abcdef"
        );
    }

    #[test]
    fn overlapping_segments_are_trimmed() {
        assert_eq!(feed(&[(1000, b"abcd"), (1002, b"cdef")]).0, b"abcdef");
        assert_eq!(
            feed(&[(1004, b"ef"), (1002, b"cdef"), (1000, b"ab")]).0,
            b"abcdef"
        );
        assert_eq!(
            feed(&[(1002, b"cd"), (1002, b"cdef"), (1000, b"abc")]).0,
            b"abcdef"
        );
        assert_eq!(feed(&[(1000, b"abcdef"), (1001, b"bc")]).0, b"abcdef");
    }

    #[test]
    fn a_hole_is_reported() {
        let (out, gap) = feed(&[(1000, b"ab"), (1005, b"fg")]);
        assert_eq!(out, b"ab");
        assert_eq!(gap, Some((2, 3)));
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut r = Reassembler::default();
        r.syn(u32::MAX - 1);
        let mut out = Vec::new();
        r.segment(1, b"cd", &mut out);
        r.segment(u32::MAX, b"ab", &mut out);
        assert_eq!(out, b"abcd");
    }
}
