//! The `--verbose` trace: one line per decision, marker send, retry or fenced request, on
//! standard error, tagged with who made it.

use std::sync::atomic::{AtomicBool, Ordering};

static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Turns the trace on or off for the whole process.
pub fn set_verbose(on: bool) {
    VERBOSE.store(on, Ordering::Relaxed);
}

/// Whether the trace is on.
pub fn verbose() -> bool {
    VERBOSE.load(Ordering::Relaxed)
}

/// Writes one trace line for `who` (e.g. `broker 1 coordinator`) when the trace is on.
pub fn emit(who: &str, what: std::fmt::Arguments<'_>) {
    if verbose() {
        eprintln!("[{who}] {what}");
    }
}

/// `trace!(who, "format", args..)`: a trace line, formatted only when the trace is on.
#[macro_export]
macro_rules! trace {
    ($who:expr, $($arg:tt)+) => {
        if $crate::trace::verbose() {
            $crate::trace::emit(&$who, format_args!($($arg)+));
        }
    };
}
