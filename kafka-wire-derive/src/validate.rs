//! Kafka schema rules, one `check_*` function per rule, run over the IR.

use crate::attr::DefaultLit;
use crate::ctxt::Ctxt;
use crate::model::{type_name, Field, Kind, Message, TopLevel};
use kafka_wire_schema::{rules, VersionRange};

pub fn check(cx: &Ctxt, msg: &Message) {
    // After a rejected struct-level value, checks against the struct's facts would only report
    // its consequences.
    let top = msg.top.as_ref().filter(|t| !t.poisoned);
    if let Some(top) = top {
        check_flexible_open(cx, top);
        check_flexible_within_versions(cx, top);
        check_keeps_unknown_tags(cx, msg, top);
    }
    for field in &msg.fields {
        if let Some(top) = top {
            check_field_overlaps_message(cx, field, top);
            check_tagged_within_flexible(cx, field, top);
        }
        check_tag_pairs(cx, field);
        check_tagged_open(cx, field);
        check_tagged_within_versions(cx, field);
        check_nullable_kind(cx, field);
        check_option_kind(cx, field);
        check_option_needs_nullable(cx, field);
        check_nullable_needs_option(cx, field);
        check_nullable_overlaps_versions(cx, field);
        check_default_fits(cx, field);
        check_null_default(cx, field);
        check_flexible_override(cx, field);
        if crate::expand::view::ENABLED {
            check_view_accessor_name(cx, field);
        }
    }
    check_unique_tags(cx, msg);
    check_reserved_tags(cx, msg);
    check_contiguous_tags(cx, msg);
}

/// Flexibility is a one-way step: once a message version is flexible, every later one is too, so
/// `flexible` is open-ended (`"1+"`) or `"none"`.
fn check_flexible_open(cx: &Ctxt, top: &TopLevel) {
    if let Some(f) = &top.flexible {
        if let (Some(start), false) = (f.range.start(), f.range.is_open()) {
            cx.syn_error(syn::Error::new(
                f.span(),
                format!("`flexible` versions must be open-ended, like `{start}+`, or `none`"),
            ));
        }
    }
}

/// A flexible range that starts after the last version is a typo: it would never apply.
fn check_flexible_within_versions(cx: &Ctxt, top: &TopLevel) {
    let Some(f) = top.flexible.as_ref().filter(|f| !f.range.is_empty()) else {
        return;
    };
    let msg = match (f.range.start(), top.versions.range.end()) {
        (_, None) => format!(
            "`flexible` versions `{}` never apply: the message `versions` are `none`",
            f.range
        ),
        (Some(start), Some(last)) if start > last => format!(
            "`flexible` versions `{}` start after the last valid version `{last}`",
            f.range
        ),
        _ => return,
    };
    cx.syn_error(syn::Error::new(f.span(), msg));
}

/// Unknown tagged fields must survive a round trip, so a message that has flexible versions
/// needs a place to keep them.
fn check_keeps_unknown_tags(cx: &Ctxt, msg: &Message, top: &TopLevel) {
    if msg.unknown.is_none() && msg.may_be_flexible() {
        if let Some(f) = &top.flexible {
            cx.syn_error(syn::Error::new(
                f.span(),
                "a message with flexible versions needs a field \
                 `#[kafka(unknown_tagged_fields)] unknown_tagged_fields: UnknownTaggedFields`",
            ));
        }
    }
}

/// A field's range may reach past the message's (newer schemas keep `0+` after dropping old
/// versions), but one that never meets it is a mistake.
fn check_field_overlaps_message(cx: &Ctxt, field: &Field, top: &TopLevel) {
    let v = top.versions.range;
    if !v.is_empty() && field.versions.range.intersect(v).is_empty() {
        cx.syn_error(syn::Error::new(
            field.versions.span(),
            format!(
                "field versions `{}` do not overlap the message versions `{v}`",
                field.versions.range
            ),
        ));
    }
}

/// A tag and the versions where it applies come together.
fn check_tag_pairs(cx: &Ctxt, field: &Field) {
    match (&field.tag, &field.tagged) {
        (Some((_, lit)), None) => {
            cx.error_spanned_by(lit, "`tag` needs `tagged` versions, e.g. `tagged = \"0+\"`")
        }
        (None, Some(t)) => cx.syn_error(syn::Error::new(
            t.span(),
            "`tagged` needs a `tag`, e.g. `tag = 0`",
        )),
        _ => {}
    }
}

/// Like flexibility, being tagged never stops in a later version.
fn check_tagged_open(cx: &Ctxt, field: &Field) {
    if let Some(t) = &field.tagged {
        if !t.range.is_open() {
            cx.syn_error(syn::Error::new(
                t.span(),
                format!(
                    "`tagged` versions must be open-ended, like `{}+`",
                    t.range.start().unwrap_or(0)
                ),
            ));
        }
    }
}

/// Tagged fields exist only in the tagged-field section of flexible versions.
fn check_tagged_within_flexible(cx: &Ctxt, field: &Field, top: &TopLevel) {
    let Some(t) = &field.tagged else { return };
    // A closed `flexible` range is reported by `check_flexible_open`; judge the field against
    // the open range it is meant to be rather than report it twice.
    let flexible = match top.flexible_range() {
        f if f.is_empty() => f,
        f => f.start().map_or(f, VersionRange::open),
    };
    if t.range.is_empty() || t.range.intersect(top.versions.range).within(flexible) {
        return;
    }
    let msg = if flexible.intersect(top.versions.range).is_empty() {
        "a tagged field needs flexible versions, and the message has none; \
         add e.g. `flexible = \"0+\"` to the struct's `#[kafka(...)]`"
            .to_string()
    } else {
        format!(
            "`tagged` versions `{}` are not within the flexible versions `{flexible}`",
            t.range
        )
    };
    cx.syn_error(syn::Error::new(t.span(), msg));
}

/// A field is tagged only in versions where it exists.
fn check_tagged_within_versions(cx: &Ctxt, field: &Field) {
    if let Some(t) = &field.tagged {
        if !t.range.within(field.versions.range) {
            cx.syn_error(syn::Error::new(
                t.span(),
                format!(
                    "`tagged` versions `{}` are not within the field versions `{}`",
                    t.range, field.versions.range
                ),
            ));
        }
    }
}

/// Only strings, bytes, records, arrays and structs have a null on the wire (Kafka's schema
/// rejects `nullableVersions` on an `int32`), so `nullable` on another type is a mistake.
fn check_nullable_kind(cx: &Ctxt, field: &Field) {
    if let Some(n) = &field.nullable {
        if !field.ty.kind.can_be_null() {
            cx.syn_error(syn::Error::new(
                n.span(),
                format!(
                    "`{}` cannot be null on the wire, so it cannot be `nullable`; only strings, bytes, records, arrays and structs can",
                    type_name(field.ty.inner)
                ),
            ));
        }
    }
}

/// The same for the Rust side: an `Option` of a type that has no null.
fn check_option_kind(cx: &Ctxt, field: &Field) {
    if field.ty.option && !field.ty.kind.can_be_null() {
        let inner = type_name(field.ty.inner);
        cx.error_spanned_by(
            &field.ast.ty,
            format!(
                "`{inner}` cannot be null on the wire; use `{inner}` instead of `Option<{inner}>`"
            ),
        );
    }
}

/// `Option<T>` is how a nullable field says so in Rust; without `nullable` the `None` could not
/// be written.
fn check_option_needs_nullable(cx: &Ctxt, field: &Field) {
    if field.ty.option && field.nullable.is_none() && field.ty.kind.can_be_null() {
        cx.error_spanned_by(
            &field.ast.ty,
            "`Option` field without `nullable` versions; add e.g. `nullable = \"0+\"` or drop the `Option`",
        );
    }
}

/// A nullable field must be able to hold the null it reads; the type is what to change, as
/// `nullable` copies the schema.
fn check_nullable_needs_option(cx: &Ctxt, field: &Field) {
    if field.nullable.is_some() && !field.ty.option && field.ty.kind.can_be_null() {
        let ty = &field.ast.ty;
        cx.error_spanned_by(
            ty,
            format!(
                "a `nullable` field needs an `Option` type to hold the null; use `Option<{}>`",
                type_name(ty)
            ),
        );
    }
}

/// Kafka lets `nullable` reach past `versions` (it is intersected), but a range that never
/// meets them is a mistake.
fn check_nullable_overlaps_versions(cx: &Ctxt, field: &Field) {
    if let Some(n) = &field.nullable {
        if !n.range.is_empty() && n.range.intersect(field.versions.range).is_empty() {
            cx.syn_error(syn::Error::new(
                n.span(),
                format!(
                    "`nullable` versions `{}` do not overlap the field versions `{}`",
                    n.range, field.versions.range
                ),
            ));
        }
    }
}

/// A default must be a value of the field's type: integers in range, a string for strings,
/// Kafka's text form for a uuid, and only `null` or `""` (the empty value) for bytes, arrays
/// and structs.
fn check_default_fits(cx: &Ctxt, field: &Field) {
    let Some(d) = &field.default else { return };
    let shown = type_name(field.ty.inner);
    let err = |msg: String| cx.error_spanned_by(&d.tokens, msg);
    match (&d.value, field.ty.kind) {
        (DefaultLit::Null, _) => {}
        (DefaultLit::Int(v), Kind::Int { min, max }) => {
            if *v < min || *v > max {
                err(format!(
                    "default `{v}` does not fit in `{shown}`, which holds {min} to {max}"
                ));
            }
        }
        (DefaultLit::Int(_) | DefaultLit::Float(_), Kind::Float) => {}
        (DefaultLit::Bool(_), Kind::Bool) => {}
        (DefaultLit::Str(_), Kind::Str) => {}
        (DefaultLit::Uuid(_), Kind::Uuid) => {}
        (value, _) => err(format!(
            "{} default does not fit field type `{shown}`",
            value.describe()
        )),
    }
}

/// `default = "null"` is the value of the field in versions where it is absent, so the field
/// must be nullable in all its versions, and be an `Option`.
fn check_null_default(cx: &Ctxt, field: &Field) {
    let Some(d) = &field.default else { return };
    if !matches!(d.value, DefaultLit::Null) {
        return;
    }
    let nullable = field
        .nullable
        .as_ref()
        .map_or(VersionRange::NONE, |n| n.range);
    if !field.ty.option || !rules::null_default_fits(field.versions.range, nullable) {
        cx.error_spanned_by(
            &d.tokens,
            format!(
                "default `null` needs the field to be `nullable` in all its versions `{}`",
                field.versions.range
            ),
        );
    }
}

/// Only strings and bytes may override the message's flexibility (the request header's client
/// id stays a classic string in flexible header versions).
fn check_flexible_override(cx: &Ctxt, field: &Field) {
    if let Some(f) = &field.flexible {
        if !matches!(field.ty.kind, Kind::Str | Kind::Bytes) {
            cx.syn_error(syn::Error::new(
                f.span(),
                "only string and bytes fields can override `flexible` versions",
            ));
        }
    }
}

/// A tag names one field per struct.
fn check_unique_tags(cx: &Ctxt, msg: &Message) {
    let mut seen: Vec<(u32, &syn::Ident)> = Vec::new();
    for (tag, ident, lit) in &msg.tags {
        if let Some((_, first)) = seen.iter().find(|(t, _)| t == tag) {
            cx.error_spanned_by(
                lit,
                format!("tag {tag} is already used by field `{}`", unraw(first)),
            );
        } else {
            seen.push((*tag, ident));
        }
    }
}

fn unraw(ident: &syn::Ident) -> String {
    syn::ext::IdentExt::unraw(ident).to_string()
}

/// A reserved tag belongs to a field the struct leaves out, so no field of it may use one, and
/// it is listed once.
fn check_reserved_tags(cx: &Ctxt, msg: &Message) {
    let Some((reserved, key)) = &msg.reserved_tags else {
        return;
    };
    for (i, tag) in reserved.iter().enumerate() {
        if reserved.get(..i).is_some_and(|before| before.contains(tag)) {
            cx.error_spanned_by(key, format!("tag {tag} is reserved twice"));
        }
        if let Some((_, ident, _)) = msg.tags.iter().find(|(t, _, _)| t == tag) {
            cx.error_spanned_by(
                key,
                format!("tag {tag} is reserved but used by field `{}`", unraw(ident)),
            );
        }
    }
}

/// Kafka numbers a struct's tags 0, 1, 2, ... without gaps. A struct made of some versions of a
/// schema (the generator leaves out a version still being designed) may miss tags that only
/// the versions left out use: `reserved_tags` names them, and they fill their places here.
fn check_contiguous_tags(cx: &Ctxt, msg: &Message) {
    let reserved = msg.reserved_tags.as_ref();
    let field_tags = msg.tags.iter().map(|(t, _, _)| *t);
    let reserved_tags = reserved.into_iter().flat_map(|(r, _)| r.iter().copied());
    let Some((expected, tag)) = rules::first_tag_gap(field_tags.chain(reserved_tags)) else {
        return;
    };
    let text = format!(
        "tags must be numbered from 0 without gaps; expected tag {expected} before tag {tag} \
         (tags that only versions left out of this struct use go in `reserved_tags`)"
    );
    // At the field with the tag after the gap, or else at `reserved_tags`, which holds it.
    match (msg.tags.iter().find(|(t, _, _)| *t == tag), reserved) {
        (Some((_, _, lit)), _) => cx.error_spanned_by(lit, text),
        (None, Some((_, key))) => cx.error_spanned_by(key, text),
        (None, None) => {}
    }
}

/// A field's view accessor is named as the field, beside the view's own `into_owned`.
fn check_view_accessor_name(cx: &Ctxt, field: &Field) {
    if field.ident == "into_owned" {
        cx.error_spanned_by(
            field.ident,
            "a field named `into_owned` would clash with the method of the same name on the \
             struct's view; rename the field",
        );
    }
}
