use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+")]
    pub payload: Vec<u8>,
}

fn main() {}
