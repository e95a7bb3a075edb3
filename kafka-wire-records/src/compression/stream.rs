//! Compressing a payload as it is written, onto the end of the batch's own buffer.
//!
//! Each codec but zstd takes its input in blocks (32 KiB for gzip and snappy, as snappy-java
//! frames them; 64 KiB for LZ4), so a batch costs its output buffer plus one block of input and
//! the codec's own state. ruzstd compresses from a reader, whole, so a zstd payload is gathered
//! first.

#[allow(unused_imports)]
use super::support::compress_error;
use bytes::BytesMut;
use kafka_wire_core::Compression;
use kafka_wire_core::EncodeError;
use kafka_wire_core::ErrorKind;

/// A payload being compressed onto the end of a `BytesMut`. The buffer is passed to each call
/// rather than held, so that the batch writer can patch the batch header around the payload.
pub(crate) struct Compressor(State);

enum State {
    /// Written as it comes.
    None,
    #[cfg(feature = "gzip")]
    Gzip(Blocks, Box<gzip::Member>),
    #[cfg(feature = "snappy")]
    Snappy(Blocks, Box<snap::raw::Encoder>),
    #[cfg(feature = "lz4")]
    Lz4(Blocks),
    #[cfg(feature = "zstd")]
    Zstd(Vec<u8>),
}

impl Compressor {
    /// Starts a payload of `compression` for a batch of `magic` at the end of `out`.
    #[cfg_attr(not(feature = "lz4"), allow(unused_variables))]
    pub(crate) fn new(
        compression: Compression,
        magic: i8,
        out: &mut BytesMut,
    ) -> Result<Self, EncodeError> {
        Ok(Compressor(match compression {
            Compression::None => State::None,
            #[cfg(feature = "gzip")]
            Compression::Gzip => {
                State::Gzip(Blocks::new(32 << 10), Box::new(gzip::Member::start(out)))
            }
            #[cfg(feature = "snappy")]
            Compression::Snappy => {
                snappy::header(out);
                State::Snappy(
                    Blocks::new(super::snappy::BLOCK),
                    Box::new(snap::raw::Encoder::new()),
                )
            }
            #[cfg(feature = "lz4")]
            Compression::Lz4 => {
                super::lz4::frame_header(out, magic);
                State::Lz4(Blocks::new(super::lz4::BLOCK))
            }
            #[cfg(feature = "zstd")]
            Compression::Zstd => State::Zstd(Vec::new()),
            #[allow(unreachable_patterns)]
            other => return Err(ErrorKind::CodecNotEnabled { compression: other }.into()),
        }))
    }

    /// Compresses `data` onto the end of `out`.
    pub(crate) fn write(&mut self, out: &mut BytesMut, data: &[u8]) -> Result<(), EncodeError> {
        match &mut self.0 {
            State::None => out.extend_from_slice(data),
            #[cfg(feature = "gzip")]
            State::Gzip(blocks, member) => blocks.push(data, |b| member.write(out, b))?,
            #[cfg(feature = "snappy")]
            State::Snappy(blocks, encoder) => {
                blocks.push(data, |b| snappy::put_block(encoder, out, b))?;
            }
            #[cfg(feature = "lz4")]
            State::Lz4(blocks) => blocks.push(data, |b| super::lz4::put_block(out, b))?,
            #[cfg(feature = "zstd")]
            State::Zstd(plain) => plain.extend_from_slice(data),
        }
        Ok(())
    }

    /// Ends the payload.
    #[cfg_attr(
        not(any(
            feature = "gzip",
            feature = "snappy",
            feature = "lz4",
            feature = "zstd"
        )),
        allow(unused_variables)
    )]
    pub(crate) fn finish(self, out: &mut BytesMut) -> Result<(), EncodeError> {
        match self.0 {
            State::None => {}
            #[cfg(feature = "gzip")]
            State::Gzip(blocks, mut member) => {
                blocks.finish(|b| member.write(out, b))?;
                member.finish(out)?;
            }
            #[cfg(feature = "snappy")]
            State::Snappy(blocks, mut encoder) => {
                blocks.finish(|b| snappy::put_block(&mut encoder, out, b))?;
            }
            #[cfg(feature = "lz4")]
            State::Lz4(blocks) => {
                blocks.finish(|b| super::lz4::put_block(out, b))?;
                super::lz4::end_mark(out);
            }
            #[cfg(feature = "zstd")]
            State::Zstd(plain) => {
                use bytes::BufMut;
                let mut compressor = ruzstd::encoding::FrameCompressor::new(
                    ruzstd::encoding::CompressionLevel::Fastest,
                );
                compressor.set_source(plain.as_slice());
                compressor.set_drain(out.writer());
                compressor.compress();
            }
        }
        Ok(())
    }
}

/// Input gathered into blocks of one size, each handed on as it fills.
#[cfg_attr(
    not(any(feature = "gzip", feature = "snappy", feature = "lz4")),
    allow(dead_code)
)]
struct Blocks {
    buf: Vec<u8>,
    size: usize,
}

#[cfg_attr(
    not(any(feature = "gzip", feature = "snappy", feature = "lz4")),
    allow(dead_code)
)]
impl Blocks {
    fn new(size: usize) -> Self {
        Blocks {
            buf: Vec::new(),
            size,
        }
    }

    fn push(
        &mut self,
        mut data: &[u8],
        mut put: impl FnMut(&[u8]) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        while !data.is_empty() {
            let take = self.size.saturating_sub(self.buf.len()).min(data.len());
            let (now, later) = data.split_at(take);
            if self.buf.is_empty() && take == self.size {
                // A whole block at hand: no need to gather it first.
                put(now)?;
            } else {
                if self.buf.capacity() == 0 {
                    self.buf.reserve_exact(self.size);
                }
                self.buf.extend_from_slice(now);
                if self.buf.len() == self.size {
                    put(&self.buf)?;
                    self.buf.clear();
                }
            }
            data = later;
        }
        Ok(())
    }

    /// Hands on the last, partial block.
    fn finish(
        self,
        mut put: impl FnMut(&[u8]) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        put(&self.buf)
    }
}

#[cfg(feature = "gzip")]
mod gzip {
    use crate::compression::support::compress_error;
    use bytes::BytesMut;
    use flate2::{Compress, FlushCompress, Status};
    use kafka_wire_core::Compression;
    use kafka_wire_core::EncodeError;

    /// One gzip member (RFC 1952): the header, a raw deflate stream, then the CRC-32 and the
    /// length of the input.
    pub(super) struct Member {
        deflate: Box<Compress>,
        crc: crc_fast::Digest,
        /// The input's length modulo 2^32, as the trailer wants it.
        len: u32,
    }

    impl Member {
        /// Writes the header as Java's `GZIPOutputStream` does (deflate, no flags, no time; OS
        /// unknown).
        pub(super) fn start(out: &mut BytesMut) -> Self {
            out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
            Member {
                deflate: Box::new(Compress::new(flate2::Compression::default(), false)),
                crc: crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32IsoHdlc),
                len: 0,
            }
        }

        pub(super) fn write(&mut self, out: &mut BytesMut, data: &[u8]) -> Result<(), EncodeError> {
            self.crc.update(data);
            // Truncation is the trailer's rule: the length modulo 2^32.
            self.len = self.len.wrapping_add(data.len() as u32);
            self.deflate(out, data, FlushCompress::None)
        }

        pub(super) fn finish(mut self, out: &mut BytesMut) -> Result<(), EncodeError> {
            self.deflate(out, &[], FlushCompress::Finish)?;
            // A CRC-32 fits its `u64`.
            out.extend_from_slice(&(self.crc.finalize() as u32).to_le_bytes());
            out.extend_from_slice(&self.len.to_le_bytes());
            Ok(())
        }

        /// Deflates `data` onto `out`, giving the compressor room until it has taken all of
        /// `data` (and, with `Finish`, ended the stream).
        fn deflate(
            &mut self,
            out: &mut BytesMut,
            mut data: &[u8],
            flush: FlushCompress,
        ) -> Result<(), EncodeError> {
            loop {
                // Deflate writes at most a little more than it reads; what it holds back comes
                // out on a later call or at the finish.
                let room = data.len().saturating_add(1024);
                let at = out.len();
                out.resize(at.saturating_add(room), 0);
                let (read_before, wrote_before) =
                    (self.deflate.total_in(), self.deflate.total_out());
                let status = self
                    .deflate
                    .compress(data, out.get_mut(at..).unwrap_or_default(), flush)
                    .map_err(|e| compress_error(Compression::Gzip, e))?;
                let read = self.deflate.total_in().saturating_sub(read_before);
                let wrote = self.deflate.total_out().saturating_sub(wrote_before);
                let wrote = usize::try_from(wrote).unwrap_or(room);
                out.truncate(at.saturating_add(wrote));
                data = data
                    .get(usize::try_from(read).unwrap_or(data.len())..)
                    .unwrap_or_default();
                let done = match flush {
                    FlushCompress::Finish => status == Status::StreamEnd,
                    _ => data.is_empty() && wrote < room,
                };
                if done {
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(feature = "snappy")]
mod snappy {
    use super::super::snappy::XERIAL_MAGIC;
    use crate::compression::support::compress_error;
    use bytes::BytesMut;
    use kafka_wire_core::Compression;
    use kafka_wire_core::EncodeError;

    /// The xerial stream header: magic, version 1, compatible version 1.
    pub(super) fn header(out: &mut BytesMut) {
        out.extend_from_slice(XERIAL_MAGIC);
        out.extend_from_slice(&1i32.to_be_bytes());
        out.extend_from_slice(&1i32.to_be_bytes());
    }

    /// Writes one xerial block: its length, then the raw snappy block.
    pub(super) fn put_block(
        encoder: &mut snap::raw::Encoder,
        out: &mut BytesMut,
        block: &[u8],
    ) -> Result<(), EncodeError> {
        let len_at = out.len();
        out.extend_from_slice(&[0; 4]);
        let body_at = out.len();
        out.resize(
            body_at.saturating_add(snap::raw::max_compress_len(block.len())),
            0,
        );
        let n = encoder
            .compress(block, out.get_mut(body_at..).unwrap_or_default())
            .map_err(|e| compress_error(Compression::Snappy, e))?;
        out.truncate(body_at.saturating_add(n));
        // A block of at most 32 KiB of input compresses to well under 2 GiB.
        let len = i32::try_from(n).unwrap_or(i32::MAX);
        if let Some(slot) = out.get_mut(len_at..body_at) {
            slot.copy_from_slice(&len.to_be_bytes());
        }
        Ok(())
    }
}
