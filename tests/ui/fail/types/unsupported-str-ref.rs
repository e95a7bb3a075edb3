use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+")]
    pub name: &'static str,
}

fn main() {}
