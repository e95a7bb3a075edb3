use kafka_wire::KafkaMessage;
use std::collections::HashMap;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+")]
    pub configs: HashMap<String, String>,
}

fn main() {}
