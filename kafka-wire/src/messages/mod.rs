//! Kafka's messages, each in a module named after it, all re-exported here.

pub mod write_txn_markers_request;
pub mod write_txn_markers_response;

pub use self::write_txn_markers_request::*;
pub use self::write_txn_markers_response::*;
