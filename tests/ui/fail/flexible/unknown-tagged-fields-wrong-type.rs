use kafka_wire::KafkaMessage;

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+")]
    pub id: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: Vec<u8>,
}

fn main() {}
