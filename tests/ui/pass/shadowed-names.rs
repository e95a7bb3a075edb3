//! The expansion names nothing through the user's scope: every name it could reach for is
//! shadowed here by an item of the user's own.
#![allow(dead_code, non_camel_case_types, unused_macros)]

use kafka_wire::{Decode, Encode, KafkaMessage, KafkaString, UnknownTaggedFields};

pub struct Result;
pub struct Ok;
pub struct Err;
pub struct Some;
pub struct None;
pub struct Option;
pub struct Vec;
pub struct Default;
pub struct From;
pub struct Into;
pub struct Box;
pub struct String;
pub struct Clone;
pub struct PartialEq;
pub struct Sized;
pub struct usize;
pub struct bool;
pub struct u32;
pub trait Codec {}
pub trait BufMut {}
pub struct Bytes;
pub struct Ctx;
pub mod core {}
pub mod std {}
pub fn unreachable() {}
pub fn compile_error() {}
macro_rules! unreachable {
    () => {
        compile_error!("the user's `unreachable!` was called")
    };
}
macro_rules! vec {
    () => {
        compile_error!("the user's `vec!` was called")
    };
}

#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::default::Default, KafkaMessage)]
#[kafka(key = 9, versions = "0-2", flexible = "1+")]
pub struct Request {
    #[kafka(versions = "0+")]
    pub id: i32,
    #[kafka(versions = "0+", nullable = "0+")]
    pub name: ::std::option::Option<KafkaString>,
    #[kafka(versions = "1+", nullable = "1+", default = "null")]
    pub owner: ::std::option::Option<::std::string::String>,
    #[kafka(versions = "0+")]
    pub items: ::std::vec::Vec<Item>,
    #[kafka(versions = "2+", default = -1)]
    pub epoch: i64,
    #[kafka(versions = "1+", tag = 0, tagged = "1+", default = "none")]
    pub zone: KafkaString,
    #[kafka(versions = "1+", tag = 1, tagged = "1+", nullable = "1+", default = "null")]
    pub parent: ::std::option::Option<Item>,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::default::Default, KafkaMessage)]
pub struct Item {
    #[kafka(versions = "0+")]
    pub key: ::std::string::String,
    #[kafka(versions = "1+", ignorable, default = true)]
    pub flag: ::core::primitive::bool,
    #[kafka(versions = "0+")]
    pub count: ::core::primitive::u32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

// Field names that match the expansion's locals and helpers.
#[derive(KafkaMessage)]
pub struct Locals {
    #[kafka(versions = "0+")]
    pub __buf: i32,
    #[kafka(versions = "0+")]
    pub __v: i32,
    #[kafka(versions = "0+")]
    pub __cx: i32,
    #[kafka(versions = "1+")]
    pub __len: i32,
    #[kafka(versions = "1+", default = 1)]
    pub r#type: i8,
}

// Kafka's own camelCase names, allowed by the user, stay allowed in the expansion.
#[allow(non_snake_case)]
#[derive(KafkaMessage)]
pub struct CamelCase {
    #[kafka(versions = "0+")]
    pub producerId: i64,
    #[kafka(versions = "2+", default = -1)]
    pub producerEpoch: i16,
}

fn main() {
    let request = Request {
        id: 1,
        name: ::std::option::Option::None,
        items: ::std::vec![Item {
            key: "k".to_owned(),
            flag: true,
            count: 2,
            ..<Item as ::std::default::Default>::default()
        }],
        epoch: -1,
        zone: KafkaString::from_static("none"),
        ..<Request as ::std::default::Default>::default()
    };
    for version in 0..=2 {
        let bytes = request.encode_to_bytes(version).unwrap();
        assert_eq!(Request::decode_exact(bytes, version).unwrap(), request);
    }
}
