//! Writing a batch record by record, straight into the caller's buffer.

use crate::batch::{attributes, BatchHeader, TimestampType, LOG_OVERHEAD};
use crate::checksum::{crc32, crc32c};
use crate::compression::Compressor;
use crate::legacy::{MIN_SIZE_V0, MIN_SIZE_V1};
use crate::owned::{Record, RecordBatch};
use crate::v2::{
    BASE_TIMESTAMP_AT, COUNT_AT, CRC_AT, CRC_START, HEADER_LEN, LAST_OFFSET_DELTA_AT,
    MAX_TIMESTAMP_AT,
};
use crate::view::RecordView;
use bytes::{BufMut, BytesMut};
use kafka_wire_core::varint::{put_varint, put_varlong, varint_len, varlong_len};
use kafka_wire_core::Compression;
use kafka_wire_core::EncodeError;
use kafka_wire_core::ErrorKind;
use kafka_wire_core::Records;

/// Writes one batch into a `BytesMut`, record by record.
///
/// Records are written as they are appended, through a streaming compressor when the batch is
/// compressed; the fields that depend on all of them (count, last offset delta, timestamps,
/// length, checksum) are filled in by [`finish`](Self::finish). Writing a batch costs its
/// output and, when compressed, one block of input and the codec's state: nothing per record.
/// Get one from [`RecordBatchBuilder::writer`](crate::builder::RecordBatchBuilder::writer).
///
/// Records are numbered from the base offset; their timestamps are kept, the base timestamp is
/// the first record's and the max timestamp the largest, as producers write them.
///
/// ```
/// use bytes::BytesMut;
/// use kafka_wire::records::{Compression, RecordBatchBuilder, RecordsReader};
///
/// let mut out = BytesMut::new();
/// let mut writer = RecordBatchBuilder::new().producer(7, 0, 0).writer(&mut out)?;
/// for i in 0..3u8 {
///     let value = [b'v', b'0' + i];
///     writer.append(1_700_000_000_000 + i64::from(i), None, Some(&value), [("trace", Some(&b"x"[..]))])?;
/// }
/// writer.finish()?;
///
/// let batch = RecordsReader::new(out.freeze()).next().unwrap()?;
/// assert_eq!((batch.header.last_offset_delta, batch.header.max_timestamp), (2, 1_700_000_000_002));
/// assert_eq!(batch.records()?.count(), 3);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct BatchWriter<'a> {
    out: &'a mut BytesMut,
    /// Where the batch starts in `out`.
    start: usize,
    header: BatchHeader,
    /// True when the header's fields are written as given and each record brings its own
    /// offset ([`RecordBatch::encode_into`](RecordBatch::encode_into)); false when the
    /// writer computes them, as a producer does.
    exact: bool,
    /// `None` while writing an uncompressed batch straight into `out`.
    compressor: Option<Compressor>,
    /// One record, or one inner message, on its way into the compressor.
    scratch: Vec<u8>,
    count: usize,
    first_timestamp: Option<i64>,
    max_timestamp: Option<i64>,
    last_offset: Option<i64>,
    /// A compressor's error, after which the payload is incomplete: every later call fails
    /// with it.
    broken: Option<EncodeError>,
    finished: bool,
}

impl<'a> BatchWriter<'a> {
    /// A writer that computes the batch's fields from its records.
    pub(crate) fn producer(
        out: &'a mut BytesMut,
        header: &BatchHeader,
    ) -> Result<Self, EncodeError> {
        Self::start(out, header, false)
    }

    /// A writer that writes the header's fields as they are and the records' own offsets.
    pub(crate) fn exact(out: &'a mut BytesMut, header: &BatchHeader) -> Result<Self, EncodeError> {
        Self::start(out, header, true)
    }

    fn start(
        out: &'a mut BytesMut,
        header: &BatchHeader,
        exact: bool,
    ) -> Result<Self, EncodeError> {
        let header = *header;
        let legacy = match header.magic {
            2 => false,
            0 | 1 => true,
            magic => return Err(ErrorKind::UnsupportedMagic { magic }.into()),
        };
        if legacy && header.compression == Compression::Zstd {
            return Err(ErrorKind::UnsupportedCompression {
                codec: Compression::Zstd.bits(),
            }
            .into());
        }
        let start = out.len();
        let compressed = header.compression != Compression::None;
        // The part before the payload: a magic 2 header, or a legacy wrapper's fields up to its
        // value's bytes. Both are patched by `finish`.
        if !legacy {
            out.reserve(HEADER_LEN);
            out.put_i64(header.base_offset);
            out.put_i32(0);
            out.put_i32(header.partition_leader_epoch);
            out.put_i8(2);
            out.put_u32(0);
            out.put_i16(header.attributes());
            out.put_i32(header.last_offset_delta);
            out.put_i64(header.base_timestamp);
            out.put_i64(header.max_timestamp);
            out.put_i64(header.producer_id);
            out.put_i16(header.producer_epoch);
            out.put_i32(header.base_sequence);
            out.put_i32(0);
        } else if compressed {
            put_message_head(out, &header, legacy_attributes(&header, true));
            // The value's length.
            out.put_i32(0);
        }
        let compressor = if compressed {
            Some(Compressor::new(header.compression, header.magic, out)?)
        } else {
            None
        };
        Ok(BatchWriter {
            out,
            start,
            header,
            exact,
            compressor,
            scratch: Vec::new(),
            count: 0,
            first_timestamp: None,
            max_timestamp: None,
            last_offset: None,
            broken: None,
            finished: false,
        })
    }

    /// The records appended so far.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True before the first record.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Appends a record: its timestamp, key, value and headers (`(key, value)` pairs, magic 2
    /// only). Its offset is the next one.
    pub fn append<'h, H>(
        &mut self,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: H,
    ) -> Result<(), EncodeError>
    where
        H: IntoIterator<Item = (&'h str, Option<&'h [u8]>)>,
        H::IntoIter: Clone,
    {
        let pairs = headers.into_iter().map(|(k, v)| (k.as_bytes(), v));
        self.put(None, timestamp, key, value, Headers::Pairs(pairs))
    }

    /// Appends an owned record: its timestamp, key, value and headers. Its offset is the next
    /// one (for [`RecordBatch::encode_into`](RecordBatch::encode_into), its own).
    pub fn append_record(&mut self, record: &Record) -> Result<(), EncodeError> {
        let headers = record
            .headers
            .iter()
            .map(|h| (h.key.as_bytes(), h.value.as_deref()));
        let offset = self.exact.then_some(record.offset);
        self.put(
            offset,
            record.timestamp,
            record.key.as_deref(),
            record.value.as_deref(),
            Headers::Pairs(headers),
        )
    }

    /// Appends a record read from another batch, its headers copied as they were written. Its
    /// offset is the next one.
    pub fn append_view(&mut self, record: &RecordView<'_>) -> Result<(), EncodeError> {
        let (count, raw) = record.raw_headers();
        let headers: Headers<NoPairs<'_>> = Headers::Raw(count, raw);
        self.put(
            None,
            record.timestamp(),
            record.key(),
            record.value(),
            headers,
        )
    }

    fn put<'h, I>(
        &mut self,
        offset: Option<i64>,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: Headers<'h, I>,
    ) -> Result<(), EncodeError>
    where
        I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)> + Clone,
    {
        if let Some(e) = &self.broken {
            return Err(e.clone());
        }
        let index = self.count;
        // The error names the record: `RecordBatch.records[3]`.
        let fail = |e: EncodeError| e.at_index(index).in_field("RecordBatch", "records");
        let offset = match offset {
            Some(offset) => offset,
            None => i64::try_from(index)
                .ok()
                .and_then(|i| self.header.base_offset.checked_add(i))
                .ok_or_else(|| fail(ErrorKind::OffsetOverflow.into()))?,
        };
        let timestamp = if self.header.magic == 0 && !self.exact {
            -1
        } else {
            timestamp
        };
        if self.header.magic == 2 {
            self.put_v2(offset, timestamp, key, value, headers)
        } else if headers.sized()?.0 != 0 {
            Err(ErrorKind::HeadersInLegacy.into())
        } else {
            self.put_legacy(offset, timestamp, key, value)
        }
        .map_err(fail)?;
        self.count = self.count.saturating_add(1);
        self.first_timestamp.get_or_insert(timestamp);
        self.max_timestamp = Some(self.max_timestamp.map_or(timestamp, |m| m.max(timestamp)));
        self.last_offset = Some(offset);
        Ok(())
    }

    fn put_v2<'h, I>(
        &mut self,
        offset: i64,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: Headers<'h, I>,
    ) -> Result<(), EncodeError>
    where
        I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)> + Clone,
    {
        let overflow = || EncodeError::new(ErrorKind::OffsetOverflow);
        let offset_delta = offset
            .checked_sub(self.header.base_offset)
            .and_then(|d| i32::try_from(d).ok())
            .ok_or_else(overflow)?;
        let base_timestamp = if self.exact {
            self.header.base_timestamp
        } else {
            *self.first_timestamp.get_or_insert(timestamp)
        };
        let delta = timestamp.checked_sub(base_timestamp);
        let timestamp_delta = match self.header.timestamp_type {
            TimestampType::CreateTime => {
                delta.ok_or_else(|| EncodeError::new(ErrorKind::TimestampOverflow))?
            }
            // Readers take every record's timestamp from the batch's max timestamp and ignore
            // the deltas, so a batch read with a max timestamp far from its base one must still
            // be writable: its delta is then written as 0.
            TimestampType::LogAppendTime => delta.unwrap_or(0),
        };
        let (header_count, headers_len) = headers.sized()?;
        let body = 1usize
            .saturating_add(varlong_len(timestamp_delta))
            .saturating_add(varint_len(offset_delta))
            .saturating_add(bytes_len(key)?)
            .saturating_add(bytes_len(value)?)
            .saturating_add(varint_len(to_i32(header_count)?))
            .saturating_add(headers_len);
        let record = Record2 {
            body: to_i32(body)?,
            header_count: to_i32(header_count)?,
            timestamp_delta,
            offset_delta,
            key,
            value,
            headers,
        };
        // One reservation for the whole record: the writes below then never grow the buffer.
        let whole = body.saturating_add(varint_len(record.body));
        match &mut self.compressor {
            None => {
                self.out.reserve(whole);
                record.write(self.out);
            }
            Some(compressor) => {
                self.scratch.clear();
                self.scratch.reserve(whole);
                record.write(&mut self.scratch);
                if let Err(e) = compressor.write(self.out, &self.scratch) {
                    self.broken = Some(e.clone());
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    fn put_legacy(
        &mut self,
        offset: i64,
        timestamp: i64,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
    ) -> Result<(), EncodeError> {
        let header = self.header;
        match &mut self.compressor {
            None => put_message(
                self.out,
                header.magic,
                legacy_attributes(&header, false),
                offset,
                timestamp,
                key,
                value,
            ),
            Some(compressor) => {
                // Magic 1 numbers inner messages from the wrapper's first; magic 0 keeps them
                // absolute.
                let inner_offset = if header.magic == 1 {
                    offset
                        .checked_sub(header.base_offset)
                        .ok_or_else(|| EncodeError::new(ErrorKind::OffsetOverflow))?
                } else {
                    offset
                };
                self.scratch.clear();
                put_message(
                    &mut self.scratch,
                    header.magic,
                    0,
                    inner_offset,
                    timestamp,
                    key,
                    value,
                )?;
                let written = compressor.write(self.out, &self.scratch);
                if let Err(e) = &written {
                    self.broken = Some(e.clone());
                }
                written
            }
        }
    }

    /// Ends the batch: the payload's last block is compressed and the fields that depend on
    /// every record are written. Returns the batch's length in bytes.
    pub fn finish(mut self) -> Result<usize, EncodeError> {
        if let Some(e) = self.broken.take() {
            return Err(e);
        }
        if let Some(compressor) = self.compressor.take() {
            compressor.finish(self.out)?;
        }
        let header = if self.exact {
            self.header
        } else {
            self.header
                .with_producer_fields(self.count, self.first_timestamp, self.max_timestamp)
        };
        if header.magic == 2 {
            self.finish_v2(&header)?;
        } else {
            self.finish_legacy(&header)?;
        }
        self.finished = true;
        Ok(self.out.len().saturating_sub(self.start))
    }

    fn finish_v2(&mut self, header: &BatchHeader) -> Result<(), EncodeError> {
        let len = self.out.len().saturating_sub(self.start);
        let size = to_i32(len.saturating_sub(LOG_OVERHEAD))?;
        let count = to_i32(self.count)?;
        let batch = self.out.get_mut(self.start..).unwrap_or_default();
        patch(batch, 8, &size.to_be_bytes());
        patch(
            batch,
            LAST_OFFSET_DELTA_AT,
            &header.last_offset_delta.to_be_bytes(),
        );
        patch(
            batch,
            BASE_TIMESTAMP_AT,
            &header.base_timestamp.to_be_bytes(),
        );
        patch(batch, MAX_TIMESTAMP_AT, &header.max_timestamp.to_be_bytes());
        patch(batch, COUNT_AT, &count.to_be_bytes());
        let crc = crc32c(batch.get(CRC_START..).unwrap_or_default());
        patch(batch, CRC_AT, &crc.to_be_bytes());
        Ok(())
    }

    fn finish_legacy(&mut self, header: &BatchHeader) -> Result<(), EncodeError> {
        let Some(last_offset) = self.last_offset else {
            return Err(ErrorKind::EmptyBatch.into());
        };
        if header.compression == Compression::None {
            return Ok(());
        }
        // The wrapper: the last inner message's offset, the size, the CRC over magic onwards,
        // the timestamp (magic 1), and the value's length.
        let value_at = legacy_value_at(header.magic);
        let len = self.out.len().saturating_sub(self.start);
        let size = to_i32(len.saturating_sub(LOG_OVERHEAD))?;
        let value_len = to_i32(len.saturating_sub(value_at))?;
        let message = self.out.get_mut(self.start..).unwrap_or_default();
        patch(message, 0, &last_offset.to_be_bytes());
        patch(message, 8, &size.to_be_bytes());
        if header.magic == 1 {
            patch(
                message,
                LEGACY_TIMESTAMP_AT,
                &header.max_timestamp.to_be_bytes(),
            );
        }
        patch(
            message,
            value_at.saturating_sub(4),
            &value_len.to_be_bytes(),
        );
        let crc = crc32(
            message
                .get(LEGACY_CRC_AT.saturating_add(4)..)
                .unwrap_or_default(),
        );
        patch(message, LEGACY_CRC_AT, &crc.to_be_bytes());
        Ok(())
    }
}

impl Drop for BatchWriter<'_> {
    /// A batch left unfinished (an error, or a writer dropped early) is taken off the buffer,
    /// which is left as it was.
    fn drop(&mut self) {
        if !self.finished {
            self.out.truncate(self.start);
        }
    }
}

impl core::fmt::Debug for BatchWriter<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BatchWriter")
            .field("header", &self.header)
            .field("records", &self.count)
            .field("written", &self.out.len().saturating_sub(self.start))
            .finish_non_exhaustive()
    }
}

/// Where a legacy message's CRC sits (right after the offset and size), and its timestamp
/// (magic 1).
const LEGACY_CRC_AT: usize = LOG_OVERHEAD;
const LEGACY_TIMESTAMP_AT: usize = 18;

/// Where a legacy wrapper's value begins: after its header and the key (null) and value lengths.
fn legacy_value_at(magic: i8) -> usize {
    LOG_OVERHEAD.saturating_add(if magic == 1 { MIN_SIZE_V1 } else { MIN_SIZE_V0 })
}

fn legacy_attributes(header: &BatchHeader, wrapper: bool) -> i8 {
    let time = if header.magic == 1 && header.timestamp_type == TimestampType::LogAppendTime {
        attributes::LOG_APPEND_TIME
    } else {
        0
    };
    let codec = if wrapper {
        i16::from(header.compression.bits())
    } else {
        0
    };
    // Both fit the low four bits.
    (time | codec) as i8
}

/// A legacy message's fields up to its key: offset and size (patched later for a wrapper), CRC
/// (likewise), magic, attributes, timestamp (magic 1), then a null key.
fn put_message_head(out: &mut BytesMut, header: &BatchHeader, attributes: i8) {
    out.put_i64(0);
    out.put_i32(0);
    out.put_u32(0);
    out.put_i8(header.magic);
    out.put_i8(attributes);
    if header.magic == 1 {
        out.put_i64(header.max_timestamp);
    }
    out.put_i32(-1);
}

/// Writes one whole legacy message. Every length is checked before anything is written.
fn put_message<B: BufMut + AsMut<[u8]>>(
    out: &mut B,
    magic: i8,
    attributes: i8,
    offset: i64,
    timestamp: i64,
    key: Option<&[u8]>,
    value: Option<&[u8]>,
) -> Result<(), EncodeError> {
    let fixed = if magic == 1 { MIN_SIZE_V1 } else { MIN_SIZE_V0 };
    let key_len = key.map(|k| to_i32(k.len())).transpose()?;
    let value_len = value.map(|v| to_i32(v.len())).transpose()?;
    let size = fixed
        .checked_add(key.map_or(0, <[u8]>::len))
        .and_then(|s| s.checked_add(value.map_or(0, <[u8]>::len)))
        .ok_or(EncodeError::new(ErrorKind::TooLong {
            length: usize::MAX,
            max: i32::MAX as usize,
        }))?;
    let size = to_i32(size)?;
    let at = out.as_mut().len();
    out.put_i64(offset);
    out.put_i32(size);
    out.put_u32(0);
    out.put_i8(magic);
    out.put_i8(attributes);
    if magic == 1 {
        out.put_i64(timestamp);
    }
    for (len, bytes) in [(key_len, key), (value_len, value)] {
        out.put_i32(len.unwrap_or(-1));
        out.put_slice(bytes.unwrap_or_default());
    }
    let message = out.as_mut().get_mut(at..).unwrap_or_default();
    let crc = crc32(
        message
            .get(LEGACY_CRC_AT.saturating_add(4)..)
            .unwrap_or_default(),
    );
    patch(message, LEGACY_CRC_AT, &crc.to_be_bytes());
    Ok(())
}

/// Overwrites `bytes` at `at` in `buf`; the places patched are inside what was written.
fn patch(buf: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(slot) = buf.get_mut(at..at.saturating_add(bytes.len())) {
        slot.copy_from_slice(bytes);
    }
}

/// The pairs of a header section that is copied rather than encoded.
type NoPairs<'h> = core::iter::Empty<(&'h [u8], Option<&'h [u8]>)>;

/// A record's headers: pairs to encode, or a header section copied as it was read.
enum Headers<'h, I> {
    Pairs(I),
    Raw(usize, &'h [u8]),
}

impl<'h, I> Headers<'h, I>
where
    I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)> + Clone,
{
    /// How many headers there are and the bytes they take after their count, in one pass.
    #[inline]
    fn sized(&self) -> Result<(usize, usize), EncodeError> {
        match self {
            Headers::Pairs(pairs) => {
                let (mut count, mut total) = (0usize, 0usize);
                for (key, value) in pairs.clone() {
                    count = count.saturating_add(1);
                    total = total
                        .saturating_add(bytes_len(Some(key))?)
                        .saturating_add(bytes_len(value)?);
                }
                Ok((count, total))
            }
            Headers::Raw(count, raw) => Ok((*count, raw.len())),
        }
    }
}

/// A magic 2 record, sized, ready to write.
struct Record2<'r, 'h, I> {
    body: i32,
    header_count: i32,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&'r [u8]>,
    value: Option<&'r [u8]>,
    headers: Headers<'h, I>,
}

impl<'h, I> Record2<'_, 'h, I>
where
    I: Iterator<Item = (&'h [u8], Option<&'h [u8]>)> + Clone,
{
    #[inline]
    fn write<B: BufMut>(self, out: &mut B) {
        put_varint(out, self.body);
        out.put_u8(0);
        put_varlong(out, self.timestamp_delta);
        put_varint(out, self.offset_delta);
        put_bytes(out, self.key);
        put_bytes(out, self.value);
        put_varint(out, self.header_count);
        match self.headers {
            Headers::Pairs(pairs) => {
                for (key, value) in pairs {
                    put_bytes(out, Some(key));
                    put_bytes(out, value);
                }
            }
            Headers::Raw(_, raw) => out.put_slice(raw),
        }
    }
}

/// The size of varint-prefixed bytes, refusing a length a varint cannot carry.
#[inline]
fn bytes_len(bytes: Option<&[u8]>) -> Result<usize, EncodeError> {
    match bytes {
        None => Ok(1),
        Some(b) if b.len() < 64 => Ok(b.len().saturating_add(1)),
        Some(b) => Ok(varint_len(to_i32(b.len())?).saturating_add(b.len())),
    }
}

/// Varint-prefixed bytes, -1 for null; lengths were checked by [`bytes_len`].
// Always inlined: six calls a record, enough for a call to show in writing a batch.
#[inline(always)]
fn put_bytes<B: BufMut>(out: &mut B, bytes: Option<&[u8]>) {
    match bytes {
        None => put_varint(out, -1),
        Some(b) => {
            put_varint(out, i32::try_from(b.len()).unwrap_or(i32::MAX));
            out.put_slice(b);
        }
    }
}

pub(crate) fn to_i32(size: usize) -> Result<i32, EncodeError> {
    i32::try_from(size).map_err(|_| {
        EncodeError::new(ErrorKind::TooLong {
            length: size,
            max: i32::MAX as usize,
        })
    })
}

impl RecordBatch {
    /// Writes the batch, exactly as its fields say (lengths and checksums computed), appending
    /// to `out`. Magic 0 and 1 write one message per record, or one compressed wrapper.
    pub fn encode_into(&self, out: &mut BytesMut) -> Result<(), EncodeError> {
        let mut writer = BatchWriter::exact(out, &self.header)?;
        for record in &self.records {
            writer.append_record(record)?;
        }
        writer.finish().map(drop)
    }

    /// The batch's bytes, ready for a Produce request's records field.
    pub fn encode(&self) -> Result<Records, EncodeError> {
        let mut out = BytesMut::new();
        self.encode_into(&mut out)?;
        Ok(Records::new(out.freeze()))
    }
}
