//! Cargo features: choosing APIs and codecs.
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `all-apis` | on | every API of the protocol; each API also has a feature of its own ([below](crate::guide::features#choosing-apis-cargo-features)) |
//! | `gzip`, `snappy`, `lz4`, `zstd`; `compression` for all four | off | the codecs of record batches ([below](crate::guide::features#codecs-and-features)) |
//! | `tokio` | off | `kafka_wire::tokio`: async framing over `tokio-util` ([above](crate::guide::async_framing)) |
//! | `serde` | off | `kafka_wire::json`: the JSON form of every message ([above](crate::guide::json)) |
//! | `views` | off | `kafka_wire::view`: a borrowed view of every message, Kafka's and your own, with frame views, peeking and the pass-through codec (`kafka_wire::guide::views`); off because the views of every message add to every build |
//!
//! ## Choosing APIs: cargo features
//!
//! Every API sits behind a feature named after it in kebab case (`produce`, `fetch`,
//! `api-versions`, `write-txn-markers`, ...); `data-schemas` covers the data schemas, and
//! `all-apis`, on by default, turns them all on. Headers, framing and records are always there;
//! `kafka_wire::negotiate` needs `api-versions`. A program that speaks a few APIs builds only
//! those:
//!
//! ```toml
//! kafka-wire = { version = "0.1", default-features = false, features = ["api-versions", "produce", "fetch"] }
//! ```
//!
//! With a feature off, its messages and their `RequestBody` / `ResponseBody` variants are absent:
//! the API is not in the sets, and a frame of it is `ErrorKind::UnknownApiKey`, as in any set that
//! lacks the API. The feature list in `kafka-wire/Cargo.toml` is written by the generator.
//!
//! ## Codecs and features
//!
//! No codec is on by default, so the default build stays light (the records module itself needs
//! only `crc-fast`). `compression` turns on all four; each has its own feature. All are pure Rust:
//! no C toolchain is needed for any feature.
//!
//! | feature | codec | crate | pure Rust | notes |
//! |---|---|---|---|---|
//! | (always) | CRC-32C, CRC-32 | `crc-fast` 1.10 | yes | carry-less multiplication (SSE 4.1 to AVX-512 VPCLMULQDQ, found at run time) |
//! | `gzip` | gzip | `flate2` 1.1 (backend `zlib-rs`) | yes | concatenated members are read; written in 32 KiB blocks |
//! | `snappy` | snappy | `snap` 1.1 | yes | writes the xerial framing of Kafka's Java client (32 KiB blocks); reads it and raw snappy |
//! | `lz4` | LZ4 frame | `lz4_flex` 0.14 (block codec, safe code), `twox-hash` 2.1 | yes | the frame format is ours (see above); 64 KiB independent blocks; magic 0 uses Kafka 0.8/0.9's broken header checksum (written so, not checked on read, as Kafka does) |
//! | `zstd` | Zstandard | `ruzstd` 0.9 | yes | magic 2 only; writes at ruzstd's fastest level (about zstd level 1), reads any level |
//! | `compression` | all of the above | | yes | |
//!
//! Compressed output is not byte-identical to Kafka's Java client (other compressor
//! implementations), but every reader decodes it; a codec whose feature is off is the typed error
//! `CodecNotEnabled`.
