use kafka_wire::KafkaMessage;

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0")]
pub struct Ledger {
    #[kafka(versions = "0+")]
    pub into_owned: i32,
}

fn main() {}
