//! Strings: `KafkaString` (zero-copy) and `String`.

use super::bytes::{bytes_len, decode_bytes, encode_bytes, unexpected_null, write_len, LenKind};
use crate::codec::{Codec, Ctx, NullableCodec, Sink};
use crate::{DecodeError, DecodeErrorKind, EncodeError, KafkaString};
use bytes::{Buf, Bytes};

/// Reads a string's bytes and checks them for UTF-8; `None` is null.
#[inline]
fn decode_str(buf: &mut Bytes, cx: Ctx) -> Result<Option<KafkaString>, DecodeError> {
    let start = buf.remaining();
    match decode_bytes(buf, cx, LenKind::String)? {
        None => Ok(None),
        Some(bytes) => KafkaString::checked(bytes)
            .map(Some)
            .ok_or_else(|| DecodeError::new(DecodeErrorKind::InvalidUtf8, start)),
    }
}

macro_rules! string_codec {
    ($ty:ty, $from:expr) => {
        impl Codec for $ty {
            // A compact length of one byte at least.
            const MIN_LEN: usize = 1;

            #[inline]
            fn encode_value<B: Sink>(&self, buf: &mut B, cx: Ctx) -> Result<(), EncodeError> {
                encode_bytes(buf, cx, LenKind::String, self.as_bytes())
            }

            #[inline]
            fn value_len(&self, cx: Ctx) -> usize {
                bytes_len(cx, LenKind::String, self.as_bytes().len())
            }

            #[inline]
            fn decode_value(buf: &mut Bytes, cx: Ctx) -> Result<Self, DecodeError> {
                let start = buf.remaining();
                match decode_str(buf, cx)? {
                    Some(s) => Ok($from(s)),
                    None => Err(unexpected_null(cx, start)),
                }
            }
        }

        impl NullableCodec for $ty {
            // Present values look like non-nullable ones; only the null differs.
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
                let _ = write_len(buf, cx, LenKind::String, None);
            }

            fn null_len(cx: Ctx) -> usize {
                if cx.flexible {
                    1
                } else {
                    2
                }
            }

            #[inline]
            fn decode_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
                Ok(decode_str(buf, cx)?.map($from))
            }
        }
    };
}

string_codec!(KafkaString, |s| s);
string_codec!(String, |s: KafkaString| String::from(s.as_str()));
