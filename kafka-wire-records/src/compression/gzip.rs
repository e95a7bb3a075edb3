//! gzip: one or more members, through flate2.

use super::support::{read_bounded, Output};
use crate::error::RecordsError;
use kafka_wire_core::Compression;

/// Deflate cannot expand one input byte into more than 1032 output bytes (a length-258 match
/// coded in two bits, four per byte); the first room is a fraction of that.
const FIRST_ROOM_PER_BYTE: usize = 4;

pub(super) fn decompress(data: &[u8], limit: usize) -> Result<Vec<u8>, RecordsError> {
    let mut out = Output::new(data.len().saturating_mul(FIRST_ROOM_PER_BYTE), limit);
    read_bounded(
        flate2::bufread::MultiGzDecoder::new(data),
        &mut out,
        Compression::Gzip,
    )?;
    Ok(out.into_vec())
}
