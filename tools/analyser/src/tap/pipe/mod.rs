//! A pipe that holds bytes on their way from one socket to another, moved with `splice(2)` and
//! copied with `tee(2)`, so that they need not pass through the tap's memory (Linux only).
//!
//! Sockets are tokio's, non-blocking, and so are the pipe's ends: a call here either moves bytes
//! or says why it could not, and waits for a socket's readiness only when the socket is what
//! stops it. A pipe's capacity counts the pages the kernel lends it, not bytes: how many bytes
//! fit depends on how the socket's data was cut, so [`In::Full`] is learnt by trying. `held` is
//! what went in and has not come out; a pipe is owned by one direction of one connection, so
//! that count is exact.

use bytes::BytesMut;
use rustix::io::Errno;
use rustix::pipe::{self, PipeFlags, SpliceFlags};
use std::io;
use std::os::fd::OwnedFd;
use tokio::io::Interest;
use tokio::net::TcpStream;

/// Where Linux tells how large an unprivileged process may make a pipe.
const MAX_SIZE: &str = "/proc/sys/fs/pipe-max-size";

pub struct Pipe {
    read: OwnedFd,
    write: OwnedFd,
    held: usize,
}

/// What a move from a socket into a pipe did.
#[derive(Debug, PartialEq, Eq)]
pub enum In {
    Moved(usize),
    /// The socket's peer closed it, and every byte it sent has been read.
    Closed,
    /// The socket has bytes the pipe cannot take until some come out.
    Full,
}

impl Pipe {
    /// A pipe of `size` bytes' worth of pages, or as large as the system lets this process make
    /// one (the default size when it does not say, or refuses).
    pub fn new(size: Option<usize>) -> io::Result<Pipe> {
        let (read, write) = pipe::pipe_with(PipeFlags::NONBLOCK | PipeFlags::CLOEXEC)?;
        let max = size.or_else(|| {
            std::fs::read_to_string(MAX_SIZE)
                .ok()
                .and_then(|s| s.trim().parse::<usize>().ok())
        });
        if let Some(max) = max {
            // Refused beyond the user's share of pipe pages: the default size still works.
            let _ = pipe::fcntl_setpipe_size(&write, max);
        }
        Ok(Pipe {
            read,
            write,
            held: 0,
        })
    }

    /// The bytes in the pipe.
    pub fn held(&self) -> usize {
        self.held
    }

    /// Up to `max` (above 0) bytes from `from` into the pipe, waiting until the socket has some.
    pub async fn splice_in(&mut self, from: &TcpStream, max: usize) -> io::Result<In> {
        let flags = SpliceFlags::NONBLOCK | SpliceFlags::MOVE;
        loop {
            from.readable().await?;
            let (write, held) = (&self.write, self.held);
            let moved = from.try_io(Interest::READABLE, || {
                match pipe::splice(from, None, write, None, max, flags) {
                    Ok(0) => Ok(In::Closed),
                    Ok(n) => Ok(In::Moved(n)),
                    // An empty pipe can take bytes: the socket has none.
                    Err(Errno::AGAIN) if held == 0 => Err(io::ErrorKind::WouldBlock.into()),
                    // The socket has none, or the pipe is full: the socket's queue tells
                    // which, and only this task takes bytes from it.
                    Err(Errno::AGAIN) => match rustix::io::ioctl_fionread(from)? {
                        0 => Err(io::ErrorKind::WouldBlock.into()),
                        _ => match pipe::splice(from, None, write, None, max, flags) {
                            Ok(0) => Ok(In::Closed),
                            Ok(n) => Ok(In::Moved(n)),
                            Err(Errno::AGAIN) => Ok(In::Full),
                            Err(e) => Err(e.into()),
                        },
                    },
                    Err(e) => Err(e.into()),
                }
            });
            match moved {
                Ok(In::Moved(n)) => {
                    self.held = self.held.saturating_add(n);
                    return Ok(In::Moved(n));
                }
                Ok(other) => return Ok(other),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// The first `n` held bytes to `to`, waiting while the socket's buffer is full.
    pub async fn splice_out(&mut self, to: &TcpStream, n: usize) -> io::Result<()> {
        let mut left = n.min(self.held);
        while left > 0 {
            to.writable().await?;
            let read = &self.read;
            let sent = to.try_io(Interest::WRITABLE, || {
                // The pipe holds `left` bytes or more: an empty socket buffer is the only wait.
                pipe::splice(read, None, to, None, left, SpliceFlags::NONBLOCK)
                    .map_err(io::Error::from)
            });
            match sent {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(m) => {
                    left = left.saturating_sub(m);
                    self.held = self.held.saturating_sub(m);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Copies `bytes` (read into memory before) in after what the pipe holds; gives how many
    /// it took, fewer than all when it is full.
    pub fn put(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut put = 0;
        while let Some(rest) = bytes.get(put..).filter(|r| !r.is_empty()) {
            match rustix::io::write(&self.write, rest) {
                Ok(n) => {
                    put += n;
                    self.held = self.held.saturating_add(n);
                }
                Err(Errno::AGAIN) => break,
                Err(e) => return Err(e.into()),
            }
        }
        Ok(put)
    }

    /// Every held byte, read out of the pipe onto the end of `into`.
    pub fn take_all(&mut self, into: &mut BytesMut) -> io::Result<()> {
        while self.held > 0 {
            let start = into.len();
            into.resize(start.saturating_add(self.held), 0);
            let read = rustix::io::read(&self.read, into.get_mut(start..).unwrap_or_default());
            let n = match read {
                Ok(0) | Err(Errno::AGAIN) => 0,
                Ok(n) => n,
                Err(e) => {
                    into.truncate(start);
                    return Err(e.into());
                }
            };
            into.truncate(start.saturating_add(n));
            if n == 0 {
                return Err(io::Error::other(
                    "the pipe holds fewer bytes than were put in",
                ));
            }
            self.held = self.held.saturating_sub(n);
        }
        Ok(())
    }

    /// Copies the first bytes the pipe holds, up to `n`, into `copy`, leaving them where they
    /// are; gives how many it copied (fewer when `copy` is full).
    pub fn tee(&self, copy: &mut Pipe, n: usize) -> io::Result<usize> {
        let n = n.min(self.held);
        if n == 0 {
            return Ok(0);
        }
        match pipe::tee(&self.read, &copy.write, n, SpliceFlags::NONBLOCK) {
            Ok(m) => {
                copy.held = copy.held.saturating_add(m);
                Ok(m)
            }
            Err(Errno::AGAIN) => Ok(0),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests;
