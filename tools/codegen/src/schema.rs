//! Reading one schema file: JSON with `//` comments.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A version set, as `validVersions`, `versions`, `nullableVersions`, ... describe it.
pub type Versions = BTreeSet<i16>;

/// Parses `"3"`, `"1-4"`, `"2+"`, `"none"`; an open range stops at `open_end`.
pub fn parse_range(text: &str, open_end: i16) -> Result<Versions, String> {
    let num = |s: &str| {
        s.trim()
            .parse::<i16>()
            .map_err(|_| format!("bad version range `{text}`"))
    };
    let t = text.trim();
    if t == "none" {
        return Ok(Versions::new());
    }
    let (a, b) = if let Some(a) = t.strip_suffix('+') {
        (num(a)?, open_end)
    } else if let Some((a, b)) = t.split_once('-') {
        (num(a)?, num(b)?)
    } else {
        let v = num(t)?;
        (v, v)
    };
    Ok((a..=b).collect())
}

/// The highest version any schema could name; open ranges are cut here and re-opened on output.
pub const OPEN_END: i16 = 200;

/// One schema file.
pub struct Schema {
    pub name: String,
    pub kind: String,
    pub api_key: Option<i16>,
    pub valid: Versions,
    pub flexible: Versions,
    pub latest_unstable: bool,
    pub fields: Vec<Value>,
    pub common: BTreeMap<String, Vec<Value>>,
}

impl Schema {
    pub fn load(path: &Path) -> Result<Schema, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        // Comments are whole lines in Kafka's schema files.
        let json: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let v: Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let name = s("name").ok_or("no name")?;
        let common = v
            .get("commonStructs")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|c| {
                        let n = c.get("name")?.as_str()?.to_owned();
                        Some((n, c.get("fields")?.as_array()?.clone()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Schema {
            kind: s("type").ok_or("no type")?,
            api_key: v.get("apiKey").and_then(Value::as_i64).map(|k| k as i16),
            valid: parse_range(&s("validVersions").ok_or("no validVersions")?, OPEN_END)?,
            flexible: parse_range(
                &s("flexibleVersions").unwrap_or_else(|| "none".into()),
                OPEN_END,
            )?,
            latest_unstable: v
                .get("latestVersionUnstable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            fields: v
                .get("fields")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            common,
            name,
        })
    }
}

/// `(release, api key, version)` for each version a request schema marks
/// `latestVersionUnstable`; it is left out of the request and of its response in that release.
pub fn unstable_versions(
    by_name: &BTreeMap<String, Vec<(String, Schema)>>,
) -> BTreeSet<(String, i16, i16)> {
    let mut out = BTreeSet::new();
    for schemas in by_name.values() {
        for (release, s) in schemas {
            if let (true, Some(key), Some(last)) = (s.latest_unstable, s.api_key, s.valid.last()) {
                out.insert((release.clone(), key, *last));
            }
        }
    }
    out
}
