//! Rust names for a message's structs and fields. Kafka's schemas allow names that cannot be
//! written as they are in Rust, or that would be read as something else: a struct called
//! `Option` or `Box`, two fields whose names differ only in case. Each is handled here, once,
//! for every emitter.

use super::{field_ident, ident, snake_case};
use crate::model::{Message, Struct};
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

/// Names the derive reads as a type it knows (kafka-wire's or Rust's) when they stand at the end
/// of a path. A struct of the schema with one of them is written from `self::`, which the derive
/// reads as a type of the crate's own.
const KNOWN_TO_THE_DERIVE: &[&str] = &[
    "String",
    "KafkaString",
    "Bytes",
    "Records",
    "Uuid",
    "Vec",
    "IntArray",
    "Option",
    "HashMap",
    "BTreeMap",
    "HashSet",
    "BTreeSet",
    "VecDeque",
    "Box",
    "Rc",
    "Arc",
    "Cow",
];

/// Names a message's source uses without a path: Rust's prelude types and the names it imports
/// from kafka-wire. A struct of the schema with one of them would shadow it, so the source then
/// writes that one with its full path.
const USED_BY_NAME: &[&str] = &[
    "Vec",
    "Option",
    "Default",
    "KafkaString",
    "Bytes",
    "Records",
    "Uuid",
    "IntArray",
    "UnknownTaggedFields",
];

/// The field every struct of a flexible message adds for the tagged fields it does not know.
pub const UNKNOWN_TAGGED_FIELDS: &str = "unknown_tagged_fields";

/// The Rust names of one message.
pub struct Names {
    /// The message's own struct.
    message: String,
    /// Schema name -> Rust name, for the message's other structs (which fields name).
    structs: BTreeMap<String, String>,
    /// The names of [`USED_BY_NAME`] that a struct shadows.
    shadowed: BTreeSet<&'static str>,
    /// How the source names kafka-wire.
    root: TokenStream,
}

impl Names {
    pub fn new(msg: &Message, root: TokenStream) -> Names {
        // `Self` is a keyword that no raw identifier can spell, and a nested struct named after
        // its message would clash with the message's own struct.
        let rename = |name: &str, taken: &BTreeSet<String>| {
            let clash = name == "Self" || taken.contains(name);
            let base = if clash {
                format!("{name}Struct")
            } else {
                name.to_owned()
            };
            let mut rust = base.clone();
            let mut n = 2;
            while taken.contains(&rust) || (clash && msg.structs.iter().any(|s| s.name == rust)) {
                rust = format!("{base}{n}");
                n += 1;
            }
            rust
        };
        let mut taken = BTreeSet::new();
        let message = rename(&msg.name, &taken);
        taken.insert(message.clone());
        let mut structs = BTreeMap::new();
        for s in msg.structs.iter().skip(1) {
            let rust = rename(&s.name, &taken);
            taken.insert(rust.clone());
            structs.insert(s.name.clone(), rust);
        }
        let shadowed = USED_BY_NAME
            .iter()
            .copied()
            .filter(|used| taken.contains(*used))
            .collect();
        Names {
            message,
            structs,
            shadowed,
            root,
        }
    }

    /// The Rust name of the message's own struct.
    pub fn message_ident(&self) -> Ident {
        ident(&self.message)
    }

    /// The Rust name of the (nested) struct the schema calls `name`.
    pub fn struct_ident(&self, name: &str) -> Ident {
        ident(self.structs.get(name).map_or(name, String::as_str))
    }

    /// The struct the schema calls `name`, as a field's type names it.
    pub fn struct_type(&self, name: &str) -> TokenStream {
        let rust = self.struct_ident(name);
        if KNOWN_TO_THE_DERIVE.contains(&rust.to_string().as_str()) {
            quote!(self::#rust)
        } else {
            quote!(#rust)
        }
    }

    /// Whether a struct shadows `name`, one of [`USED_BY_NAME`].
    pub fn is_shadowed(&self, name: &str) -> bool {
        self.shadowed.contains(name)
    }

    /// `Vec`, or its full path where a struct shadows it.
    pub fn vec(&self) -> TokenStream {
        if self.is_shadowed("Vec") {
            quote!(::std::vec::Vec)
        } else {
            quote!(Vec)
        }
    }

    /// `Option`, or its full path.
    pub fn option(&self) -> TokenStream {
        if self.is_shadowed("Option") {
            quote!(::core::option::Option)
        } else {
            quote!(Option)
        }
    }

    /// `Default`, or its full path.
    pub fn default_trait(&self) -> TokenStream {
        if self.is_shadowed("Default") {
            quote!(::core::default::Default)
        } else {
            quote!(Default)
        }
    }

    /// One of kafka-wire's types the source imports (`KafkaString`, `Uuid`, ...), or its path
    /// from kafka-wire where a struct shadows it; the `use` line then leaves it out.
    pub fn kafka_wire(&self, name: &'static str) -> TokenStream {
        let id = ident(name);
        match (self.is_shadowed(name), name) {
            (false, _) => quote!(#id),
            (true, "Bytes") => {
                let root = &self.root;
                quote!(#root::bytes::Bytes)
            }
            (true, _) => {
                let root = &self.root;
                quote!(#root::#id)
            }
        }
    }
}

/// The Rust names of a struct's fields, in order: snake case, keywords raw, and a number added
/// to a name already taken (`TopicID` and `TopicId` are `topic_id` and `topic_id_2`; a schema
/// field `UnknownTaggedFields` leaves that name to the field the struct adds).
pub fn field_idents(s: &Struct) -> Vec<Ident> {
    let mut taken: BTreeSet<String> = BTreeSet::from([UNKNOWN_TAGGED_FIELDS.to_owned()]);
    let mut out = Vec::with_capacity(s.fields.len());
    for f in &s.fields {
        let mut id = field_ident(&f.name);
        let base = snake_case(&f.name);
        let mut n = 2;
        while taken.contains(&unraw(&id)) {
            id = field_ident(&format!("{base}_{n}"));
            n += 1;
        }
        taken.insert(unraw(&id));
        out.push(id);
    }
    out
}

/// An identifier without its `r#`.
pub fn unraw(id: &Ident) -> String {
    id.to_string().trim_start_matches("r#").to_owned()
}
