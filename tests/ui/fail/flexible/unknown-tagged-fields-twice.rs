use kafka_wire::{KafkaMessage, UnknownTaggedFields};

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+")]
    pub id: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
    #[kafka(unknown_tagged_fields)]
    pub more_tagged_fields: UnknownTaggedFields,
}

fn main() {}
