//! The server and the client on loopback: versions agreed through ApiVersions, pings echoed.

use bytes::Bytes;
use custom_api::client::Client;
use custom_api::messages::{PingRequest, PingResponse, Requests, RequestsView, Responses};
use custom_api::server::Server;
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::view::{Source, ViewIndex};
use kafka_wire::{ApiMessage, ApiSet, Encode, KafkaString, Message, VersionRange};
use std::net::{SocketAddr, TcpListener};
use std::thread;

fn start(name: &str, ping: VersionRange, api_versions: VersionRange) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let server = Server {
        name: name.to_owned(),
        ping,
        api_versions,
    };
    thread::spawn(move || server.serve(listener));
    addr
}

#[test]
fn pings_at_the_newest_version_both_speak() {
    let addr = start("a", VersionRange::new(0, 1), VersionRange::new(0, i16::MAX));
    let mut client = Client::connect(addr).unwrap();
    assert_eq!(client.version_of(PingRequest::API_KEY), Some(1));
    assert_eq!(client.version_of(ApiVersionsRequest::API_KEY), Some(5));
    for sequence in 1..=2 {
        let (version, pong) = client.ping(sequence, b"abc").unwrap();
        assert_eq!(
            (version, pong.sequence, &pong.payload[..]),
            (1, sequence, &b"abc"[..])
        );
        assert_eq!(pong.handled.len(), 1);
        assert_eq!(
            (&*pong.handled[0].name, pong.handled[0].count),
            ("a", sequence)
        );
        // The tagged clock travels both ways in the flexible version.
        assert!(pong.sent_at_ms > 0);
    }
}

#[test]
fn an_older_server_gets_classic_pings_after_an_api_versions_retry() {
    let addr = start("b", VersionRange::new(0, 0), VersionRange::new(0, 3));
    let mut client = Client::connect(addr).unwrap();
    assert_eq!(client.version_of(ApiVersionsRequest::API_KEY), Some(3));
    assert_eq!(client.version_of(PingRequest::API_KEY), Some(0));
    let (version, pong) = client.ping(7, b"x").unwrap();
    assert_eq!((version, pong.sequence), (0, 7));
    // Version 0 has neither field: they read as their defaults.
    assert!(pong.handled.is_empty());
    assert_eq!(pong.sent_at_ms, -1);
}

#[test]
fn a_server_without_ping_is_refused_by_the_client() {
    let addr = start("c", VersionRange::NONE, VersionRange::new(0, i16::MAX));
    let mut client = Client::connect(addr).unwrap();
    assert_eq!(client.version_of(PingRequest::API_KEY), None);
    assert!(client.ping(1, b"").is_err());
}

#[test]
fn the_generated_messages_and_sets_follow_the_schemas() {
    assert_eq!(PingRequest::API_KEY, 1000);
    assert_eq!(PingRequest::VERSIONS, VersionRange::new(0, 1));
    assert_eq!(
        PingResponse::FLEXIBLE_VERSIONS,
        VersionRange::new(1, i16::MAX)
    );
    let names: Vec<&str> = Requests::APIS.iter().map(|a| a.name()).collect();
    assert_eq!(names, ["Ping", "ApiVersions"]);
    // Kafka's exception rides along: ApiVersions answers keep response header v0.
    let versions = Responses::find(ApiVersionsRequest::API_KEY).unwrap();
    assert_eq!(versions.header_version(3), 0);
    assert_eq!(
        Responses::find(PingRequest::API_KEY)
            .unwrap()
            .header_version(1),
        1
    );
}

#[test]
fn a_ping_is_read_in_place_as_the_server_reads_it() {
    let ping = PingRequest::default()
        .with_sequence(3)
        .with_payload(Bytes::from_static(b"abc"))
        .with_sender(Some(KafkaString::from_static("me")))
        .with_sent_at_ms(5);
    let wire = ping.encode_to_bytes(1).unwrap();
    let mut index = ViewIndex::new();
    let Ok(RequestsView::Ping(view)) =
        Requests::view_in(PingRequest::API_KEY, &wire, 1, &mut index)
    else {
        panic!("not a Ping");
    };
    assert_eq!(
        (view.sequence(), view.sender(), view.sent_at_ms()),
        (3, Some("me"), 5)
    );
    // The payload the server echoes shares the request's buffer.
    let payload = Source::from(&wire).to_bytes(view.payload());
    assert_eq!(payload, "abc");
    assert!(wire.as_ptr_range().contains(&payload.as_ptr()));
    assert_eq!(view.into_owned(), ping);
}
