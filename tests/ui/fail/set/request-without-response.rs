use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse};
use kafka_wire::{ApiSet, KafkaMessage};

#[derive(Debug, Clone, PartialEq, KafkaMessage)]
#[kafka(key = 1000, versions = "0")]
pub struct PingRequest {
    #[kafka(versions = "0+")]
    pub sequence: i32,
}

#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(requests, response_set = Responses)]
pub enum Requests {
    ApiVersions(ApiVersionsRequest),
    Ping(PingRequest),
}

#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(responses)]
pub enum Responses {
    #[kafka(header_v0 = "0+")]
    ApiVersions(ApiVersionsResponse),
}

fn main() {}
