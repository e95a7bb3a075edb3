//! What kafka-wire bounds, and what it leaves to the application.
//!
//! - kafka-wire reads and writes bytes: it opens no connections, and has no retries, broker
//!   discovery or consumer groups. [`examples/async-client`](examples/async-client/README.md) shows
//!   a client built on it.
//! - The catalogue speaks the versions of Kafka 3.9 and 4.4, without those Kafka marks unstable; a
//!   version beyond them is `UnsupportedVersion`.
//! - A frame above the maximum (100 MiB unless told otherwise) is refused; a compressed record
//!   batch may decompress to at most `DecodeLimits::max_decompressed` (64 MiB by default).
//! - Compressed batches kafka-wire writes are not byte-identical to the Java client's, though every
//!   reader decodes them; zstd is for magic 2 only.
//! - The derive takes structs with named fields and no generics, of the field types listed
//!   [above](crate::guide::own_messages#the-attribute-vocabulary) (no `u64`, maps, references or
//!   `Vec<Option<T>>`).
//! - In the JSON form, `int64` values beyond 2^53 are exact, but JavaScript readers lose their low
//!   bits.
