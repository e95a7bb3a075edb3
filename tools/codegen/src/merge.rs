//! Merging one schema across releases: each version from the newest release that speaks it,
//! the releases' bytes checked to agree, each field's versions gathered into ranges.

use crate::check;
use crate::compat;
use crate::error::Error;
use crate::model::{Message, Struct};
use crate::schema::{DefaultValue, Field, Schema, SchemaSet, Ty, VersionRange};
use std::collections::{BTreeMap, BTreeSet};

/// What one version of one release says about a field. Everything but `ignorable`,
/// `entity` and `map_key` shapes the bytes on the wire.
#[derive(Clone, Debug, PartialEq)]
struct FieldAt {
    ty: Ty,
    nullable: bool,
    tagged: bool,
    tag: Option<u32>,
    default: Option<DefaultValue>,
    ignorable: bool,
    flexible: Option<VersionRange>,
    entity: Option<String>,
    map_key: bool,
}

type Walked = BTreeMap<String, Vec<(String, FieldAt)>>;

/// The key of the message's own struct among the walked ones: no struct of a schema has an
/// empty name, while one may have the message's (Kafka's classes call the message `…Data`).
const TOP: &str = "";

/// The fields of every struct of `schema` that exist at `version`, in order; the message's own
/// under [`TOP`].
fn walk(schema: &Schema, version: i16) -> Result<Walked, String> {
    let mut out = Walked::new();
    walk_struct(schema, TOP, &schema.fields, version, &mut out)?;
    Ok(out)
}

/// A struct's name for messages: the message's for [`TOP`].
fn shown<'a>(schema: &'a Schema, key: &'a str) -> &'a str {
    if key == TOP {
        &schema.name
    } else {
        key
    }
}

fn walk_struct(
    schema: &Schema,
    name: &str,
    fields: &[Field],
    v: i16,
    out: &mut Walked,
) -> Result<(), String> {
    let mut list = Vec::new();
    for f in fields.iter().filter(|f| f.versions.contains(v)) {
        let at = FieldAt {
            ty: f.ty.clone(),
            nullable: f.nullable.contains(v),
            tagged: f.tagged.contains(v),
            tag: f.tag,
            default: f.default.clone(),
            ignorable: f.ignorable,
            flexible: f.flexible,
            entity: f.entity_type.clone(),
            map_key: f.map_key,
        };
        if let Some(sname) = f.ty.struct_name() {
            let inner = schema.struct_fields(f).ok_or_else(|| {
                let owner = shown(schema, name);
                format!("{owner}.{}: unknown struct {sname}", f.name)
            })?;
            walk_struct(schema, sname, inner, v, out)?;
        }
        list.push((f.name.clone(), at));
    }
    let slot = out.entry(name.to_owned()).or_default();
    if !slot.is_empty() && *slot != list {
        return Err(format!(
            "struct {} is defined twice, differently, at version {v}",
            shown(schema, name)
        ));
    }
    *slot = list;
    Ok(())
}

/// `(release, api key, version)` for each version a schema marks `latestVersionUnstable`; it is
/// left out of the request and of its response in that release.
pub fn unstable_versions(
    by_name: &BTreeMap<String, Vec<(String, Schema)>>,
) -> BTreeSet<(String, i16, i16)> {
    let mut out = BTreeSet::new();
    for schemas in by_name.values() {
        for (release, s) in schemas {
            if let (true, Some(key), Some(end)) = (s.latest_unstable, s.api_key, s.valid.end()) {
                out.insert((release.clone(), key, end));
            }
        }
    }
    out
}

/// Merges `schemas` (oldest release first); `None` when no stable version is left.
pub fn merge(
    name: &str,
    schemas: &[(String, Schema)],
    unstable: &BTreeSet<(String, i16, i16)>,
) -> Result<Option<Message>, Vec<String>> {
    let stable = |release: &str, s: &Schema| -> BTreeSet<i16> {
        let key = s.api_key.unwrap_or(-1);
        s.valid
            .iter()
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
    let versions = VersionRange::spanning(source.keys().copied());
    let flexible = VersionRange::spanning(
        source
            .iter()
            .filter(|(v, i)| schemas[**i].1.flexible.contains(**v))
            .map(|(v, _)| *v),
    );
    let (versions, flexible) = match (versions, flexible) {
        (Ok(versions), Ok(flexible)) => (versions, flexible),
        (Err(e), _) | (_, Err(e)) => return Err(vec![format!("{name}: {e}")]),
    };
    let last = versions.end().unwrap_or(0);

    // Per version, walk the chosen release; also walk every other release defining the version,
    // to find disagreements.
    let mut per_version: BTreeMap<i16, Walked> = BTreeMap::new();
    for (&v, &i) in &source {
        let chosen = match walk(&schemas[i].1, v) {
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
            // The bytes of a version both releases speak must agree: the generator stops on
            // any change `compat` calls breaking (renames and skipped tags keep the bytes).
            for finding in compat::compare_version(s, &schemas[i].1, v) {
                if finding.severity() == compat::Severity::Breaking {
                    errors.push(format!(
                        "{name} v{v}: {} and {release} disagree: {} {}",
                        schemas[i].0, finding.path, finding.change
                    ));
                }
            }
            if let Err(e) = walk(s, v) {
                errors.push(format!("{name} v{v} ({release}): {e}"));
            }
        }
        per_version.insert(v, chosen);
    }

    // Every tag each struct uses in any version of any release, the unstable ones included:
    // a struct that loses a tagged field with its unstable version reserves the field's tag.
    let mut all_tags: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for (_, s) in schemas {
        for v in s.valid.iter() {
            // A version that does not walk has been reported above, if it is spoken.
            let Ok(walked) = walk(s, v) else {
                continue;
            };
            for (sname, fields) in walked {
                let tags = fields.iter().filter_map(|(_, at)| at.tag);
                all_tags.entry(sname).or_default().extend(tags);
            }
        }
    }

    // Struct order: the top level first, then by first appearance, newest version first.
    let mut struct_names: Vec<String> = vec![TOP.to_owned()];
    let mut structs = Vec::new();
    let mut i = 0;
    while i < struct_names.len() {
        let sname = struct_names[i].clone();
        i += 1;
        match merge_struct(name, &sname, &per_version, last, all_tags.get(&sname)) {
            Ok(s) => {
                for f in &s.fields {
                    if let Some(n) = f.ty.struct_name() {
                        if !struct_names.iter().any(|s| s == n) {
                            struct_names.push(n.to_owned());
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
    // Runs of versions from one release.
    let mut sources: Vec<(String, VersionRange)> = Vec::new();
    for (v, i) in source {
        let release = &schemas[i].0;
        match sources.last_mut() {
            Some((r, run))
                if r == release && run.end().and_then(|e| e.checked_add(1)) == Some(v) =>
            {
                *run = VersionRange::new(run.start().unwrap_or(v), v);
            }
            _ => sources.push((release.clone(), VersionRange::new(v, v))),
        }
    }
    Ok(Some(Message {
        name: name.to_owned(),
        kind: first.kind,
        api_key: first.api_key,
        versions,
        flexible: flexible.opened_at(last),
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

/// Merges one struct over all versions: field order consistent with every version, and for
/// each field the ranges where it exists, is nullable and is tagged, open when they reach
/// `last`, the message's newest version, as the schemas write them. A tagged field's ranges are
/// also open when they reach the newest version that has the struct: Kafka's tagged ranges are
/// open-ended, in a struct that ends before its message too. `tags` are the tags the struct
/// uses in any version, those left out of the model included.
fn merge_struct(
    message: &str,
    sname: &str,
    per_version: &BTreeMap<i16, Walked>,
    last: i16,
    tags: Option<&BTreeSet<u32>>,
) -> Result<Struct, Vec<String>> {
    let struct_last = per_version
        .iter()
        .rev()
        .find(|(_, walked)| walked.contains_key(sname))
        .map_or(last, |(v, _)| *v);
    // Where problems are reported: the message's own struct by the message's name.
    let path = if sname == TOP {
        format!("{message}.{message}")
    } else {
        format!("{message}.{sname}")
    };
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
                    "{path} v{v}: field {fname} out of order across versions"
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
                    "{path}.{fname}: v{v} differs from the newest: {at:?} vs {first:?}"
                ));
            }
        }
        // `per` runs from the newest version down.
        let open_at = if per.iter().any(|(_, a)| a.tagged) {
            struct_last
        } else {
            last
        };
        let range = |pred: &dyn Fn(&FieldAt) -> bool| {
            let versions = per.iter().rev().filter(|(_, a)| pred(a)).map(|(v, _)| *v);
            VersionRange::spanning(versions)
                .map(|r| r.opened_at(open_at))
                .map_err(|e| format!("{path}.{fname}: {e}"))
        };
        let (versions, nullable, tagged) = match (
            range(&|_| true),
            range(&|a| a.nullable),
            range(&|a| a.tagged),
        ) {
            (Ok(v), Ok(n), Ok(t)) => (v, n, t),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
                errors.push(e);
                continue;
            }
        };
        fields.push(Field {
            name: fname.clone(),
            ty: first.ty.clone(),
            versions,
            nullable,
            tagged,
            // A tag whose tagged versions are all left out (they start after the newest
            // version, or are unstable) tags nothing here: the field is a regular one, and the
            // tag is reserved.
            tag: first.tag.filter(|_| !tagged.is_empty()),
            default: first.default.clone(),
            ignorable: first.ignorable,
            flexible: first.flexible,
            entity_type: first.entity.clone(),
            map_key: first.map_key,
            fields: Vec::new(),
        });
    }
    // Tags below the highest one kept that only versions left out use: without them the kept
    // tags would have a gap.
    let kept: BTreeSet<u32> = fields.iter().filter_map(|f| f.tag).collect();
    let reserved_tags = match kept.last() {
        Some(&highest) => tags
            .into_iter()
            .flatten()
            .filter(|t| **t < highest && !kept.contains(t))
            .copied()
            .collect(),
        None => Vec::new(),
    };
    if errors.is_empty() {
        Ok(Struct {
            name: if sname == TOP { message } else { sname }.to_owned(),
            fields,
            reserved_tags,
        })
    } else {
        Err(errors)
    }
}

/// Merges releases (oldest first) into one model per message, sorted by identity, and checks
/// it.
pub fn merge_sets(sets: &[SchemaSet]) -> Result<Vec<Message>, Error> {
    // identity -> one schema per release that has it, oldest first.
    let mut by_id: BTreeMap<String, Vec<(String, Schema)>> = BTreeMap::new();
    for set in sets {
        for s in &set.schemas {
            by_id
                .entry(compat::identity(s))
                .or_default()
                .push((set.release.clone(), s.clone()));
        }
    }
    let unstable = unstable_versions(&by_id);
    let mut messages = Vec::new();
    let mut problems = Vec::new();
    for versions in by_id.values() {
        // The newest release names the message.
        let name = &versions[versions.len() - 1].1.name;
        match merge(name, versions, &unstable) {
            Ok(Some(m)) => messages.push(m),
            Ok(None) => {}
            Err(mut e) => problems.append(&mut e),
        }
    }
    problems.extend(check::messages(&messages));
    if problems.is_empty() {
        Ok(messages)
    } else {
        Err(Error { problems })
    }
}
