use kafka_wire::messages::ApiVersionsResponse;
use kafka_wire::ApiSet;

#[derive(Debug, Clone, PartialEq, ApiSet)]
pub enum Responses {
    ApiVersions(ApiVersionsResponse),
    Unit,
}

fn main() {}
