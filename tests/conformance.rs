//! Every generated message declares, through the derive, exactly the facts the generator took
//! from Kafka's schemas: API key, version and flexible ranges, and for every field of every
//! struct its name and order, versions, nullable versions, tag and tagged versions, flexible
//! override, default and `ignorable`.
//!
//! The facts come from `kafka-wire/src/messages/facts.json`, which the generator writes from
//! the merged schemas (not from the attributes it renders); the declarations come from the
//! derive's reading of those attributes. A hand edit of a message, a derive that misreads
//! `"1+"`, or a generator that renders a range wrongly shows up here.
#![forbid(unsafe_code)]

use kafka_wire::{DefaultInfo, FieldInfo, VersionRange};
use kafka_wire_tests::{declared_messages, Declared};
use serde_json::Value;

const FACTS: &str = include_str!("../kafka-wire/src/messages/facts.json");

/// A range as `(first, last)`, `None` when empty.
fn span(r: VersionRange) -> Option<(i16, i16)> {
    Some((r.start()?, r.end()?))
}

/// `r` within `within`.
fn clip(r: VersionRange, within: VersionRange) -> Option<(i16, i16)> {
    let (a, b) = span(r)?;
    let (c, d) = span(within)?;
    let (lo, hi) = (a.max(c), b.min(d));
    (lo <= hi).then_some((lo, hi))
}

/// A facts range: `[first, last]` or null.
fn fact_span(v: &Value) -> Option<(i16, i16)> {
    let a = v.as_array()?;
    let n = |i: usize| {
        a.get(i)
            .and_then(Value::as_i64)
            .and_then(|x| i16::try_from(x).ok())
    };
    Some((n(0)?, n(1)?))
}

/// A default as the value it gives, so that `0`, `false`, `""` and no default compare equal.
#[derive(Debug, PartialEq)]
enum Effective {
    Zero,
    Int(i128),
    Float(u64),
    True,
    Str(String),
    Null,
}

fn declared_default(d: Option<DefaultInfo>) -> Effective {
    match d {
        None | Some(DefaultInfo::Int(0) | DefaultInfo::Bool(false) | DefaultInfo::Str("")) => {
            Effective::Zero
        }
        Some(DefaultInfo::Float(0.0)) => Effective::Zero,
        Some(DefaultInfo::Int(v)) => Effective::Int(v),
        Some(DefaultInfo::Float(f)) => Effective::Float(f.to_bits()),
        Some(DefaultInfo::Bool(true)) => Effective::True,
        Some(DefaultInfo::Str(s)) => Effective::Str(s.to_owned()),
        Some(DefaultInfo::Null) => Effective::Null,
        Some(other) => panic!("a kind of default this test does not know: {other:?}"),
    }
}

/// The schema's default string read for the field's schema type.
fn fact_default(default: &Value, ty: &str) -> Result<Effective, String> {
    let Some(d) = default.as_str() else {
        return Ok(Effective::Zero);
    };
    if d == "null" {
        return Ok(Effective::Null);
    }
    let bad = || format!("default {d:?} for {ty}");
    Ok(match ty {
        "int8" | "int16" | "int32" | "int64" | "uint16" | "uint32" => {
            let v = match d.strip_prefix("0x") {
                Some(hex) => i128::from_str_radix(hex, 16).map_err(|_| bad())?,
                None => d.parse().map_err(|_| bad())?,
            };
            if v == 0 {
                Effective::Zero
            } else {
                Effective::Int(v)
            }
        }
        "bool" => match d.to_ascii_lowercase().as_str() {
            "true" => Effective::True,
            "false" => Effective::Zero,
            _ => return Err(bad()),
        },
        "float64" => {
            let v: f64 = d.parse().map_err(|_| bad())?;
            if v == 0.0 {
                Effective::Zero
            } else {
                Effective::Float(v.to_bits())
            }
        }
        "string" if d.is_empty() => Effective::Zero,
        "string" => Effective::Str(d.to_owned()),
        _ if d.is_empty() => Effective::Zero,
        _ => return Err(bad()),
    })
}

fn check_field(
    at: &str,
    info: &FieldInfo,
    fact: &Value,
    versions: VersionRange,
    problems: &mut Vec<String>,
) {
    let mut differ = |what: &str, ours: String, theirs: String| {
        if ours != theirs {
            problems.push(format!("{at}: {what}: declared {ours}, facts {theirs}"));
        }
    };
    differ(
        "versions",
        format!("{:?}", clip(info.versions, versions)),
        format!("{:?}", fact_span(&fact["versions"])),
    );
    differ(
        "nullable",
        format!("{:?}", clip(info.nullable, versions)),
        format!("{:?}", fact_span(&fact["nullable"])),
    );
    differ(
        "tag",
        format!("{:?}", info.tag),
        format!("{:?}", fact["tag"].as_u64().map(|t| t as u32)),
    );
    // The tagged versions are those of the field's own versions.
    let within = span(versions)
        .zip(clip(info.versions, versions))
        .map_or(VersionRange::NONE, |(_, (a, b))| VersionRange::new(a, b));
    differ(
        "tagged",
        format!("{:?}", clip(info.tagged, within)),
        format!("{:?}", fact_span(&fact["tagged"])),
    );
    differ(
        "flexible",
        format!("{:?}", info.flexible.map(|f| clip(f, versions))),
        format!(
            "{:?}",
            (!fact["flexible"].is_null()).then(|| fact_span(&fact["flexible"])
                .and_then(|(a, b)| clip(VersionRange::new(a, b), versions)))
        ),
    );
    differ(
        "ignorable",
        info.ignorable.to_string(),
        fact["ignorable"].as_bool().unwrap_or(false).to_string(),
    );
    let ty = fact["type"].as_str().unwrap_or_default();
    match fact_default(&fact["default"], ty) {
        Ok(theirs) => differ(
            "default",
            format!("{:?}", declared_default(info.default)),
            format!("{theirs:?}"),
        ),
        Err(e) => differ("default", "a value".into(), e),
    }
}

fn check_message(decl: &Declared, fact: &Value, problems: &mut Vec<String>, fields: &mut usize) {
    let name = decl.name;
    if fact["api_key"].as_i64().map(|k| k as i16) != decl.api_key {
        problems.push(format!(
            "{name}: api key {:?}, facts {}",
            decl.api_key, fact["api_key"]
        ));
    }
    if span(decl.versions) != fact_span(&fact["versions"]) {
        problems.push(format!(
            "{name}: versions {:?}, facts {}",
            decl.versions, fact["versions"]
        ));
    }
    if clip(decl.flexible, decl.versions) != fact_span(&fact["flexible"]) {
        problems.push(format!(
            "{name}: flexible {:?}, facts {}",
            decl.flexible, fact["flexible"]
        ));
    }
    let structs = fact["structs"].as_array().cloned().unwrap_or_default();
    let names: Vec<&str> = structs.iter().filter_map(|s| s["name"].as_str()).collect();
    let ours: Vec<&str> = decl.structs.iter().map(|(n, _)| *n).collect();
    if names != ours {
        problems.push(format!("{name}: structs {ours:?}, facts {names:?}"));
        return;
    }
    for ((struct_name, infos), fact_struct) in decl.structs.iter().zip(&structs) {
        let fact_fields = fact_struct["fields"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let theirs: Vec<&str> = fact_fields
            .iter()
            .filter_map(|f| f["name"].as_str())
            .collect();
        let ours: Vec<&str> = infos.iter().map(|f| f.name).collect();
        if theirs != ours {
            problems.push(format!(
                "{name}.{struct_name}: fields {ours:?}, facts {theirs:?}"
            ));
            continue;
        }
        for (info, fact_field) in infos.iter().zip(&fact_fields) {
            let at = format!("{name}.{struct_name}.{}", info.name);
            check_field(&at, info, fact_field, decl.versions, problems);
            *fields += 1;
        }
    }
}

#[test]
fn every_message_declares_the_schema_facts() {
    let facts: Vec<Value> = serde_json::from_str(FACTS).expect("facts.json is JSON");
    let declared = declared_messages();
    assert_eq!(
        declared.len(),
        facts.len(),
        "messages declared vs in the facts"
    );
    let mut problems = Vec::new();
    let mut fields = 0;
    for decl in &declared {
        match facts.iter().find(|f| f["name"] == decl.name) {
            Some(fact) => check_message(decl, fact, &mut problems, &mut fields),
            None => problems.push(format!("{}: not in the facts", decl.name)),
        }
    }
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The catalogue as of this writing; a schema update changes these on purpose.
    assert!(
        declared.len() >= 200 && fields >= 1700,
        "{} messages, {fields} fields",
        declared.len()
    );
    println!("{} messages, {fields} fields conform", declared.len());
}

#[test]
fn every_api_key_has_a_request_and_a_response_in_the_facts() {
    let facts: Vec<Value> = serde_json::from_str(FACTS).expect("facts.json is JSON");
    for key in 0..=94i64 {
        for kind in ["request", "response"] {
            let found = facts
                .iter()
                .any(|f| f["api_key"].as_i64() == Some(key) && f["kind"] == kind);
            assert!(found, "API key {key} has no {kind}");
        }
    }
}
