use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry;

fn main() {}
