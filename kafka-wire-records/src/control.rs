//! Control records: transaction markers (and the other control types, read as raw).
//!
//! A control record's key is `(version: i16 = 0, type: i16)`; for the transaction markers,
//! ABORT (0) and COMMIT (1), the value is Kafka's `EndTxnMarker` `(version: i16 = 0,
//! coordinator_epoch: i32)`. A marker batch holds one such record and is transactional and
//! control, with the producer's id and epoch, base sequence -1 and offset delta 0, as brokers
//! write them.

use crate::batch::BatchHeader;
use crate::error::RecordsError;
use crate::owned::{Record, RecordBatch};
use crate::view::{BatchView, RecordView};
use alloc::vec::Vec;
use bytes::Bytes;
use kafka_wire_core::ErrorKind;

/// The type of a control record.
///
/// A later release may name more of Kafka's control types (read as `Other` until then): a
/// `match` needs a `_` arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ControlRecordType {
    /// The transaction was aborted (type 0).
    Abort,
    /// The transaction was committed (type 1).
    Commit,
    /// Another control type (KRaft leader change, snapshot markers, ...), kept as its number.
    Other(i16),
}

impl ControlRecordType {
    /// The type's number in the control record key.
    pub fn id(self) -> i16 {
        match self {
            Self::Abort => 0,
            Self::Commit => 1,
            Self::Other(id) => id,
        }
    }

    /// The type numbered `id`.
    pub fn from_id(id: i16) -> Self {
        match id {
            0 => Self::Abort,
            1 => Self::Commit,
            other => Self::Other(other),
        }
    }
}

/// A transaction marker: whether it commits or aborts, and the coordinator epoch of its value.
///
/// The control record's type says commit or abort, its value holds the epoch; Kafka's schema
/// of that value alone is `messages::EndTxnMarker` (cargo feature `data-schemas`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TxnMarker {
    /// Commit or abort.
    pub commit: bool,
    /// The transaction coordinator's epoch.
    pub coordinator_epoch: i32,
}

/// A parsed control record.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ControlRecord {
    /// The key's version.
    pub version: i16,
    /// The record's type.
    pub kind: ControlRecordType,
    /// For ABORT and COMMIT, the marker; `None` for other types.
    pub marker: Option<TxnMarker>,
    /// The raw value, for control types this crate does not parse.
    pub value: Option<Bytes>,
}

impl ControlRecord {
    /// Parses the key (and, for transaction markers, the value) of a control batch's record.
    /// Bytes after the known fields are allowed, as newer versions may add fields.
    pub fn parse(record: &Record) -> Result<Self, RecordsError> {
        Self::from_parts(record.key.as_deref(), record.value.clone())
    }

    /// [`parse`](Self::parse) for a record read as a view.
    pub fn from_view(record: &RecordView<'_>) -> Result<Self, RecordsError> {
        Self::from_parts(record.key(), record.value_bytes())
    }

    fn from_parts(key: Option<&[u8]>, value: Option<Bytes>) -> Result<Self, RecordsError> {
        let invalid = || RecordsError::new(ErrorKind::InvalidControlRecord);
        let key = key.ok_or_else(invalid)?;
        let (version, rest) = key.split_first_chunk::<2>().ok_or_else(invalid)?;
        let (kind, _) = rest.split_first_chunk::<2>().ok_or_else(invalid)?;
        let kind = ControlRecordType::from_id(i16::from_be_bytes(*kind));
        let marker = match kind {
            ControlRecordType::Abort | ControlRecordType::Commit => {
                let value = value.as_deref().ok_or_else(invalid)?;
                let (_version, rest) = value.split_first_chunk::<2>().ok_or_else(invalid)?;
                let (epoch, _) = rest.split_first_chunk::<4>().ok_or_else(invalid)?;
                Some(TxnMarker {
                    commit: kind == ControlRecordType::Commit,
                    coordinator_epoch: i32::from_be_bytes(*epoch),
                })
            }
            ControlRecordType::Other(_) => None,
        };
        Ok(ControlRecord {
            version: i16::from_be_bytes(*version),
            kind,
            marker,
            value,
        })
    }
}

impl TxnMarker {
    /// The control record key and value of this marker, version 0 each.
    pub fn key_and_value(&self) -> (Bytes, Bytes) {
        let kind = if self.commit {
            ControlRecordType::Commit
        } else {
            ControlRecordType::Abort
        };
        let mut key = Vec::with_capacity(4);
        key.extend_from_slice(&0i16.to_be_bytes());
        key.extend_from_slice(&kind.id().to_be_bytes());
        let mut value = Vec::with_capacity(6);
        value.extend_from_slice(&0i16.to_be_bytes());
        value.extend_from_slice(&self.coordinator_epoch.to_be_bytes());
        (Bytes::from(key), Bytes::from(value))
    }

    /// The marker batch a partition leader appends to end a transaction: one control record at
    /// `offset` with `timestamp`, transactional and control, base sequence -1.
    ///
    /// ```
    /// use kafka_wire::records::{ControlRecordType, TxnMarker, RecordsReader};
    ///
    /// let marker = TxnMarker { commit: true, coordinator_epoch: 7 };
    /// let batch = marker.batch(100, 1_700_000_000_000, 3, 4000, 2);
    /// let bytes = batch.encode()?.into_bytes();
    /// let read = RecordsReader::new(bytes).next().unwrap()?;
    /// let control = read.control_record().unwrap()?;
    /// assert_eq!(control.kind, ControlRecordType::Commit);
    /// assert_eq!(control.marker, Some(marker));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn batch(
        &self,
        offset: i64,
        timestamp: i64,
        partition_leader_epoch: i32,
        producer_id: i64,
        producer_epoch: i16,
    ) -> RecordBatch {
        let (key, value) = self.key_and_value();
        RecordBatch {
            header: BatchHeader {
                base_offset: offset,
                partition_leader_epoch,
                is_transactional: true,
                is_control: true,
                last_offset_delta: 0,
                base_timestamp: timestamp,
                max_timestamp: timestamp,
                producer_id,
                producer_epoch,
                base_sequence: -1,
                ..BatchHeader::default()
            },
            records: vec![Record {
                offset,
                timestamp,
                key: Some(key),
                value: Some(value),
                headers: Vec::new(),
            }],
        }
    }
}

impl RecordBatch {
    /// Reads a transaction marker or other control record from a control batch; `None` when
    /// the batch is not a control batch or holds no record.
    pub fn control_record(&self) -> Option<Result<ControlRecord, RecordsError>> {
        if !self.header.is_control {
            return None;
        }
        self.records.first().map(ControlRecord::parse)
    }
}

impl BatchView {
    /// The control record of a control batch (a transaction marker, ...); `None` when the batch
    /// is not a control batch or holds no record.
    pub fn control_record(&self) -> Option<Result<ControlRecord, RecordsError>> {
        if !self.header.is_control {
            return None;
        }
        let mut records = match self.records() {
            Ok(records) => records,
            Err(e) => return Some(Err(e)),
        };
        let record = records.next()?;
        Some(record.and_then(|r| ControlRecord::from_view(&r)))
    }
}
