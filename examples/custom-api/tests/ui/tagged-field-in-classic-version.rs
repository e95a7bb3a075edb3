// A Pong API written by hand: its clock is tagged from version 0, which is not flexible and so
// has no tagged-field section.
use kafka_wire::{KafkaMessage, UnknownTaggedFields};

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(key = 1001, versions = "0-1", flexible = "1+")]
pub struct PongRequest {
    #[kafka(versions = "0+")]
    pub sequence: i32,
    #[kafka(versions = "0+", tag = 0, tagged = "0+", default = -1)]
    pub sent_at_ms: i64,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

fn main() {}
