//! The error of reading record batches: a kind of the one vocabulary, and where it happened
//! (batch, record, byte offset).

use alloc::boxed::Box;
use core::fmt;
use kafka_wire_core::ErrorKind;

#[derive(Clone, Debug, PartialEq, Eq)]
struct Inner {
    kind: ErrorKind,
    batch: Option<usize>,
    record: Option<usize>,
    offset: Option<usize>,
    in_decompressed: bool,
}

/// A failure while reading record batches (writing one fails with kafka-wire's
/// `EncodeError`).
///
/// Besides its [kind](ErrorKind), the same vocabulary as messages', it knows the index of the batch in the input, the index
/// of the record in the batch, and the byte offset of the failure: in the input given to the
/// reader, or, when [`in_decompressed`](Self::in_decompressed) is true, in the batch's
/// decompressed payload.
///
/// ```
/// use kafka_wire::records::RecordsReader;
/// use kafka_wire::ErrorKind;
///
/// // A v2 batch header whose size field claims fewer bytes than a header needs.
/// let mut input = vec![0u8; 61];
/// input[11] = 20; // size 20
/// input[16] = 2; // magic
/// let err = RecordsReader::new(input.into()).next().unwrap().unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::BatchTooSmall { size: 20, min: 49 }));
/// assert_eq!((err.batch(), err.offset()), (Some(0), Some(8)));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct RecordsError(Box<Inner>);

impl RecordsError {
    /// An error of `kind` with no location yet.
    #[cold]
    pub fn new(kind: ErrorKind) -> Self {
        RecordsError(Box::new(Inner {
            kind,
            batch: None,
            record: None,
            offset: None,
            in_decompressed: false,
        }))
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
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
    pub(crate) fn with_kind(mut self, kind: ErrorKind) -> Self {
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

impl From<ErrorKind> for RecordsError {
    fn from(kind: ErrorKind) -> Self {
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
        match &inner.kind {
            // The one string of a record batch is a header key.
            ErrorKind::InvalidUtf8 => f.write_str("header key is not valid UTF-8")?,
            kind => write!(f, "{kind}")?,
        }
        if let Some(offset) = inner.offset {
            let place = if inner.in_decompressed {
                " of the decompressed payload"
            } else {
                ""
            };
            write!(f, " at byte {offset}{place}")?;
        }
        inner.kind.fmt_detail(f)
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
        let eof = ErrorKind::UnexpectedEof {
            needed: 3,
            available: 2,
        };
        let err = RecordsError::from(eof.clone())
            .at(70)
            .in_payload(true)
            .in_record(2)
            .in_batch(1);
        assert_eq!(err.kind(), &eof);
        assert_eq!(
            err.to_string(),
            "batch 1: record 2: unexpected end of input at byte 70 of the decompressed payload \
             (needed 3, 2 left)"
        );
        let err = RecordsError::from(ErrorKind::InvalidUtf8).at(9);
        assert_eq!(err.to_string(), "header key is not valid UTF-8 at byte 9");
    }
}
