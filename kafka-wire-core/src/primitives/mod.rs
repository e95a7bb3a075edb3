//! Codecs for the schema's primitive types, classic and compact forms side by side.

/// The `NullableCodec` methods every length-prefixed type shares: a present value is written
/// as a non-nullable one, and a null is the length prefix of `$kind` holding -1. Each type
/// writes its own `decode_nullable`.
macro_rules! length_prefixed_null {
    ($kind:expr) => {
        #[inline]
        fn encode_present<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
            self.encode_value(buf, cx)
        }

        #[inline]
        fn present_len(&self, cx: Ctx) -> usize {
            self.value_len(cx)
        }

        fn encode_null<B: Sink>(buf: &mut B, cx: Ctx) {
            // A null prefix never fails.
            let _ = super::bytes::write_len(buf, cx, $kind, None);
        }

        fn null_len(cx: Ctx) -> usize {
            super::bytes::prefix_len(cx, $kind, None)
        }

        // A null in the length is the same in a tagged field.
        #[inline]
        fn encode_tagged_null<B: Sink>(buf: &mut B, cx: Ctx) {
            Self::encode_null(buf, cx)
        }

        #[inline]
        fn tagged_null_len(cx: Ctx) -> usize {
            Self::null_len(cx)
        }

        #[inline]
        fn encode_tagged_present<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
            self.encode_value(buf, cx)
        }

        #[inline]
        fn tagged_present_len(&self, cx: Ctx) -> usize {
            self.value_len(cx)
        }

        #[inline]
        fn decode_tagged_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
            Self::decode_nullable(buf, cx)
        }
    };
}

pub(crate) mod array;
pub(crate) mod bytes;
pub(crate) mod int;
pub(crate) mod string;
pub(crate) mod uuid;
pub mod varint;
