//! A downstream crate that depends on kafka-wire as `kw`: its own API (a message with a
//! nested struct, a nullable field and a tagged one) beside Kafka's ApiVersions, in a request
//! set and a response set, all derived with `#[kafka(crate = "kw")]`.
#![forbid(unsafe_code)]

use kw::messages::{ApiVersionsRequest, ApiVersionsResponse};
use kw::{ApiSet, KafkaMessage, KafkaString, UnknownTaggedFields};

/// A request of API key 2000, flexible from version 1.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(crate = "kw", key = 2000, versions = "0-1", flexible = "1+")]
pub struct EchoRequest {
    #[kafka(versions = "0+", nullable = "1+")]
    pub text: Option<KafkaString>,
    #[kafka(versions = "0+")]
    pub parts: Vec<EchoPart>,
    #[kafka(versions = "1+", tag = 0, tagged = "1+", default = -1)]
    pub deadline_ms: i64,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// A nested struct: it takes version and flexibility from its message.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(crate = "kw")]
pub struct EchoPart {
    #[kafka(versions = "0+")]
    pub index: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The response of API key 2000.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(crate = "kw", key = 2000, versions = "0-1", flexible = "1+")]
pub struct EchoResponse {
    #[kafka(versions = "0+")]
    pub error_code: i16,
    #[kafka(versions = "0+", nullable = "1+")]
    pub text: Option<KafkaString>,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The requests this crate reads.
#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(crate = "kw", requests, response_set = Responses)]
pub enum Requests {
    Echo(EchoRequest),
    ApiVersions(ApiVersionsRequest),
}

/// Their responses.
#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(crate = "kw", responses)]
pub enum Responses {
    Echo(EchoResponse),
    #[kafka(header_v0 = "0+")]
    ApiVersions(ApiVersionsResponse),
}
