use kafka_wire::{KafkaMessage, UnknownTaggedFields};

#[derive(KafkaMessage)]
pub struct Entry {
    #[kafka(versions = "0+", tag = 0, tagged = "0+")]
    pub id: i32,
    #[kafka(versions = "0+", tag = 2, tagged = "0+")]
    pub epoch: i16,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
