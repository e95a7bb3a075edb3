//! A framed request of this crate's own API, written and read through `kw::frame` with the
//! crate's sets.

use bytes::BytesMut;
use kw::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kw::messages::{ApiVersionsRequest, RequestHeader, ResponseHeader};
use kw::{ApiMessage, ApiSet, ErrorKind, KafkaString};
use renamed_dependency::{EchoPart, EchoRequest, EchoResponse, Requests, Responses};

fn header(key: i16, version: i16) -> RequestHeader {
    RequestHeader::default()
        .with_request_api_key(key)
        .with_request_api_version(version)
        .with_correlation_id(11)
        .with_client_id(Some(KafkaString::from_static("renamed")))
}

#[test]
fn a_custom_request_round_trips_through_a_frame() {
    for version in [0, 1] {
        let body = Requests::Echo(EchoRequest {
            text: Some(KafkaString::from_static("hello")),
            parts: vec![EchoPart {
                index: 3,
                ..Default::default()
            }],
            deadline_ms: if version == 1 { 250 } else { -1 },
            ..Default::default()
        });
        let h = header(EchoRequest::API_KEY, version);
        let mut wire = BytesMut::new();
        frame::encode_request(&mut wire, &h, &body).unwrap();
        // Header v1 in the classic version, v2 (with its tagged section) in the flexible one.
        let header_len = 2 + 2 + 4 + 2 + "renamed".len() + usize::from(version == 1);
        assert_eq!(
            wire.len(),
            4 + header_len + body.encoded_len(version).unwrap()
        );
        let one = frame::split_frame(&mut wire, DEFAULT_MAX_FRAME_SIZE)
            .unwrap()
            .unwrap();
        let (h2, b2) = frame::decode_request::<Requests>(one).unwrap();
        assert_eq!((h2, b2), (h, body));
    }
}

#[test]
fn a_custom_response_round_trips_through_a_frame() {
    let body = Responses::Echo(EchoResponse {
        text: None,
        ..Default::default()
    });
    let h = ResponseHeader::default().with_correlation_id(11);
    let mut wire = BytesMut::new();
    frame::encode_response(&mut wire, &h, &body, 1).unwrap();
    let frame = wire.split_off(4).freeze();
    let (h2, b2) = frame::decode_response::<Responses>(frame, EchoRequest::API_KEY, 1).unwrap();
    assert_eq!((h2, b2), (h, body));
}

#[test]
fn kafka_apis_left_out_of_the_build_are_unknown_to_the_sets() {
    assert_eq!(Requests::APIS.len(), 2);
    assert_eq!(
        Requests::find(ApiVersionsRequest::API_KEY).map(|a| a.name()),
        Some("ApiVersions")
    );
    // Produce (key 0) is not in this crate's set.
    const PRODUCE: &[u8] = &[0, 0, 0, 9, 0, 0, 0, 1, 0, 0];
    let err = frame::decode_request::<Requests>(bytes::Bytes::from_static(PRODUCE)).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::UnknownApiKey { key: 0 });
}
