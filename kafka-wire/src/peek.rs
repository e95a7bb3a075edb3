//! Peeking: the fields at the front of a request body, read without checking or reading what
//! follows them.
//!
//! A proxy that routes Produce requests by their `acks` or their transactional id needs neither
//! the topics nor the records: [`produce`] reads the three fields that come first and leaves the
//! rest of the body as it is, however large. To read a request's header without its body, see
//! [`frame::peek_request`](crate::frame::peek_request).

#[cfg(feature = "produce")]
pub use self::produce::{produce, ProducePeek};

#[cfg(feature = "produce")]
mod produce {
    use crate::messages::ProduceRequest;
    use crate::view::{Cursor, Source};
    use crate::{Decode, DecodeError, ErrorKind, Message};
    use bytes::Bytes;

    /// The fields of a Produce request that come before its topics.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct ProducePeek<'a> {
        /// The transactional id: `None` for a request outside a transaction, and before
        /// version 3, which has no such field.
        pub transactional_id: Option<&'a str>,
        /// The acknowledgements the producer waits for: 0, 1, or -1 for all in-sync replicas.
        pub acks: i16,
        /// How long the broker may wait for them, in milliseconds.
        pub timeout_ms: i32,
    }

    /// Reads `transactional_id`, `acks` and `timeout_ms` from the front of a Produce request's
    /// `body` at `version`. These fields are checked as decoding checks them, and an error is
    /// the one [`Decode::decode`] gives for them; nothing after them is read.
    ///
    /// ```
    /// use kafka_wire::messages::ProduceRequest;
    /// use kafka_wire::peek;
    /// use kafka_wire::{Encode, KafkaString};
    ///
    /// let request = ProduceRequest::default()
    ///     .with_transactional_id(Some(KafkaString::from_static("payments")))
    ///     .with_acks(-1)
    ///     .with_timeout_ms(30_000);
    /// let body = request.encode_to_bytes(11)?;
    /// let front = peek::produce(&body, 11)?;
    /// assert_eq!(front.transactional_id, Some("payments"));
    /// assert_eq!(front.acks, -1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn produce(body: &[u8], version: i16) -> Result<ProducePeek<'_>, DecodeError> {
        read(body, version).ok_or_else(|| refused(body, version))
    }

    fn read(body: &[u8], version: i16) -> Option<ProducePeek<'_>> {
        let cx = ProduceRequest::context(version)?;
        let mut c = Cursor::new(Source::new(body));
        let transactional_id = if version >= 3 { c.string(cx)? } else { None };
        let acks = i16::from_be_bytes(*c.take(2)?.first_chunk()?);
        let timeout_ms = i32::from_be_bytes(*c.take(4)?.first_chunk()?);
        Some(ProducePeek {
            transactional_id,
            acks,
            timeout_ms,
        })
    }

    /// The error of fields that [`read`] refused: decoding stops at the first field it
    /// refuses, which is one of these.
    #[cold]
    fn refused(body: &[u8], version: i16) -> DecodeError {
        match ProduceRequest::decode(&mut Bytes::copy_from_slice(body), version) {
            Err(e) => e,
            // Unreachable while both read the same rules; an error all the same.
            Ok(_) => DecodeError::new(
                ErrorKind::UnexpectedEof {
                    needed: 1,
                    available: 0,
                },
                0,
            ),
        }
    }
}
