//! A Produce or Fetch response that may name brokers, held in the kernel while it arrives (Linux
//! only): its small fields are read into memory and copied into a pipe, its records spliced into
//! the pipe from the socket, so that the whole frame waits there in order. Once its last tagged
//! section is read, the frame goes on to the client from the pipe, untouched, or, when it names
//! brokers, is read back to be rewritten.
//!
//! A frame the pipe cannot hold is read back and finished in memory, as if it had been read so
//! from the start: the stream's bytes are always the pipe's, then the buffer's, then the
//! socket's, in that order.

use super::link::{End, Link};
use super::pipe::{In, Pipe};
use super::scan::{self, Fields, Stop};
use bytes::{Buf, Bytes, BytesMut};

/// What a read ahead asks for beyond the field it needs: the small fields between two records
/// fields, without reaching far into the next records.
const AHEAD: usize = 512;

/// What became of a held frame.
pub enum Held {
    /// It went on to the client as it came.
    Forwarded,
    /// It went on as it came, but could not be read: why.
    Unreadable(&'static str),
    /// It is in memory (with its size field): it names brokers, or the pipe could not hold it.
    Whole(Bytes),
}

/// Why the reading stopped short of the frame's end.
enum Short {
    /// The pipe can take no more.
    Full,
    End(End),
}

struct HeldFields<'a> {
    link: &'a mut Link,
    pipe: &'a mut Pipe,
    /// Bytes at the front of the buffer that were read and are not yet in the pipe.
    consumed: usize,
    /// Bytes of the frame after `consumed` and what went into the pipe.
    left: usize,
}

impl HeldFields<'_> {
    /// What was read of the buffer, copied into the pipe.
    fn flush(&mut self) -> Result<(), Short> {
        let put = self
            .pipe
            .put(self.link.buf.get(..self.consumed).unwrap_or_default())
            .map_err(|e| Short::End(End::Failed(format!("writing to a pipe: {e}"))))?;
        self.link.buf.advance(put);
        self.consumed = self.consumed.saturating_sub(put);
        if self.consumed > 0 {
            return Err(Short::Full);
        }
        Ok(())
    }

    /// The next `n` bytes of the frame into the pipe, without reading them.
    async fn pass(&mut self, n: usize) -> Result<(), Stop<Short>> {
        if n > self.left {
            return Err(Stop::Malformed("a field runs past the end of the frame"));
        }
        self.flush().map_err(Stop::Source)?;
        let in_memory = n.min(self.link.buf.len());
        let head = self.link.buf.get(..in_memory).unwrap_or_default();
        let put = self.pipe.put(head).map_err(|e| {
            Stop::Source(Short::End(End::Failed(format!("writing to a pipe: {e}"))))
        })?;
        self.link.buf.advance(put);
        self.left = self.left.saturating_sub(put);
        if put < in_memory {
            return Err(Stop::Source(Short::Full));
        }
        let mut rest = n.saturating_sub(in_memory);
        while rest > 0 {
            let moved = self.pipe.splice_in(self.link.from.as_ref(), rest).await;
            match moved {
                Ok(In::Moved(m)) => {
                    rest = rest.saturating_sub(m);
                    self.left = self.left.saturating_sub(m);
                }
                Ok(In::Full) => return Err(Stop::Source(Short::Full)),
                Ok(In::Closed) => {
                    let had = self.link.buf.len();
                    return Err(Stop::Source(Short::End(self.link.closed_inside(had))));
                }
                Err(e) => {
                    let had = self.link.buf.len();
                    let end = self.link.read_failed(&e, Some(had));
                    return Err(Stop::Source(Short::End(end)));
                }
            }
        }
        Ok(())
    }
}

impl Fields for HeldFields<'_> {
    type Error = Short;

    async fn fixed<const N: usize>(&mut self) -> Result<[u8; N], Stop<Short>> {
        if N > self.left {
            return Err(Stop::Malformed("a field runs past the end of the frame"));
        }
        let need = self.consumed.saturating_add(N);
        // Ahead within the frame only: what follows it may be a large frame of its own.
        let ahead = self.left.saturating_sub(N).min(AHEAD);
        self.link
            .fill_ahead(need, ahead)
            .await
            .map_err(|e| Stop::Source(Short::End(e)))?;
        let mut out = [0; N];
        out.copy_from_slice(self.link.buf.get(self.consumed..need).unwrap_or(&[0; N]));
        self.consumed = need;
        self.left = self.left.saturating_sub(N);
        Ok(out)
    }

    async fn records(&mut self, n: usize) -> Result<(), Stop<Short>> {
        self.pass(n).await
    }

    async fn skip(&mut self, n: usize) -> Result<(), Stop<Short>> {
        self.pass(n).await
    }
}

/// The frame of `size` bytes (without its size field) at the front of `link`, a response of API
/// `key` at `version` that [`scan::readable`] allows, held until its end is read.
pub async fn hold(link: &mut Link, size: usize, key: i16, version: i16) -> Result<Held, End> {
    let total = size.saturating_add(4);
    let Some(mut pipe) = link.pipe() else {
        link.fill(total).await?;
        return Ok(Held::Whole(link.take(total)));
    };
    let held = hold_in(link, &mut pipe, size, key, version).await;
    let done = match held {
        Ok(Ok(true)) => {
            let mut frame = BytesMut::with_capacity(pipe.held());
            pipe.take_all(&mut frame)
                .map_err(|e| End::Failed(format!("reading a pipe: {e}")))
                .map(|()| Held::Whole(frame.freeze()))
        }
        Ok(Ok(false)) => link.drain(&mut pipe, None).await.map(|()| Held::Forwarded),
        Ok(Err(why)) => link
            .drain(&mut pipe, None)
            .await
            .map(|()| Held::Unreadable(why)),
        Err(Short::End(end)) => {
            // Cut short: the pipe's bytes go on first, then the buffer's (`Link::ended`).
            if matches!(end, End::Cut(_)) {
                let _ = link.drain(&mut pipe, None).await;
            }
            Err(end)
        }
        Err(Short::Full) => {
            // The stream's order: the pipe's bytes, then the buffer's.
            let mut front = BytesMut::with_capacity(pipe.held().saturating_add(link.buf.len()));
            let back = pipe.take_all(&mut front);
            front.extend_from_slice(&link.buf);
            link.buf = front;
            match back {
                Ok(()) => link
                    .fill(total)
                    .await
                    .map(|()| Held::Whole(link.take(total))),
                Err(e) => Err(End::Failed(format!("reading a pipe: {e}"))),
            }
        }
    };
    link.give_back(pipe);
    done
}

/// Reads the frame into `pipe` to its end: whether it names nodes, or why it could not be read
/// (the whole frame is in the pipe either way).
async fn hold_in(
    link: &mut Link,
    pipe: &mut Pipe,
    size: usize,
    key: i16,
    version: i16,
) -> Result<Result<bool, &'static str>, Short> {
    let mut f = HeldFields {
        link,
        pipe,
        // The size field, already in memory.
        consumed: 4,
        left: size,
    };
    let read = scan::response(&mut f, key, version).await;
    let names = match read {
        Ok(names) => Ok(names),
        Err(Stop::Source(short)) => return Err(short),
        Err(Stop::Malformed(why)) => Err(why),
    };
    // Bytes after the body, or after what could not be read, go with the frame (all that is
    // left of it, which cannot run past its end).
    if let Err(Stop::Source(short)) = f.pass(f.left).await {
        return Err(short);
    }
    f.flush()?;
    Ok(names)
}
