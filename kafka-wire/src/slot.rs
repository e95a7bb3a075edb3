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
//! proof than that of the slot it was given; [`fill_raw`] checks that the proof points at
//! that slot all the same before [`fill_run`] counts the element into the vector. A decoder that fails or
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

/// Decodes one `T` into `place`. This is a slot with its type erased, so that one loop
/// ([`fill_run`]) serves every element type; each type adds only this small function.
///
/// # Safety
/// `place` must be valid for writes of one `T`, and aligned for it.
unsafe fn fill_raw<T: Codec>(place: *mut u8, buf: &mut Bytes, cx: Ctx) -> Result<(), DecodeError> {
    // SAFETY: valid and aligned by the caller's promise; any bytes are a valid `MaybeUninit`.
    let place = unsafe { &mut *place.cast::<MaybeUninit<T>>() };
    let target: *const MaybeUninit<T> = place;
    let filled = T::decode_into(buf, cx, Slot { place })?;
    check_proof(&filled, target);
    Ok(())
}

/// [`fill_raw`] for some element type.
type FillFn = unsafe fn(*mut u8, &mut Bytes, Ctx) -> Result<(), DecodeError>;

/// Fills the elements from `*len` up to `end` one after the other, and counts each into `*len`
/// once it is filled. Not generic, and never inlined: the catalogue has about 300 element types,
/// and a loop for each of them was a quarter of the library's code for the compiler's backend
/// (`cargo llvm-lines`); the call through `fill` costs no more than the call to each struct's
/// out-of-line decoder did.
///
/// # Safety
/// `base` must point at room for `end` elements of `size` bytes each, of the type that `fill`
/// writes, and aligned for it.
#[inline(never)]
unsafe fn fill_run(
    base: *mut u8,
    size: usize,
    len: &mut usize,
    end: usize,
    fill: FillFn,
    buf: &mut Bytes,
    cx: Ctx,
) -> Result<(), DecodeError> {
    while *len < end {
        // SAFETY: `*len < end`, so the place lies within the room the caller promises, whose
        // size in bytes (at most `isize::MAX`) the offset cannot overflow.
        unsafe { fill(base.add((*len).wrapping_mul(size)), buf, cx)? };
        // Below `end`, so no overflow.
        *len = (*len).wrapping_add(1);
    }
    Ok(())
}

/// Decodes elements into the spare capacity of `items` and counts each in once it is filled,
/// until `items` holds `count` elements or is full, or an element fails to decode. The caller
/// grows `items` when it is full before `count`.
#[inline]
pub(crate) fn extend_decoded<T: Codec>(
    items: &mut Vec<T>,
    count: usize,
    buf: &mut Bytes,
    cx: Ctx,
) -> Result<(), DecodeError> {
    let end = count.min(items.capacity());
    let mut len = items.len();
    let base = items.as_mut_ptr().cast::<u8>();
    // SAFETY: the vector's buffer at `base` has room for `capacity() >= end` elements of
    // `size_of::<T>()` bytes, aligned for `T`, which is what `fill_raw::<T>` writes.
    let result = unsafe {
        fill_run(
            base,
            core::mem::size_of::<T>(),
            &mut len,
            end,
            fill_raw::<T>,
            buf,
            cx,
        )
    };
    // SAFETY: `fill_run` counted into `len` the elements it had filled (each proven by its
    // `Filled`), all below `end <= capacity()`, after the `len()` elements already there.
    unsafe { items.set_len(len) };
    result
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
    fn elements_fill_the_spare_capacity_and_stop_when_it_is_full() {
        let cx = Ctx::new(0, false);
        let mut buf = Bytes::from_static(&[1, 2, 3, 4, 5]);
        let mut items: Vec<Boxed> = Vec::with_capacity(2);
        extend_decoded(&mut items, 5, &mut buf, cx).unwrap();
        assert_eq!(items.len(), items.capacity());
        assert_eq!(buf.len(), 5 - items.len());
        // The caller grows the vector and goes on, as an array's decoder does.
        while items.len() < 5 {
            items.reserve(1);
            extend_decoded(&mut items, 5, &mut buf, cx).unwrap();
        }
        let got: Vec<u8> = items
            .iter()
            .filter_map(|b| b.0.as_deref().copied())
            .collect();
        assert_eq!(got, [1, 2, 3, 4, 5]);
        assert!(buf.is_empty());
        // Nothing more once the count is reached, however much room is left.
        items.reserve(10);
        extend_decoded(&mut items, 5, &mut Bytes::from_static(&[6]), cx).unwrap();
        assert_eq!(items.len(), 5);
    }

    #[test]
    fn a_decoder_that_fails_after_filling_leaves_the_vector_as_it_was() {
        let cx = Ctx::new(0, false);
        let mut buf = Bytes::from_static(&[7, 0xff]);
        let mut items: Vec<Boxed> = Vec::with_capacity(4);
        assert!(extend_decoded(&mut items, 4, &mut buf, cx).is_err());
        assert_eq!(items, [Boxed(Some(Box::new(7)))]);
        // The end of the input: an error before anything is written.
        assert!(extend_decoded(&mut items, 4, &mut buf, cx).is_err());
        assert_eq!(items.len(), 1);
    }

    #[test]
    fn zero_sized_elements_are_counted_without_memory() {
        #[derive(Debug, PartialEq)]
        struct Unit;
        impl Codec for Unit {
            fn encode_value<B: Sink>(&self, _: &mut B, _: Ctx) -> Result<(), EncodeError> {
                Ok(())
            }
            fn value_len(&self, _: Ctx) -> usize {
                0
            }
            fn decode_value(_: &mut Bytes, _: Ctx) -> Result<Self, DecodeError> {
                Ok(Unit)
            }
        }
        let mut items: Vec<Unit> = Vec::new();
        extend_decoded(&mut items, 3, &mut Bytes::new(), Ctx::new(0, false)).unwrap();
        assert_eq!(items, [Unit, Unit, Unit]);
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

    #[test]
    fn derived_structs_decode_into_their_arrays() {
        use crate::messages::write_txn_markers_request::{
            WritableTxnMarker, WritableTxnMarkerTopic, WriteTxnMarkersRequest,
        };
        use crate::{Decode, Encode};
        let topic = |name: &'static str| {
            WritableTxnMarkerTopic::default()
                .with_name(KafkaString::from_static(name))
                .with_partition_indexes(vec![1, 2, 3].into())
        };
        let marker = |id: i64| {
            WritableTxnMarker::default()
                .with_producer_id(id)
                .with_topics(vec![topic("a"), topic("bb")])
        };
        let request = WriteTxnMarkersRequest::default().with_markers((0..5).map(marker).collect());
        for version in 0..=2 {
            let bytes = request.encode_to_bytes(version).unwrap();
            let back = WriteTxnMarkersRequest::decode_exact(bytes.clone(), version).unwrap();
            assert_eq!(back, request);
            // Cut anywhere: an error, and nothing half-built is counted in or leaked.
            for cut in 0..bytes.len() {
                assert!(WriteTxnMarkersRequest::decode_exact(bytes.slice(..cut), version).is_err());
            }
        }
    }

    #[test]
    fn the_default_decoder_fills_through_decode_value() {
        // `KafkaString` keeps the trait's `decode_into`, which reads and then fills.
        let cx = Ctx::new(0, false);
        let mut buf = Bytes::from_static(&[0, 2, b'h', b'i', 0, 1, b'x']);
        let mut items: Vec<KafkaString> = Vec::with_capacity(2);
        extend_decoded(&mut items, 2, &mut buf, cx).unwrap();
        assert_eq!(items, ["hi", "x"]);
    }
}
