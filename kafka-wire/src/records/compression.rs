//! The codecs: each behind its cargo feature, decompression bounded by [`DecodeLimits`].
//!
//! Formats as Kafka's clients write them:
//! - gzip: one gzip member (several concatenated ones are read, as Java's `GZIPInputStream` does).
//! - snappy: the xerial block framing of snappy-java (`\x82SNAPPY\0`, version 1, compatible
//!   version 1, then blocks of a big-endian `i32` length and a raw snappy block of at most
//!   32 KiB of input) is written; that framing and a bare raw snappy block are read.
//! - lz4: an LZ4 frame with independent 64 KiB blocks and no checksums but the header's.
//!   Magic 0 keeps the header checksum of Kafka 0.8/0.9, which hashed the frame magic too: it is
//!   written that way for magic 0, and not checked when reading magic 0 (as Kafka does); magic 1
//!   and 2 use and check the standard one.
//! - zstd: one or more Zstandard frames (magic 2 only). A frame whose window is larger than the
//!   decompression limit is refused before decoding, because the decoder sets aside a window.

use super::{Compression, DecodeLimits, RecordsError, RecordsErrorKind};
use alloc::vec::Vec;

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
                return Err(RecordsErrorKind::DecompressionLimit { limit }.into());
            }
            Ok(data.to_vec())
        }
        #[cfg(feature = "gzip")]
        Compression::Gzip => {
            read_bounded(flate2::read::MultiGzDecoder::new(data), limit, compression)
        }
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
#[cfg_attr(not(feature = "lz4"), allow(unused_variables))]
pub fn compress(compression: Compression, magic: i8, data: &[u8]) -> Result<Vec<u8>, RecordsError> {
    match compression {
        Compression::None => Ok(data.to_vec()),
        #[cfg(feature = "gzip")]
        Compression::Gzip => {
            use std::io::Write;
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            encoder
                .write_all(data)
                .and_then(|()| encoder.finish())
                .map_err(|e| compress_error(compression, e))
        }
        #[cfg(feature = "snappy")]
        Compression::Snappy => snappy::compress(data),
        #[cfg(feature = "lz4")]
        Compression::Lz4 => lz4::compress(data, magic),
        #[cfg(feature = "zstd")]
        Compression::Zstd => Ok(ruzstd::encoding::compress_to_vec(
            data,
            ruzstd::encoding::CompressionLevel::Fastest,
        )),
        #[allow(unreachable_patterns)]
        other => Err(RecordsErrorKind::CodecNotEnabled { compression: other }.into()),
    }
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

#[allow(dead_code)]
#[cold]
fn over_limit(limit: usize) -> RecordsError {
    RecordsErrorKind::DecompressionLimit { limit }.into()
}

/// Reads `reader` to its end into a new vector, failing once the output passes `limit`. The
/// vector grows by doubling but never past `limit`, so a bomb costs at most `limit` bytes.
#[allow(dead_code)]
fn read_bounded(
    reader: impl std::io::Read,
    limit: usize,
    compression: Compression,
) -> Result<Vec<u8>, RecordsError> {
    let mut out = Vec::new();
    append_bounded(reader, &mut out, limit, compression)?;
    Ok(out)
}

#[allow(dead_code)]
fn append_bounded(
    mut reader: impl std::io::Read,
    out: &mut Vec<u8>,
    limit: usize,
    compression: Compression,
) -> Result<(), RecordsError> {
    let mut chunk = [0u8; 8192];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(decompress_error(compression, e)),
        };
        let len = out.len().saturating_add(n);
        if len > limit {
            return Err(over_limit(limit));
        }
        if len > out.capacity() {
            let target = out.capacity().saturating_mul(2).clamp(len, limit);
            out.reserve_exact(target.saturating_sub(out.len()));
        }
        out.extend_from_slice(chunk.get(..n).unwrap_or_default());
    }
}

#[cfg(feature = "snappy")]
mod snappy {
    use super::*;

    const XERIAL_MAGIC: &[u8; 8] = b"\x82SNAPPY\x00";
    /// snappy-java's default block size: each block compresses this much input.
    const BLOCK: usize = 32 * 1024;

    pub(super) fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, RecordsError> {
        let mut out = Vec::new();
        match data.strip_prefix(XERIAL_MAGIC) {
            // Version and compatible version follow; like kafka-python, accept any values
            // (some producers write them little-endian).
            Some(rest) if data.len() >= 16 => {
                let mut blocks = rest.get(8..).unwrap_or_default();
                while !blocks.is_empty() {
                    let (len, rest) = blocks
                        .split_first_chunk::<4>()
                        .ok_or_else(|| error("truncated xerial block length"))?;
                    let len = usize::try_from(i32::from_be_bytes(*len))
                        .map_err(|_| error("negative xerial block length"))?;
                    let block = rest
                        .get(..len)
                        .ok_or_else(|| error("xerial block longer than its stream"))?;
                    raw_into(block, &mut out, limit)?;
                    blocks = rest.get(len..).unwrap_or_default();
                }
            }
            _ => raw_into(data, &mut out, limit)?,
        }
        Ok(out)
    }

    /// Appends one raw snappy block, whose preamble states its decompressed length: checked
    /// against the limit before anything is allocated.
    fn raw_into(block: &[u8], out: &mut Vec<u8>, limit: usize) -> Result<(), RecordsError> {
        let n = snap::raw::decompress_len(block)
            .map_err(|e| decompress_error(Compression::Snappy, e))?;
        let start = out.len();
        let end = start
            .checked_add(n)
            .filter(|&end| end <= limit)
            .ok_or_else(|| over_limit(limit))?;
        out.resize(end, 0);
        let target = out.get_mut(start..).unwrap_or_default();
        let written = snap::raw::Decoder::new()
            .decompress(block, target)
            .map_err(|e| decompress_error(Compression::Snappy, e))?;
        out.truncate(start.saturating_add(written));
        Ok(())
    }

    fn error(message: &'static str) -> RecordsError {
        decompress_error(Compression::Snappy, message)
    }

    pub(super) fn compress(data: &[u8]) -> Result<Vec<u8>, RecordsError> {
        let mut out = Vec::with_capacity(
            snap::raw::max_compress_len(data.len().min(BLOCK)).saturating_add(16),
        );
        out.extend_from_slice(XERIAL_MAGIC);
        out.extend_from_slice(&1i32.to_be_bytes());
        out.extend_from_slice(&1i32.to_be_bytes());
        let mut encoder = snap::raw::Encoder::new();
        for chunk in data.chunks(BLOCK) {
            let block = encoder
                .compress_vec(chunk)
                .map_err(|e| compress_error(Compression::Snappy, e))?;
            // A block of at most 32 KiB of input compresses to well under 2 GiB.
            let len = i32::try_from(block.len())
                .map_err(|_| RecordsError::new(RecordsErrorKind::TooLarge { size: block.len() }))?;
            out.extend_from_slice(&len.to_be_bytes());
            out.extend_from_slice(&block);
        }
        Ok(out)
    }
}

#[cfg(feature = "lz4")]
mod lz4 {
    use super::*;
    use lz4_flex::frame::{BlockMode, BlockSize, FrameDecoder, FrameEncoder, FrameInfo};
    use std::io::{Read, Write};

    const FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

    /// The length of the frame header (magic to header checksum, inclusive) and its block size.
    fn header(data: &[u8]) -> Option<(usize, usize)> {
        if data.get(..4)? != FRAME_MAGIC {
            return None;
        }
        let flags = *data.get(4)?;
        let block_id = (*data.get(5)? >> 4) & 0x07;
        let len: usize = match (flags & 0x08 != 0, flags & 0x01 != 0) {
            (false, false) => 7,
            (false, true) => 11,
            (true, false) => 15,
            (true, true) => 19,
        };
        data.get(len.saturating_sub(1))?;
        // Ids 4 to 7 are 64 KiB to 4 MiB; the decoder refuses the others.
        let shift = u32::from(block_id).saturating_mul(2).saturating_add(8);
        Some((len, 1usize.checked_shl(shift).unwrap_or(usize::MAX)))
    }

    /// The legacy LZ4 frame magic; its blocks are 8 MiB.
    const LEGACY_MAGIC: [u8; 4] = [0x02, 0x21, 0x4c, 0x18];

    /// The most memory the decoder sets aside for any frame of `data`: the compressed block
    /// buffer plus the output buffer (twice the block and a 64 KiB window for linked blocks).
    /// `None` when there is no frame to walk; the walk stops where the framing breaks, which is
    /// where the decoder stops too.
    fn frames_cost(data: &[u8]) -> Option<usize> {
        let mut at = 0usize;
        let mut most: Option<usize> = None;
        while let Some((cost, next)) = data.get(at..).filter(|r| !r.is_empty()).and_then(frame) {
            most = most.max(cost);
            match next {
                Some(next) => at = at.saturating_add(next),
                None => break,
            }
        }
        most
    }

    /// The cost of the frame at the start of `data` (`None` for a skippable frame) and where
    /// the next frame starts, if the frame's end was found.
    fn frame(data: &[u8]) -> Option<(Option<usize>, Option<usize>)> {
        let magic = data.get(..4)?;
        if magic == LEGACY_MAGIC {
            // Legacy frames run to the end of the input.
            return Some((Some(2 * (8 << 20)), None));
        }
        if matches!(*magic, [m, 0x2a, 0x4d, 0x18] if m & 0xf0 == 0x50) {
            // A skippable frame: a size, then that many bytes.
            let size = u32::from_le_bytes(data.get(4..8)?.try_into().ok()?);
            return Some((None, 8usize.checked_add(usize::try_from(size).ok()?)));
        }
        let (header_len, block) = header(data)?;
        let flags = *data.get(4)?;
        let linked = flags & 0x20 == 0;
        let output = if linked {
            block.saturating_mul(2).saturating_add(64 << 10)
        } else {
            block
        };
        let cost = block.saturating_add(output);
        let block_checksum = if flags & 0x10 != 0 { 4 } else { 0 };
        let mut pos = header_len;
        let end = loop {
            let Some(&[s0, s1, s2, s3]) = data.get(pos..pos.saturating_add(4)) else {
                break None;
            };
            let size = u32::from_le_bytes([s0, s1, s2, s3]);
            pos = pos.saturating_add(4);
            if size == 0 {
                break Some(pos.saturating_add(if flags & 0x04 != 0 { 4 } else { 0 }));
            }
            let Some(next) = usize::try_from(size & 0x7fff_ffff)
                .ok()
                .and_then(|len| pos.checked_add(len)?.checked_add(block_checksum))
            else {
                break None;
            };
            pos = next;
        };
        Some((Some(cost), end))
    }

    fn header_checksum(bytes: &[u8]) -> u8 {
        // The second byte of the xxh32 hash (seed 0).
        (twox_hash::XxHash32::oneshot(0, bytes) >> 8) as u8
    }

    pub(super) fn decompress(
        data: &[u8],
        magic: i8,
        limit: usize,
    ) -> Result<Vec<u8>, RecordsError> {
        let Some((header_len, _)) = header(data) else {
            return Err(decompress_error(
                Compression::Lz4,
                "not an LZ4 frame header",
            ));
        };
        // The decoder sets aside buffers sized by each frame's declared block size before
        // reading a block; check every frame's, not only the first one's.
        if frames_cost(data).is_some_and(|cost| cost > limit) {
            return Err(over_limit(limit));
        }
        if magic == 0 {
            // Put the standard checksum in place of whatever Kafka 0.8/0.9 wrote.
            let mut head = data.get(..header_len).unwrap_or_default().to_vec();
            let checksum = header_checksum(
                head.get(4..header_len.saturating_sub(1))
                    .unwrap_or_default(),
            );
            if let Some(last) = head.last_mut() {
                *last = checksum;
            }
            let rest = data.get(header_len..).unwrap_or_default();
            read_bounded(
                FrameDecoder::new(head.as_slice().chain(rest)),
                limit,
                Compression::Lz4,
            )
        } else {
            read_bounded(FrameDecoder::new(data), limit, Compression::Lz4)
        }
    }

    pub(super) fn compress(data: &[u8], magic: i8) -> Result<Vec<u8>, RecordsError> {
        let info = FrameInfo::new()
            .block_size(BlockSize::Max64KB)
            .block_mode(BlockMode::Independent);
        let mut encoder = FrameEncoder::with_frame_info(info, Vec::new());
        encoder
            .write_all(data)
            .map_err(|e| compress_error(Compression::Lz4, e))?;
        let mut out = encoder
            .finish()
            .map_err(|e| compress_error(Compression::Lz4, e))?;
        if magic == 0 {
            // Kafka 0.8/0.9 hashed the frame magic into the header checksum, and checks it so.
            if let Some((header_len, _)) = header(&out) {
                let last = header_len.saturating_sub(1);
                let checksum = header_checksum(out.get(..last).unwrap_or_default());
                if let Some(byte) = out.get_mut(last) {
                    *byte = checksum;
                }
            }
        }
        Ok(out)
    }
}

#[cfg(feature = "zstd")]
mod zstd {
    use super::*;
    use ruzstd::decoding::StreamingDecoder;

    /// The window a frame declares, from its header; `None` when the header is not a plain
    /// Zstandard frame header (the decoder then reports the problem).
    fn window_size(frame: &[u8]) -> Option<u64> {
        if frame.get(..4)? != [0x28, 0xb5, 0x2f, 0xfd] {
            return None;
        }
        let descriptor = *frame.get(4)?;
        if descriptor & 0x20 == 0 {
            let window = *frame.get(5)?;
            let base = 1u64 << (10 + u32::from(window >> 3));
            return Some(base.saturating_add((base >> 3).saturating_mul(u64::from(window & 0x07))));
        }
        // Single segment: the window is the content size.
        let dict_len = dict_id_len(descriptor);
        let size_len = match descriptor >> 6 {
            0 => 1,
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let start = dict_len.saturating_add(5);
        let bytes = frame.get(start..start.saturating_add(size_len))?;
        let mut le = [0u8; 8];
        le.get_mut(..size_len)?.copy_from_slice(bytes);
        let size = u64::from_le_bytes(le);
        Some(if size_len == 2 {
            size.saturating_add(256)
        } else {
            size
        })
    }

    /// The length of the dictionary id field a frame header descriptor announces.
    fn dict_id_len(descriptor: u8) -> usize {
        match descriptor & 0x03 {
            0 => 0,
            1 => 1,
            2 => 2,
            _ => 4,
        }
    }

    /// The most a block may decompress to (RFC 8878, Block_Maximum_Size, at its largest).
    const MAX_BLOCK: usize = 128 << 10;

    /// Walks the blocks of the frame at the start of `frame` and refuses one whose header
    /// declares more literals, or more sequences, than a block can hold: the decoder reserves
    /// room for both from those counts before decoding anything (12 bytes a sequence), so a
    /// 20-byte block could otherwise make it set aside over 1 MiB. A sequence is at least
    /// 3 bytes of output, hence at most `MAX_BLOCK / 3` of them. The walk ends quietly where
    /// the frame is malformed; the decoder reports that.
    fn check_blocks(frame: &[u8]) -> Result<(), RecordsError> {
        let too_big = |what: &str| {
            decompress_error(
                Compression::Zstd,
                alloc::format!("a block declares more {what} than a block can hold"),
            )
        };
        let Some(descriptor) = frame.get(4).copied() else {
            return Ok(());
        };
        if frame.get(..4) != Some(&[0x28, 0xb5, 0x2f, 0xfd][..]) {
            return Ok(());
        }
        let single_segment = descriptor & 0x20 != 0;
        let dict_len = dict_id_len(descriptor);
        let size_len = match descriptor >> 6 {
            0 => usize::from(single_segment),
            1 => 2,
            2 => 4,
            _ => 8,
        };
        let mut at = dict_len
            .saturating_add(size_len)
            .saturating_add(5)
            .saturating_add(usize::from(!single_segment));
        loop {
            let Some(&[b0, b1, b2]) = frame.get(at..at.saturating_add(3)) else {
                return Ok(());
            };
            let header = u32::from_le_bytes([b0, b1, b2, 0]);
            let last = header & 1 != 0;
            let kind = (header >> 1) & 3;
            let size = (header >> 3) as usize;
            at = at.saturating_add(3);
            if kind == 2 {
                let Some(block) = frame.get(at..at.saturating_add(size)) else {
                    return Ok(());
                };
                let Some((regenerated, literals_len)) = literals_header(block) else {
                    return Ok(());
                };
                if regenerated > MAX_BLOCK {
                    return Err(too_big("literals"));
                }
                let sequences = block.get(literals_len..).and_then(|s| match *s {
                    [] => None,
                    [0, ..] => Some(0),
                    [n @ 1..=127, ..] => Some(usize::from(n)),
                    [255, lo, hi, ..] => {
                        Some((usize::from(lo) | usize::from(hi) << 8).saturating_add(0x7f00))
                    }
                    [n @ 128..=254, lo, ..] => Some(usize::from(n & 0x7f) << 8 | usize::from(lo)),
                    _ => None,
                });
                if sequences.is_some_and(|n| n > MAX_BLOCK / 3) {
                    return Err(too_big("sequences"));
                }
            }
            // Raw and RLE blocks: the decoder checks their declared size itself.
            at = at.saturating_add(if kind == 1 { 1 } else { size });
            if last {
                return Ok(());
            }
        }
    }

    /// A compressed block's literals section: the regenerated size and the section's length
    /// (header and content) in the block.
    fn literals_header(block: &[u8]) -> Option<(usize, usize)> {
        let b = |i: usize| block.get(i).map(|&x| usize::from(x));
        let b0 = b(0)?;
        let kind = b0 & 3;
        let format = (b0 >> 2) & 3;
        if kind < 2 {
            // Raw or RLE literals.
            let (regenerated, header) = match format {
                0 | 2 => (b0 >> 3, 1),
                1 => ((b0 >> 4) | (b(1)? << 4), 2),
                _ => ((b0 >> 4) | (b(1)? << 4) | (b(2)? << 12), 3),
            };
            let content = if kind == 0 { regenerated } else { 1 };
            return Some((regenerated, content.saturating_add(header)));
        }
        let (regenerated, compressed, header) = match format {
            0 | 1 => (
                (b0 >> 4) | ((b(1)? & 0x3f) << 4),
                (b(1)? >> 6) | (b(2)? << 2),
                3,
            ),
            2 => (
                (b0 >> 4) | (b(1)? << 4) | ((b(2)? & 3) << 12),
                (b(2)? >> 2) | (b(3)? << 6),
                4,
            ),
            _ => (
                (b0 >> 4) | (b(1)? << 4) | ((b(2)? & 0x3f) << 12),
                (b(2)? >> 6) | (b(3)? << 2) | (b(4)? << 10),
                5,
            ),
        };
        Some((regenerated, compressed.saturating_add(header)))
    }

    pub(super) fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, RecordsError> {
        let mut out = Vec::new();
        let mut source = data;
        loop {
            let max_window = u64::try_from(limit).unwrap_or(u64::MAX);
            if window_size(source).is_some_and(|w| w > max_window) {
                return Err(over_limit(limit));
            }
            check_blocks(source)?;
            let decoder = StreamingDecoder::new(&mut source)
                .map_err(|e| decompress_error(Compression::Zstd, e))?;
            append_bounded(decoder, &mut out, limit, Compression::Zstd)?;
            if source.is_empty() {
                return Ok(out);
            }
        }
    }
}
