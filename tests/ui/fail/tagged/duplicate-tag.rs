use kafka_wire::{KafkaMessage, UnknownTaggedFields};

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+", tag = 0, tagged = "0+")]
    pub transactional_id: String,
    #[kafka(versions = "0+", tag = 0, tagged = "0+")]
    pub producer_id: i64,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
