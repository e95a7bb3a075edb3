use kafka_wire::{ApiSet, KafkaMessage};

// A data schema: versioned, but without an API key.
#[derive(Debug, Clone, PartialEq, KafkaMessage)]
#[kafka(versions = "0")]
pub struct Snapshot {
    #[kafka(versions = "0+")]
    pub offset: i64,
}

#[derive(Debug, Clone, PartialEq, ApiSet)]
#[kafka(responses)]
pub enum Responses {
    Snapshot(Snapshot),
}

fn main() {}
