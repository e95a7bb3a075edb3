//! `#[kafka(...)]` -> typed raw attributes, one attribute at a time (no cross-checks yet).

use crate::ctxt::Ctxt;
use crate::versions::{self, Spanned};
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::meta::ParseNestedMeta;
use syn::{LitInt, Token};

/// A key's tokens and its value, so that a repeat is reported at the second key. A key whose
/// value was rejected keeps its tokens but no value: the key was given, and checks that would
/// read the value are skipped rather than reporting a consequence of the first error.
pub struct Slot<T> {
    name: &'static str,
    key: Option<syn::Path>,
    value: Option<T>,
}

impl<T> Slot<T> {
    fn new(name: &'static str) -> Self {
        Slot {
            name,
            key: None,
            value: None,
        }
    }

    fn set(&mut self, cx: &Ctxt, key: &syn::Path, value: syn::Result<T>) {
        if self.key.is_some() {
            cx.error_spanned_by(key, format!("duplicate kafka attribute `{}`", self.name));
            if let Err(err) = value {
                cx.syn_error(err);
            }
            return;
        }
        self.key = Some(key.clone());
        match value {
            Ok(v) => self.value = Some(v),
            Err(err) => cx.syn_error(err),
        }
    }

    pub fn get(&self) -> Option<&T> {
        self.value.as_ref()
    }

    pub fn key(&self) -> Option<&syn::Path> {
        self.key.as_ref()
    }

    /// Given, with a value that was rejected.
    pub fn is_invalid(&self) -> bool {
        self.key.is_some() && self.value.is_none()
    }
}

/// Runs `key` on every key of every `#[kafka(...)]` attribute in `attrs`; true when an
/// attribute could not be read to its end (its remaining keys are lost, so the caller treats
/// the container as poisoned).
fn each_key(
    cx: &Ctxt,
    attrs: &[syn::Attribute],
    mut key: impl FnMut(ParseNestedMeta) -> syn::Result<()>,
) -> bool {
    let mut failed = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("kafka")) {
        if let Err(err) = attr.parse_nested_meta(&mut key) {
            cx.syn_error(err);
            failed = true;
        }
    }
    failed
}

/// Struct-level keys.
pub struct Container {
    pub key: Slot<(i16, LitInt)>,
    pub versions: Slot<Spanned>,
    pub flexible: Slot<Spanned>,
    pub krate: Slot<syn::Path>,
    pub no_setters: Slot<()>,
    pub reserved_tags: Slot<Vec<u32>>,
    pub view: Slot<syn::Ident>,
    /// An unknown key was given, likely a misspelt known one.
    pub unknown: bool,
}

const CONTAINER_KEYS: &str =
    "`key`, `versions`, `flexible`, `crate`, `no_setters`, `reserved_tags`, `view`";
const FIELD_KEYS: &str = "`versions`, `nullable`, `tag`, `tagged`, `default`, `ignorable`, \
`flexible`, `json_name`, `unknown_tagged_fields`";

impl Container {
    pub fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut c = Container {
            key: Slot::new("key"),
            versions: Slot::new("versions"),
            flexible: Slot::new("flexible"),
            krate: Slot::new("crate"),
            no_setters: Slot::new("no_setters"),
            reserved_tags: Slot::new("reserved_tags"),
            view: Slot::new("view"),
            unknown: false,
        };
        let failed = each_key(cx, attrs, |meta| {
            // #[kafka(crate = "kw")]
            if meta.path.is_ident("crate") {
                let value = Value::parse(&meta)?;
                c.krate.set(cx, &meta.path, value.path("crate"));
            // #[kafka(key = 27)]
            } else if meta.path.is_ident("key") {
                let value = Value::parse(&meta)?;
                let key = value
                    .int("key", 0, i64::from(i16::MAX))
                    .map(|(k, lit)| (k as i16, lit));
                c.key.set(cx, &meta.path, key);
            // #[kafka(versions = "0-2")]
            } else if meta.path.is_ident("versions") {
                let value = Value::parse(&meta)?;
                c.versions.set(cx, &meta.path, value.range("versions"));
            // #[kafka(flexible = "1+")]
            } else if meta.path.is_ident("flexible") {
                let value = Value::parse(&meta)?;
                c.flexible.set(cx, &meta.path, value.range("flexible"));
            // #[kafka(no_setters)]
            } else if meta.path.is_ident("no_setters") {
                let value = flag(&meta, "no_setters")?;
                c.no_setters.set(cx, &meta.path, value);
            // #[kafka(reserved_tags = "0, 3")]
            } else if meta.path.is_ident("reserved_tags") {
                let value = Value::parse(&meta)?;
                c.reserved_tags
                    .set(cx, &meta.path, value.tags("reserved_tags"));
            // #[kafka(view = "PingRequestRef")]: the view type's name, `<struct>View` by default
            } else if meta.path.is_ident("view") {
                let value = Value::parse(&meta)?;
                c.view.set(cx, &meta.path, value.ident("view"));
            } else {
                cx.syn_error(unknown_key(&meta, "struct", CONTAINER_KEYS));
                c.unknown = true;
                skip_value(&meta)?;
            }
            Ok(())
        });
        c.unknown |= failed;
        c
    }

    /// Whether some key was misspelt or given a rejected value.
    pub fn is_poisoned(&self) -> bool {
        self.unknown
            || self.key.is_invalid()
            || self.versions.is_invalid()
            || self.flexible.is_invalid()
            || self.krate.is_invalid()
            || self.no_setters.is_invalid()
            || self.reserved_tags.is_invalid()
            || self.view.is_invalid()
    }
}

/// A `default = ...` value.
#[derive(Clone)]
pub enum DefaultLit {
    Int(i128),
    Float(f64),
    Bool(bool),
    Str(String),
    Null,
    /// A uuid, from Kafka's text form of one in a string (set once the field's type is known).
    Uuid(u128),
}

/// A default and its tokens.
#[derive(Clone)]
pub struct DefaultValue {
    pub value: DefaultLit,
    /// The literal with its sign, to underline `-1` whole.
    pub tokens: TokenStream,
}

/// Field-level keys.
pub struct Field {
    pub versions: Slot<Spanned>,
    pub nullable: Slot<Spanned>,
    pub tag: Slot<(u32, LitInt)>,
    pub tagged: Slot<Spanned>,
    pub default: Slot<DefaultValue>,
    pub ignorable: Slot<()>,
    pub flexible: Slot<Spanned>,
    pub json_name: Slot<syn::LitStr>,
    pub unknown_tagged_fields: Slot<()>,
    /// An unknown key was given, likely a misspelt known one.
    pub unknown: bool,
}

impl Field {
    pub fn from_ast(cx: &Ctxt, field: &syn::Field) -> Self {
        let mut f = Field {
            versions: Slot::new("versions"),
            nullable: Slot::new("nullable"),
            tag: Slot::new("tag"),
            tagged: Slot::new("tagged"),
            default: Slot::new("default"),
            ignorable: Slot::new("ignorable"),
            flexible: Slot::new("flexible"),
            json_name: Slot::new("json_name"),
            unknown_tagged_fields: Slot::new("unknown_tagged_fields"),
            unknown: false,
        };
        let failed = each_key(cx, &field.attrs, |meta| {
            // #[kafka(versions = "0+")]
            if meta.path.is_ident("versions") {
                let value = Value::parse(&meta)?;
                f.versions.set(cx, &meta.path, value.range("versions"));
            // #[kafka(nullable = "1+")]
            } else if meta.path.is_ident("nullable") {
                let value = Value::parse(&meta)?;
                f.nullable.set(cx, &meta.path, value.range("nullable"));
            // #[kafka(tag = 0)]
            } else if meta.path.is_ident("tag") {
                let value = Value::parse(&meta)?;
                let tag = value
                    .int("tag", 0, i64::from(i32::MAX))
                    .map(|(t, lit)| (t as u32, lit));
                f.tag.set(cx, &meta.path, tag);
            // #[kafka(tagged = "2+")]
            } else if meta.path.is_ident("tagged") {
                let value = Value::parse(&meta)?;
                f.tagged.set(cx, &meta.path, value.range("tagged"));
            // #[kafka(default = -1)], #[kafka(default = "text")], #[kafka(default = "null")]
            } else if meta.path.is_ident("default") {
                let value = Value::parse(&meta)?;
                f.default.set(cx, &meta.path, value.default());
            // #[kafka(ignorable)]
            } else if meta.path.is_ident("ignorable") {
                f.ignorable.set(cx, &meta.path, flag(&meta, "ignorable")?);
            // #[kafka(flexible = "none")]: a string or bytes field's own flexible versions
            } else if meta.path.is_ident("flexible") {
                let value = Value::parse(&meta)?;
                f.flexible.set(cx, &meta.path, value.range("flexible"));
            // #[kafka(json_name = "topicID")]: the name in the JSON form, when the schema's
            // name lowered at its first letter is not the field's name in camel case
            } else if meta.path.is_ident("json_name") {
                let value = Value::parse(&meta)?;
                f.json_name.set(cx, &meta.path, value.string("json_name"));
            // #[kafka(unknown_tagged_fields)]
            } else if meta.path.is_ident("unknown_tagged_fields") {
                let value = flag(&meta, "unknown_tagged_fields")?;
                f.unknown_tagged_fields.set(cx, &meta.path, value);
            } else {
                cx.syn_error(unknown_key(&meta, "field", FIELD_KEYS));
                f.unknown = true;
                skip_value(&meta)?;
            }
            Ok(())
        });
        f.unknown |= failed;
        f
    }

    /// The keys other than `unknown_tagged_fields`, which stands alone.
    pub fn schema_keys(&self) -> Vec<&syn::Path> {
        [
            self.versions.key(),
            self.nullable.key(),
            self.tag.key(),
            self.tagged.key(),
            self.default.key(),
            self.ignorable.key(),
            self.flexible.key(),
            self.json_name.key(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Whether some key was misspelt or given a rejected value.
    pub fn is_poisoned(&self) -> bool {
        self.unknown
            || self.versions.is_invalid()
            || self.nullable.is_invalid()
            || self.tag.is_invalid()
            || self.tagged.is_invalid()
            || self.default.is_invalid()
            || self.ignorable.is_invalid()
            || self.flexible.is_invalid()
            || self.json_name.is_invalid()
            || self.unknown_tagged_fields.is_invalid()
    }
}

/// Enum-level keys of an API set.
pub struct SetContainer {
    pub requests: Slot<()>,
    pub responses: Slot<()>,
    pub response_set: Slot<syn::Path>,
    pub krate: Slot<syn::Path>,
    /// An unknown key was given, likely a misspelt known one.
    pub unknown: bool,
}

const SET_KEYS: &str = "`requests`, `responses`, `response_set`, `crate`";
const VARIANT_KEYS: &str = "`name`, `header_v0`";

impl SetContainer {
    pub fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut c = SetContainer {
            requests: Slot::new("requests"),
            responses: Slot::new("responses"),
            response_set: Slot::new("response_set"),
            krate: Slot::new("crate"),
            unknown: false,
        };
        let failed = each_key(cx, attrs, |meta| {
            // #[kafka(requests)]
            if meta.path.is_ident("requests") {
                c.requests.set(cx, &meta.path, flag(&meta, "requests")?);
            // #[kafka(responses)]
            } else if meta.path.is_ident("responses") {
                c.responses.set(cx, &meta.path, flag(&meta, "responses")?);
            // #[kafka(response_set = Responses)]
            } else if meta.path.is_ident("response_set") {
                let value = meta.value()?.parse::<syn::Path>();
                c.response_set.set(cx, &meta.path, value);
            // #[kafka(crate = "kw")]
            } else if meta.path.is_ident("crate") {
                let value = Value::parse(&meta)?;
                c.krate.set(cx, &meta.path, value.path("crate"));
            } else {
                cx.syn_error(unknown_key(&meta, "enum", SET_KEYS));
                c.unknown = true;
                skip_value(&meta)?;
            }
            Ok(())
        });
        c.unknown |= failed;
        c
    }

    /// Whether some key was misspelt or given a rejected value.
    pub fn is_poisoned(&self) -> bool {
        self.unknown
            || self.requests.is_invalid()
            || self.responses.is_invalid()
            || self.response_set.is_invalid()
            || self.krate.is_invalid()
    }
}

/// Variant-level keys of an API set.
pub struct Variant {
    pub name: Slot<syn::LitStr>,
    pub header_v0: Slot<Spanned>,
    /// An unknown key was given, likely a misspelt known one.
    pub unknown: bool,
}

impl Variant {
    pub fn from_ast(cx: &Ctxt, variant: &syn::Variant) -> Self {
        let mut v = Variant {
            name: Slot::new("name"),
            header_v0: Slot::new("header_v0"),
            unknown: false,
        };
        let failed = each_key(cx, &variant.attrs, |meta| {
            // #[kafka(name = "ListConfigResources")]
            if meta.path.is_ident("name") {
                let value = Value::parse(&meta)?;
                v.name.set(cx, &meta.path, value.string("name"));
            // #[kafka(header_v0 = "0")]
            } else if meta.path.is_ident("header_v0") {
                let value = Value::parse(&meta)?;
                v.header_v0.set(cx, &meta.path, value.range("header_v0"));
            } else {
                cx.syn_error(unknown_key(&meta, "variant", VARIANT_KEYS));
                v.unknown = true;
                skip_value(&meta)?;
            }
            Ok(())
        });
        v.unknown |= failed;
        v
    }

    /// Whether some key was misspelt or given a rejected value.
    pub fn is_poisoned(&self) -> bool {
        self.unknown || self.name.is_invalid() || self.header_v0.is_invalid()
    }
}

/// The literal after `key =`, with an optional minus sign.
///
/// Failing to find one leaves the input at an unknown place, so that error ends the attribute;
/// a literal of the wrong kind or out of range is reported by the typed readers below, and
/// parsing goes on with the next key.
struct Value {
    neg: Option<Token![-]>,
    lit: syn::Lit,
}

impl Value {
    fn parse(meta: &ParseNestedMeta) -> syn::Result<Self> {
        let input = meta.value()?;
        Ok(Value {
            neg: input.parse()?,
            lit: input.parse()?,
        })
    }

    /// The sign and the literal, to span an error over both.
    fn tokens(&self) -> TokenStream {
        let mut tokens = self.neg.to_token_stream();
        self.lit.to_tokens(&mut tokens);
        tokens
    }

    fn error(&self, msg: impl std::fmt::Display) -> syn::Error {
        syn::Error::new_spanned(self.tokens(), msg)
    }

    /// An integer in `min..=max`.
    fn int(self, key: &str, min: i64, max: i64) -> syn::Result<(i64, LitInt)> {
        let bad = || self.error(format!("`{key}` must be an integer from {min} to {max}"));
        let syn::Lit::Int(lit) = &self.lit else {
            return Err(bad());
        };
        match lit.base10_parse::<i64>() {
            Ok(v) if self.neg.is_none() && (min..=max).contains(&v) => Ok((v, lit.clone())),
            _ => Err(bad()),
        }
    }

    /// A quoted version range.
    fn range(self, key: &str) -> syn::Result<Spanned> {
        match self.lit {
            syn::Lit::Str(lit) if self.neg.is_none() => versions::parse_lit(lit),
            _ => Err(self.error(format!(
                "`{key}` takes a quoted version range such as `\"0-3\"`, `\"2+\"` or `\"none\"`"
            ))),
        }
    }

    /// A quoted list of tags: `"0"`, `"0, 3"`.
    fn tags(self, key: &str) -> syn::Result<Vec<u32>> {
        let bad = |v: &Value| {
            v.error(format!(
                "`{key}` takes a quoted list of tags such as `\"0\"` or `\"0, 3\"`"
            ))
        };
        let syn::Lit::Str(lit) = &self.lit else {
            return Err(bad(&self));
        };
        if self.neg.is_some() {
            return Err(bad(&self));
        }
        let mut tags = Vec::new();
        for part in lit.value().split(',') {
            let part = part.trim();
            match part.parse::<u32>() {
                Ok(t) if part.bytes().all(|b| b.is_ascii_digit()) && t <= i32::MAX as u32 => {
                    tags.push(t)
                }
                _ => return Err(bad(&self)),
            }
        }
        Ok(tags)
    }

    /// A non-empty quoted string.
    fn string(self, key: &str) -> syn::Result<syn::LitStr> {
        match self.lit {
            syn::Lit::Str(lit) if self.neg.is_none() && !lit.value().is_empty() => Ok(lit),
            _ => Err(self.error(format!("`{key}` takes a non-empty quoted string"))),
        }
    }

    /// A quoted identifier, such as a type's name.
    fn ident(self, key: &str) -> syn::Result<syn::Ident> {
        let bad = |tokens: TokenStream| {
            syn::Error::new_spanned(
                tokens,
                format!("`{key}` takes a quoted type name such as `\"PingView\"`"),
            )
        };
        match &self.lit {
            syn::Lit::Str(lit) if self.neg.is_none() => lit
                .parse::<syn::Ident>()
                .map(|ident| syn::Ident::new(&ident.to_string(), lit.span()))
                .map_err(|_| bad(self.tokens())),
            _ => Err(bad(self.tokens())),
        }
    }

    /// A quoted path, such as the crate's: `"kw"`, `"::my_facade::kafka_wire"`.
    fn path(self, key: &str) -> syn::Result<syn::Path> {
        let bad = |tokens: TokenStream| {
            syn::Error::new_spanned(
                tokens,
                format!("`{key}` takes a quoted path such as `\"kafka_wire\"` or `\"my_facade::kafka_wire\"`"),
            )
        };
        match &self.lit {
            syn::Lit::Str(lit) if self.neg.is_none() => lit.parse().map_err(|_| bad(self.tokens())),
            _ => Err(bad(self.tokens())),
        }
    }

    fn default(self) -> syn::Result<DefaultValue> {
        let tokens = self.tokens();
        let neg = self.neg.is_some();
        let value =
            match &self.lit {
                syn::Lit::Int(i) => {
                    let v = i.base10_parse::<i128>().map_err(|e| self.error(e))?;
                    DefaultLit::Int(if neg { -v } else { v })
                }
                syn::Lit::Float(x) => {
                    let v = x.base10_parse::<f64>().map_err(|e| self.error(e))?;
                    DefaultLit::Float(if neg { -v } else { v })
                }
                syn::Lit::Bool(b) if !neg => DefaultLit::Bool(b.value),
                syn::Lit::Str(s) if !neg && s.value() == "null" => DefaultLit::Null,
                syn::Lit::Str(s) if !neg => DefaultLit::Str(s.value()),
                _ => return Err(self.error(
                    "expected a default such as `0`, `-1`, `1.5`, `true`, `\"text\"` or `\"null\"`",
                )),
            };
        Ok(DefaultValue { value, tokens })
    }
}

/// A key that stands alone, such as `ignorable`.
fn flag(meta: &ParseNestedMeta, key: &str) -> syn::Result<syn::Result<()>> {
    if meta.input.is_empty() || meta.input.peek(Token![,]) {
        return Ok(Ok(()));
    }
    let value = skip_value(meta)?;
    Ok(Err(syn::Error::new_spanned(
        value,
        format!("`{key}` takes no value; write `{key}` alone"),
    )))
}

/// Steps over whatever follows a key up to the next `,`, so that the keys after a rejected one
/// are still read; returns the tokens stepped over.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<TokenStream> {
    meta.input.step(|cursor| {
        let mut rest = *cursor;
        let mut skipped = TokenStream::new();
        while let Some((tt, next)) = rest.token_tree() {
            if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            skipped.extend([tt]);
            rest = next;
        }
        Ok((skipped, rest))
    })
}

fn unknown_key(meta: &ParseNestedMeta, place: &str, expected: &str) -> syn::Error {
    let path = &meta.path;
    let key = path.get_ident().map_or_else(
        || quote::quote!(#path).to_string().replace(' ', ""),
        |i| i.to_string(),
    );
    syn::Error::new_spanned(
        path,
        format!("unknown kafka {place} attribute `{key}`; expected one of {expected}"),
    )
}
