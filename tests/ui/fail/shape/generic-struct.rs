use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry<T> {
    #[kafka(versions = "0+")]
    pub value: T,
}

fn main() {}
