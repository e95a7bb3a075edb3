//! The expansion builds without the prelude: nested structs, tagged fields, nullable `Option`
//! fields, defaults (numbers, strings and `null`) and a per-field flexible override.
#![no_implicit_prelude]

use ::kafka_wire::{KafkaMessage, KafkaString, UnknownTaggedFields};

#[derive(
    ::std::fmt::Debug,
    ::std::clone::Clone,
    ::std::cmp::PartialEq,
    ::std::default::Default,
    KafkaMessage,
)]
#[kafka(key = 7, versions = "0-3", flexible = "2+")]
pub struct Request {
    #[kafka(versions = "0+", nullable = "0+", flexible = "none")]
    pub client_id: ::std::option::Option<KafkaString>,
    #[kafka(versions = "0+")]
    pub id: i32,
    #[kafka(versions = "1+", default = -1)]
    pub epoch: i64,
    #[kafka(versions = "1+", ignorable, default = 0.5)]
    pub ratio: f64,
    #[kafka(versions = "0+", nullable = "1+", default = "text")]
    pub label: ::std::option::Option<::std::string::String>,
    #[kafka(versions = "1+", nullable = "1+", default = "null")]
    pub parent: ::std::option::Option<Topic>,
    #[kafka(versions = "0+", nullable = "2+")]
    pub topics: ::std::option::Option<::std::vec::Vec<Topic>>,
    #[kafka(versions = "2+", tag = 0, tagged = "2+", default = "eu")]
    pub zone: KafkaString,
    #[kafka(versions = "2+", tag = 1, tagged = "3+", default = true)]
    pub enabled: bool,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(
    ::std::fmt::Debug,
    ::std::clone::Clone,
    ::std::cmp::PartialEq,
    ::std::default::Default,
    KafkaMessage,
)]
pub struct Topic {
    #[kafka(versions = "0+")]
    pub name: KafkaString,
    #[kafka(versions = "0+")]
    pub partitions: ::std::vec::Vec<Partition>,
    #[kafka(versions = "3+", tag = 0, tagged = "3+", nullable = "3+", default = "null")]
    pub rack: ::std::option::Option<KafkaString>,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(
    ::std::fmt::Debug,
    ::std::clone::Clone,
    ::std::cmp::PartialEq,
    ::std::default::Default,
    KafkaMessage,
)]
pub struct Partition {
    #[kafka(versions = "0+")]
    pub index: i32,
    #[kafka(versions = "1+", default = 255)]
    pub weight: u16,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
