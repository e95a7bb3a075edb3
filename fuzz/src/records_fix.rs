//! Structure-aware help for the records targets: walking batch boundaries, recomputing
//! checksums after a mutation, and mutating a compressed batch's payload in the clear.

use crate::mutate::Mutator;
use kafka_wire::records::{compress, decompress, Compression, DecodeLimits};

const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// One batch (or legacy message) as its size field frames it.
pub struct Batch<'a> {
    pub start: usize,
    pub magic: i8,
    pub bytes: &'a [u8],
}

/// The whole batches of `input`, in order, up to the first incomplete or malformed one.
pub fn batches(input: &[u8]) -> impl Iterator<Item = Batch<'_>> {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let rest = input.get(at..)?;
        let size = rest.get(8..12)?;
        let size =
            usize::try_from(i32::from_be_bytes([size[0], size[1], size[2], size[3]])).ok()?;
        let bytes = rest.get(..size.checked_add(12)?)?;
        let magic = *bytes.get(16)? as i8;
        let start = at;
        at += bytes.len();
        Some(Batch {
            start,
            magic,
            bytes,
        })
    })
}

/// Recomputes the checksum of every whole batch: CRC-32C from the attributes on for magic 2,
/// CRC-32 from the magic on for magic 0 and 1.
pub fn fix_checksums(input: &mut [u8]) {
    let spans: Vec<(usize, i8, usize)> = batches(input)
        .map(|b| (b.start, b.magic, b.bytes.len()))
        .collect();
    for (start, magic, len) in spans {
        let batch = &mut input[start..start + len];
        match magic {
            2 if len >= 21 => {
                let crc = CRC32C.checksum(&batch[21..]);
                batch[17..21].copy_from_slice(&crc.to_be_bytes());
            }
            0 | 1 if len >= 16 => {
                let crc = CRC32.checksum(&batch[16..]);
                batch[12..16].copy_from_slice(&crc.to_be_bytes());
            }
            _ => {}
        }
    }
}

/// Mutates the decompressed payload of the first magic 2 batch and compresses it again, so
/// that the record parser sees hostile records inside a valid compressed stream. False when
/// the input has no such batch.
pub fn mutate_payload(input: &mut Vec<u8>, mutator: &mut Mutator) -> bool {
    let Some(batch) = batches(input).find(|b| b.magic == 2 && b.bytes.len() >= 61) else {
        return false;
    };
    let (start, end) = (batch.start, batch.start + batch.bytes.len());
    let Some(codec) = Compression::from_bits(batch.bytes[22] & 0x07) else {
        return false;
    };
    let limits = DecodeLimits {
        max_decompressed: 1 << 20,
    };
    let Ok(mut payload) = decompress(codec, 2, &batch.bytes[61..], &limits) else {
        return false;
    };
    mutator.mutate(&mut payload, &[]);
    let Ok(packed) = compress(codec, 2, &payload) else {
        return false;
    };
    let Ok(size) = i32::try_from(49 + packed.len()) else {
        return false;
    };
    let mut rebuilt = input[start..start + 61].to_vec();
    rebuilt[8..12].copy_from_slice(&size.to_be_bytes());
    rebuilt.extend_from_slice(&packed);
    input.splice(start..end, rebuilt);
    true
}

/// Stretches the size field of the first batch that is not whole (cut short or grown by a
/// mutation) to reach the end of the input, so that mutated records are parsed rather than
/// reported as a truncated tail.
pub fn fix_last_size(input: &mut [u8]) {
    let whole: usize = batches(input).map(|b| b.bytes.len()).sum();
    let rest = input.len() - whole;
    if rest >= 12 {
        if let Ok(size) = i32::try_from(rest - 12) {
            input[whole + 8..whole + 12].copy_from_slice(&size.to_be_bytes());
        }
    }
}
