//! What the codecs share: their errors, and the bounded output buffer decompression writes into.
// Each codec uses a part of this; with one or more of them off, parts go unused.
#![cfg_attr(
    not(all(
        feature = "gzip",
        feature = "snappy",
        feature = "lz4",
        feature = "zstd"
    )),
    allow(dead_code)
)]

use crate::error::RecordsError;
use kafka_wire_core::Compression;
use kafka_wire_core::EncodeError;
use kafka_wire_core::ErrorKind;

#[cold]
pub(super) fn decompress_error(
    compression: Compression,
    err: impl core::fmt::Display,
) -> RecordsError {
    ErrorKind::DecompressionFailed {
        compression,
        message: alloc::string::ToString::to_string(&err),
    }
    .into()
}

#[cold]
pub(super) fn compress_error(
    compression: Compression,
    err: impl core::fmt::Display,
) -> EncodeError {
    EncodeError::new(ErrorKind::CompressionFailed {
        compression,
        message: alloc::string::ToString::to_string(&err),
    })
}

#[cold]
pub(super) fn over_limit(limit: usize) -> RecordsError {
    ErrorKind::DecompressionLimit { limit }.into()
}

/// Decompressed output: one buffer that grows with what the codec writes into it, never past
/// the limit.
pub(super) struct Output {
    pub(super) buf: Vec<u8>,
    /// The bytes of `buf` the codec has written; the rest is zeroed room for the next write.
    pub(super) filled: usize,
    pub(super) limit: usize,
}

impl Output {
    /// An output whose first room is `initial` bytes, a guess from the input's length (so
    /// proportional to the input), cut to the limit.
    pub(super) fn new(initial: usize, limit: usize) -> Self {
        Output {
            buf: vec![0; initial.min(limit)],
            filled: 0,
            limit,
        }
    }

    /// Room for at least one more byte, the buffer doubled (within the limit) when it is full;
    /// `None` when the output has reached the limit.
    pub(super) fn room(&mut self) -> Option<&mut [u8]> {
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
    pub(super) fn exact(&mut self, n: usize) -> Result<&mut [u8], RecordsError> {
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
    pub(super) fn advance(&mut self, n: usize) {
        self.filled = self.filled.saturating_add(n).min(self.buf.len());
    }

    /// The room left before the limit.
    pub(super) fn left(&self) -> usize {
        self.limit.saturating_sub(self.filled)
    }

    /// The output so far.
    pub(super) fn written(&self) -> &[u8] {
        self.buf.get(..self.filled).unwrap_or_default()
    }

    pub(super) fn into_vec(mut self) -> Vec<u8> {
        self.buf.truncate(self.filled);
        self.buf
    }
}

/// Reads `reader` to its end into an [`Output`], failing once the output passes `limit`.
pub(super) fn read_bounded(
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
