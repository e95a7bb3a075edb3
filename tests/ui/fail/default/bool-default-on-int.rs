use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "1+", default = true)]
    pub flags: i8,
}

fn main() {}
