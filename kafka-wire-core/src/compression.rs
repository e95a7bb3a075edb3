//! The compression codecs of record batches, as Kafka numbers and names them. Reading and
//! writing them belongs to `kafka_wire::records`; the codec is here because the error kinds
//! name it.

use core::fmt;

/// A compression codec, as numbered in a record batch's attributes.
///
/// Kafka may add codecs (three attribute bits leave room for three more): a `match` needs a `_`
/// arm.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed.
    #[default]
    None,
    /// gzip (kafka-wire's cargo feature `gzip`).
    Gzip,
    /// Snappy (cargo feature `snappy`); written in the xerial framing Kafka's Java client uses.
    Snappy,
    /// LZ4 frames (cargo feature `lz4`).
    Lz4,
    /// Zstandard (cargo feature `zstd`); magic 2 only.
    Zstd,
}

impl Compression {
    /// The codec numbered `bits` (the low three attribute bits).
    pub fn from_bits(bits: u8) -> Option<Self> {
        Some(match bits {
            0 => Self::None,
            1 => Self::Gzip,
            2 => Self::Snappy,
            3 => Self::Lz4,
            4 => Self::Zstd,
            _ => return None,
        })
    }

    /// The codec's number in the batch attributes.
    pub fn bits(self) -> u8 {
        match self {
            Self::None => 0,
            Self::Gzip => 1,
            Self::Snappy => 2,
            Self::Lz4 => 3,
            Self::Zstd => 4,
        }
    }

    /// The codec's name, as Kafka's `compression.type` spells it; also the cargo feature that
    /// enables it (`none` needs none).
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Gzip => "gzip",
            Self::Snappy => "snappy",
            Self::Lz4 => "lz4",
            Self::Zstd => "zstd",
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
