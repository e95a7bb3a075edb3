use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0-1", nullable = "2+")]
    pub name: Option<String>,
}

fn main() {}
