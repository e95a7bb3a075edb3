//! The slot mechanics under Miri: through a decoder written by hand, and through derived
//! structs decoded into arrays.

use super::{push_filled, Filled, Slot};
use crate::__private::decode_via_slot;
use crate::codec::{Codec, Ctx, Sink};
use crate::{DecodeError, EncodeError, KafkaString};
use bytes::Bytes;

/// Decodes one `T` into the spare capacity of `items`, as an array's decoder does.
fn push_decoded<T: Codec>(items: &mut Vec<T>, buf: &mut Bytes, cx: Ctx) -> Result<(), DecodeError> {
    push_filled(items, |slot| T::decode_into(buf, cx, slot))
}

/// A value with a heap part, so that Miri sees a leak, a double drop or a read of
/// uninitialised memory if a slot is counted wrongly. When the byte is 0xff its decoder
/// fills the slot and then fails; that value holds nothing on the heap, as it is leaked.
#[derive(Debug, PartialEq)]
struct Boxed(Option<Box<u8>>);

impl Codec for Boxed {
    fn encode_value<B: Sink>(&self, buf: &mut B, _: Ctx) -> Result<(), EncodeError> {
        buf.put_u8(self.0.as_deref().map_or(0xff, |b| *b));
        Ok(())
    }
    fn value_len(&self, _: Ctx) -> usize {
        1
    }
    fn decode_value(buf: &mut Bytes, cx: Ctx) -> Result<Self, DecodeError> {
        decode_via_slot(buf, cx)
    }
    fn decode_into<'a>(
        buf: &mut Bytes,
        cx: Ctx,
        slot: Slot<'a, Self>,
    ) -> Result<Filled<'a, Self>, DecodeError> {
        let byte = i8::decode_value(buf, cx)? as u8;
        if byte == 0xff {
            let _leaked = slot.fill(Boxed(None));
            // Filled, then failed: the value leaks, it is not counted in.
            return Err(DecodeError::eof(1, 0));
        }
        Ok(slot.fill(Boxed(Some(Box::new(byte)))))
    }
}

#[test]
fn elements_are_counted_in_as_they_decode_and_grow_the_vector() {
    let cx = Ctx::new(0, false);
    let mut buf = Bytes::from_static(&[1, 2, 3, 4, 5]);
    let mut items: Vec<Boxed> = Vec::with_capacity(2);
    for _ in 0..5 {
        push_decoded(&mut items, &mut buf, cx).unwrap();
    }
    let got: Vec<u8> = items
        .iter()
        .filter_map(|b| b.0.as_deref().copied())
        .collect();
    assert_eq!(got, [1, 2, 3, 4, 5]);
    assert!(buf.is_empty());
}

#[test]
fn a_decoder_that_fails_after_filling_leaves_the_vector_as_it_was() {
    let cx = Ctx::new(0, false);
    let mut buf = Bytes::from_static(&[7, 0xff]);
    let mut items: Vec<Boxed> = Vec::new();
    push_decoded(&mut items, &mut buf, cx).unwrap();
    assert!(push_decoded(&mut items, &mut buf, cx).is_err());
    assert_eq!(items, [Boxed(Some(Box::new(7)))]);
    // The end of the input: an error before anything is written.
    assert!(push_decoded(&mut items, &mut buf, cx).is_err());
    assert_eq!(items.len(), 1);
}

#[test]
fn a_value_read_on_its_own_goes_through_a_slot_on_the_stack() {
    let cx = Ctx::new(0, false);
    let mut buf = Bytes::from_static(&[9]);
    assert_eq!(
        Boxed::decode_value(&mut buf, cx).unwrap(),
        Boxed(Some(Box::new(9)))
    );
    assert!(Boxed::decode_value(&mut Bytes::from_static(&[0xff]), cx).is_err());
}

/// The shape of a `WriteTxnMarkersRequest`: arrays of structs holding arrays of structs,
/// a field of one version only, and flexible versions. (The catalogue's messages are in
/// crates that depend on this one.)
mod shapes {
    // Not every setter the derive writes is used.
    #![allow(dead_code)]
    use crate::{IntArray, KafkaMessage, KafkaString, UnknownTaggedFields};

    #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
    #[kafka(crate = "crate", versions = "0-2", flexible = "1+")]
    pub struct Markers {
        #[kafka(versions = "0+")]
        pub markers: Vec<Marker>,
        #[kafka(unknown_tagged_fields)]
        pub unknown_tagged_fields: UnknownTaggedFields,
    }

    #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
    #[kafka(crate = "crate")]
    pub struct Marker {
        #[kafka(versions = "0+")]
        pub producer_id: i64,
        #[kafka(versions = "0+")]
        pub topics: Vec<Topic>,
        #[kafka(versions = "2+", ignorable)]
        pub transaction_version: i8,
        #[kafka(unknown_tagged_fields)]
        pub unknown_tagged_fields: UnknownTaggedFields,
    }

    #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
    #[kafka(crate = "crate")]
    pub struct Topic {
        #[kafka(versions = "0+")]
        pub name: KafkaString,
        #[kafka(versions = "0+")]
        pub partition_indexes: IntArray<i32>,
        #[kafka(unknown_tagged_fields)]
        pub unknown_tagged_fields: UnknownTaggedFields,
    }
}

#[test]
fn derived_structs_decode_into_their_arrays() {
    use crate::{Decode, Encode};
    use shapes::{Marker, Markers, Topic};
    let topic = |name: &'static str| {
        Topic::default()
            .with_name(KafkaString::from_static(name))
            .with_partition_indexes(vec![1, 2, 3].into())
    };
    let marker = |id: i64| {
        Marker::default()
            .with_producer_id(id)
            .with_topics(vec![topic("a"), topic("bb")])
    };
    let request = Markers::default().with_markers((0..5).map(marker).collect());
    for version in 0..=2 {
        let bytes = request.encode_to_bytes(version).unwrap();
        let back = Markers::decode_exact(bytes.clone(), version).unwrap();
        assert_eq!(back, request);
        // Cut anywhere: an error, and nothing half-built is counted in or leaked.
        for cut in 0..bytes.len() {
            assert!(Markers::decode_exact(bytes.slice(..cut), version).is_err());
        }
    }
}

#[test]
fn the_default_decoder_fills_through_decode_value() {
    // `KafkaString` keeps the trait's `decode_into`, which reads and then fills.
    let cx = Ctx::new(0, false);
    let mut buf = Bytes::from_static(&[0, 2, b'h', b'i', 0, 1, b'x']);
    let mut items: Vec<KafkaString> = Vec::new();
    push_decoded(&mut items, &mut buf, cx).unwrap();
    push_decoded(&mut items, &mut buf, cx).unwrap();
    assert_eq!(items, ["hi", "x"]);
}
