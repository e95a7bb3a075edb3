//! Codecs for the schema's primitive types, classic and compact forms side by side.

pub(crate) mod array;
pub(crate) mod bytes;
pub(crate) mod int;
pub(crate) mod string;
pub(crate) mod uuid;
pub mod varint;
