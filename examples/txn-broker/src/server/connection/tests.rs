use std::net::TcpStream;
use std::time::Duration;

use super::*;
use crate::server::tests::*;
use crate::server::{start, Options};

#[test]
fn unknown_apis_unsupported_versions_and_garbage_close_the_connection() {
    let (dir, _) = setup("close", 1, 0);
    let server = start(Options::new(&dir, 0)).unwrap();
    let cases: [Vec<u8>; 4] = [
        // OffsetFetch (key 9): not handled here.
        raw_frame(9, 1, 1, &[]),
        // Produce v2: below the advertised range.
        raw_frame(0, 2, 2, &[]),
        // Metadata v9 with a body cut short.
        raw_frame(3, 9, 3, &[0]),
        // Shorter than a request header.
        vec![0, 0, 0, 2, 0, 3],
    ];
    for frame in cases {
        let mut raw = TcpStream::connect(server.client_addr).unwrap();
        raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        raw.write_all(&frame).unwrap();
        assert!(read_frame(&mut raw).is_none(), "answered {frame:?}");
    }
    // The broker still serves new connections.
    let mut c = client(server.client_addr);
    assert!(c
        .call(RequestBody::ApiVersions(ApiVersionsRequest::default()), 3)
        .is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}
