//! Requests waiting for their responses, in the order they were sent: a broker answers a
//! connection's requests in that order.

use super::output::Part;
use bytes::Bytes;
use std::collections::VecDeque;
use std::sync::Mutex;

/// A request forwarded to the broker, waiting for its response.
pub struct Pending {
    pub key: i16,
    pub version: i16,
    pub correlation: i32,
    pub request: Part,
}

#[derive(Default)]
pub struct Queue(Mutex<VecDeque<Pending>>);

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Pending>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn push(&self, p: Pending) {
        self.lock().push_back(p);
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Every request still waiting, oldest first.
    pub fn take_all(&self) -> VecDeque<Pending> {
        std::mem::take(&mut *self.lock())
    }

    /// The newest request with `correlation`, queued before its last byte went on: its time
    /// becomes that of its last byte, and its bytes those given, if any.
    pub fn complete(&self, correlation: i32, time_us: u64, bytes: Option<Bytes>) {
        if let Some(p) = self
            .lock()
            .iter_mut()
            .rev()
            .find(|p| p.correlation == correlation)
        {
            p.request.time_us = time_us;
            if let Some(bytes) = bytes {
                p.request.bytes = bytes;
            }
        }
    }

    /// The request a response with `correlation` answers: the oldest one waiting, unless the
    /// broker answered out of order.
    pub fn answered(&self, correlation: i32) -> Option<Pending> {
        let mut q = self.lock();
        if q.front().is_some_and(|p| p.correlation == correlation) {
            return q.pop_front();
        }
        let at = q.iter().position(|p| p.correlation == correlation)?;
        q.remove(at)
    }
}
