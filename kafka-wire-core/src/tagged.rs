//! The tagged-field section that ends every struct in a flexible version.
//!
//! On the wire: an unsigned varint count, then per field its tag, its size and its bytes, in
//! ascending tag order. Tags the struct does not know are kept as raw bytes, in the order they
//! came, so that a proxy or a newer peer's message loses nothing on its way through.

use crate::codec::{Ctx, Sink};
use crate::primitives::varint::{get_uvarint_in, put_uvarint, uvarint_len};
use crate::{DecodeError, EncodeError, ErrorKind};
use bytes::{Buf, Bytes};
use core::mem::ManuallyDrop;

/// A tagged field that a struct did not recognise, exactly as it was on the wire.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RawTaggedField {
    /// Its tag.
    pub tag: u32,
    /// Its bytes, after the tag and size.
    pub data: Bytes,
}

/// The tagged fields a struct did not recognise, in wire order, duplicates included.
///
/// Declare one per struct with `#[kafka(unknown_tagged_fields)]`. When the struct is encoded
/// again, each raw field is written back byte for byte, merged by tag with the fields the
/// struct knows.
///
/// ```
/// use kafka_wire::{RawTaggedField, UnknownTaggedFields};
///
/// let mut unknown = UnknownTaggedFields::default();
/// unknown.push(RawTaggedField { tag: 7, data: bytes::Bytes::from_static(&[1, 2]) });
/// assert_eq!(unknown.len(), 1);
/// assert_eq!(unknown.iter().next().unwrap().tag, 7);
/// ```
//
// Every struct of a flexible message holds one, and it is nearly always empty: boxed, it takes
// one word in the struct instead of a `Vec`'s three (a large MetadataResponse decodes into
// 16 bytes less per partition, and allocates nothing more while it is empty).
#[derive(Default, Eq)]
// The box is the point: one word in every struct, for the rare struct that has any.
#[allow(clippy::box_collection)]
pub struct UnknownTaggedFields(ManuallyDrop<Option<Box<Vec<RawTaggedField>>>>);

// Dropping a struct drops its unknown tagged fields, and every struct of the catalogue has
// them: left to the compiler, the loop over the fields, their buffers and the two frees would be
// inlined into the drop of each of those structs and of every array of them, which the
// catalogue's build time shows. Here a struct drop tests one word and calls out only for the
// rare struct that holds some fields.
impl Drop for UnknownTaggedFields {
    #[inline]
    fn drop(&mut self) {
        if self.0.is_some() {
            drop_fields(&mut self.0);
        }
    }
}

#[inline(never)]
#[allow(clippy::box_collection)]
fn drop_fields(fields: &mut Option<Box<Vec<RawTaggedField>>>) {
    drop(fields.take());
}

// Cloning and comparing are calls too, for the same reason as dropping: the derived forms,
// inlined into the `Clone` and `PartialEq` of every struct, were a tenth of the library's MIR
// (`-Z unpretty=mir`), all of it to handle fields that are nearly never there. Neither is on a
// path where a call counts.
impl Clone for UnknownTaggedFields {
    #[inline(never)]
    fn clone(&self) -> Self {
        UnknownTaggedFields(self.0.clone())
    }
}

impl PartialEq for UnknownTaggedFields {
    #[inline(never)]
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

// Hashes what `eq` compares.
impl core::hash::Hash for UnknownTaggedFields {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl core::fmt::Debug for UnknownTaggedFields {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl UnknownTaggedFields {
    /// Appends a field; it is written after the fields already held, in the place its tag gives
    /// it among the known ones.
    pub fn push(&mut self, field: RawTaggedField) {
        self.0.get_or_insert_with(Box::default).push(field);
    }

    /// The number of fields.
    #[inline]
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// True when there are none.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// The fields in order.
    pub fn iter(&self) -> core::slice::Iter<'_, RawTaggedField> {
        self.as_slice().iter()
    }

    /// The fields as a slice.
    #[inline]
    pub fn as_slice(&self) -> &[RawTaggedField] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }

    #[inline]
    fn wire_len(&self) -> usize {
        // Almost always empty: only that test is inlined into every sizer.
        match self.0.as_deref() {
            None => 0,
            Some(fields) => raw_fields_len(fields),
        }
    }
}

#[inline(never)]
fn raw_fields_len(fields: &[RawTaggedField]) -> usize {
    fields
        .iter()
        .map(|f| field_len(f.tag, f.data.len()))
        .fold(0, usize::saturating_add)
}

impl From<Vec<RawTaggedField>> for UnknownTaggedFields {
    fn from(fields: Vec<RawTaggedField>) -> Self {
        UnknownTaggedFields(ManuallyDrop::new(
            (!fields.is_empty()).then(|| Box::new(fields)),
        ))
    }
}

impl<'a> IntoIterator for &'a UnknownTaggedFields {
    type Item = &'a RawTaggedField;
    type IntoIter = core::slice::Iter<'a, RawTaggedField>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The wire size of one field: tag, size and data. Sizes saturate rather than wrap: no buffer
/// comes near `usize::MAX`.
#[inline]
fn field_len(tag: u32, len: usize) -> usize {
    uvarint_len(tag)
        .saturating_add(uvarint_len(len as u32))
        .saturating_add(len)
}

#[inline]
fn raw_len(unknown: Option<&UnknownTaggedFields>) -> (usize, usize) {
    unknown.map_or((0, 0), |u| (u.len(), u.wire_len()))
}

/// Sizes a tagged section; generated code adds each known field it will write with
/// [`TaggedLen::field`].
pub struct TaggedLen {
    count: usize,
    bytes: usize,
}

impl TaggedLen {
    /// Starts with the unknown fields, if any.
    #[inline]
    pub fn new(unknown: Option<&UnknownTaggedFields>) -> Self {
        let (count, bytes) = raw_len(unknown);
        TaggedLen { count, bytes }
    }

    /// Adds a known field of `len` bytes under `tag`.
    #[inline]
    pub fn field(&mut self, tag: u32, len: usize) {
        self.count = self.count.saturating_add(1);
        self.bytes = self.bytes.saturating_add(field_len(tag, len));
    }

    /// The size of the whole section, count included.
    #[inline]
    pub fn finish(self) -> usize {
        uvarint_len(self.count as u32).saturating_add(self.bytes)
    }
}

/// Writes a tagged section: the count first, then known and unknown fields merged by tag.
pub struct TaggedWriter<'a> {
    unknown: &'a [RawTaggedField],
}

impl<'a> TaggedWriter<'a> {
    /// Starts a section holding `known` known fields besides the unknown ones.
    pub fn start<B: Sink>(
        buf: &mut B,
        unknown: Option<&'a UnknownTaggedFields>,
        known: usize,
    ) -> Self {
        let unknown = unknown.map_or(&[][..], |u| u.as_slice());
        put_uvarint(buf, known.saturating_add(unknown.len()) as u32);
        TaggedWriter { unknown }
    }

    /// Writes the unknown fields whose tags come before `tag`, then the known field's tag and
    /// size; the caller writes its `len` bytes next.
    ///
    /// `len` comes from `value_len`, which saturates rather than fails: a size that Kafka's
    /// reader cannot take (it reads it into an `int`) is refused here, before anything is
    /// written.
    ///
    /// Unknown fields keep their relative order, so a section decoded and encoded again is
    /// byte-identical whenever it arrived in ascending tag order.
    pub fn field<B: Sink>(&mut self, buf: &mut B, tag: u32, len: usize) -> Result<(), EncodeError> {
        if len > MAX_FIELD_LEN {
            return Err(field_too_long(len));
        }
        self.unknown_before(buf, tag);
        put_uvarint(buf, tag);
        // In range: at most `i32::MAX`.
        put_uvarint(buf, len as u32);
        Ok(())
    }

    /// Writes the unknown fields left.
    pub fn finish<B: Sink>(self, buf: &mut B) {
        for field in self.unknown {
            write_raw(buf, field);
        }
    }

    fn unknown_before<B: Sink>(&mut self, buf: &mut B, tag: u32) {
        while let Some((first, rest)) = self.unknown.split_first() {
            if first.tag >= tag {
                break;
            }
            write_raw(buf, first);
            self.unknown = rest;
        }
    }
}

/// The largest size of one tagged field.
const MAX_FIELD_LEN: usize = i32::MAX as usize;

#[cold]
#[inline(never)]
fn field_too_long(length: usize) -> EncodeError {
    EncodeError::new(ErrorKind::TooLong {
        length,
        max: MAX_FIELD_LEN,
    })
}

fn write_raw<B: Sink>(buf: &mut B, field: &RawTaggedField) {
    put_uvarint(buf, field.tag);
    put_uvarint(buf, field.data.len() as u32);
    buf.put_slice(&field.data);
}

/// Reads a tagged section. `known` decodes the field with the given tag from its own slice and
/// returns `Ok(true)`, or returns `Ok(false)` for a tag the struct does not know; such fields go
/// to `unknown`, or are an error when the struct has nowhere to keep them.
///
/// `known` is a trait object so that this loop is compiled once, not once per struct: it runs
/// only for fields that are present, which are few.
#[inline]
pub fn decode_tagged(
    buf: &mut Bytes,
    cx: Ctx,
    unknown: Option<&mut UnknownTaggedFields>,
    known: &mut dyn FnMut(u32, &mut Bytes) -> Result<bool, DecodeError>,
) -> Result<(), DecodeError> {
    // Nearly every section is empty: a single zero byte, read here without a call.
    if buf.first() == Some(&0) {
        buf.advance(1);
        return Ok(());
    }
    decode_tagged_fields(buf, cx, unknown, known)
}

fn decode_tagged_fields(
    buf: &mut Bytes,
    cx: Ctx,
    mut unknown: Option<&mut UnknownTaggedFields>,
    known: &mut dyn FnMut(u32, &mut Bytes) -> Result<bool, DecodeError>,
) -> Result<(), DecodeError> {
    let start = buf.remaining();
    let count = get_uvarint_in(buf, cx)?;
    // Each field takes at least two bytes (tag and size).
    if count as usize > buf.remaining() / 2 {
        return Err(DecodeError::new(
            ErrorKind::CountExceedsRemaining {
                count: u64::from(count),
                remaining: buf.remaining(),
            },
            start,
        ));
    }
    let mut previous: Option<u32> = None;
    for _ in 0..count {
        let field_start = buf.remaining();
        let tag = get_uvarint_in(buf, cx)?;
        if cx.strict {
            if let Some(previous) = previous.filter(|&p| tag <= p) {
                return Err(DecodeError::new(
                    ErrorKind::TaggedFieldsOutOfOrder { previous, tag },
                    field_start,
                ));
            }
            previous = Some(tag);
        }
        let size = get_uvarint_in(buf, cx)? as usize;
        if size > buf.remaining() {
            return Err(DecodeError::new(
                ErrorKind::LengthExceedsRemaining {
                    length: size as u64,
                    remaining: buf.remaining(),
                },
                field_start,
            ));
        }
        let mut data = buf.split_to(size);
        let after = buf.remaining();
        if known(tag, &mut data).map_err(|e| e.behind(after))? {
            if data.has_remaining() {
                return Err(DecodeError::new(
                    ErrorKind::TaggedFieldSize {
                        tag,
                        declared: size,
                        used: size.saturating_sub(data.remaining()),
                    },
                    field_start,
                ));
            }
        } else if let Some(unknown) = unknown.as_deref_mut() {
            unknown.push(RawTaggedField { tag, data });
        } else {
            return Err(DecodeError::new(
                ErrorKind::UnknownTaggedField { tag },
                field_start,
            ));
        }
    }
    Ok(())
}
