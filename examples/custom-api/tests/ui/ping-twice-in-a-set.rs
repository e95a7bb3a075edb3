// A set that lists the crate's Ping request twice: one API key, two variants.
use custom_api::messages::PingRequest;
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::ApiSet;

#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(requests, response_set = custom_api::messages::Responses)]
pub enum Requests {
    Ping(PingRequest),
    ApiVersions(ApiVersionsRequest),
    Echo(PingRequest),
}

fn main() {}
