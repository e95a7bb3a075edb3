use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+", nullable = "0+")]
    pub id: i32,
}

fn main() {}
