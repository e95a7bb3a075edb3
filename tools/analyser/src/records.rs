//! Record batches as `kafka-dump-log` shows them: one JSON line per batch, with where it lies
//! in the input, its records, and for a control batch its marker.

use crate::{emit, Failure, Result};
use bytes::Bytes;
use kafka_wire::records::{BatchView, ControlRecordType, RecordsReader};
use serde_json::{json, Map, Value};
use std::io::Write;

/// The batch as one JSON object: kafka-wire's JSON form of the batch, and what the input
/// adds to it.
pub fn batch_json(view: &BatchView) -> Result<Value> {
    let batch = view.to_record_batch()?;
    let mut object = Map::new();
    object.insert("position".into(), json!(view.position()));
    object.insert("size".into(), json!(view.as_bytes().len()));
    object.insert("count".into(), json!(view.declared_count()));
    let h = &view.header;
    object.insert("lastOffset".into(), json!(h.last_offset()));
    if h.magic == 2 {
        // The checksum sits after base offset, length, leader epoch and magic.
        if let Some(crc) = view.as_bytes().get(17..21) {
            let crc = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
            object.insert("crc".into(), json!(crc));
        }
        if h.base_sequence >= 0 {
            object.insert(
                "lastSequence".into(),
                json!(i64::from(h.base_sequence) + i64::from(h.last_offset_delta)),
            );
        }
    }
    if let Some(control) = view.control_record() {
        let control = control?;
        let kind = match control.kind {
            ControlRecordType::Commit => "COMMIT".to_owned(),
            ControlRecordType::Abort => "ABORT".to_owned(),
            other => format!("type {}", other.id()),
        };
        let mut marker = Map::new();
        marker.insert("type".into(), json!(kind));
        if let Some(m) = control.marker {
            marker.insert("coordinatorEpoch".into(), json!(m.coordinator_epoch));
        }
        object.insert("control".into(), Value::Object(marker));
    }
    if let Value::Object(fields) = serde_json::to_value(&batch)? {
        object.extend(fields);
    }
    Ok(Value::Object(object))
}

/// Every batch of `input`, back to back; an incomplete last batch is an error.
pub fn batches(input: Bytes, out: &mut impl Write) -> Result<()> {
    let total = input.len();
    let mut progress = crate::progress::Progress::new("records", total);
    let mut reader = RecordsReader::new(input);
    for view in reader.by_ref() {
        let view = view?;
        emit(out, &batch_json(&view)?)?;
        progress.update(view.position() + view.as_bytes().len());
    }
    if let Some(tail) = reader.truncated_tail() {
        let needed = tail.needed.map_or(String::new(), |n| format!(" of {n}"));
        return Err(Failure(format!(
            "incomplete batch at byte {}: {} bytes{needed}",
            tail.offset, tail.available
        )));
    }
    Ok(())
}
