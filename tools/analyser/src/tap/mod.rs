//! `kafka-wire tap`: a proxy between Kafka clients and a cluster that prints every request with
//! its response as it happens.
//!
//! The client bootstraps from the tap's listen address, which forwards to the cluster's
//! bootstrap. Responses that tell the client where brokers are come back with those brokers'
//! addresses replaced by listeners of the tap's own ([`rewrite`]), one per node and opened when
//! a response first names the node ([`brokers`]), so that every connection the client makes
//! passes through the tap. Frames are forwarded as they came, never written again, but for
//! those endpoints ([`proxy`]); the lines are written by a thread of their own from a bounded
//! queue ([`output`]).

mod brokers;
#[cfg(target_os = "linux")]
mod held;
mod link;
mod output;
mod pairs;
#[cfg(target_os = "linux")]
mod pipe;
mod proxy;
mod requests;
mod responses;
pub mod rewrite;
mod scan;

pub use output::Bodies;

use crate::{Failure, Result};
use futures_util::future::{select, Either};
use std::io::Write;
use std::net::SocketAddr;
use std::pin::pin;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::signal::unix::{signal, Signal, SignalKind};
use tokio::sync::watch;

/// What `kafka-wire tap` was asked to do.
pub struct Options {
    pub listen: SocketAddr,
    pub upstream: String,
    /// The host written into rewritten endpoints.
    pub advertise: String,
    /// Node `n`'s listener is at this port plus `n`.
    pub first_broker_port: u16,
    pub out: Option<String>,
    pub apis: Option<Vec<i16>>,
    pub bodies: Bodies,
    pub max_frame: usize,
    /// How often the summary is printed; `None` for only at the end.
    pub summary_every: Option<Duration>,
    pub queue_lines: usize,
    pub queue_bytes: usize,
    /// Every byte read and written by the tap (`--copy`), none moved in the kernel.
    pub copy: bool,
    /// The size asked for each pipe; `None` for the largest the system allows.
    pub pipe_size: Option<usize>,
}

/// What every connection shares.
pub struct Tap {
    output: output::Output,
    brokers: brokers::Brokers,
    max_frame: usize,
    /// Whether large frames move between the sockets in the kernel.
    kernel: bool,
    pipe_size: Option<usize>,
    /// Set when the tap stops: connections close and listeners stop accepting.
    stop: watch::Receiver<bool>,
    /// The name of the tap's own lines (a node's listener that cannot be opened).
    name: Arc<str>,
}

/// Accepts connections on `listener`, each forwarded to where `upstream` says when it comes.
async fn accept(tap: Arc<Tap>, listener: TcpListener, upstream: Arc<Mutex<String>>) {
    loop {
        let accepted = match select(pin!(listener.accept()), pin!(stopping(&tap))).await {
            Either::Left((accepted, _)) => accepted,
            Either::Right(_) => return,
        };
        match accepted {
            Ok((client, peer)) => {
                let to = upstream.lock().unwrap_or_else(|e| e.into_inner()).clone();
                tokio::spawn(proxy::serve(Arc::clone(&tap), client, peer, to));
            }
            Err(e) => {
                // Out of file descriptors, most often: wait for some to close.
                tap.output
                    .error(&tap.name, format!("accepting a connection: {e}"));
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Resolves once the tap stops.
async fn stopping(tap: &Tap) {
    let mut stop = tap.stop.clone();
    let _ = stop.wait_for(|stopped| *stopped).await;
}

/// Runs the tap until Ctrl-C or SIGTERM, then closes every connection, writes every line that
/// waits and prints the last summary.
pub fn run(options: Options) -> Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure(format!("starting the runtime: {e}")))?;
    let mut out: Box<dyn Write + Send> = match &options.out {
        Some(path) => {
            Box::new(std::fs::File::create(path).map_err(|e| Failure(format!("{path}: {e}")))?)
        }
        None => Box::new(std::io::stdout()),
    };
    let bounds = output::Bounds {
        lines: options.queue_lines,
        bytes: options.queue_bytes,
    };
    let (output, writer) = output::output(&bounds, options.bodies, options.apis.clone());
    let writing = std::thread::Builder::new()
        .name("tap-output".into())
        .spawn(move || writer.run(&mut *out))
        .map_err(|e| Failure(format!("starting the output thread: {e}")))?;
    let (stop_tx, stop) = watch::channel(false);
    let tap = Arc::new(Tap {
        output,
        brokers: brokers::Brokers::new(
            options.listen.ip(),
            &options.advertise,
            options.first_broker_port,
        ),
        max_frame: options.max_frame,
        kernel: !options.copy,
        pipe_size: options.pipe_size,
        stop,
        name: Arc::from(format!("tap {}", options.listen)),
    });
    let served = runtime.block_on(async {
        let listener = TcpListener::bind(options.listen)
            .await
            .map_err(|e| Failure(format!("cannot listen on {}: {e}", options.listen)))?;
        // Before the line that says the tap listens: from then on a signal stops it cleanly.
        let signals = signals()?;
        eprintln!(
            "kafka-wire tap: listening on {}, forwarding to {}",
            options.listen, options.upstream
        );
        let upstream = Arc::new(Mutex::new(options.upstream.clone()));
        tokio::spawn(accept(Arc::clone(&tap), listener, upstream));
        let summaries = options.summary_every.map(|every| {
            let tap = Arc::clone(&tap);
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(every);
                tick.tick().await;
                loop {
                    tick.tick().await;
                    eprintln!("{}", tap.output.summary());
                }
            })
        });
        stopped(signals).await;
        let _ = stop_tx.send(true);
        if let Some(s) = summaries {
            s.abort();
        }
        // Every connection and listener holds the tap: they have all ended when only this
        // function does.
        let ended = async {
            while Arc::strong_count(&tap) > 1 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(5), ended).await;
        Ok::<(), Failure>(())
    });
    tap.output.close();
    let written = writing.join();
    eprintln!("{}", tap.output.summary());
    served?;
    match written {
        Ok(Ok(())) => Ok(ExitCode::SUCCESS),
        Ok(Err(e)) => Err(Failure(format!("writing the output: {e}"))),
        Err(_) => Err(Failure("the output thread failed".into())),
    }
}

/// Ctrl-C and SIGTERM, caught from now on.
fn signals() -> Result<[Signal; 2]> {
    let caught = |kind| signal(kind).map_err(|e| Failure(format!("catching signals: {e}")));
    Ok([
        caught(SignalKind::interrupt())?,
        caught(SignalKind::terminate())?,
    ])
}

/// Waits for Ctrl-C or SIGTERM.
async fn stopped([mut interrupt, mut terminate]: [Signal; 2]) {
    select(pin!(interrupt.recv()), pin!(terminate.recv())).await;
}
