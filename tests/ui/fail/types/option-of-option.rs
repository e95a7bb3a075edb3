use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+", nullable = "0+")]
    pub name: Option<Option<String>>,
}

fn main() {}
