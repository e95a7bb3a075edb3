//! The two checksums of the formats: CRC-32C for magic 2, CRC-32 (IEEE) for magic 0 and 1.
//!
//! Both use the CPU's instructions where it has them (SSE 4.2 `crc32` for CRC-32C, carry-less
//! multiplication for CRC-32), found at run time, with table-driven code elsewhere. Reading a
//! batch checksums every byte of it, so this is on the hot path of every consumer, where a
//! table-driven CRC-32C is a large share of reading an uncompressed fetch.

use crc_fast::{checksum, CrcAlgorithm};

/// CRC-32C (Castagnoli), the checksum of magic 2 batches.
#[inline]
pub(crate) fn crc32c(data: &[u8]) -> u32 {
    // A CRC-32 fits its `u64`.
    checksum(CrcAlgorithm::Crc32Iscsi, data) as u32
}

/// CRC-32 as in zlib and Ethernet, the checksum of magic 0 and 1 messages.
#[inline]
pub(crate) fn crc32(data: &[u8]) -> u32 {
    checksum(CrcAlgorithm::Crc32IsoHdlc, data) as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_values() {
        // The catalogue's check value of each algorithm: the CRC of "123456789".
        assert_eq!(super::crc32c(b"123456789"), 0xe306_9283);
        assert_eq!(super::crc32(b"123456789"), 0xcbf4_3926);
    }
}
