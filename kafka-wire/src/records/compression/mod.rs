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
#[cfg(feature = "zstd")]
mod zstd;

pub(crate) use stream::Compressor;

use super::{Compression, DecodeLimits, RecordsError, RecordsErrorKind};
use bytes::BytesMut;

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
                return Err(over_limit(limit));
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
        other => Err(RecordsErrorKind::CodecNotEnabled { compression: other }.into()),
    }
}

/// Compresses a batch payload for a batch of `magic`.
///
/// ```
/// use kafka_wire::records::{compress, Compression};
/// assert_eq!(compress(Compression::None, 2, b"abc")?, b"abc");
/// # Ok::<(), kafka_wire::records::RecordsError>(())
/// ```
pub fn compress(compression: Compression, magic: i8, data: &[u8]) -> Result<Vec<u8>, RecordsError> {
    let mut out = BytesMut::new();
    let mut compressor = Compressor::new(compression, magic, &mut out)?;
    compressor.write(&mut out, data)?;
    compressor.finish(&mut out)?;
    Ok(out.to_vec())
}

#[allow(dead_code)]
#[cold]
fn decompress_error(compression: Compression, err: impl core::fmt::Display) -> RecordsError {
    RecordsErrorKind::Decompression {
        compression,
        message: alloc::string::ToString::to_string(&err),
    }
    .into()
}

#[allow(dead_code)]
#[cold]
fn compress_error(compression: Compression, err: impl core::fmt::Display) -> RecordsError {
    RecordsErrorKind::Compression {
        compression,
        message: alloc::string::ToString::to_string(&err),
    }
    .into()
}

#[cold]
fn over_limit(limit: usize) -> RecordsError {
    RecordsErrorKind::DecompressionLimit { limit }.into()
}

/// Decompressed output: one buffer that grows with what the codec writes into it, never past
/// the limit.
#[allow(dead_code)]
struct Output {
    buf: Vec<u8>,
    /// The bytes of `buf` the codec has written; the rest is zeroed room for the next write.
    filled: usize,
    limit: usize,
}

#[allow(dead_code)]
impl Output {
    /// An output whose first room is `initial` bytes, a guess from the input's length (so
    /// proportional to the input), cut to the limit.
    fn new(initial: usize, limit: usize) -> Self {
        Output {
            buf: vec![0; initial.min(limit)],
            filled: 0,
            limit,
        }
    }

    /// Room for at least one more byte, the buffer doubled (within the limit) when it is full;
    /// `None` when the output has reached the limit.
    fn room(&mut self) -> Option<&mut [u8]> {
        if self.filled == self.buf.len() {
            if self.filled >= self.limit {
                return None;
            }
            let grown = self
                .buf
                .len()
                .saturating_mul(2)
                .clamp(self.filled.saturating_add(4096), self.limit);
            self.buf.reserve_exact(grown.saturating_sub(self.buf.len()));
            self.buf.resize(grown, 0);
        }
        self.buf.get_mut(self.filled..)
    }

    /// Room for exactly `n` more bytes, or the limit's error before anything is reserved.
    fn exact(&mut self, n: usize) -> Result<&mut [u8], RecordsError> {
        let end = self
            .filled
            .checked_add(n)
            .filter(|&end| end <= self.limit)
            .ok_or_else(|| over_limit(self.limit))?;
        if end > self.buf.len() {
            self.buf.reserve_exact(end.saturating_sub(self.buf.len()));
            self.buf.resize(end, 0);
        }
        Ok(self.buf.get_mut(self.filled..end).unwrap_or_default())
    }

    /// Records that the codec wrote `n` more bytes.
    fn advance(&mut self, n: usize) {
        self.filled = self.filled.saturating_add(n).min(self.buf.len());
    }

    /// The room left before the limit.
    fn left(&self) -> usize {
        self.limit.saturating_sub(self.filled)
    }

    /// The output so far.
    fn written(&self) -> &[u8] {
        self.buf.get(..self.filled).unwrap_or_default()
    }

    fn into_vec(mut self) -> Vec<u8> {
        self.buf.truncate(self.filled);
        self.buf
    }
}

/// Reads `reader` to its end into an [`Output`], failing once the output passes `limit`.
#[allow(dead_code)]
fn read_bounded(
    mut reader: impl std::io::Read,
    out: &mut Output,
    compression: Compression,
) -> Result<(), RecordsError> {
    loop {
        let n = match out.room() {
            Some(room) => reader.read(room),
            // At the limit: one more byte of output is one too many.
            None => reader.read(&mut [0u8; 1]),
        };
        match n {
            Ok(0) => return Ok(()),
            Ok(_) if out.left() == 0 => return Err(over_limit(out.limit)),
            Ok(n) => out.advance(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(decompress_error(compression, e)),
        }
    }
}
