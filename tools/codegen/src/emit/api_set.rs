//! API sets: for each side an enum with a variant per API, which `#[derive(ApiSet)]` reads and
//! writes by `(api key, version)`.

use super::doc;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// Versions whose header is v0 whatever the flexible-version rule says, as Kafka's schemas
/// state in their comments: `(message, versions)`.
const HEADER_V0: &[(&str, &str)] = &[
    // Request header v0, without a client id, exists only for ControlledShutdown v0.
    ("ControlledShutdownRequest", "0"),
    // A client whose ApiVersions request version the broker does not know must still read the
    // answer: ApiVersions responses keep header v0 in every version (KIP-511).
    ("ApiVersionsResponse", "0+"),
];

/// The versions in which one of Kafka's messages keeps header v0 against the rule.
pub fn header_v0(message: &str) -> Option<&'static str> {
    HEADER_V0
        .iter()
        .find(|(name, _)| *name == message)
        .map(|(_, versions)| *versions)
}

/// One side of an API set.
pub struct ApiSet {
    pub name: Ident,
    pub doc: String,
    /// The derive by its path: `ApiSet`, or `kw::ApiSet` in a user's crate.
    pub derive: TokenStream,
    /// The arguments of `#[kafka(..)]`: the side, and the other side for requests.
    pub args: Vec<TokenStream>,
    /// Whether users must expect variants to come (Kafka's APIs grow).
    pub non_exhaustive: bool,
    pub variants: Vec<Variant>,
}

/// One API of a set.
pub struct Variant {
    pub doc: String,
    /// The cargo feature it sits behind.
    pub feature: Option<String>,
    pub header_v0: Option<&'static str>,
    pub name: Ident,
    /// The message, by its path.
    pub message: TokenStream,
}

impl ApiSet {
    pub fn tokens(&self) -> TokenStream {
        let mut attrs = vec![doc(&self.doc)];
        let (derive, args) = (&self.derive, &self.args);
        attrs.push(quote!(#[derive(Debug, Clone, PartialEq, #derive)]));
        attrs.push(quote!(#[kafka(#(#args),*)]));
        if self.non_exhaustive {
            attrs.push(quote!(#[non_exhaustive]));
        }
        let name = &self.name;
        let variants = self.variants.iter().map(Variant::tokens);
        quote! {
            #(#attrs)*
            pub enum #name {
                #(#variants)*
            }
        }
    }
}

impl Variant {
    fn tokens(&self) -> TokenStream {
        let mut attrs = vec![doc(&self.doc)];
        if let Some(feature) = &self.feature {
            attrs.push(quote!(#[cfg(feature = #feature)]));
        }
        if let Some(versions) = self.header_v0 {
            attrs.push(quote!(#[kafka(header_v0 = #versions)]));
        }
        let (name, message) = (&self.name, &self.message);
        quote! {
            #(#attrs)*
            #name(#message),
        }
    }
}
