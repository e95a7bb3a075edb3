use kafka_wire::{KafkaMessage, UnknownTaggedFields};

#[derive(KafkaMessage)]
#[kafka(versions = "0-2", flexible = "3+")]
pub struct Request {
    #[kafka(versions = "0+")]
    pub id: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
