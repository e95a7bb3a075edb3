//! The tap's listeners for brokers: one per node id, opened the first time a response names
//! that node, and forwarding to where the response said the node is.

use super::Tap;
use kafka_wire::KafkaString;
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};

/// A node the tap has a listener for, or failed to open one for.
enum Node {
    Open {
        port: u16,
        /// Where the node is, as the last response that named it said; new connections go there.
        upstream: Arc<Mutex<String>>,
    },
    /// Its port could not be opened: its endpoints stay as the broker wrote them.
    Failed,
}

pub struct Brokers {
    ip: IpAddr,
    advertise: KafkaString,
    first_port: u16,
    nodes: Mutex<HashMap<i32, Node>>,
}

impl Brokers {
    /// Listeners on `ip`, node `n` at port `first_port + n`, written into responses as
    /// `advertise`.
    pub fn new(ip: IpAddr, advertise: &str, first_port: u16) -> Self {
        Brokers {
            ip,
            advertise: KafkaString::from(advertise.to_string()),
            first_port,
            nodes: Mutex::new(HashMap::new()),
        }
    }

    /// The tap's address for the node that a response places at `host:port`, opening its
    /// listener the first time; `None` when the endpoint is to stay as it is (no node, or no
    /// port for it).
    pub fn listener(
        &self,
        tap: &Arc<Tap>,
        node_id: i32,
        host: &str,
        port: i32,
    ) -> Option<(KafkaString, i32)> {
        // Error answers carry node -1 and no address.
        if node_id < 0 || port <= 0 || host.is_empty() {
            return None;
        }
        let upstream = format!("{}:{port}", bracketed(host));
        let mut nodes = self.nodes.lock().unwrap_or_else(|e| e.into_inner());
        match nodes.get(&node_id) {
            Some(Node::Open { port, upstream: at }) => {
                let mut at = at.lock().unwrap_or_else(|e| e.into_inner());
                if *at != upstream {
                    *at = upstream;
                }
                return Some((self.advertise.clone(), i32::from(*port)));
            }
            Some(Node::Failed) => return None,
            None => {}
        }
        let opened = self.open(tap, node_id, upstream);
        let (node, result) = match opened {
            Ok((port, upstream)) => (
                Node::Open { port, upstream },
                Some((self.advertise.clone(), i32::from(port))),
            ),
            Err(what) => {
                tap.output.error(&tap.name, what);
                (Node::Failed, None)
            }
        };
        nodes.insert(node_id, node);
        result
    }

    fn open(
        &self,
        tap: &Arc<Tap>,
        node_id: i32,
        upstream: String,
    ) -> Result<(u16, Arc<Mutex<String>>), String> {
        let port = i32::from(self.first_port)
            .checked_add(node_id)
            .and_then(|p| u16::try_from(p).ok())
            .ok_or_else(|| {
                format!(
                    "node {node_id} ({upstream}): no port {} + {node_id}; its endpoints are left as the broker wrote them",
                    self.first_port
                )
            })?;
        let at = SocketAddr::new(self.ip, port);
        let listener = std::net::TcpListener::bind(at)
            .and_then(|l| {
                l.set_nonblocking(true)?;
                tokio::net::TcpListener::from_std(l)
            })
            .map_err(|e| {
                format!("node {node_id} ({upstream}): cannot listen on {at}: {e}; its endpoints are left as the broker wrote them")
            })?;
        eprintln!("kafka-wire tap: node {node_id} at {upstream}: listening on {at}");
        let upstream = Arc::new(Mutex::new(upstream));
        tokio::spawn(super::accept(
            Arc::clone(tap),
            listener,
            Arc::clone(&upstream),
        ));
        Ok((port, upstream))
    }
}

/// A host for `host:port`: IPv6 addresses in brackets.
fn bracketed(host: &str) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host.to_string()
    }
}
