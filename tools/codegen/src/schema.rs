//! The parsed schema: one file of Kafka's JSON message format (with `//` comment lines) as a
//! typed model, ranges as [`VersionRange`], fields as structs, defaults read for their type.

use crate::error::Error;
use kafka_wire_schema::rules;
pub use kafka_wire_schema::VersionRange;
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

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

/// Each type without parameters, with its name in the schemas.
const NAMES: [(Ty, &str); 12] = [
    (Ty::Bool, "bool"),
    (Ty::Int8, "int8"),
    (Ty::Int16, "int16"),
    (Ty::Uint16, "uint16"),
    (Ty::Int32, "int32"),
    (Ty::Uint32, "uint32"),
    (Ty::Int64, "int64"),
    (Ty::Float64, "float64"),
    (Ty::String, "string"),
    (Ty::Bytes, "bytes"),
    (Ty::Records, "records"),
    (Ty::Uuid, "uuid"),
];

impl Ty {
    pub fn parse(text: &str) -> Result<Ty, std::string::String> {
        if let Some(elem) = text.strip_prefix("[]") {
            return Ok(Ty::Array(Box::new(Ty::parse(elem)?)));
        }
        if let Some((ty, _)) = NAMES.iter().find(|(_, name)| *name == text) {
            return Ok(ty.clone());
        }
        if text.starts_with(|c: char| c.is_ascii_uppercase()) && is_name(text) {
            return Ok(Ty::Struct(text.to_owned()));
        }
        Err(format!("unknown type `{text}`"))
    }

    /// The struct this type holds, alone or as array elements.
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            Ty::Struct(s) => Some(s),
            Ty::Array(e) => e.struct_name(),
            _ => None,
        }
    }

    /// The values of an integer type; `None` for any other type.
    pub fn integer_range(&self) -> Option<(i128, i128)> {
        Some(match self {
            Ty::Int8 => (i8::MIN.into(), i8::MAX.into()),
            Ty::Int16 => (i16::MIN.into(), i16::MAX.into()),
            Ty::Uint16 => (0, u16::MAX.into()),
            Ty::Int32 => (i32::MIN.into(), i32::MAX.into()),
            Ty::Uint32 => (0, u32::MAX.into()),
            Ty::Int64 => (i64::MIN.into(), i64::MAX.into()),
            _ => return None,
        })
    }

    pub fn is_integer(&self) -> bool {
        self.integer_range().is_some()
    }
}

/// The type as the schemas write it.
impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Array(e) => write!(f, "[]{e}"),
            Ty::Struct(s) => f.write_str(s),
            plain => {
                let (_, name) = NAMES.iter().find(|(ty, _)| ty == plain).ok_or(fmt::Error)?;
                f.write_str(name)
            }
        }
    }
}

/// A field's default: the schema's text, which the documentation repeats, and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct DefaultValue {
    pub text: String,
    pub value: Literal,
}

/// A default read for its field's type.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `null`, for a nullable field.
    Null,
    Int(i128),
    Bool(bool),
    Float(f64),
    Str(String),
    /// A uuid, from Kafka's text form of one.
    Uuid(u128),
    /// `""` for bytes, records, a uuid, an array or a struct: the type's own default.
    Empty,
}

impl DefaultValue {
    fn parse(text: String, ty: &Ty) -> Result<DefaultValue, String> {
        let bad = || format!("default `{text}` does not fit `{ty}`");
        let value = match ty {
            _ if text == "null" => Literal::Null,
            Ty::Bool => match text.to_ascii_lowercase().as_str() {
                "true" => Literal::Bool(true),
                "false" => Literal::Bool(false),
                _ => return Err(bad()),
            },
            Ty::Float64 => match text.parse::<f64>() {
                Ok(v) if v.is_finite() => Literal::Float(v),
                _ => return Err(bad()),
            },
            Ty::String => Literal::Str(text.clone()),
            _ if text.is_empty() && !ty.is_integer() => Literal::Empty,
            Ty::Uuid => Literal::Uuid(rules::uuid_from_text(&text).ok_or_else(bad)?),
            _ => {
                let (min, max) = ty.integer_range().ok_or_else(bad)?;
                let v = match text.strip_prefix("0x") {
                    Some(hex) => i128::from_str_radix(hex, 16),
                    None => text.parse(),
                }
                .map_err(|_| bad())?;
                if !(min..=max).contains(&v) {
                    return Err(bad());
                }
                Literal::Int(v)
            }
        };
        Ok(DefaultValue { text, value })
    }
}

/// One field of a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    pub versions: VersionRange,
    pub nullable: VersionRange,
    pub tagged: VersionRange,
    pub tag: Option<u32>,
    pub default: Option<DefaultValue>,
    pub ignorable: bool,
    /// A string or bytes field's own flexible versions.
    pub flexible: Option<VersionRange>,
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
    /// A closed range: a message lists the versions it has.
    pub valid: VersionRange,
    pub flexible: VersionRange,
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
        let json: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect();
        let root: Value = serde_json::from_str(&json.join("\n")).map_err(|e| e.to_string())?;
        let o = Object {
            value: &root,
            at: String::new(),
        };
        let name = o.required("name")?;
        if !is_name(&name) {
            return Err(format!("message name `{name}` is not an identifier"));
        }
        let o = Object {
            at: name.clone(),
            ..o
        };
        let valid = o.range("validVersions", None)?;
        if valid.is_open() {
            return Err(format!("{name}: validVersions `{valid}` is open"));
        }
        let mut common = Vec::new();
        for c in o.list("commonStructs") {
            let c = o.child(c, "common struct")?;
            common.push(CommonStruct {
                fields: fields(&c)?,
                name: c.at,
            });
        }
        Ok(Schema {
            kind: Kind::parse(&o.required("type")?),
            api_key: o.int("apiKey")?,
            valid,
            flexible: o.range("flexibleVersions", Some(VersionRange::NONE))?,
            latest_unstable: o.flag("latestVersionUnstable"),
            fields: fields(&o)?,
            common,
            name,
        })
    }

    /// The versions a release speaks: the valid ones less an unstable last version.
    pub fn stable(&self) -> VersionRange {
        match self.valid.end() {
            Some(last) if self.latest_unstable => self.valid.before(last),
            _ => self.valid,
        }
    }

    /// The fields of the struct `field` holds: inline in the field, or a common struct.
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

/// Whether `text` can name a message, struct or field: the generated code names it in Rust.
fn is_name(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A JSON object of a schema, with the name it is reported under.
struct Object<'a> {
    value: &'a Value,
    at: String,
}

impl<'a> Object<'a> {
    /// An object inside this one, named by its `name`.
    fn child(&self, value: &'a Value, what: &str) -> Result<Object<'a>, String> {
        let name = value.get("name").and_then(Value::as_str);
        let name = name.ok_or_else(|| format!("{}: {what} without name", self.at))?;
        if !is_name(name) {
            return Err(format!(
                "{}: {what} name `{name}` is not an identifier",
                self.at
            ));
        }
        Ok(Object {
            value,
            at: name.to_owned(),
        })
    }

    fn text(&self, key: &str) -> Option<String> {
        self.value
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    }

    fn required(&self, key: &str) -> Result<String, String> {
        self.text(key)
            .ok_or_else(|| self.error(format!("no {key}")))
    }

    /// The range under `key`; `absent` when there is none, which is an error when `None`.
    fn range(&self, key: &str, absent: Option<VersionRange>) -> Result<VersionRange, String> {
        match (self.text(key), absent) {
            (Some(text), _) => text
                .parse::<VersionRange>()
                .map_err(|e| self.error(e.to_string())),
            (None, Some(absent)) => Ok(absent),
            (None, None) => Err(self.error(format!("no {key}"))),
        }
    }

    /// The integer under `key`, which some older schemas write as a string.
    fn int<T: TryFrom<i64>>(&self, key: &str) -> Result<Option<T>, String> {
        let Some(v) = self.value.get(key) else {
            return Ok(None);
        };
        let n = v.as_i64().or_else(|| v.as_str()?.parse().ok());
        match n.and_then(|n| T::try_from(n).ok()) {
            Some(n) => Ok(Some(n)),
            None => Err(self.error(format!("{key} {v} is out of range"))),
        }
    }

    fn flag(&self, key: &str) -> bool {
        self.value
            .get(key)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    fn list(&self, key: &str) -> impl Iterator<Item = &'a Value> {
        self.value
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
    }

    fn error(&self, problem: String) -> String {
        if self.at.is_empty() {
            problem
        } else {
            format!("{}: {problem}", self.at)
        }
    }
}

fn fields(owner: &Object) -> Result<Vec<Field>, String> {
    owner.list("fields").map(|f| field(owner, f)).collect()
}

fn field(owner: &Object, value: &Value) -> Result<Field, String> {
    // An inline struct's fields are reported under the field's name, the field itself under
    // its owner's.
    let inline = owner.child(value, "field")?;
    let f = Object {
        value,
        at: format!("{}.{}", owner.at, inline.at),
    };
    let ty = Ty::parse(&f.required("type")?).map_err(|e| f.error(e))?;
    let default = match value.get("default") {
        None => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => Some(other.to_string()),
    };
    Ok(Field {
        versions: f.range("versions", None)?,
        nullable: f.range("nullableVersions", Some(VersionRange::NONE))?,
        tagged: f.range("taggedVersions", Some(VersionRange::NONE))?,
        tag: f.int("tag")?,
        default: default
            .map(|text| DefaultValue::parse(text, &ty))
            .transpose()
            .map_err(|e| f.error(e))?,
        ignorable: f.flag("ignorable"),
        flexible: f
            .text("flexibleVersions")
            .map(|text| {
                text.parse::<VersionRange>()
                    .map_err(|e| f.error(e.to_string()))
            })
            .transpose()?,
        entity_type: f.text("entityType"),
        map_key: f.flag("mapKey"),
        fields: fields(&inline)?,
        ty,
        name: inline.at,
    })
}

/// A folder of schemas: the `.json` files in it, by file name; named after the folder (the
/// release, for Kafka's).
#[derive(Debug, Clone)]
pub struct SchemaSet {
    pub release: String,
    pub schemas: Vec<Schema>,
    /// The files read, for a build script to watch.
    pub files: Vec<PathBuf>,
}

impl SchemaSet {
    /// Reads every `.json` file of `dir`, or the one file `dir` names.
    pub fn load(dir: impl AsRef<Path>) -> Result<SchemaSet, Error> {
        let dir = dir.as_ref();
        let release = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        let mut files: Vec<PathBuf> = if dir.is_file() {
            vec![dir.to_path_buf()]
        } else {
            std::fs::read_dir(dir)
                .map_err(|e| Error::one(format!("{}: {e}", dir.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect()
        };
        files.sort();
        let mut schemas = Vec::new();
        let mut problems = Vec::new();
        for file in &files {
            match Schema::load(file) {
                Ok(s) => schemas.push(s),
                Err(e) => problems.push(format!("{}: {e}", file.display())),
            }
        }
        if problems.is_empty() {
            Ok(SchemaSet {
                release,
                schemas,
                files,
            })
        } else {
            Err(Error { problems })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                { "name": "Zone", "type": "string", "versions": "1+", "taggedVersions": "1+", "tag": 0 },
                { "name": "Limit", "type": "int32", "versions": "0+", "default": "0x7fffffff" }
              ] }"#,
        )
        .unwrap();
        assert_eq!((s.kind, s.api_key), (Kind::Request, Some(1000)));
        assert_eq!(s.stable(), VersionRange::new(0, 0));
        assert_eq!(s.flexible, VersionRange::open(1));
        assert_eq!(
            s.fields[1].ty,
            Ty::Array(Box::new(Ty::Struct("Peer".into())))
        );
        assert_eq!(s.fields[1].ty.to_string(), "[]Peer");
        let id = s.fields[1].fields[0].default.as_ref().unwrap();
        assert_eq!((id.text.as_str(), &id.value), ("-1", &Literal::Int(-1)));
        assert_eq!(s.fields[2].tag, Some(0));
        let limit = s.fields[3].default.as_ref().unwrap();
        assert_eq!(limit.value, Literal::Int(i32::MAX.into()));
    }

    #[test]
    fn mistakes_name_the_field() {
        let with = |field: &str| {
            Schema::parse(&format!(
                r#"{{"name": "X", "type": "data", "validVersions": "0", "fields": [{field}]}}"#
            ))
            .unwrap_err()
        };
        assert_eq!(
            with(r#"{"name": "A", "type": "int33", "versions": "0+"}"#),
            "X.A: unknown type `int33`"
        );
        assert_eq!(
            with(r#"{"name": "A", "type": "int8", "versions": "0+", "default": 300}"#),
            "X.A: default `300` does not fit `int8`"
        );
        assert_eq!(
            with(r#"{"name": "A", "type": "bool", "versions": "0+", "default": "yes"}"#),
            "X.A: default `yes` does not fit `bool`"
        );
        assert_eq!(
            with(r#"{"name": "A", "type": "int8", "versions": "2-1"}"#),
            "X.A: invalid version range `2-1`: start is greater than end"
        );
        assert_eq!(with(r#"{"name": "A", "type": "int8"}"#), "X.A: no versions");
        assert_eq!(
            with(r#"{"name": "A", "type": "int8", "versions": "0+", "tag": -1}"#),
            "X.A: tag -1 is out of range"
        );
        let open = Schema::parse(r#"{"name": "X", "type": "data", "validVersions": "0+"}"#);
        assert_eq!(open.unwrap_err(), "X: validVersions `0+` is open");
    }
}
