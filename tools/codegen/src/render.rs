//! Writing a merged message as annotated Rust source: its structs, attributes, defaults and
//! documentation.

use crate::merge::{Field, Message, Struct, VersionSet as Versions};
use crate::schema::{Kind, Ty};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// `ProducerId` -> `producer_id`, `ISRReplicas` -> `isr_replicas`, `TopicID` -> `topic_id`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

pub fn field_ident(name: &str) -> String {
    let s = snake_case(name);
    if KEYWORDS.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

/// Where the generated source lives, which decides how it names kafka-wire.
pub struct Emit<'a> {
    /// `None`: inside kafka-wire, as `crate`. `Some(path)`: in a user's crate, which names
    /// kafka-wire by `path` (`kafka_wire`, or the name of a renamed dependency or facade).
    pub krate: Option<&'a str>,
}

impl Emit<'_> {
    /// The path `use` lines start from.
    fn root(&self) -> &str {
        self.krate.unwrap_or("crate")
    }

    /// `crate = "..."` for the derive, when kafka-wire is not reachable as `::kafka_wire`.
    pub fn crate_attr(&self) -> Option<String> {
        self.krate
            .filter(|k| *k != "kafka_wire" && *k != "::kafka_wire")
            .map(|k| format!("crate = \"{k}\""))
    }
}

/// A version set as a range string; a set reaching the message's last version is open-ended.
pub fn range(set: &Versions, last: i16) -> Result<String, String> {
    let (Some(&a), Some(&b)) = (set.first(), set.last()) else {
        return Ok("none".into());
    };
    if set.len() != (b - a + 1) as usize {
        return Err(format!("versions {set:?} are not contiguous"));
    }
    Ok(if b >= last {
        format!("{a}+")
    } else if a == b {
        format!("{a}")
    } else {
        format!("{a}-{b}")
    })
}

/// The Rust type of a schema type that is neither an array nor a struct.
fn prim(ty: &Ty) -> Option<&'static str> {
    Some(match ty {
        Ty::Bool => "bool",
        Ty::Int8 => "i8",
        Ty::Int16 => "i16",
        Ty::Uint16 => "u16",
        Ty::Int32 => "i32",
        Ty::Uint32 => "u32",
        Ty::Int64 => "i64",
        Ty::Float64 => "f64",
        Ty::String => "KafkaString",
        Ty::Bytes => "Bytes",
        Ty::Records => "Records",
        Ty::Uuid => "Uuid",
        Ty::Array(_) | Ty::Struct(_) => return None,
    })
}

fn rust_type(ty: &Ty) -> String {
    match ty {
        // Arrays of integers are views of the input when decoded: no allocation per array.
        Ty::Array(e) if is_int(e) => format!("IntArray<{}>", rust_type(e)),
        Ty::Array(e) => format!("Vec<{}>", rust_type(e)),
        Ty::Struct(s) => s.clone(),
        p => prim(p).unwrap_or_default().to_owned(),
    }
}

fn is_int(ty: &Ty) -> bool {
    matches!(
        ty,
        Ty::Int8 | Ty::Int16 | Ty::Uint16 | Ty::Int32 | Ty::Uint32 | Ty::Int64
    )
}

fn uses(ty: &Ty, used: &mut BTreeSet<&'static str>) {
    match ty {
        Ty::Array(e) if is_int(e) => {
            used.insert("IntArray");
        }
        Ty::Array(e) => uses(e, used),
        Ty::String | Ty::Bytes | Ty::Records | Ty::Uuid => {
            used.extend(prim(ty));
        }
        _ => {}
    }
}

/// How a field's default is written in `#[kafka(default = ...)]` and in a `Default` impl:
/// `None` when Rust's own default is Kafka's.
struct DefaultValue {
    attr: String,
    expr: String,
}

fn default_value(f: &Field, msg: &str) -> Result<Option<DefaultValue>, String> {
    let nullable = !f.nullable.is_empty();
    let Some(d) = &f.default else {
        // Kafka's default for a nullable field is the empty value, which the derive knows;
        // only the `Default` impl needs telling.
        return Ok(nullable.then(|| DefaultValue {
            attr: String::new(),
            expr: "Some(Default::default())".into(),
        }));
    };
    let err = || {
        format!(
            "{msg}.{}: default `{d}` does not fit `{}`",
            f.name,
            f.ty.schema_name()
        )
    };
    if d == "null" {
        if !nullable {
            return Err(err());
        }
        if f.versions != f.nullable {
            return Err(format!(
                "{msg}.{}: default null but not nullable in all versions",
                f.name
            ));
        }
        return Ok(Some(DefaultValue {
            attr: "\"null\"".into(),
            expr: "None".into(),
        }));
    }
    let wrap = |e: String| if nullable { format!("Some({e})") } else { e };
    Ok(match &f.ty {
        ty if ty.is_integer() => {
            let v: i128 = match d.strip_prefix("0x") {
                Some(hex) => i128::from_str_radix(hex, 16).map_err(|_| err())?,
                None => d.parse().map_err(|_| err())?,
            };
            (v != 0).then(|| DefaultValue {
                attr: v.to_string(),
                expr: wrap(v.to_string()),
            })
        }
        Ty::Bool => match d.to_ascii_lowercase().as_str() {
            "true" => Some(DefaultValue {
                attr: "true".into(),
                expr: wrap("true".into()),
            }),
            "false" => None,
            _ => return Err(err()),
        },
        Ty::Float64 => {
            let v: f64 = d.parse().map_err(|_| err())?;
            (v != 0.0).then(|| DefaultValue {
                attr: format!("{v:?}"),
                expr: wrap(format!("{v:?}")),
            })
        }
        Ty::String => {
            if d.is_empty() && !nullable {
                None
            } else {
                Some(DefaultValue {
                    attr: format!("{d:?}"),
                    expr: wrap(format!("KafkaString::from_static({d:?})")),
                })
            }
        }
        _ if d.is_empty() => None,
        _ => return Err(err()),
    })
}

fn doc_line(f: &Field, last: i16) -> Result<String, String> {
    let mut parts = vec![
        format!("`{}`", f.ty.schema_name()),
        format!("versions {}", range(&f.versions, last)?),
    ];
    if !f.nullable.is_empty() {
        parts.push(format!("nullable {}", range(&f.nullable, last)?));
    }
    if let Some(t) = f.tag {
        parts.push(format!("tag {t} in versions {}", range(&f.tagged, last)?));
    }
    match (&f.default, &f.ty) {
        (Some(d), Ty::String) if d != "null" => parts.push(format!("default `{d:?}`")),
        (Some(d), _) => parts.push(format!("default `{d}`")),
        (None, _) => {}
    }
    if f.ignorable {
        parts.push("ignorable".into());
    }
    if let Some(e) = &f.entity {
        parts.push(format!("entity type `{e}`"));
    }
    if f.map_key {
        parts.push("map key".into());
    }
    Ok(parts.join(", "))
}

fn render_struct(
    out: &mut String,
    msg: &Message,
    s: &Struct,
    top: bool,
    emit: &Emit,
) -> Result<(), String> {
    let last = *msg.versions.last().unwrap_or(&0);
    let flexible = !msg.flexible.is_empty();
    let mut defaults = Vec::new();
    for f in &s.fields {
        defaults.push(default_value(f, &msg.name)?);
    }
    // `None` is also what `#[derive(Default)]` gives.
    let manual_default = defaults.iter().flatten().any(|d| d.expr != "None");
    if top {
        let kind = match (msg.kind, msg.api_key) {
            (Kind::Request, Some(k)) => format!("The request of API key {k}"),
            (Kind::Response, Some(k)) => format!("The response of API key {k}"),
            (Kind::Header, _) => "A header".to_owned(),
            _ => "A data schema".to_owned(),
        };
        writeln!(
            out,
            "/// {kind}: versions {}, flexible {}.",
            range(&msg.versions, i16::MAX)?,
            range(&msg.flexible, last)?
        )
        .ok();
    } else {
        writeln!(out, "/// A struct of [`{}`].", msg.name).ok();
    }
    let derives = if manual_default {
        "Debug, Clone, PartialEq, KafkaMessage"
    } else {
        "Debug, Clone, PartialEq, Default, KafkaMessage"
    };
    writeln!(out, "#[derive({derives})]").ok();
    let crate_attr = emit.crate_attr();
    if !top {
        if let Some(c) = &crate_attr {
            writeln!(out, "#[kafka({c})]").ok();
        }
    }
    if top {
        let mut attrs: Vec<String> = crate_attr.into_iter().collect();
        if let Some(k) = msg.api_key.filter(|_| msg.is_api()) {
            attrs.push(format!("key = {k}"));
        }
        // The message's own range is closed; its flexible range is open, as in Kafka.
        attrs.push(format!(
            "versions = \"{}\"",
            range(&msg.versions, i16::MAX)?
        ));
        attrs.push(format!("flexible = \"{}\"", range(&msg.flexible, last)?));
        writeln!(out, "#[kafka({})]", attrs.join(", ")).ok();
    }
    writeln!(out, "pub struct {} {{", s.name).ok();
    for (f, d) in s.fields.iter().zip(&defaults) {
        writeln!(out, "    /// {}.", doc_line(f, last)?).ok();
        let mut attrs = vec![format!("versions = \"{}\"", range(&f.versions, last)?)];
        if !f.nullable.is_empty() {
            attrs.push(format!("nullable = \"{}\"", range(&f.nullable, last)?));
        }
        if let Some(t) = f.tag {
            attrs.push(format!(
                "tag = {t}, tagged = \"{}\"",
                range(&f.tagged, last)?
            ));
        }
        if let Some(d) = d.as_ref().filter(|d| !d.attr.is_empty()) {
            attrs.push(format!("default = {}", d.attr));
        }
        if f.ignorable {
            attrs.push("ignorable".into());
        }
        if let Some(fl) = &f.flexible {
            attrs.push(format!("flexible = \"{}\"", range(fl, last)?));
        }
        writeln!(out, "    #[kafka({})]", attrs.join(", ")).ok();
        let mut ty = rust_type(&f.ty);
        if !f.nullable.is_empty() {
            ty = format!("Option<{ty}>");
        }
        writeln!(out, "    pub {}: {ty},", field_ident(&f.name)).ok();
    }
    if flexible {
        writeln!(
            out,
            "    /// Tagged fields this struct does not know, kept for re-encoding."
        )
        .ok();
        writeln!(out, "    #[kafka(unknown_tagged_fields)]").ok();
        writeln!(out, "    pub unknown_tagged_fields: UnknownTaggedFields,").ok();
    }
    writeln!(out, "}}\n").ok();
    if manual_default {
        writeln!(out, "impl Default for {} {{", s.name).ok();
        writeln!(out, "    fn default() -> Self {{").ok();
        writeln!(out, "        {} {{", s.name).ok();
        for (f, d) in s.fields.iter().zip(&defaults) {
            let expr = d
                .as_ref()
                .map_or("Default::default()".to_owned(), |d| d.expr.clone());
            writeln!(out, "            {}: {expr},", field_ident(&f.name)).ok();
        }
        if flexible {
            writeln!(
                out,
                "            unknown_tagged_fields: Default::default(),"
            )
            .ok();
        }
        writeln!(out, "        }}\n    }}\n}}\n").ok();
    }
    Ok(())
}

/// The source of one message: module documentation, imports and every struct.
pub fn render(msg: &Message, emit: &Emit) -> Result<String, String> {
    let last = *msg.versions.last().unwrap_or(&0);
    let _ = last;
    let mut used = BTreeSet::new();
    for s in &msg.structs {
        for f in &s.fields {
            uses(&f.ty, &mut used);
        }
    }
    let mut out = String::new();
    let key = msg.api_key.filter(|_| msg.is_api());
    match key {
        Some(k) => writeln!(
            out,
            "//! `{}` (API key {k}), versions {}.",
            msg.name,
            range(&msg.versions, i16::MAX)?
        ),
        None => writeln!(
            out,
            "//! `{}`, versions {}.",
            msg.name,
            range(&msg.versions, i16::MAX)?
        ),
    }
    .ok();
    let (origin, tool) = match emit.krate {
        None => ("Kafka ", "`tools/codegen` from Kafka's"),
        Some(_) => ("", "`kafka-wire-codegen` from"),
    };
    let sources: Vec<String> = msg
        .sources
        .iter()
        .map(|(release, set)| {
            Ok(format!(
                "versions {} from {origin}{release}",
                range(set, i16::MAX)?
            ))
        })
        .collect::<Result<_, String>>()?;
    writeln!(
        out,
        "//!\n//! Generated by {tool} `{}.json` ({}); do not edit.\n",
        msg.name,
        sources.join(", ")
    )
    .ok();
    let mut imports: Vec<&str> = vec!["KafkaMessage"];
    let mut bytes_import = false;
    for u in &used {
        if *u == "Bytes" {
            bytes_import = true;
        } else {
            imports.push(u);
        }
    }
    if !msg.flexible.is_empty() {
        imports.push("UnknownTaggedFields");
    }
    imports.sort();
    let root = emit.root();
    match (bytes_import, emit.krate) {
        (true, None) => writeln!(out, "use bytes::Bytes;").ok(),
        // A user's crate may not depend on `bytes` itself: kafka-wire re-exports it.
        (true, Some(k)) => writeln!(out, "use {k}::bytes::Bytes;").ok(),
        (false, _) => None,
    };
    writeln!(out, "use {root}::{{{}}};\n", imports.join(", ")).ok();
    for (i, s) in msg.structs.iter().enumerate() {
        render_struct(&mut out, msg, s, i == 0, emit)?;
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

/// Versions whose header is v0 whatever the flexible-version rule says, as Kafka's schemas
/// state in their comments: `(message, versions)`.
pub const HEADER_V0: &[(&str, &str)] = &[
    // Request header v0, without a client id, exists only for ControlledShutdown v0.
    ("ControlledShutdownRequest", "0"),
    // A client whose ApiVersions request version the broker does not know must still read the
    // answer: ApiVersions responses keep header v0 in every version (KIP-511).
    ("ApiVersionsResponse", "0+"),
];

/// Formats `files` as `cargo fmt` would, so that generated sources are stable under it.
pub fn rustfmt(files: &[std::path::PathBuf]) -> Result<(), String> {
    let status = std::process::Command::new("rustfmt")
        .args(["--edition", "2021"])
        .args(files)
        .status()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("rustfmt failed: {status}"))
    }
}
