//! WriteTxnMarkers request and response, version 1 only, written by hand: the yardstick for
//! what a derived codec could cost at best.
//!
//! Straight-line code for these two messages and nothing else, over `bytes`: no traits, no
//! version checks, no field paths in errors, a cursor with a handful of readers (one generic,
//! for arrays of structs: `Reader::elements`). Decoding builds plain structs with the
//! zero-copy choices kafka-wire makes (names are `Bytes` slices of the input, checked for UTF-8
//! once; unknown tagged fields are kept as `Bytes` slices, nothing read is lost), and it checks
//! what any codec facing the network must:
//! - every fixed-size read, length and count against the bytes that remain, so that a forged
//!   count allocates no more than the input could hold (a count is refused when its elements,
//!   at their smallest encoding, would not fit; the vector is then reserved exactly);
//! - varints as Kafka's reader has them (at most 5 bytes, no bits beyond 32);
//! - nulls where none are allowed, names longer than 32,767 bytes, and UTF-8.
//!
//! It does not check what Kafka's reader lets through either (varints longer than needed,
//! tagged fields out of order), and it reports a bare error kind without path or offset.
//! Encoding computes the exact size, reserves it once, and writes each run of fixed-size
//! fields with one call; it refuses a name or count too long for its prefix.

use bytes::{Buf, BufMut, Bytes, BytesMut};

/// Eight bytes, as a decoder's error usually is (a pointer): with one byte, `Result<Vec<_>,
/// Error>` keeps the error in a byte of the vector's pointer, and LLVM then moves every
/// decoded vector through the stack in pieces that stall store forwarding (measured: a fifth
/// of the time of decoding the large response).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Error {
    /// The input ends inside a value.
    Eof,
    /// A length or count larger than what remains could hold.
    TooLarge,
    /// A null where the field may not be null.
    Null,
    /// A name that is not UTF-8.
    Utf8,
    /// A varint of more than 5 bytes or with bits beyond 32.
    Varint,
    /// A name longer than 32,767 bytes, or an array longer than a compact count can say.
    TooLong,
}

/// A tagged field neither message knows, exactly as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Tagged {
    pub tag: u32,
    pub data: Bytes,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub markers: Vec<Marker>,
    pub tags: Vec<Tagged>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Marker {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub transaction_result: bool,
    pub topics: Vec<MarkerTopic>,
    pub coordinator_epoch: i32,
    pub tags: Vec<Tagged>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct MarkerTopic {
    /// UTF-8, checked when read.
    pub name: Bytes,
    pub partition_indexes: Vec<i32>,
    pub tags: Vec<Tagged>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub markers: Vec<MarkerResult>,
    pub tags: Vec<Tagged>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct MarkerResult {
    pub producer_id: i64,
    pub topics: Vec<TopicResult>,
    pub tags: Vec<Tagged>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct TopicResult {
    /// UTF-8, checked when read.
    pub name: Bytes,
    pub partitions: Vec<PartitionResult>,
    pub tags: Vec<Tagged>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct PartitionResult {
    pub partition_index: i32,
    pub error_code: i16,
    pub tags: Vec<Tagged>,
}

// The fewest bytes each element can take, for checking counts: fixed fields, one byte for each
// compact length or count, one for the tagged-field count.
const MARKER_MIN: usize = 8 + 2 + 1 + 1 + 4 + 1;
const MARKER_TOPIC_MIN: usize = 1 + 1 + 1;
const MARKER_RESULT_MIN: usize = 8 + 1 + 1;
const TOPIC_RESULT_MIN: usize = 1 + 1 + 1;
const PARTITION_RESULT_MIN: usize = 4 + 2 + 1;

impl Request {
    /// Reads a request from the front of `buf`, leaving what follows it.
    pub fn decode(buf: &mut Bytes) -> Result<Request, Error> {
        let mut r = Reader::new(&*buf);
        let count = r.count(MARKER_MIN)?;
        let markers = r.elements(count, |r| {
            let [p0, p1, p2, p3, p4, p5, p6, p7, e0, e1, result] = r.array()?;
            let topic_count = r.count(MARKER_TOPIC_MIN)?;
            let topics = r.elements(topic_count, |r| {
                Ok(MarkerTopic {
                    name: r.string()?,
                    partition_indexes: r.i32s()?,
                    tags: r.tags()?,
                })
            })?;
            Ok(Marker {
                producer_id: i64::from_be_bytes([p0, p1, p2, p3, p4, p5, p6, p7]),
                producer_epoch: i16::from_be_bytes([e0, e1]),
                // Any byte but 0 is true, as Kafka reads it.
                transaction_result: result != 0,
                topics,
                coordinator_epoch: i32::from_be_bytes(r.array()?),
                tags: r.tags()?,
            })
        })?;
        let tags = r.tags()?;
        let used = r.used();
        buf.advance(used);
        Ok(Request { markers, tags })
    }

    /// The exact size [`encode`](Self::encode) writes. Sizes of values held in memory cannot
    /// overflow a `usize`.
    pub fn encoded_len(&self) -> usize {
        let mut len = count_len(self.markers.len()) + tags_len(&self.tags);
        for m in &self.markers {
            len += 8 + 2 + 1 + 4 + count_len(m.topics.len()) + tags_len(&m.tags);
            for t in &m.topics {
                len += count_len(t.name.len()) + t.name.len();
                len += count_len(t.partition_indexes.len()) + 4 * t.partition_indexes.len();
                len += tags_len(&t.tags);
            }
        }
        len
    }

    pub fn encode(&self) -> Result<Bytes, Error> {
        let mut out = BytesMut::with_capacity(self.encoded_len());
        put_count(&mut out, self.markers.len())?;
        for m in &self.markers {
            let mut head = [0; 11];
            head[..8].copy_from_slice(&m.producer_id.to_be_bytes());
            head[8..10].copy_from_slice(&m.producer_epoch.to_be_bytes());
            head[10] = u8::from(m.transaction_result);
            out.put_slice(&head);
            put_count(&mut out, m.topics.len())?;
            for t in &m.topics {
                put_name(&mut out, &t.name)?;
                put_count(&mut out, t.partition_indexes.len())?;
                for &p in &t.partition_indexes {
                    out.put_i32(p);
                }
                put_tags(&mut out, &t.tags)?;
            }
            out.put_i32(m.coordinator_epoch);
            put_tags(&mut out, &m.tags)?;
        }
        put_tags(&mut out, &self.tags)?;
        Ok(out.freeze())
    }
}

impl Response {
    /// Reads a response from the front of `buf`, leaving what follows it.
    pub fn decode(buf: &mut Bytes) -> Result<Response, Error> {
        let mut r = Reader::new(&*buf);
        let count = r.count(MARKER_RESULT_MIN)?;
        let markers = r.elements(count, |r| {
            let producer_id = i64::from_be_bytes(r.array()?);
            let topic_count = r.count(TOPIC_RESULT_MIN)?;
            let topics = r.elements(topic_count, |r| {
                let name = r.string()?;
                let partition_count = r.count(PARTITION_RESULT_MIN)?;
                let partitions = r.elements(partition_count, |r| {
                    let [i0, i1, i2, i3, e0, e1] = r.array()?;
                    Ok(PartitionResult {
                        partition_index: i32::from_be_bytes([i0, i1, i2, i3]),
                        error_code: i16::from_be_bytes([e0, e1]),
                        tags: r.tags()?,
                    })
                })?;
                Ok(TopicResult {
                    name,
                    partitions,
                    tags: r.tags()?,
                })
            })?;
            Ok(MarkerResult {
                producer_id,
                topics,
                tags: r.tags()?,
            })
        })?;
        let tags = r.tags()?;
        let used = r.used();
        buf.advance(used);
        Ok(Response { markers, tags })
    }

    /// The exact size [`encode`](Self::encode) writes.
    pub fn encoded_len(&self) -> usize {
        let mut len = count_len(self.markers.len()) + tags_len(&self.tags);
        for m in &self.markers {
            len += 8 + count_len(m.topics.len()) + tags_len(&m.tags);
            for t in &m.topics {
                len += count_len(t.name.len()) + t.name.len();
                len += count_len(t.partitions.len()) + tags_len(&t.tags);
                for p in &t.partitions {
                    len += 4 + 2 + tags_len(&p.tags);
                }
            }
        }
        len
    }

    pub fn encode(&self) -> Result<Bytes, Error> {
        let mut out = BytesMut::with_capacity(self.encoded_len());
        put_count(&mut out, self.markers.len())?;
        for m in &self.markers {
            out.put_i64(m.producer_id);
            put_count(&mut out, m.topics.len())?;
            for t in &m.topics {
                put_name(&mut out, &t.name)?;
                put_count(&mut out, t.partitions.len())?;
                for p in &t.partitions {
                    let [i0, i1, i2, i3] = p.partition_index.to_be_bytes();
                    let [e0, e1] = p.error_code.to_be_bytes();
                    out.put_slice(&[i0, i1, i2, i3, e0, e1]);
                    put_tags(&mut out, &p.tags)?;
                }
                put_tags(&mut out, &t.tags)?;
            }
            put_tags(&mut out, &m.tags)?;
        }
        put_tags(&mut out, &self.tags)?;
        Ok(out.freeze())
    }
}

/// A cursor over the input: fixed-size reads come from the slice, names and tagged fields are
/// cut from the `Bytes` it belongs to.
struct Reader<'a> {
    input: &'a Bytes,
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(input: &'a Bytes) -> Self {
        Reader { input, rest: input }
    }

    /// The bytes read so far.
    fn used(&self) -> usize {
        self.input.len() - self.rest.len()
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let (bytes, rest) = self.rest.split_first_chunk::<N>().ok_or(Error::Eof)?;
        self.rest = rest;
        Ok(*bytes)
    }

    #[inline]
    fn uvarint(&mut self) -> Result<u32, Error> {
        match self.rest.split_first() {
            Some((&byte, rest)) if byte < 0x80 => {
                self.rest = rest;
                Ok(u32::from(byte))
            }
            _ => self.uvarint_long(),
        }
    }

    #[inline(never)]
    fn uvarint_long(&mut self) -> Result<u32, Error> {
        let mut value = 0u32;
        for i in 0..5 {
            let &byte = self.rest.get(i).ok_or(Error::Eof)?;
            if i == 4 && byte > 0x0f {
                return Err(Error::Varint);
            }
            value |= u32::from(byte & 0x7f) << (7 * i);
            if byte < 0x80 {
                self.rest = &self.rest[i + 1..];
                return Ok(value);
            }
        }
        Err(Error::Varint)
    }

    /// A compact length that may not be null.
    #[inline]
    fn len(&mut self) -> Result<usize, Error> {
        match self.uvarint()? {
            0 => Err(Error::Null),
            n => Ok(n as usize - 1),
        }
    }

    /// A compact count of elements taking at least `min` bytes each.
    #[inline]
    fn count(&mut self, min: usize) -> Result<usize, Error> {
        let count = self.len()?;
        if count > self.rest.len() / min {
            return Err(Error::TooLarge);
        }
        Ok(count)
    }

    /// `count` elements read by `read`, in a vector allocated once.
    ///
    /// Built by collecting an iterator of exact length, which writes each element straight
    /// into the vector. A `push` loop builds each element on the stack and copies it in with
    /// wider loads than the stores that built it, a store-forwarding stall per element, which
    /// doubles the time of decoding the large response or worse. After
    /// an error the remaining elements are defaults, which read and allocate nothing, and the
    /// error is returned.
    fn elements<T: Default>(
        &mut self,
        count: usize,
        mut read: impl FnMut(&mut Self) -> Result<T, Error>,
    ) -> Result<Vec<T>, Error> {
        let mut failed = None;
        let items = (0..count)
            .map(|_| {
                if failed.is_none() {
                    match read(self) {
                        Ok(item) => return item,
                        Err(e) => failed = Some(e),
                    }
                }
                T::default()
            })
            .collect();
        match failed {
            None => Ok(items),
            Some(e) => Err(e),
        }
    }

    /// `len` bytes as a slice of the input.
    #[inline]
    fn bytes(&mut self, len: usize) -> Result<Bytes, Error> {
        if len > self.rest.len() {
            return Err(Error::TooLarge);
        }
        let start = self.input.len() - self.rest.len();
        self.rest = &self.rest[len..];
        Ok(self.input.slice(start..start + len))
    }

    #[inline]
    fn string(&mut self) -> Result<Bytes, Error> {
        let len = self.len()?;
        if len > i16::MAX as usize {
            return Err(Error::TooLong);
        }
        let name = self.bytes(len)?;
        match std::str::from_utf8(&name) {
            Ok(_) => Ok(name),
            Err(_) => Err(Error::Utf8),
        }
    }

    #[inline]
    fn i32s(&mut self) -> Result<Vec<i32>, Error> {
        let count = self.count(4)?;
        let (body, rest) = self.rest.split_at(4 * count);
        self.rest = rest;
        Ok(body
            .as_chunks::<4>()
            .0
            .iter()
            .map(|&b| i32::from_be_bytes(b))
            .collect())
    }

    /// The tagged-field section. Almost always empty: only its count is read inline.
    #[inline]
    fn tags(&mut self) -> Result<Vec<Tagged>, Error> {
        match self.uvarint()? {
            0 => Ok(Vec::new()),
            count => self.some_tags(count),
        }
    }

    #[inline(never)]
    fn some_tags(&mut self, count: u32) -> Result<Vec<Tagged>, Error> {
        // Each field takes at least two bytes, so the loop ends with the input; the vector
        // grows only with fields actually read.
        let mut tags = Vec::new();
        for _ in 0..count {
            let tag = self.uvarint()?;
            let len = self.uvarint()? as usize;
            tags.push(Tagged {
                tag,
                data: self.bytes(len)?,
            });
        }
        Ok(tags)
    }
}

#[inline]
fn uvarint_len(value: usize) -> usize {
    match value {
        0..0x80 => 1,
        0x80..0x4000 => 2,
        0x4000..0x20_0000 => 3,
        0x20_0000..0x1000_0000 => 4,
        _ => 5,
    }
}

/// The size of a compact count or length.
#[inline]
fn count_len(n: usize) -> usize {
    uvarint_len(n + 1)
}

#[inline]
fn tags_len(tags: &[Tagged]) -> usize {
    if tags.is_empty() {
        return 1;
    }
    let mut len = uvarint_len(tags.len());
    for t in tags {
        len += uvarint_len(t.tag as usize) + uvarint_len(t.data.len()) + t.data.len();
    }
    len
}

#[inline]
fn put_uvarint(out: &mut BytesMut, mut value: u32) {
    while value >= 0x80 {
        out.put_u8(value as u8 | 0x80);
        value >>= 7;
    }
    out.put_u8(value as u8);
}

/// A compact count or length; Kafka reads them into an `int`, so `i32::MAX - 1` is the most.
#[inline]
fn put_count(out: &mut BytesMut, n: usize) -> Result<(), Error> {
    if n < 0x7f {
        out.put_u8(n as u8 + 1);
        return Ok(());
    }
    if n > i32::MAX as usize - 1 {
        return Err(Error::TooLong);
    }
    put_uvarint(out, n as u32 + 1);
    Ok(())
}

#[inline]
fn put_name(out: &mut BytesMut, name: &[u8]) -> Result<(), Error> {
    if name.len() > i16::MAX as usize {
        return Err(Error::TooLong);
    }
    put_count(out, name.len())?;
    out.put_slice(name);
    Ok(())
}

#[inline]
fn put_tags(out: &mut BytesMut, tags: &[Tagged]) -> Result<(), Error> {
    if tags.is_empty() {
        out.put_u8(0);
        return Ok(());
    }
    put_some_tags(out, tags)
}

#[inline(never)]
fn put_some_tags(out: &mut BytesMut, tags: &[Tagged]) -> Result<(), Error> {
    let too_long = |n: usize| u32::try_from(n).map_err(|_| Error::TooLong);
    put_uvarint(out, too_long(tags.len())?);
    for t in tags {
        put_uvarint(out, t.tag);
        put_uvarint(out, too_long(t.data.len())?);
        out.put_slice(&t.data);
    }
    Ok(())
}
