//! Zstandard: one or more frames, through ruzstd, with the frame header checked first.

use super::support::{decompress_error, over_limit, read_bounded, Output};
use crate::error::RecordsError;
use kafka_wire_core::Compression;
use ruzstd::decoding::StreamingDecoder;

const FRAME_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// The sizes a frame header claims.
struct FrameHeader {
    /// The declared window (the content size for a single segment).
    window: u64,
    /// The declared content size, when there is one.
    content_size: Option<u64>,
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

/// The window a window byte stands for: a power of two with an eighth-step mantissa.
fn window_of(byte: u8) -> u64 {
    let base = 1u64 << (10 + u32::from(byte >> 3));
    base.saturating_add((base >> 3).saturating_mul(u64::from(byte & 0x07)))
}

/// Reads the header of the frame at the start of `frame`; `None` when it is not a plain
/// Zstandard frame header (the decoder then reports the problem).
fn frame_header(frame: &[u8]) -> Option<FrameHeader> {
    if frame.get(..4)? != FRAME_MAGIC {
        return None;
    }
    let descriptor = *frame.get(4)?;
    let single_segment = descriptor & 0x20 != 0;
    let size_len = match descriptor >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let start = 5usize
        .saturating_add(usize::from(!single_segment))
        .saturating_add(dict_id_len(descriptor));
    let content_size = if size_len == 0 {
        None
    } else {
        let bytes = frame.get(start..start.saturating_add(size_len))?;
        let mut le = [0u8; 8];
        le.get_mut(..size_len)?.copy_from_slice(bytes);
        let size = u64::from_le_bytes(le);
        // The two-byte form counts from 256.
        Some(if size_len == 2 {
            size.saturating_add(256)
        } else {
            size
        })
    };
    let window = if single_segment {
        content_size.unwrap_or(0)
    } else {
        window_of(*frame.get(5)?)
    };
    Some(FrameHeader {
        window,
        content_size,
    })
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
    let mut out = Output::new(data.len().saturating_mul(4), limit);
    let max = u64::try_from(limit).unwrap_or(u64::MAX);
    let mut source = data;
    loop {
        // A window or content size above the limit is refused before the decoder sees it.
        // Below the limit nothing is reserved from them: a new decoder's window buffer grows
        // with the output.
        if frame_header(source)
            .is_some_and(|f| f.window > max || f.content_size.is_some_and(|size| size > max))
        {
            return Err(over_limit(limit));
        }
        check_blocks(source)?;
        let decoder = StreamingDecoder::new(&mut source)
            .map_err(|e| decompress_error(Compression::Zstd, e))?;
        read_bounded(decoder, &mut out, Compression::Zstd)?;
        if source.is_empty() {
            return Ok(out.into_vec());
        }
    }
}
