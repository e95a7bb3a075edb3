use kafka_wire::{KafkaMessage, UnknownTaggedFields};

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "2+", tag = 0, tagged = "1+")]
    pub id: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
