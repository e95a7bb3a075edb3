//! Record batches: read as views or as owned batches, written record by record, and bounded.
//!
//! `kafka_wire::records` reads and writes the contents of a records field (Produce, Fetch, ...):
//! record batches of magic 2, and the legacy message sets of magic 0 and 1, which may follow each
//! other in one field.
//!
//! ## Reading: batch views
//!
//! `RecordsReader` walks the batches of a `Bytes` and yields a `BatchView` for each: its
//! `BatchHeader` (base offset, leader epoch, magic, codec, timestamp type, transactional, control
//! and delete-horizon flags, last offset delta, base and max timestamps, producer id and epoch,
//! base sequence), checked against the batch's CRC, and its records through `records()`, an
//! iterator of `RecordView`s. Nothing is allocated per record or per header: a record view holds
//! its absolute offset and timestamp and borrows its key, value and headers from the input, or, for
//! a compressed batch, from the one buffer its payload is decompressed into the first time
//! `records()` is called.
//!
//! ```rust
//! use kafka_wire::records::RecordsReader;
//! # use kafka_wire::records::{TxnMarker, Record, RecordBatchBuilder};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # // What a Fetch answer may hold: a transaction's records, its commit marker, and the start
//! # // of a batch the broker cut off at the response's size limit.
//! # let record = Record::new(Some("k".into()), Some("v".into())).with_header("trace", None);
//! # let data = RecordBatchBuilder::new().producer(4000, 2, 0).transactional(true).record(record);
//! # let commit = TxnMarker { commit: true, coordinator_epoch: 1 }.batch(1, 1_700_000_000_000, 0, 4000, 2);
//! # let mut fetched = data.encode()?.into_bytes().to_vec();
//! # fetched.extend_from_slice(commit.encode()?.as_bytes());
//! # fetched.extend_from_within(..20);
//! # let fetched_bytes = bytes::Bytes::from(fetched);
//! # let mut forwarded = Vec::new();
//! # let mut forward = |batch: &bytes::Bytes| forwarded.push(batch.clone());
//! # let (mut values, mut markers, mut headers) = (Vec::new(), 0, 0);
//!
//! let mut reader = RecordsReader::new(fetched_bytes);  // or `RecordsReader::from(&records)`
//! for batch in reader.by_ref() {
//!     let batch = batch?;                                     // framing, magic and CRC checked
//!     if let Some(control) = batch.control_record() {
//!         let control = control?;                             // a COMMIT or ABORT marker
//! #       assert_eq!(control.marker, Some(TxnMarker { commit: true, coordinator_epoch: 1 }));
//! #       markers += 1;
//!         continue;
//!     }
//!     for record in batch.records()? {                        // decompresses here, once
//!         let record = record?;
//!         let (offset, value) = (record.offset(), record.value());   // Option<&[u8]>
//!         let owned = record.value_bytes();                   // Option<Bytes>, no copy
//! #       values.push((offset, value.map(<[u8]>::to_vec), owned));
//!         for header in record.headers() {
//!             let header = header?;                           // key checked for UTF-8 here
//!             let _ = (header.key(), header.value());
//! #           headers += 1;
//!         }
//!     }
//!     forward(batch.as_bytes());                              // the batch exactly as it came
//! }
//! if let Some(tail) = reader.truncated_tail() { /* the last batch was cut by the broker */ }
//! # assert_eq!(values, [(0, Some(b"v".to_vec()), Some(bytes::Bytes::from("v")))]);
//! # assert_eq!((markers, headers, forwarded.len()), (1, 1, 1));
//! # assert_eq!(reader.truncated_tail().map(|tail| tail.available), Some(20));
//! # Ok(())
//! # }
//! ```
//!
//! - Legacy message sets come through the same views: a lone magic 0 or 1 message is a batch of one
//!   record; a compressed wrapper is a batch of its inner messages (decompressed when the wrapper
//!   is read, since its offsets come from them), whose relative offsets (magic 1) are made absolute
//!   from the wrapper's offset, the offset of the last inner message. Their header fields take
//!   Kafka's "none" values (-1 for producer id, epoch, sequence and leader epoch).
//! - Errors surface where they are met: framing, magic, CRC and codec bits from the reader;
//!   decompression from `records()`; a record or header that does not parse from the iterator,
//!   after which it ends; a record count that disagrees with the records present is an error
//!   (`TrailingBytes`, or `UnexpectedEof` at the record that is missing). They are `RecordsError`s
//!   with a matchable `ErrorKind` and the index of the batch, the index of the record and the byte
//!   offset: in the input, or in the decompressed payload when `in_decompressed()` says so. A fault
//!   of the encoding that batches share with messages (a truncated value, a varint too long or too
//!   wide, a length or count beyond the bytes left or below zero, a header key that is not UTF-8,
//!   bytes left over) has the kind a message decoder reports for it; the others are kinds only
//!   batches have (`CrcMismatch`, `BatchTooSmall`, `UnsupportedMagic`, the codec and memory limits,
//!   ...). Writing a batch fails with an `EncodeError`, as writing a message does.
//!
//! ## Reading: owned batches
//!
//! Where values are handier than views, `read_all(bytes, limits)`, `RecordsReader::into_owned()`
//! and `BatchView::to_record_batch()` give `RecordBatch { header, records: Vec<Record> }`, each
//! `Record { offset, timestamp, key, value, headers }` (keys, values and header values still share
//! the input's or the decompressed buffer).
//!
//! ```rust
//! use kafka_wire::records::{read_all, DecodeLimits};
//! # use kafka_wire::records::{Record, RecordBatchBuilder};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let records = [Record::new(None, Some("a".into())), Record::new(None, None)];
//! # let fetched_bytes = RecordBatchBuilder::new().records(records).encode()?.into_bytes();
//!
//! let batches = read_all(fetched_bytes, DecodeLimits::default())?;
//! let values: Vec<_> = batches.iter().flat_map(|b| &b.records).filter_map(|r| r.value.clone()).collect();
//! # assert_eq!(values, [bytes::Bytes::from("a")]);
//! # Ok(())
//! # }
//! ```
//!
//! What the owned forms build from decompressed payloads (the payloads themselves, and the records
//! and headers made from them) counts against the decompression limit over the whole call: a small
//! gzip batch that inflates to a mebibyte of 7-byte records would otherwise take fifteen times
//! that in `Record`s, and one record with half a million empty headers thirty times. Past the
//! limit the owned form stops with `MemoryLimit`; the views read such input in the memory of its
//! payload.
//!
//! ## Writing
//!
//! `RecordBatchBuilder` sets the batch fields (magic, base offset, codec, producer id, epoch and
//! base sequence, transactional and control flags, timestamp type); its `writer` gives a
//! `BatchWriter` that writes records one by one straight into a `BytesMut`, through a streaming
//! compressor when the batch is compressed. It numbers records from the base offset, takes the base
//! timestamp from the first record and the max timestamp from the largest, and fills in the count,
//! lengths and CRC at `finish`. A batch costs its output plus, when compressed, one block of input
//! (32 KiB, 64 KiB for LZ4) and the codec's state; nothing per record. A writer dropped unfinished
//! takes its partial batch back off the buffer.
//!
//! ```rust
//! use bytes::BytesMut;
//! use kafka_wire::records::{Compression, RecordBatchBuilder};
//! # use kafka_wire::records::{read_all, Record, RecordsReader};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # // Run where the `lz4` feature is on (`cargo test --workspace` turns it on).
//! # if !kafka_wire::records::is_enabled(Compression::Lz4) {
//! #     return Ok(());
//! # }
//! # let owned_record = Record::new(None, Some("owned".into())).with_timestamp(1_700_000_000_001);
//! # let read = RecordBatchBuilder::new().record(Record::new(None, Some("read".into()))).encode()?;
//! # let read_batch = RecordsReader::from(&read).next().expect("a batch")?;
//! # let record_view = read_batch.records()?.next().expect("a record")?;
//!
//! let mut out = BytesMut::new();
//! let mut writer = RecordBatchBuilder::new()
//!     .producer(4000, 2, 17)                                  // id, epoch, base sequence
//!     .transactional(true)
//!     .compression(Compression::Lz4)                          // needs the `lz4` feature
//!     .writer(&mut out)?;
//! writer.append(1_700_000_000_000, Some(b"k".as_slice()), Some(b"v".as_slice()), [("trace", None)])?;
//! writer.append_record(&owned_record)?;                       // a `Record`, by reference
//! writer.append_view(&record_view)?;                          // re-batching what was read
//! writer.finish()?;                                           // `out` holds the batch
//! # let batches = read_all(out.freeze(), Default::default())?;
//! # let header = &batches[0].header;
//! # assert_eq!((header.compression, header.producer_id, header.base_sequence), (Compression::Lz4, 4000, 17));
//! # let offsets: Vec<_> = batches[0].records.iter().map(|r| r.offset).collect();
//! # assert_eq!(offsets, [0, 1, 2]);
//! # assert_eq!(batches[0].records[2].value.as_deref(), Some(&b"read"[..]));
//! # Ok(())
//! # }
//! ```
//!
//! `RecordBatchBuilder::encode_records(&records)` writes a slice of `Record`s the same way;
//! `.record(r)` gathers owned records for `.encode()` (the same writer) or `.build()` (a
//! `RecordBatch` with the fields filled in). `RecordBatch::encode` writes a batch exactly as its
//! fields say. Control batches: `TxnMarker::batch` writes a transaction marker batch as Kafka's
//! broker does (transactional and control, one record, key `(0, type)`, value `(0, coordinator
//! epoch)`, base sequence -1); `control_record()` parses one (`ControlRecordType::Abort`, `Commit`,
//! or `Other(n)` for the KRaft control types, kept raw).
//!
//! ## Hostile input and memory
//!
//! For any input of `n` bytes read through any of these APIs with a decompression limit `L`
//! (`DecodeLimits::max_decompressed`, 64 MiB by default), the memory held at any time stays below
//! `L + 512 KiB + 256 n`, whatever the record and header counts or a codec's header say:
//!
//! - record and header counts are checked against the bytes left (a record takes at least 7 bytes,
//!   a header 2) before they are trusted; offsets and timestamps use checked arithmetic; varints
//!   longer than 5 bytes (10 for varlongs) or wider than their type are refused;
//! - decompression writes into one buffer that grows with the output actually produced and stops
//!   with `DecompressionLimit` at `L`; a claim above `L` (snappy's preamble, an LZ4 frame's content
//!   size, a zstd window or content size) is refused before anything is reserved, and below `L` a
//!   claim is trusted only as far as the compressed bytes could expand (22 bytes per snappy byte,
//!   255 per LZ4 byte). LZ4 frames are read here around lz4_flex's block decoder, so a frame's
//!   declared block size (up to 4 MiB) is never reserved; a zstd block declaring more literals or
//!   sequences than a block can hold is refused before the decoder reserves room for them;
//! - the owned forms count what they build, as above.
//!
//! `tests/records_memory.rs` measures this with a counting allocator at `L` = 1 MiB and at the
//! default, on gzip batches of many empty records and of one record with hundreds of thousands of
//! empty headers, and on snappy, xerial, LZ4 and zstd payloads claiming up to 64 MiB; the fuzzer's
//! records targets hold every input to the same bound, for the views and the owned form.
//!
//! BENCHMARKS.md, "Memory of hostile record batches", has the figures of its last run.
