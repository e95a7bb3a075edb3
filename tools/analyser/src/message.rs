//! One message: which one the command line names, and its JSON form both ways.

use crate::{Failure, Result};
use bytes::{Bytes, BytesMut};
use clap::ArgMatches;
use kafka_wire::api::ApiInfo;
use kafka_wire::json::{at_version, JsonBody};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{RequestHeader, ResponseHeader};
use kafka_wire::{ApiSet, Decode, Encode};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Request,
    Response,
    RequestHeader,
    ResponseHeader,
}

/// The message the command line names.
pub struct Target {
    pub kind: Kind,
    /// The API key, for a request or response.
    pub key: i16,
    pub version: i16,
}

impl Target {
    pub fn from_args(m: &ArgMatches) -> Result<Target> {
        let kind = if m.get_flag("request") {
            Kind::Request
        } else if m.get_flag("response") {
            Kind::Response
        } else if m.get_flag("request-header") {
            Kind::RequestHeader
        } else {
            Kind::ResponseHeader
        };
        let version = m.get_one::<i16>("version").copied().unwrap_or_default();
        let api = m.get_one::<String>("api");
        let key = match (kind, api) {
            (Kind::Request | Kind::Response, None) => {
                return Err(Failure(
                    "--api is needed for a request or a response".into(),
                ))
            }
            (_, Some(api)) => find_api(api)?.key(),
            (_, None) => 0,
        };
        Ok(Target { kind, key, version })
    }
}

/// An API by key or name (any case).
pub fn find_api(text: &str) -> Result<&'static ApiInfo> {
    let found = match text.parse::<i16>() {
        Ok(key) => RequestBody::find(key),
        Err(_) => RequestBody::APIS
            .iter()
            .find(|api| api.name().eq_ignore_ascii_case(text)),
    };
    found.ok_or_else(|| {
        Failure(format!(
            "no API `{text}`; give a name such as Fetch or a key such as 1"
        ))
    })
}

/// Every byte must be used.
fn whole(rest: &Bytes, len: usize) -> Result<()> {
    match rest.len() {
        0 => Ok(()),
        count => Err(Failure(format!(
            "{count} bytes left over at byte {}",
            len - count
        ))),
    }
}

/// The message in `bytes` as JSON.
pub fn decode(target: &Target, bytes: Bytes) -> Result<Value> {
    let len = bytes.len();
    let mut buf = bytes;
    let v = target.version;
    let value = match target.kind {
        Kind::Request => {
            let body = RequestBody::decode(target.key, &mut buf, v)?;
            whole(&buf, len)?;
            serde_json::to_value(body.body_at_version(v))?
        }
        Kind::Response => {
            let body = ResponseBody::decode(target.key, &mut buf, v)?;
            whole(&buf, len)?;
            serde_json::to_value(body.body_at_version(v))?
        }
        Kind::RequestHeader => {
            serde_json::to_value(at_version(&RequestHeader::decode_exact(buf, v)?, v))?
        }
        Kind::ResponseHeader => {
            serde_json::to_value(at_version(&ResponseHeader::decode_exact(buf, v)?, v))?
        }
    };
    Ok(value)
}

/// Reads JSON through `read`, naming the field path of an error.
fn from_json<T>(
    text: &str,
    read: impl FnOnce(
        serde_path_to_error::Deserializer<
            &mut serde_json::Deserializer<serde_json::de::StrRead<'_>>,
        >,
    ) -> std::result::Result<T, serde_json::Error>,
) -> Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let mut track = serde_path_to_error::Track::new();
    let value = read(serde_path_to_error::Deserializer::new(&mut de, &mut track)).map_err(|e| {
        let path = track.path().to_string();
        if path == "." {
            Failure(e.to_string())
        } else {
            Failure(format!("{path}: {e}"))
        }
    })?;
    de.end().map_err(|e| Failure(e.to_string()))?;
    Ok(value)
}

/// The bytes of the message `text` describes.
pub fn encode(target: &Target, text: &str) -> Result<Vec<u8>> {
    let v = target.version;
    let mut out = BytesMut::new();
    match target.kind {
        Kind::Request => from_json(text, |d| RequestBody::deserialize_body(target.key, d))?
            .encode(&mut out, v)?,
        Kind::Response => from_json(text, |d| ResponseBody::deserialize_body(target.key, d))?
            .encode(&mut out, v)?,
        Kind::RequestHeader => from_json(text, |d| {
            kafka_wire::json::JsonCodec::deserialize_json(d).map(|h: RequestHeader| h)
        })?
        .encode(&mut out, v)?,
        Kind::ResponseHeader => from_json(text, |d| {
            kafka_wire::json::JsonCodec::deserialize_json(d).map(|h: ResponseHeader| h)
        })?
        .encode(&mut out, v)?,
    }
    Ok(out.to_vec())
}
