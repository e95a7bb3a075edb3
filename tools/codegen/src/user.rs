//! The generator for a user's own schemas: one Rust file of messages, and API sets on request.

use crate::check;
use crate::emit::api_set::{header_v0, ApiSet, Variant};
use crate::emit::names::Names;
use crate::emit::{self, ident, message, Home};
use crate::error::Error;
use crate::merge::merge_sets;
use crate::model::{Api, Message};
use crate::schema::SchemaSet;
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::path::{Path, PathBuf};

/// Writes messages from schemas in Kafka's JSON format into one Rust file, for a build script.
///
/// Each message becomes a module named after it (`ping_request`) holding its structs, the
/// message re-exported beside the modules; with [`api_sets`](Self::api_sets), the two enums
/// deriving `ApiSet` follow.
#[derive(Debug, Clone)]
pub struct Generator {
    schema_dirs: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    file_name: String,
    crate_path: String,
    api_sets: Option<(String, String)>,
    kafka_apis: Vec<String>,
    rustfmt: bool,
}

/// What [`Generator::generate`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// The file written.
    pub path: PathBuf,
    /// The messages in it, by name.
    pub messages: Vec<String>,
}

impl Default for Generator {
    fn default() -> Self {
        Generator::new()
    }
}

impl Generator {
    /// A generator writing `messages.rs` into `$OUT_DIR`, naming the runtime `kafka_wire`.
    pub fn new() -> Self {
        Generator {
            schema_dirs: Vec::new(),
            out_dir: None,
            file_name: "messages.rs".into(),
            crate_path: "kafka_wire".into(),
            api_sets: None,
            kafka_apis: Vec::new(),
            rustfmt: true,
        }
    }

    /// A folder of schemas (or one schema file). Several folders are releases, oldest first.
    pub fn schema_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.schema_dirs.push(dir.into());
        self
    }

    /// Where the file goes; `$OUT_DIR` by default.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The file's name; `messages.rs` by default.
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = name.into();
        self
    }

    /// How the generated code names kafka-wire: `kafka_wire` by default; the name of a renamed
    /// dependency (`kw`) or a path through a facade (`my_facade::kafka_wire`).
    pub fn crate_path(mut self, path: impl Into<String>) -> Self {
        self.crate_path = path.into();
        self
    }

    /// Also writes a request set and a response set with these names, one variant per API of
    /// the schemas (the request's name less `Request`).
    pub fn api_sets(mut self, requests: impl Into<String>, responses: impl Into<String>) -> Self {
        self.api_sets = Some((requests.into(), responses.into()));
        self
    }

    /// Adds one of Kafka's APIs, by name (`ApiVersions`), to the API sets, with kafka-wire's
    /// messages for it.
    pub fn kafka_api(mut self, name: impl Into<String>) -> Self {
        self.kafka_apis.push(name.into());
        self
    }

    /// Whether to pass the file through `rustfmt` when it is installed (the default), for
    /// `cargo fmt`'s exact layout; without it the file is laid out by prettyplease.
    pub fn rustfmt(mut self, on: bool) -> Self {
        self.rustfmt = on;
        self
    }

    /// Reads, merges and writes. In a build script (where `OUT_DIR` is set), also tells cargo
    /// to run it again when a schema file changes.
    pub fn generate(&self) -> Result<Generated, Error> {
        if self.schema_dirs.is_empty() {
            return Err(Error::one("no schema folder given"));
        }
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or_else(|| {
                    Error::one("no output folder: give one, or run in a build script")
                })?,
        };
        let mut sets = Vec::new();
        for dir in &self.schema_dirs {
            sets.push(SchemaSet::load(dir)?);
        }
        if std::env::var_os("OUT_DIR").is_some() {
            for dir in &self.schema_dirs {
                println!("cargo:rerun-if-changed={}", dir.display());
            }
            for file in sets.iter().flat_map(|s| &s.files) {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
        let messages = merge_sets(&sets)?;
        let mut text = self.render(&messages)?;
        if self.rustfmt {
            text = format_if_installed(text)?;
        }
        std::fs::create_dir_all(&out_dir)
            .map_err(|e| Error::one(format!("{}: {e}", out_dir.display())))?;
        let path = out_dir.join(&self.file_name);
        write_if_changed(&path, &text)?;
        Ok(Generated {
            path,
            messages: messages.iter().map(|m| m.name.clone()).collect(),
        })
    }

    fn render(&self, messages: &[Message]) -> Result<String, Error> {
        let home = Home::user(&self.crate_path).map_err(Error::one)?;
        let mut text = String::from(
            "// Generated by `kafka-wire-codegen` from message schemas in Kafka's JSON format; do not edit.\n",
        );
        // Each message in an inline module, whose body is printed as the message's own file is:
        // a syntax tree would lose the blank lines between its paragraphs.
        for msg in messages {
            let body = emit::print(message::paragraphs(msg, &home)).map_err(Error::one)?;
            let module = module_ident(msg);
            text += &format!("\npub mod {module} {{\n{}}}\n", emit::indent(&body));
        }
        let uses = messages.iter().map(|m| {
            let (module, name) = (module_ident(m), message_ident(m, &home));
            quote!(pub use self::#module::#name;)
        });
        let mut paragraphs = vec![quote!(#(#uses)*)];
        if let Some((requests, responses)) = &self.api_sets {
            let apis = check::apis(messages).map_err(|problems| Error { problems })?;
            let (requests, responses) = (name(requests)?, name(responses)?);
            paragraphs.push(
                self.set(&apis, &home, &requests, Some(&responses))?
                    .tokens(),
            );
            paragraphs.push(self.set(&apis, &home, &responses, None)?.tokens());
        }
        text.push('\n');
        text += &emit::print(paragraphs).map_err(Error::one)?;
        Ok(text)
    }

    /// The request set (with the name of its response set) or the response set: the schemas'
    /// APIs by key, then Kafka's.
    fn set(
        &self,
        apis: &[Api],
        home: &Home,
        name: &Ident,
        response_set: Option<&Ident>,
    ) -> Result<ApiSet, Error> {
        let root = home.root();
        let mut args: Vec<TokenStream> = home.crate_arg().into_iter().collect();
        let side = match response_set {
            Some(responses) => {
                args.push(quote!(requests, response_set = #responses));
                "Request"
            }
            None => {
                args.push(quote!(responses));
                "Response"
            }
        };
        let mut variants: Vec<Variant> = apis
            .iter()
            .map(|api| {
                let msg = if response_set.is_some() {
                    api.request
                } else {
                    api.response
                };
                let message = message_ident(msg, home);
                Variant {
                    doc: format!("API key {}: [`{}`].", api.key, msg.name),
                    feature: None,
                    header_v0: None,
                    name: ident(api.name()),
                    message: quote!(#message),
                }
            })
            .collect();
        for api in &self.kafka_apis {
            let message = format!("{api}{side}");
            let ty = self::name(&message)?;
            variants.push(Variant {
                doc: format!("Kafka's {api}."),
                feature: None,
                header_v0: header_v0(&message),
                name: self::name(api)?,
                message: quote!(#root::messages::#ty),
            });
        }
        let beside = if self.kafka_apis.is_empty() {
            ""
        } else {
            " and Kafka's APIs beside them"
        };
        Ok(ApiSet {
            name: name.clone(),
            doc: format!("The {}s of these schemas{beside}.", side.to_lowercase()),
            derive: quote!(#root::ApiSet),
            args,
            non_exhaustive: false,
            variants,
        })
    }
}

/// The module of a message: its name in snake case, a keyword raw (`r#match`).
fn module_ident(msg: &Message) -> Ident {
    emit::field_ident(&msg.name)
}

/// The Rust name of a message's own struct.
fn message_ident(msg: &Message, home: &Home) -> Ident {
    Names::new(msg, home.root()).message_ident()
}

/// A name the user gave, as a Rust identifier.
fn name(text: &str) -> Result<Ident, Error> {
    syn::parse_str(text).map_err(|_| Error::one(format!("`{text}` is not a Rust identifier")))
}

/// Leaves the file alone when it already holds `text`, so that cargo does not rebuild.
fn write_if_changed(path: &Path, text: &str) -> Result<(), Error> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| Error::one(format!("{}: {e}", path.display())))
}

/// `text` formatted by `rustfmt`; a machine without it keeps the text as it is, which compiles
/// the same.
fn format_if_installed(text: String) -> Result<String, Error> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(text),
        Err(e) => return Err(Error::one(format!("rustfmt: {e}"))),
    };
    let fail = |e: std::io::Error| Error::one(format!("rustfmt: {e}"));
    child
        .stdin
        .take()
        .ok_or_else(|| Error::one("rustfmt: no input"))?
        .write_all(text.as_bytes())
        .map_err(fail)?;
    let out = child.wait_with_output().map_err(fail)?;
    if !out.status.success() {
        return Err(Error::one(format!(
            "rustfmt could not format the output: {}",
            out.status
        )));
    }
    String::from_utf8(out.stdout).map_err(|e| Error::one(format!("rustfmt: {e}")))
}
