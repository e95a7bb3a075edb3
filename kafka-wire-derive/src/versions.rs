//! `"0-1"`, `"1+"`, `"3"`, `"none"` -> `Range`, with errors placed on the literal.

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// An inclusive version range; `end < start` is empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub start: i16,
    pub end: i16,
}

pub const MAX: i16 = i16::MAX;

impl Range {
    pub const NONE: Range = Range { start: 0, end: -1 };
    pub const ALL: Range = Range { start: 0, end: MAX };

    pub fn is_empty(self) -> bool {
        self.end < self.start
    }

    pub fn is_open(self) -> bool {
        !self.is_empty() && self.end == MAX
    }

    pub fn intersect(self, other: Range) -> Range {
        let r = Range {
            start: self.start.max(other.start),
            end: self.end.min(other.end),
        };
        if r.is_empty() {
            Range::NONE
        } else {
            r
        }
    }

    /// True when every version of `self` is in `other`.
    pub fn within(self, other: Range) -> bool {
        self.is_empty() || (self.start >= other.start && self.end <= other.end)
    }

    /// `kafka_wire::VersionRange` for this range; `private` is the path of `__private`.
    pub fn to_tokens(self, private: &TokenStream) -> TokenStream {
        let (start, end) = (self.start, self.end);
        quote!(#private::VersionRange::new(#start, #end))
    }

    /// An expression over `__v` that is true for versions in `self`, knowing that `__v` lies in
    /// `universe`; `None` when it always holds.
    pub fn condition(self, universe: Range) -> Option<TokenStream> {
        if universe.within(self) {
            return None;
        }
        let r = self.intersect(universe);
        if r.is_empty() {
            return Some(quote!(false));
        }
        let lower = (r.start > universe.start).then(|| {
            let s = r.start;
            quote!(__v >= #s)
        });
        let upper = (r.end < universe.end).then(|| {
            let e = r.end;
            quote!(__v <= #e)
        });
        Some(match (lower, upper) {
            (Some(l), Some(u)) => quote!((#l && #u)),
            (Some(c), None) | (None, Some(c)) => quote!((#c)),
            (None, None) => quote!(true),
        })
    }
}

impl std::fmt::Display for Range {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.end == MAX {
            write!(f, "{}+", self.start)
        } else if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}-{}", self.start, self.end)
        }
    }
}

/// A parsed range and the literal it came from.
#[derive(Clone)]
pub struct Spanned {
    pub range: Range,
    pub lit: syn::LitStr,
}

impl Spanned {
    pub fn span(&self) -> Span {
        self.lit.span()
    }
}

/// Parses the text of a version-range literal.
pub fn parse(text: &str) -> Result<Range, String> {
    let expected =
        || format!("expected a version range such as `0-3`, `2+`, `1` or `none`, found `{text}`");
    let version = |s: &str| -> Result<i16, String> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return Err(expected());
        }
        s.parse::<i16>()
            .map_err(|_| format!("version `{s}` is out of range: versions go from 0 to 32767"))
    };
    let text_trim = text.trim();
    if text_trim == "none" {
        return Ok(Range::NONE);
    }
    if let Some(start) = text_trim.strip_suffix('+') {
        return Ok(Range {
            start: version(start)?,
            end: MAX,
        });
    }
    if let Some((start, end)) = text_trim.split_once('-') {
        let (start, end) = (version(start)?, version(end)?);
        if start > end {
            return Err(format!(
                "invalid version range `{text}`: start is greater than end"
            ));
        }
        return Ok(Range { start, end });
    }
    let v = version(text_trim)?;
    Ok(Range { start: v, end: v })
}

/// Parses a version-range literal, reporting at the literal.
pub fn parse_lit(lit: syn::LitStr) -> syn::Result<Spanned> {
    match parse(&lit.value()) {
        Ok(range) => Ok(Spanned { range, lit }),
        Err(msg) => Err(syn::Error::new(lit.span(), msg)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_schema_forms() {
        assert_eq!(parse("0-2"), Ok(Range { start: 0, end: 2 }));
        assert_eq!(parse("3"), Ok(Range { start: 3, end: 3 }));
        assert_eq!(parse("2+"), Ok(Range { start: 2, end: MAX }));
        assert!(parse("none").unwrap().is_empty());
    }

    #[test]
    fn rejects_with_reason() {
        assert_eq!(
            parse("3-1").unwrap_err(),
            "invalid version range `3-1`: start is greater than end"
        );
        assert!(parse("1-")
            .unwrap_err()
            .starts_with("expected a version range"));
        assert!(parse("-1")
            .unwrap_err()
            .starts_with("expected a version range"));
        assert!(parse("abc")
            .unwrap_err()
            .starts_with("expected a version range"));
        assert!(parse("+")
            .unwrap_err()
            .starts_with("expected a version range"));
        assert_eq!(
            parse("40000+").unwrap_err(),
            "version `40000` is out of range: versions go from 0 to 32767"
        );
    }

    #[test]
    fn conditions_drop_bounds_the_universe_implies() {
        let universe = Range { start: 0, end: 2 };
        assert!(Range { start: 0, end: MAX }.condition(universe).is_none());
        let c = Range { start: 2, end: MAX }.condition(universe).unwrap();
        assert_eq!(c.to_string(), "(__v >= 2i16)");
        let c = Range::NONE.condition(universe).unwrap();
        assert_eq!(c.to_string(), "false");
    }
}
