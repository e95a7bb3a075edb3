//! A raw byte stream of request frames, as a client sends them.

use crate::input::read_file;
use crate::progress::Progress;
use crate::{emit, Failure, Result};
use bytes::{Bytes, BytesMut};
use kafka_wire::frame::{decode_request_lenient, split_frame};
use kafka_wire::json::{at_version, JsonBody};
use kafka_wire::messages::api::RequestBody;
use kafka_wire::ApiSet;
use serde_json::{json, Value};
use std::io::Write;
use std::process::ExitCode;

/// A request frame (without its size) as JSON: header and body, read as Kafka's broker reads
/// them (`decode_request_lenient`). Bytes of the frame the broker would not read (after the
/// body, or the body of an ApiVersions request at a version kafka-wire does not know) are
/// counted in `trailingBytes`, present only when there are some.
pub fn request_json(frame: Bytes) -> std::result::Result<Value, kafka_wire::DecodeError> {
    let request = decode_request_lenient::<RequestBody>(frame)?;
    let (header, body) = (&request.header, &request.body);
    let version = header.request_api_version;
    let api = body.api();
    let mut value = json!({
        "api": api.name(),
        "apiKey": api.key(),
        "version": version,
        "correlationId": header.correlation_id,
        "header": at_version(header, api.header_version(version)),
        // The version the body was read at: `version`, but 0 for an unknown ApiVersions version.
        "body": body.body_at_version(request.version),
    });
    if request.trailing_bytes > 0 {
        value["trailingBytes"] = json!(request.trailing_bytes);
    }
    Ok(value)
}

/// Prints every frame of `path`; a frame that cannot be read is reported and skipped.
pub fn frames(path: &str, max: usize, out: &mut impl Write) -> Result<ExitCode> {
    let bytes = read_file(path)?;
    let total = bytes.len();
    let mut progress = Progress::new(path, total);
    let mut stream = BytesMut::from(&bytes[..]);
    let mut failed = 0usize;
    loop {
        let at = total - stream.len();
        let frame = split_frame(&mut stream, max)
            .map_err(|e| Failure(format!("{path}: frame at byte {at}: {e}")))?;
        let Some(frame) = frame else { break };
        let size = frame.len();
        match request_json(frame) {
            Ok(mut value) => {
                value["offset"] = json!(at);
                value["size"] = json!(size);
                emit(out, &value)?;
            }
            Err(e) => {
                // The frame's own offsets count from after its size field.
                eprintln!(
                    "kafka-wire: {path}: frame at byte {at} (its bytes from {}): {e}",
                    at + 4
                );
                failed += 1;
            }
        }
        progress.update(total - stream.len());
    }
    if !stream.is_empty() {
        let at = total - stream.len();
        return Err(Failure(format!(
            "{path}: incomplete frame at byte {at}: {} bytes left",
            stream.len()
        )));
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
