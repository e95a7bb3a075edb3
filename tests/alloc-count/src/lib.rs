//! A counting global allocator: per thread, while a [`Region`] is open, the number of
//! allocations, the bytes requested, the largest single request and the peak of the bytes held.
//!
//! Written here rather than taken from crates.io: `stats_alloc` counts with atomics on every
//! call, whether anyone is looking or not, and has no largest-allocation or peak figure; the
//! crate that has a largest figure counts through a mutex and a channel. Here a call costs one
//! relaxed load while no region is open, so a benchmark that installs this allocator times the
//! code, not the bookkeeping, outside its counted pass.
//!
//! This is the one crate of the workspace with `unsafe` code: `GlobalAlloc` cannot be
//! implemented without it.
#![deny(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, counting on the side while a region is open.
pub struct Counting;

/// Regions open in the process; while none is, nothing is counted.
static OPEN: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // Const-initialised and without a destructor, so touching them never allocates.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static COUNT: Cell<usize> = const { Cell::new(0) };
    static TOTAL: Cell<usize> = const { Cell::new(0) };
    static LARGEST: Cell<usize> = const { Cell::new(0) };
    // Bytes held: what this thread allocated less what it freed since the region began (it may
    // go below zero when the region frees what was allocated before it), and its highest value.
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn counting() -> bool {
    OPEN.load(Ordering::Relaxed) != 0 && ACTIVE.try_with(Cell::get).unwrap_or(false)
}

fn signed(n: usize) -> isize {
    isize::try_from(n).unwrap_or(isize::MAX)
}

/// An allocation of `requested` bytes that grows what is requested by `grown_by` and what is
/// held by `held`.
fn note(requested: usize, grown_by: usize, held: isize) {
    if !counting() {
        return;
    }
    // `try_with` fails only while the thread is being torn down; nothing is counted then.
    let _ = COUNT.try_with(|c| c.set(c.get().saturating_add(1)));
    let _ = TOTAL.try_with(|t| t.set(t.get().saturating_add(grown_by)));
    let _ = LARGEST.try_with(|l| l.set(l.get().max(requested)));
    hold(held);
}

fn hold(delta: isize) {
    let _ = HELD.try_with(|h| {
        let now = h.get().saturating_add(delta);
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

#[allow(unsafe_code)]
mod imp {
    use super::*;

    // SAFETY (for the impl as a whole): every method forwards to `System` with the arguments it
    // was given, so the `GlobalAlloc` contract holds exactly as it does for `System`; the
    // bookkeeping around it touches only an atomic and thread-local `Cell`s, and never
    // allocates or panics.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            note(layout.size(), layout.size(), signed(layout.size()));
            // SAFETY: the caller upholds `alloc`'s contract (non-zero size), passed on as is.
            unsafe { System.alloc(layout) }
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            note(layout.size(), layout.size(), signed(layout.size()));
            // SAFETY: as for `alloc`.
            unsafe { System.alloc_zeroed(layout) }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            if counting() {
                hold(signed(layout.size()).saturating_neg());
            }
            // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
            unsafe { System.dealloc(ptr, layout) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // A growing buffer is counted by what it grows, so doubling to n costs about n.
            note(
                new_size,
                new_size.saturating_sub(layout.size()),
                signed(new_size).saturating_sub(signed(layout.size())),
            );
            // SAFETY: the caller upholds `realloc`'s contract for a block of `System`.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

/// What one stretch of code on this thread allocated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// Allocations and reallocations.
    pub count: usize,
    /// Bytes requested, a reallocation counting by its growth.
    pub total: usize,
    /// The largest single request (a reallocation counts by its new size).
    pub largest: usize,
    /// The most bytes held at once, counting from the region's start.
    pub peak: usize,
}

/// Counts this thread's allocations from its creation to [`Region::usage`]; regions do not nest.
pub struct Region(());

impl Region {
    /// Starts counting on this thread.
    pub fn new() -> Self {
        let _ = COUNT.try_with(|c| c.set(0));
        let _ = TOTAL.try_with(|t| t.set(0));
        let _ = LARGEST.try_with(|l| l.set(0));
        let _ = HELD.try_with(|h| h.set(0));
        let _ = PEAK.try_with(|p| p.set(0));
        let _ = ACTIVE.try_with(|a| a.set(true));
        OPEN.fetch_add(1, Ordering::Relaxed);
        Region(())
    }

    /// What this thread allocated since the region began.
    pub fn usage(&self) -> Usage {
        Usage {
            count: COUNT.try_with(Cell::get).unwrap_or(0),
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

impl Drop for Region {
    fn drop(&mut self) {
        let _ = ACTIVE.try_with(|a| a.set(false));
        OPEN.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[global_allocator]
    static ALLOCATOR: Counting = Counting;

    #[test]
    fn counts_what_a_region_allocates_and_holds() {
        let region = Region::new();
        let mut v: Vec<u8> = Vec::with_capacity(1000);
        v.extend_from_slice(&[1; 1000]);
        v.reserve_exact(3000);
        let usage = region.usage();
        assert_eq!(usage.count, 2);
        assert_eq!(usage.total, 4000);
        assert_eq!(usage.largest, 4000);
        assert_eq!(usage.peak, 4000);
        drop(v);
        let _small = Box::new(7u64);
        let usage = region.usage();
        assert_eq!((usage.count, usage.peak), (3, 4000));
        drop(region);
        let before = Region::new().usage();
        assert_eq!(before, Usage::default());
    }
}
