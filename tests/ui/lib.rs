//! Nothing: the cases are under `fail/` and `pass/`, and `ui.rs` runs them.
#![forbid(unsafe_code)]
