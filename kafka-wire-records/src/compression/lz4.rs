//! LZ4 frames, read and written here around lz4_flex's block codec.
//!
//! The frame layer is ours because lz4_flex's frame decoder sets aside buffers of the block size
//! a frame declares (up to 4 MiB, twice that for linked blocks) before reading a block, so a
//! 20-byte frame would cost megabytes. Here each block is decompressed straight into the output,
//! whose room grows by what the block's bytes can produce at most.

use super::support::{compress_error, decompress_error, over_limit, Output};
use crate::error::RecordsError;
use bytes::{BufMut, BytesMut};
use kafka_wire_core::Compression;
use kafka_wire_core::EncodeError;

const FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];
/// The frame descriptor we write: version 01, independent blocks, no checksums but the
/// header's; 64 KiB blocks.
const FLG: u8 = 0x60;
const BD: u8 = 0x40;
pub(super) const BLOCK: usize = 64 << 10;
/// A block's size field: the high bit marks a block stored uncompressed.
const UNCOMPRESSED: u32 = 0x8000_0000;
/// An LZ4 sequence turns each input byte into at most 255 output bytes (a match-length byte of
/// 255 extends a match by 255).
const MAX_EXPANSION: usize = 255;
/// How far back a match may reach: a dependent block may copy from the frame's last 64 KiB.
const WINDOW: usize = 64 << 10;

fn error(message: &'static str) -> RecordsError {
    decompress_error(Compression::Lz4, message)
}

/// The frame header checksum: the second byte of the xxh32 hash (seed 0) of `bytes`.
fn header_checksum(bytes: &[u8]) -> u8 {
    (twox_hash::XxHash32::oneshot(0, bytes) >> 8) as u8
}

pub(super) fn decompress(data: &[u8], magic: i8, limit: usize) -> Result<Vec<u8>, RecordsError> {
    let mut out = Output::new(0, limit);
    let mut rest = data;
    let mut frames = 0usize;
    while !rest.is_empty() {
        let Some(head) = rest.first_chunk::<4>() else {
            return Err(error("trailing bytes after the last frame"));
        };
        if matches!(*head, [m, 0x2a, 0x4d, 0x18] if m & 0xf0 == 0x50) {
            // A skippable frame: a little-endian size, then that many bytes.
            let size = rest
                .get(4..8)
                .and_then(|s| s.try_into().ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| error("truncated skippable frame"))?;
            let end = usize::try_from(size)
                .ok()
                .and_then(|s| s.checked_add(8))
                .filter(|&end| end <= rest.len())
                .ok_or_else(|| error("skippable frame longer than its stream"))?;
            rest = rest.get(end..).unwrap_or_default();
            continue;
        }
        rest = frame(rest, magic, &mut out)?;
        frames = frames.saturating_add(1);
    }
    if frames == 0 {
        return Err(error("not an LZ4 frame"));
    }
    Ok(out.into_vec())
}

/// Reads the frame at the start of `data` into `out`, and returns what follows it.
fn frame<'a>(data: &'a [u8], magic: i8, out: &mut Output) -> Result<&'a [u8], RecordsError> {
    if data.get(..4) != Some(&FRAME_MAGIC[..]) {
        return Err(error("not an LZ4 frame"));
    }
    let (&flg, &bd) = data
        .get(4)
        .zip(data.get(5))
        .ok_or_else(|| error("truncated frame header"))?;
    if flg >> 6 != 1 || flg & 0x02 != 0 || bd & 0x8f != 0 {
        return Err(error("unsupported frame version or reserved bits set"));
    }
    let independent = flg & 0x20 != 0;
    let block_checksums = flg & 0x10 != 0;
    let has_content_size = flg & 0x08 != 0;
    let content_checksum = flg & 0x04 != 0;
    if flg & 0x01 != 0 {
        return Err(error("frames with a dictionary id are not supported"));
    }
    // Ids 4 to 7 are 64 KiB to 4 MiB.
    let block_max: usize = match bd >> 4 {
        4 => 64 << 10,
        5 => 256 << 10,
        6 => 1 << 20,
        7 => 4 << 20,
        _ => return Err(error("invalid block maximum size")),
    };
    let descriptor_end = if has_content_size { 14 } else { 6 };
    let descriptor = data
        .get(4..descriptor_end)
        .ok_or_else(|| error("truncated frame header"))?;
    let &checksum = data
        .get(descriptor_end)
        .ok_or_else(|| error("truncated frame header"))?;
    // Kafka 0.8/0.9 (magic 0) hashed the magic too; Kafka reads those without checking.
    if magic != 0 && checksum != header_checksum(descriptor) {
        return Err(error("frame header checksum mismatch"));
    }
    let claimed = if has_content_size {
        let size = descriptor
            .get(2..10)
            .and_then(|s| s.try_into().ok())
            .map(u64::from_le_bytes)
            .unwrap_or(u64::MAX);
        if usize::try_from(size).map_or(true, |s| s > out.left()) {
            return Err(over_limit(out.limit));
        }
        Some(size)
    } else {
        None
    };
    let start = out.filled;
    let mut at = descriptor_end.saturating_add(1);
    loop {
        let size = data
            .get(at..at.saturating_add(4))
            .and_then(|s| s.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| error("truncated block size"))?;
        at = at.saturating_add(4);
        if size == 0 {
            break;
        }
        let len = (size & !UNCOMPRESSED) as usize;
        if len > block_max {
            return Err(error("block larger than the frame's maximum"));
        }
        let block = data
            .get(at..at.saturating_add(len))
            .ok_or_else(|| error("block longer than its stream"))?;
        at = at.saturating_add(len);
        if block_checksums {
            let stored = data
                .get(at..at.saturating_add(4))
                .and_then(|s| s.try_into().ok())
                .map(u32::from_le_bytes)
                .ok_or_else(|| error("truncated block checksum"))?;
            if stored != twox_hash::XxHash32::oneshot(0, block) {
                return Err(error("block checksum mismatch"));
            }
            at = at.saturating_add(4);
        }
        if size & UNCOMPRESSED != 0 {
            out.exact(len)?.copy_from_slice(block);
            out.advance(len);
        } else {
            decompress_block(block, block_max, independent, start, out)?;
        }
    }
    let produced = out.filled.saturating_sub(start);
    if content_checksum {
        let stored = data
            .get(at..at.saturating_add(4))
            .and_then(|s| s.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| error("truncated content checksum"))?;
        let content = out.written().get(start..).unwrap_or_default();
        if stored != twox_hash::XxHash32::oneshot(0, content) {
            return Err(error("content checksum mismatch"));
        }
        at = at.saturating_add(4);
    }
    if claimed.is_some_and(|c| u64::try_from(produced) != Ok(c)) {
        return Err(error("content size differs from the frame's header"));
    }
    Ok(data.get(at..).unwrap_or_default())
}

/// Decompresses one block onto the end of `out`. A dependent block may copy from the frame's
/// output before it (`frame_start` onwards).
fn decompress_block(
    block: &[u8],
    block_max: usize,
    independent: bool,
    frame_start: usize,
    out: &mut Output,
) -> Result<(), RecordsError> {
    let most = block_max.min(block.len().saturating_mul(MAX_EXPANSION));
    let room = most.min(out.left());
    out.exact(room)?;
    let filled = out.filled;
    let (before, after) = out.buf.split_at_mut(filled);
    let target = after.get_mut(..room).unwrap_or_default();
    let result = if independent {
        lz4_flex::block::decompress_into(block, target)
    } else {
        let frame = before.get(frame_start..).unwrap_or_default();
        let dict = frame
            .get(frame.len().saturating_sub(WINDOW)..)
            .unwrap_or_default();
        lz4_flex::block::decompress_into_with_dict(block, target, dict)
    };
    match result {
        Ok(n) => {
            out.advance(n);
            Ok(())
        }
        // The block needed more room than the limit left it.
        Err(lz4_flex::block::DecompressError::OutputTooSmall { .. }) if room < most => {
            Err(over_limit(out.limit))
        }
        Err(e) => Err(decompress_error(Compression::Lz4, e)),
    }
}

/// Writes a frame header: independent 64 KiB blocks, no checksums but the header's.
pub(super) fn frame_header(out: &mut BytesMut, magic: i8) {
    let header_at = out.len();
    out.put_slice(&FRAME_MAGIC);
    out.put_u8(FLG);
    out.put_u8(BD);
    // Kafka 0.8/0.9 hashed the frame magic into the header checksum, and checks it so.
    let hashed_from = if magic == 0 {
        header_at
    } else {
        header_at.saturating_add(FRAME_MAGIC.len())
    };
    let checksum = header_checksum(out.get(hashed_from..).unwrap_or_default());
    out.put_u8(checksum);
}

/// Ends a frame.
pub(super) fn end_mark(out: &mut BytesMut) {
    out.put_u32_le(0);
}

/// Writes one block: compressed, or stored when compressing does not make it smaller.
pub(super) fn put_block(out: &mut BytesMut, block: &[u8]) -> Result<(), EncodeError> {
    let size_at = out.len();
    let most = lz4_flex::block::get_maximum_output_size(block.len());
    out.put_u32_le(0);
    let body_at = out.len();
    out.resize(body_at.saturating_add(most), 0);
    let target = out.get_mut(body_at..).unwrap_or_default();
    let n = lz4_flex::block::compress_into(block, target)
        .map_err(|e| compress_error(Compression::Lz4, e))?;
    let (len, stored) = if n < block.len() {
        out.truncate(body_at.saturating_add(n));
        (n, false)
    } else {
        out.truncate(body_at);
        out.put_slice(block);
        (block.len(), true)
    };
    // At most one block of 64 KiB: the length fits the 31 bits of the field.
    let field = u32::try_from(len).unwrap_or(0) | if stored { UNCOMPRESSED } else { 0 };
    if let Some(slot) = out.get_mut(size_at..body_at) {
        slot.copy_from_slice(&field.to_le_bytes());
    }
    Ok(())
}
