//! The codecs: each behind its cargo feature, decompression bounded by [`DecodeLimits`].
//!
//! Formats as Kafka's clients write them:
//! - gzip: one gzip member (several concatenated ones are read, as Java's `GZIPInputStream` does).
//! - snappy: the xerial block framing of snappy-java (`\x82SNAPPY\0`, version 1, compatible
//!   version 1, then blocks of a big-endian `i32` length and a raw snappy block of at most
//!   32 KiB of input) is written; that framing and a bare raw snappy block are read.
//! - lz4: LZ4 frames with independent 64 KiB blocks and no checksums but the header's.
//!   Magic 0 keeps the header checksum of Kafka 0.8/0.9, which hashed the frame magic too: it is
//!   written that way for magic 0, and not checked when reading magic 0 (as Kafka does); magic 1
//!   and 2 use and check the standard one.
//! - zstd: one or more Zstandard frames (magic 2 only).
//!
//! Decompressed output goes into one buffer that grows with what the codec actually produces,
//! never past the limit. A size a codec's header claims (snappy's preamble, LZ4's content size,
//! zstd's window and content size) is an error when it is above the limit, and below it is
//! trusted only as far as the compressed bytes present could expand: a snappy byte gives at
//! most 22 bytes, an LZ4 byte 255. LZ4's declared block size and zstd's window are not reserved
//! up front at all.

#[cfg(feature = "gzip")]
mod gzip;
#[cfg(feature = "lz4")]
mod lz4;
#[cfg(feature = "snappy")]
mod snappy;
mod stream;
mod support;
#[cfg(feature = "zstd")]
mod zstd;

pub(crate) use stream::Compressor;

use crate::batch::DecodeLimits;
use crate::error::RecordsError;
use bytes::BytesMut;
use kafka_wire_core::Compression;
use kafka_wire_core::EncodeError;
use kafka_wire_core::ErrorKind;

/// True when this build can read and write `compression`: its cargo feature is on.
///
/// ```
/// use kafka_wire::records::{is_enabled, Compression};
///
/// assert!(is_enabled(Compression::None));
/// // `cargo test --workspace` turns every codec on.
/// assert!(is_enabled(Compression::Lz4));
/// ```
pub fn is_enabled(compression: Compression) -> bool {
    match compression {
        Compression::None => true,
        Compression::Gzip => cfg!(feature = "gzip"),
        Compression::Snappy => cfg!(feature = "snappy"),
        Compression::Lz4 => cfg!(feature = "lz4"),
        Compression::Zstd => cfg!(feature = "zstd"),
        // A codec kafka-wire does not know yet.
        _ => false,
    }
}

/// Decompresses the payload of a batch of `magic` (magic matters for LZ4's header checksum),
/// refusing output longer than `limits.max_decompressed` without allocating beyond it.
///
/// ```
/// use kafka_wire::records::{decompress, Compression, DecodeLimits};
///
/// let same = decompress(Compression::None, 2, b"abc", &DecodeLimits::default())?;
/// assert_eq!(same, b"abc");
/// # Ok::<(), kafka_wire::records::RecordsError>(())
/// ```
#[cfg_attr(not(feature = "lz4"), allow(unused_variables))]
pub fn decompress(
    compression: Compression,
    magic: i8,
    data: &[u8],
    limits: &DecodeLimits,
) -> Result<Vec<u8>, RecordsError> {
    let limit = limits.max_decompressed;
    match compression {
        Compression::None => {
            if data.len() > limit {
                return Err(ErrorKind::DecompressionLimit { limit }.into());
            }
            Ok(data.to_vec())
        }
        #[cfg(feature = "gzip")]
        Compression::Gzip => gzip::decompress(data, limit),
        #[cfg(feature = "snappy")]
        Compression::Snappy => snappy::decompress(data, limit),
        #[cfg(feature = "lz4")]
        Compression::Lz4 => lz4::decompress(data, magic, limit),
        #[cfg(feature = "zstd")]
        Compression::Zstd => zstd::decompress(data, limit),
        #[allow(unreachable_patterns)]
        other => Err(ErrorKind::CodecNotEnabled { compression: other }.into()),
    }
}

/// Compresses a batch payload for a batch of `magic`.
///
/// ```
/// use kafka_wire::records::{compress, Compression};
/// assert_eq!(compress(Compression::None, 2, b"abc")?, b"abc");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn compress(compression: Compression, magic: i8, data: &[u8]) -> Result<Vec<u8>, EncodeError> {
    let mut out = BytesMut::new();
    let mut compressor = Compressor::new(compression, magic, &mut out)?;
    compressor.write(&mut out, data)?;
    compressor.finish(&mut out)?;
    Ok(out.to_vec())
}
