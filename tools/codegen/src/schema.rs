//! The typed schema model: one file of Kafka's JSON message format (with `//` comments),
//! ranges as ranges and fields as structs.

use serde_json::Value;
use std::fmt;
use std::path::Path;

/// An inclusive range of versions, `none` when empty; `end == i16::MAX` is open (`"2+"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Versions {
    pub start: i16,
    pub end: i16,
}

impl Versions {
    pub const NONE: Versions = Versions { start: 0, end: -1 };

    /// Parses `"3"`, `"1-4"`, `"2+"`, `"none"`.
    pub fn parse(text: &str) -> Result<Versions, String> {
        let bad = || format!("bad version range `{text}`");
        let num = |s: &str| s.trim().parse::<i16>().map_err(|_| bad());
        let t = text.trim();
        if t == "none" {
            return Ok(Versions::NONE);
        }
        let (start, end) = if let Some(a) = t.strip_suffix('+') {
            (num(a)?, i16::MAX)
        } else if let Some((a, b)) = t.split_once('-') {
            (num(a)?, num(b)?)
        } else {
            let v = num(t)?;
            (v, v)
        };
        if start < 0 || end < start {
            return Err(bad());
        }
        Ok(Versions { start, end })
    }

    pub fn is_empty(self) -> bool {
        self.end < self.start
    }

    pub fn contains(self, v: i16) -> bool {
        v >= self.start && v <= self.end
    }

    pub fn intersect(self, other: Versions) -> Versions {
        let r = Versions {
            start: self.start.max(other.start),
            end: self.end.min(other.end),
        };
        if r.is_empty() {
            Versions::NONE
        } else {
            r
        }
    }

    /// The versions in order; an open range stops at `last`.
    pub fn iter_to(self, last: i16) -> impl Iterator<Item = i16> {
        self.start..=self.end.min(last)
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.end == i16::MAX {
            write!(f, "{}+", self.start)
        } else if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}-{}", self.start, self.end)
        }
    }
}

/// What a schema file describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Request,
    Response,
    Header,
    /// Anything else: consumer-protocol data, KRaft records, ...
    Data,
}

impl Kind {
    fn parse(text: &str) -> Kind {
        match text {
            "request" => Kind::Request,
            "response" => Kind::Response,
            "header" => Kind::Header,
            _ => Kind::Data,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Response => "response",
            Kind::Header => "header",
            Kind::Data => "data",
        }
    }
}

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Bool,
    Int8,
    Int16,
    Uint16,
    Int32,
    Uint32,
    Int64,
    Float64,
    String,
    Bytes,
    Records,
    Uuid,
    Array(Box<Ty>),
    /// A struct, by name: inline in the field or among the schema's common structs.
    Struct(std::string::String),
}

impl Ty {
    pub fn parse(text: &str) -> Result<Ty, std::string::String> {
        if let Some(elem) = text.strip_prefix("[]") {
            return Ok(Ty::Array(Box::new(Ty::parse(elem)?)));
        }
        Ok(match text {
            "bool" => Ty::Bool,
            "int8" => Ty::Int8,
            "int16" => Ty::Int16,
            "uint16" => Ty::Uint16,
            "int32" => Ty::Int32,
            "uint32" => Ty::Uint32,
            "int64" => Ty::Int64,
            "float64" => Ty::Float64,
            "string" => Ty::String,
            "bytes" => Ty::Bytes,
            "records" => Ty::Records,
            "uuid" => Ty::Uuid,
            s if s.starts_with(|c: char| c.is_ascii_uppercase()) => Ty::Struct(s.to_owned()),
            other => return Err(format!("unknown type `{other}`")),
        })
    }

    /// The type as the schemas write it.
    pub fn schema_name(&self) -> std::string::String {
        match self {
            Ty::Bool => "bool".into(),
            Ty::Int8 => "int8".into(),
            Ty::Int16 => "int16".into(),
            Ty::Uint16 => "uint16".into(),
            Ty::Int32 => "int32".into(),
            Ty::Uint32 => "uint32".into(),
            Ty::Int64 => "int64".into(),
            Ty::Float64 => "float64".into(),
            Ty::String => "string".into(),
            Ty::Bytes => "bytes".into(),
            Ty::Records => "records".into(),
            Ty::Uuid => "uuid".into(),
            Ty::Array(e) => format!("[]{}", e.schema_name()),
            Ty::Struct(s) => s.clone(),
        }
    }

    /// The struct this type holds, alone or as array elements.
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            Ty::Struct(s) => Some(s),
            Ty::Array(e) => e.struct_name(),
            _ => None,
        }
    }

    pub fn is_integer(&self) -> bool {
        matches!(
            self,
            Ty::Int8 | Ty::Int16 | Ty::Uint16 | Ty::Int32 | Ty::Uint32 | Ty::Int64
        )
    }
}

/// One field of a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    pub versions: Versions,
    pub nullable: Versions,
    pub tagged: Versions,
    pub tag: Option<u32>,
    /// The default as the schema writes it (numbers and booleans as their JSON text).
    pub default: Option<String>,
    pub ignorable: bool,
    /// A string or bytes field's own flexible versions.
    pub flexible: Option<Versions>,
    pub entity_type: Option<String>,
    pub map_key: bool,
    /// The fields of an inline struct; empty for a common struct or a plain type.
    pub fields: Vec<Field>,
}

/// A struct of `commonStructs`.
#[derive(Clone, Debug, PartialEq)]
pub struct CommonStruct {
    pub name: String,
    pub fields: Vec<Field>,
}

/// One schema file.
#[derive(Clone, Debug, PartialEq)]
pub struct Schema {
    pub name: String,
    pub kind: Kind,
    pub api_key: Option<i16>,
    pub valid: Versions,
    pub flexible: Versions,
    /// The last valid version is still being designed and is not spoken.
    pub latest_unstable: bool,
    pub fields: Vec<Field>,
    pub common: Vec<CommonStruct>,
}

impl Schema {
    pub fn load(path: &Path) -> Result<Schema, String> {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        Schema::parse(&text)
    }

    /// Parses a schema's text; comments are whole lines, as in Kafka's files.
    pub fn parse(text: &str) -> Result<Schema, String> {
        let json: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let v: Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        let name = string(&v, "name").ok_or("no name")?;
        let fields = fields_of(&v, &name)?;
        let mut common = Vec::new();
        for c in v
            .get("commonStructs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let cname =
                string(c, "name").ok_or_else(|| format!("{name}: common struct without name"))?;
            let fields = fields_of(c, &cname)?;
            common.push(CommonStruct {
                name: cname,
                fields,
            });
        }
        Ok(Schema {
            kind: Kind::parse(&string(&v, "type").ok_or("no type")?),
            api_key: v.get("apiKey").and_then(Value::as_i64).map(|k| k as i16),
            valid: Versions::parse(&string(&v, "validVersions").ok_or("no validVersions")?)?,
            flexible: Versions::parse(
                &string(&v, "flexibleVersions").unwrap_or_else(|| "none".into()),
            )?,
            latest_unstable: v
                .get("latestVersionUnstable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            fields,
            common,
            name,
        })
    }

    /// The versions a release speaks: the valid ones less an unstable last version.
    pub fn stable(&self) -> Versions {
        if self.latest_unstable && !self.valid.is_empty() {
            Versions {
                start: self.valid.start,
                end: self.valid.end - 1,
            }
        } else {
            self.valid
        }
    }

    /// The fields of the struct named `name`: the message itself, an inline struct of some
    /// field, or a common struct.
    pub fn struct_fields<'a>(&'a self, field: &'a Field) -> Option<&'a [Field]> {
        let name = field.ty.struct_name()?;
        if !field.fields.is_empty() {
            return Some(&field.fields);
        }
        self.common
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.fields.as_slice())
    }
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn fields_of(v: &Value, owner: &str) -> Result<Vec<Field>, String> {
    let mut out = Vec::new();
    for f in v
        .get("fields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push(field(f, owner)?);
    }
    Ok(out)
}

fn field(f: &Value, owner: &str) -> Result<Field, String> {
    let name = string(f, "name").ok_or_else(|| format!("{owner}: field without name"))?;
    let at = |e: String| format!("{owner}.{name}: {e}");
    let range = |key: &str| -> Result<Versions, String> {
        string(f, key).map_or(Ok(Versions::NONE), |r| Versions::parse(&r).map_err(at))
    };
    let versions = string(f, "versions").ok_or_else(|| at("no versions".into()))?;
    let ty = Ty::parse(&string(f, "type").ok_or_else(|| at("no type".into()))?).map_err(at)?;
    let inline = fields_of(f, &name)?;
    Ok(Field {
        versions: Versions::parse(&versions).map_err(at)?,
        nullable: range("nullableVersions")?,
        tagged: range("taggedVersions")?,
        // Some older schemas write the tag as a string.
        tag: f
            .get("tag")
            .and_then(|t| t.as_u64().or_else(|| t.as_str()?.parse().ok()))
            .map(|t| t as u32),
        default: f.get("default").map(|d| match d {
            Value::String(x) => x.clone(),
            other => other.to_string(),
        }),
        ignorable: f.get("ignorable").and_then(Value::as_bool).unwrap_or(false),
        flexible: match string(f, "flexibleVersions") {
            Some(r) => Some(Versions::parse(&r).map_err(at)?),
            None => None,
        },
        entity_type: string(f, "entityType"),
        map_key: f.get("mapKey").and_then(Value::as_bool).unwrap_or(false),
        fields: inline,
        ty,
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_as_the_schemas_write_them() {
        assert_eq!(Versions::parse("0-3"), Ok(Versions { start: 0, end: 3 }));
        assert_eq!(Versions::parse("2+").unwrap().to_string(), "2+");
        assert_eq!(Versions::parse("4").unwrap().to_string(), "4");
        assert!(Versions::parse("none").unwrap().is_empty());
        assert!(Versions::parse("3-1").is_err());
        assert!(Versions::parse("x").is_err());
    }

    #[test]
    fn a_schema_reads_into_the_model() {
        let s = Schema::parse(
            r#"// a comment line
            { "apiKey": 1000, "type": "request", "name": "PingRequest",
              "validVersions": "0-1", "flexibleVersions": "1+", "latestVersionUnstable": true,
              "fields": [
                { "name": "Seq", "type": "int32", "versions": "0+" },
                { "name": "Peers", "type": "[]Peer", "versions": "1+", "nullableVersions": "1+",
                  "fields": [ { "name": "Id", "type": "int32", "versions": "0+", "default": -1 } ] },
                { "name": "Zone", "type": "string", "versions": "1+", "taggedVersions": "1+", "tag": 0 }
              ] }"#,
        )
        .unwrap();
        assert_eq!((s.kind, s.api_key), (Kind::Request, Some(1000)));
        assert_eq!(s.stable().to_string(), "0");
        assert_eq!(
            s.fields[1].ty,
            Ty::Array(Box::new(Ty::Struct("Peer".into())))
        );
        assert_eq!(s.fields[1].fields[0].default.as_deref(), Some("-1"));
        assert_eq!(s.fields[2].tag, Some(0));
        assert!(Schema::parse(r#"{"name": "X", "type": "data", "validVersions": "0", "fields": [{"name": "A", "type": "int33", "versions": "0+"}]}"#).is_err());
    }
}
