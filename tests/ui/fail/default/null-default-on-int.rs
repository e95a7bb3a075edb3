use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "1+", default = "null")]
    pub id: i32,
}

fn main() {}
