//! Random values for round trips of every generated message: a small seeded generator, so
//! that a failing case is reproducible from its message, version and seed.

use bytes::Bytes;
use kafka_wire::{KafkaString, Message, RawTaggedField, Records, UnknownTaggedFields, Uuid};

/// xorshift64*: deterministic and good enough to pick test values.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// Unknown tagged fields in ascending order, above any tag a schema uses.
    pub fn unknown_tags(&mut self) -> UnknownTaggedFields {
        let mut tag = 100 + self.below(50) as u32;
        let mut fields = Vec::new();
        for _ in 0..self.below(3) {
            let data: Vec<u8> = (0..self.below(5)).map(|_| self.next_u64() as u8).collect();
            fields.push(RawTaggedField {
                tag,
                data: Bytes::from(data),
            });
            tag += self.below(200) as u32;
        }
        fields.into()
    }
}

/// A random value for version `v` of the message being built.
pub trait Random {
    fn random(r: &mut Rng, v: i16, flexible: bool) -> Self;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Random for $t {
            fn random(r: &mut Rng, _: i16, _: bool) -> Self {
                // Small values are common on the wire; extremes find width bugs.
                match r.below(4) {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    _ => r.next_u64() as $t,
                }
            }
        }
    )*};
}
ints!(i8, i16, u16, i32, u32, i64);

impl Random for bool {
    fn random(r: &mut Rng, _: i16, _: bool) -> Self {
        r.one_in(2)
    }
}

impl Random for f64 {
    fn random(r: &mut Rng, _: i16, _: bool) -> Self {
        (r.next_u64() as i64) as f64 / 1024.0
    }
}

impl Random for KafkaString {
    fn random(r: &mut Rng, _: i16, _: bool) -> Self {
        const WORDS: &[&str] = &["", "a", "orders", "tópico-ü", "payments.v2", "x-y_z"];
        let mut s = String::from(WORDS[r.below(WORDS.len() as u64) as usize]);
        if r.one_in(8) {
            s.extend(std::iter::repeat_n('k', 130));
        }
        KafkaString::from(s)
    }
}

impl Random for Bytes {
    fn random(r: &mut Rng, _: i16, _: bool) -> Self {
        Bytes::from(
            (0..r.below(12))
                .map(|_| r.next_u64() as u8)
                .collect::<Vec<u8>>(),
        )
    }
}

impl Random for Records {
    fn random(r: &mut Rng, v: i16, flexible: bool) -> Self {
        Records::new(Bytes::random(r, v, flexible))
    }
}

impl Random for Uuid {
    fn random(r: &mut Rng, _: i16, _: bool) -> Self {
        Uuid::from_u128((u128::from(r.next_u64()) << 64) | u128::from(r.next_u64()))
    }
}

impl<T: Random> Random for Vec<T> {
    fn random(r: &mut Rng, v: i16, flexible: bool) -> Self {
        (0..r.below(3)).map(|_| T::random(r, v, flexible)).collect()
    }
}

impl<T: kafka_wire::int_array::Int + Random> Random for kafka_wire::IntArray<T> {
    fn random(r: &mut Rng, v: i16, flexible: bool) -> Self {
        (0..r.below(3)).map(|_| T::random(r, v, flexible)).collect()
    }
}

/// Encodes `cases` random values of `M` at each of its versions, checks the size, decodes and
/// compares; the failures, each naming message, version and seed.
pub fn round_trip<M: Message + kafka_wire::View + Random + PartialEq + std::fmt::Debug>(
    cases: u64,
) -> Vec<String> {
    let mut failures = Vec::new();
    let (Some(lo), Some(hi)) = (M::VERSIONS.start(), M::VERSIONS.end()) else {
        return failures;
    };
    for v in lo..=hi {
        for seed in 0..cases {
            let mut r = Rng::new(seed ^ (u64::from(v as u16) << 32));
            let value = M::random(&mut r, v, M::FLEXIBLE_VERSIONS.contains(v));
            let outcome = (|| -> Result<(), String> {
                use kafka_wire::{Decode, Encode};
                let bytes = value
                    .encode_to_bytes(v)
                    .map_err(|e| format!("encode: {e}"))?;
                let len = value
                    .encoded_len(v)
                    .map_err(|e| format!("encoded_len: {e}"))?;
                if len != bytes.len() {
                    return Err(format!("encoded_len {len}, wrote {}", bytes.len()));
                }
                let back = M::decode_exact(bytes.clone(), v).map_err(|e| format!("decode: {e}"))?;
                if back != value {
                    return Err(format!("decoded {back:?}\n   expected {value:?}"));
                }
                crate::json::views_read(&value, &bytes, v)?;
                Ok(())
            })();
            if let Err(e) = outcome {
                failures.push(format!("{} v{v} seed {seed}: {e}", M::NAME));
            }
        }
    }
    failures
}
