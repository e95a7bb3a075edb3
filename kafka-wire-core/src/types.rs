//! Value types the schema needs beyond Rust's own: zero-copy strings, UUIDs and records.

use bytes::Bytes;
use bytestring::ByteString;
use core::fmt;
use core::ops::Deref;

/// A UTF-8 string that shares the buffer it was decoded from.
///
/// Decoding checks the bytes once; the string then derefs to `str` at no cost (the bytes are
/// held as a `bytestring::ByteString`, whose constructors admit only UTF-8). Building one
/// from a `&'static str` or a `String` does not copy.
///
/// ```
/// use kafka_wire::KafkaString;
///
/// let topic = KafkaString::from_static("payments");
/// assert_eq!(topic.len(), 8);
/// assert!(topic.starts_with("pay"));
/// assert_eq!(topic, "payments");
/// assert!(KafkaString::from_utf8(bytes::Bytes::from_static(b"\xff")).is_err());
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct KafkaString(ByteString);

impl KafkaString {
    /// Wraps a static string without copying.
    pub const fn from_static(s: &'static str) -> Self {
        KafkaString(ByteString::from_static(s))
    }

    /// Wraps `bytes` if they are UTF-8, or gives them back.
    pub fn from_utf8(bytes: Bytes) -> Result<Self, Bytes> {
        if core::str::from_utf8(&bytes).is_err() {
            return Err(bytes);
        }
        // Checked just above, and checked again here (a string made this way is not on a hot
        // path; decoding goes through `checked` alone).
        Self::checked(bytes).ok_or_else(Bytes::new)
    }

    /// Wraps `bytes` if they are UTF-8: the one check a string gets.
    #[inline]
    pub(crate) fn checked(bytes: Bytes) -> Option<Self> {
        ByteString::try_from(bytes).ok().map(KafkaString)
    }

    /// The string.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The underlying bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }

    /// The length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for the empty string.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The underlying buffer.
    pub fn into_bytes(self) -> Bytes {
        self.0.into_bytes()
    }
}

/// Hashes as `str` does, as `Borrow<str>` requires: a `HashMap<KafkaString, _>` answers lookups
/// by `&str`.
impl core::hash::Hash for KafkaString {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Deref for KafkaString {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for KafkaString {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl core::borrow::Borrow<str> for KafkaString {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&'static str> for KafkaString {
    fn from(s: &'static str) -> Self {
        KafkaString::from_static(s)
    }
}

impl From<String> for KafkaString {
    fn from(s: String) -> Self {
        KafkaString(ByteString::from(s))
    }
}

impl From<KafkaString> for String {
    fn from(s: KafkaString) -> Self {
        String::from(s.as_str())
    }
}

impl PartialEq<str> for KafkaString {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for KafkaString {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Debug for KafkaString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for KafkaString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A 128-bit identifier (topic ids, directory ids, ...), 16 bytes on the wire.
///
/// `Display` uses Kafka's own text form, URL-safe base64 without padding; `Debug` shows the
/// familiar hyphenated hex.
///
/// ```
/// use kafka_wire::Uuid;
///
/// let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
/// assert_eq!(id.to_string(), "ASNFZ4mrze8BI0VniavN7w");
/// assert_eq!(format!("{id:?}"), "01234567-89ab-cdef-0123-456789abcdef");
/// assert_eq!(Uuid::NIL.as_u128(), 0);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid([u8; 16]);

impl Uuid {
    /// All zeros, Kafka's "no id".
    pub const NIL: Uuid = Uuid([0; 16]);

    /// From its 16 bytes, most significant first.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Uuid(bytes)
    }

    /// From a 128-bit number.
    pub const fn from_u128(value: u128) -> Self {
        Uuid(value.to_be_bytes())
    }

    /// Its 16 bytes, most significant first.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// As a 128-bit number.
    pub const fn as_u128(&self) -> u128 {
        u128::from_be_bytes(self.0)
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        const ALPHABET: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        // 128 bits are 21 full sextets, most significant first, and 2 bits left over, padded
        // with zeros to a 22nd.
        let value = self.as_u128();
        let full = (2..=122u32)
            .rev()
            .step_by(6)
            .map(|shift| value.checked_shr(shift).unwrap_or(0));
        let last = value.checked_shl(4).unwrap_or(0);
        for sextet in full.chain([last]) {
            // Six bits index the 64 letters.
            let letter = ALPHABET.get((sextet & 0x3f) as usize).copied();
            f.write_char(char::from(letter.unwrap_or(b'A')))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, byte) in self.0.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                f.write_str("-")?;
            }
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

/// A records field (Produce, Fetch, ...): the raw bytes of one or more record batches,
/// shared with the input buffer.
///
/// ```
/// use kafka_wire::Records;
///
/// let records = Records::new(bytes::Bytes::from_static(b"batch bytes"));
/// assert_eq!(records.len(), 11);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Records(Bytes);

impl Records {
    /// Wraps raw batch bytes.
    pub fn new(bytes: Bytes) -> Self {
        Records(bytes)
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &Bytes {
        &self.0
    }

    /// The raw bytes, by value.
    pub fn into_bytes(self) -> Bytes {
        self.0
    }

    /// Their length in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Bytes> for Records {
    fn from(bytes: Bytes) -> Self {
        Records(bytes)
    }
}
