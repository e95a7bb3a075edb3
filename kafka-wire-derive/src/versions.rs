//! Version-range literals (`"0-1"`, `"1+"`, `"3"`, `"none"`) read into kafka-wire's one range
//! type, with errors placed on the literal, and the range as generated code uses it.

use kafka_wire_schema::VersionRange;
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// What the derive does with a range beyond reading it.
pub trait RangeExt: Sized {
    /// `kafka_wire::VersionRange` for this range; `private` is the path of `__private`.
    fn to_tokens(self, private: &TokenStream) -> TokenStream;

    /// An expression over `__v` that is true for versions in `self`, knowing that `__v` lies
    /// in `universe`; `None` when it always holds.
    fn condition(self, universe: VersionRange) -> Option<TokenStream>;
}

impl RangeExt for VersionRange {
    fn to_tokens(self, private: &TokenStream) -> TokenStream {
        match (self.start(), self.end()) {
            (Some(start), Some(end)) => quote!(#private::VersionRange::new(#start, #end)),
            _ => quote!(#private::VersionRange::NONE),
        }
    }

    fn condition(self, universe: VersionRange) -> Option<TokenStream> {
        if universe.within(self) {
            return None;
        }
        let r = self.intersect(universe);
        let (Some(start), Some(end)) = (r.start(), r.end()) else {
            return Some(quote!(false));
        };
        let lower = universe
            .start()
            .is_some_and(|u| start > u)
            .then(|| quote!(__v >= #start));
        let upper = universe
            .end()
            .is_some_and(|u| end < u)
            .then(|| quote!(__v <= #end));
        Some(match (lower, upper) {
            (Some(l), Some(u)) => quote!((#l && #u)),
            (Some(c), None) | (None, Some(c)) => quote!((#c)),
            (None, None) => quote!(true),
        })
    }
}

/// A parsed range and the literal it came from.
#[derive(Clone)]
pub struct Spanned {
    pub range: VersionRange,
    pub lit: syn::LitStr,
}

impl Spanned {
    pub fn span(&self) -> Span {
        self.lit.span()
    }
}

/// Parses a version-range literal, reporting at the literal.
pub fn parse_lit(lit: syn::LitStr) -> syn::Result<Spanned> {
    match lit.value().parse::<VersionRange>() {
        Ok(range) => Ok(Spanned { range, lit }),
        Err(e) => Err(syn::Error::new(lit.span(), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_drop_bounds_the_universe_implies() {
        let universe = VersionRange::new(0, 2);
        assert!(VersionRange::open(0).condition(universe).is_none());
        let c = VersionRange::open(2).condition(universe).unwrap();
        assert_eq!(c.to_string(), "(__v >= 2i16)");
        let c = VersionRange::NONE.condition(universe).unwrap();
        assert_eq!(c.to_string(), "false");
    }
}
