//! Arrays of fixed-width integers (replica lists, partition indexes, ...), zero-copy when
//! decoded.

use bytes::{BufMut, Bytes, BytesMut};
use core::fmt;

mod sealed {
    pub trait Sealed {}
}

/// An integer an [`IntArray`] holds: `i8`, `i16`, `u16`, `i32`, `u32` or `i64`, big-endian on
/// the wire.
pub trait Int: Copy + PartialEq + fmt::Debug + sealed::Sealed {
    /// Its width in bytes.
    const SIZE: usize;

    #[doc(hidden)]
    /// Reads one from exactly [`SIZE`](Self::SIZE) bytes; any other length gives zero (the
    /// callers only pass chunks of that size).
    fn from_be_slice(bytes: &[u8]) -> Self;

    #[doc(hidden)]
    fn put<B: BufMut>(self, buf: &mut B);
}

macro_rules! int {
    ($($ty:ty => $put:ident),*) => {$(
        impl sealed::Sealed for $ty {}

        impl Int for $ty {
            const SIZE: usize = core::mem::size_of::<$ty>();

            #[inline]
            fn from_be_slice(bytes: &[u8]) -> Self {
                bytes.try_into().map_or(0, <$ty>::from_be_bytes)
            }

            #[inline]
            fn put<B: BufMut>(self, buf: &mut B) {
                buf.$put(self);
            }
        }
    )*};
}

int!(i8 => put_i8, i16 => put_i16, u16 => put_u16, i32 => put_i32, u32 => put_u32, i64 => put_i64);

/// An array of fixed-width integers, held as their big-endian bytes: up to 23 bytes (five
/// `i32`s) in place, longer ones as a view of the buffer they were decoded from (or one buffer
/// of their own when built). Decoding one allocates nothing, whatever its length.
///
/// Kafka's `[]int32` fields (replica and ISR lists, partition indexes, ...) have this type. It
/// is built from a `Vec`, an array, a slice or an iterator (`vec![1, 2, 3].into()`,
/// `[1, 2, 3].into()`, `collect()`) and read like a slice: [`len`](Self::len),
/// [`get`](Self::get), [`iter`](Self::iter) (by value), `for` loops, comparison with slices,
/// arrays and `Vec`s. To change one, take its values with [`to_vec`](Self::to_vec) and build a
/// new one; [`extend`](Extend::extend) copies the array once. Encoding it is one copy of its
/// bytes.
///
/// ```
/// use kafka_wire::IntArray;
///
/// let replicas: IntArray<i32> = vec![1, 2, 3].into();
/// assert_eq!(replicas.len(), 3);
/// assert_eq!(replicas.get(1), Some(2));
/// assert!(replicas.iter().all(|id| id > 0));
/// assert_eq!(replicas, [1, 2, 3]);
/// let mut ids = replicas.to_vec();
/// ids.push(4);
/// let grown: IntArray<i32> = ids.into();
/// assert_eq!(grown.last(), Some(4));
/// ```
#[derive(Clone)]
pub struct IntArray<T: Int> {
    /// Big-endian values; the length is a multiple of the width.
    repr: Repr,
    _values: core::marker::PhantomData<T>,
}

/// How many bytes of values an array keeps in place.
const INLINE: usize = 23;

/// Short arrays (replica lists, ...) are copied in place rather than shared: sharing a buffer
/// costs an atomic increment when an array is read and a decrement when it is dropped, which
/// for a MetadataResponse of 10,000 partitions was a third of decoding it
/// (benches/messages.rs). The inline form fits beside the shared one: the type is as large as
/// a `Bytes`.
#[derive(Clone)]
enum Repr {
    /// `data[..len]` are the values; what follows them is not part of the array.
    Inline {
        data: [u8; INLINE],
        len: u8,
    },
    Shared(Bytes),
}

impl Repr {
    /// `bytes` in place, or `None` when they are too many.
    #[inline]
    fn from_slice(bytes: &[u8]) -> Option<Self> {
        (bytes.len() <= INLINE).then(|| Repr::copy(bytes))
    }

    /// The first `INLINE` bytes of `bytes` (all of them, when the caller has checked).
    #[inline]
    fn copy(bytes: &[u8]) -> Self {
        let len = bytes.len().min(INLINE);
        let mut data = [0u8; INLINE];
        if let (Some(to), Some(from)) = (data.get_mut(..len), bytes.get(..len)) {
            to.copy_from_slice(from);
        }
        Repr::Inline {
            data,
            // At most `INLINE`, which fits a byte.
            len: len as u8,
        }
    }

    /// The first `len` bytes of `window`, a window of the input at least as long, kept in
    /// place: a copy of fixed size (two moves) rather than a call to `memcpy` for a few bytes,
    /// which, with the store-to-load stall that followed it, was a third of decoding a large
    /// MetadataResponse. The bytes after `len` are the input's next bytes, outside the array.
    #[inline]
    fn from_window(window: &[u8; INLINE], len: usize) -> Self {
        Repr::Inline {
            data: *window,
            // At most `INLINE`, which fits a byte.
            len: len.min(INLINE) as u8,
        }
    }

    #[inline]
    fn bytes(&self) -> &[u8] {
        match self {
            Repr::Inline { data, len } => data.get(..usize::from(*len)).unwrap_or_default(),
            Repr::Shared(bytes) => bytes,
        }
    }
}

impl<T: Int> IntArray<T> {
    /// An empty array (no allocation).
    pub const fn new() -> Self {
        IntArray {
            repr: Repr::Inline {
                len: 0,
                data: [0; INLINE],
            },
            _values: core::marker::PhantomData,
        }
    }

    /// The values whose big-endian bytes are `bytes`, kept in place when short and shared
    /// otherwise; `None` if their length is not a multiple of the width.
    #[inline]
    pub fn from_be_bytes(bytes: Bytes) -> Option<Self> {
        if !bytes.len().is_multiple_of(T::SIZE) {
            return None;
        }
        let repr = Repr::from_slice(&bytes).unwrap_or(Repr::Shared(bytes));
        Some(IntArray {
            repr,
            _values: core::marker::PhantomData,
        })
    }

    /// Takes the values of an array of `len` bytes off the front of `buf`: copied in place
    /// when short, shared with `buf` otherwise. `len` is a multiple of the width, within `buf`.
    #[inline]
    pub(crate) fn take_from(buf: &mut Bytes, len: usize) -> Self {
        let len = len.min(buf.len());
        let repr = if len > INLINE {
            Repr::Shared(buf.split_to(len))
        } else {
            let repr = match buf.first_chunk::<INLINE>() {
                Some(window) => Repr::from_window(window, len),
                None => Repr::copy(buf.get(..len).unwrap_or_default()),
            };
            bytes::Buf::advance(buf, len);
            repr
        };
        IntArray {
            repr,
            _values: core::marker::PhantomData,
        }
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.byte_len() / T::SIZE
    }

    /// The length of the values' bytes, without making a slice of them.
    #[inline]
    pub(crate) fn byte_len(&self) -> usize {
        match &self.repr {
            Repr::Inline { len, .. } => usize::from(*len),
            Repr::Shared(bytes) => bytes.len(),
        }
    }

    /// True when there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.byte_len() == 0
    }

    /// The values, borrowed: what the array's reading methods read through.
    #[inline]
    pub fn as_ints(&self) -> Ints<'_, T> {
        Ints::new(self.as_be_bytes())
    }

    /// The value at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<T> {
        self.as_ints().get(index)
    }

    /// The first value.
    pub fn first(&self) -> Option<T> {
        self.as_ints().first()
    }

    /// The last value.
    pub fn last(&self) -> Option<T> {
        self.as_ints().last()
    }

    /// True when `value` is one of the values.
    pub fn contains(&self, value: T) -> bool {
        self.as_ints().contains(value)
    }

    /// The values, in order, by value.
    #[inline]
    pub fn iter(&self) -> Iter<'_, T> {
        self.as_ints().iter()
    }

    /// The values in a new `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }

    /// The values as big-endian bytes, as they are on the wire.
    #[inline]
    pub fn as_be_bytes(&self) -> &[u8] {
        self.repr.bytes()
    }
}

impl<T: Int> Default for IntArray<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Equal values have equal bytes.
impl<T: Int> PartialEq for IntArray<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_be_bytes() == other.as_be_bytes()
    }
}

impl<T: Int> Eq for IntArray<T> {}

impl<T: Int> core::hash::Hash for IntArray<T> {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_be_bytes().hash(state);
    }
}

impl<T: Int> fmt::Debug for IntArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Int> PartialEq<[T]> for IntArray<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_ints() == *other
    }
}

impl<T: Int, const N: usize> PartialEq<[T; N]> for IntArray<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        *self == other[..]
    }
}

impl<T: Int> PartialEq<Vec<T>> for IntArray<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        *self == other[..]
    }
}

impl<T: Int> PartialEq<IntArray<T>> for Vec<T> {
    fn eq(&self, other: &IntArray<T>) -> bool {
        *other == self[..]
    }
}

impl<T: Int> PartialEq<IntArray<T>> for [T] {
    fn eq(&self, other: &IntArray<T>) -> bool {
        *other == *self
    }
}

impl<T: Int, const N: usize> PartialEq<IntArray<T>> for [T; N] {
    fn eq(&self, other: &IntArray<T>) -> bool {
        *other == self[..]
    }
}

impl<T: Int> From<&[T]> for IntArray<T> {
    fn from(values: &[T]) -> Self {
        values.iter().copied().collect()
    }
}

impl<T: Int> From<Vec<T>> for IntArray<T> {
    fn from(values: Vec<T>) -> Self {
        values.as_slice().into()
    }
}

impl<T: Int, const N: usize> From<[T; N]> for IntArray<T> {
    fn from(values: [T; N]) -> Self {
        values.as_slice().into()
    }
}

impl<T: Int> From<IntArray<T>> for Vec<T> {
    fn from(array: IntArray<T>) -> Self {
        array.to_vec()
    }
}

impl<T: Int> FromIterator<T> for IntArray<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let iter = iter.into_iter();
        let mut bytes = BytesMut::with_capacity(iter.size_hint().0.saturating_mul(T::SIZE));
        for v in iter {
            v.put(&mut bytes);
        }
        let repr = Repr::from_slice(&bytes).unwrap_or_else(|| Repr::Shared(bytes.freeze()));
        IntArray {
            repr,
            _values: core::marker::PhantomData,
        }
    }
}

impl<T: Int> Extend<T> for IntArray<T> {
    /// Copies the values already held once, then appends.
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        let mut bytes = BytesMut::from(self.as_be_bytes());
        for v in iter {
            v.put(&mut bytes);
        }
        self.repr = Repr::from_slice(&bytes).unwrap_or_else(|| Repr::Shared(bytes.freeze()));
    }
}

impl<'a, T: Int> IntoIterator for &'a IntArray<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// Integers read in place from big-endian bytes: the view of an [`IntArray`] field
/// (`kafka_wire::view`), and what an `IntArray` reads through
/// ([`as_ints`](IntArray::as_ints)). Copying one copies a reference.
///
/// ```
/// use kafka_wire::IntArray;
///
/// let replicas: IntArray<i32> = vec![1, 2, 3].into();
/// let ints = replicas.as_ints();
/// assert_eq!((ints.len(), ints.get(2), ints.last()), (3, Some(3), Some(3)));
/// assert_eq!(ints, [1, 2, 3]);
/// assert_eq!(ints.iter().sum::<i32>(), 6);
/// ```
pub struct Ints<'a, T> {
    /// Big-endian values; the length is a multiple of the width.
    bytes: &'a [u8],
    _values: core::marker::PhantomData<T>,
}

impl<T> Clone for Ints<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Ints<'_, T> {}

impl<'a, T: Int> Ints<'a, T> {
    /// The values of `bytes`, whose length the caller has made a multiple of the width (a
    /// partial value at the end is never read).
    #[inline]
    pub(crate) const fn new(bytes: &'a [u8]) -> Self {
        Ints {
            bytes,
            _values: core::marker::PhantomData,
        }
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() / T::SIZE
    }

    /// True when there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bytes.len() < T::SIZE
    }

    /// The value at `index`.
    #[inline]
    pub fn get(&self, index: usize) -> Option<T> {
        let start = index.checked_mul(T::SIZE)?;
        let end = start.checked_add(T::SIZE)?;
        self.bytes.get(start..end).map(T::from_be_slice)
    }

    /// The first value.
    pub fn first(&self) -> Option<T> {
        self.get(0)
    }

    /// The last value.
    pub fn last(&self) -> Option<T> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// True when `value` is one of the values.
    pub fn contains(&self, value: T) -> bool {
        self.iter().any(|v| v == value)
    }

    /// The values, in order, by value.
    #[inline]
    pub fn iter(&self) -> Iter<'a, T> {
        Iter {
            chunks: self.bytes.chunks_exact(T::SIZE),
            _values: core::marker::PhantomData,
        }
    }

    /// The values in a new `Vec`.
    pub fn to_vec(&self) -> Vec<T> {
        self.iter().collect()
    }

    /// The values as big-endian bytes, as they are on the wire.
    #[inline]
    pub fn as_be_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

impl<T: Int> Default for Ints<'_, T> {
    /// No values.
    fn default() -> Self {
        Ints::new(&[])
    }
}

impl<T: Int> fmt::Debug for Ints<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Equal values have equal bytes.
impl<T: Int> PartialEq for Ints<'_, T> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<T: Int> Eq for Ints<'_, T> {}

impl<T: Int> PartialEq<[T]> for Ints<'_, T> {
    fn eq(&self, other: &[T]) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter().copied())
    }
}

impl<T: Int, const N: usize> PartialEq<[T; N]> for Ints<'_, T> {
    fn eq(&self, other: &[T; N]) -> bool {
        *self == other[..]
    }
}

impl<T: Int> PartialEq<Vec<T>> for Ints<'_, T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        *self == other[..]
    }
}

impl<T: Int> PartialEq<IntArray<T>> for Ints<'_, T> {
    fn eq(&self, other: &IntArray<T>) -> bool {
        *self == other.as_ints()
    }
}

impl<'a, T: Int> IntoIterator for Ints<'a, T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// The values of an [`IntArray`], by value.
#[derive(Clone, Debug)]
pub struct Iter<'a, T> {
    chunks: core::slice::ChunksExact<'a, u8>,
    _values: core::marker::PhantomData<T>,
}

impl<T: Int> Iterator for Iter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.chunks.next().map(T::from_be_slice)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<T: Int> DoubleEndedIterator for Iter<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        self.chunks.next_back().map(T::from_be_slice)
    }
}

impl<T: Int> ExactSizeIterator for Iter<'_, T> {}

impl<T: Int> core::iter::FusedIterator for Iter<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_and_built_arrays_read_and_compare_alike() {
        let wire: IntArray<i32> =
            IntArray::from_be_bytes(Bytes::from_static(&[0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe]))
                .unwrap();
        let built: IntArray<i32> = vec![1, -2].into();
        assert_eq!(wire, built);
        assert_eq!(wire, [1, -2]);
        assert_eq!(vec![1, -2], wire);
        assert_eq!((wire.len(), wire.get(1), wire.get(2)), (2, Some(-2), None));
        assert_eq!(wire.iter().rev().collect::<Vec<_>>(), [-2, 1]);
        assert_eq!((wire.first(), wire.last()), (Some(1), Some(-2)));
        assert!(wire.contains(-2) && !wire.contains(3));
        assert_eq!(format!("{wire:?}"), "[1, -2]");
        assert_eq!(built.as_be_bytes(), wire.as_be_bytes());
        let long: IntArray<i64> = (0..10).collect();
        let shared = IntArray::<i64>::from_be_bytes(Bytes::copy_from_slice(long.as_be_bytes()));
        assert_eq!(shared.as_ref(), Some(&long));
        assert_eq!(long.get(9), Some(9));

        let mut grown = wire.clone();
        grown.extend([7]);
        assert_eq!(grown, [1, -2, 7]);
        assert_eq!(wire, [1, -2]);
        assert!(IntArray::<i16>::from_be_bytes(Bytes::from_static(&[1, 2, 3])).is_none());
        assert!(IntArray::<i64>::new().is_empty());
        let collected: IntArray<u16> = (1..=3).collect();
        assert_eq!(collected.as_be_bytes(), [0, 1, 0, 2, 0, 3]);
    }
}
