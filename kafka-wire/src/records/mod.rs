//! Record batches: the contents of a records field (Produce, Fetch, ...), read and written.
//!
//! Three on-disk formats share one model. Magic 2 is the record batch of Kafka 0.11 and later;
//! magic 0 and 1 are the older message sets, where a message is either one record or, when
//! compressed, a wrapper whose value holds an inner message set. A [`RecordBatch`] stands for a
//! magic 2 batch, a lone legacy message (one record) or a compressed legacy wrapper (its inner
//! records), with the legacy batch fields at Kafka's "none" values.
//!
//! [`RecordsReader`] walks the batches of a records field without copying: keys, values and
//! headers of uncompressed batches share the input's buffer. [`RecordBatchBuilder`] writes one.
//!
//! ```
//! use kafka_wire::records::{Compression, Record, RecordBatchBuilder, RecordsReader};
//!
//! let records = RecordBatchBuilder::new()
//!     .producer(4000, 2, 17)
//!     .record(Record::new(Some("k".into()), Some("v".into())).with_timestamp(1_700_000_000_000))
//!     .record(Record::new(None, Some("w".into())).with_timestamp(1_700_000_000_005))
//!     .encode()?;
//!
//! let mut reader = RecordsReader::new(records.into_bytes());
//! let batch = reader.next().unwrap()?;
//! assert_eq!(batch.compression, Compression::None);
//! assert_eq!(batch.records[1].offset, 1);
//! assert_eq!(batch.records[1].timestamp, 1_700_000_000_005);
//! assert!(reader.next().is_none() && reader.truncated_tail().is_none());
//! # Ok::<(), kafka_wire::records::RecordsError>(())
//! ```

// Decoding reads untrusted input: no panicking index, arithmetic, unwrap or expect here.
#![deny(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used
)]

mod builder;
mod checksum;
mod compression;
mod control;
mod cursor;
mod error;
mod legacy;
mod reader;
mod v2;

pub use builder::RecordBatchBuilder;
pub use compression::{compress, decompress};
pub use control::{ControlRecord, ControlRecordType, EndTxnMarker};
pub use error::{RecordsError, RecordsErrorKind};
pub use reader::{RecordsReader, Truncated};

use crate::{KafkaString, Records};
use alloc::vec::Vec;
use bytes::Bytes;
use core::fmt;

/// A compression codec, as numbered in the batch attributes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Compression {
    /// Not compressed.
    #[default]
    None,
    /// gzip (cargo feature `gzip`).
    Gzip,
    /// Snappy (cargo feature `snappy`); written in the xerial framing Kafka's Java client uses.
    Snappy,
    /// LZ4 frames (cargo feature `lz4`).
    Lz4,
    /// Zstandard (cargo feature `zstd`); magic 2 only.
    Zstd,
}

impl Compression {
    /// The codec numbered `bits` (the low three attribute bits).
    pub fn from_bits(bits: u8) -> Option<Self> {
        Some(match bits {
            0 => Self::None,
            1 => Self::Gzip,
            2 => Self::Snappy,
            3 => Self::Lz4,
            4 => Self::Zstd,
            _ => return None,
        })
    }

    /// The codec's number in the batch attributes.
    pub fn bits(self) -> u8 {
        match self {
            Self::None => 0,
            Self::Gzip => 1,
            Self::Snappy => 2,
            Self::Lz4 => 3,
            Self::Zstd => 4,
        }
    }

    /// The cargo feature that enables the codec.
    pub fn feature(self) -> &'static str {
        match self {
            Self::None => "",
            Self::Gzip => "gzip",
            Self::Snappy => "snappy",
            Self::Lz4 => "lz4",
            Self::Zstd => "zstd",
        }
    }

    /// True when this build can read and write the codec.
    pub fn is_enabled(self) -> bool {
        match self {
            Self::None => true,
            Self::Gzip => cfg!(feature = "gzip"),
            Self::Snappy => cfg!(feature = "snappy"),
            Self::Lz4 => cfg!(feature = "lz4"),
            Self::Zstd => cfg!(feature = "zstd"),
        }
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::None => "none",
            Self::Gzip => "gzip",
            Self::Snappy => "snappy",
            Self::Lz4 => "lz4",
            Self::Zstd => "zstd",
        })
    }
}

/// What a batch's timestamps mean.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// Set by the producer.
    #[default]
    CreateTime,
    /// Set by the broker when appending; every record then carries the batch's max timestamp.
    LogAppendTime,
}

/// Bounds for reading untrusted batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeLimits {
    /// The most bytes one compressed batch may decompress to; more is
    /// [`RecordsErrorKind::DecompressionLimit`], found without allocating past the limit.
    pub max_decompressed: usize,
}

impl DecodeLimits {
    /// 64 MiB: above Kafka's default `message.max.bytes` (1 MiB) and `fetch.max.bytes` (50 MiB)
    /// by a margin that leaves room for good compression ratios.
    pub const DEFAULT: DecodeLimits = DecodeLimits {
        max_decompressed: 64 << 20,
    };
}

impl Default for DecodeLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A record header: a UTF-8 key and nullable bytes (magic 2 only).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Header {
    /// The key.
    pub key: KafkaString,
    /// The value, `None` for null.
    pub value: Option<Bytes>,
}

impl Header {
    /// A header from its key and value.
    pub fn new(key: impl Into<KafkaString>, value: Option<Bytes>) -> Self {
        Header {
            key: key.into(),
            value,
        }
    }
}

/// One record, with its absolute offset and timestamp.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Record {
    /// The absolute offset (base offset plus the record's delta).
    pub offset: i64,
    /// Milliseconds since the epoch; -1 where there is none (magic 0). Under
    /// [`TimestampType::LogAppendTime`] it is the batch's max timestamp, as Kafka reads it.
    pub timestamp: i64,
    /// The key, `None` for null.
    pub key: Option<Bytes>,
    /// The value, `None` for null.
    pub value: Option<Bytes>,
    /// Headers, in order (magic 2 only).
    pub headers: Vec<Header>,
}

impl Record {
    /// A record with `key` and `value`, offset 0, timestamp -1 and no headers.
    pub fn new(key: Option<Bytes>, value: Option<Bytes>) -> Self {
        Record {
            offset: 0,
            timestamp: -1,
            key,
            value,
            headers: Vec::new(),
        }
    }

    /// Sets the timestamp.
    pub fn with_timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = timestamp;
        self
    }

    /// Adds a header.
    pub fn with_header(mut self, key: impl Into<KafkaString>, value: Option<Bytes>) -> Self {
        self.headers.push(Header::new(key, value));
        self
    }
}

/// One batch: a magic 2 record batch, or a legacy message or compressed message set.
///
/// For magic 0 and 1, `partition_leader_epoch`, `producer_id`, `producer_epoch` and
/// `base_sequence` are -1, the flags are false, `base_offset` and `last_offset_delta` come from
/// the records' offsets, and both timestamps are the (wrapper) message's timestamp (-1 for
/// magic 0).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RecordBatch {
    /// The offset of the first record.
    pub base_offset: i64,
    /// The leader epoch the broker stamped; -1 from producers.
    pub partition_leader_epoch: i32,
    /// The format: 0, 1 or 2.
    pub magic: i8,
    /// The codec of the batch's payload.
    pub compression: Compression,
    /// What the timestamps mean.
    pub timestamp_type: TimestampType,
    /// Part of a transaction.
    pub is_transactional: bool,
    /// Holds control records (transaction markers, ...).
    pub is_control: bool,
    /// The delete horizon is set: `base_timestamp` is then that horizon (compacted topics).
    pub has_delete_horizon: bool,
    /// The offset delta of the last record (it survives compaction of that record).
    pub last_offset_delta: i32,
    /// The timestamp the records' deltas count from.
    pub base_timestamp: i64,
    /// The largest record timestamp (or the log append time).
    pub max_timestamp: i64,
    /// The idempotent producer's id, -1 for none.
    pub producer_id: i64,
    /// The producer's epoch, -1 for none.
    pub producer_epoch: i16,
    /// The first record's sequence number, -1 for none.
    pub base_sequence: i32,
    /// The records.
    pub records: Vec<Record>,
}

impl Default for RecordBatch {
    fn default() -> Self {
        RecordBatch {
            base_offset: 0,
            partition_leader_epoch: -1,
            magic: 2,
            compression: Compression::None,
            timestamp_type: TimestampType::CreateTime,
            is_transactional: false,
            is_control: false,
            has_delete_horizon: false,
            last_offset_delta: 0,
            base_timestamp: -1,
            max_timestamp: -1,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            records: Vec::new(),
        }
    }
}

impl RecordBatch {
    /// Writes the batch, exactly as its fields say (lengths and checksums computed), appending
    /// to `out`. Magic 0 and 1 write one message per record, or one compressed wrapper.
    pub fn encode_into(&self, out: &mut Vec<u8>) -> Result<(), RecordsError> {
        match self.magic {
            2 => v2::encode(self, out),
            0 | 1 => legacy::encode(self, out),
            magic => Err(RecordsErrorKind::UnsupportedMagic { magic }.into()),
        }
    }

    /// The batch's bytes, ready for a Produce request's records field.
    pub fn encode(&self) -> Result<Records, RecordsError> {
        let mut out = Vec::new();
        self.encode_into(&mut out)?;
        Ok(Records::new(Bytes::from(out)))
    }

    /// The offset of the last record: base offset plus last offset delta.
    pub fn last_offset(&self) -> Option<i64> {
        self.base_offset
            .checked_add(i64::from(self.last_offset_delta))
    }

    /// Reads a transaction marker or other control record from a control batch; `None` when
    /// the batch is not a control batch or holds no record.
    pub fn control_record(&self) -> Option<Result<ControlRecord, RecordsError>> {
        if !self.is_control {
            return None;
        }
        self.records.first().map(ControlRecord::parse)
    }

    /// The attribute bits of a magic 2 batch.
    pub(crate) fn attributes(&self) -> i16 {
        let mut bits = i16::from(self.compression.bits());
        if self.timestamp_type == TimestampType::LogAppendTime {
            bits |= 0x08;
        }
        if self.is_transactional {
            bits |= 0x10;
        }
        if self.is_control {
            bits |= 0x20;
        }
        if self.has_delete_horizon {
            bits |= 0x40;
        }
        bits
    }
}

impl Records {
    /// The batches of these bytes, read with the default [`DecodeLimits`].
    pub fn batches(&self) -> RecordsReader {
        RecordsReader::new(self.as_bytes().clone())
    }
}

/// Reads every batch of `records`, failing on the first error. A truncated last batch, which a
/// Fetch response may carry, is left out; use [`RecordsReader`] to learn about it.
///
/// ```
/// let batches = kafka_wire::records::read_all(bytes::Bytes::new(), Default::default())?;
/// assert!(batches.is_empty());
/// # Ok::<(), kafka_wire::records::RecordsError>(())
/// ```
pub fn read_all(records: Bytes, limits: DecodeLimits) -> Result<Vec<RecordBatch>, RecordsError> {
    RecordsReader::new(records).with_limits(limits).collect()
}
