use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry(i32, String);

fn main() {}
