//! Broker to client: every response frame forwarded as it came, but for those whose endpoints the
//! tap rewrites, and each paired with its request for the output.
//!
//! A large response moves on in the kernel after its header is read; a Produce or Fetch response
//! that may name brokers is held in the kernel until its end shows whether it does
//! ([`super::held`], Linux only); one that must be rewritten, or printed whole, is read into
//! memory.

#[cfg(target_os = "linux")]
use super::held::{hold, Held};
use super::link::{frames, End, Link, Next};
use super::output::{now_us, Bodies, Exchange, Part};
use super::pairs::{Pending, Queue};
use super::rewrite::{carries_endpoints, rewrite};
#[cfg(target_os = "linux")]
use super::scan;
use super::Tap;
use bytes::Bytes;
use std::sync::Arc;
use tokio::sync::watch;

/// The most of a large response read to find its header.
const HEAD_MAX: usize = 64 * 1024;

/// Broker to client. Once the client is gone (`client_gone`), responses are only read, until
/// none is awaited.
pub async fn responses(
    tap: &Arc<Tap>,
    name: &Arc<str>,
    mut link: Link,
    queue: &Queue,
    client_gone: watch::Receiver<bool>,
) -> End {
    let gone = || *client_gone.borrow();
    loop {
        if gone() && queue.is_empty() {
            return End::Closed("the client");
        }
        let next = match link.next(tap.max_frame, !gone()).await {
            Ok(next) => next,
            Err(end) => return link.ended(end).await,
        };
        let sent = match next {
            Next::Whole(chunk) => whole(tap, name, &mut link, chunk, queue, gone()).await,
            Next::Large(size) => large(tap, name, &mut link, size, queue).await,
        };
        match sent {
            Ok(()) => {}
            Err(End::Failed(_) | End::Cut(_)) if gone() => {}
            Err(end) => return link.ended(end).await,
        }
        tap.output.spliced(std::mem::take(&mut link.spliced));
    }
}

/// The correlation id of a response frame (without its size field).
fn correlation(frame: &[u8]) -> Result<i32, End> {
    match frame.get(..4) {
        Some(&[c0, c1, c2, c3]) => Ok(i32::from_be_bytes([c0, c1, c2, c3])),
        _ => Err(End::Failed(format!(
            "from the broker, a response frame of {} bytes, too short for a header",
            frame.len()
        ))),
    }
}

fn unpaired(tap: &Tap, name: &Arc<str>, correlation: i32) {
    tap.output.error(
        name,
        format!(
            "a response with correlation id {correlation}, which no request waits for; forwarded"
        ),
    );
}

/// Whole frames in memory: the unchanged ones written together, rewritten ones in their place.
async fn whole(
    tap: &Arc<Tap>,
    name: &Arc<str>,
    link: &mut Link,
    chunk: Bytes,
    queue: &Queue,
    gone: bool,
) -> Result<(), End> {
    let time_us = now_us();
    // What of `chunk` is still to be written, from `written` on.
    let mut written = 0;
    for (start, end, frame) in frames(&chunk) {
        let correlation = correlation(&frame)?;
        let Some(p) = queue.answered(correlation) else {
            unpaired(tap, name, correlation);
            continue;
        };
        if let Some(new) = in_memory(tap, name, frame, p, time_us) {
            if !gone {
                link.write(chunk.get(written..start).unwrap_or_default())
                    .await?;
                link.write(&new).await?;
            }
            written = end;
        }
    }
    if !gone {
        link.write(chunk.get(written..).unwrap_or_default()).await?;
    }
    Ok(())
}

/// A response frame in memory, answering `p`: its endpoints rewritten when it has any (the
/// frame to write instead, with its size field), and its line.
fn in_memory(
    tap: &Arc<Tap>,
    name: &Arc<str>,
    frame: Bytes,
    p: Pending,
    time_us: u64,
) -> Option<Bytes> {
    let mut rewritten = None;
    if carries_endpoints(p.key, p.version) {
        let mut to_tap = |node, host: &str, port| tap.brokers.listener(tap, node, host, port);
        match rewrite(&frame, p.key, p.version, &mut to_tap) {
            Ok(r) => rewritten = r,
            Err(e) => tap.output.error(
                name,
                format!(
                    "correlation id {}: {e}; forwarded as it came",
                    p.correlation
                ),
            ),
        }
    }
    // The size of what the client received.
    let size = rewritten
        .as_ref()
        .map_or(frame.len(), |new| new.len().saturating_sub(4));
    let bytes = match tap.output.bodies() {
        // The line shows what the client received.
        Bodies::Full => rewritten
            .as_ref()
            .map_or(frame.clone(), |new| new.slice(4..)),
        Bodies::None => response_header(&frame, p.key, p.version),
    };
    answered(tap, name, p, size, bytes, time_us, rewritten.is_some());
    rewritten
}

/// A response that went to the client: counted and handed to the output with its request.
fn answered(
    tap: &Tap,
    name: &Arc<str>,
    p: Pending,
    size: usize,
    bytes: Bytes,
    time_us: u64,
    rewritten: bool,
) {
    let latency = time_us.saturating_sub(p.request.time_us);
    tap.output.response_sent(size, Some(latency), rewritten);
    tap.output.exchange(Exchange {
        connection: Arc::clone(name),
        key: p.key,
        version: p.version,
        correlation: p.correlation,
        request: p.request,
        response: Some(Part {
            time_us,
            size,
            bytes,
        }),
        note: None,
    });
}

/// A frame too large to read whole: its header read, then the frame forwarded, held, or read.
async fn large(
    tap: &Arc<Tap>,
    name: &Arc<str>,
    link: &mut Link,
    size: usize,
    queue: &Queue,
) -> Result<(), End> {
    let total = size.saturating_add(4);
    link.fill(8).await?;
    let correlation = correlation(link.buf.get(4..).unwrap_or_default())?;
    let Some(p) = queue.answered(correlation) else {
        unpaired(tap, name, correlation);
        return link.forward(total).await;
    };
    // The header's tagged section is most often empty: a few bytes are read first.
    let at_most = total.min(HEAD_MAX);
    let mut window = 64;
    let header = loop {
        let end = link.buf.len().min(window).min(at_most);
        let first = Bytes::copy_from_slice(link.buf.get(4..end).unwrap_or_default());
        let header = response_header(&first, p.key, p.version);
        if header.len() > 4 || header_version(p.key, p.version) == 0 || end >= at_most {
            break header;
        }
        window = window.saturating_mul(2);
        link.fill(window.min(at_most)).await?;
    };
    let prints = tap.output.bodies() == Bodies::Full && tap.output.prints(p.key);
    if carries_endpoints(p.key, p.version) {
        #[cfg(target_os = "linux")]
        if !prints && scan::readable(p.key, p.version) {
            return match hold(link, size, p.key, p.version).await? {
                Held::Forwarded => {
                    answered(tap, name, p, size, header, now_us(), false);
                    Ok(())
                }
                Held::Unreadable(why) => {
                    tap.output.error(
                        name,
                        format!("correlation id {correlation}: the response cannot be read: {why}; forwarded as it came"),
                    );
                    answered(tap, name, p, size, header, now_us(), false);
                    Ok(())
                }
                Held::Whole(frame) => write_in_memory(tap, name, link, frame, p).await,
            };
        }
        link.fill(total).await?;
        let frame = link.take(total);
        return write_in_memory(tap, name, link, frame, p).await;
    }
    if prints {
        let frame = link.forward_copy(total).await?;
        answered(tap, name, p, size, frame.slice(4..), now_us(), false);
    } else {
        link.forward(total).await?;
        answered(tap, name, p, size, header, now_us(), false);
    }
    Ok(())
}

/// A whole frame (with its size field) in memory: rewritten if it must be, then written.
async fn write_in_memory(
    tap: &Arc<Tap>,
    name: &Arc<str>,
    link: &mut Link,
    frame: Bytes,
    p: Pending,
) -> Result<(), End> {
    let new = in_memory(tap, name, frame.slice(4..), p, now_us());
    link.write(new.as_ref().unwrap_or(&frame)).await
}

fn header_version(key: i16, version: i16) -> i16 {
    use kafka_wire::messages::api::ResponseBody;
    use kafka_wire::ApiSet;
    ResponseBody::find(key).map_or(0, |api| api.header_version(version))
}

/// A copy of a response frame's header: its correlation id, and its tagged fields from header
/// version 1 on (the first four bytes when it cannot be read).
fn response_header(frame: &Bytes, key: i16, version: i16) -> Bytes {
    use kafka_wire::Decode;
    let mut rest = frame.clone();
    let decoded =
        kafka_wire::messages::ResponseHeader::decode(&mut rest, header_version(key, version));
    let len = match decoded {
        Ok(_) => frame.len().saturating_sub(rest.len()),
        Err(_) => 4,
    };
    Bytes::copy_from_slice(frame.get(..len).unwrap_or(frame))
}
