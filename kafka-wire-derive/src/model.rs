//! Validated IR: `Message` and `Field`, each keeping its syn node for spans.

use crate::attr::{self, DefaultLit};
use crate::ctxt::Ctxt;
use crate::versions::Spanned;
use kafka_wire_schema::VersionRange;
use proc_macro2::TokenStream;
use quote::quote;

/// What a field's Rust type is on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `i8` .. `i64`, `u16`, `u32`, with their inclusive bounds.
    Int {
        min: i128,
        max: i128,
    },
    Bool,
    Float,
    Uuid,
    /// `String` or `KafkaString`.
    Str,
    /// `Bytes` or `Records`.
    Bytes,
    /// `Vec<T>` or `IntArray<T>`.
    Array,
    /// Any other path: a struct deriving `KafkaMessage` or a type implementing `Codec`.
    Struct,
}

impl Kind {
    /// Whether the wire format can carry a null of this kind.
    pub fn can_be_null(self) -> bool {
        matches!(self, Kind::Str | Kind::Bytes | Kind::Array | Kind::Struct)
    }
}

/// The view type of a struct: the name `view` gives, or the struct's name and `View`.
pub fn view_ident(input: &syn::DeriveInput, container: &attr::Container) -> syn::Ident {
    match container.view.get() {
        Some(ident) => ident.clone(),
        None => quote::format_ident!("{}View", input.ident, span = input.ident.span()),
    }
}

/// `<path>::__private` for the crate path the user gave, `::kafka_wire` by default.
pub fn private_path(krate: Option<&syn::Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path::__private),
        None => quote!(::kafka_wire::__private),
    }
}

/// Integer types by name.
const INTS: &[(&str, i128, i128)] = &[
    ("i8", i8::MIN as i128, i8::MAX as i128),
    ("i16", i16::MIN as i128, i16::MAX as i128),
    ("u16", 0, u16::MAX as i128),
    ("i32", i32::MIN as i128, i32::MAX as i128),
    ("u32", 0, u32::MAX as i128),
    ("i64", i64::MIN as i128, i64::MAX as i128),
];

/// Types that look like numbers or collections but have no Kafka encoding.
const UNSUPPORTED: &[&str] = &[
    "u8", "u64", "u128", "i128", "usize", "isize", "f32", "char", "str", "HashMap", "BTreeMap",
    "HashSet", "BTreeSet", "VecDeque", "Box", "Rc", "Arc", "Cow",
];

const SUPPORTED: &str =
    "expected `bool`, `i8`, `i16`, `u16`, `i32`, `u32`, `i64`, `f64`, `String`, \
`KafkaString`, `Bytes`, `Records`, `Uuid`, `Vec<T>`, `IntArray<T>`, `Option<T>` or a struct";

/// A field type: its kind, and the type inside `Option` if any.
pub struct FieldType<'a> {
    pub kind: Kind,
    pub option: bool,
    /// The type the codec is called on: `T` for `Option<T>`, the field type otherwise.
    pub inner: &'a syn::Type,
}

fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        syn::Type::Group(g) => last_segment(&g.elem),
        _ => None,
    }
}

/// Whether `ty` is a path from `self`, `super` or `crate`. Such a path names a type of the
/// user's own, whatever its last name: a struct called `Box`, `Option` or `String` (Kafka's
/// schemas allow any capitalised name) is written `self::Box`, and is not taken for Rust's or
/// kafka-wire's type of that name.
fn is_local_path(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.leading_colon.is_none()
                && p.path
                    .segments
                    .first()
                    .is_some_and(|s| s.ident == "self" || s.ident == "super" || s.ident == "crate")
        }
        syn::Type::Group(g) => is_local_path(&g.elem),
        _ => false,
    }
}

/// The last segment of a path that may name one of the types the derive knows by name (`Vec`,
/// `Option`, `String`, ...): `None` for a local path (see [`is_local_path`]).
fn known_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    if is_local_path(ty) {
        None
    } else {
        last_segment(ty)
    }
}

/// The single type argument of `Vec<T>` / `Option<T>`.
fn only_type_arg(seg: &syn::PathSegment) -> Option<&syn::Type> {
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first()
        {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn unsupported(ty: &syn::Type) -> syn::Error {
    syn::Error::new_spanned(
        ty,
        format!("unsupported field type `{}`; {SUPPORTED}", type_name(ty)),
    )
}

/// A type as the user would write it: `HashMap<String, String>`, `&'static str`.
pub fn type_name(ty: &syn::Type) -> String {
    let text = quote::quote!(#ty).to_string();
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        // Keep only the spaces that separate two words (`dyn Trait`, `'static str`) or follow
        // a comma.
        if c == ' '
            && !(out.ends_with(',') || (word(out.chars().last()) && word(chars.peek().copied())))
        {
            continue;
        }
        out.push(c);
    }
    out
}

/// The kind of a type that is not `Option`.
fn kind_of(ty: &syn::Type) -> syn::Result<Kind> {
    if is_local_path(ty) {
        return match last_segment(ty) {
            Some(seg) if seg.arguments.is_none() => Ok(Kind::Struct),
            _ => Err(unsupported(ty)),
        };
    }
    let Some(seg) = last_segment(ty) else {
        return Err(unsupported(ty));
    };
    let name = seg.ident.to_string();
    if let Some(&(_, min, max)) = INTS.iter().find(|(n, _, _)| *n == name) {
        return Ok(Kind::Int { min, max });
    }
    let kind = match name.as_str() {
        "bool" => Kind::Bool,
        "f64" => Kind::Float,
        "Uuid" => Kind::Uuid,
        "String" | "KafkaString" => Kind::Str,
        "Bytes" | "Records" => Kind::Bytes,
        "Vec" => {
            match only_type_arg(seg) {
                // Elements may be anything but `Option`: Kafka arrays hold no nulls.
                Some(elem) if known_segment(elem).is_some_and(|s| s.ident == "Option") => {
                    return Err(syn::Error::new_spanned(
                        elem,
                        "array elements cannot be null; use `Vec<T>`, or `Option<Vec<T>>` for a nullable array",
                    ))
                }
                // Kafka's `bytes` is not an array: it has no element count.
                Some(elem) if known_segment(elem).is_some_and(|s| s.ident == "u8") => {
                    return Err(syn::Error::new_spanned(
                        ty,
                        "unsupported field type `Vec<u8>`; use `Bytes` for Kafka `bytes`, or `Vec<i8>` for an array of `int8`",
                    ))
                }
                Some(elem) => {
                    kind_of(elem)?;
                }
                None => return Err(unsupported(ty)),
            }
            Kind::Array
        }
        "IntArray" => match only_type_arg(seg) {
            Some(elem) if matches!(kind_of(elem), Ok(Kind::Int { .. })) => Kind::Array,
            Some(elem) => {
                return Err(syn::Error::new_spanned(
                    elem,
                    "`IntArray` holds integers (`i8`, `i16`, `u16`, `i32`, `u32`, `i64`); use `Vec<T>` for other elements",
                ))
            }
            None => return Err(unsupported(ty)),
        },
        n if UNSUPPORTED.contains(&n) => return Err(unsupported(ty)),
        _ if !seg.arguments.is_none() => return Err(unsupported(ty)),
        _ => Kind::Struct,
    };
    Ok(kind)
}

impl<'a> FieldType<'a> {
    pub fn from_ast(ty: &'a syn::Type) -> syn::Result<Self> {
        if let Some(seg) = known_segment(ty).filter(|s| s.ident == "Option") {
            let inner = only_type_arg(seg).ok_or_else(|| unsupported(ty))?;
            if known_segment(inner).is_some_and(|s| s.ident == "Option") {
                return Err(unsupported(ty));
            }
            return Ok(FieldType {
                kind: kind_of(inner)?,
                option: true,
                inner,
            });
        }
        Ok(FieldType {
            kind: kind_of(ty)?,
            option: false,
            inner: ty,
        })
    }
}

/// A schema field.
pub struct Field<'a> {
    pub ast: &'a syn::Field,
    pub ident: &'a syn::Ident,
    pub ty: FieldType<'a>,
    pub versions: Spanned,
    pub nullable: Option<Spanned>,
    pub tag: Option<(u32, syn::LitInt)>,
    pub tagged: Option<Spanned>,
    pub default: Option<attr::DefaultValue>,
    pub ignorable: bool,
    pub flexible: Option<Spanned>,
    /// The name in the JSON form, when given; otherwise the field's name in camel case.
    pub json_name: Option<String>,
}

impl Field<'_> {
    /// The versions in which the field may be null.
    pub fn nullable_range(&self) -> VersionRange {
        self.nullable.as_ref().map_or(VersionRange::NONE, |n| {
            n.range.intersect(self.versions.range)
        })
    }

    pub fn tagged_range(&self) -> VersionRange {
        self.tagged.as_ref().map_or(VersionRange::NONE, |t| t.range)
    }

    pub fn is_tagged(&self) -> bool {
        self.tag.is_some()
    }

    /// The field's name as error paths show it: `type`, not `r#type`.
    pub fn name(&self) -> String {
        syn::ext::IdentExt::unraw(self.ident).to_string()
    }
}

/// The struct-level facts of a top-level message.
pub struct TopLevel {
    pub key: Option<(i16, syn::LitInt)>,
    pub versions: Spanned,
    pub flexible: Option<Spanned>,
    /// A struct-level value was rejected: the checks against these facts are skipped.
    pub poisoned: bool,
}

impl TopLevel {
    pub fn flexible_range(&self) -> VersionRange {
        self.flexible
            .as_ref()
            .map_or(VersionRange::NONE, |f| f.range)
    }
}

/// A struct deriving `KafkaMessage`.
pub struct Message<'a> {
    pub input: &'a syn::DeriveInput,
    /// `<crate>::__private`, the path generated code reaches the runtime by.
    pub private: TokenStream,
    pub top: Option<TopLevel>,
    pub fields: Vec<Field<'a>>,
    /// The `#[kafka(unknown_tagged_fields)]` field.
    pub unknown: Option<&'a syn::Ident>,
    /// Whether to write a `with_<field>` setter per field (`#[kafka(no_setters)]` turns them off).
    pub setters: bool,
    /// Every valid `tag`, also of fields left out of `fields` for an error of their own, so that
    /// the tag rules see them all.
    pub tags: Vec<(u32, &'a syn::Ident, syn::LitInt)>,
    /// `reserved_tags`: tags of fields in versions the struct leaves out, and the key's tokens.
    pub reserved_tags: Option<(Vec<u32>, syn::Path)>,
    /// The name of the view type: `view`, or the struct's name and `View`. Read only where
    /// views are written (the `views` feature).
    #[cfg_attr(not(feature = "views"), allow(dead_code))]
    pub view: syn::Ident,
}

impl<'a> Message<'a> {
    /// The range `__v` is known to lie in when the struct's code runs.
    pub fn universe(&self) -> VersionRange {
        self.top
            .as_ref()
            .map_or(VersionRange::ALL, |t| t.versions.range)
    }

    /// Whether some version of the struct may be flexible.
    pub fn may_be_flexible(&self) -> bool {
        self.top
            .as_ref()
            .is_none_or(|t| !t.flexible_range().intersect(t.versions.range).is_empty())
    }

    /// Builds the IR, recording every problem in `cx`; `None` when the input is not a struct
    /// with named fields.
    pub fn from_ast(
        cx: &Ctxt,
        input: &'a syn::DeriveInput,
        container: attr::Container,
        private: TokenStream,
    ) -> Option<Self> {
        let fields = match &input.data {
            syn::Data::Struct(syn::DataStruct {
                fields: syn::Fields::Named(named),
                ..
            }) => &named.named,
            syn::Data::Struct(s) => {
                let msg =
                    "`KafkaMessage` needs a struct with named fields; each field is a schema field";
                match &s.fields {
                    syn::Fields::Unit => cx.error_spanned_by(&input.ident, msg),
                    fields => cx.error_spanned_by(fields, msg),
                }
                return None;
            }
            syn::Data::Enum(e) => {
                cx.error_spanned_by(
                    e.enum_token,
                    "`KafkaMessage` can only be derived for structs, not enums",
                );
                return None;
            }
            syn::Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "`KafkaMessage` can only be derived for structs, not unions",
                );
                return None;
            }
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "`KafkaMessage` does not support generic structs; write one struct per concrete type",
            );
        }
        let setters = container.no_setters.get().is_none();
        let reserved_tags = match (container.reserved_tags.get(), container.reserved_tags.key()) {
            (Some(tags), Some(key)) => Some((tags.clone(), key.clone())),
            _ => None,
        };
        let view = view_ident(input, &container);
        let top = top_level(cx, container);
        let mut out = Message {
            input,
            private,
            top,
            fields: Vec::new(),
            unknown: None,
            setters,
            tags: Vec::new(),
            reserved_tags,
            view,
        };
        for field in fields {
            let raw = attr::Field::from_ast(cx, field);
            // Named fields always have an ident.
            let Some(ident) = field.ident.as_ref() else {
                continue;
            };
            if let Some(key) = raw.unknown_tagged_fields.key() {
                check_unknown_field(cx, field, &raw);
                if out.unknown.is_some() {
                    cx.error_spanned_by(key, "only one field may hold `unknown_tagged_fields`");
                }
                out.unknown = Some(ident);
                continue;
            }
            if let Some((tag, lit)) = raw.tag.get() {
                out.tags.push((*tag, ident, lit.clone()));
            }
            let ty = match FieldType::from_ast(&field.ty) {
                Ok(ty) => ty,
                Err(err) => {
                    cx.syn_error(err);
                    continue;
                }
            };
            // A misspelt key or a rejected value has been reported; checking the field further
            // would report its consequences (`version = "0+"` is not also a missing `versions`).
            if raw.is_poisoned() {
                continue;
            }
            let Some(versions) = raw.versions.get().cloned() else {
                let name = syn::ext::IdentExt::unraw(ident);
                cx.error_spanned_by(
                    ident,
                    format!("missing `versions` on field `{name}`; add e.g. `#[kafka(versions = \"0+\")]`"),
                );
                continue;
            };
            out.fields.push(Field {
                ast: field,
                ident,
                versions,
                nullable: raw.nullable.get().cloned(),
                tag: raw.tag.get().cloned(),
                tagged: raw.tagged.get().cloned(),
                default: resolve_default(cx, raw.default.get().cloned(), &ty),
                ignorable: raw.ignorable.get().is_some(),
                flexible: raw.flexible.get().cloned(),
                json_name: raw.json_name.get().map(syn::LitStr::value),
                ty,
            });
        }
        Some(out)
    }
}

fn top_level(cx: &Ctxt, c: attr::Container) -> Option<TopLevel> {
    let key = c.key.get().cloned();
    let flexible = c.flexible.get().cloned();
    let poisoned = c.is_poisoned();
    match (c.versions.get().cloned(), c.versions.key()) {
        (Some(versions), _) => Some(TopLevel {
            key,
            versions,
            flexible,
            poisoned,
        }),
        // `versions` was given but rejected: still a message (its fallback impls include
        // `Message`), with no facts to check against.
        (None, Some(k)) => Some(TopLevel {
            key,
            versions: Spanned {
                range: VersionRange::ALL,
                lit: syn::LitStr::new("0+", syn::spanned::Spanned::span(k)),
            },
            flexible,
            poisoned: true,
        }),
        (None, None) => {
            // A struct without `versions` is nested: it takes both from its message.
            if let Some(k) = c.key.key() {
                cx.error_spanned_by(
                    k,
                    "`key` needs `versions` on the struct, e.g. `versions = \"0-2\"`",
                );
            }
            if let Some(k) = c.flexible.key() {
                cx.error_spanned_by(
                    k,
                    "`flexible` needs `versions` on the struct; a nested struct takes both from its message",
                );
            }
            None
        }
    }
}

/// `#[kafka(unknown_tagged_fields)]` stands alone, on a field of type `UnknownTaggedFields`.
fn check_unknown_field(cx: &Ctxt, field: &syn::Field, raw: &attr::Field) {
    for key in raw.schema_keys() {
        cx.error_spanned_by(
            key,
            "`unknown_tagged_fields` cannot be combined with other kafka attributes",
        );
    }
    if !last_segment(&field.ty)
        .is_some_and(|s| s.ident == "UnknownTaggedFields" && s.arguments.is_none())
    {
        cx.error_spanned_by(
            &field.ty,
            "the `unknown_tagged_fields` field must have type `kafka_wire::UnknownTaggedFields`",
        );
    }
}

impl DefaultLit {
    pub fn describe(&self) -> &'static str {
        match self {
            DefaultLit::Int(_) => "an integer",
            DefaultLit::Float(_) => "a float",
            DefaultLit::Bool(_) => "a bool",
            DefaultLit::Str(_) => "a string",
            DefaultLit::Null => "`null`",
            DefaultLit::Uuid(_) => "a uuid",
        }
    }
}

/// A default read for the field's type, as Kafka's schemas read it: `""` on bytes, records, an
/// array, a struct or a uuid is that type's empty value, the same as no default; a string on a
/// uuid is Kafka's text form of one. An invalid uuid is reported here.
fn resolve_default(
    cx: &Ctxt,
    default: Option<attr::DefaultValue>,
    ty: &FieldType,
) -> Option<attr::DefaultValue> {
    let mut d = default?;
    if let DefaultLit::Str(text) = &d.value {
        match ty.kind {
            Kind::Bytes | Kind::Array | Kind::Struct | Kind::Uuid if text.is_empty() => {
                return None
            }
            Kind::Uuid => match kafka_wire_schema::rules::uuid_from_text(text) {
                Some(v) => d.value = DefaultLit::Uuid(v),
                None => {
                    cx.error_spanned_by(
                        &d.tokens,
                        format!(
                            "invalid uuid default `{text}`: expected Kafka's text form of a uuid, \
                             22 characters of URL-safe base64 such as `AAAAAAAAAAAAAAAAAAAAAQ`"
                        ),
                    );
                    return None;
                }
            },
            _ => {}
        }
    }
    Some(d)
}
