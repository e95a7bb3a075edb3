use kafka_wire::{KafkaMessage, UnknownTaggedFields};

#[derive(KafkaMessage)]
#[kafka(versions = "0-3", flexible = "2+")]
pub struct Request {
    #[kafka(versions = "0+", tag = 0, tagged = "1+")]
    pub id: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
