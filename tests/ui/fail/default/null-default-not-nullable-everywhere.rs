use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+", nullable = "1+", default = "null")]
    pub name: Option<String>,
}

fn main() {}
