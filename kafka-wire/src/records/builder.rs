//! Building a batch from records: offsets, deltas and timestamps filled in as producers do.

use super::{Compression, Record, RecordBatch, RecordsError, TimestampType};
use crate::Records;

/// Builds one batch for a Produce request.
///
/// Offsets are assigned from the base offset (0 unless set; the broker assigns the real ones),
/// the base timestamp is the first record's, the max timestamp the largest. The defaults are
/// those of a non-idempotent producer: magic 2, no compression, producer id, epoch and base
/// sequence -1, partition leader epoch -1.
///
/// ```
/// use kafka_wire::records::{Compression, Record, RecordBatchBuilder};
///
/// let batch = RecordBatchBuilder::new()
///     .producer(4000, 0, 0)
///     .transactional(true)
///     .record(Record::new(None, Some("v".into())).with_timestamp(10).with_header("trace", None))
///     .record(Record::new(None, Some("w".into())).with_timestamp(12))
///     .build();
/// assert_eq!((batch.last_offset_delta, batch.max_timestamp), (1, 12));
/// assert!(batch.is_transactional);
/// ```
#[derive(Clone, Debug, Default)]
pub struct RecordBatchBuilder {
    batch: RecordBatch,
}

impl RecordBatchBuilder {
    /// A magic 2 builder with the defaults above.
    pub fn new() -> Self {
        Self::default()
    }

    /// The format: 2 (the default), or 1 or 0 for brokers that only speak message sets.
    pub fn magic(mut self, magic: i8) -> Self {
        self.batch.magic = magic;
        self
    }

    /// The offset of the first record.
    pub fn base_offset(mut self, offset: i64) -> Self {
        self.batch.base_offset = offset;
        self
    }

    /// The partition leader epoch field.
    pub fn partition_leader_epoch(mut self, epoch: i32) -> Self {
        self.batch.partition_leader_epoch = epoch;
        self
    }

    /// The codec for the payload.
    pub fn compression(mut self, compression: Compression) -> Self {
        self.batch.compression = compression;
        self
    }

    /// The timestamp type.
    pub fn timestamp_type(mut self, timestamp_type: TimestampType) -> Self {
        self.batch.timestamp_type = timestamp_type;
        self
    }

    /// An idempotent producer's id, epoch and the first record's sequence number.
    pub fn producer(mut self, producer_id: i64, producer_epoch: i16, base_sequence: i32) -> Self {
        self.batch.producer_id = producer_id;
        self.batch.producer_epoch = producer_epoch;
        self.batch.base_sequence = base_sequence;
        self
    }

    /// Marks the batch as part of a transaction.
    pub fn transactional(mut self, transactional: bool) -> Self {
        self.batch.is_transactional = transactional;
        self
    }

    /// Marks the batch as a control batch (see also [`EndTxnMarker::batch`](super::EndTxnMarker::batch)).
    pub fn control(mut self, control: bool) -> Self {
        self.batch.is_control = control;
        self
    }

    /// Appends a record; its offset is assigned.
    pub fn record(mut self, record: Record) -> Self {
        self.batch.records.push(record);
        self
    }

    /// Appends records; their offsets are assigned.
    pub fn records(mut self, records: impl IntoIterator<Item = Record>) -> Self {
        self.batch.records.extend(records);
        self
    }

    /// The batch, with offsets, deltas and timestamps filled in.
    pub fn build(self) -> RecordBatch {
        let mut batch = self.batch;
        let base = batch.base_offset;
        let mut offset = base;
        for record in &mut batch.records {
            record.offset = offset;
            offset = offset.saturating_add(1);
        }
        let count = i64::try_from(batch.records.len()).unwrap_or(i64::MAX);
        batch.last_offset_delta = i32::try_from(count.saturating_sub(1).max(0)).unwrap_or(i32::MAX);
        let max = batch
            .records
            .iter()
            .map(|r| r.timestamp)
            .max()
            .unwrap_or(-1);
        batch.max_timestamp = max;
        batch.base_timestamp = match batch.magic {
            // Legacy wrappers carry one timestamp, the largest.
            0 | 1 => max,
            _ => batch.records.first().map_or(-1, |r| r.timestamp),
        };
        if batch.magic == 0 {
            batch.max_timestamp = -1;
            batch.base_timestamp = -1;
            for record in &mut batch.records {
                record.timestamp = -1;
            }
        }
        if batch.magic < 2 {
            batch.partition_leader_epoch = -1;
        }
        batch
    }

    /// Builds and encodes the batch.
    pub fn encode(self) -> Result<Records, RecordsError> {
        self.build().encode()
    }
}
