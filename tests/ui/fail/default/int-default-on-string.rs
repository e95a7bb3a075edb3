use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "1+", default = 0)]
    pub name: String,
}

fn main() {}
