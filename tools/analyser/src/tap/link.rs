//! One direction of a connection through the tap: frames from one socket, read into memory as far
//! as the tap must look at them, and passed on to the other socket.
//!
//! Small frames are read whole, several at a time, and written on from memory. A large frame that
//! the tap needs only the head of is moved on in the kernel, on Linux, through a pipe, after the
//! head is read ([`Link::forward`]); with `--copy`, and on other systems, every byte is read and
//! written. Memory follows what has arrived, never what a size field claims: a buffer grows at
//! most to twice what it holds, and a pipe's pages are the kernel's, bounded by its size.

#[cfg(target_os = "linux")]
use super::pipe::{In, Pipe};
use bytes::{Bytes, BytesMut};
use kafka_wire::frame::peek_size;
use kafka_wire::DecodeError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

/// What a read asks the socket for when no frame in progress needs more, copying.
const READ_SIZE: usize = 64 * 1024;
/// The same, when large frames move in the kernel: what is read of one is copied.
const HEAD_READ: usize = 16 * 1024;
/// A frame larger than this that is not whole in memory moves in the kernel.
const KERNEL_FROM: usize = 64 * 1024;

/// Why a connection ended.
pub enum End {
    /// One side closed it: the other is closed too.
    Closed(&'static str),
    /// The tap stopped.
    Stopped,
    /// Something could not be read or written: reported, and both sides closed.
    Failed(String),
    /// One side closed inside a frame: what of it arrived is passed on as it came (see
    /// [`Link::ended`]), then reported as a failure is.
    Cut(String),
}

/// What comes next from a link.
pub enum Next {
    /// Whole frames, each with its size field.
    Whole(Bytes),
    /// A frame of this size (without its size field) that moves in the kernel: what has
    /// arrived of it is at the front of [`Link::buf`].
    Large(usize),
}

pub struct Link {
    pub from: OwnedReadHalf,
    pub to: OwnedWriteHalf,
    /// Bytes read from `from` and not yet passed on.
    pub buf: BytesMut,
    /// Whether large frames move in the kernel.
    kernel: bool,
    /// The size asked for each pipe, if not the largest allowed.
    #[cfg(target_os = "linux")]
    pipe_size: Option<usize>,
    /// The pipe frames pass through, made the first time one does.
    #[cfg(target_os = "linux")]
    pipe: Option<Pipe>,
    /// A second pipe, for the copy of what passes that the lines need (`tee`).
    #[cfg(target_os = "linux")]
    tee_pipe: Option<Pipe>,
    /// Bytes that went on to `to` from a pipe, not through the tap's memory.
    pub spliced: u64,
    /// Who is at each end, for the reports.
    pub who: &'static str,
    pub dest: &'static str,
}

impl Link {
    /// A link from `from` (`who`) to `to` (`dest`); large frames move in the kernel when
    /// `kernel` asks it and the system allows it, through pipes of `pipe_size`.
    pub fn new(
        from: OwnedReadHalf,
        to: OwnedWriteHalf,
        kernel: bool,
        pipe_size: Option<usize>,
        who: &'static str,
        dest: &'static str,
    ) -> Link {
        // Pipes exist on Linux only.
        #[cfg(not(target_os = "linux"))]
        let _ = pipe_size;
        Link {
            from,
            to,
            buf: BytesMut::new(),
            kernel: kernel && cfg!(target_os = "linux"),
            #[cfg(target_os = "linux")]
            pipe_size,
            #[cfg(target_os = "linux")]
            pipe: None,
            #[cfg(target_os = "linux")]
            tee_pipe: None,
            spliced: 0,
            who,
            dest,
        }
    }

    pub fn closed_inside(&self, had: usize) -> End {
        End::Cut(format!(
            "{} closed the connection inside a frame ({had} bytes of it)",
            self.who
        ))
    }

    /// What a read that failed with `e` ends: a reset by the peer is its close, abrupt but its
    /// own, as a broker sees a client's (between frames a close, inside a frame a cut, `had`
    /// bytes of it come); anything else a failure.
    pub fn read_failed(&self, e: &std::io::Error, inside: Option<usize>) -> End {
        match (e.kind(), inside) {
            (std::io::ErrorKind::ConnectionReset, None) => End::Closed(self.who),
            (std::io::ErrorKind::ConnectionReset, Some(had)) => self.closed_inside(had),
            _ => End::Failed(format!("reading from {}: {e}", self.who)),
        }
    }

    /// One read, of at most `limit` bytes (any amount, for `None`).
    async fn read(&mut self, limit: Option<usize>) -> Result<(), End> {
        let read = match limit {
            Some(limit) => {
                self.buf.reserve(limit.max(1));
                (&mut self.from)
                    .take(limit.max(1) as u64)
                    .read_buf(&mut self.buf)
                    .await
            }
            None => self.from.read_buf(&mut self.buf).await,
        };
        match read {
            Ok(0) if self.buf.is_empty() => Err(End::Closed(self.who)),
            Ok(0) => Err(self.closed_inside(self.buf.len())),
            Ok(_) => Ok(()),
            Err(e) => {
                let inside = (!self.buf.is_empty()).then_some(self.buf.len());
                Err(self.read_failed(&e, inside))
            }
        }
    }

    /// Reads until at least `n` bytes are in memory, each read asking for what is missing and
    /// `ahead` more, but never for more than the buffer already holds (and a read's worth).
    pub async fn fill_ahead(&mut self, n: usize, ahead: usize) -> Result<(), End> {
        while self.buf.len() < n {
            let missing = n.saturating_sub(self.buf.len()).saturating_add(ahead);
            let room = missing.min(self.buf.len().max(READ_SIZE));
            if self.kernel {
                self.read(Some(room)).await?;
            } else {
                self.buf.reserve(room);
                self.read(None).await?;
            }
        }
        Ok(())
    }

    /// Reads until at least `n` bytes are in memory.
    pub async fn fill(&mut self, n: usize) -> Result<(), End> {
        self.fill_ahead(n, 0).await
    }

    /// The next whole frames, or a large frame's size; `Err` when the connection ended or a
    /// size field is out of bounds. `kernel` false reads every frame whole.
    pub async fn next(&mut self, max: usize, kernel: bool) -> Result<Next, End> {
        loop {
            let size = match peek_size(&self.buf, max) {
                Ok(size) => size,
                Err(e) => return Err(End::Failed(format!("from {}, {e}", self.who))),
            };
            match whole_frames(&self.buf, max) {
                Ok(0) => {}
                Ok(whole) => return Ok(Next::Whole(self.buf.split_to(whole).freeze())),
                Err(e) => return Err(End::Failed(format!("from {}, {e}", self.who))),
            }
            let total = size.map(|s| s.saturating_add(4));
            if let Some(size) = size.filter(|s| kernel && self.kernel && *s >= KERNEL_FROM) {
                return Ok(Next::Large(size));
            }
            if self.kernel {
                let rest = total.map_or(0, |t| t.saturating_sub(self.buf.len()));
                let room = rest.max(HEAD_READ).min(self.buf.len().max(READ_SIZE));
                self.read(Some(room)).await?;
            } else {
                reserve(&mut self.buf);
                self.read(None).await?;
            }
        }
    }

    /// How the link ended, once what of a frame cut short is still in memory has gone on: the
    /// other side receives the stream as it came, up to where it stopped, then the close.
    pub async fn ended(&mut self, end: End) -> End {
        if matches!(end, End::Cut(_)) {
            let rest = self.buf.split().freeze();
            // The connection closes either way; what cannot be written is not reported twice.
            let _ = self.write(&rest).await;
        }
        end
    }

    /// The next `n` bytes, which are in memory.
    pub fn take(&mut self, n: usize) -> Bytes {
        self.buf.split_to(n.min(self.buf.len())).freeze()
    }

    pub async fn write(&mut self, bytes: &[u8]) -> Result<(), End> {
        self.to
            .write_all(bytes)
            .await
            .map_err(|e| End::Failed(format!("writing to {}: {e}", self.dest)))
    }

    /// The next `n` bytes of the stream on to `to`: those in memory written, the rest moved
    /// in the kernel (or read and written).
    pub async fn forward(&mut self, n: usize) -> Result<(), End> {
        let in_memory = self.take(n);
        self.write(&in_memory).await?;
        let left = n.saturating_sub(in_memory.len());
        #[cfg(target_os = "linux")]
        if self.kernel && left > 0 {
            if let Some(mut pipe) = self.pipe() {
                let moved = self.splice(&mut pipe, left, None).await;
                self.pipe = Some(pipe);
                return moved;
            }
        }
        self.copy(left, None).await
    }

    /// As [`forward`](Self::forward), and gives the bytes that went on: those in memory, and
    /// a copy of the rest (`tee`).
    pub async fn forward_copy(&mut self, n: usize) -> Result<Bytes, End> {
        let in_memory = self.take(n);
        self.write(&in_memory).await?;
        let left = n.saturating_sub(in_memory.len());
        let mut all = BytesMut::from(&in_memory[..]);
        #[cfg(target_os = "linux")]
        if self.kernel && left > 0 {
            if self.tee_pipe.is_none() {
                self.tee_pipe = Pipe::new(self.pipe_size).ok();
            }
            if let (Some(mut pipe), Some(mut copy)) = (self.pipe(), self.tee_pipe.take()) {
                let moved = self
                    .splice(&mut pipe, left, Some((&mut copy, &mut all)))
                    .await;
                (self.pipe, self.tee_pipe) = (Some(pipe), Some(copy));
                return moved.map(|()| all.freeze());
            }
        }
        self.copy(left, Some(&mut all)).await?;
        Ok(all.freeze())
    }

    /// `n` bytes read and written, none of them in memory before; kept in `keep` too when given.
    async fn copy(&mut self, n: usize, mut keep: Option<&mut BytesMut>) -> Result<(), End> {
        let mut left = n;
        while left > 0 {
            let had = self.buf.len();
            self.read(Some(left.min(READ_SIZE)))
                .await
                .map_err(|e| match e {
                    End::Closed(_) => self.closed_inside(had),
                    e => e,
                })?;
            let chunk = self.take(left);
            self.write(&chunk).await?;
            if let Some(keep) = keep.as_deref_mut() {
                keep.extend_from_slice(&chunk);
            }
            left = left.saturating_sub(chunk.len());
        }
        Ok(())
    }

    /// The pipe frames pass through, made when first needed; `None` when it cannot be (out of
    /// descriptors): the frame is then copied.
    #[cfg(target_os = "linux")]
    pub fn pipe(&mut self) -> Option<Pipe> {
        self.pipe.take().or_else(|| Pipe::new(self.pipe_size).ok())
    }

    /// Gives back the pipe [`pipe`](Self::pipe) lent, empty.
    #[cfg(target_os = "linux")]
    pub fn give_back(&mut self, pipe: Pipe) {
        self.pipe = Some(pipe);
    }

    /// `n` bytes from the socket through `pipe` to `to`; each chunk also copied into `keep`
    /// through its pipe when given.
    #[cfg(target_os = "linux")]
    async fn splice(
        &mut self,
        pipe: &mut Pipe,
        n: usize,
        mut keep: Option<(&mut Pipe, &mut BytesMut)>,
    ) -> Result<(), End> {
        let mut left = n;
        while left > 0 {
            match pipe.splice_in(self.from.as_ref(), left).await {
                Ok(In::Moved(m)) => left = left.saturating_sub(m),
                Ok(In::Full) => {}
                Ok(In::Closed) => return Err(self.closed_inside(n.saturating_sub(left))),
                Err(e) => return Err(self.read_failed(&e, Some(n.saturating_sub(left)))),
            }
            self.drain(pipe, keep.as_mut().map(|(c, k)| (&mut **c, &mut **k)))
                .await?;
        }
        Ok(())
    }

    /// Everything `pipe` holds on to `to`; copied into `keep` through its pipe when given.
    #[cfg(target_os = "linux")]
    pub async fn drain(
        &mut self,
        pipe: &mut Pipe,
        mut keep: Option<(&mut Pipe, &mut BytesMut)>,
    ) -> Result<(), End> {
        let failed = |e: std::io::Error, dest: &str| End::Failed(format!("writing to {dest}: {e}"));
        while pipe.held() > 0 {
            let n = match keep.as_mut() {
                Some((copy, into)) => {
                    let n = pipe
                        .tee(copy, pipe.held())
                        .map_err(|e| End::Failed(format!("copying from a pipe: {e}")))?;
                    copy.take_all(into)
                        .map_err(|e| End::Failed(format!("reading a pipe: {e}")))?;
                    if n == 0 {
                        return Err(End::Failed("a pipe copied nothing".into()));
                    }
                    n
                }
                None => pipe.held(),
            };
            pipe.splice_out(self.to.as_ref(), n)
                .await
                .map_err(|e| failed(e, self.dest))?;
            self.spliced = self.spliced.saturating_add(n as u64);
        }
        Ok(())
    }
}

/// The length of the whole frames at the front of `buf`, each with its size field; an error for
/// a size that is negative or above `max`, as soon as its size field is in.
fn whole_frames(buf: &[u8], max: usize) -> Result<usize, DecodeError> {
    let mut at = 0usize;
    while let Some(size) = peek_size(buf.get(at..).unwrap_or_default(), max)? {
        let end = at.saturating_add(4).saturating_add(size);
        if end > buf.len() {
            break;
        }
        at = end;
    }
    Ok(at)
}

/// Room for the next read: the rest of the frame at the front of `buf`, but no more than `buf`
/// already holds (and at least a read's worth), so that a size field alone never buys its
/// frame's memory: what the tap holds stays within twice what it was sent, and a large frame
/// still takes few reads.
fn reserve(buf: &mut BytesMut) {
    // The size field was checked when it came in.
    let rest = match peek_size(buf, usize::MAX) {
        Ok(Some(size)) => size.saturating_add(4).saturating_sub(buf.len()),
        _ => READ_SIZE,
    };
    buf.reserve(rest.min(buf.len().max(READ_SIZE)).max(1));
}

/// The frames of `chunk` (whole frames, each with its size field), without their size fields,
/// with where each starts and ends in `chunk`.
pub fn frames(chunk: &Bytes) -> impl Iterator<Item = (usize, usize, Bytes)> + '_ {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let size = peek_size(chunk.get(at..)?, usize::MAX).ok()??;
        let start = at;
        let end = at.saturating_add(4).saturating_add(size).min(chunk.len());
        at = end;
        Some((start, end, chunk.slice(start.saturating_add(4)..end)))
    })
}
