use kafka_wire::KafkaMessage;

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0", view = Ledger2)]
pub struct Ledger {
    #[kafka(versions = "0+")]
    pub balance: i64,
}

fn main() {}
