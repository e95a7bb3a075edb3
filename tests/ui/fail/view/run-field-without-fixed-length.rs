use kafka_wire::bytes::Bytes;
use kafka_wire::codec::{Codec, Ctx, Sink};
use kafka_wire::view::{Cursor, Source, ViewIndex, Viewable};
use kafka_wire::{DecodeError, EncodeError, KafkaMessage};

/// A type of a user's own that the derive takes for a uuid by its name, but whose values have no
/// fixed length: a view that found the fields after it at fixed offsets would misplace them, so
/// the build stops.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Uuid;

impl Codec for Uuid {
    fn encode_value<B: Sink>(&self, _: &mut B, _: Ctx) -> Result<(), EncodeError> {
        Ok(())
    }
    fn value_len(&self, _: Ctx) -> usize {
        0
    }
    fn decode_value(_: &mut Bytes, _: Ctx) -> Result<Self, DecodeError> {
        Ok(Uuid)
    }
}

impl Viewable for Uuid {
    type View<'a> = Uuid;
    fn walk(c: &mut Cursor<'_>, _: Ctx, _: &mut ViewIndex) -> Option<u32> {
        Some(c.place())
    }
    fn view_at<'a>(_: &mut Cursor<'a>, _: Ctx) -> Uuid {
        Uuid
    }
    fn empty<'a>() -> Self::View<'a> {
        Uuid
    }
    fn from_view<'a>(view: Uuid, _: Source<'a>) -> Uuid {
        view
    }
}

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0")]
pub struct Ledger {
    #[kafka(versions = "0+")]
    pub id: Uuid,
    #[kafka(versions = "0+")]
    pub balance: i64,
}

fn main() {}
