use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0-40000")]
    pub id: i32,
}

fn main() {}
