use kafka_wire::{ApiSet, KafkaMessage};

#[derive(Debug, Clone, PartialEq, KafkaMessage)]
#[kafka(key = 1000, versions = "0")]
pub struct PingResponse {
    #[kafka(versions = "0+")]
    pub sequence: i32,
}

#[derive(Debug, Clone, PartialEq, KafkaMessage)]
#[kafka(key = 1000, versions = "0")]
pub struct PongResponse {
    #[kafka(versions = "0+")]
    pub sequence: i32,
}

#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(responses)]
pub enum Responses {
    Ping(PingResponse),
    Pong(PongResponse),
}

fn main() {}
