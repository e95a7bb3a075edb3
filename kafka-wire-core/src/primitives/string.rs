//! Strings: `KafkaString` (zero-copy) and `String`.

use super::bytes::{bytes_len, decode_bytes, encode_bytes, unexpected_null, LenKind};
use crate::codec::{Codec, Ctx, NullableCodec, Sink};
use crate::{DecodeError, EncodeError, ErrorKind, KafkaString};
use bytes::{Buf, Bytes};

/// Reads a string's bytes and checks them for UTF-8; `None` is null.
#[inline]
fn decode_str(buf: &mut Bytes, cx: Ctx) -> Result<Option<KafkaString>, DecodeError> {
    let start = buf.remaining();
    match decode_bytes(buf, cx, LenKind::String)? {
        None => Ok(None),
        Some(bytes) => KafkaString::checked(bytes)
            .map(Some)
            .ok_or_else(|| DecodeError::new(ErrorKind::InvalidUtf8, start)),
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
            length_prefixed_null!(LenKind::String);

            #[inline]
            fn decode_nullable(buf: &mut Bytes, cx: Ctx) -> Result<Option<Self>, DecodeError> {
                Ok(decode_str(buf, cx)?.map($from))
            }
        }
    };
}

string_codec!(KafkaString, |s| s);
string_codec!(String, |s: KafkaString| String::from(s.as_str()));
