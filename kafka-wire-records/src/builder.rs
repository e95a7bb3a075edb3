//! Building a batch from records: offsets, deltas and timestamps filled in as producers do.

use crate::batch::{BatchHeader, TimestampType};
use crate::owned::{Record, RecordBatch};
use crate::writer::BatchWriter;
use bytes::BytesMut;
use kafka_wire_core::Compression;
use kafka_wire_core::EncodeError;
use kafka_wire_core::Records;

/// Builds one batch for a Produce request.
///
/// Offsets are assigned from the base offset (0 unless set; the broker assigns the real ones),
/// the base timestamp is the first record's, the max timestamp the largest. The defaults are
/// those of a non-idempotent producer: magic 2, no compression, producer id, epoch and base
/// sequence -1, partition leader epoch -1.
///
/// Records can be written straight into a buffer ([`writer`](Self::writer),
/// [`encode_records`](Self::encode_records)), or gathered as owned values first
/// ([`record`](Self::record), then [`encode`](Self::encode) or [`build`](Self::build)).
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
/// assert_eq!((batch.header.last_offset_delta, batch.header.max_timestamp), (1, 12));
/// assert!(batch.header.is_transactional);
/// ```
#[derive(Clone, Debug, Default)]
pub struct RecordBatchBuilder {
    header: BatchHeader,
    records: Vec<Record>,
}

impl RecordBatchBuilder {
    /// A magic 2 builder with the defaults above.
    pub fn new() -> Self {
        Self::default()
    }

    /// The format: 2 (the default), or 1 or 0 for brokers that only speak message sets.
    pub fn magic(mut self, magic: i8) -> Self {
        self.header.magic = magic;
        self
    }

    /// The offset of the first record.
    pub fn base_offset(mut self, offset: i64) -> Self {
        self.header.base_offset = offset;
        self
    }

    /// The partition leader epoch field.
    pub fn partition_leader_epoch(mut self, epoch: i32) -> Self {
        self.header.partition_leader_epoch = epoch;
        self
    }

    /// The codec for the payload.
    pub fn compression(mut self, compression: Compression) -> Self {
        self.header.compression = compression;
        self
    }

    /// The timestamp type.
    pub fn timestamp_type(mut self, timestamp_type: TimestampType) -> Self {
        self.header.timestamp_type = timestamp_type;
        self
    }

    /// An idempotent producer's id, epoch and the first record's sequence number.
    pub fn producer(mut self, producer_id: i64, producer_epoch: i16, base_sequence: i32) -> Self {
        self.header.producer_id = producer_id;
        self.header.producer_epoch = producer_epoch;
        self.header.base_sequence = base_sequence;
        self
    }

    /// Marks the batch as part of a transaction.
    pub fn transactional(mut self, transactional: bool) -> Self {
        self.header.is_transactional = transactional;
        self
    }

    /// Marks the batch as a control batch (see also [`TxnMarker::batch`](crate::control::TxnMarker::batch)).
    pub fn control(mut self, control: bool) -> Self {
        self.header.is_control = control;
        self
    }

    /// Appends a record to those [`build`](Self::build) and [`encode`](Self::encode) use; its
    /// offset is assigned.
    pub fn record(mut self, record: Record) -> Self {
        self.records.push(record);
        self
    }

    /// Appends records; their offsets are assigned.
    pub fn records(mut self, records: impl IntoIterator<Item = Record>) -> Self {
        self.records.extend(records);
        self
    }

    /// A writer for a batch with these settings at the end of `out`, to append records to one
    /// by one (the records given to [`record`](Self::record) are not part of it).
    pub fn writer<'a>(&self, out: &'a mut BytesMut) -> Result<BatchWriter<'a>, EncodeError> {
        BatchWriter::producer(out, &self.header)
    }

    /// Writes a batch of `records` (by reference; their offsets are assigned) with these
    /// settings, straight into one buffer.
    ///
    /// ```
    /// use kafka_wire::records::{Compression, Record, RecordBatchBuilder};
    ///
    /// let records: Vec<Record> = (0..3).map(|i| Record::new(None, Some(vec![i; 10].into()))).collect();
    /// let bytes = RecordBatchBuilder::new().encode_records(&records)?;
    /// assert_eq!(kafka_wire::records::RecordsReader::from(&bytes).count(), 1);
    /// # Ok::<(), kafka_wire::EncodeError>(())
    /// ```
    pub fn encode_records<'r>(
        &self,
        records: impl IntoIterator<Item = &'r Record>,
    ) -> Result<Records, EncodeError> {
        let mut out = BytesMut::new();
        let mut writer = self.writer(&mut out)?;
        for record in records {
            writer.append_record(record)?;
        }
        writer.finish()?;
        Ok(Records::new(out.freeze()))
    }

    /// The batch, with offsets, deltas and timestamps filled in.
    pub fn build(self) -> RecordBatch {
        let mut records = self.records;
        let magic = self.header.magic;
        let mut offset = self.header.base_offset;
        for record in &mut records {
            record.offset = offset;
            offset = offset.saturating_add(1);
            if magic == 0 {
                record.timestamp = -1;
            }
        }
        let first = records.first().map(|r| r.timestamp);
        let max = records.iter().map(|r| r.timestamp).max();
        RecordBatch {
            header: self.header.with_producer_fields(records.len(), first, max),
            records,
        }
    }

    /// Builds and encodes the batch, writing the gathered records straight into one buffer.
    pub fn encode(self) -> Result<Records, EncodeError> {
        self.encode_records(&self.records)
    }
}
