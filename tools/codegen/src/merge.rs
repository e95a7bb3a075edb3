//! Merging one schema across releases into one model with per-field version sets.

use crate::schema::{parse_range, Schema, Versions, OPEN_END};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A field's type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Prim(String),
    Array(Box<Ty>),
    Struct(String),
}

impl Ty {
    fn parse(text: &str) -> Ty {
        if let Some(elem) = text.strip_prefix("[]") {
            Ty::Array(Box::new(Ty::parse(elem)))
        } else if text.starts_with(|c: char| c.is_ascii_uppercase()) {
            Ty::Struct(text.to_owned())
        } else {
            Ty::Prim(text.to_owned())
        }
    }

    pub fn schema_name(&self) -> String {
        match self {
            Ty::Prim(p) => p.clone(),
            Ty::Array(e) => format!("[]{}", e.schema_name()),
            Ty::Struct(s) => s.clone(),
        }
    }
}

/// What one version of one release says about a field. Everything but `ignorable`,
/// `entity` and `map_key` shapes the bytes on the wire.
#[derive(Clone, Debug, PartialEq)]
struct FieldAt {
    ty: Ty,
    nullable: bool,
    tagged: bool,
    tag: Option<u32>,
    default: Option<String>,
    ignorable: bool,
    flexible: Option<String>,
    entity: Option<String>,
    map_key: bool,
}

/// A merged field.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Ty,
    pub versions: Versions,
    pub nullable: Versions,
    pub tagged: Versions,
    pub tag: Option<u32>,
    pub default: Option<String>,
    pub ignorable: bool,
    pub flexible: Option<Versions>,
    pub entity: Option<String>,
    pub map_key: bool,
}

/// A merged struct.
#[derive(Clone, Debug)]
pub struct Struct {
    pub name: String,
    pub fields: Vec<Field>,
}

/// A merged message.
#[derive(Clone, Debug)]
pub struct Message {
    pub name: String,
    pub kind: String,
    pub api_key: Option<i16>,
    pub versions: Versions,
    pub flexible: Versions,
    /// Which release each version comes from.
    pub sources: Vec<(String, Versions)>,
    /// The top-level struct first.
    pub structs: Vec<Struct>,
    /// Names older releases gave the message.
    pub old_names: Vec<String>,
}

type Walked = BTreeMap<String, Vec<(String, FieldAt)>>;

/// The fields of every struct of `schema` that exist at `version`, in order.
fn walk(schema: &Schema, top: &str, version: i16) -> Result<Walked, String> {
    let mut out = Walked::new();
    walk_struct(schema, top, &schema.fields, version, &mut out)?;
    Ok(out)
}

fn walk_struct(
    schema: &Schema,
    name: &str,
    fields: &[Value],
    v: i16,
    out: &mut Walked,
) -> Result<(), String> {
    let mut list = Vec::new();
    for f in fields {
        let s = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_owned);
        let fname = s("name").ok_or_else(|| format!("{name}: field without name"))?;
        let versions = parse_range(
            &s("versions").ok_or_else(|| format!("{name}.{fname}: no versions"))?,
            OPEN_END,
        )?;
        if !versions.contains(&v) {
            continue;
        }
        let in_range = |k: &str| -> Result<bool, String> {
            Ok(match s(k) {
                Some(r) => parse_range(&r, OPEN_END)?.contains(&v),
                None => false,
            })
        };
        let ty = Ty::parse(&s("type").ok_or_else(|| format!("{name}.{fname}: no type"))?);
        let default = f.get("default").map(|d| match d {
            Value::String(x) => x.clone(),
            other => other.to_string(),
        });
        let at = FieldAt {
            nullable: in_range("nullableVersions")?,
            tagged: in_range("taggedVersions")?,
            // Some older schemas write the tag as a string.
            tag: f
                .get("tag")
                .and_then(|t| t.as_u64().or_else(|| t.as_str()?.parse().ok()))
                .map(|t| t as u32),
            default,
            ignorable: f.get("ignorable").and_then(Value::as_bool).unwrap_or(false),
            flexible: s("flexibleVersions"),
            entity: s("entityType"),
            map_key: f.get("mapKey").and_then(Value::as_bool).unwrap_or(false),
            ty: ty.clone(),
        };
        let elem = match &ty {
            Ty::Array(e) => e.as_ref(),
            other => other,
        };
        if let Ty::Struct(sname) = elem {
            let inner = match f.get("fields").and_then(Value::as_array) {
                Some(inline) => inline.clone(),
                None => schema
                    .common
                    .get(sname)
                    .cloned()
                    .ok_or_else(|| format!("{name}.{fname}: unknown struct {sname}"))?,
            };
            walk_struct(schema, sname, &inner, v, out)?;
        }
        list.push((fname, at));
    }
    let slot = out.entry(name.to_owned()).or_default();
    if !slot.is_empty() && *slot != list {
        return Err(format!(
            "struct {name} is defined twice, differently, at version {v}"
        ));
    }
    *slot = list;
    Ok(())
}

/// Merges `schemas` (oldest release first); `None` when no stable version is left.
pub fn merge(
    name: &str,
    schemas: &[(String, Schema)],
    unstable: &BTreeSet<(String, i16, i16)>,
) -> Result<Option<Message>, Vec<String>> {
    let stable = |release: &str, s: &Schema| -> Versions {
        let key = s.api_key.unwrap_or(-1);
        s.valid
            .iter()
            .copied()
            .filter(|v| !unstable.contains(&(release.to_owned(), key, *v)))
            .collect()
    };
    // Each version from the newest release that defines it.
    let mut source: BTreeMap<i16, usize> = BTreeMap::new();
    for (i, (release, s)) in schemas.iter().enumerate() {
        for v in stable(release, s) {
            source.insert(v, i);
        }
    }
    if source.is_empty() {
        return Ok(None);
    }
    let first = &schemas[0].1;
    let mut errors = Vec::new();
    for (_, s) in schemas {
        if s.kind != first.kind || s.api_key != first.api_key {
            errors.push(format!("{name}: releases disagree on type or api key"));
        }
    }
    let versions: Versions = source.keys().copied().collect();
    let flexible: Versions = source
        .iter()
        .filter(|(v, i)| schemas[**i].1.flexible.contains(v))
        .map(|(v, _)| *v)
        .collect();

    // Per version, walk the chosen release; also walk every other release defining the version,
    // to find disagreements.
    let mut per_version: BTreeMap<i16, Walked> = BTreeMap::new();
    for (&v, &i) in &source {
        let chosen = match walk(&schemas[i].1, name, v) {
            Ok(w) => w,
            Err(e) => {
                errors.push(format!("{name} v{v}: {e}"));
                continue;
            }
        };
        for (j, (release, s)) in schemas.iter().enumerate() {
            if j == i || !stable(release, s).contains(&v) {
                continue;
            }
            match walk(s, name, v) {
                Ok(other) if other != chosen => {
                    for diff in differences(&chosen, &other) {
                        if !crate::RESOLVED
                            .iter()
                            .any(|(m, p, _)| *m == name && diff.starts_with(p))
                        {
                            errors.push(format!(
                                "{name} v{v}: {} and {release} disagree: {diff}",
                                schemas[i].0
                            ));
                        }
                    }
                }
                Ok(_) => {}
                Err(e) => errors.push(format!("{name} v{v} ({release}): {e}")),
            }
        }
        per_version.insert(v, chosen);
    }

    // Struct order: the top level first, then by first appearance, newest version first.
    let mut struct_names: Vec<String> = vec![name.to_owned()];
    let mut structs = Vec::new();
    let mut i = 0;
    while i < struct_names.len() {
        let sname = struct_names[i].clone();
        i += 1;
        match merge_struct(name, &sname, &per_version) {
            Ok(s) => {
                for f in &s.fields {
                    let elem = match &f.ty {
                        Ty::Array(e) => e.as_ref(),
                        t => t,
                    };
                    if let Ty::Struct(n) = elem {
                        if !struct_names.contains(n) {
                            struct_names.push(n.clone());
                        }
                    }
                }
                structs.push(s);
            }
            Err(mut e) => errors.append(&mut e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut sources: Vec<(String, Versions)> = Vec::new();
    for (v, i) in source {
        let release = &schemas[i].0;
        match sources.last_mut() {
            Some((r, set)) if r == release => {
                set.insert(v);
            }
            _ => sources.push((release.clone(), [v].into())),
        }
    }
    Ok(Some(Message {
        name: name.to_owned(),
        kind: first.kind.clone(),
        api_key: first.api_key,
        versions,
        flexible,
        sources,
        structs,
        old_names: schemas
            .iter()
            .map(|(_, s)| s.name.clone())
            .filter(|n| n != name)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
    }))
}

impl FieldAt {
    /// The facts that decide the bytes; names and documentation-only facts left out.
    fn wire(
        &self,
    ) -> (
        &Ty,
        bool,
        bool,
        Option<u32>,
        &Option<String>,
        &Option<String>,
    ) {
        (
            &self.ty,
            self.nullable,
            self.tagged,
            self.tag,
            &self.default,
            &self.flexible,
        )
    }
}

/// Where two releases define the same version with different bytes. Renamed fields and
/// differences in `ignorable`, entity types and map keys do not change the bytes; the newest
/// release's names and facts are used.
fn differences(a: &Walked, b: &Walked) -> Vec<String> {
    let mut out = Vec::new();
    let names: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for s in names {
        let (fa, fb) = (a.get(s), b.get(s));
        match (fa, fb) {
            (Some(fa), Some(fb)) => {
                if fa.len() != fb.len() {
                    let na: Vec<&String> = fa.iter().map(|(n, _)| n).collect();
                    let nb: Vec<&String> = fb.iter().map(|(n, _)| n).collect();
                    out.push(format!("{s}: fields {na:?} vs {nb:?}"));
                    continue;
                }
                for ((n, x), (_, y)) in fa.iter().zip(fb) {
                    if x.wire() != y.wire() {
                        out.push(format!("{s}.{n}: {x:?} vs {y:?}"));
                    }
                }
            }
            _ => out.push(format!("{s}: struct present in only one release")),
        }
    }
    out
}

/// Merges one struct over all versions: field order consistent with every version, and for
/// each field the sets of versions where it exists, is nullable and is tagged.
fn merge_struct(
    message: &str,
    sname: &str,
    per_version: &BTreeMap<i16, Walked>,
) -> Result<Struct, Vec<String>> {
    let mut errors = Vec::new();
    let mut order: Vec<String> = Vec::new();
    let mut facts: BTreeMap<String, Vec<(i16, FieldAt)>> = BTreeMap::new();
    for (&v, walked) in per_version.iter().rev() {
        let Some(list) = walked.get(sname) else {
            continue;
        };
        let mut prev: Option<usize> = None;
        for (fname, at) in list {
            let pos = match order.iter().position(|n| n == fname) {
                Some(p) => p,
                None => {
                    let p = prev.map_or(0, |p| p + 1);
                    order.insert(p, fname.clone());
                    p
                }
            };
            if prev.is_some_and(|p| pos <= p) {
                errors.push(format!(
                    "{message}.{sname} v{v}: field {fname} out of order across versions"
                ));
            }
            prev = Some(pos);
            facts
                .entry(fname.clone())
                .or_default()
                .push((v, at.clone()));
        }
    }
    let mut fields = Vec::new();
    for fname in order {
        let per = &facts[&fname];
        let (_, first) = &per[0];
        for (v, at) in per {
            // Nullability and taggedness vary by version by design; the rest may not.
            let same = at.ty == first.ty
                && at.tag == first.tag
                && at.default == first.default
                && at.flexible == first.flexible;
            if !same {
                errors.push(format!(
                    "{message}.{sname}.{fname}: v{v} differs from the newest: {at:?} vs {first:?}"
                ));
            }
        }
        let set = |pred: &dyn Fn(&FieldAt) -> bool| -> Versions {
            per.iter()
                .filter(|(_, a)| pred(a))
                .map(|(v, _)| *v)
                .collect()
        };
        fields.push(Field {
            name: fname.clone(),
            ty: first.ty.clone(),
            versions: set(&|_| true),
            nullable: set(&|a| a.nullable),
            tagged: set(&|a| a.tagged),
            tag: first.tag,
            default: first.default.clone(),
            ignorable: first.ignorable,
            flexible: match &first.flexible {
                Some(r) => match parse_range(r, OPEN_END) {
                    Ok(set) => Some(set),
                    Err(e) => {
                        errors.push(e);
                        None
                    }
                },
                None => None,
            },
            entity: first.entity.clone(),
            map_key: first.map_key,
        });
    }
    if errors.is_empty() {
        Ok(Struct {
            name: sname.to_owned(),
            fields,
        })
    } else {
        Err(errors)
    }
}
