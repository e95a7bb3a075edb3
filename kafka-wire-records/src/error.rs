//! The records error: a matchable kind plus where it happened (batch, record, byte offset).

use crate::batch::Compression;
use alloc::boxed::Box;
use alloc::string::String;
use core::fmt;
use kafka_wire_core::DecodeErrorKind;

/// What went wrong while reading or writing record batches.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordsErrorKind {
    /// A fault of the encoding that record batches share with messages, [`DecodeErrorKind`]
    /// says which: the input ending inside a value, a varint too long or overflowing its type,
    /// a length or count below what is allowed (-1 for nullable bytes, 0 otherwise) or beyond
    /// the bytes left in its batch or record, a header key that is not UTF-8, bytes left over
    /// after the last record of a batch or the value of a legacy message.
    Decode(DecodeErrorKind),
    /// A batch or message size below the smallest header of its magic.
    BatchTooSmall {
        /// The declared size (the bytes after the size field).
        size: i64,
        /// The smallest valid size.
        min: usize,
    },
    /// The stored checksum does not match the bytes.
    CrcMismatch {
        /// The checksum stored in the batch.
        expected: u32,
        /// The checksum of the bytes.
        actual: u32,
    },
    /// A magic byte other than 0, 1 or 2.
    UnsupportedMagic {
        /// The magic byte read.
        magic: i8,
    },
    /// Compression codec bits naming no codec (5 to 7), or a codec the magic cannot use.
    UnsupportedCompression {
        /// The codec bits.
        codec: u8,
    },
    /// A codec whose cargo feature is not enabled in this build.
    CodecNotEnabled {
        /// The codec.
        compression: Compression,
    },
    /// Decompressed output longer than [`DecodeLimits::max_decompressed`](crate::batch::DecodeLimits).
    DecompressionLimit {
        /// The limit in bytes.
        limit: usize,
    },
    /// Owned batches built from decompressed payloads (the payloads, and the records and headers
    /// made from them) would take more than [`DecodeLimits::max_decompressed`](crate::batch::DecodeLimits)
    /// bytes; read such input through the views instead, which hold one payload at a time.
    MemoryLimit {
        /// The limit in bytes.
        limit: usize,
    },
    /// The codec rejected the compressed bytes.
    Decompression {
        /// The codec.
        compression: Compression,
        /// The codec's description of the problem.
        message: String,
    },
    /// The codec failed while compressing.
    Compression {
        /// The codec.
        compression: Compression,
        /// The codec's description of the problem.
        message: String,
    },
    /// A record that did not use exactly the bytes its length declared.
    RecordSizeMismatch {
        /// The declared length.
        declared: usize,
        /// Bytes its fields used.
        used: usize,
    },
    /// An offset or a timestamp beyond `i64` (base plus delta), or a delta beyond `i32`.
    OffsetOverflow,
    /// A timestamp that does not fit: base plus delta beyond `i64`.
    TimestampOverflow,
    /// A compressed legacy message without a value, or one inside another compressed message.
    InvalidWrapper,
    /// A control record whose key or value does not follow the control record layout.
    InvalidControlRecord,
    /// A value too large for its field while writing (a length above `i32::MAX`, ...).
    TooLarge {
        /// The value's size.
        size: usize,
    },
    /// Headers on a record of magic 0 or 1, which cannot carry them.
    HeadersInLegacy,
    /// A batch with no records where one is needed (a legacy set, a compressed legacy wrapper).
    EmptyBatch,
}

impl fmt::Display for RecordsErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The only string of a record batch is a header key.
            Self::Decode(DecodeErrorKind::InvalidUtf8) => {
                f.write_str("header key is not valid UTF-8")
            }
            Self::Decode(kind) => kind.fmt(f),
            Self::BatchTooSmall { size, min } => {
                write!(f, "size {size} is below the minimum {min}")
            }
            Self::CrcMismatch { expected, actual } => {
                write!(
                    f,
                    "checksum {actual:#010x} does not match the stored {expected:#010x}"
                )
            }
            Self::UnsupportedMagic { magic } => write!(f, "unsupported magic {magic}"),
            Self::UnsupportedCompression { codec } => {
                write!(f, "unsupported compression codec {codec}")
            }
            Self::CodecNotEnabled { compression } => write!(
                f,
                "{compression} support is not enabled (cargo feature `{}`)",
                compression.name()
            ),
            Self::DecompressionLimit { limit } => {
                write!(f, "decompressed data exceeds the limit of {limit} bytes")
            }
            Self::MemoryLimit { limit } => write!(
                f,
                "owned records built from decompressed data exceed the limit of {limit} bytes"
            ),
            Self::Decompression {
                compression,
                message,
            } => write!(f, "{compression} decompression failed: {message}"),
            Self::Compression {
                compression,
                message,
            } => write!(f, "{compression} compression failed: {message}"),
            Self::RecordSizeMismatch { declared, used } => {
                write!(
                    f,
                    "record declares {declared} bytes but its fields use {used}"
                )
            }
            Self::OffsetOverflow => f.write_str("offset out of range"),
            Self::TimestampOverflow => f.write_str("timestamp out of range"),
            Self::InvalidWrapper => f.write_str("invalid compressed wrapper message"),
            Self::InvalidControlRecord => f.write_str("invalid control record"),
            Self::TooLarge { size } => write!(f, "size {size} is too large for its field"),
            Self::HeadersInLegacy => f.write_str("magic 0 and 1 records cannot carry headers"),
            Self::EmptyBatch => f.write_str("batch has no records"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: RecordsErrorKind,
    batch: Option<usize>,
    record: Option<usize>,
    offset: Option<usize>,
    in_decompressed: bool,
}

/// A failure while reading or writing record batches.
///
/// Besides its [kind](RecordsErrorKind) it knows the index of the batch in the input, the index
/// of the record in the batch, and the byte offset of the failure: in the input given to the
/// reader, or, when [`in_decompressed`](Self::in_decompressed) is true, in the batch's
/// decompressed payload.
///
/// ```
/// use kafka_wire::records::{RecordsErrorKind, RecordsReader};
///
/// // A v2 batch header whose size field claims fewer bytes than a header needs.
/// let mut input = vec![0u8; 61];
/// input[11] = 20; // size 20
/// input[16] = 2; // magic
/// let err = RecordsReader::new(input.into()).next().unwrap().unwrap_err();
/// assert!(matches!(err.kind(), RecordsErrorKind::BatchTooSmall { size: 20, min: 49 }));
/// assert_eq!((err.batch(), err.offset()), (Some(0), Some(8)));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct RecordsError(Box<Inner>);

impl RecordsError {
    /// An error of `kind` with no location yet.
    #[cold]
    pub fn new(kind: RecordsErrorKind) -> Self {
        RecordsError(Box::new(Inner {
            kind,
            batch: None,
            record: None,
            offset: None,
            in_decompressed: false,
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &RecordsErrorKind {
        &self.0.kind
    }

    /// The index of the failing batch in the input (legacy messages count one each).
    pub fn batch(&self) -> Option<usize> {
        self.0.batch
    }

    /// The index of the failing record in its batch.
    pub fn record(&self) -> Option<usize> {
        self.0.record
    }

    /// The byte offset of the failure (see [`in_decompressed`](Self::in_decompressed)).
    pub fn offset(&self) -> Option<usize> {
        self.0.offset
    }

    /// True when [`offset`](Self::offset) counts in a decompressed payload, not in the input.
    pub fn in_decompressed(&self) -> bool {
        self.0.in_decompressed
    }

    #[cold]
    pub(crate) fn at(mut self, offset: usize) -> Self {
        self.0.offset.get_or_insert(offset);
        self
    }

    #[cold]
    pub(crate) fn in_record(mut self, index: usize) -> Self {
        self.0.record.get_or_insert(index);
        self
    }

    #[cold]
    pub(crate) fn in_batch(mut self, index: usize) -> Self {
        self.0.batch.get_or_insert(index);
        self
    }

    /// The same error, located where it was, of another kind.
    #[cold]
    pub(crate) fn with_kind(mut self, kind: RecordsErrorKind) -> Self {
        self.0.kind = kind;
        self
    }

    /// Marks the offset as one in a decompressed payload when `decompressed` is true.
    #[cold]
    pub(crate) fn in_payload(mut self, decompressed: bool) -> Self {
        if decompressed && self.0.offset.is_some() {
            self.0.in_decompressed = true;
        }
        self
    }
}

impl From<DecodeErrorKind> for RecordsErrorKind {
    fn from(kind: DecodeErrorKind) -> Self {
        RecordsErrorKind::Decode(kind)
    }
}

impl From<DecodeErrorKind> for RecordsError {
    fn from(kind: DecodeErrorKind) -> Self {
        RecordsError::new(kind.into())
    }
}

impl From<RecordsErrorKind> for RecordsError {
    fn from(kind: RecordsErrorKind) -> Self {
        RecordsError::new(kind)
    }
}

impl fmt::Display for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.0;
        if let Some(batch) = inner.batch {
            write!(f, "batch {batch}: ")?;
        }
        if let Some(record) = inner.record {
            write!(f, "record {record}: ")?;
        }
        write!(f, "{}", inner.kind)?;
        if let Some(offset) = inner.offset {
            let place = if inner.in_decompressed {
                " of the decompressed payload"
            } else {
                ""
            };
            write!(f, " at byte {offset}{place}")?;
        }
        if let RecordsErrorKind::Decode(kind) = &inner.kind {
            kind.fmt_detail(f)?;
        }
        Ok(())
    }
}

impl fmt::Debug for RecordsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordsError")
            .field("kind", &self.0.kind)
            .field("batch", &self.0.batch)
            .field("record", &self.0.record)
            .field("offset", &self.0.offset)
            .field("in_decompressed", &self.0.in_decompressed)
            .finish()
    }
}

impl core::error::Error for RecordsError {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;

    #[test]
    fn a_wire_fault_reads_with_its_place_and_detail() {
        let eof = DecodeErrorKind::UnexpectedEof {
            needed: 3,
            available: 2,
        };
        let err = RecordsError::from(eof.clone())
            .at(70)
            .in_payload(true)
            .in_record(2)
            .in_batch(1);
        assert_eq!(err.kind(), &RecordsErrorKind::Decode(eof));
        assert_eq!(
            err.to_string(),
            "batch 1: record 2: unexpected end of input at byte 70 of the decompressed payload \
             (needed 3, 2 left)"
        );
        let err = RecordsError::from(DecodeErrorKind::InvalidUtf8).at(9);
        assert_eq!(err.to_string(), "header key is not valid UTF-8 at byte 9");
    }
}
