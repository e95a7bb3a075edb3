//! A request and its response as one JSON line: the form `pcap` and `tap` both print.

use crate::stream::request_json;
use bytes::Bytes;
use kafka_wire::frame::decode_response_lenient;
use kafka_wire::json::{at_version, JsonBody};
use kafka_wire::messages::api::ResponseBody;
use kafka_wire::ApiSet;
use serde_json::{json, Value};

/// A request frame (without its size) received at `time_us`: header and body, and the count of
/// bytes after the body when there are some; `{"error": ...}` when it cannot be read.
pub fn request_part(frame: Bytes, time_us: u64) -> Value {
    match request_json(frame) {
        Ok(value) => {
            let mut request =
                json!({ "timeUs": time_us, "header": value["header"], "body": value["body"] });
            if let Some(trailing) = value.get("trailingBytes") {
                request["trailingBytes"] = trailing.clone();
            }
            request
        }
        Err(e) => json!({ "timeUs": time_us, "error": e.to_string() }),
    }
}

/// A response frame (without its size) received at `time_us`, read as Kafka's clients read an
/// answer to a request of API `key` at `version`: bytes after the body are counted in
/// `trailingBytes` (only when there are some), and an ApiVersions answer at v0 to a newer
/// request is read at v0 (`version` says so).
pub fn response_part(frame: Bytes, key: i16, version: i16, time_us: u64) -> Value {
    match decode_response_lenient::<ResponseBody>(frame, key, version) {
        Ok(response) => {
            let read_at = response.version;
            let body = &response.body;
            let mut value = json!({
                "timeUs": time_us,
                "header": at_version(&response.header, body.api().header_version(read_at)),
                "body": body.body_at_version(read_at),
            });
            if read_at != version {
                value["version"] = json!(read_at);
            }
            if response.trailing_bytes > 0 {
                value["trailingBytes"] = json!(response.trailing_bytes);
            }
            value
        }
        Err(e) => json!({ "timeUs": time_us, "error": e.to_string() }),
    }
}

/// Whether a part says it could not be read.
pub fn failed(part: &Value) -> bool {
    part.get("error").is_some()
}

/// The line of one exchange on `connection`: `response` is `None` when no response came.
pub fn line(
    connection: &str,
    key: i16,
    version: i16,
    correlation: i32,
    request: Value,
    response: Option<Value>,
) -> Value {
    let api = kafka_wire::messages::api::RequestBody::find(key).map(|a| a.name());
    json!({
        "connection": connection,
        "api": api,
        "apiKey": key,
        "version": version,
        "correlationId": correlation,
        "request": request,
        "response": response,
    })
}

/// A line that reports what went wrong on `connection` rather than an exchange.
pub fn error_line(connection: &str, time_us: u64, what: &str) -> Value {
    json!({ "connection": connection, "timeUs": time_us, "error": what })
}
