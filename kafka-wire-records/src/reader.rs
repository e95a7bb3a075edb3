//! Walking the batches of a records field, with the magic read per batch.

use crate::batch::{BatchHeader, DecodeLimits, LOG_OVERHEAD};
use crate::compression::decompress;
use crate::error::RecordsError;
use crate::owned::{Budget, RecordBatch};
use crate::view::{BatchView, Layout};
use crate::wire::Wire;
use crate::{legacy, v2};
use bytes::Bytes;
use kafka_wire_core::Compression;
use kafka_wire_core::ErrorKind;
use kafka_wire_core::Records;

/// Where the magic byte sits in every format.
const MAGIC_AT: usize = 16;
/// The smallest size of a legacy message (magic 0), the smallest of any format.
const MIN_SIZE: usize = legacy::MIN_SIZE_V0;

/// An incomplete batch at the end of the input, as a Fetch response may cut one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Truncated {
    /// Where it starts in the input.
    pub offset: usize,
    /// The bytes present.
    pub available: usize,
    /// The bytes the whole batch takes, when the size field was present.
    pub needed: Option<usize>,
}

/// An iterator over the batches of a records field, as [`BatchView`]s.
///
/// Batches of different magics may follow each other. Reading a batch checks its framing,
/// magic and checksum; its records are read through [`BatchView::records`]. After an error the
/// iterator ends; an incomplete last batch ends it too, and is reported by
/// [`truncated_tail`](Self::truncated_tail).
///
/// ```
/// use kafka_wire::records::{Record, RecordBatchBuilder, RecordsReader};
///
/// let mut bytes = RecordBatchBuilder::new().record(Record::new(None, Some("a".into()))).encode()?.into_bytes().to_vec();
/// let whole = bytes.len();
/// bytes.extend_from_within(..30); // the start of a second batch
/// let mut reader = RecordsReader::new(bytes.into());
/// assert!(reader.next().unwrap().is_ok());
/// assert!(reader.next().is_none());
/// let tail = reader.truncated_tail().unwrap();
/// assert_eq!((tail.offset, tail.available, tail.needed), (whole, 30, Some(whole)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct RecordsReader {
    input: Bytes,
    pos: usize,
    index: usize,
    limits: DecodeLimits,
    truncated: Option<Truncated>,
    done: bool,
}

/// The batches of a records field, read with the default [`DecodeLimits`].
///
/// ```
/// use kafka_wire::records::{Record, RecordBatchBuilder, RecordsReader};
///
/// let records = RecordBatchBuilder::new().record(Record::new(None, Some("v".into()))).encode()?;
/// assert_eq!(RecordsReader::from(&records).count(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl From<&Records> for RecordsReader {
    fn from(records: &Records) -> Self {
        RecordsReader::new(records.as_bytes().clone())
    }
}

impl RecordsReader {
    /// A reader over `input` with the default [`DecodeLimits`].
    pub fn new(input: Bytes) -> Self {
        RecordsReader {
            input,
            pos: 0,
            index: 0,
            limits: DecodeLimits::default(),
            truncated: None,
            done: false,
        }
    }

    /// Uses `limits` instead of the defaults.
    pub fn with_limits(mut self, limits: DecodeLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The incomplete batch that ended the input, once the iterator has reached it.
    pub fn truncated_tail(&self) -> Option<Truncated> {
        self.truncated
    }

    /// The offset in the input of the next batch to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// The same batches as owned [`RecordBatch`]es. What they build from decompressed payloads
    /// counts against the limit over all of them (see [`read_all`](crate::read_all)).
    pub fn into_owned(self) -> OwnedBatches {
        let budget = Budget::new(self.limits.max_decompressed);
        OwnedBatches {
            reader: self,
            budget,
            done: false,
        }
    }

    fn read(&mut self) -> Option<Result<BatchView, RecordsError>> {
        let at = self.pos;
        let rest = self.input.get(at..).filter(|r| !r.is_empty())?;
        let Some(&[s0, s1, s2, s3]) = rest.get(8..LOG_OVERHEAD) else {
            self.truncated = Some(Truncated {
                offset: at,
                available: rest.len(),
                needed: None,
            });
            return None;
        };
        let size = i32::from_be_bytes([s0, s1, s2, s3]);
        let Some(len) = usize::try_from(size)
            .ok()
            .filter(|&s| s >= MIN_SIZE)
            .and_then(|s| s.checked_add(LOG_OVERHEAD))
        else {
            return Some(Err(RecordsError::new(ErrorKind::BatchTooSmall {
                size: size.into(),
                min: MIN_SIZE,
            })
            .at(at.saturating_add(8))));
        };
        if len > rest.len() {
            self.truncated = Some(Truncated {
                offset: at,
                available: rest.len(),
                needed: Some(len),
            });
            return None;
        }
        // `len` is at most what is left after `at`: the end is inside the input.
        let end = at.saturating_add(len);
        let batch = self.input.slice(at..end);
        self.pos = end;
        let magic = batch.get(MAGIC_AT).map_or(-1, |&b| b as i8);
        Some(match magic {
            2 => self.read_v2(batch, at),
            0 | 1 => self.read_legacy(batch, at),
            magic => Err(RecordsError::new(ErrorKind::UnsupportedMagic { magic })
                .at(at.saturating_add(MAGIC_AT))),
        })
    }

    fn read_v2(&self, batch: Bytes, at: usize) -> Result<BatchView, RecordsError> {
        let v2::Head { header, count } = v2::read_header(&batch, at)?;
        let count_at = at.saturating_add(v2::COUNT_AT);
        let payload_at = at.saturating_add(v2::HEADER_LEN);
        let records = batch.slice(v2::HEADER_LEN.min(batch.len())..);
        // An uncompressed batch's count can be checked now; a compressed one's once its
        // payload is decompressed.
        let plain = if header.compression == Compression::None {
            v2::check_count(count, records.len(), count_at)?;
            Some(records)
        } else {
            None
        };
        Ok(BatchView::new(
            header,
            batch,
            at,
            self.index,
            Layout::V2 { count, count_at },
            payload_at,
            self.limits,
            plain,
        ))
    }

    /// A legacy message: a batch of one record, or a compressed wrapper whose inner messages are
    /// the records. A wrapper is decompressed now: the batch's offsets come from its inner
    /// messages.
    fn read_legacy(&self, batch: Bytes, at: usize) -> Result<BatchView, RecordsError> {
        let mut w = Wire::new(&batch, at);
        let wrapper = legacy::read_message(&mut w)?;
        let compression = legacy::compression(&wrapper, at)?;
        let timestamp_type = wrapper.timestamp_type();
        let header = |base_offset, last_offset_delta| BatchHeader {
            base_offset,
            magic: wrapper.magic,
            compression,
            timestamp_type,
            last_offset_delta,
            base_timestamp: wrapper.timestamp,
            max_timestamp: wrapper.timestamp,
            ..BatchHeader::default()
        };
        if compression == Compression::None {
            let layout = Layout::Legacy { count: 1, base: 0 };
            return Ok(BatchView::new(
                header(wrapper.offset, 0),
                batch.clone(),
                at,
                self.index,
                layout,
                at,
                self.limits,
                Some(batch),
            ));
        }
        let Some(value) = wrapper.value else {
            return Err(RecordsError::new(ErrorKind::InvalidWrapper).at(at));
        };
        // The value ends the message, which ends the batch.
        let payload_at = at.saturating_add(batch.len()).saturating_sub(value.len());
        let inner = decompress(compression, wrapper.magic, value, &self.limits)
            .map_err(|e| e.at(payload_at))?;
        let (first, last, count) = legacy::span(&inner).map_err(|e| e.in_payload(true))?;
        // Magic 1: the wrapper's offset is that of the last inner message.
        let base = if wrapper.magic == 1 {
            wrapper.offset.checked_sub(last)
        } else {
            Some(0)
        };
        let overflow = || RecordsError::new(ErrorKind::OffsetOverflow).at(at);
        let base = base.ok_or_else(overflow)?;
        let base_offset = base.checked_add(first).ok_or_else(overflow)?;
        let last_offset_delta = last
            .checked_sub(first)
            .and_then(|d| i32::try_from(d).ok())
            .ok_or_else(overflow)?;
        Ok(BatchView::new(
            header(base_offset, last_offset_delta),
            batch,
            at,
            self.index,
            Layout::Legacy { count, base },
            payload_at,
            self.limits,
            Some(Bytes::from(inner)),
        ))
    }
}

impl Iterator for RecordsReader {
    type Item = Result<BatchView, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.read();
        match &item {
            None | Some(Err(_)) => self.done = true,
            Some(Ok(_)) => {}
        }
        let index = self.index;
        self.index = self.index.saturating_add(1);
        item.map(|r| r.map_err(|e| e.in_batch(index)))
    }
}

impl core::iter::FusedIterator for RecordsReader {}

/// The batches of a [`RecordsReader`] as owned [`RecordBatch`]es; see
/// [`RecordsReader::into_owned`].
#[derive(Debug)]
pub struct OwnedBatches {
    reader: RecordsReader,
    budget: Budget,
    done: bool,
}

impl OwnedBatches {
    /// The incomplete batch that ended the input, once the iterator has reached it.
    pub fn truncated_tail(&self) -> Option<Truncated> {
        self.reader.truncated_tail()
    }
}

impl Iterator for OwnedBatches {
    type Item = Result<RecordBatch, RecordsError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        // Each payload may decompress to no more than what the owned batches may still take, so
        // that the whole read stays within the limit at any time.
        let left = self.budget.left();
        self.reader.limits.max_decompressed = left;
        let item = self
            .reader
            .next()?
            .and_then(|view| view.to_record_batch_within(&mut self.budget))
            .map_err(|e| self.budget.explain(e, left));
        self.done = item.is_err();
        Some(item)
    }
}

impl core::iter::FusedIterator for OwnedBatches {}

/// Reads every batch of `records` into owned batches, failing on the first error. A truncated
/// last batch, which a Fetch response may carry, is left out; use [`RecordsReader`] to learn
/// about it.
///
/// What the batches build from decompressed payloads counts against
/// `limits.max_decompressed` over the whole call, so that a small compressed input cannot make
/// it allocate more than the limit, whatever its record counts say
/// ([`ErrorKind::MemoryLimit`]). Uncompressed records are bounded by the input's length.
///
/// ```
/// let batches = kafka_wire::records::read_all(bytes::Bytes::new(), Default::default())?;
/// assert!(batches.is_empty());
/// # Ok::<(), kafka_wire::records::RecordsError>(())
/// ```
pub fn read_all(records: Bytes, limits: DecodeLimits) -> Result<Vec<RecordBatch>, RecordsError> {
    RecordsReader::new(records)
        .with_limits(limits)
        .into_owned()
        .collect()
}
