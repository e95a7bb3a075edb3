//! A small Kafka-compatible broker that shows, end to end, how a transaction is finished with
//! WriteTxnMarkers and why marker delivery has to be idempotent and epoch-fenced.
//!
//! The pieces:
//!
//! - [`storage`]: append-only files (on disk, or in memory for the simulation).
//! - [`cluster`]: brokers, topics and who leads each partition.
//! - [`leader`]: partition leaders. Each partition is a log of RecordBatch v2 bytes; the leader
//!   keeps per-producer state rebuilt from that log, answers Produce, WriteTxnMarkers, Fetch and
//!   ListOffsets.
//! - [`coordinator`]: the transaction coordinator with its durable transaction log, the
//!   two-phase finish (decision first, markers after) and the retries of phase 2.
//! - `fencing` (crate-private): every fencing rule, of the coordinator and of the leaders, in
//!   one place: producer epochs, coordinator epochs, the transaction-version-2 rule.
//! - [`server`]: TCP listeners (one for clients, one for brokers), framing, ApiVersions and
//!   Metadata, and the marker sender.
//! - [`trace`](mod@trace): the `--verbose` trace.
#![forbid(unsafe_code)]

pub mod cluster;
pub mod coordinator;
mod fencing;
pub mod leader;
pub mod server;
pub mod storage;
pub mod trace;
pub mod txn_log;
