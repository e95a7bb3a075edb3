//! The checks a produced records field passes before it is appended: one whole, readable
//! magic 2 data batch, its records numbered from its base offset, its producer fields coherent.

use bytes::Bytes;
use kafka_wire::records::{BatchHeader, BatchView, RecordsError, RecordsReader};
use kafka_wire::ErrorCode;
use kafka_wire::ErrorKind;

use super::log::{refuse, Refusal};

/// The refusal for a batch the records layer cannot read.
fn unreadable(e: RecordsError) -> Refusal {
    let code = match e.kind() {
        ErrorKind::UnsupportedCompression { .. } | ErrorKind::CodecNotEnabled { .. } => {
            ErrorCode::UNSUPPORTED_COMPRESSION_TYPE
        }
        ErrorKind::UnsupportedMagic { .. } => ErrorCode::INVALID_RECORD,
        _ => ErrorCode::CORRUPT_MESSAGE,
    };
    refuse(code, e.to_string())
}

/// Checks a produced records field: one whole, readable magic 2 data batch whose records are
/// numbered 0, 1, 2, ... from its base offset and whose producer fields make sense.
pub(super) fn validate(records: &Bytes) -> Result<BatchView, Refusal> {
    if records.is_empty() {
        return Err(refuse(ErrorCode::INVALID_RECORD, "no record batch"));
    }
    let mut reader = RecordsReader::new(records.clone());
    let batch = match reader.next() {
        Some(batch) => batch.map_err(unreadable)?,
        None => {
            return Err(refuse(
                ErrorCode::CORRUPT_MESSAGE,
                "incomplete record batch",
            ))
        }
    };
    if reader.next().is_some() || reader.truncated_tail().is_some() {
        return Err(refuse(
            ErrorCode::INVALID_RECORD,
            "a produce request carries exactly one record batch per partition",
        ));
    }
    let header = &batch.header;
    if header.magic != 2 {
        return Err(refuse(
            ErrorCode::INVALID_RECORD,
            format!("record batch magic {} (only 2 is accepted)", header.magic),
        ));
    }
    if header.is_control {
        return Err(refuse(
            ErrorCode::INVALID_RECORD,
            "producers may not write control batches",
        ));
    }
    check_numbering(&batch)?;
    check_producer_fields(header)?;
    Ok(batch)
}

/// Every record must read, numbered 0, 1, 2, ... from the base offset.
fn check_numbering(batch: &BatchView) -> Result<(), Refusal> {
    let mut count = 0i64;
    let mut numbered = true;
    for record in batch.records().map_err(unreadable)? {
        let record = record.map_err(unreadable)?;
        numbered &= record.offset().checked_sub(batch.header.base_offset) == Some(count);
        count += 1;
    }
    if count == 0 {
        return Err(refuse(ErrorCode::INVALID_RECORD, "empty record batch"));
    }
    if !numbered || i64::from(batch.header.last_offset_delta) != count - 1 {
        return Err(refuse(
            ErrorCode::INVALID_RECORD,
            "record offset deltas must count 0, 1, 2, ...",
        ));
    }
    Ok(())
}

/// A transactional batch has a producer id, and a batch with a producer id has an epoch and a
/// base sequence.
fn check_producer_fields(header: &BatchHeader) -> Result<(), Refusal> {
    if header.is_transactional && header.producer_id < 0 {
        return Err(refuse(
            ErrorCode::INVALID_RECORD,
            "a transactional batch needs a producer id",
        ));
    }
    if header.producer_id >= 0 && (header.producer_epoch < 0 || header.base_sequence < 0) {
        return Err(refuse(
            ErrorCode::INVALID_RECORD,
            "a batch with a producer id needs an epoch and a base sequence",
        ));
    }
    Ok(())
}
