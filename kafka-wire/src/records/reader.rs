//! Walking the batches of a records field, with the magic read per batch.

use super::{legacy, v2, DecodeLimits, RecordBatch, RecordsError, RecordsErrorKind};
use bytes::Bytes;

/// Offset and batch-size fields, common to every magic.
const LOG_OVERHEAD: usize = 12;
/// Where the magic byte sits in every format.
const MAGIC_AT: usize = 16;
/// The smallest size of a legacy message (magic 0), the smallest of any format.
const MIN_SIZE: usize = 14;

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

/// An iterator over the batches of a records field.
///
/// Batches of different magics may follow each other. Keys, values and header values of
/// uncompressed batches share the input's buffer. After an error the iterator ends; an
/// incomplete last batch ends it too, and is reported by [`truncated_tail`](Self::truncated_tail).
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
/// # Ok::<(), kafka_wire::records::RecordsError>(())
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

    fn read(&mut self) -> Option<Result<RecordBatch, RecordsError>> {
        let at = self.pos;
        let rest = self.input.get(at..)?;
        if rest.is_empty() {
            return None;
        }
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
            return Some(Err(RecordsError::new(RecordsErrorKind::BatchTooSmall {
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
            2 => v2::decode(batch, at, &self.limits),
            0 | 1 => legacy::decode(batch, at, &self.limits),
            magic => Err(
                RecordsError::new(RecordsErrorKind::UnsupportedMagic { magic })
                    .at(at.saturating_add(MAGIC_AT)),
            ),
        })
    }
}

impl Iterator for RecordsReader {
    type Item = Result<RecordBatch, RecordsError>;

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
