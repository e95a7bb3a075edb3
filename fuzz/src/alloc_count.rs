//! A counting global allocator: per thread, the bytes requested, the largest single request and
//! the peak of the bytes held since the last [`Region::new`].
//!
//! Written here rather than taken from crates.io: `stats_alloc` has no largest-allocation
//! figure, and the crate that has one counts through a mutex and a channel on every call. This
//! is the only module of the workspace with `unsafe` code; the crate root denies it elsewhere.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting on the side.
pub struct Counting;

thread_local! {
    // Const-initialised and without a destructor, so touching them never allocates.
    static TOTAL: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    // Bytes held: what this thread allocated less what it freed since the region began (it may
    // go below zero when the region frees what was allocated before it), and its highest value.
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn note(requested: usize, grown_by: usize) {
    // `try_with` fails only while the thread is being torn down; nothing is counted then.
    let _ = TOTAL.try_with(|t| t.set(t.get().saturating_add(grown_by)));
    let _ = LARGEST.try_with(|l| l.set(l.get().max(requested)));
}

/// The bytes held change by `delta`.
fn hold(delta: isize) {
    let _ = HELD.try_with(|h| {
        let now = h.get().saturating_add(delta);
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

#[allow(unsafe_code)]
mod imp {
    use super::*;

    // SAFETY (for the impl as a whole): every method forwards to `System` with the arguments it
    // was given, so the `GlobalAlloc` contract holds exactly as it does for `System`; the
    // bookkeeping around it touches only thread-local `Cell`s and never allocates or panics.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            note(layout.size(), layout.size());
            hold(signed(layout.size()));
            // SAFETY: the caller upholds `alloc`'s contract (non-zero size), passed on as is.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            note(layout.size(), layout.size());
            hold(signed(layout.size()));
            // SAFETY: as for `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            hold(signed(layout.size()).saturating_neg());
            // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // A growing buffer is counted by what it grows, so doubling to n costs about n.
            note(new_size, new_size.saturating_sub(layout.size()));
            hold(signed(new_size).saturating_sub(signed(layout.size())));
            // SAFETY: the caller upholds `realloc`'s contract for a block of `System`.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

/// What one stretch of code on this thread allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Bytes requested, a reallocation counting by its growth.
    pub total: usize,
    /// The largest single request (a reallocation counts by its new size).
    pub largest: usize,
    /// The most bytes held at once, counting from the region's start.
    pub peak: usize,
}

/// Counts from its creation to [`Region::usage`]; regions do not nest.
pub struct Region(());

impl Region {
    /// Starts counting on this thread.
    pub fn new() -> Self {
        let _ = TOTAL.try_with(|t| t.set(0));
        let _ = LARGEST.try_with(|l| l.set(0));
        let _ = HELD.try_with(|h| h.set(0));
        let _ = PEAK.try_with(|p| p.set(0));
        Region(())
    }

    /// What this thread allocated since the region began.
    pub fn usage(&self) -> Usage {
        Usage {
            total: TOTAL.try_with(Cell::get).unwrap_or(0),
            largest: LARGEST.try_with(Cell::get).unwrap_or(0),
            peak: usize::try_from(PEAK.try_with(Cell::get).unwrap_or(0)).unwrap_or(0),
        }
    }
}

impl Default for Region {
    fn default() -> Self {
        Self::new()
    }
}
