//! The view of an array: its elements' views, read in order.

use super::reader::Reader;
use super::viewable::Viewable;
use crate::codec::Ctx;
use core::fmt;
use core::iter::FusedIterator;
use core::marker::PhantomData;

/// The view of a `Vec<T>` field: an array of `count` elements, each read as `T`'s view
/// when the iteration reaches it.
///
/// Elements are read in order: `iter` (or a `for` loop), `first`, and `get`, which steps over
/// the elements before the one it returns. An element that is a struct is one record of the
/// [`ViewIndex`](super::ViewIndex) and the step to the next is one look-up; any other element
/// is read where it lies. A struct of scalars alone, with no tagged field, needs no record when
/// every element's tagged section is empty: the elements are then a fixed stride apart, the
/// step is an addition, and `get` goes straight to its element.
///
/// ```
/// use kafka_wire::messages::WriteTxnMarkersRequest;
/// use kafka_wire::view::View;
///
/// // Version 1: two markers (compact count 3), each with producer id, epoch, result, no topics,
/// // coordinator epoch and an empty tagged section; then the request's tagged section.
/// let mut bytes = vec![3];
/// for id in [7u8, 8] {
///     bytes.extend([0, 0, 0, 0, 0, 0, 0, id, 0, 1, 1, 1, 0, 0, 0, 5, 0]);
/// }
/// bytes.push(0);
/// let mut index = kafka_wire::view::ViewIndex::new();
/// let request = WriteTxnMarkersRequest::view_in(&bytes, 1, &mut index)?;
/// let markers = request.markers();
/// assert_eq!(markers.len(), 2);
/// let ids: Vec<i64> = markers.iter().map(|m| m.producer_id()).collect();
/// assert_eq!(ids, [7, 8]);
/// assert_eq!(markers.get(1).map(|m| m.coordinator_epoch()), Some(5));
/// # Ok::<(), kafka_wire::DecodeError>(())
/// ```
pub struct Array<'a, T> {
    r: Reader<'a>,
    /// Where the first element is: its position, or its record.
    first: u32,
    count: usize,
    /// For elements placed by their start ([`Viewable::PLACED`]) that keep no record, the
    /// bytes from one to the next; 0 otherwise.
    stride: u32,
    cx: Ctx,
    _elements: PhantomData<fn() -> T>,
}

impl<T> Clone for Array<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Array<'_, T> {}

impl<'a, T: Viewable> Array<'a, T> {
    /// The array whose `count` elements start at `first`.
    #[inline]
    pub(crate) fn new(r: Reader<'a>, first: u32, count: usize, cx: Ctx) -> Self {
        Array::placed(r, first, count, 0, cx)
    }

    /// The array whose `count` elements start at byte `first`, `stride` bytes apart, each placed
    /// by its start; with a stride of 0, as [`new`](Self::new).
    #[inline]
    pub(crate) fn placed(r: Reader<'a>, first: u32, count: usize, stride: u32, cx: Ctx) -> Self {
        Array {
            r,
            first,
            count,
            stride,
            cx,
            _elements: PhantomData,
        }
    }

    /// Where the first element is.
    #[inline]
    pub(crate) fn start(&self) -> u32 {
        self.first
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The elements, in order.
    #[inline]
    pub fn iter(&self) -> Iter<'a, T> {
        Iter {
            r: self.r,
            at: self.first,
            left: self.count,
            stride: self.stride,
            cx: self.cx,
            _elements: PhantomData,
        }
    }

    /// The first element.
    #[inline]
    pub fn first(&self) -> Option<T::View<'a>> {
        self.iter().next()
    }

    /// The element at `index`, stepping over the elements before it to find it, or straight
    /// there when the elements are a fixed stride apart.
    pub fn get(&self, index: usize) -> Option<T::View<'a>> {
        if T::PLACED && self.stride != 0 {
            // The elements are inside the input, so the product fits.
            return (index < self.count).then(|| {
                let at = self
                    .first
                    .wrapping_add((index as u32).wrapping_mul(self.stride));
                T::view_placed(self.r, at, self.cx)
            });
        }
        self.iter().nth(index)
    }
}

impl<'a, T: Viewable> Default for Array<'a, T> {
    /// An empty array.
    fn default() -> Self {
        Array::new(Reader::empty(), 0, 0, Ctx::new(0, false))
    }
}

impl<'a, T: Viewable> IntoIterator for Array<'a, T> {
    type Item = T::View<'a>;
    type IntoIter = Iter<'a, T>;

    #[inline]
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<'a, T: Viewable> fmt::Debug for Array<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The elements of an [`Array`], in order.
pub struct Iter<'a, T> {
    r: Reader<'a>,
    at: u32,
    left: usize,
    stride: u32,
    cx: Ctx,
    _elements: PhantomData<fn() -> T>,
}

impl<T> Clone for Iter<'_, T> {
    fn clone(&self) -> Self {
        Iter {
            r: self.r,
            at: self.at,
            left: self.left,
            stride: self.stride,
            cx: self.cx,
            _elements: PhantomData,
        }
    }
}

impl<'a, T: Viewable> Iterator for Iter<'a, T> {
    type Item = T::View<'a>;

    #[inline]
    fn next(&mut self) -> Option<T::View<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left = self.left.wrapping_sub(1);
        let (view, next) = if T::PLACED && self.stride != 0 {
            let view = T::view_placed(self.r, self.at, self.cx);
            (view, self.at.wrapping_add(self.stride))
        } else {
            T::element(self.r, self.at, self.cx)
        };
        self.at = next;
        Some(view)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T: Viewable> ExactSizeIterator for Iter<'_, T> {}

impl<T: Viewable> FusedIterator for Iter<'_, T> {}

impl<'a, T: Viewable> fmt::Debug for Iter<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter")
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}
