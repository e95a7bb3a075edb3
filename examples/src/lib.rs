//! Runnable programs that use kafka-wire; see the `[[example]]` targets.
#![forbid(unsafe_code)]
