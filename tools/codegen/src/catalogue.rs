//! kafka-wire's own catalogue: a file per message, in the crate of its kind (headers and data
//! schemas in `kafka-wire-core/src/messages/`, requests in `kafka-wire-requests/src/`, responses
//! in `kafka-wire-responses/src/`), each crate's module list and cargo features, and in
//! `kafka-wire/src/messages/` the module that gathers them, Kafka's API sets and the facts
//! manifest; then the tests' support file.

use crate::check;
use crate::emit::api_set::{header_v0, ApiSet, Variant};
use crate::emit::{self, ident, inner_doc, message, snake_case, support, Home};
use crate::error::Error;
use crate::merge::merge_sets;
use crate::model::{Api, Message};
use crate::schema::SchemaSet;
use crate::schema::{Kind, VersionRange};
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Writes kafka-wire's catalogue from Kafka's schema folders (oldest first). `messages_dir` is
/// `kafka-wire/src/messages`; the crates that hold the messages are found beside `kafka-wire` in
/// the workspace. Also writes the features into the four crates' `Cargo.toml`s, and the tests'
/// support file; returns the number of messages.
pub fn write_catalogue(
    inputs: &[PathBuf],
    messages_dir: &Path,
    test_support: &Path,
) -> Result<usize, Error> {
    let mut sets = Vec::new();
    for dir in inputs {
        sets.push(SchemaSet::load(dir)?);
    }
    let messages = merge_sets(&sets)?;
    let apis = check::apis(&messages).map_err(|problems| Error { problems })?;
    // kafka-wire/src/messages -> the workspace
    let root = messages_dir
        .parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .ok_or_else(|| Error::one(format!("{}: not inside a crate", messages_dir.display())))?;
    for home in Crate::ALL {
        let mine: Vec<&Message> = messages.iter().filter(|m| home.holds(m)).collect();
        write_crate(home, &mine, &root.join(home.messages_dir())).map_err(Error::one)?;
        write_features(home, &messages, &root.join(home.dir()).join("Cargo.toml"))
            .map_err(Error::one)?;
    }
    write_gathering(&messages, &apis, messages_dir).map_err(Error::one)?;
    write_features(Facade, &messages, &messages_dir.join("../../Cargo.toml"))
        .map_err(Error::one)?;
    let text = emit::print(support::paragraphs(&messages)).map_err(Error::one)?;
    write(test_support, &text).map_err(Error::one)?;
    emit::rustfmt(&[test_support.to_path_buf()]).map_err(Error::one)?;
    Ok(messages.len())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The cargo feature an API's messages sit behind: its name in kebab case (`write-txn-markers`).
fn api_feature(api_name: &str) -> String {
    snake_case(api_name).replace('_', "-")
}

/// The feature of the data schemas (consumer protocol, KRaft records, ...).
const DATA_FEATURE: &str = "data-schemas";

/// The feature that gates a message; headers are always built.
fn feature_of(msg: &Message) -> Option<String> {
    match msg.kind {
        Kind::Request => Some(api_feature(msg.name.trim_end_matches("Request"))),
        Kind::Response => Some(api_feature(msg.name.trim_end_matches("Response"))),
        Kind::Header => None,
        Kind::Data => Some(DATA_FEATURE.to_owned()),
    }
}

fn cfg(feature: Option<String>) -> TokenStream {
    feature.map_or_else(TokenStream::new, |f| quote!(#[cfg(feature = #f)]))
}

/// The crates the catalogue is written into.
#[derive(Clone, Copy, PartialEq)]
enum Crate {
    /// `kafka-wire-core`: the headers and the data schemas, in its `messages` module.
    Core,
    /// `kafka-wire-requests`: every API's request.
    Requests,
    /// `kafka-wire-responses`: every API's response.
    Responses,
}

/// `kafka-wire`, which gathers the three and holds the API sets.
struct Facade;

impl Crate {
    const ALL: [Crate; 3] = [Crate::Core, Crate::Requests, Crate::Responses];

    fn holds(self, msg: &Message) -> bool {
        match self {
            Crate::Core => matches!(msg.kind, Kind::Header | Kind::Data),
            Crate::Requests => msg.kind == Kind::Request,
            Crate::Responses => msg.kind == Kind::Response,
        }
    }

    fn dir(self) -> &'static str {
        match self {
            Crate::Core => "kafka-wire-core",
            Crate::Requests => "kafka-wire-requests",
            Crate::Responses => "kafka-wire-responses",
        }
    }

    /// How the crate's messages name the runtime.
    fn home(self) -> Home {
        Home::Catalogue {
            runtime: match self {
                Crate::Core => "crate",
                Crate::Requests | Crate::Responses => "kafka_wire_core",
            },
        }
    }

    fn messages_dir(self) -> String {
        match self {
            Crate::Core => "kafka-wire-core/src/messages".to_owned(),
            _ => format!("{}/src", self.dir()),
        }
    }
}

/// Whose features [`write_features`] writes.
trait Features {
    /// The `[features]` lines, given every API's feature in order and the data schemas'.
    fn lines(&self, apis: &[String]) -> String;
}

impl Features for Crate {
    fn lines(&self, apis: &[String]) -> String {
        match self {
            Crate::Core => format!("{DATA_FEATURE} = []\n"),
            Crate::Requests | Crate::Responses => {
                apis.iter().map(|f| format!("{f} = []\n")).collect()
            }
        }
    }
}

impl Features for Facade {
    fn lines(&self, apis: &[String]) -> String {
        let all: String = apis
            .iter()
            .chain([&DATA_FEATURE.to_owned()])
            .map(|f| format!("  \"{f}\",\n"))
            .collect();
        let each: String = apis
            .iter()
            .map(|f| format!("{f} = [\"kafka-wire-requests/{f}\", \"kafka-wire-responses/{f}\"]\n"))
            .collect();
        format!(
            "# Every API and the data schemas; on by default.\nall-apis = [\n{all}]\n{each}\
             {DATA_FEATURE} = [\"kafka-wire-core/{DATA_FEATURE}\"]\n"
        )
    }
}

/// Writes the `[features]` entries of the catalogue into `manifest`, between two marker lines.
fn write_features(
    whose: impl Features,
    messages: &[Message],
    manifest: &Path,
) -> Result<(), String> {
    const BEGIN: &str = "# Generated by tools/codegen from here to the end marker; do not edit.\n";
    const END: &str = "# End of generated features.\n";
    let text =
        std::fs::read_to_string(manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let (Some(start), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        return Err(format!(
            "{}: no generated-features markers",
            manifest.display()
        ));
    };
    let mut apis: Vec<String> = messages
        .iter()
        .filter(|m| m.kind == Kind::Request)
        .filter_map(feature_of)
        .collect();
    apis.sort();
    let block = format!("{BEGIN}{}", whose.lines(&apis));
    let out = format!("{}{block}{}", &text[..start], &text[end..]);
    if out != text {
        write(manifest, &out)?;
    }
    Ok(())
}

/// Writes the message files of one crate and its module list (`mod.rs` in the runtime's
/// `messages`, `lib.rs` in the others), and removes message files no longer generated.
fn write_crate(home: Crate, messages: &[&Message], dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files = Vec::new();
    for msg in messages {
        let path = dir.join(format!("{}.rs", snake_case(&msg.name)));
        write(&path, &emit::print(message::paragraphs(msg, &home.home()))?)?;
        files.push(path);
    }
    let (list, text) = match home {
        Crate::Core => (
            "mod.rs",
            module_list(
                messages,
                "The headers and the data schemas of Kafka's protocol",
            ),
        ),
        Crate::Requests => ("lib.rs", crate_root(messages, "request")),
        Crate::Responses => ("lib.rs", crate_root(messages, "response")),
    };
    files.push(dir.join(list));
    write(&dir.join(list), &emit::print(text)?)?;
    emit::rustfmt(&files)?;
    remove_others(dir, &files)
}

/// Removes the `.rs` files of `dir` that are not in `keep`.
fn remove_others(dir: &Path, keep: &[PathBuf]) -> Result<(), String> {
    let keep: BTreeSet<&Path> = keep.iter().map(PathBuf::as_path).collect();
    for entry in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "rs") && !keep.contains(path.as_path()) {
            std::fs::remove_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// The root of `kafka-wire-requests` or `kafka-wire-responses`: the module list.
fn crate_root(messages: &[&Message], side: &str) -> Vec<TokenStream> {
    module_list(
        messages,
        &format!(
            "Every {side} of Kafka's APIs, for kafka-wire: applications use them through\n\
             `kafka_wire::messages`, which gathers all the messages. The catalogue is split over\n\
             crates so that it builds on two cores"
        ),
    )
}

/// Writes `kafka-wire/src/messages`: `mod.rs`, which gathers the three crates' messages,
/// `api.rs` and `facts.json`.
fn write_gathering(messages: &[Message], apis: &[Api], dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let gather =
        vec![
        inner_doc(
            "Every Kafka message, each in a module named after it; the messages themselves are\n\
             re-exported here, their nested structs stay in their modules. The headers and the\n\
             data schemas come from `kafka-wire-core`, the requests and the responses from crates\n\
             of their own, and the API sets are here.\n\n\
             Generated by `tools/codegen`; do not edit.",
        ),
        // With no API turned on, the two crates export nothing.
        quote!(#![allow(unused_imports)]),
        quote! {
            pub use kafka_wire_core::messages::*;
            pub use kafka_wire_requests::*;
            pub use kafka_wire_responses::*;
        },
        quote!(pub mod api;),
    ];
    let mut files = Vec::new();
    for (name, text) in [
        ("mod.rs", emit::print(gather)?),
        ("api.rs", emit::print(api_sets(apis))?),
    ] {
        files.push(dir.join(name));
        write(&dir.join(name), &text)?;
    }
    write(&dir.join("facts.json"), &facts(messages)?)?;
    emit::rustfmt(&files)?;
    remove_others(dir, &files)
}

/// A module list: a module per message behind its feature, the messages re-exported, and the
/// names older releases gave them.
fn module_list(messages: &[&Message], what: &str) -> Vec<TokenStream> {
    let mut modules: Vec<(String, Option<String>)> = messages
        .iter()
        .map(|m| (snake_case(&m.name), feature_of(m)))
        .collect();
    modules.sort();
    let modules = modules.into_iter().map(|(module, feature)| {
        let (cfg, module) = (cfg(feature), ident(&module));
        quote!(#cfg pub mod #module;)
    });
    let uses = messages.iter().map(|m| {
        let (cfg, module, name) = (
            cfg(feature_of(m)),
            ident(&snake_case(&m.name)),
            ident(&m.name),
        );
        quote!(#cfg pub use self::#module::#name;)
    });
    let aliases = messages.iter().flat_map(|m| {
        m.old_names.iter().map(move |old| {
            let doc = emit::doc(&format!(
                "The name older Kafka releases give [`{}`].",
                m.name
            ));
            let (cfg, old, name) = (cfg(feature_of(m)), ident(old), ident(&m.name));
            quote!(#doc #cfg pub type #old = #name;)
        })
    });
    vec![
        inner_doc(&format!(
            "{what}.\n\n\
             Each message is in a module named after it; the messages themselves are re-exported\n\
             here, their nested structs stay in their modules.\n\n\
             Generated by `tools/codegen`; do not edit."
        )),
        quote!(#(#modules)*),
        quote!(#(#uses)* #(#aliases)*),
    ]
}

/// `api.rs`: the two body enums, each variant behind its API's feature, with the header
/// exceptions; `#[derive(ApiSet)]` writes the rest.
fn api_sets(apis: &[Api]) -> Vec<TokenStream> {
    let set = |request: bool| {
        // The facade names itself `crate`.
        let (side, args) = if request {
            (
                "request",
                vec![
                    quote!(crate = "crate"),
                    quote!(requests),
                    quote!(response_set = ResponseBody),
                ],
            )
        } else {
            ("response", vec![quote!(crate = "crate"), quote!(responses)])
        };
        let variants = apis.iter().map(|api| {
            let msg = if request { api.request } else { api.response };
            let name = ident(&msg.name);
            Variant {
                doc: format!("API key {}: [`super::{}`].", api.key, msg.name),
                feature: Some(api_feature(api.name())),
                header_v0: header_v0(&msg.name),
                name: ident(api.name()),
                message: quote!(super::#name),
            }
        });
        ApiSet {
            name: ident(if request {
                "RequestBody"
            } else {
                "ResponseBody"
            }),
            doc: format!("A {side} body of any API."),
            derive: quote!(ApiSet),
            args,
            non_exhaustive: true,
            variants: variants.collect(),
        }
        .tokens()
    };
    vec![
        inner_doc(
            "Kafka's API sets: a body of any request, and of any response, read or written by\n\
             `(api key, version)` at run time through [`ApiSet`]. Each variant sits\n\
             behind its API's cargo feature; the derive takes keys, versions and header versions\n\
             from the messages, and the attributes give the header exceptions Kafka's schemas state.\n\n\
             Generated by `tools/codegen`; do not edit.",
        ),
        quote!(use crate::ApiSet;),
        set(true),
        set(false),
    ]
}

/// The facts manifest: for every message, the metadata and field layout taken from the
/// schemas, for the conformance test to compare with what the derive declares. Ranges are
/// closed at the message's newest version: `[first, last]`, or `null` for none.
fn facts(messages: &[Message]) -> Result<String, String> {
    let mut lines = Vec::new();
    for msg in messages {
        let last = msg.last();
        let span = |r: VersionRange| match r.up_to(last) {
            r if !r.is_empty() => json!([r.start(), r.end()]),
            _ => Value::Null,
        };
        let mut structs = Vec::new();
        for s in &msg.structs {
            let mut fields = Vec::new();
            for f in &s.fields {
                // Kafka's JSON converters name a field by its schema name with the first letter
                // in lower case; the JSON form's test holds the derive's names to these.
                let mut json_name = f.name.clone();
                if let Some(first) = json_name.get(..1).map(str::to_ascii_lowercase) {
                    json_name.replace_range(..1, &first);
                }
                fields.push(json!({
                    "name": emit::field_key(&f.name),
                    "json_name": json_name,
                    "type": f.ty.to_string(),
                    "versions": span(f.versions),
                    "nullable": span(f.nullable),
                    "tag": f.tag,
                    "tagged": span(f.tagged),
                    // null: no override; []: flexible in no version.
                    "flexible": match f.flexible.map(|r| r.up_to(last)) {
                        None => Value::Null,
                        Some(r) if r.is_empty() => json!([]),
                        Some(r) => span(r),
                    },
                    "default": f.default.as_ref().map(|d| &d.text),
                    "ignorable": f.ignorable,
                }));
            }
            structs.push(json!({ "name": s.name, "fields": fields }));
        }
        let line = json!({
            "name": msg.name,
            "kind": msg.kind.as_str(),
            "api_key": msg.api(),
            "versions": span(msg.versions),
            "flexible": span(msg.flexible),
            "structs": structs,
        });
        lines.push(serde_json::to_string(&line).map_err(|e| e.to_string())?);
    }
    Ok(format!("[\n{}\n]\n", lines.join(",\n")))
}
