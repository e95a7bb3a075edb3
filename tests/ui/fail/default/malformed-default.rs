use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "1+", default = b'x')]
    pub id: i8,
}

fn main() {}
