//! Record batches written byte by byte, with checksums computed by the `crc` crate rather than
//! by kafka-wire: the hostile and memory tests build their inputs with these.

use kafka_wire::varint::{put_varint, put_varlong};

const CRC32C: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
const CRC32: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// A magic 2 batch around `payload` (the records section, compressed or not), with a correct
/// CRC unless `bad_crc`.
pub fn v2_batch(count: i32, attributes: i16, payload: &[u8], bad_crc: bool) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&0i64.to_be_bytes());
    b.extend_from_slice(&(49 + payload.len() as i32).to_be_bytes());
    b.extend_from_slice(&(-1i32).to_be_bytes());
    b.push(2);
    b.extend_from_slice(&[0; 4]);
    b.extend_from_slice(&attributes.to_be_bytes());
    b.extend_from_slice(&0i32.to_be_bytes()); // last offset delta
    b.extend_from_slice(&0i64.to_be_bytes()); // base timestamp
    b.extend_from_slice(&0i64.to_be_bytes()); // max timestamp
    b.extend_from_slice(&(-1i64).to_be_bytes());
    b.extend_from_slice(&(-1i16).to_be_bytes());
    b.extend_from_slice(&(-1i32).to_be_bytes());
    b.extend_from_slice(&count.to_be_bytes());
    b.extend_from_slice(payload);
    let crc = CRC32C.checksum(&b[21..]) ^ u32::from(bad_crc);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

/// One record: `body` after its length varint.
pub fn record(body: &[u8]) -> Vec<u8> {
    let mut r = Vec::new();
    put_varint(&mut r, body.len() as i32);
    r.extend_from_slice(body);
    r
}

/// A record body with null key and value and `headers` as the header count, then `tail`.
pub fn body_with_header_count(headers: i32, tail: &[u8]) -> Vec<u8> {
    let mut body = vec![0u8]; // attributes
    put_varlong(&mut body, 0);
    put_varint(&mut body, 0);
    put_varint(&mut body, -1);
    put_varint(&mut body, -1);
    put_varint(&mut body, headers);
    body.extend_from_slice(tail);
    body
}

/// A magic 1 message whose value is `value`, with codec `codec`.
pub fn legacy_wrapper(codec: u8, value: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(&0i64.to_be_bytes());
    m.extend_from_slice(&(22 + value.len() as i32).to_be_bytes());
    m.extend_from_slice(&[0; 4]);
    m.push(1);
    m.push(codec);
    m.extend_from_slice(&0i64.to_be_bytes());
    m.extend_from_slice(&(-1i32).to_be_bytes());
    m.extend_from_slice(&(value.len() as i32).to_be_bytes());
    m.extend_from_slice(value);
    let crc = CRC32.checksum(&m[16..]);
    m[12..16].copy_from_slice(&crc.to_be_bytes());
    m
}
