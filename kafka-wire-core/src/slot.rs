//! Decoding a value straight into the place that keeps it: the element of an array, without a
//! copy through the stack. The crate's one module with `unsafe` code.
//!
//! # Why
//!
//! A decoder that returns its struct writes the fields one by one into a temporary, and the
//! caller then copies the whole struct into the vector with wide loads; the wide loads wait for
//! the narrow stores that have not yet reached the cache, once per element. With the nested
//! decoder inlined into each array's loop the compiler stores straight into the vector instead,
//! but the catalogue then costs 2.9 s more to build, on a build of 19 s (`tools/compile-cost.sh`
//! on the library alone, medians of three: 18.9 s against 16.1 s), because every struct's
//! decoder is copied into every array of it and into the arrays around those. Called and
//! copied, a large WriteTxnMarkersResponse decoded in 106 µs against 44 µs inlined (the
//! messages bench). Through a [`Slot`], the struct's decoder is compiled once, out of line, and
//! still writes its fields where they stay: 58 to 62 µs, faster than the hand-written codec.
//!
//! # The invariant
//!
//! A [`Filled`] exists only once [`Slot::fill`] has written a value into its slot: it is the
//! proof that the place is initialised. Nothing outside this module can make a `Slot` or a
//! `Filled`, and a `Filled` is tied to its slot's lifetime, so a decoder can hand back no other
//! proof than that of the slot it was given; [`push_decoded`] checks that the proof points at
//! that slot all the same before it counts the element into the vector. A decoder that fails or
//! panics after filling its slot leaks the value (it is never counted into the vector), which is
//! safe.
//!
//! The tests at the bottom run under Miri: `cargo miri test -p kafka-wire --lib slot`.

use crate::codec::{Codec, Ctx};
use crate::DecodeError;
use bytes::Bytes;
use core::mem::MaybeUninit;

/// Uninitialised room for one `T`, given to [`Codec::decode_into`].
pub struct Slot<'a, T> {
    place: &'a mut MaybeUninit<T>,
}

/// Proof that a [`Slot`] holds a value: only [`Slot::fill`] makes one.
#[must_use = "a decoder returns the proof that it filled its slot"]
pub struct Filled<'a, T> {
    place: &'a mut T,
}

impl<'a, T> Slot<'a, T> {
    /// Writes `value` into the slot.
    #[inline]
    pub fn fill(self, value: T) -> Filled<'a, T> {
        Filled {
            place: self.place.write(value),
        }
    }
}

/// Panics unless `filled` is the proof for the slot at `target`. It cannot fail: the only
/// proof a decoder can return is that of the slot it was given (see the module's invariant);
/// the check keeps the `unsafe` blocks below from resting on that argument alone.
#[inline]
fn check_proof<T>(filled: &Filled<'_, T>, target: *const MaybeUninit<T>) {
    assert!(
        core::ptr::eq(&*filled.place as *const T, target.cast::<T>()),
        "a decoder handed back another slot's proof"
    );
}

/// Decodes one `T` into the spare capacity of `items` and counts it in, growing `items` if it
/// is full.
#[inline]
pub(crate) fn push_decoded<T: Codec>(
    items: &mut Vec<T>,
    buf: &mut Bytes,
    cx: Ctx,
) -> Result<(), DecodeError> {
    items.reserve(1);
    let len = items.len();
    let Some(place) = items.spare_capacity_mut().first_mut() else {
        // `reserve(1)` leaves room for one more.
        unreachable!("no room after reserving one element");
    };
    let target: *const MaybeUninit<T> = place;
    let filled = T::decode_into(buf, cx, Slot { place })?;
    check_proof(&filled, target);
    // SAFETY: `filled` proves that `Slot::fill` wrote a `T` at `target`, which is the place
    // right after the last element of `items` (checked above), within its capacity. `len` is
    // below the capacity, as that place exists, so `len + 1` does not overflow.
    unsafe { items.set_len(len.wrapping_add(1)) };
    Ok(())
}

/// Decodes a `T` through its [`Codec::decode_into`] and returns it: how a struct whose decoder
/// writes into a slot is read on its own (a field, not an element).
#[inline]
pub fn decode_via_slot<T: Codec>(buf: &mut Bytes, cx: Ctx) -> Result<T, DecodeError> {
    let mut place = MaybeUninit::<T>::uninit();
    let target: *const MaybeUninit<T> = &place;
    let filled = T::decode_into(buf, cx, Slot { place: &mut place })?;
    check_proof(&filled, target);
    // SAFETY: `filled` proves that `Slot::fill` wrote a `T` into `place` (checked above).
    Ok(unsafe { place.assume_init() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Sink;
    use crate::EncodeError;
    use crate::KafkaString;

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
        #[kafka(versions = "0-2", flexible = "1+")]
        pub struct Markers {
            #[kafka(versions = "0+")]
            pub markers: Vec<Marker>,
            #[kafka(unknown_tagged_fields)]
            pub unknown_tagged_fields: UnknownTaggedFields,
        }

        #[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
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
}
