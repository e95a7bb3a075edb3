use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub enum Entry {
    A,
    B,
}

fn main() {}
