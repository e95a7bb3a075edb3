//! Client to broker: every request frame forwarded as it came, and queued for its response (or,
//! a Produce request with `acks` 0, which has none, handed to the output at once).
//!
//! The line needs a request's header and, for Produce, its `acks`: a large frame is read that
//! far, and the rest moves on in the kernel, unless `--bodies full` prints it.

use super::link::{frames, End, Link, Next};
use super::output::{now_us, Bodies, Exchange, Part};
use super::pairs::{Pending, Queue};
use super::Tap;
use bytes::Bytes;
use kafka_wire::messages::api::RequestBody;
use kafka_wire::ViewIndex;
use std::sync::Arc;

const PRODUCE_KEY: i16 = 0;

/// The most of a large request read to find its header and `acks`.
const HEAD_MAX: usize = 64 * 1024;

/// What the line needs of a request, from its first bytes.
struct Head {
    key: i16,
    version: i16,
    correlation: i32,
    /// The length of its header, when it could be read.
    header_len: Option<usize>,
    /// `acks`, for a Produce request whose `acks` could be read.
    acks: Option<i16>,
}

/// Reads the head of a request frame (without its size field; the whole frame or its first
/// bytes). The one place the tap reads a request through kafka-wire's views, into the
/// connection's index.
fn head(frame: &[u8], index: &mut ViewIndex) -> Result<Head, String> {
    let Some(&[k0, k1, v0, v1, c0, c1, c2, c3]) = frame.get(..8) else {
        return Err(format!(
            "from the client, a request frame of {} bytes, too short for a header",
            frame.len()
        ));
    };
    let key = i16::from_be_bytes([k0, k1]);
    let version = i16::from_be_bytes([v0, v1]);
    let header = kafka_wire::frame::peek_request::<RequestBody>(frame, index).ok();
    let acks = header
        .as_ref()
        .filter(|_| key == PRODUCE_KEY)
        .and_then(|(_, body)| kafka_wire::peek::produce(body, version).ok())
        .map(|front| front.acks);
    Ok(Head {
        key,
        version,
        correlation: i32::from_be_bytes([c0, c1, c2, c3]),
        header_len: header.map(|(_, body)| frame.len().saturating_sub(body.len())),
        acks,
    })
}

/// Client to broker, until either side closes.
pub async fn requests(tap: &Tap, name: &Arc<str>, mut link: Link, queue: &Queue) -> End {
    let mut index = ViewIndex::new();
    loop {
        let next = match link.next(tap.max_frame, true).await {
            Ok(next) => next,
            Err(end) => return link.ended(end).await,
        };
        let sent = match next {
            Next::Whole(chunk) => whole(tap, name, &mut link, chunk, queue, &mut index).await,
            Next::Large(size) => large(tap, name, &mut link, size, queue, &mut index).await,
        };
        if let Err(end) = sent {
            return link.ended(end).await;
        }
        tap.output.spliced(std::mem::take(&mut link.spliced));
    }
}

/// Whole frames in memory: each queued, then all written at once.
async fn whole(
    tap: &Tap,
    name: &Arc<str>,
    link: &mut Link,
    chunk: Bytes,
    queue: &Queue,
    index: &mut ViewIndex,
) -> Result<(), End> {
    let time_us = now_us();
    for (_, _, frame) in frames(&chunk) {
        let h = head(&frame, index).map_err(End::Failed)?;
        let bytes = match tap.output.bodies() {
            Bodies::Full => frame.clone(),
            Bodies::None => header_copy(&frame, &h),
        };
        sent(tap, name, &h, frame.len(), bytes, time_us, queue);
    }
    link.write(&chunk).await
}

/// A frame too large to read whole: its head read, the rest forwarded.
async fn large(
    tap: &Tap,
    name: &Arc<str>,
    link: &mut Link,
    size: usize,
    queue: &Queue,
    index: &mut ViewIndex,
) -> Result<(), End> {
    let total = size.saturating_add(4);
    // At least the header's fixed part, then more while the header or `acks` is not in.
    let mut want = total.min(64);
    let h = loop {
        link.fill(want).await?;
        let h = head(
            link.buf
                .get(4..total.min(link.buf.len()))
                .unwrap_or_default(),
            index,
        )
        .map_err(End::Failed)?;
        let complete = h.header_len.is_some() && (h.key != PRODUCE_KEY || h.acks.is_some());
        if complete || want >= total.min(HEAD_MAX) {
            break h;
        }
        want = want.saturating_mul(2).min(total.min(HEAD_MAX));
    };
    let prints = tap.output.bodies() == Bodies::Full && tap.output.prints(h.key);
    let header = header_copy(link.buf.get(4..).unwrap_or_default(), &h);
    // Queued before the broker has the frame, so that its response finds it.
    let bytes = if prints { Bytes::new() } else { header };
    let answered = h.acks != Some(0);
    if answered {
        sent(tap, name, &h, size, bytes.clone(), now_us(), queue);
    }
    let bytes = if prints {
        let frame = link.forward_copy(total).await?;
        frame.slice(4..)
    } else {
        link.forward(total).await?;
        bytes
    };
    if answered {
        queue.complete(h.correlation, now_us(), prints.then_some(bytes));
    } else {
        sent(tap, name, &h, size, bytes, now_us(), queue);
    }
    Ok(())
}

/// A copy of a request's header, or of its first bytes when the header could not be read.
fn header_copy(frame: &[u8], h: &Head) -> Bytes {
    let len = h.header_len.unwrap_or(8);
    Bytes::copy_from_slice(frame.get(..len).unwrap_or(frame))
}

/// A request frame of `size` bytes gone to the broker: queued for its response, or with
/// `acks` 0 handed to the output.
fn sent(
    tap: &Tap,
    name: &Arc<str>,
    h: &Head,
    size: usize,
    bytes: Bytes,
    time_us: u64,
    queue: &Queue,
) {
    tap.output.request_sent(h.key, size);
    let request = Part {
        time_us,
        size,
        bytes,
    };
    if h.acks == Some(0) {
        tap.output.exchange(Exchange {
            connection: Arc::clone(name),
            key: h.key,
            version: h.version,
            correlation: h.correlation,
            request,
            response: None,
            note: Some("acks=0: the broker does not answer".to_string()),
        });
    } else {
        queue.push(Pending {
            key: h.key,
            version: h.version,
            correlation: h.correlation,
            request,
        });
    }
}
