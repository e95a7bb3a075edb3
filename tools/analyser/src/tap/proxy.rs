//! One client connection through the tap: request frames forwarded to the broker as they came,
//! response frames back to the client as they came (or with their endpoints rewritten), and each
//! pair handed to the output.

use super::output::{now_us, Bodies, Exchange, Part};
use super::rewrite::{carries_endpoints, rewrite};
use super::Tap;
use bytes::{Bytes, BytesMut};
use futures_util::future::{select, Either};
use kafka_wire::frame::peek_size;
use kafka_wire::messages::api::RequestBody;
use kafka_wire::DecodeError;
use std::collections::VecDeque;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::watch;

/// What a read asks the socket for when no frame in progress needs more.
const READ_SIZE: usize = 64 * 1024;

/// How long responses are still read after the client closed with requests waiting for them.
const GRACE: Duration = Duration::from_secs(2);

const PRODUCE_KEY: i16 = 0;

/// A request forwarded to the broker, waiting for its response.
struct Pending {
    key: i16,
    version: i16,
    correlation: i32,
    request: Part,
}

/// Requests in the order they were sent: a broker answers a connection's requests in order.
type Queue = Mutex<VecDeque<Pending>>;

/// Why a connection ended.
enum End {
    /// One side closed it: the other is closed too.
    Closed(&'static str),
    /// The tap stopped.
    Stopped,
    /// Something could not be read or written: reported, and both sides closed.
    Failed(String),
}

/// Serves `client` (which connected from `peer`) until either side closes, forwarding to
/// `upstream`.
pub async fn serve(tap: Arc<Tap>, client: TcpStream, peer: std::net::SocketAddr, upstream: String) {
    let name: Arc<str> = format!("{peer} -> {upstream}").into();
    let server = match TcpStream::connect(upstream.as_str()).await {
        Ok(server) => server,
        Err(e) => {
            tap.output.error(
                &name,
                format!("cannot connect to {upstream}: {e}; the client is closed"),
            );
            return;
        }
    };
    // Frames go on as soon as they are whole: no waiting to fill a segment.
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    tap.output.connection_opened();
    let (from_client, to_client) = client.into_split();
    let (from_server, to_server) = server.into_split();
    let queue = Queue::default();
    let (gone, client_gone) = watch::channel(false);
    let requests = async {
        let end = requests(&tap, &name, from_client, to_server, &queue).await;
        gone.send_replace(true);
        end
    };
    let responses = responses(&tap, &name, from_server, to_client, &queue, client_gone);
    let mut responses = pin!(responses);
    let waiting = || !queue.lock().unwrap_or_else(|e| e.into_inner()).is_empty();
    let stopping = pin!(super::stopping(&tap));
    // A client may close with requests on their way (a Fetch that waits for data), and the tap
    // may stop while some are: their responses are still read, for a while, so that the lines
    // show them.
    let end = match select(select(pin!(requests), responses.as_mut()), stopping).await {
        Either::Left((Either::Left((End::Closed(who), _)), _)) if waiting() => {
            match tokio::time::timeout(GRACE, responses.as_mut()).await {
                Ok(End::Closed(_)) | Err(_) => End::Closed(who),
                Ok(end) => end,
            }
        }
        Either::Left((Either::Left((end, _)) | Either::Right((end, _)), _)) => end,
        Either::Right(_) => {
            gone.send_replace(true);
            if waiting() {
                let _ = tokio::time::timeout(GRACE, responses.as_mut()).await;
            }
            End::Stopped
        }
    };
    let note = match end {
        End::Closed(who) => format!("no response: {who} closed the connection"),
        End::Stopped => "no response: the tap stopped".to_string(),
        End::Failed(what) => {
            tap.output
                .error(&name, format!("{what}; both sides are closed"));
            format!("no response: {what}")
        }
    };
    let left = std::mem::take(&mut *queue.lock().unwrap_or_else(|e| e.into_inner()));
    for p in left {
        tap.output.exchange(Exchange {
            connection: Arc::clone(&name),
            key: p.key,
            version: p.version,
            correlation: p.correlation,
            request: p.request,
            response: None,
            note: Some(note.clone()),
        });
    }
    tap.output.connection_closed();
}

/// The length of the whole frames at the front of `buf`, each with its size field; an error for
/// a size that is negative or above `max`, as soon as its size field is in.
fn whole_frames(buf: &[u8], max: usize) -> Result<usize, DecodeError> {
    let mut at = 0usize;
    while let Some(size) = peek_size(buf.get(at..).unwrap_or_default(), max)? {
        let end = at.saturating_add(4).saturating_add(size);
        if end > buf.len() {
            break;
        }
        at = end;
    }
    Ok(at)
}

/// Room for the next read: the rest of the frame at the front of `buf`, but no more than `buf`
/// already holds (and at least a read's worth), so that a size field alone never buys its
/// frame's memory: what the tap holds stays within twice what it was sent, and a large frame
/// still takes few reads.
fn reserve(buf: &mut BytesMut) {
    // The size field was checked when it came in.
    let rest = match peek_size(buf, usize::MAX) {
        Ok(Some(size)) => size.saturating_add(4).saturating_sub(buf.len()),
        _ => READ_SIZE,
    };
    buf.reserve(rest.min(buf.len().max(READ_SIZE)).max(1));
}

/// The frames of `chunk` (whole frames, each with its size field), without their size fields,
/// with where each starts and ends in `chunk`.
fn frames(chunk: &Bytes) -> impl Iterator<Item = (usize, usize, Bytes)> + '_ {
    let mut at = 0usize;
    std::iter::from_fn(move || {
        let size = peek_size(chunk.get(at..)?, usize::MAX).ok()??;
        let start = at;
        let end = at.saturating_add(4).saturating_add(size).min(chunk.len());
        at = end;
        Some((start, end, chunk.slice(start.saturating_add(4)..end)))
    })
}

/// The next whole frames from `from` (`who`, the client or the broker), at least one, each with
/// its size field; `Err` when the connection ended or a frame cannot be read.
async fn next_chunk(
    from: &mut (impl AsyncRead + Unpin),
    buf: &mut BytesMut,
    max: usize,
    who: &'static str,
) -> Result<Bytes, End> {
    loop {
        reserve(buf);
        match from.read_buf(buf).await {
            Ok(0) if buf.is_empty() => return Err(End::Closed(who)),
            Ok(0) => {
                return Err(End::Failed(format!(
                    "{who} closed the connection inside a frame ({} bytes of it)",
                    buf.len()
                )))
            }
            Ok(_) => {}
            Err(e) => return Err(End::Failed(format!("reading from {who}: {e}"))),
        }
        match whole_frames(buf, max) {
            Ok(0) => {}
            Ok(whole) => return Ok(buf.split_to(whole).freeze()),
            Err(e) => return Err(End::Failed(format!("from {who}, {e}"))),
        }
    }
}

/// Client to broker: every frame forwarded as it came, whole frames at a time.
async fn requests(
    tap: &Tap,
    name: &Arc<str>,
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    queue: &Queue,
) -> End {
    let mut buf = BytesMut::new();
    loop {
        let chunk = match next_chunk(&mut from, &mut buf, tap.max_frame, "the client").await {
            Ok(chunk) => chunk,
            Err(end) => return end,
        };
        let time_us = now_us();
        for (_, _, frame) in frames(&chunk) {
            if let Err(e) = request(tap, name, frame, time_us, queue) {
                return End::Failed(e);
            }
        }
        if let Err(e) = to.write_all(&chunk).await {
            return End::Failed(format!("writing to the broker: {e}"));
        }
    }
}

/// A request frame on its way: queued for its response, or (a Produce request with `acks` 0,
/// which has none) handed to the output at once.
fn request(
    tap: &Tap,
    name: &Arc<str>,
    frame: Bytes,
    time_us: u64,
    queue: &Queue,
) -> Result<(), String> {
    let Some(&[k0, k1, v0, v1, c0, c1, c2, c3]) = frame.get(..8) else {
        return Err(format!(
            "from the client, a request frame of {} bytes, too short for a header",
            frame.len()
        ));
    };
    let key = i16::from_be_bytes([k0, k1]);
    let version = i16::from_be_bytes([v0, v1]);
    let correlation = i32::from_be_bytes([c0, c1, c2, c3]);
    let size = frame.len();
    tap.output.request_sent(key, size);
    let header = kafka_wire::frame::peek_request::<RequestBody>(&frame[..]).ok();
    let no_response = key == PRODUCE_KEY
        && header
            .as_ref()
            .and_then(|(_, body)| kafka_wire::peek::produce(body, version).ok())
            .is_some_and(|front| front.acks == 0);
    let bytes = match tap.output.bodies() {
        Bodies::Full => frame.clone(),
        Bodies::None => {
            let header_len = header.map_or(8, |(_, body)| size.saturating_sub(body.len()));
            Bytes::copy_from_slice(frame.get(..header_len).unwrap_or(&frame))
        }
    };
    let request = Part {
        time_us,
        size,
        bytes,
    };
    if no_response {
        tap.output.exchange(Exchange {
            connection: Arc::clone(name),
            key,
            version,
            correlation,
            request,
            response: None,
            note: Some("acks=0: the broker does not answer".to_string()),
        });
    } else {
        let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
        q.push_back(Pending {
            key,
            version,
            correlation,
            request,
        });
    }
    Ok(())
}

/// The request a response with `correlation` answers: the oldest one waiting, unless the broker
/// answered out of order.
fn answered(queue: &Queue, correlation: i32) -> Option<Pending> {
    let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
    if q.front().is_some_and(|p| p.correlation == correlation) {
        return q.pop_front();
    }
    let at = q.iter().position(|p| p.correlation == correlation)?;
    q.remove(at)
}

/// Broker to client: every frame forwarded as it came, but for those whose endpoints the tap
/// rewrites. Once the client is gone (`client_gone`), responses are only read, until none is
/// awaited.
async fn responses(
    tap: &Arc<Tap>,
    name: &Arc<str>,
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    queue: &Queue,
    client_gone: watch::Receiver<bool>,
) -> End {
    let mut buf = BytesMut::new();
    let gone = || *client_gone.borrow();
    loop {
        if gone() && queue.lock().unwrap_or_else(|e| e.into_inner()).is_empty() {
            return End::Closed("the client");
        }
        let chunk = match next_chunk(&mut from, &mut buf, tap.max_frame, "the broker").await {
            Ok(chunk) => chunk,
            Err(end) => return end,
        };
        let time_us = now_us();
        // What of `chunk` is still to be written, from `written` on.
        let mut written = 0;
        for (start, end, frame) in frames(&chunk) {
            let Some(&[c0, c1, c2, c3]) = frame.get(..4) else {
                return End::Failed(format!(
                    "from the broker, a response frame of {} bytes, too short for a header",
                    frame.len()
                ));
            };
            let correlation = i32::from_be_bytes([c0, c1, c2, c3]);
            let Some(p) = answered(queue, correlation) else {
                tap.output.error(name, format!("a response with correlation id {correlation}, which no request waits for; forwarded"));
                continue;
            };
            let mut rewritten = None;
            if carries_endpoints(p.key, p.version) {
                let mut to_tap =
                    |node, host: &str, port| tap.brokers.listener(tap, node, host, port);
                match rewrite(&frame, p.key, p.version, &mut to_tap) {
                    Ok(r) => rewritten = r,
                    Err(e) => tap.output.error(
                        name,
                        format!("correlation id {correlation}: {e}; forwarded as it came"),
                    ),
                }
            }
            if let Some(new) = &rewritten {
                let before = chunk.slice(written..start);
                if let Err(e) = write_two(&mut to, &before, new).await {
                    if !gone() {
                        return End::Failed(format!("writing to the client: {e}"));
                    }
                }
                written = end;
            }
            let latency = time_us.saturating_sub(p.request.time_us);
            // The size of what the client received.
            let size = rewritten
                .as_ref()
                .map_or(frame.len(), |new| new.len().saturating_sub(4));
            tap.output
                .response_sent(size, Some(latency), rewritten.is_some());
            let bytes = match tap.output.bodies() {
                // The line shows what the client received.
                Bodies::Full => rewritten.map_or(frame, |new| new.slice(4..)),
                Bodies::None => response_header(&frame, p.key, p.version),
            };
            tap.output.exchange(Exchange {
                connection: Arc::clone(name),
                key: p.key,
                version: p.version,
                correlation,
                request: p.request,
                response: Some(Part {
                    time_us,
                    size,
                    bytes,
                }),
                note: None,
            });
        }
        if written < chunk.len() && !gone() {
            if let Err(e) = to.write_all(&chunk[written..]).await {
                if !gone() {
                    return End::Failed(format!("writing to the client: {e}"));
                }
            }
        }
    }
}

async fn write_two(
    to: &mut (impl AsyncWrite + Unpin),
    first: &[u8],
    second: &[u8],
) -> std::io::Result<()> {
    if !first.is_empty() {
        to.write_all(first).await?;
    }
    to.write_all(second).await
}

/// A copy of a response frame's header: its correlation id, and its tagged fields from header
/// version 1 on.
fn response_header(frame: &Bytes, key: i16, version: i16) -> Bytes {
    use kafka_wire::messages::api::ResponseBody;
    use kafka_wire::{ApiSet, Decode};
    let header_version = ResponseBody::find(key).map_or(0, |api| api.header_version(version));
    let mut rest = frame.clone();
    let len = match kafka_wire::messages::ResponseHeader::decode(&mut rest, header_version) {
        Ok(_) => frame.len().saturating_sub(rest.len()),
        Err(_) => 4,
    };
    Bytes::copy_from_slice(frame.get(..len).unwrap_or(frame))
}
