//! Kafka in a pcap or pcapng capture: TCP streams reassembled, frames cut off each direction,
//! and each response read at the API and version of the request with its correlation id.

use crate::exchange;
use crate::progress::Progress;
use crate::tcp::Reassembler;
use crate::{emit, Failure, Result};
use bytes::{Bytes, BytesMut};
use etherparse::{EtherType, NetSlice, SlicedPacket, TransportSlice};
use kafka_wire::frame::{split_frame, DEFAULT_MAX_FRAME_SIZE};
use pcap_parser::pcapng::Block;
use pcap_parser::{Linktype, PcapBlockOwned, PcapError};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::{IpAddr, SocketAddr};
use std::process::ExitCode;

/// One TCP segment of a captured packet.
struct Segment<'a> {
    src: SocketAddr,
    dst: SocketAddr,
    seq: u32,
    syn: bool,
    ack: bool,
    payload: &'a [u8],
}

/// The TCP segment in a packet of link type `link`, if there is one.
fn segment(link: Linktype, data: &[u8]) -> Option<Segment<'_>> {
    let sliced = match link {
        Linktype::ETHERNET => SlicedPacket::from_ethernet(data),
        Linktype::LINUX_SLL => SlicedPacket::from_linux_sll(data),
        // Linux cooked capture v2: the protocol, then 18 bytes of interface and address.
        Linktype::LINUX_SLL2 => {
            let ether_type = u16::from_be_bytes([*data.first()?, *data.get(1)?]);
            SlicedPacket::from_ether_type(EtherType(ether_type), data.get(20..)?)
        }
        // BSD loopback: a 4-byte address family, then the IP packet.
        Linktype::NULL | Linktype::LOOP => SlicedPacket::from_ip(data.get(4..)?),
        Linktype::RAW | Linktype::IPV4 | Linktype::IPV6 => SlicedPacket::from_ip(data),
        _ => return None,
    }
    .ok()?;
    let (src, dst): (IpAddr, IpAddr) = match sliced.net? {
        NetSlice::Ipv4(ip) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        NetSlice::Ipv6(ip) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        NetSlice::Arp(_) => return None,
    };
    let TransportSlice::Tcp(tcp) = sliced.transport? else {
        return None;
    };
    Some(Segment {
        src: SocketAddr::new(src, tcp.source_port()),
        dst: SocketAddr::new(dst, tcp.destination_port()),
        seq: tcp.sequence_number(),
        syn: tcp.syn(),
        ack: tcp.ack(),
        payload: tcp.payload(),
    })
}

/// One direction of a connection.
#[derive(Default)]
struct Flow {
    tcp: Reassembler,
    stream: BytesMut,
    /// A frame size could not be read: the rest of this direction is skipped.
    broken: bool,
}

/// A request waiting for its response.
struct Pending {
    key: i16,
    version: i16,
    /// The request's part of the line (`exchange::request_part`).
    request: Value,
}

struct Connection {
    client: SocketAddr,
    server: SocketAddr,
    to_server: Flow,
    to_client: Flow,
    pending: BTreeMap<i32, Pending>,
}

impl Connection {
    fn name(&self) -> String {
        format!("{} -> {}", self.client, self.server)
    }
}

/// What the capture held, for the closing summary.
#[derive(Default)]
struct Counts {
    packets: u64,
    requests: u64,
    paired: u64,
    errors: u64,
}

struct Analyser<'w, W: Write> {
    ports: &'w [u16],
    connections: HashMap<(SocketAddr, SocketAddr), Connection>,
    counts: Counts,
    out: &'w mut W,
}

impl<W: Write> Analyser<'_, W> {
    fn error(&mut self, conn: &str, time: u64, what: String) -> Result<()> {
        self.counts.errors += 1;
        emit(self.out, &exchange::error_line(conn, time, &what))
    }

    fn packet(&mut self, link: Linktype, time: u64, data: &[u8]) -> Result<()> {
        self.counts.packets += 1;
        let Some(seg) = segment(link, data) else {
            return Ok(());
        };
        let key = if seg.src <= seg.dst {
            (seg.src, seg.dst)
        } else {
            (seg.dst, seg.src)
        };
        if !self.connections.contains_key(&key) {
            let client_is_src = if !self.ports.is_empty() {
                match (
                    self.ports.contains(&seg.dst.port()),
                    self.ports.contains(&seg.src.port()),
                ) {
                    (true, _) => true,
                    (false, true) => false,
                    (false, false) => return Ok(()),
                }
            } else if seg.syn {
                !seg.ack
            } else if !seg.payload.is_empty() {
                // Caught mid-connection: whoever speaks first is taken for the client.
                true
            } else {
                return Ok(());
            };
            let (client, server) = if client_is_src {
                (seg.src, seg.dst)
            } else {
                (seg.dst, seg.src)
            };
            let conn = Connection {
                client,
                server,
                to_server: Flow::default(),
                to_client: Flow::default(),
                pending: BTreeMap::new(),
            };
            self.connections.insert(key, conn);
        }
        let Some(conn) = self.connections.get_mut(&key) else {
            return Ok(());
        };
        let to_server = seg.src == conn.client;
        let flow = if to_server {
            &mut conn.to_server
        } else {
            &mut conn.to_client
        };
        if seg.syn {
            flow.tcp.syn(seg.seq);
        }
        let mut data = Vec::new();
        flow.tcp.segment(seg.seq, seg.payload, &mut data);
        if data.is_empty() || flow.broken {
            return Ok(());
        }
        flow.stream.extend_from_slice(&data);
        let mut frames = Vec::new();
        let mut failure = None;
        loop {
            match split_frame(&mut flow.stream, DEFAULT_MAX_FRAME_SIZE) {
                Ok(Some(frame)) => frames.push(frame),
                Ok(None) => break,
                Err(e) => {
                    flow.broken = true;
                    failure = Some(e);
                    break;
                }
            }
        }
        let name = conn.name();
        for frame in frames {
            if to_server {
                self.request(key, time, frame);
            } else {
                self.response(key, time, frame)?;
            }
        }
        if let Some(e) = failure {
            let side = if to_server { "requests" } else { "responses" };
            self.error(
                &name,
                time,
                format!("{side}: not a Kafka frame ({e}); the rest of this direction is skipped"),
            )?;
        }
        Ok(())
    }

    fn request(&mut self, key: (SocketAddr, SocketAddr), time: u64, frame: Bytes) {
        self.counts.requests += 1;
        let Some(conn) = self.connections.get_mut(&key) else {
            return;
        };
        let (api_key, version, correlation) = match frame.get(..8) {
            Some(h) => (
                i16::from_be_bytes([h[0], h[1]]),
                i16::from_be_bytes([h[2], h[3]]),
                i32::from_be_bytes([h[4], h[5], h[6], h[7]]),
            ),
            None => (-1, -1, i32::MIN),
        };
        let request = exchange::request_part(frame, time);
        conn.pending.insert(
            correlation,
            Pending {
                key: api_key,
                version,
                request,
            },
        );
    }

    fn response(&mut self, key: (SocketAddr, SocketAddr), time: u64, frame: Bytes) -> Result<()> {
        let Some(conn) = self.connections.get_mut(&key) else {
            return Ok(());
        };
        let name = conn.name();
        let Some(h) = frame.get(..4) else {
            return self.error(
                &name,
                time,
                format!("a response frame of {} bytes", frame.len()),
            );
        };
        let correlation = i32::from_be_bytes([h[0], h[1], h[2], h[3]]);
        let Some(pending) = conn.pending.remove(&correlation) else {
            return self.error(
                &name,
                time,
                format!("a response with correlation id {correlation}, which no request has"),
            );
        };
        let response = exchange::response_part(frame, pending.key, pending.version, time);
        self.pair(&name, correlation, pending, Some(response))
    }

    /// One line: a request and its response (`None` when none came).
    fn pair(
        &mut self,
        conn: &str,
        correlation: i32,
        p: Pending,
        response: Option<Value>,
    ) -> Result<()> {
        if exchange::failed(&p.request) || response.as_ref().is_some_and(exchange::failed) {
            self.counts.errors += 1;
        }
        if response.is_some() {
            self.counts.paired += 1;
        }
        let line = exchange::line(conn, p.key, p.version, correlation, p.request, response);
        emit(self.out, &line)
    }

    /// The end of the capture: holes, incomplete frames and requests without a response.
    fn finish(&mut self) -> Result<()> {
        let mut connections: Vec<Connection> = self.connections.drain().map(|(_, c)| c).collect();
        connections.sort_by_key(|c| (c.client, c.server));
        for mut conn in connections {
            let name = conn.name();
            for (side, flow) in [
                ("requests", &conn.to_server),
                ("responses", &conn.to_client),
            ] {
                if let Some((at, len)) = flow.tcp.gap() {
                    self.error(&name, 0, format!("{side}: {len} bytes missing at stream byte {at}; what follows is not read"))?;
                }
                if !flow.broken && !flow.stream.is_empty() {
                    self.error(
                        &name,
                        0,
                        format!(
                            "{side}: the capture ends inside a frame ({} bytes of it)",
                            flow.stream.len()
                        ),
                    )?;
                }
            }
            for (correlation, pending) in std::mem::take(&mut conn.pending) {
                self.pair(&name, correlation, pending, None)?;
            }
        }
        Ok(())
    }
}

/// Microseconds since the epoch of a pcapng timestamp in units of 10^-`resolution` s (or
/// 2^-n s when the high bit is set).
fn ng_time(high: u32, low: u32, resolution: u8) -> u64 {
    let ticks = (u64::from(high) << 32) | u64::from(low);
    if resolution & 0x80 != 0 {
        let shift = u32::from(resolution & 0x7f);
        return ((u128::from(ticks) * 1_000_000) >> shift) as u64;
    }
    match u32::from(resolution).checked_sub(6) {
        Some(0) => ticks,
        Some(finer) => ticks / 10u64.saturating_pow(finer),
        None => ticks.saturating_mul(10u64.pow(6 - u32::from(resolution))),
    }
}

pub fn run(path: &str, ports: &[u16], out: &mut impl Write) -> Result<ExitCode> {
    let file = std::fs::File::open(path).map_err(|e| Failure(format!("{path}: {e}")))?;
    let total = file.metadata().map_or(0, |m| m.len() as usize);
    let mut progress = Progress::new(path, total);
    let mut reader = pcap_parser::create_reader(1 << 20, file)
        .map_err(|e| Failure(format!("{path}: not a pcap or pcapng capture ({e:?})")))?;
    let mut analyser = Analyser {
        ports,
        connections: HashMap::new(),
        counts: Counts::default(),
        out,
    };
    let mut legacy_link = Linktype::ETHERNET;
    // Per interface of the current section: link type and timestamp resolution.
    let mut interfaces: Vec<(Linktype, u8)> = Vec::new();
    loop {
        match reader.next() {
            Ok((used, block)) => {
                match block {
                    PcapBlockOwned::LegacyHeader(h) => legacy_link = h.network,
                    PcapBlockOwned::Legacy(b) => {
                        let time = u64::from(b.ts_sec) * 1_000_000 + u64::from(b.ts_usec);
                        analyser.packet(legacy_link, time, b.data)?;
                    }
                    PcapBlockOwned::NG(Block::SectionHeader(_)) => interfaces.clear(),
                    PcapBlockOwned::NG(Block::InterfaceDescription(i)) => {
                        interfaces.push((i.linktype, i.if_tsresol));
                    }
                    PcapBlockOwned::NG(Block::EnhancedPacket(p)) => {
                        let (link, resolution) =
                            interfaces.get(p.if_id as usize).copied().ok_or_else(|| {
                                Failure(format!(
                                    "{path}: a packet of interface {}, which is not described",
                                    p.if_id
                                ))
                            })?;
                        let data = p.data.get(..p.caplen as usize).unwrap_or(p.data);
                        analyser.packet(link, ng_time(p.ts_high, p.ts_low, resolution), data)?;
                    }
                    PcapBlockOwned::NG(Block::SimplePacket(p)) => {
                        let link = interfaces.first().map_or(Linktype::ETHERNET, |i| i.0);
                        analyser.packet(link, 0, p.data)?;
                    }
                    PcapBlockOwned::NG(_) => {}
                }
                reader.consume(used);
                progress.update(reader.consumed());
            }
            Err(PcapError::Eof) => break,
            Err(PcapError::Incomplete(_)) => {
                reader
                    .refill()
                    .map_err(|e| Failure(format!("{path}: {e:?}")))?;
            }
            Err(PcapError::UnexpectedEof) => {
                eprintln!("kafka-wire: {path}: the capture ends inside a packet record");
                break;
            }
            Err(e) => {
                let message = format!("{path}: {e:?}");
                return Err(Failure(format!("{message} at byte {}", reader.consumed())));
            }
        }
    }
    analyser.finish()?;
    let c = &analyser.counts;
    eprintln!(
        "kafka-wire: {path}: {} packets, {} requests, {} paired with a response, {} errors",
        c.packets, c.requests, c.paired, c.errors
    );
    Ok(if c.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
