use kafka_wire::{KafkaMessage, UnknownTaggedFields};

// Five unrelated mistakes, all reported by one build: an inverted range, `nullable` on an
// `i16`, a default out of range, a duplicate tag and an `Option` without `nullable`.
#[derive(KafkaMessage)]
#[kafka(key = 27, versions = "0-2", flexible = "1+")]
pub struct Request {
    #[kafka(versions = "2-0")]
    pub id: i32,
    #[kafka(versions = "0+", nullable = "0+")]
    pub epoch: i16,
    #[kafka(versions = "1+", tag = 0, tagged = "1+", default = 300)]
    pub level: i8,
    #[kafka(versions = "1+", tag = 0, tagged = "1+")]
    pub name: Option<String>,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
