//! Validated IR of an API set (`#[derive(ApiSet)]`): the side, the response set, and one
//! variant per API, with the rules that need no compiler.
//!
//! What only the compiler knows (that a variant wraps an API message, that two variants do not
//! share a key, that the response set answers every request) is checked by constants in the
//! expansion, spanned at the variant's type.

use crate::attr;
use crate::ctxt::Ctxt;
use crate::model;
use kafka_wire_schema::VersionRange;
use proc_macro2::TokenStream;

/// Requests, with the set of their responses, or responses.
pub enum Side {
    Requests { response_set: syn::Path },
    Responses,
}

/// One API of the set.
pub struct Variant<'a> {
    pub ident: &'a syn::Ident,
    /// The message the variant wraps.
    pub ty: &'a syn::Type,
    /// The API's name: the variant's unless `name` says otherwise.
    pub name: String,
    /// The versions that use header v0 whatever the rule says.
    pub header_v0: VersionRange,
}

/// An enum deriving `ApiSet`.
pub struct Set<'a> {
    pub input: &'a syn::DeriveInput,
    /// `<crate>::__private`.
    pub private: TokenStream,
    /// `None` when the side could not be told; the expansion then stops at the errors.
    pub side: Option<Side>,
    pub variants: Vec<Variant<'a>>,
}

const SHAPE: &str = "each variant of an API set wraps one message, as in `Fetch(FetchRequest)`";

impl<'a> Set<'a> {
    /// Builds the IR, recording every problem in `cx`; `None` when the input is not an enum.
    pub fn from_ast(
        cx: &Ctxt,
        input: &'a syn::DeriveInput,
        container: attr::SetContainer,
        private: TokenStream,
    ) -> Option<Self> {
        let data = match &input.data {
            syn::Data::Enum(e) => e,
            syn::Data::Struct(s) => {
                cx.error_spanned_by(
                    s.struct_token,
                    "`ApiSet` can only be derived for enums, one variant per API",
                );
                return None;
            }
            syn::Data::Union(u) => {
                cx.error_spanned_by(
                    u.union_token,
                    "`ApiSet` can only be derived for enums, one variant per API",
                );
                return None;
            }
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "`ApiSet` does not support generic enums; the set's APIs are fixed",
            );
        }
        let side = side(cx, input, &container);
        let mut variants = Vec::new();
        for v in &data.variants {
            let raw = attr::Variant::from_ast(cx, v);
            let ty = match &v.fields {
                syn::Fields::Unnamed(f) if f.unnamed.len() == 1 => &f.unnamed[0].ty,
                syn::Fields::Unit => {
                    cx.error_spanned_by(&v.ident, SHAPE);
                    continue;
                }
                fields => {
                    cx.error_spanned_by(fields, SHAPE);
                    continue;
                }
            };
            if raw.is_poisoned() {
                continue;
            }
            let name = raw
                .name
                .get()
                .map_or_else(|| v.ident.to_string(), syn::LitStr::value);
            variants.push(Variant {
                ident: &v.ident,
                ty,
                name,
                header_v0: raw.header_v0.get().map_or(VersionRange::NONE, |s| s.range),
            });
            if let Some(lit) = raw.name.get() {
                check_unique_name(cx, &variants, lit);
            } else {
                check_unique_name(cx, &variants, &v.ident);
            }
        }
        Some(Set {
            input,
            private,
            side,
            variants,
        })
    }
}

/// The side comes from exactly one of `requests` and `responses`; a request set names the set of
/// its responses, which a client needs to read the answers.
fn side(cx: &Ctxt, input: &syn::DeriveInput, c: &attr::SetContainer) -> Option<Side> {
    if c.is_poisoned() {
        return None;
    }
    match (c.requests.key(), c.responses.key()) {
        (Some(_), Some(second)) => {
            cx.error_spanned_by(
                second,
                "a set holds `requests` or `responses`, not both; write one set of each",
            );
            None
        }
        (Some(requests), None) => match c.response_set.get() {
            Some(path) => Some(Side::Requests {
                response_set: path.clone(),
            }),
            None => {
                cx.error_spanned_by(
                    requests,
                    "a request set names the set of its responses: add `response_set = MyResponses`",
                );
                None
            }
        },
        (None, Some(_)) => {
            if let Some(key) = c.response_set.key() {
                cx.error_spanned_by(
                    key,
                    "`response_set` belongs on a set of `requests`; a response set has none",
                );
                return None;
            }
            Some(Side::Responses)
        }
        (None, None) => {
            cx.error_spanned_by(
                &input.ident,
                "an API set holds requests or responses: add `#[kafka(requests, response_set = MyResponses)]` or `#[kafka(responses)]`",
            );
            None
        }
    }
}

/// Tools find an API by its name (`ApiSet::find_by_name`), so two variants may not share one.
fn check_unique_name(cx: &Ctxt, variants: &[Variant], at: impl quote::ToTokens) {
    let Some((last, earlier)) = variants.split_last() else {
        return;
    };
    if let Some(first) = earlier.iter().find(|v| v.name == last.name) {
        cx.error_spanned_by(
            at,
            format!(
                "API name `{}` is already used by variant `{}`; set another with `#[kafka(name = \"...\")]`",
                last.name, first.ident
            ),
        );
    }
}

/// `<crate>::__private` for the set's `crate` key.
pub fn private_path(c: &attr::SetContainer) -> TokenStream {
    model::private_path(c.krate.get())
}
