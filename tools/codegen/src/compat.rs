//! Wire compatibility: what changed between two releases of a schema in the versions both
//! define, and which versions went away.
//!
//! A version is a promise about bytes: a release that changes the bytes of a version another
//! release also speaks breaks whoever talks to the other release. The check walks both
//! schemas at every shared version, field by field in wire order, and reports each change
//! that alters the bytes (a field added, removed, moved or retyped, a tag changed, nullability
//! narrowed or widened, flexibility changed), each version removed, and the changes that keep
//! the bytes (renamed fields, structs and messages; tagged fields added or removed, which
//! readers skip).

use crate::schema::{Field, Kind, Schema, Ty, VersionRange};
use std::collections::BTreeMap;
use std::fmt;

/// How much a finding matters to a peer that speaks the other release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The bytes of a shared version differ: the two releases cannot talk in it.
    Breaking,
    /// Versions, or a whole message, that the newer release no longer speaks.
    Removal,
    /// A change the bytes do not show.
    Note,
}

/// What changed.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    /// A field exists in the new release's version and not in the old one's.
    FieldAdded { field: String },
    /// A field of the old release's version is gone from the new one's.
    FieldRemoved { field: String },
    /// A field sits at another place among the fields.
    FieldMoved { field: String },
    /// A field's type changed (struct names aside).
    FieldRetyped {
        field: String,
        old: String,
        new: String,
    },
    /// A field became tagged or untagged, or changed its tag.
    TagChanged {
        field: String,
        old: Option<u32>,
        new: Option<u32>,
    },
    /// A field may no longer be null.
    NullableNarrowed { field: String },
    /// A field may now be null.
    NullableWidened { field: String },
    /// The version became flexible, or stopped being flexible.
    FlexibleChanged { old: bool, new: bool },
    /// A string or bytes field's own flexibility changed.
    FieldFlexibleChanged { field: String, old: bool, new: bool },
    /// Versions of the old release that the new one does not define.
    VersionsRemoved { versions: VersionRange },
    /// A message of the old release that the new one does not have.
    MessageRemoved,
    /// The same API key under another name.
    MessageRenamed { old: String },
    /// A field under another name, with the same bytes.
    FieldRenamed { old: String, new: String },
    /// A struct under another name, with the same bytes.
    StructRenamed { old: String, new: String },
    /// A tagged field that old readers skip.
    TaggedFieldAdded { field: String, tag: u32 },
    /// A tagged field that new readers skip.
    TaggedFieldRemoved { field: String, tag: u32 },
}

impl Change {
    pub fn severity(&self) -> Severity {
        match self {
            Change::VersionsRemoved { .. } | Change::MessageRemoved => Severity::Removal,
            Change::MessageRenamed { .. }
            | Change::FieldRenamed { .. }
            | Change::StructRenamed { .. }
            | Change::TaggedFieldAdded { .. }
            | Change::TaggedFieldRemoved { .. } => Severity::Note,
            _ => Severity::Breaking,
        }
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::FieldAdded { field } => write!(f, "field `{field}` added"),
            Change::FieldRemoved { field } => write!(f, "field `{field}` removed"),
            Change::FieldMoved { field } => write!(f, "field `{field}` moved"),
            Change::FieldRetyped { field, old, new } => {
                write!(f, "field `{field}` retyped from `{old}` to `{new}`")
            }
            Change::TagChanged { field, old, new } => {
                let tag = |t: &Option<u32>| t.map_or("untagged".to_owned(), |t| format!("tag {t}"));
                write!(f, "field `{field}` {} -> {}", tag(old), tag(new))
            }
            Change::NullableNarrowed { field } => write!(f, "field `{field}` no longer nullable"),
            Change::NullableWidened { field } => write!(f, "field `{field}` now nullable"),
            Change::FlexibleChanged { new, .. } => f.write_str(if *new {
                "became flexible"
            } else {
                "no longer flexible"
            }),
            Change::FieldFlexibleChanged { field, new, .. } => write!(
                f,
                "field `{field}` {}",
                if *new {
                    "became flexible"
                } else {
                    "no longer flexible"
                }
            ),
            Change::VersionsRemoved { versions } => write!(f, "versions {versions} removed"),
            Change::MessageRemoved => f.write_str("message removed"),
            Change::MessageRenamed { old } => write!(f, "renamed from `{old}`"),
            Change::FieldRenamed { old, new } => {
                write!(f, "field `{old}` renamed `{new}` (same bytes)")
            }
            Change::StructRenamed { old, new } => {
                write!(f, "struct `{old}` renamed `{new}` (same bytes)")
            }
            Change::TaggedFieldAdded { field, tag } => {
                write!(
                    f,
                    "tagged field `{field}` (tag {tag}) added; old readers skip it"
                )
            }
            Change::TaggedFieldRemoved { field, tag } => {
                write!(
                    f,
                    "tagged field `{field}` (tag {tag}) removed; new readers skip it"
                )
            }
        }
    }
}

/// One change, where it is and in which versions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Finding {
    /// The message, by its name in the new release (the old one's when it was removed).
    pub message: String,
    /// The versions the change applies to; `none` for a change of the whole message.
    pub versions: VersionRange,
    /// The struct path of the change: `FetchRequest.Topics`.
    pub path: String,
    pub change: Change,
}

impl Finding {
    pub fn severity(&self) -> Severity {
        self.change.severity()
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let severity = match self.severity() {
            Severity::Breaking => "breaking",
            Severity::Removal => "removal",
            Severity::Note => "note",
        };
        write!(f, "{severity:<8} {}", self.message)?;
        let removal = matches!(self.change, Change::VersionsRemoved { .. });
        if !self.versions.is_empty() && !removal {
            write!(f, " v{}", self.versions)?;
        }
        if self.path != self.message {
            write!(f, " {}", self.path)?;
        }
        write!(f, ": {}", self.change)
    }
}

/// How schemas of two releases pair up: requests and responses by API key (an API keeps its
/// key when renamed), other schemas by name.
pub fn identity(s: &Schema) -> String {
    match (s.kind, s.api_key) {
        (Kind::Request | Kind::Response, Some(k)) => format!("{}:{k:03}", s.kind.as_str()),
        _ => s.name.clone(),
    }
}

/// The versions a release speaks of each schema of `set`: a request marks its last version
/// unstable, and the response of that API follows it.
fn stable_versions(set: &[Schema]) -> impl Fn(&Schema) -> VersionRange + '_ {
    move |s: &Schema| {
        let unstable_key = set
            .iter()
            .any(|r| r.latest_unstable && r.api_key.is_some() && r.api_key == s.api_key);
        if unstable_key && s.api_key.is_some() {
            Schema {
                latest_unstable: true,
                ..s.clone()
            }
            .stable()
        } else {
            s.stable()
        }
    }
}

/// Every finding between two sets of schemas, sorted.
pub fn compare_sets(old: &[Schema], new: &[Schema]) -> Vec<Finding> {
    let new_by_id: BTreeMap<String, &Schema> = new.iter().map(|s| (identity(s), s)).collect();
    let (old_stable, new_stable) = (stable_versions(old), stable_versions(new));
    let mut out = Vec::new();
    for o in old {
        match new_by_id.get(&identity(o)) {
            Some(n) => out.extend(compare_in(o, n, old_stable(o), new_stable(n))),
            None if !old_stable(o).is_empty() => out.push(Finding {
                message: o.name.clone(),
                versions: VersionRange::NONE,
                path: o.name.clone(),
                change: Change::MessageRemoved,
            }),
            None => {}
        }
    }
    out.sort();
    out
}

/// Every finding between two releases of one schema: consecutive versions with the same change
/// are one finding.
pub fn compare(old: &Schema, new: &Schema) -> Vec<Finding> {
    compare_in(old, new, old.stable(), new.stable())
}

/// [`compare`] over the versions each release speaks.
fn compare_in(old: &Schema, new: &Schema, was: VersionRange, is: VersionRange) -> Vec<Finding> {
    let mut out = Vec::new();
    let whole = |change| Finding {
        message: new.name.clone(),
        versions: VersionRange::NONE,
        path: new.name.clone(),
        change,
    };
    if old.name != new.name {
        out.push(whole(Change::MessageRenamed {
            old: old.name.clone(),
        }));
    }
    for versions in minus(was, is) {
        out.push(Finding {
            versions,
            ..whole(Change::VersionsRemoved { versions })
        });
    }
    let mut per_change: BTreeMap<(String, Change), Vec<i16>> = BTreeMap::new();
    // Both ranges are closed: a schema lists its valid versions.
    for v in was.intersect(is).iter() {
        for (path, change) in changes_at(old, new, v) {
            per_change.entry((path, change)).or_default().push(v);
        }
    }
    for ((path, change), versions) in per_change {
        for run in runs(versions) {
            out.push(Finding {
                message: new.name.clone(),
                versions: run,
                path: path.clone(),
                change: change.clone(),
            });
        }
    }
    out.sort();
    out
}

/// The findings at one version both releases define, for the generator's merge.
pub fn compare_version(old: &Schema, new: &Schema, v: i16) -> Vec<Finding> {
    changes_at(old, new, v)
        .into_iter()
        .map(|(path, change)| Finding {
            message: new.name.clone(),
            versions: VersionRange::new(v, v),
            path,
            change,
        })
        .collect()
}

/// The versions of `a` not in `b`, as runs of consecutive ones.
fn minus(a: VersionRange, b: VersionRange) -> Vec<VersionRange> {
    runs(a.iter().filter(|v| !b.contains(*v)))
}

/// Ascending versions as runs of consecutive ones.
fn runs(versions: impl IntoIterator<Item = i16>) -> Vec<VersionRange> {
    let mut out: Vec<VersionRange> = Vec::new();
    for v in versions {
        match out.last_mut() {
            Some(run) if run.end().and_then(|e| e.checked_add(1)) == Some(v) => {
                *run = VersionRange::new(run.start().unwrap_or(v), v);
            }
            _ => out.push(VersionRange::new(v, v)),
        }
    }
    out
}

/// The two sides of one comparison at one version.
struct At<'a> {
    old: &'a Schema,
    new: &'a Schema,
    v: i16,
    old_flexible: bool,
    new_flexible: bool,
    out: Vec<(String, Change)>,
}

fn changes_at(old: &Schema, new: &Schema, v: i16) -> Vec<(String, Change)> {
    let mut at = At {
        old,
        new,
        v,
        old_flexible: old.flexible.contains(v),
        new_flexible: new.flexible.contains(v),
        out: Vec::new(),
    };
    if at.old_flexible != at.new_flexible {
        at.out.push((
            new.name.clone(),
            Change::FlexibleChanged {
                old: at.old_flexible,
                new: at.new_flexible,
            },
        ));
    }
    at.fields(&new.name, &old.fields, &new.fields);
    at.out
}

impl At<'_> {
    /// Whether `f` sits in the tagged section at this version.
    fn tagged(&self, f: &Field, flexible: bool) -> bool {
        flexible && f.tagged.contains(self.v)
    }

    fn fields(&mut self, path: &str, old: &[Field], new: &[Field]) {
        let v = self.v;
        let present = |fs: &[Field]| -> Vec<Field> {
            fs.iter()
                .filter(|f| f.versions.contains(v))
                .cloned()
                .collect()
        };
        let (old, new) = (present(old), present(new));
        let (old_reg, old_tag): (Vec<&Field>, Vec<&Field>) =
            old.iter().partition(|f| !self.tagged(f, self.old_flexible));
        let (new_reg, new_tag): (Vec<&Field>, Vec<&Field>) =
            new.iter().partition(|f| !self.tagged(f, self.new_flexible));
        let tag_of = |f: &Field, tagged: &[&Field]| {
            tagged
                .iter()
                .any(|t| t.name == f.name)
                .then_some(f.tag)
                .flatten()
        };
        // A field that moved between the regular fields and the tagged section.
        for o in old.iter() {
            if let Some(n) = new.iter().find(|n| n.name == o.name) {
                let (ot, nt) = (tag_of(o, &old_tag), tag_of(n, &new_tag));
                if ot != nt {
                    self.push(
                        path,
                        Change::TagChanged {
                            field: n.name.clone(),
                            old: ot,
                            new: nt,
                        },
                    );
                }
            }
        }
        self.regular(path, &old_reg, &new_reg, &old_tag, &new_tag);
        self.tagged_section(path, &old_tag, &new_tag, &old, &new);
    }

    /// The regular fields, in wire order: paired by position when the lists have the same
    /// length and no name moved between them (a rename), else by name.
    fn regular(
        &mut self,
        path: &str,
        old: &[&Field],
        new: &[&Field],
        old_tag: &[&Field],
        new_tag: &[&Field],
    ) {
        let in_list = |name: &str, list: &[&Field]| list.iter().any(|f| f.name == name);
        let positional = old.len() == new.len()
            && old.iter().zip(new).all(|(o, n)| {
                o.name == n.name
                    || !(in_list(&o.name, new)
                        || in_list(&n.name, old)
                        || in_list(&o.name, new_tag)
                        || in_list(&n.name, old_tag))
            });
        if positional {
            for (o, n) in old.iter().zip(new) {
                self.pair(path, o, n);
            }
            return;
        }
        for o in old {
            if !in_list(&o.name, new) && !in_list(&o.name, new_tag) {
                self.push(
                    path,
                    Change::FieldRemoved {
                        field: o.name.clone(),
                    },
                );
            }
        }
        for n in new {
            if !in_list(&n.name, old) && !in_list(&n.name, old_tag) {
                self.push(
                    path,
                    Change::FieldAdded {
                        field: n.name.clone(),
                    },
                );
            }
        }
        let common_old: Vec<&str> = old
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| in_list(n, new))
            .collect();
        let common_new: Vec<&str> = new
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| in_list(n, old))
            .collect();
        for (o, n) in common_old.iter().zip(&common_new) {
            if o != n {
                self.push(
                    path,
                    Change::FieldMoved {
                        field: (*n).to_owned(),
                    },
                );
            }
        }
        for o in old {
            if let Some(n) = new.iter().find(|n| n.name == o.name) {
                self.pair(path, o, n);
            }
        }
    }

    /// Tagged fields, by tag: readers skip tags they do not know, so only a tag both know can
    /// break.
    fn tagged_section(
        &mut self,
        path: &str,
        old: &[&Field],
        new: &[&Field],
        old_all: &[Field],
        new_all: &[Field],
    ) {
        for o in old {
            let Some(tag) = o.tag else { continue };
            match new.iter().find(|n| n.tag == Some(tag)) {
                Some(n) => self.pair(path, o, n),
                None if !new_all.iter().any(|n| n.name == o.name) => {
                    self.push(
                        path,
                        Change::TaggedFieldRemoved {
                            field: o.name.clone(),
                            tag,
                        },
                    );
                }
                None => {}
            }
        }
        for n in new {
            let Some(tag) = n.tag else { continue };
            if !old.iter().any(|o| o.tag == Some(tag)) && !old_all.iter().any(|o| o.name == n.name)
            {
                self.push(
                    path,
                    Change::TaggedFieldAdded {
                        field: n.name.clone(),
                        tag,
                    },
                );
            }
        }
    }

    /// One field in both releases, maybe under another name.
    fn pair(&mut self, path: &str, o: &Field, n: &Field) {
        let v = self.v;
        let field = n.name.clone();
        if o.name != n.name {
            self.push(
                path,
                Change::FieldRenamed {
                    old: o.name.clone(),
                    new: field.clone(),
                },
            );
        }
        match (o.nullable.contains(v), n.nullable.contains(v)) {
            (true, false) => self.push(
                path,
                Change::NullableNarrowed {
                    field: field.clone(),
                },
            ),
            (false, true) => self.push(
                path,
                Change::NullableWidened {
                    field: field.clone(),
                },
            ),
            _ => {}
        }
        let flexible = |f: &Field, message: bool| f.flexible.map_or(message, |r| r.contains(v));
        let (of, nf) = (
            flexible(o, self.old_flexible),
            flexible(n, self.new_flexible),
        );
        // A change of the whole message's flexibility is reported once, for the message.
        if of != nf && (o.flexible.is_some() || n.flexible.is_some()) {
            self.push(
                path,
                Change::FieldFlexibleChanged {
                    field: field.clone(),
                    old: of,
                    new: nf,
                },
            );
        }
        self.types(path, &field, o, n, &o.ty, &n.ty);
    }

    /// Types compared with struct names aside: two structs are compared field by field.
    fn types(&mut self, path: &str, field: &str, o: &Field, n: &Field, ot: &Ty, nt: &Ty) {
        match (ot, nt) {
            (Ty::Array(a), Ty::Array(b)) => self.types(path, field, o, n, a, b),
            (Ty::Struct(a), Ty::Struct(b)) => {
                let inner = format!("{path}.{field}");
                if a != b {
                    self.push(
                        &inner,
                        Change::StructRenamed {
                            old: a.clone(),
                            new: b.clone(),
                        },
                    );
                }
                let (Some(of), Some(nf)) = (self.old.struct_fields(o), self.new.struct_fields(n))
                else {
                    return;
                };
                self.fields(&inner, of, nf);
            }
            (a, b) if a == b => {}
            _ => self.push(
                path,
                Change::FieldRetyped {
                    field: field.to_owned(),
                    old: o.ty.to_string(),
                    new: n.ty.to_string(),
                },
            ),
        }
    }

    fn push(&mut self, path: &str, change: Change) {
        self.out.push((path.to_owned(), change));
    }
}

/// The report of `findings` between releases `old` and `new`, as checked in.
pub fn report(old: &str, new: &str, findings: &[Finding]) -> String {
    let count = |s: Severity| findings.iter().filter(|f| f.severity() == s).count();
    let mut out = format!(
        "# Wire compatibility of Kafka's schemas, {old} -> {new}: {} breaking, {} removals, {} notes.\n\
         # Written by `kafka-wire-codegen compat`; do not edit.\n",
        count(Severity::Breaking),
        count(Severity::Removal),
        count(Severity::Note)
    );
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by(|a, b| (a.severity(), a).cmp(&(b.severity(), b)));
    for f in sorted {
        out.push_str(&f.to_string());
        out.push('\n');
    }
    out
}
