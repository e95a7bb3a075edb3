use kafka_wire::KafkaMessage;

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Partition {
    pub index: i32,
}

#[derive(KafkaMessage)]
pub struct Topic {
    #[kafka(versions = "0+")]
    pub partition: Partition,
}

fn main() {}
