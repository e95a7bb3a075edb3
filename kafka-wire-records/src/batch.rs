//! What every batch has: the fields of its header, its codec and timestamp type, the bits of
//! its attributes, and the limits a reader keeps to.

use kafka_wire_core::Compression;

/// Bytes before the batch-length field of every format: the base offset and the length itself.
pub const LOG_OVERHEAD: usize = 12;

/// The bits of a batch's attributes (magic 2: an `i16`; magic 0 and 1: an `i8` with the codec
/// and, for magic 1, the timestamp type).
pub mod attributes {
    /// The compression codec: the low three bits.
    pub const COMPRESSION_MASK: i16 = 0x07;
    /// Set when timestamps are the broker's log append time (magic 1 and 2).
    pub const LOG_APPEND_TIME: i16 = 0x08;
    /// Set when the batch belongs to a transaction (magic 2).
    pub const TRANSACTIONAL: i16 = 0x10;
    /// Set when the batch holds control records (magic 2).
    pub const CONTROL: i16 = 0x20;
    /// Set when the base timestamp is the delete horizon of a compacted topic (magic 2).
    pub const DELETE_HORIZON: i16 = 0x40;
}

/// What a batch's timestamps mean: one attribute bit, so no other variant can come.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// Set by the producer.
    #[default]
    CreateTime,
    /// Set by the broker when appending; every record then carries the batch's max timestamp.
    LogAppendTime,
}

/// Bounds for reading untrusted batches.
///
/// Reading through any API of this module, an input of `n` bytes costs at most about
/// `max_decompressed + 256 × n` bytes of memory at any time, whatever counts and sizes the input
/// claims:
/// - [`RecordsReader`](crate::RecordsReader) decompresses one batch at a time, into one buffer that grows with the
///   output actually produced and never past `max_decompressed`; a codec header claiming more is
///   an error before anything is reserved for it, and a claim below the limit is trusted only as
///   far as the compressed bytes present could expand;
/// - the owned forms ([`read_all`](crate::read_all), [`RecordsReader::into_owned`](crate::RecordsReader::into_owned), [`BatchView::to_record_batch`](crate::BatchView::to_record_batch))
///   count what they build from decompressed bytes (the payloads and the records and headers
///   made from them) against `max_decompressed`, over the whole call, and stop with
///   [`ErrorKind::MemoryLimit`](kafka_wire_core::ErrorKind::MemoryLimit) before going past it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeLimits {
    /// The most bytes one compressed batch may decompress to; more is
    /// [`ErrorKind::DecompressionLimit`](kafka_wire_core::ErrorKind::DecompressionLimit), found without allocating past the limit.
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

/// The fields of a batch, other than its records.
///
/// For magic 0 and 1, `partition_leader_epoch`, `producer_id`, `producer_epoch` and
/// `base_sequence` are -1, the flags are false, `base_offset` and `last_offset_delta` come from
/// the records' offsets, and both timestamps are the (wrapper) message's timestamp (-1 for
/// magic 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BatchHeader {
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
}

impl Default for BatchHeader {
    /// A magic 2 batch of a producer without idempotence, as Kafka's Java producer writes it.
    fn default() -> Self {
        BatchHeader {
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
        }
    }
}

impl BatchHeader {
    /// The offset of the last record: base offset plus last offset delta.
    pub fn last_offset(&self) -> Option<i64> {
        self.base_offset
            .checked_add(i64::from(self.last_offset_delta))
    }

    /// The attribute bits of a magic 2 batch.
    pub fn attributes(&self) -> i16 {
        let mut bits = i16::from(self.compression.bits());
        for (set, bit) in [
            (
                self.timestamp_type == TimestampType::LogAppendTime,
                attributes::LOG_APPEND_TIME,
            ),
            (self.is_transactional, attributes::TRANSACTIONAL),
            (self.is_control, attributes::CONTROL),
            (self.has_delete_horizon, attributes::DELETE_HORIZON),
        ] {
            if set {
                bits |= bit;
            }
        }
        bits
    }

    /// The header with the fields a producer computes from its records: the last offset delta
    /// from their count, the base timestamp from the first (the largest for a legacy wrapper,
    /// which carries one), the max timestamp from the largest; none of them for magic 0, which
    /// has no timestamps.
    pub(crate) fn with_producer_fields(
        mut self,
        count: usize,
        first_timestamp: Option<i64>,
        max_timestamp: Option<i64>,
    ) -> BatchHeader {
        self.last_offset_delta = i32::try_from(count.saturating_sub(1)).unwrap_or(i32::MAX);
        self.max_timestamp = max_timestamp.unwrap_or(-1);
        self.base_timestamp = match self.magic {
            0 | 1 => self.max_timestamp,
            _ => first_timestamp.unwrap_or(-1),
        };
        if self.magic == 0 {
            self.max_timestamp = -1;
            self.base_timestamp = -1;
        }
        if self.magic < 2 {
            self.partition_leader_epoch = -1;
        }
        self
    }

    /// The timestamp of a record whose delta from the base timestamp is `delta`: the max
    /// timestamp under log append time, as Kafka reads it.
    pub(crate) fn record_timestamp(&self, delta: i64) -> Option<i64> {
        match self.timestamp_type {
            TimestampType::LogAppendTime => Some(self.max_timestamp),
            TimestampType::CreateTime => self.base_timestamp.checked_add(delta),
        }
    }
}
