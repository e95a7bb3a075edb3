//! Writing the merged model as annotated Rust source, one file per message.

use crate::merge::{Field, Message, Struct, Ty};
use crate::schema::Versions;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

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

fn field_ident(name: &str) -> String {
    let s = snake_case(name);
    if KEYWORDS.contains(&s.as_str()) {
        format!("r#{s}")
    } else {
        s
    }
}

/// A version set as a range string; a set reaching the message's last version is open-ended.
fn range(set: &Versions, last: i16) -> Result<String, String> {
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

fn prim(p: &str) -> Result<&'static str, String> {
    Ok(match p {
        "bool" => "bool",
        "int8" => "i8",
        "int16" => "i16",
        "uint16" => "u16",
        "int32" => "i32",
        "uint32" => "u32",
        "int64" => "i64",
        "float64" => "f64",
        "string" => "KafkaString",
        "bytes" => "Bytes",
        "records" => "Records",
        "uuid" => "Uuid",
        other => return Err(format!("unknown type {other}")),
    })
}

fn rust_type(ty: &Ty) -> Result<String, String> {
    Ok(match ty {
        Ty::Prim(p) => prim(p)?.to_owned(),
        Ty::Array(e) => format!("Vec<{}>", rust_type(e)?),
        Ty::Struct(s) => s.clone(),
    })
}

fn uses(ty: &Ty, used: &mut BTreeSet<&'static str>) {
    match ty {
        Ty::Prim(p) => {
            if let Ok(r) = prim(p) {
                if matches!(r, "KafkaString" | "Bytes" | "Records" | "Uuid") {
                    used.insert(r);
                }
            }
        }
        Ty::Array(e) => uses(e, used),
        Ty::Struct(_) => {}
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
        Ty::Prim(p) if p.starts_with("int") || p.starts_with("uint") => {
            let v: i128 = match d.strip_prefix("0x") {
                Some(hex) => i128::from_str_radix(hex, 16).map_err(|_| err())?,
                None => d.parse().map_err(|_| err())?,
            };
            (v != 0).then(|| DefaultValue {
                attr: v.to_string(),
                expr: wrap(v.to_string()),
            })
        }
        Ty::Prim(p) if p == "bool" => match d.to_ascii_lowercase().as_str() {
            "true" => Some(DefaultValue {
                attr: "true".into(),
                expr: wrap("true".into()),
            }),
            "false" => None,
            _ => return Err(err()),
        },
        Ty::Prim(p) if p == "float64" => {
            let v: f64 = d.parse().map_err(|_| err())?;
            (v != 0.0).then(|| DefaultValue {
                attr: format!("{v:?}"),
                expr: wrap(format!("{v:?}")),
            })
        }
        Ty::Prim(p) if p == "string" => {
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
        (Some(d), Ty::Prim(p)) if p == "string" && d != "null" => {
            parts.push(format!("default `{d:?}`"))
        }
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

fn render_struct(out: &mut String, msg: &Message, s: &Struct, top: bool) -> Result<(), String> {
    let last = *msg.versions.last().unwrap_or(&0);
    let flexible = !msg.flexible.is_empty();
    let mut defaults = Vec::new();
    for f in &s.fields {
        defaults.push(default_value(f, &msg.name)?);
    }
    // `None` is also what `#[derive(Default)]` gives.
    let manual_default = defaults.iter().flatten().any(|d| d.expr != "None");
    if top {
        let kind = match (msg.kind.as_str(), msg.api_key) {
            ("request", Some(k)) => format!("The request of API key {k}"),
            ("response", Some(k)) => format!("The response of API key {k}"),
            ("header", _) => "A header".to_owned(),
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
    if top {
        let mut attrs = Vec::new();
        if let Some(k) = msg
            .api_key
            .filter(|_| msg.kind == "request" || msg.kind == "response")
        {
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
        let mut ty = rust_type(&f.ty)?;
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

fn render(msg: &Message) -> Result<String, String> {
    let last = *msg.versions.last().unwrap_or(&0);
    let _ = last;
    let mut used = BTreeSet::new();
    for s in &msg.structs {
        for f in &s.fields {
            uses(&f.ty, &mut used);
        }
    }
    let mut out = String::new();
    let key = msg
        .api_key
        .filter(|_| msg.kind == "request" || msg.kind == "response");
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
    let sources: Vec<String> = msg
        .sources
        .iter()
        .map(|(release, set)| {
            Ok(format!(
                "versions {} from Kafka {release}",
                range(set, i16::MAX)?
            ))
        })
        .collect::<Result<_, String>>()?;
    writeln!(
        out,
        "//!\n//! Generated by `tools/codegen` from Kafka's `{}.json` ({}); do not edit.\n",
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
    if bytes_import {
        writeln!(out, "use bytes::Bytes;").ok();
    }
    writeln!(out, "use crate::{{{}}};\n", imports.join(", ")).ok();
    for (i, s) in msg.structs.iter().enumerate() {
        render_struct(&mut out, msg, s, i == 0)?;
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    Ok(out)
}

/// Writes every message file and `mod.rs`, and removes message files no longer generated.
/// The cargo feature an API's messages sit behind: its name in kebab case (`write-txn-markers`).
fn api_feature(request_name: &str) -> String {
    snake_case(request_name.trim_end_matches("Request")).replace('_', "-")
}

/// The feature that gates a message; headers are always built.
fn feature_of(msg: &Message) -> Option<String> {
    match msg.kind.as_str() {
        "request" => Some(api_feature(&msg.name)),
        "response" => Some(api_feature(&format!(
            "{}Request",
            msg.name.trim_end_matches("Response")
        ))),
        "header" => None,
        _ => Some(DATA_FEATURE.to_owned()),
    }
}

/// The feature of the data schemas (consumer protocol, KRaft records, ...).
const DATA_FEATURE: &str = "data-schemas";

fn cfg(feature: Option<&str>) -> String {
    feature.map_or_else(String::new, |f| format!("#[cfg(feature = \"{f}\")]\n"))
}

/// Writes the `[features]` entries of the catalogue into `manifest`, between two marker lines.
pub fn write_features(messages: &[Message], manifest: &Path) -> Result<(), String> {
    const BEGIN: &str = "# Generated by tools/codegen from here to the end marker; do not edit.\n";
    const END: &str = "# End of generated features.\n";
    let text =
        std::fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        return Err(format!(
            "{}: no generated-features markers",
            manifest.display()
        ));
    };
    let mut apis: Vec<String> = messages
        .iter()
        .filter(|m| m.kind == "request")
        .map(|m| api_feature(&m.name))
        .collect();
    apis.sort();
    let mut block = String::from(BEGIN);
    block.push_str("# Every API and the data schemas; on by default.\nall-apis = [\n");
    for f in apis.iter().map(String::as_str).chain([DATA_FEATURE]) {
        writeln!(block, "  \"{f}\",").ok();
    }
    block.push_str("]\n");
    for f in apis.iter().map(String::as_str).chain([DATA_FEATURE]) {
        writeln!(block, "{f} = []").ok();
    }
    let out = format!("{}{block}{}", &text[..start], &text[end..]);
    if out != text {
        std::fs::write(manifest, out).map_err(|e| e.to_string())?;
    }
    Ok(())
}

pub fn write_all(messages: &[Message], dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let mut errors = Vec::new();
    let mut modules = Vec::new();
    for msg in messages {
        let module = snake_case(&msg.name);
        match render(msg) {
            Ok(text) => {
                std::fs::write(dir.join(format!("{module}.rs")), text)
                    .map_err(|e| e.to_string())?;
                modules.push((module, msg.name.clone(), feature_of(msg)));
            }
            Err(e) => errors.push(format!("{}: {e}", msg.name)),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    let mut m = String::from("//! Every Kafka message, each in a module named after it; the messages themselves are\n//! re-exported here, their nested structs stay in their modules.\n//!\n//! Generated by `tools/codegen`; do not edit.\n\npub mod api;\n");
    for (module, _, feature) in &modules {
        writeln!(m, "{}pub mod {module};", cfg(feature.as_deref())).ok();
    }
    m.push('\n');
    for (module, name, feature) in &modules {
        writeln!(
            m,
            "{}pub use self::{module}::{name};",
            cfg(feature.as_deref())
        )
        .ok();
    }
    for msg in messages {
        for old in &msg.old_names {
            writeln!(
                m,
                "/// The name older Kafka releases give [`{}`].\n{}pub type {old} = {};",
                msg.name,
                cfg(feature_of(msg).as_deref()),
                msg.name
            )
            .ok();
        }
    }
    std::fs::write(dir.join("mod.rs"), m).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("api.rs"), render_api(messages)?).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("facts.json"), render_facts(messages)?).map_err(|e| e.to_string())?;
    // Format as `cargo fmt` would, so that the sources are stable under it.
    let mut files: Vec<_> = modules
        .iter()
        .map(|(m, _, _)| dir.join(format!("{m}.rs")))
        .collect();
    files.push(dir.join("mod.rs"));
    files.push(dir.join("api.rs"));
    rustfmt(&files)?;
    let keep: BTreeSet<String> = modules
        .iter()
        .map(|(m, _, _)| format!("{m}.rs"))
        .chain(["mod.rs".to_owned(), "api.rs".to_owned()])
        .collect();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".rs") && !keep.contains(&name) {
            std::fs::remove_file(entry.path()).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Versions whose header is v0 whatever the flexible-version rule says, as Kafka's schemas
/// state in their comments: `(message, versions)`.
const HEADER_V0: &[(&str, &str)] = &[
    // Request header v0, without a client id, exists only for ControlledShutdown v0.
    ("ControlledShutdownRequest", "0"),
    // A client whose ApiVersions request version the broker does not know must still read the
    // answer: ApiVersions responses keep header v0 in every version (KIP-511).
    ("ApiVersionsResponse", "0+"),
];

/// The API registry: the two body enums, each variant behind its API's feature, with the
/// header exceptions; `#[derive(ApiSet)]` writes the rest.
fn render_api(messages: &[Message]) -> Result<String, String> {
    let mut apis: Vec<(i16, &Message, &Message)> = Vec::new();
    for req in messages.iter().filter(|m| m.kind == "request") {
        let key = req
            .api_key
            .ok_or_else(|| format!("{}: request without api key", req.name))?;
        let resp = messages
            .iter()
            .find(|m| m.kind == "response" && m.api_key == Some(key))
            .ok_or_else(|| format!("{}: no response", req.name))?;
        apis.push((key, req, resp));
    }
    apis.sort_by_key(|(k, _, _)| *k);
    let variant = |req: &Message| req.name.trim_end_matches("Request").to_owned();
    let mut o = String::new();
    o.push_str(
        "//! Kafka's API sets: a body of any request, and of any response, read or written by\n\
         //! `(api key, version)` at run time through [`ApiSet`](crate::ApiSet). Each variant sits\n\
         //! behind its API's cargo feature; the derive takes keys, versions and header versions\n\
         //! from the messages, and the attributes give the header exceptions Kafka's schemas state.\n//!\n\
         //! Generated by `tools/codegen`; do not edit.\n\n\
         use crate::ApiSet;\n\n",
    );
    for (kind, is_request) in [("Request", true), ("Response", false)] {
        let set_attr = if is_request {
            "requests, response_set = ResponseBody"
        } else {
            "responses"
        };
        writeln!(
            o,
            "/// A {} body of any API.\n#[derive(Debug, Clone, PartialEq, ApiSet)]\n#[kafka({set_attr})]\n#[non_exhaustive]\npub enum {kind}Body {{",
            kind.to_lowercase()
        )
        .ok();
        for (key, req, resp) in &apis {
            let m = if is_request { req } else { resp };
            writeln!(
                o,
                "    /// API key {key}: [`super::{}`].\n    {}",
                m.name,
                cfg(Some(&api_feature(&req.name)))
            )
            .ok();
            if let Some((_, v0)) = HEADER_V0.iter().find(|(name, _)| *name == m.name) {
                writeln!(o, "    #[kafka(header_v0 = \"{v0}\")]").ok();
            }
            writeln!(o, "    {}(super::{}),", variant(req), m.name).ok();
        }
        o.push_str("}\n\n");
    }
    while o.ends_with("\n\n") {
        o.pop();
    }
    Ok(o)
}

/// Test support: `ToJson` for every generated struct and a dispatcher by message name, so that
/// golden vectors can be compared field by field with what independent implementations wrote.
pub fn render_json(messages: &[Message]) -> String {
    let mut o = String::from(
        "//! Test support for every generated message: `ToJson`, golden-vector checks by message\n//! name, and `Random` values for round trips.\n//!\n\
         //! Generated by `tools/codegen`; do not edit.\n\n\
         use crate::json::{check, Checked, ToJson};\nuse crate::Declared;\nuse crate::random::{round_trip, Random, Rng};\nuse serde_json::{Map, Value};\n\n",
    );
    for msg in messages {
        let module = snake_case(&msg.name);
        let flexible = !msg.flexible.is_empty();
        for s in &msg.structs {
            writeln!(o, "impl ToJson for kafka_wire::messages::{module}::{} {{\n    fn to_json(&self) -> Value {{\n        let mut m = Map::new();", s.name).ok();
            for f in &s.fields {
                let ident = field_ident(&f.name);
                let key = ident.trim_start_matches("r#");
                writeln!(
                    o,
                    "        m.insert({key:?}.into(), self.{ident}.to_json());"
                )
                .ok();
            }
            if flexible {
                o.push_str("        m.insert(\"_unknown_tagged_fields\".into(), self.unknown_tagged_fields.to_json());\n");
            } else {
                o.push_str("        m.insert(\"_unknown_tagged_fields\".into(), Value::Array(Vec::new()));\n");
            }
            o.push_str("        Value::Object(m)\n    }\n}\n\n");
            render_random(&mut o, msg, &module, s);
        }
    }
    o.push_str("/// Decodes `bytes` as the message named `name` at `version`; `None` for an unknown name.\npub fn check_by_name(name: &str, bytes: &[u8], version: i16) -> Option<Result<Checked, String>> {\n    Some(match name {\n");
    for msg in messages {
        writeln!(
            o,
            "        {:?} => check::<kafka_wire::messages::{}::{}>(bytes, version),",
            msg.name,
            snake_case(&msg.name),
            msg.name
        )
        .ok();
    }
    o.push_str("        _ => return None,\n    })\n}\n\n");
    o.push_str("/// Round-trips `cases` random values of every message at every version; the failures.\npub fn round_trip_every_message(cases: u64) -> Vec<String> {\n    let mut failures = Vec::new();\n");
    for msg in messages {
        writeln!(
            o,
            "    failures.extend(round_trip::<kafka_wire::messages::{}::{}>(cases));",
            snake_case(&msg.name),
            msg.name
        )
        .ok();
    }
    o.push_str("    failures\n}\n\n");
    o.push_str("/// What every generated message declares: its metadata and each struct's fields.\npub fn declared_messages() -> Vec<Declared> {\n    use kafka_wire::{ApiMessage, Fields, Message};\n    vec![\n");
    for msg in messages {
        let module = snake_case(&msg.name);
        let ty = format!("kafka_wire::messages::{module}::{}", msg.name);
        let key = if msg.kind == "request" || msg.kind == "response" {
            format!("Some(<{ty} as ApiMessage>::API_KEY)")
        } else {
            "None".to_owned()
        };
        writeln!(o, "        Declared {{\n            name: <{ty} as Message>::NAME,\n            api_key: {key},\n            versions: <{ty} as Message>::VERSIONS,\n            flexible: <{ty} as Message>::FLEXIBLE_VERSIONS,\n            structs: vec![").ok();
        for s in &msg.structs {
            writeln!(
                o,
                "                ({:?}, <kafka_wire::messages::{module}::{} as Fields>::FIELDS),",
                s.name, s.name
            )
            .ok();
        }
        o.push_str("            ],\n        },\n");
    }
    o.push_str("    ]\n}\n");
    o
}

/// The facts manifest: for every message, the metadata and field layout taken from the
/// schemas, for the conformance test to compare with what the derive declares.
pub fn render_facts(messages: &[Message]) -> Result<String, String> {
    use serde_json::{json, Value};
    let span = |set: &Versions| -> Result<Value, String> {
        let (Some(a), Some(b)) = (set.first(), set.last()) else {
            return Ok(Value::Null);
        };
        if set.len() != usize::try_from(b - a + 1).unwrap_or(0) {
            return Err(format!("versions {set:?} are not contiguous"));
        }
        Ok(json!([a, b]))
    };
    let mut out = Vec::new();
    for msg in messages {
        let flexible: Versions = msg.flexible.intersection(&msg.versions).copied().collect();
        let mut structs = Vec::new();
        for s in &msg.structs {
            let mut fields = Vec::new();
            for f in &s.fields {
                let ident = field_ident(&f.name);
                fields.push(json!({
                    "name": ident.trim_start_matches("r#"),
                    "type": f.ty.schema_name(),
                    "versions": span(&f.versions)?,
                    "nullable": span(&f.nullable)?,
                    "tag": f.tag,
                    "tagged": span(&f.tagged)?,
                    // null: no override; []: flexible in no version.
                    "flexible": match &f.flexible {
                        None => Value::Null,
                        Some(set) if set.is_empty() => json!([]),
                        Some(set) => span(set)?,
                    },
                    "default": f.default,
                    "ignorable": f.ignorable,
                }));
            }
            structs.push(json!({ "name": s.name, "fields": fields }));
        }
        out.push(json!({
            "name": msg.name,
            "kind": msg.kind,
            "api_key": msg.api_key.filter(|_| msg.kind == "request" || msg.kind == "response"),
            "versions": span(&msg.versions)?,
            "flexible": span(&flexible)?,
            "structs": structs,
        }));
    }
    let mut text = String::from("[\n");
    for (i, m) in out.iter().enumerate() {
        let sep = if i + 1 < out.len() { "," } else { "" };
        writeln!(
            text,
            "{}{sep}",
            serde_json::to_string(m).map_err(|e| e.to_string())?
        )
        .ok();
    }
    text.push_str("]\n");
    Ok(text)
}

/// `Random` for one struct: fields the version has get random values, the others keep their
/// defaults; nullable fields are sometimes null where the version allows it.
fn render_random(o: &mut String, msg: &Message, module: &str, s: &Struct) {
    let cond = |set: &Versions| -> String {
        match (set.first(), set.last()) {
            (Some(a), Some(b)) => format!("(*{a}..={b}).contains(&v)").replace('*', ""),
            _ => "false".to_owned(),
        }
    };
    writeln!(o, "impl Random for kafka_wire::messages::{module}::{} {{\n    fn random(r: &mut Rng, v: i16, flexible: bool) -> Self {{\n        let mut x = Self::default();", s.name).ok();
    for f in &s.fields {
        let ident = field_ident(&f.name);
        if f.nullable.is_empty() {
            writeln!(o, "        if {} {{\n            x.{ident} = Random::random(r, v, flexible);\n        }}", cond(&f.versions)).ok();
        } else {
            writeln!(o, "        if {} {{\n            x.{ident} = if {} && r.one_in(4) {{ None }} else {{ Some(Random::random(r, v, flexible)) }};\n        }}", cond(&f.versions), cond(&f.nullable)).ok();
        }
    }
    if !msg.flexible.is_empty() {
        o.push_str("        if flexible {\n            x.unknown_tagged_fields = r.unknown_tags();\n        }\n");
    }
    o.push_str("        x\n    }\n}\n\n");
}

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
