use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::ApiSet;

#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(requests, response_set = Requests)]
pub enum Requests {
    ApiVersions(ApiVersionsRequest),
}

fn main() {}
