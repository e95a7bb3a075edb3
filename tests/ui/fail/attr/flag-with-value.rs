use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "1+", ignorable = true)]
    pub id: i32,
}

fn main() {}
