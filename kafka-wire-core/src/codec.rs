//! The per-value codec that derived structs and every field type implement.

pub use crate::slot::{Filled, Slot};
use crate::{DecodeError, EncodeError};
use bytes::{BufMut, Bytes};

/// What a value needs to know about the message being read or written.
///
/// A nested struct has no version of its own: it takes the version and the flexibility of the
/// message that carries it, through this context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ctx {
    /// The message version.
    pub version: i16,
    /// Whether this version uses compact lengths and tagged-field sections.
    pub flexible: bool,
    /// Strict decoding: also refuse what Kafka's own reader lets through, namely varints
    /// longer than they need to be and tagged fields that are not in increasing tag order.
    pub strict: bool,
}

impl Ctx {
    /// A context for `version`, flexible or not.
    pub const fn new(version: i16, flexible: bool) -> Self {
        Ctx {
            version,
            flexible,
            strict: false,
        }
    }

    /// The same context, decoding strictly or not.
    #[inline]
    #[must_use]
    pub const fn with_strict(self, strict: bool) -> Self {
        Ctx { strict, ..self }
    }

    /// The same context with flexibility overridden, for a field whose flexible versions
    /// differ from its message's. Everything else carries over.
    #[inline]
    #[must_use]
    pub const fn with_flexible(self, flexible: bool) -> Self {
        Ctx { flexible, ..self }
    }
}

/// Where encoders write: any [`BufMut`] (a `BytesMut`, a `Vec<u8>`, ...), or a
/// [`Segments`](crate::Segments) list that takes large byte fields by reference instead of
/// copying them.
///
/// The methods are those of `BufMut` that encoders use, plus [`put_shared`](Self::put_shared)
/// for bytes held in a [`Bytes`]: a `BufMut` copies them, `Segments` may keep a reference.
pub trait Sink {
    /// Writes a byte.
    fn put_u8(&mut self, n: u8);
    /// Writes bytes.
    fn put_slice(&mut self, src: &[u8]);

    /// Writes bytes held in a [`Bytes`]; by default, a copy.
    #[inline]
    fn put_shared(&mut self, src: &Bytes) {
        self.put_slice(src);
    }

    /// Writes a big-endian `i8`.
    #[inline]
    fn put_i8(&mut self, n: i8) {
        self.put_u8(n as u8);
    }
    /// Writes a big-endian `i16`.
    #[inline]
    fn put_i16(&mut self, n: i16) {
        self.put_slice(&n.to_be_bytes());
    }
    /// Writes a big-endian `u16`.
    #[inline]
    fn put_u16(&mut self, n: u16) {
        self.put_slice(&n.to_be_bytes());
    }
    /// Writes a big-endian `i32`.
    #[inline]
    fn put_i32(&mut self, n: i32) {
        self.put_slice(&n.to_be_bytes());
    }
    /// Writes a big-endian `u32`.
    #[inline]
    fn put_u32(&mut self, n: u32) {
        self.put_slice(&n.to_be_bytes());
    }
    /// Writes a big-endian `i64`.
    #[inline]
    fn put_i64(&mut self, n: i64) {
        self.put_slice(&n.to_be_bytes());
    }
    /// Writes a big-endian `f64`.
    #[inline]
    fn put_f64(&mut self, n: f64) {
        self.put_slice(&n.to_be_bytes());
    }
}

/// Every `BufMut` is a sink, through its own methods.
impl<B: BufMut + ?Sized> Sink for B {
    #[inline]
    fn put_u8(&mut self, n: u8) {
        BufMut::put_u8(self, n);
    }
    #[inline]
    fn put_slice(&mut self, src: &[u8]) {
        BufMut::put_slice(self, src);
    }
    #[inline]
    fn put_i8(&mut self, n: i8) {
        BufMut::put_i8(self, n);
    }
    #[inline]
    fn put_i16(&mut self, n: i16) {
        BufMut::put_i16(self, n);
    }
    #[inline]
    fn put_u16(&mut self, n: u16) {
        BufMut::put_u16(self, n);
    }
    #[inline]
    fn put_i32(&mut self, n: i32) {
        BufMut::put_i32(self, n);
    }
    #[inline]
    fn put_u32(&mut self, n: u32) {
        BufMut::put_u32(self, n);
    }
    #[inline]
    fn put_i64(&mut self, n: i64) {
        BufMut::put_i64(self, n);
    }
    #[inline]
    fn put_f64(&mut self, n: f64) {
        BufMut::put_f64(self, n);
    }
}

/// How one value is laid out on the wire.
///
/// Implemented for every supported field type and by `#[derive(KafkaMessage)]` for structs.
/// Implement it for a type of your own to use that type as a field; the derive reports a
/// missing implementation at the field's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of a Kafka message",
    label = "derive `KafkaMessage` for `{Self}`, or implement `kafka_wire::codec::Codec` for it"
)]
pub trait Codec: Sized {
    /// The encoded size when it is the same for every value, whatever the context.
    const FIXED_LEN: Option<usize> = None;

    /// A lower bound of the encoded size of any value in any context: what one element of an
    /// array takes at least. Decoding an array reserves room for all the elements it announces
    /// only when that many could fit in what is left of the input; 0, the default, makes no
    /// promise, and the array then grows as its elements decode.
    const MIN_LEN: usize = 0;

    /// Writes the value.
    fn encode_value<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError>;

    /// The number of bytes [`encode_value`](Codec::encode_value) writes when it succeeds.
    ///
    /// Sizing cannot fail: a value that cannot be written in `cx` (a non-default field the
    /// version lacks, a null where none is allowed, a length its prefix cannot hold, ...) is
    /// refused by `encode_value`, and its size here is only an estimate. Sizes saturate at
    /// `usize::MAX` instead of wrapping, and a length too long for its prefix is counted with
    /// the prefix's ordinary width.
    fn value_len(&self, cx: Ctx) -> usize;

    /// Reads a value, taking strings and bytes as zero-copy slices of `buf`.
    fn decode_value(buf: &mut Bytes, cx: Ctx) -> Result<Self, DecodeError>;

    /// Reads a value into `slot`, the place that keeps it (an element of an array), and returns
    /// the proof that it did. By default, [`decode_value`](Codec::decode_value) and then a copy
    /// into the slot; the derive writes a struct's fields straight into it instead (see
    /// [`Slot`]). There is no need to implement it.
    #[inline]
    fn decode_into<'a>(
        buf: &mut Bytes,
        cx: Ctx,
        slot: Slot<'a, Self>,
    ) -> Result<Filled<'a, Self>, DecodeError> {
        match Self::decode_value(buf, cx) {
            Ok(value) => Ok(slot.fill(value)),
            Err(e) => Err(e),
        }
    }
}

/// A value that may be null in the versions where its field is nullable.
///
/// Strings, bytes, records and arrays spell null as a length of -1 (0 in compact form); a
/// struct is preceded by a byte, -1 for null and 1 for present. In a tagged field, a struct's
/// presence is an unsigned varint instead, 0 for null and 1 for present, while the other types
/// spell null as they do everywhere: the `tagged_` methods, whose defaults are a struct's.
///
/// A type of your own that spells null in its length, as strings do, implements both sets of
/// methods alike.
pub trait NullableCodec: Codec {
    /// Writes a null. By default, a struct's null: the byte -1.
    #[inline]
    fn encode_null<B: Sink>(buf: &mut B, _cx: Ctx) {
        buf.put_i8(-1);
    }

    /// The size of a null.
    #[inline]
    fn null_len(_cx: Ctx) -> usize {
        1
    }

    /// Writes a present value in a version where the field is nullable. By default, a
    /// struct's: the byte 1, then the value.
    #[inline]
    fn encode_present<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
        buf.put_i8(1);
        self.encode_value(buf, cx)
    }

    /// The size of a present value in a version where the field is nullable, under the same
    /// terms as [`Codec::value_len`].
    #[inline]
    fn present_len(&self, cx: Ctx) -> usize {
        self.value_len(cx).saturating_add(1)
    }

    /// Reads a value or a null. By default, a struct's: a negative presence byte is a null,
    /// as Kafka's reader has it.
    #[inline]
    fn decode_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        crate::__private::decode_struct_nullable(buf, cx)
    }

    /// Writes a null in a tagged field. By default, a struct's: the varint 0.
    #[inline]
    fn encode_tagged_null<B: Sink>(buf: &mut B, _cx: Ctx) {
        buf.put_u8(0);
    }

    /// The size of a null in a tagged field.
    #[inline]
    fn tagged_null_len(_cx: Ctx) -> usize {
        1
    }

    /// Writes a present value in a tagged field that is nullable. By default, a struct's: the
    /// varint 1, then the value.
    #[inline]
    fn encode_tagged_present<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
        buf.put_u8(1);
        self.encode_value(buf, cx)
    }

    /// The size of a present value in a tagged field that is nullable.
    #[inline]
    fn tagged_present_len(&self, cx: Ctx) -> usize {
        self.value_len(cx).saturating_add(1)
    }

    /// Reads a value or a null in a tagged field. By default, a struct's: a presence varint
    /// of 0 is a null (see [`decode_tagged_struct_nullable`](crate::__private::decode_tagged_struct_nullable)).
    #[inline]
    fn decode_tagged_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        crate::__private::decode_tagged_struct_nullable(buf, cx)
    }
}
