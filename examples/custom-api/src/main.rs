//! Two rounds on loopback: a client pings a server that speaks every version this crate has,
//! and then an older one (Ping 0, ApiVersions up to 3), agreeing on versions through ApiVersions
//! each time.

use custom_api::client::Client;
use custom_api::server::Server;
use kafka_wire::VersionRange;
use std::net::TcpListener;
use std::thread;

fn main() -> std::io::Result<()> {
    for (name, ping, api_versions) in [
        (
            "new-server",
            VersionRange::new(0, 1),
            VersionRange::new(0, i16::MAX),
        ),
        (
            "old-server",
            VersionRange::new(0, 0),
            VersionRange::new(0, 3),
        ),
    ] {
        println!("== {name}: Ping {ping}, ApiVersions {api_versions}");
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let server = Server {
            name: name.to_owned(),
            ping,
            api_versions,
        };
        thread::spawn(move || server.serve(listener));

        let mut client = Client::connect(addr)?;
        for sequence in 1..=3 {
            let (version, pong) = client.ping(sequence, b"hello")?;
            let handled: Vec<String> = pong
                .handled
                .iter()
                .map(|h| format!("{} ({} so far)", &*h.name, h.count))
                .collect();
            println!(
                "[client] Ping v{version} #{} answered: {} bytes back, handled by {handled:?}, clock {}",
                pong.sequence,
                pong.payload.len(),
                pong.sent_at_ms
            );
        }
    }
    Ok(())
}
