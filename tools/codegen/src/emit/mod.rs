//! Rust source from the model: syntax trees built with `quote`, printed by `prettyplease`,
//! laid out in paragraphs as a person writes them.

pub mod api_set;
pub mod message;
pub mod names;
pub mod support;

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;
use std::path::PathBuf;

/// Prints `paragraphs`, each a run of items (or inner attributes, for the file's own
/// documentation), with a blank line between two paragraphs: prettyplease writes none between
/// items, and a reader wants them where the thought changes.
pub fn print(paragraphs: impl IntoIterator<Item = TokenStream>) -> Result<String, String> {
    let mut out = String::new();
    for tokens in paragraphs {
        let file: syn::File = syn::parse2(tokens)
            .map_err(|e| format!("the generator wrote Rust that does not parse: {e}"))?;
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&prettyplease::unparse(&file));
    }
    Ok(out)
}

/// `/// text`: each line of `text` one line of documentation.
pub fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// `//! text`, for the file (or inline module) it opens; an empty line stays empty.
pub fn inner_doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| {
        if l.is_empty() {
            String::new()
        } else {
            format!(" {l}")
        }
    });
    quote!(#(#![doc = #lines])*)
}

/// `text` indented one level, for the body of an inline module.
pub fn indent(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if !line.is_empty() {
            out.push_str("    ");
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// An integer literal without a suffix (`-1`, not `-1i128`).
pub fn int(v: i128) -> TokenStream {
    signed(v < 0, Literal::u128_unsuffixed(v.unsigned_abs()))
}

/// A finite float literal without a suffix.
pub fn float(v: f64) -> TokenStream {
    signed(v < 0.0, Literal::f64_unsuffixed(v.abs()))
}

/// A literal of the magnitude, negated as Rust writes it: a literal token has no sign.
fn signed(negative: bool, magnitude: Literal) -> TokenStream {
    if negative {
        quote!(-#magnitude)
    } else {
        quote!(#magnitude)
    }
}

/// The name of a type or variant, as the schemas write it.
pub fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// `ProducerId` -> `producer_id`, `ISRReplicas` -> `isr_replicas`, `TopicID` -> `topic_id`.
pub fn snake_case(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
    "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn",
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof", "unsized",
    "virtual", "yield", "try", "gen",
];

/// A field's name in Rust: snake case, a keyword raw (`r#type`); `self`, `super` and `crate`,
/// which cannot be raw, take a trailing underscore.
pub fn field_ident(name: &str) -> Ident {
    let s = snake_case(name);
    match s.as_str() {
        "self" | "super" | "crate" => Ident::new(&format!("{s}_"), Span::call_site()),
        k if KEYWORDS.contains(&k) => Ident::new_raw(k, Span::call_site()),
        _ => Ident::new(&s, Span::call_site()),
    }
}

/// A field's name without the `r#` of a keyword: `type`.
pub fn field_key(name: &str) -> String {
    field_ident(name)
        .to_string()
        .trim_start_matches("r#")
        .to_owned()
}

/// Where the generated code lives, which decides how it names kafka-wire.
pub enum Home {
    /// A crate of kafka-wire's catalogue, which names the runtime by its own name:
    /// `kafka_wire_core` from the requests and responses crates, `crate` inside the runtime.
    Catalogue { runtime: &'static str },
    /// A user's crate, which names kafka-wire by a path: `kafka_wire`, a renamed dependency,
    /// or a path through a facade.
    User { path: String, tokens: syn::Path },
}

impl Home {
    pub fn user(path: &str) -> Result<Home, String> {
        let tokens = syn::parse_str(path)
            .map_err(|_| format!("`{path}` is not a path that can name kafka-wire"))?;
        Ok(Home::User {
            path: path.to_owned(),
            tokens,
        })
    }

    /// The path `use` lines start from.
    pub fn root(&self) -> TokenStream {
        match self {
            Home::Catalogue { runtime } => {
                let runtime = Ident::new(runtime, Span::call_site());
                quote!(#runtime)
            }
            Home::User { tokens, .. } => quote!(#tokens),
        }
    }

    /// `crate = "..."` for the derives, when kafka-wire is not reachable as `::kafka_wire`.
    pub fn crate_arg(&self) -> Option<TokenStream> {
        match self {
            Home::Catalogue { runtime } => Some(quote!(crate = #runtime)),
            Home::User { path, .. } if path != "kafka_wire" && path != "::kafka_wire" => {
                Some(quote!(crate = #path))
            }
            Home::User { .. } => None,
        }
    }
}

/// Formats `files` in place as `cargo fmt` does, for sources checked in beside hand-written ones
/// and held to `cargo fmt --check` with them; prettyplease breaks lines at other widths.
pub fn rustfmt(files: &[PathBuf]) -> Result<(), String> {
    let status = std::process::Command::new("rustfmt")
        .args(["--edition", "2021"])
        .args(files)
        .status()
        .map_err(|e| format!("rustfmt: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("rustfmt failed: {status}"))
    }
}
