use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "1+", default = -1)]
    pub port: u16,
}

fn main() {}
