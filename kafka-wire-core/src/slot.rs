//! Decoding a value straight into the place that keeps it: the element of an array, without a
//! copy through the stack. One of the crate's three modules with `unsafe` code (the others are
//! `ascii` and `opaque`).
//!
//! # Why
//!
//! A decoder that returns its struct writes the fields one by one into a temporary, and the
//! caller then copies the whole struct into the vector with wide loads; the wide loads wait for
//! the narrow stores that have not yet reached the cache, once per element. With the nested
//! decoder inlined into each array's loop the compiler stores straight into the vector instead,
//! but then every struct's decoder is copied into every array of it and into the arrays around
//! those, and the catalogue takes much longer to build. Through a [`Slot`], the struct's
//! decoder is compiled once, out of line, and still writes its fields where they stay: as fast
//! as inlined, and faster than a codec written by hand for the message (BENCHMARKS.md, "Why the
//! code is written so").
//!
//! # The invariant
//!
//! A [`Filled`] exists only once [`Slot::fill`] has written a value into its slot: it is the
//! proof that the place is initialised. Nothing outside this module can make a `Slot` or a
//! `Filled`, and a `Filled` is tied to its slot's lifetime, so a decoder can hand back no other
//! proof than that of the slot it was given; [`push_filled`] checks that the proof points at
//! that slot all the same before it counts the element into the vector. A decoder that fails or
//! panics after filling its slot leaks the value (it is never counted into the vector), which is
//! safe.
//!
//! Its tests (`slot/tests.rs`) run under Miri: `cargo miri test -p kafka-wire-core --lib slot`.

use core::mem::MaybeUninit;

/// Uninitialised room for one `T`, given to
/// [`Codec::decode_into`](crate::codec::Codec::decode_into).
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

/// Fills one `T` into the spare capacity of `items` with `fill` and counts it in, growing
/// `items` if it is full. `fill` is a decoder's `decode_into`; this module knows nothing of
/// decoding, only of places and their proofs.
#[inline]
pub(crate) fn push_filled<T, E>(
    items: &mut Vec<T>,
    fill: impl for<'a> FnOnce(Slot<'a, T>) -> Result<Filled<'a, T>, E>,
) -> Result<(), E> {
    items.reserve(1);
    let len = items.len();
    let Some(place) = items.spare_capacity_mut().first_mut() else {
        // `reserve(1)` leaves room for one more.
        unreachable!("no room after reserving one element");
    };
    let target: *const MaybeUninit<T> = place;
    let filled = fill(Slot { place })?;
    check_proof(&filled, target);
    // SAFETY: `filled` proves that `Slot::fill` wrote a `T` at `target`, which is the place
    // right after the last element of `items` (checked above), within its capacity. `len` is
    // below the capacity, as that place exists, so `len + 1` does not overflow.
    unsafe { items.set_len(len.wrapping_add(1)) };
    Ok(())
}

/// A `T` filled in by `fill` (a decoder's `decode_into`) on the stack and returned: how a
/// struct whose decoder writes into a slot is read on its own (a field, not an element).
#[inline]
pub(crate) fn filled<T, E>(
    fill: impl for<'a> FnOnce(Slot<'a, T>) -> Result<Filled<'a, T>, E>,
) -> Result<T, E> {
    let mut place = MaybeUninit::<T>::uninit();
    let target: *const MaybeUninit<T> = &place;
    let filled = fill(Slot { place: &mut place })?;
    check_proof(&filled, target);
    // SAFETY: `filled` proves that `Slot::fill` wrote a `T` into `place` (checked above).
    Ok(unsafe { place.assume_init() })
}

// The tests run under Miri; they decode through the codecs, which this module does not know.
#[cfg(test)]
mod tests;
