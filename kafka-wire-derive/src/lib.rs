//! `#[derive(KafkaMessage)]`: Kafka wire-protocol codecs for annotated structs.
//!
//! This crate is an implementation detail of `kafka-wire`, which re-exports the derive and
//! documents its attributes (`kafka_wire::attributes`).
#![forbid(unsafe_code)]

mod attr;
mod ctxt;
mod expand;
mod model;
mod set;
#[cfg(test)]
mod set_tests;
#[cfg(test)]
mod tests;
mod validate;
mod versions;

use proc_macro::TokenStream;
use syn::{parse_macro_input, DeriveInput};

/// Derives `kafka_wire::codec::Codec` for a struct and, when it carries
/// `#[kafka(versions = "...")]`, `kafka_wire::Message` (plus `kafka_wire::ApiMessage` with
/// `key = N`). See `kafka_wire::attributes` for the vocabulary.
#[proc_macro_derive(KafkaMessage, attributes(kafka))]
pub fn derive_kafka_message(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::derive(&input).into()
}

/// Derives `kafka_wire::ApiSet` for an enum whose variants each wrap one API message, and
/// `kafka_wire::api::RequestSet` or `ResponseSet` as `#[kafka(requests, response_set = ...)]`
/// or `#[kafka(responses)]` says. See `kafka_wire::attributes` for the vocabulary.
#[proc_macro_derive(ApiSet, attributes(kafka))]
pub fn derive_api_set(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand::set::derive(&input).into()
}
