use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+", nulable = "0+")]
    pub name: Option<String>,
}

fn main() {}
