//! Snappy: snappy-java's xerial block framing, or one raw block.

use super::support::{decompress_error, over_limit, Output};
use crate::error::RecordsError;
use kafka_wire_core::Compression;

pub(super) const XERIAL_MAGIC: &[u8; 8] = b"\x82SNAPPY\x00";
/// snappy-java's default block size: each block compresses this much input.
pub(super) const BLOCK: usize = 32 * 1024;
/// The most output one byte of a raw block can give: a copy of 64 bytes takes 3 bytes (tag and
/// two-byte offset), and nothing else does better.
const MAX_EXPANSION: usize = 22;

pub(super) fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, RecordsError> {
    let mut out = Output::new(0, limit);
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
                raw_into(block, &mut out)?;
                blocks = rest.get(len..).unwrap_or_default();
            }
        }
        _ => raw_into(data, &mut out)?,
    }
    Ok(out.into_vec())
}

/// Appends one raw snappy block. Its preamble states its decompressed length: above the limit
/// it is an error, and above what the block's bytes can expand to it is a lie; either way
/// nothing is reserved for it.
fn raw_into(block: &[u8], out: &mut Output) -> Result<(), RecordsError> {
    let n =
        snap::raw::decompress_len(block).map_err(|e| decompress_error(Compression::Snappy, e))?;
    if n > out.left() {
        return Err(over_limit(out.limit));
    }
    if n > block.len().saturating_mul(MAX_EXPANSION) {
        return Err(error("a block claims more output than its bytes can hold"));
    }
    let target = out.exact(n)?;
    let written = snap::raw::Decoder::new()
        .decompress(block, target)
        .map_err(|e| decompress_error(Compression::Snappy, e))?;
    out.advance(written);
    Ok(())
}

fn error(message: &'static str) -> RecordsError {
    decompress_error(Compression::Snappy, message)
}
