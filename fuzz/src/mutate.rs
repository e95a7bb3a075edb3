//! The mutation engine: byte-level edits plus edits aimed at the length, count and varint
//! fields that Kafka's formats are built from.

use kafka_wire_tests::random::Rng;

/// Inputs never grow past this, so that one input stays cheap.
pub const MAX_LEN: usize = 8192;

/// Big-endian values that sit on the edges of lengths and counts.
const INTERESTING: &[i64] = &[
    -1,
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    -0x8000,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    i32::MIN as i64,
    0x0100_0000,
    -2,
    i64::MAX,
    i64::MIN,
];

/// Varints that decoders get wrong: over-long, non-canonical, at the width limits.
const VARINTS: &[&[u8]] = &[
    &[0xff, 0xff, 0xff, 0xff, 0x0f],
    &[0xff, 0xff, 0xff, 0xff, 0x7f],
    &[0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
    &[0x80, 0x80, 0x80, 0x80, 0x00],
    &[0xfe, 0xff, 0xff, 0xff, 0x0f],
    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
    &[0x80, 0x00],
    &[0x81, 0x00],
    &[0x80, 0x80, 0x01],
    &[0x00],
    &[0x01],
    &[0x02],
    &[0x7f],
    &[0xff, 0x7f],
    &[0xff, 0xff, 0x03],
    &[0x80],
];

/// A seeded mutator.
pub struct Mutator {
    rng: Rng,
}

impl Mutator {
    pub fn new(seed: u64) -> Self {
        Mutator {
            rng: Rng::new(seed),
        }
    }

    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.rng.next_u64() % n as u64) as usize
        }
    }

    fn byte(&mut self) -> u8 {
        self.rng.next_u64() as u8
    }

    /// Applies one to four mutations to `data`; `other` is a second input for splicing.
    pub fn mutate(&mut self, data: &mut Vec<u8>, other: &[u8]) {
        let rounds = 1 + self.below(4);
        for _ in 0..rounds {
            self.mutate_once(data, other);
        }
        data.truncate(MAX_LEN);
    }

    fn mutate_once(&mut self, data: &mut Vec<u8>, other: &[u8]) {
        let len = data.len();
        match self.below(16) {
            // Flip one bit.
            0 if len > 0 => {
                let at = self.below(len);
                data[at] ^= 1 << self.below(8);
            }
            // Set a byte at random or to an edge value.
            1 if len > 0 => {
                let at = self.below(len);
                data[at] = match self.below(3) {
                    0 => self.byte(),
                    1 => [0x00, 0x01, 0x7f, 0x80, 0xff][self.below(5)],
                    _ => data[at].wrapping_add(if self.below(2) == 0 { 1 } else { 255 }),
                };
            }
            // Insert random bytes.
            2 => {
                let at = self.below(len + 1);
                let n = 1 + self.below(8);
                let fresh: Vec<u8> = (0..n).map(|_| self.byte()).collect();
                data.splice(at..at, fresh);
            }
            // Delete a range.
            3 if len > 0 => {
                let at = self.below(len);
                let n = 1 + self.below((len - at).min(16));
                data.drain(at..at + n);
            }
            // Truncate.
            4 if len > 0 => {
                let keep = self.below(len);
                data.truncate(keep);
            }
            // Splice: a prefix of this input, a suffix of the other.
            5 if !other.is_empty() => {
                let cut = self.below(len + 1);
                let from = self.below(other.len());
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            // Overwrite a 1-, 2-, 4- or 8-byte big-endian field with an edge value.
            6..=8 if len > 0 => {
                let width = [1, 2, 4, 8][self.below(4)];
                let value = INTERESTING[self.below(INTERESTING.len())];
                self.overwrite_int(data, width, value);
            }
            // A length or count that matches what follows, or misses it by a little.
            9 | 10 if len > 0 => {
                let width = [2, 4][self.below(2)];
                let at = self.below(len);
                let rest = len.saturating_sub(at + width) as i64;
                let value = rest + [-2, -1, 0, 1, 2][self.below(5)];
                self.overwrite_int_at(data, at, width, value);
            }
            // Overwrite or insert a varint from the hostile list.
            11 | 12 => {
                let v = VARINTS[self.below(VARINTS.len())];
                let at = self.below(len + 1);
                if self.below(2) == 0 {
                    data.splice(at..at, v.iter().copied());
                } else {
                    let end = (at + v.len()).min(len);
                    data.splice(at..end, v.iter().copied());
                }
            }
            // A compact (length + 1) varint matching the bytes that follow, give or take one.
            13 if len > 0 => {
                let at = self.below(len);
                let rest = (len - at) as u64;
                let value = (rest + [0, 1, 2][self.below(3)]).saturating_sub(1);
                let mut v = Vec::new();
                put_uvarint(&mut v, value);
                let end = (at + v.len()).min(len);
                data.splice(at..end, v);
            }
            // Duplicate a chunk elsewhere (repeated array elements, repeated tags).
            14 if len > 0 => {
                let from = self.below(len);
                let n = 1 + self.below((len - from).min(32));
                let chunk = data[from..from + n].to_vec();
                let at = self.below(len + 1);
                data.splice(at..at, chunk);
            }
            // Overwrite with a random run of bytes.
            _ if len > 0 => {
                let at = self.below(len);
                let n = 1 + self.below((len - at).min(8));
                for b in &mut data[at..at + n] {
                    *b = self.rng.next_u64() as u8;
                }
            }
            _ => data.push(self.byte()),
        }
    }

    fn overwrite_int(&mut self, data: &mut [u8], width: usize, value: i64) {
        let at = self.below(data.len());
        self.overwrite_int_at(data, at, width, value);
    }

    fn overwrite_int_at(&mut self, data: &mut [u8], at: usize, width: usize, value: i64) {
        let be = value.to_be_bytes();
        let bytes = &be[8 - width..];
        for (slot, b) in data.iter_mut().skip(at).zip(bytes) {
            *slot = *b;
        }
    }
}

/// An unsigned LEB128 varint.
pub fn put_uvarint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}
