//! Record batches: the contents of a records field (Produce, Fetch, ...), read and written.
//! Applications use them as `kafka_wire::records`.
//!
//! Three formats share one model. Magic 2 is the record batch of Kafka 0.11 and later; magic 0
//! and 1 are the older message sets, where a message is either one record or, when compressed,
//! a wrapper whose value holds an inner message set. A batch stands for a magic 2 batch, a lone
//! legacy message (one record) or a compressed legacy wrapper (its inner records), with the
//! legacy batch fields at Kafka's "none" values.
//!
//! # Reading
//!
//! [`RecordsReader`] walks the batches of a records field and yields a [`BatchView`] for each:
//! its [`BatchHeader`], checked against the batch's checksum, and its records as an iterator of
//! [`RecordView`]s. Nothing is allocated per record or per header: keys, values and headers are
//! slices of the input, or, for a compressed batch, of the one buffer its payload is
//! decompressed into when its records are first asked for.
//!
//! ```
//! use kafka_wire::records::{Record, RecordBatchBuilder, RecordsReader};
//!
//! let records = RecordBatchBuilder::new()
//!     .producer(4000, 2, 17)
//!     .record(Record::new(Some("k".into()), Some("v".into())).with_timestamp(1_700_000_000_000))
//!     .record(Record::new(None, Some("w".into())).with_timestamp(1_700_000_000_005))
//!     .encode()?;
//!
//! let mut total = 0;
//! for batch in RecordsReader::new(records.into_bytes()) {
//!     let batch = batch?;
//!     assert_eq!(batch.header.producer_id, 4000);
//!     for record in batch.records()? {
//!         let record = record?;
//!         total += record.value().map_or(0, <[u8]>::len);
//!         assert!(record.timestamp() >= 1_700_000_000_000);
//!     }
//! }
//! assert_eq!(total, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where owned values are handier, [`read_all`] and [`RecordsReader::into_owned`] give
//! [`RecordBatch`]es. They obey the same memory bound as the views (see [`DecodeLimits`]).
//!
//! # Writing
//!
//! [`RecordBatchBuilder`] sets the batch fields; [`BatchWriter`] then writes records one by one
//! straight into a `BytesMut`, through a streaming compressor when the batch is compressed, so
//! writing a batch costs its output and the codec's state.

#![forbid(unsafe_code)]
// docs.rs builds with `--cfg docsrs` on nightly, where `doc_cfg` marks each item with the
// features it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

extern crate alloc;

mod batch;
mod builder;
mod checksum;
mod compression;
mod control;
mod error;
// The JSON form of owned batches, beside the messages' (`kafka_wire::json`).
#[cfg(feature = "serde")]
mod json;
mod legacy;
mod owned;
mod reader;
mod v2;
mod view;
mod wire;
mod writer;

pub use batch::{attributes, BatchHeader, DecodeLimits, TimestampType, LOG_OVERHEAD};
pub use builder::RecordBatchBuilder;
pub use compression::{compress, decompress, is_enabled};
pub use control::{ControlRecord, ControlRecordType, TxnMarker};
pub use error::RecordsError;
pub use kafka_wire_core::Compression;
pub use owned::{Header, Record, RecordBatch};
pub use reader::{read_all, OwnedBatches, RecordsReader, Truncated};
pub use view::{BatchView, HeaderIter, HeaderView, RecordIter, RecordView};
pub use writer::BatchWriter;
