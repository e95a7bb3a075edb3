//! `Uuid`: 16 raw bytes in every version.

use crate::codec::{Codec, Ctx, Sink};
use crate::{DecodeError, EncodeError, Uuid};
use bytes::{Buf, Bytes};

impl Codec for Uuid {
    const FIXED_LEN: Option<usize> = Some(16);
    const MIN_LEN: usize = 16;

    #[inline]
    fn encode_value<B: Sink>(&self, buf: &mut B, _: Ctx) -> Result<(), EncodeError> {
        buf.put_slice(self.as_bytes());
        Ok(())
    }

    #[inline]
    fn value_len(&self, _: Ctx) -> usize {
        16
    }

    #[inline]
    fn decode_value(buf: &mut Bytes, _: Ctx) -> Result<Self, DecodeError> {
        match buf.first_chunk::<16>() {
            Some(raw) => {
                let uuid = Uuid::from_bytes(*raw);
                buf.advance(16);
                Ok(uuid)
            }
            None => Err(DecodeError::eof(16, buf.remaining())),
        }
    }
}
