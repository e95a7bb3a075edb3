use std::io::Write;
use std::net::TcpListener;
use std::time::Duration;

use bytes::BytesMut;
use kafka_wire::frame;
use kafka_wire::messages::ResponseHeader;

use super::*;
use crate::server::tests::*;
use crate::server::{start, Options};

/// The marker sender picks the WriteTxnMarkers version per transaction: a fake leader on
/// broker 1's inter-broker port records what arrives. A transaction ended with EndTxn v3
/// (transaction version 1) gets v1 markers; one ended with EndTxn v5 gets v2 markers that
/// carry transaction version 2 and the bumped epoch.
#[test]
fn the_marker_sender_uses_v2_for_transaction_version_2() {
    // Broker 0 coordinates; broker 1 (leader of orders-1) is the fake below.
    let (dir, cluster) = setup("senderversion", 2, 0);
    let fake = TcpListener::bind(("127.0.0.1", cluster.brokers[1].broker_port)).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    thread::spawn(move || {
        for stream in fake.incoming() {
            let Ok(mut stream) = stream else { return };
            let Some(frame) = read_frame(&mut stream) else {
                continue;
            };
            let (header, body) = frame::decode_request::<RequestBody>(frame).unwrap();
            let RequestBody::WriteTxnMarkers(req) = body else {
                panic!("the fake leader got {:?}", body.api_key())
            };
            let version = header.request_api_version;
            // Every partition acknowledged, so the coordinator completes the transaction.
            let answer = crate::leader::answer_markers(&req, |_, _| ErrorCode::NONE);
            let mut out = BytesMut::new();
            let header = ResponseHeader::default().with_correlation_id(header.correlation_id);
            frame::encode_response(
                &mut out,
                &header,
                &ResponseBody::WriteTxnMarkers(answer),
                version,
            )
            .unwrap();
            let _ = stream.write_all(&out);
            if tx.send((version, req)).is_err() {
                return;
            }
        }
    });
    let server = start(Options::new(&dir, 0)).unwrap();
    let mut c = client(server.client_addr);
    let id = "sender-version";
    let first = init_producer(&mut c, id);
    add_partitions(&mut c, id, first, vec![1]);
    assert_eq!(commit(&mut c, id, first, 3), first.1);
    let (version, req) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(version, 1);
    assert_eq!(req.markers[0].producer_epoch, first.1);

    add_partitions(&mut c, id, first, vec![1]);
    let bumped = commit(&mut c, id, first, 5);
    assert_eq!(bumped, first.1 + 1);
    let (version, req) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(version, 2);
    assert_eq!(req.markers[0].transaction_version, 2);
    assert_eq!(req.markers[0].producer_epoch, bumped);
    // The brokers' threads go on running (and may still write there).
    let _ = std::fs::remove_dir_all(&dir);
}
