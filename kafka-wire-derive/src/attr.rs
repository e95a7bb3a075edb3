//! `#[kafka(...)]` -> typed raw attributes, one attribute at a time (no cross-checks yet).

use crate::ctxt::Ctxt;
use crate::versions::{self, Spanned};
use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;
use syn::{LitInt, LitStr, Token};

/// A value and the key it was given under, so that a repeat is reported at the second key.
pub struct Slot<T> {
    name: &'static str,
    value: Option<(syn::Path, T)>,
}

impl<T> Slot<T> {
    fn new(name: &'static str) -> Self {
        Slot { name, value: None }
    }

    fn set(&mut self, cx: &Ctxt, key: &syn::Path, value: T) {
        if self.value.is_some() {
            cx.error_spanned_by(key, format!("duplicate kafka attribute `{}`", self.name));
        } else {
            self.value = Some((key.clone(), value));
        }
    }

    pub fn get(&self) -> Option<&T> {
        self.value.as_ref().map(|(_, v)| v)
    }

    pub fn key(&self) -> Option<&syn::Path> {
        self.value.as_ref().map(|(k, _)| k)
    }
}

/// Struct-level keys.
pub struct Container {
    pub key: Slot<(i16, LitInt)>,
    pub versions: Slot<Spanned>,
    pub flexible: Slot<Spanned>,
}

const CONTAINER_KEYS: &str = "`key`, `versions`, `flexible`";
const FIELD_KEYS: &str =
    "`versions`, `nullable`, `tag`, `tagged`, `default`, `ignorable`, `flexible`, `unknown_tagged_fields`";

impl Container {
    pub fn from_ast(cx: &Ctxt, attrs: &[syn::Attribute]) -> Self {
        let mut c = Container {
            key: Slot::new("key"),
            versions: Slot::new("versions"),
            flexible: Slot::new("flexible"),
        };
        for attr in attrs.iter().filter(|a| a.path().is_ident("kafka")) {
            let result = attr.parse_nested_meta(|meta| {
                // #[kafka(key = 27)]
                if meta.path.is_ident("key") {
                    let lit: LitInt = meta.value()?.parse()?;
                    let key = match lit.base10_parse::<i64>() {
                        Ok(k) if (0..=i64::from(i16::MAX)).contains(&k) => k as i16,
                        _ => {
                            return Err(syn::Error::new(
                                lit.span(),
                                "api key must be an integer from 0 to 32767",
                            ))
                        }
                    };
                    c.key.set(cx, &meta.path, (key, lit));
                // #[kafka(versions = "0-2")]
                } else if meta.path.is_ident("versions") {
                    c.versions.set(cx, &meta.path, range_value(&meta)?);
                // #[kafka(flexible = "1+")]
                } else if meta.path.is_ident("flexible") {
                    c.flexible.set(cx, &meta.path, range_value(&meta)?);
                } else {
                    return Err(unknown_key(&meta, "struct", CONTAINER_KEYS));
                }
                Ok(())
            });
            if let Err(err) = result {
                cx.syn_error(err);
            }
        }
        c
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
}

/// A default and its tokens.
#[derive(Clone)]
pub struct Default {
    pub value: DefaultLit,
    pub span: Span,
}

/// Field-level keys.
pub struct Field {
    pub versions: Slot<Spanned>,
    pub nullable: Slot<Spanned>,
    pub tag: Slot<(u32, LitInt)>,
    pub tagged: Slot<Spanned>,
    pub default: Slot<Default>,
    pub ignorable: Slot<()>,
    pub flexible: Slot<Spanned>,
    pub unknown_tagged_fields: Slot<()>,
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
            unknown_tagged_fields: Slot::new("unknown_tagged_fields"),
        };
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("kafka")) {
            let result = attr.parse_nested_meta(|meta| {
                // #[kafka(versions = "0+")]
                if meta.path.is_ident("versions") {
                    f.versions.set(cx, &meta.path, range_value(&meta)?);
                // #[kafka(nullable = "1+")]
                } else if meta.path.is_ident("nullable") {
                    f.nullable.set(cx, &meta.path, range_value(&meta)?);
                // #[kafka(tag = 0)]
                } else if meta.path.is_ident("tag") {
                    let lit: LitInt = meta.value()?.parse()?;
                    let tag = match lit.base10_parse::<i64>() {
                        Ok(t) if (0..=i64::from(i32::MAX)).contains(&t) => t as u32,
                        _ => {
                            return Err(syn::Error::new(
                                lit.span(),
                                "tag must be an integer from 0 to 2147483647",
                            ))
                        }
                    };
                    f.tag.set(cx, &meta.path, (tag, lit));
                // #[kafka(tagged = "2+")]
                } else if meta.path.is_ident("tagged") {
                    f.tagged.set(cx, &meta.path, range_value(&meta)?);
                // #[kafka(default = -1)], #[kafka(default = "text")], #[kafka(default = "null")]
                } else if meta.path.is_ident("default") {
                    f.default.set(cx, &meta.path, default_value(&meta)?);
                // #[kafka(ignorable)]
                } else if meta.path.is_ident("ignorable") {
                    f.ignorable.set(cx, &meta.path, ());
                // #[kafka(flexible = "none")]: a string or bytes field's own flexible versions
                } else if meta.path.is_ident("flexible") {
                    f.flexible.set(cx, &meta.path, range_value(&meta)?);
                // #[kafka(unknown_tagged_fields)]
                } else if meta.path.is_ident("unknown_tagged_fields") {
                    f.unknown_tagged_fields.set(cx, &meta.path, ());
                } else {
                    return Err(unknown_key(&meta, "field", FIELD_KEYS));
                }
                Ok(())
            });
            if let Err(err) = result {
                cx.syn_error(err);
            }
        }
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
        ]
        .into_iter()
        .flatten()
        .collect()
    }
}

fn range_value(meta: &ParseNestedMeta) -> syn::Result<Spanned> {
    let lit: LitStr = meta.value()?.parse()?;
    versions::parse_lit(lit)
}

fn default_value(meta: &ParseNestedMeta) -> syn::Result<Default> {
    let input = meta.value()?;
    let neg: Option<Token![-]> = input.parse()?;
    let lit: syn::Lit = input.parse()?;
    let span = match &neg {
        Some(minus) => minus.span.join(lit.span()).unwrap_or(minus.span),
        None => lit.span(),
    };
    let value = match (&lit, neg.is_some()) {
        (syn::Lit::Int(i), neg) => {
            let v = i
                .base10_parse::<i128>()
                .map_err(|e| syn::Error::new(i.span(), e))?;
            DefaultLit::Int(if neg { -v } else { v })
        }
        (syn::Lit::Float(x), neg) => {
            let v = x
                .base10_parse::<f64>()
                .map_err(|e| syn::Error::new(x.span(), e))?;
            DefaultLit::Float(if neg { -v } else { v })
        }
        (syn::Lit::Bool(b), false) => DefaultLit::Bool(b.value),
        (syn::Lit::Str(s), false) if s.value() == "null" => DefaultLit::Null,
        (syn::Lit::Str(s), false) => DefaultLit::Str(s.value()),
        _ => {
            return Err(syn::Error::new(
                lit.span(),
                "expected a default such as `0`, `-1`, `1.5`, `true`, `\"text\"` or `\"null\"`",
            ))
        }
    };
    Ok(Default { value, span })
}

fn unknown_key(meta: &ParseNestedMeta, place: &str, expected: &str) -> syn::Error {
    let path = &meta.path;
    let key = path.get_ident().map_or_else(
        || quote::quote!(#path).to_string().replace(' ', ""),
        |i| i.to_string(),
    );
    syn::Error::new(
        meta.path.span(),
        format!("unknown kafka {place} attribute `{key}`; expected one of {expected}"),
    )
}
