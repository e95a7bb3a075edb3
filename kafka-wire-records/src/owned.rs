//! Owned batches, records and headers: the convenient form, for building batches by hand and
//! for readers that want values rather than views.

use crate::batch::BatchHeader;
use crate::error::RecordsError;
use bytes::Bytes;
use kafka_wire_core::ErrorKind;
use kafka_wire_core::KafkaString;

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
    /// Milliseconds since the epoch; -1 where there is none (magic 0). Under log append time it
    /// is the batch's max timestamp, as Kafka reads it.
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

/// One batch, owned: its header fields and its records.
///
/// ```
/// use kafka_wire::records::{BatchHeader, Record, RecordBatch, RecordsReader};
///
/// let batch = RecordBatch {
///     header: BatchHeader { base_offset: 5, ..BatchHeader::default() },
///     records: vec![Record { offset: 5, ..Record::new(None, Some("v".into())) }],
/// };
/// let bytes = batch.encode()?.into_bytes();
/// let read = RecordsReader::new(bytes).next().unwrap()?.to_record_batch()?;
/// assert_eq!(read, batch);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct RecordBatch {
    /// The batch's fields.
    pub header: BatchHeader,
    /// The records.
    pub records: Vec<Record>,
}

/// Memory the owned forms may still take for what they build from decompressed payloads.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: usize,
    left: usize,
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Self {
        Budget { limit, left: limit }
    }

    /// What is left.
    pub(crate) fn left(&self) -> usize {
        self.left
    }

    #[cold]
    fn exceeded(&self) -> RecordsError {
        RecordsError::new(ErrorKind::MemoryLimit { limit: self.limit })
    }

    /// A payload that went past a decompression limit of `allowed`, cut to what the budget had
    /// left, is the budget's error rather than the codec's.
    #[cold]
    pub(crate) fn explain(&self, e: RecordsError, allowed: usize) -> RecordsError {
        match e.kind() {
            ErrorKind::DecompressionLimit { .. } if allowed < self.limit => {
                e.with_kind(ErrorKind::MemoryLimit { limit: self.limit })
            }
            _ => e,
        }
    }

    /// Takes `bytes` from what is left.
    pub(crate) fn charge(&mut self, bytes: usize) -> Result<(), RecordsError> {
        self.left = self
            .left
            .checked_sub(bytes)
            .ok_or_else(|| self.exceeded())?;
        Ok(())
    }

    /// Takes room for `n` values of `T`, and gives `n` back as the capacity to reserve.
    pub(crate) fn charge_items<T>(&mut self, n: usize) -> Result<usize, RecordsError> {
        let bytes = n
            .checked_mul(core::mem::size_of::<T>())
            .ok_or_else(|| self.exceeded())?;
        self.charge(bytes)?;
        Ok(n)
    }
}
