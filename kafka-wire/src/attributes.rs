//! Reference of every `#[kafka(...)]` key (documentation only).
