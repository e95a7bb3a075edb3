//! Support for generated code only. Not part of the public API: it changes without notice.

#[cfg(feature = "views")]
pub use crate::api::BodyView;
pub use crate::api::{ApiInfo, ApiSet, RequestSet, ResponseSet, Side};
pub use crate::codec::Sink;
pub use crate::codec::{Codec, Ctx, Filled, NullableCodec, Slot};
pub use crate::fields::{DefaultInfo, FieldInfo, Fields};
#[cfg(feature = "serde")]
pub use crate::json::__derive as json;
pub use crate::primitives::int::Fixed;
pub use crate::tagged::{decode_tagged, TaggedLen, TaggedWriter};
pub use crate::traits::{ApiMessage, Decode, Encode, Message};
#[cfg(feature = "views")]
pub use crate::view::{
    fixed_width, open as open_view, walk as walk_view, walk_span, Array, Cursor, InIndex, Ints,
    RawStruct, Reader, Reading, Slots, Source, TaggedFields, ViewIndex, ViewOf, Viewable, Walked,
};
pub use crate::{DecodeError, EncodeError, UnknownTaggedFields, Uuid, VersionRange};
pub use bytes::Bytes;

use crate::ErrorKind;
use bytes::Buf;

/// A field that does not exist in `version` holds a value other than its default.
#[cold]
#[inline(never)]
pub fn non_default(version: i16) -> EncodeError {
    EncodeError::new(ErrorKind::NonDefaultField { version })
}

#[cold]
#[inline(never)]
fn null_not_allowed(version: i16) -> EncodeError {
    EncodeError::new(ErrorKind::UnexpectedNull { version })
}

/// Writes an `Option` field; `nullable` says whether this version may carry a null.
pub fn encode_option<T: NullableCodec>(
    value: &Option<T>,
    buf: &mut impl Sink,
    cx: Ctx,
    nullable: bool,
) -> Result<(), EncodeError> {
    match (value, nullable) {
        (Some(v), true) => v.encode_present(buf, cx),
        (Some(v), false) => v.encode_value(buf, cx),
        (None, true) => {
            T::encode_null(buf, cx);
            Ok(())
        }
        (None, false) => Err(null_not_allowed(cx.version)),
    }
}

/// The size [`encode_option`] writes when it succeeds. A null where the version allows none,
/// which `encode_option` refuses, counts as a null.
pub fn option_len<T: NullableCodec>(value: &Option<T>, cx: Ctx, nullable: bool) -> usize {
    match (value, nullable) {
        (Some(v), true) => v.present_len(cx),
        (Some(v), false) => v.value_len(cx),
        (None, _) => T::null_len(cx),
    }
}

/// Reads an `Option` field; a null in a version that is not nullable is an error.
pub fn decode_option<T: NullableCodec>(
    buf: &mut Bytes,
    cx: Ctx,
    nullable: bool,
) -> Result<Option<T>, DecodeError> {
    if nullable {
        T::decode_nullable(buf, cx)
    } else {
        T::decode_value(buf, cx).map(Some)
    }
}

/// A nullable struct is preceded by a byte: -1 for null, 1 for present. Like Kafka's reader,
/// any negative byte means null.
pub fn decode_struct_nullable<T: Codec>(
    buf: &mut Bytes,
    cx: Ctx,
) -> Result<Option<T>, DecodeError> {
    let Some(&presence) = buf.first() else {
        return Err(crate::DecodeError::eof(1, 0));
    };
    buf.advance(1);
    if (presence as i8) < 0 {
        return Ok(None);
    }
    match T::decode_value(buf, cx) {
        Ok(value) => Ok(Some(value)),
        Err(e) => Err(e),
    }
}

/// [`encode_option`] for a tagged field, where a struct's presence is a varint.
pub fn encode_tagged_option<T: NullableCodec>(
    value: &Option<T>,
    buf: &mut impl Sink,
    cx: Ctx,
    nullable: bool,
) -> Result<(), EncodeError> {
    match (value, nullable) {
        (Some(v), true) => v.encode_tagged_present(buf, cx),
        (Some(v), false) => v.encode_value(buf, cx),
        (None, true) => {
            T::encode_tagged_null(buf, cx);
            Ok(())
        }
        (None, false) => Err(null_not_allowed(cx.version)),
    }
}

/// The size [`encode_tagged_option`] writes when it succeeds.
pub fn tagged_option_len<T: NullableCodec>(value: &Option<T>, cx: Ctx, nullable: bool) -> usize {
    match (value, nullable) {
        (Some(v), true) => v.tagged_present_len(cx),
        (Some(v), false) => v.value_len(cx),
        (None, _) => T::tagged_null_len(cx),
    }
}

/// [`decode_option`] for a tagged field.
pub fn decode_tagged_option<T: NullableCodec>(
    buf: &mut Bytes,
    cx: Ctx,
    nullable: bool,
) -> Result<Option<T>, DecodeError> {
    if nullable {
        T::decode_tagged_nullable(buf, cx)
    } else {
        T::decode_value(buf, cx).map(Some)
    }
}

/// A nullable struct in a tagged field is preceded by an unsigned varint: 0 for null, 1 for
/// present. Kafka's reader takes the varint as a signed 32-bit integer and reads a null when
/// that is not positive, so a value past `i32::MAX` is a null here too, and any other non-zero
/// value means present.
pub fn decode_tagged_struct_nullable<T: Codec>(
    buf: &mut Bytes,
    cx: Ctx,
) -> Result<Option<T>, DecodeError> {
    let presence = crate::primitives::varint::get_uvarint_in(buf, cx)?;
    if presence == 0 || i32::try_from(presence).is_err() {
        return Ok(None);
    }
    match T::decode_value(buf, cx) {
        Ok(value) => Ok(Some(value)),
        Err(e) => Err(e),
    }
}

/// Where a struct's view has no field: a field its version lacks, an absent tagged field.
#[cfg(feature = "views")]
pub const ABSENT: u32 = crate::view::ABSENT;

/// Steps over an `Option` field, as [`decode_option`] reads it: where its view finds it, or
/// `NULL`; `None` where decoding fails.
#[cfg(feature = "views")]
#[inline]
pub fn walk_option<T: Viewable>(
    c: &mut Cursor<'_>,
    cx: Ctx,
    index: &mut ViewIndex,
    nullable: bool,
) -> Option<u32> {
    if nullable {
        return T::walk_nullable(c, cx, index);
    }
    T::walk(c, cx, index)
}

/// [`walk_option`] in the tagged section, as [`decode_tagged_option`] reads it.
#[cfg(feature = "views")]
#[inline]
pub fn walk_tagged_option<T: Viewable>(
    c: &mut Cursor<'_>,
    cx: Ctx,
    index: &mut ViewIndex,
    nullable: bool,
) -> Option<u32> {
    if nullable {
        return T::walk_tagged_nullable(c, cx, index);
    }
    T::walk(c, cx, index)
}

/// The known-tag walk of a struct that knows no tagged field.
#[cfg(feature = "views")]
pub fn no_known_tag(_: u32, _: &mut Cursor<'_>, _: &mut ViewIndex) -> Option<bool> {
    None
}

/// Reads a `T` through its [`Codec::decode_into`], into a slot on the stack: how a struct
/// whose decoder writes into a slot is read on its own (a field, not an element).
#[inline]
pub fn decode_via_slot<T: Codec>(buf: &mut Bytes, cx: Ctx) -> Result<T, DecodeError> {
    crate::slot::filled(|slot| T::decode_into(buf, cx, slot))
}

/// Errors that carry a field path.
pub trait WithPath {
    /// Adds `ty.field` as the next outer step of the path.
    fn with_field(self, ty: &'static str, field: &'static str) -> Self;
}

impl WithPath for DecodeError {
    fn with_field(self, ty: &'static str, field: &'static str) -> Self {
        self.in_field(ty, field)
    }
}

impl WithPath for EncodeError {
    fn with_field(self, ty: &'static str, field: &'static str) -> Self {
        self.in_field(ty, field)
    }
}

/// `e` with the field `ty.field` added as the next outer step of its path: the one error
/// mapping that every field of generated code shares.
#[cold]
#[inline(never)]
pub fn at_field<E: WithPath>(e: E, ty: &'static str, field: &'static str) -> E {
    e.with_field(ty, field)
}

/// Unknown tagged fields can only be written in flexible versions; elsewhere they would be lost.
#[cold]
#[inline(never)]
pub fn tags_in_classic_version(version: i16) -> EncodeError {
    EncodeError::new(ErrorKind::TaggedFieldsInClassicVersion { version })
}

/// The known-field reader of a struct that knows no tagged field.
pub fn no_known_tags(_: u32, _: &mut Bytes) -> Result<bool, DecodeError> {
    Ok(false)
}

/// The tagged section of a struct that knows no tagged field. Nearly always empty: that
/// single zero byte is all that is inlined into every encoder.
#[inline]
pub fn write_unknown_tags<B: Sink>(buf: &mut B, unknown: Option<&UnknownTaggedFields>) {
    match unknown {
        Some(fields) if !fields.is_empty() => write_some_unknown_tags(buf, fields),
        _ => buf.put_u8(0),
    }
}

#[inline(never)]
fn write_some_unknown_tags<B: Sink>(buf: &mut B, fields: &UnknownTaggedFields) {
    TaggedWriter::start(buf, Some(fields), 0).finish(buf);
}

/// The size [`write_unknown_tags`] writes.
#[inline]
pub fn unknown_tags_len(unknown: Option<&UnknownTaggedFields>) -> usize {
    match unknown {
        // Nearly always: an empty section, the count 0 in one byte, sized here without a
        // call: a struct's sizer is little more than this.
        Some(fields) if fields.is_empty() => 1,
        None => 1,
        some => some_unknown_tags_len(some),
    }
}

#[inline(never)]
fn some_unknown_tags_len(unknown: Option<&UnknownTaggedFields>) -> usize {
    TaggedLen::new(unknown).finish()
}

/// The `ApiInfo` of a variant wrapping `M`, whose key is `key`.
pub const fn api_info<M: Message>(
    key: i16,
    name: &'static str,
    header_v0: VersionRange,
    side: Side,
) -> ApiInfo {
    ApiInfo::new::<M>(key, name, header_v0, side)
}

/// Whether the API of variant `i` has a key no earlier variant has.
pub const fn key_is_new(apis: &[ApiInfo], i: usize) -> bool {
    let mut j = 0;
    while j < i && j < apis.len() {
        if apis[j].key() == apis[i].key() {
            return false;
        }
        j += 1;
    }
    true
}

/// Whether every key of `apis` is a key of `of`.
pub const fn keys_within(apis: &[ApiInfo], of: &[ApiInfo]) -> bool {
    let mut i = 0;
    while i < apis.len() {
        if !has_key(of, apis[i].key()) {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `apis` has an API with this key.
pub const fn has_key(apis: &[ApiInfo], key: i16) -> bool {
    let mut i = 0;
    while i < apis.len() {
        if apis[i].key() == key {
            return true;
        }
        i += 1;
    }
    false
}

/// A body of an API key that the set does not have.
#[cold]
#[inline(never)]
pub fn unknown_api_key(key: i16, remaining: usize) -> DecodeError {
    DecodeError::new(crate::ErrorKind::UnknownApiKey { key }, remaining)
}
