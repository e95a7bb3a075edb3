//! Fixed-width integers, `bool` and `f64`: big-endian, the same in every version.

use crate::codec::{Codec, Ctx, Sink};
use crate::{DecodeError, EncodeError};
use bytes::{Buf, Bytes};

/// A value of one size in every version whose writing cannot fail: an integer, a `bool` or an
/// `f64`. The derive writes and sizes fields of these types through this trait, with no error
/// path and no size call: half the fields of Kafka's messages are such values, and the code
/// the compiler checks and optimises for each message shrinks with them. For generated code
/// only (`__private`).
pub trait Fixed: Codec + Copy {
    /// The encoded size.
    const LEN: usize;

    /// Writes the value.
    fn put<B: Sink>(self, buf: &mut B);
}

macro_rules! fixed {
    ($($ty:ty => $put:ident;)*) => {$(
        impl Fixed for $ty {
            const LEN: usize = core::mem::size_of::<$ty>();

            #[inline(always)]
            fn put<B: Sink>(self, buf: &mut B) {
                buf.$put(self);
            }
        }

        impl Codec for $ty {
            const FIXED_LEN: Option<usize> = Some(core::mem::size_of::<$ty>());
            const MIN_LEN: usize = core::mem::size_of::<$ty>();

            #[inline]
            fn encode_value<B: Sink>(&self, buf: &mut B, _: Ctx) -> Result<(), EncodeError> {
                buf.$put(*self);
                Ok(())
            }

            #[inline]
            fn value_len(&self, _: Ctx) -> usize {
                core::mem::size_of::<$ty>()
            }

            #[inline]
            fn decode_value(buf: &mut Bytes, _: Ctx) -> Result<Self, DecodeError> {
                const N: usize = core::mem::size_of::<$ty>();
                // `Bytes` is one contiguous slice: a single bounds check, no fallback path.
                match buf.first_chunk::<N>() {
                    Some(bytes) => {
                        let value = <$ty>::from_be_bytes(*bytes);
                        buf.advance(N);
                        Ok(value)
                    }
                    None => Err(DecodeError::eof(N, buf.remaining())),
                }
            }
        }
    )*};
}

fixed! {
    i8 => put_i8;
    i16 => put_i16;
    u16 => put_u16;
    i32 => put_i32;
    u32 => put_u32;
    i64 => put_i64;
    f64 => put_f64;
}

impl Fixed for bool {
    const LEN: usize = 1;

    #[inline(always)]
    fn put<B: Sink>(self, buf: &mut B) {
        buf.put_u8(u8::from(self));
    }
}

/// One byte; Kafka reads any non-zero byte as `true` and writes `1`.
impl Codec for bool {
    const FIXED_LEN: Option<usize> = Some(1);
    const MIN_LEN: usize = 1;

    #[inline]
    fn encode_value<B: Sink>(&self, buf: &mut B, _: Ctx) -> Result<(), EncodeError> {
        buf.put_u8(u8::from(*self));
        Ok(())
    }

    #[inline]
    fn value_len(&self, _: Ctx) -> usize {
        1
    }

    #[inline]
    fn decode_value(buf: &mut Bytes, _: Ctx) -> Result<Self, DecodeError> {
        match buf.first() {
            Some(&byte) => {
                buf.advance(1);
                Ok(byte != 0)
            }
            None => Err(DecodeError::eof(1, 0)),
        }
    }
}
