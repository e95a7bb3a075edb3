//! An API set builds without the prelude, mixing a message of its own with Kafka's, with
//! a renamed API and a header exception.
#![no_implicit_prelude]

use ::kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse};
use ::kafka_wire::{ApiSet, KafkaMessage, UnknownTaggedFields};

#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, KafkaMessage)]
#[kafka(key = 1000, versions = "0-1", flexible = "1+")]
pub struct PingRequest {
    #[kafka(versions = "0+")]
    pub sequence: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, KafkaMessage)]
#[kafka(key = 1000, versions = "0-1", flexible = "1+")]
pub struct PingResponse {
    #[kafka(versions = "0+")]
    pub sequence: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ApiSet)]
#[kafka(requests, response_set = Responses)]
pub enum Requests {
    #[kafka(name = "Echo", header_v0 = "0")]
    Ping(PingRequest),
    ApiVersions(ApiVersionsRequest),
}

#[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ApiSet)]
#[kafka(responses)]
pub enum Responses {
    #[kafka(name = "Echo")]
    Ping(PingResponse),
    #[kafka(header_v0 = "0+")]
    ApiVersions(ApiVersionsResponse),
}

fn main() {
    let echo = <Requests as ::kafka_wire::ApiSet>::find(1000).unwrap();
    ::std::assert_eq!(echo.name(), "Echo");
    ::std::assert_eq!(echo.header_version(0), 0);
    ::std::assert_eq!(echo.header_version(1), 2);
}
