//! Whether a Produce or Fetch response names brokers, read at field level: the sizes, the small
//! fields and the tagged sections, never the records, which are only passed over.
//!
//! KIP-951 put the endpoints of the leaders a client should move to (`NodeEndpoints`) in a tagged
//! field at the very end of Produce responses from version 10 and Fetch responses from version 16,
//! after every partition's records. Almost no response carries it (only a leadership change
//! does), so the tap reads each such response's structure as it passes, lets the records go by
//! without looking at them, and takes the decoding and rewriting path only for a response whose
//! last tagged section holds that field.
//!
//! The reading is written once, against [`Fields`]: a frame in memory ([`Slice`]) or a frame
//! still arriving on a socket, whose records move in the kernel.

/// The first version whose responses can carry `NodeEndpoints`, by API key.
const PRODUCE_FROM: i16 = 10;
const FETCH_FROM: i16 = 16;
/// The last version whose layout this module knows; later ones are read in full.
const PRODUCE_TO: i16 = 13;
const FETCH_TO: i16 = 18;
/// The tag of `NodeEndpoints` in both responses' top-level tagged section.
const NODE_ENDPOINTS_TAG: u32 = 0;

/// Whether this module can read responses of API `key` at `version`.
pub fn readable(key: i16, version: i16) -> bool {
    match key {
        0 => (PRODUCE_FROM..=PRODUCE_TO).contains(&version),
        1 => (FETCH_FROM..=FETCH_TO).contains(&version),
        _ => false,
    }
}

/// Whether responses of API `key` at `version` have a `NodeEndpoints` field: `None` when the API
/// has no such field at all.
pub fn may_name_nodes(key: i16, version: i16) -> Option<bool> {
    match key {
        0 => Some(version >= PRODUCE_FROM),
        1 => Some(version >= FETCH_FROM),
        _ => None,
    }
}

/// Why a response could not be read to its end.
#[derive(Debug)]
// Only the kernel path (Linux) reads from a source that can fail, and says why a frame is
// malformed.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub enum Stop<E> {
    /// The bytes are not a response of this API and version.
    Malformed(&'static str),
    /// The source failed: its own reason.
    Source(E),
}

/// A response body, field after field. Every method consumes what it reads.
pub trait Fields {
    type Error;
    /// The next `N` bytes.
    async fn fixed<const N: usize>(&mut self) -> Result<[u8; N], Stop<Self::Error>>;
    /// The next `n` bytes, which are records.
    async fn records(&mut self, n: usize) -> Result<(), Stop<Self::Error>>;
    /// The next `n` bytes, which nothing needs to read.
    async fn skip(&mut self, n: usize) -> Result<(), Stop<Self::Error>>;
}

/// An unsigned varint of at most five bytes, as lengths and tags are written.
async fn uvarint<F: Fields>(f: &mut F) -> Result<u32, Stop<F::Error>> {
    let mut value = 0u32;
    for shift in [0, 7, 14, 21, 28] {
        let [b] = f.fixed::<1>().await?;
        value |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        if b & 0x80 == 0 {
            if shift == 28 && b > 0x0f {
                return Err(Stop::Malformed("a varint above 32 bits"));
            }
            return Ok(value);
        }
    }
    Err(Stop::Malformed("a varint longer than five bytes"))
}

/// A compact length: `None` for null (written as 0), else the length (written plus one).
async fn compact_len<F: Fields>(f: &mut F) -> Result<Option<usize>, Stop<F::Error>> {
    let n = uvarint(f).await?;
    Ok(n.checked_sub(1)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX)))
}

/// A tagged section: gives whether it held `wanted`.
async fn tagged<F: Fields>(f: &mut F, wanted: Option<u32>) -> Result<bool, Stop<F::Error>> {
    let mut found = false;
    for _ in 0..uvarint(f).await? {
        let tag = uvarint(f).await?;
        let size = uvarint(f).await?;
        found |= Some(tag) == wanted;
        f.skip(usize::try_from(size).unwrap_or(usize::MAX)).await?;
    }
    Ok(found)
}

/// A compact array's count (a null array counts none).
async fn count<F: Fields>(f: &mut F) -> Result<usize, Stop<F::Error>> {
    Ok(compact_len(f).await?.unwrap_or(0))
}

/// A compact nullable string, passed over.
async fn string<F: Fields>(f: &mut F) -> Result<(), Stop<F::Error>> {
    if let Some(n) = compact_len(f).await? {
        f.skip(n).await?;
    }
    Ok(())
}

/// A Fetch response body from version 12 on (after the header): whether it names nodes.
pub async fn fetch<F: Fields>(f: &mut F, version: i16) -> Result<bool, Stop<F::Error>> {
    // ThrottleTimeMs, ErrorCode, SessionId.
    f.fixed::<10>().await?;
    for _ in 0..count(f).await? {
        if version >= 13 {
            f.fixed::<16>().await?;
        } else {
            string(f).await?;
        }
        for _ in 0..count(f).await? {
            // PartitionIndex, ErrorCode, HighWatermark, LastStableOffset, LogStartOffset.
            f.fixed::<30>().await?;
            if let Some(aborted) = compact_len(f).await? {
                for _ in 0..aborted {
                    // ProducerId, FirstOffset.
                    f.fixed::<16>().await?;
                    tagged(f, None).await?;
                }
            }
            // PreferredReadReplica.
            f.fixed::<4>().await?;
            if let Some(n) = compact_len(f).await? {
                f.records(n).await?;
            }
            tagged(f, None).await?;
        }
        tagged(f, None).await?;
    }
    tagged(f, Some(NODE_ENDPOINTS_TAG)).await
}

/// A Produce response body from version 9 on (after the header): whether it names nodes.
pub async fn produce<F: Fields>(f: &mut F, version: i16) -> Result<bool, Stop<F::Error>> {
    for _ in 0..count(f).await? {
        if version >= 13 {
            f.fixed::<16>().await?;
        } else {
            string(f).await?;
        }
        for _ in 0..count(f).await? {
            // Index, ErrorCode, BaseOffset, LogAppendTimeMs, LogStartOffset.
            f.fixed::<30>().await?;
            for _ in 0..count(f).await? {
                // BatchIndex, BatchIndexErrorMessage.
                f.fixed::<4>().await?;
                string(f).await?;
                tagged(f, None).await?;
            }
            // ErrorMessage.
            string(f).await?;
            tagged(f, None).await?;
        }
        tagged(f, None).await?;
    }
    // ThrottleTimeMs.
    f.fixed::<4>().await?;
    tagged(f, Some(NODE_ENDPOINTS_TAG)).await
}

/// A response body of API `key` (Produce or Fetch) at `version`, which [`readable`] allows.
pub async fn names_nodes<F: Fields>(
    f: &mut F,
    key: i16,
    version: i16,
) -> Result<bool, Stop<F::Error>> {
    match key {
        0 => produce(f, version).await,
        _ => fetch(f, version).await,
    }
}

/// A body in memory; the ranges of its records are noted as they are passed.
pub struct Slice<'a> {
    bytes: &'a [u8],
    at: usize,
    pub records: Vec<std::ops::Range<usize>>,
}

impl<'a> Slice<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Slice {
            bytes,
            at: 0,
            records: Vec::new(),
        }
    }

    /// Where the reading is.
    #[cfg(test)]
    pub fn at(&self) -> usize {
        self.at
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Stop<std::convert::Infallible>> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(Stop::Malformed("a field runs past the end of the frame"))?;
        let taken = self.bytes.get(self.at..end).unwrap_or_default();
        self.at = end;
        Ok(taken)
    }
}

impl Fields for Slice<'_> {
    type Error = std::convert::Infallible;

    async fn fixed<const N: usize>(&mut self) -> Result<[u8; N], Stop<Self::Error>> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    async fn records(&mut self, n: usize) -> Result<(), Stop<Self::Error>> {
        let start = self.at;
        self.take(n)?;
        self.records.push(start..self.at);
        Ok(())
    }

    async fn skip(&mut self, n: usize) -> Result<(), Stop<Self::Error>> {
        self.take(n).map(|_| ())
    }
}

/// A response frame (without its size field) of API `key` (Produce or Fetch) at `version`, which
/// [`readable`] allows: its header (a correlation id and a tagged section, as every flexible
/// version has), then its body. Bytes after the body are left unread, as brokers' clients leave
/// them.
pub async fn response<F: Fields>(
    f: &mut F,
    key: i16,
    version: i16,
) -> Result<bool, Stop<F::Error>> {
    f.fixed::<4>().await?;
    tagged(f, None).await?;
    names_nodes(f, key, version).await
}

/// Whether the response frame `frame` (without its size field) of API `key` at `version` names
/// nodes; `None` when it cannot be read so (it is then decoded in full, which says why).
pub fn frame_names_nodes(frame: &[u8], key: i16, version: i16) -> Option<bool> {
    use futures_util::FutureExt;
    let mut slice = Slice::new(frame);
    // A slice never waits: the future is ready when first polled.
    response(&mut slice, key, version)
        .now_or_never()
        .and_then(Result::ok)
}

#[cfg(test)]
mod tests;
