//! The pipe between real sockets on loopback: bytes come out as they went in, in order, whether
//! spliced, put, teed or taken back; a pipe that cannot take more says so rather than waiting.

use super::*;
use std::io::{Read, Write};
use std::net::TcpListener;

/// A connected pair: a blocking std socket that writes, and tokio's end that reads.
async fn pair() -> (std::net::TcpStream, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let writer = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let (reader, _) = listener.accept().unwrap();
    reader.set_nonblocking(true).unwrap();
    (writer, TcpStream::from_std(reader).unwrap())
}

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 31 % 251) as u8).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn spliced_through_byte_for_byte_and_full_is_said() {
    runtime().block_on(async {
        let (mut writer, from) = pair().await;
        let (to, mut reader) = {
            let (w, r) = pair().await;
            (r, w)
        };
        let sent = pattern(8 << 20);
        let sending = {
            let sent = sent.clone();
            std::thread::spawn(move || writer.write_all(&sent).unwrap())
        };
        let receiving = std::thread::spawn(move || {
            let mut got = vec![0; 8 << 20];
            reader.read_exact(&mut got).unwrap();
            got
        });
        let mut pipe = Pipe::new(None).unwrap();
        // Filled without draining until it refuses: it holds some bytes, not the eight MiB.
        let mut full = false;
        while !full {
            match pipe.splice_in(&from, 8 << 20).await.unwrap() {
                In::Moved(_) => {}
                In::Full => full = true,
                In::Closed => panic!("closed early"),
            }
        }
        assert!(pipe.held() > 0 && pipe.held() < 8 << 20, "{}", pipe.held());
        let mut left = (8usize << 20) - pipe.held();
        pipe.splice_out(&to, pipe.held()).await.unwrap();
        while left > 0 {
            if let In::Moved(n) = pipe.splice_in(&from, left).await.unwrap() {
                left -= n;
            }
            pipe.splice_out(&to, pipe.held()).await.unwrap();
        }
        assert_eq!(pipe.held(), 0);
        sending.join().unwrap();
        assert!(
            receiving.join().unwrap() == sent,
            "the bytes as they were sent"
        );
    });
}

#[test]
fn put_teed_and_taken_back_in_order() {
    runtime().block_on(async {
        let (mut writer, from) = pair().await;
        writer.write_all(b"-spliced-").unwrap();
        let mut pipe = Pipe::new(None).unwrap();
        assert_eq!(pipe.put(b"put").unwrap(), 3);
        let mut moved = 0;
        while moved < 9 {
            if let In::Moved(n) = pipe.splice_in(&from, 9 - moved).await.unwrap() {
                moved += n;
            }
        }
        assert_eq!(pipe.put(b"end").unwrap(), 3);
        let mut copy = Pipe::new(None).unwrap();
        assert_eq!(pipe.tee(&mut copy, 100).unwrap(), 15);
        let (mut teed, mut taken) = (BytesMut::new(), BytesMut::new());
        copy.take_all(&mut teed).unwrap();
        pipe.take_all(&mut taken).unwrap();
        assert_eq!(&teed[..], b"put-spliced-end");
        assert_eq!(&taken[..], b"put-spliced-end");
        assert_eq!((pipe.held(), copy.held()), (0, 0));
        drop(writer);
        assert_eq!(pipe.splice_in(&from, 10).await.unwrap(), In::Closed);
    });
}

#[test]
fn a_full_pipe_takes_what_it_can_and_says_how_much() {
    let mut pipe = Pipe::new(None).unwrap();
    let big = pattern(16 << 20);
    let put = pipe.put(&big).unwrap();
    assert!(put > 0 && put < big.len(), "{put}");
    let mut back = BytesMut::new();
    pipe.take_all(&mut back).unwrap();
    assert!(back[..] == big[..put]);
}
