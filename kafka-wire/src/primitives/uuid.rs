//! `Uuid`: 16 raw bytes in every version.

use crate::codec::{Codec, Ctx};
use crate::{DecodeError, EncodeError, Uuid};
use bytes::{Buf, BufMut, Bytes};

impl Codec for Uuid {
    const FIXED_LEN: Option<usize> = Some(16);

    #[inline]
    fn encode_value<B: BufMut>(&self, buf: &mut B, _: Ctx) -> Result<(), EncodeError> {
        buf.put_slice(self.as_bytes());
        Ok(())
    }

    #[inline]
    fn value_len(&self, _: Ctx) -> Result<usize, EncodeError> {
        Ok(16)
    }

    #[inline]
    fn decode_value(buf: &mut Bytes, _: Ctx) -> Result<Self, DecodeError> {
        let mut raw = [0u8; 16];
        if buf.remaining() < raw.len() {
            return Err(DecodeError::eof(raw.len(), buf.remaining()));
        }
        buf.copy_to_slice(&mut raw);
        Ok(Uuid::from_bytes(raw))
    }
}
