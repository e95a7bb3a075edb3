//! A reader over `Bytes` that knows its position in the input, for located errors.

use super::{RecordsError, RecordsErrorKind};
use crate::varint;
use crate::DecodeErrorKind;
use bytes::{Buf, Bytes};

/// The unread part of a buffer and the input offset of its first byte.
pub(crate) struct Cursor {
    buf: Bytes,
    pos: usize,
}

impl Cursor {
    /// `buf`, whose first byte is at `pos` in the input.
    pub(crate) fn new(buf: Bytes, pos: usize) -> Self {
        Cursor { buf, pos }
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len()
    }

    #[cold]
    pub(crate) fn error(&self, kind: RecordsErrorKind) -> RecordsError {
        RecordsError::new(kind).at(self.pos)
    }

    fn need(&self, n: usize) -> Result<(), RecordsError> {
        if self.buf.len() < n {
            return Err(self.error(RecordsErrorKind::UnexpectedEof {
                needed: n,
                available: self.buf.len(),
            }));
        }
        Ok(())
    }

    /// The next `n` bytes, shared with the input.
    pub(crate) fn take(&mut self, n: usize) -> Result<Bytes, RecordsError> {
        self.need(n)?;
        self.pos = self.pos.saturating_add(n);
        Ok(self.buf.split_to(n))
    }

    pub(crate) fn i8(&mut self) -> Result<i8, RecordsError> {
        self.need(1)?;
        self.pos = self.pos.saturating_add(1);
        Ok(self.buf.get_i8())
    }

    pub(crate) fn i16(&mut self) -> Result<i16, RecordsError> {
        self.need(2)?;
        self.pos = self.pos.saturating_add(2);
        Ok(self.buf.get_i16())
    }

    pub(crate) fn i32(&mut self) -> Result<i32, RecordsError> {
        self.need(4)?;
        self.pos = self.pos.saturating_add(4);
        Ok(self.buf.get_i32())
    }

    pub(crate) fn u32(&mut self) -> Result<u32, RecordsError> {
        self.need(4)?;
        self.pos = self.pos.saturating_add(4);
        Ok(self.buf.get_u32())
    }

    pub(crate) fn i64(&mut self) -> Result<i64, RecordsError> {
        self.need(8)?;
        self.pos = self.pos.saturating_add(8);
        Ok(self.buf.get_i64())
    }

    /// A zigzag varint.
    pub(crate) fn varint(&mut self) -> Result<i32, RecordsError> {
        let before = self.buf.len();
        let value = varint::get_varint(&mut self.buf).map_err(|e| self.varint_error(e))?;
        self.pos = self
            .pos
            .saturating_add(before.saturating_sub(self.buf.len()));
        Ok(value)
    }

    /// A zigzag varlong.
    pub(crate) fn varlong(&mut self) -> Result<i64, RecordsError> {
        let before = self.buf.len();
        let value = varint::get_varlong(&mut self.buf).map_err(|e| self.varint_error(e))?;
        self.pos = self
            .pos
            .saturating_add(before.saturating_sub(self.buf.len()));
        Ok(value)
    }

    #[cold]
    fn varint_error(&self, err: crate::DecodeError) -> RecordsError {
        self.error(match *err.kind() {
            DecodeErrorKind::UnexpectedEof { needed, available } => {
                RecordsErrorKind::UnexpectedEof { needed, available }
            }
            DecodeErrorKind::VarintOverflow => RecordsErrorKind::VarintOverflow,
            _ => RecordsErrorKind::VarintTooLong,
        })
    }

    /// Bytes behind a varint length, -1 for null; the length is checked against what is left.
    pub(crate) fn varint_bytes(&mut self) -> Result<Option<Bytes>, RecordsError> {
        let at = self.pos;
        let length = self.varint()?;
        self.sized(length, at)
    }

    /// Bytes behind an `i32` length, -1 for null.
    pub(crate) fn i32_bytes(&mut self) -> Result<Option<Bytes>, RecordsError> {
        let at = self.pos;
        let length = self.i32()?;
        self.sized(length, at)
    }

    fn sized(&mut self, length: i32, at: usize) -> Result<Option<Bytes>, RecordsError> {
        if length == -1 {
            return Ok(None);
        }
        let Ok(n) = usize::try_from(length) else {
            return Err(RecordsError::new(RecordsErrorKind::NegativeLength {
                length: length.into(),
            })
            .at(at));
        };
        if n > self.buf.len() {
            return Err(RecordsError::new(RecordsErrorKind::LengthExceedsRemaining {
                length: length.into(),
                remaining: self.buf.len(),
            })
            .at(at));
        }
        self.take(n).map(Some)
    }

    /// Everything left.
    pub(crate) fn rest(&mut self) -> Bytes {
        self.pos = self.pos.saturating_add(self.buf.len());
        core::mem::take(&mut self.buf)
    }
}
