//! Batches, records and headers as views of the bytes they were read from.

use crate::batch::{BatchHeader, DecodeLimits, TimestampType};
use crate::compression::decompress;
use crate::error::RecordsError;
use crate::legacy;
use crate::owned::{Budget, Record, RecordBatch};
use crate::v2;
use crate::wire::Wire;
use bytes::Bytes;
use core::fmt;
use kafka_wire_core::Compression;
use kafka_wire_core::ErrorKind;
use std::sync::OnceLock;

/// How a batch's records are laid out.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Layout {
    /// Magic 2: `count` varint-framed records, as the header declares.
    V2 {
        count: i32,
        /// Where the count sits in the input.
        count_at: usize,
    },
    /// Magic 0 or 1: `count` messages back to back, checked when the batch was read.
    Legacy {
        count: usize,
        /// What the messages' offsets are relative to: the wrapper's offset less the last inner
        /// offset for magic 1 wrappers, zero otherwise.
        base: i64,
    },
}

/// One batch of a records field: its header fields, checked, and its records, read on demand.
///
/// [`RecordsReader`](crate::reader::RecordsReader) yields these. Reading a batch checks its size, magic
/// and checksum and reads its header; its records are read when [`records`](Self::records) is
/// called, and a compressed payload is decompressed then, once, into one buffer the records are
/// slices of.
///
/// ```
/// use kafka_wire::records::{Compression, Record, RecordBatchBuilder, RecordsReader};
///
/// let bytes = RecordBatchBuilder::new()
///     .base_offset(40)
///     .record(Record::new(None, Some("a".into())))
///     .record(Record::new(None, Some("bb".into())))
///     .encode()?
///     .into_bytes();
/// let batch = RecordsReader::new(bytes.clone()).next().unwrap()?;
/// assert_eq!(batch.header.compression, Compression::None);
/// assert_eq!(batch.header.last_offset(), Some(41));
/// assert_eq!(batch.as_bytes(), &bytes); // the batch as it came, to forward or append
/// let offsets: Vec<i64> = batch.records()?.map(|r| r.map(|r| r.offset())).collect::<Result<_, _>>()?;
/// assert_eq!(offsets, [40, 41]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct BatchView {
    /// The batch's fields.
    pub header: BatchHeader,
    bytes: Bytes,
    at: usize,
    index: usize,
    layout: Layout,
    /// Where the records section sits in the input; for a compressed batch, its compressed
    /// payload.
    payload_at: usize,
    limits: DecodeLimits,
    /// The records section in the clear: a slice of `bytes`, or the decompressed payload once
    /// asked for.
    plain: OnceLock<Bytes>,
}

impl BatchView {
    /// A view whose records section is at hand (uncompressed, or decompressed already).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        header: BatchHeader,
        bytes: Bytes,
        at: usize,
        index: usize,
        layout: Layout,
        payload_at: usize,
        limits: DecodeLimits,
        plain: Option<Bytes>,
    ) -> Self {
        let cell = OnceLock::new();
        if let Some(plain) = plain {
            let _ = cell.set(plain);
        }
        BatchView {
            header,
            bytes,
            at,
            index,
            layout,
            payload_at,
            limits,
            plain: cell,
        }
    }

    /// The batch's bytes exactly as they were read, from its base offset to its last byte:
    /// what a broker appends or a proxy forwards without encoding it again.
    pub fn as_bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// Where the batch starts in the input.
    pub fn position(&self) -> usize {
        self.at
    }

    /// The batch's index in the input (legacy messages count one each).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The record count the batch declares: for magic 2 the header's count field, not yet
    /// checked against the records when the batch is compressed; for magic 0 and 1 the number
    /// of messages, counted when the batch was read.
    pub fn declared_count(&self) -> i64 {
        match self.layout {
            Layout::V2 { count, .. } => count.into(),
            Layout::Legacy { count, .. } => i64::try_from(count).unwrap_or(i64::MAX),
        }
    }

    fn compressed(&self) -> bool {
        self.header.compression != Compression::None
    }

    /// The records section in the clear, decompressing it the first time.
    fn plain(&self) -> Result<&Bytes, RecordsError> {
        if let Some(plain) = self.plain.get() {
            return Ok(plain);
        }
        let payload = self.bytes.get(v2::HEADER_LEN..).unwrap_or_default();
        let out = decompress(
            self.header.compression,
            self.header.magic,
            payload,
            &self.limits,
        )
        .map_err(|e| e.at(self.payload_at).in_batch(self.index))?;
        Ok(self.plain.get_or_init(|| Bytes::from(out)))
    }

    /// The batch's records, in order.
    ///
    /// For a compressed batch this decompresses the payload the first time it is called
    /// (bounded by [`DecodeLimits::max_decompressed`]); the records then share that one
    /// buffer. A problem met while decompressing is this call's error; one met in a record is
    /// the iterator's item for that record, after which the iterator ends. A record count that
    /// disagrees with the records present is an error too.
    pub fn records(&self) -> Result<RecordIter<'_>, RecordsError> {
        let plain = self.plain()?;
        let decompressed = self.compressed();
        let (left, base) = match self.layout {
            Layout::V2 { count, count_at } => {
                let count = v2::check_count(count, plain.len(), count_at)
                    .map_err(|e| e.in_batch(self.index))?;
                (count, None)
            }
            Layout::Legacy { count, base } => (count, Some(base)),
        };
        let origin = if decompressed { 0 } else { self.payload_at };
        Ok(RecordIter {
            wire: Wire::new(plain, origin),
            owner: plain,
            header: &self.header,
            legacy_base: base,
            left,
            place: Place {
                batch: self.index,
                record: 0,
                decompressed,
            },
            done: false,
        })
    }

    /// The batch as an owned [`RecordBatch`], every record and header copied out of the view
    /// (keys, values and header values still share the input or the decompressed buffer).
    /// What it builds from a decompressed payload counts against
    /// [`DecodeLimits::max_decompressed`], with the payload itself.
    pub fn to_record_batch(&self) -> Result<RecordBatch, RecordsError> {
        self.to_record_batch_within(&mut Budget::new(self.limits.max_decompressed))
    }

    pub(crate) fn to_record_batch_within(
        &self,
        budget: &mut Budget,
    ) -> Result<RecordBatch, RecordsError> {
        let records = self.records()?;
        let counted = self.compressed();
        if counted {
            budget
                .charge(records.owner.len())
                .map_err(|e| e.in_batch(self.index))?;
        }
        let mut out = Vec::new();
        let capacity = if counted {
            budget
                .charge_items::<Record>(records.left)
                .map_err(|e| e.in_batch(self.index))?
        } else {
            records.left
        };
        out.reserve_exact(capacity);
        for record in records {
            let record = record?;
            out.push(record.to_record_within(counted.then_some(&mut *budget))?);
        }
        Ok(RecordBatch {
            header: self.header,
            records: out,
        })
    }
}

impl fmt::Debug for BatchView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchView")
            .field("header", &self.header)
            .field("position", &self.at)
            .field("len", &self.bytes.len())
            .field("declared_count", &self.declared_count())
            .finish_non_exhaustive()
    }
}

/// Where the records being read sit, for the errors met there.
#[derive(Clone, Copy, Debug)]
struct Place {
    batch: usize,
    record: usize,
    decompressed: bool,
}

impl Place {
    #[cold]
    fn locate(self, e: RecordsError) -> RecordsError {
        e.in_record(self.record)
            .in_batch(self.batch)
            .in_payload(self.decompressed)
    }
}

/// The records of a [`BatchView`], in order; see [`BatchView::records`].
#[derive(Clone)]
pub struct RecordIter<'a> {
    wire: Wire<'a>,
    owner: &'a Bytes,
    header: &'a BatchHeader,
    /// `Some(base)` for magic 0 and 1, whose records are messages.
    legacy_base: Option<i64>,
    left: usize,
    place: Place,
    done: bool,
}

impl<'a> RecordIter<'a> {
    fn read(&mut self) -> Result<RecordView<'a>, RecordsError> {
        let Some(base) = self.legacy_base else {
            return self.read_v2();
        };
        let at = self.wire.at();
        let m = legacy::read_message(&mut self.wire)?;
        // Only a wrapper may be compressed, and wrappers do not nest.
        if m.codec() != 0 {
            return Err(RecordsError::new(ErrorKind::InvalidWrapper).at(at));
        }
        let offset = base
            .checked_add(m.offset)
            .ok_or_else(|| RecordsError::new(ErrorKind::OffsetOverflow).at(at))?;
        // Under log append time every record takes the wrapper's timestamp.
        let timestamp = match self.header.timestamp_type {
            TimestampType::LogAppendTime => self.header.max_timestamp,
            TimestampType::CreateTime => m.timestamp,
        };
        Ok(RecordView {
            offset,
            timestamp,
            key: m.key,
            value: m.value,
            headers: Wire::new(&[], self.wire.at()),
            header_count: 0,
            owner: self.owner,
            place: self.place,
        })
    }

    #[inline]
    fn read_v2(&mut self) -> Result<RecordView<'a>, RecordsError> {
        let raw = v2::read_record(&mut self.wire)?;
        let offset = self
            .header
            .base_offset
            .checked_add(raw.offset_delta.into())
            .ok_or_else(|| RecordsError::new(ErrorKind::OffsetOverflow).at(raw.offset_delta_at))?;
        let timestamp = self
            .header
            .record_timestamp(raw.timestamp_delta)
            .ok_or_else(|| RecordsError::new(ErrorKind::TimestampOverflow).at(raw.body_at))?;
        Ok(RecordView {
            offset,
            timestamp,
            key: raw.key,
            value: raw.value,
            headers: raw.headers,
            header_count: raw.header_count,
            owner: self.owner,
            place: self.place,
        })
    }

    /// The records not yet read, by the batch's count.
    pub fn remaining(&self) -> usize {
        self.left
    }
}

impl<'a> Iterator for RecordIter<'a> {
    type Item = Result<RecordView<'a>, RecordsError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.left == 0 {
            self.done = true;
            if self.wire.remaining() != 0 {
                let e = self.wire.error(ErrorKind::TrailingBytes {
                    count: self.wire.remaining(),
                });
                return Some(Err(e
                    .in_batch(self.place.batch)
                    .in_payload(self.place.decompressed)));
            }
            return None;
        }
        match self.read() {
            Ok(record) => {
                self.left = self.left.saturating_sub(1);
                self.place.record = self.place.record.saturating_add(1);
                Some(Ok(record))
            }
            Err(e) => {
                self.done = true;
                Some(Err(self.place.locate(e)))
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        if self.done {
            (0, Some(0))
        } else {
            // One more item when the records end early or leave bytes behind: the error.
            (0, Some(self.left.saturating_add(1)))
        }
    }
}

impl core::iter::FusedIterator for RecordIter<'_> {}

impl fmt::Debug for RecordIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordIter")
            .field("remaining", &self.left)
            .finish_non_exhaustive()
    }
}

/// One record, borrowed from its batch: offset and timestamp made absolute, key, value and
/// headers as slices of the input (or of the decompressed payload).
///
/// ```
/// use kafka_wire::records::{Record, RecordBatchBuilder, RecordsReader};
///
/// let bytes = RecordBatchBuilder::new()
///     .record(Record::new(Some("k".into()), None).with_timestamp(7).with_header("trace", Some("t1".into())))
///     .encode()?
///     .into_bytes();
/// let batch = RecordsReader::new(bytes).next().unwrap()?;
/// let record = batch.records()?.next().unwrap()?;
/// assert_eq!((record.offset(), record.timestamp()), (0, 7));
/// assert_eq!((record.key(), record.value()), (Some(&b"k"[..]), None));
/// let header = record.headers().next().unwrap()?;
/// assert_eq!((header.key(), header.value()), ("trace", Some(&b"t1"[..])));
/// let key: Option<bytes::Bytes> = record.key_bytes(); // shares the input's buffer
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy)]
pub struct RecordView<'a> {
    offset: i64,
    timestamp: i64,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    headers: Wire<'a>,
    header_count: usize,
    owner: &'a Bytes,
    place: Place,
}

impl<'a> RecordView<'a> {
    /// The absolute offset (base offset plus the record's delta).
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// Milliseconds since the epoch; -1 where there is none (magic 0). Under log append time it
    /// is the batch's max timestamp, as Kafka reads it.
    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }

    /// The key, `None` for null.
    pub fn key(&self) -> Option<&'a [u8]> {
        self.key
    }

    /// The value, `None` for null.
    pub fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    /// The key as `Bytes` sharing the buffer it was read from (no copy).
    pub fn key_bytes(self) -> Option<Bytes> {
        self.key.map(|k| self.owner.slice_ref(k))
    }

    /// The value as `Bytes` sharing the buffer it was read from (no copy).
    pub fn value_bytes(self) -> Option<Bytes> {
        self.value.map(|v| self.owner.slice_ref(v))
    }

    /// The number of headers (always 0 for magic 0 and 1).
    pub fn header_count(&self) -> usize {
        self.header_count
    }

    /// The headers, in order. Their lengths were checked when the record was read; a key that
    /// is not UTF-8 is the item's error.
    pub fn headers(&self) -> HeaderIter<'a> {
        HeaderIter {
            wire: self.headers,
            left: self.header_count,
            owner: self.owner,
            place: self.place,
        }
    }

    /// The header count and the header section as written, for copying it into another batch.
    pub(crate) fn raw_headers(&self) -> (usize, &'a [u8]) {
        (self.header_count, self.headers.rest())
    }

    /// The record as an owned [`Record`] (key, values and header values share the buffer).
    pub fn to_record(self) -> Result<Record, RecordsError> {
        self.to_record_within(None)
    }

    pub(crate) fn to_record_within(
        self,
        budget: Option<&mut Budget>,
    ) -> Result<Record, RecordsError> {
        let capacity = match budget {
            Some(budget) => budget
                .charge_items::<crate::owned::Header>(self.header_count)
                .map_err(|e| self.place.locate(e))?,
            None => self.header_count,
        };
        let mut headers = Vec::with_capacity(capacity);
        for header in self.headers() {
            headers.push(header?.to_header());
        }
        Ok(Record {
            offset: self.offset,
            timestamp: self.timestamp,
            key: self.key_bytes(),
            value: self.value_bytes(),
            headers,
        })
    }
}

impl fmt::Debug for RecordView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordView")
            .field("offset", &self.offset)
            .field("timestamp", &self.timestamp)
            .field("key", &self.key.map(Bytes::copy_from_slice))
            .field("value", &self.value.map(Bytes::copy_from_slice))
            .field("header_count", &self.header_count)
            .finish()
    }
}

/// The headers of a [`RecordView`].
#[derive(Clone)]
pub struct HeaderIter<'a> {
    wire: Wire<'a>,
    left: usize,
    owner: &'a Bytes,
    place: Place,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Result<HeaderView<'a>, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        self.left = self.left.saturating_sub(1);
        let read = v2::read_header_field(&mut self.wire).and_then(|raw| {
            let key = core::str::from_utf8(raw.key)
                .map_err(|_| RecordsError::from(ErrorKind::InvalidUtf8).at(raw.key_at))?;
            Ok(HeaderView {
                key,
                value: raw.value,
                owner: self.owner,
            })
        });
        if read.is_err() {
            self.left = 0;
        }
        Some(read.map_err(|e| self.place.locate(e)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.left))
    }
}

impl core::iter::FusedIterator for HeaderIter<'_> {}

impl fmt::Debug for HeaderIter<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeaderIter")
            .field("remaining", &self.left)
            .finish_non_exhaustive()
    }
}

/// One record header, borrowed: a UTF-8 key and nullable bytes.
#[derive(Clone, Copy)]
pub struct HeaderView<'a> {
    key: &'a str,
    value: Option<&'a [u8]>,
    owner: &'a Bytes,
}

impl<'a> HeaderView<'a> {
    /// The key.
    pub fn key(&self) -> &'a str {
        self.key
    }

    /// The value, `None` for null.
    pub fn value(&self) -> Option<&'a [u8]> {
        self.value
    }

    /// The value as `Bytes` sharing the buffer it was read from (no copy).
    pub fn value_bytes(&self) -> Option<Bytes> {
        self.value.map(|v| self.owner.slice_ref(v))
    }

    /// The header as an owned [`Header`](crate::owned::Header), sharing the buffer.
    pub fn to_header(self) -> crate::owned::Header {
        crate::owned::Header {
            // A `str` already: the check cannot fail.
            key: kafka_wire_core::KafkaString::from_utf8(self.owner.slice_ref(self.key.as_bytes()))
                .unwrap_or_default(),
            value: self.value_bytes(),
        }
    }
}

impl fmt::Debug for HeaderView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeaderView")
            .field("key", &self.key)
            .field("value", &self.value.map(Bytes::copy_from_slice))
            .finish()
    }
}
