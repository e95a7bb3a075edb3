//! One client connection through the tap: request frames forwarded to the broker as they came
//! ([`requests`]), response frames back to the client as they came or with their endpoints
//! rewritten ([`responses`]), each pair handed to the output; the connection's end, for both
//! directions at once.

use super::link::{End, Link};
use super::output::Exchange;
use super::pairs::Queue;
use super::requests::requests;
use super::responses::responses;
use super::Tap;
use futures_util::future::{select, Either};
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::sync::watch;

/// How long responses are still read after the client closed with requests waiting for them.
const GRACE: Duration = Duration::from_secs(2);

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
    let (kernel, pipe) = (tap.kernel, tap.pipe_size);
    let up = Link::new(
        from_client,
        to_server,
        kernel,
        pipe,
        "the client",
        "the broker",
    );
    let down = Link::new(
        from_server,
        to_client,
        kernel,
        pipe,
        "the broker",
        "the client",
    );
    let queue = Queue::default();
    let (gone, client_gone) = watch::channel(false);
    let requests = async {
        let end = requests(&tap, &name, up, &queue).await;
        gone.send_replace(true);
        end
    };
    let responses = responses(&tap, &name, down, &queue, client_gone);
    let mut responses = pin!(responses);
    let waiting = || !queue.is_empty();
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
        End::Failed(what) | End::Cut(what) => {
            tap.output
                .error(&name, format!("{what}; both sides are closed"));
            format!("no response: {what}")
        }
    };
    for p in queue.take_all() {
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
