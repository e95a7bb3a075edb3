//! Frames: size prefix, header version rules, maximum size and trailing bytes.
#![forbid(unsafe_code)]

use bytes::{BufMut, Bytes, BytesMut};
use kafka_wire::api::{ApiInfo, RequestSet};
use kafka_wire::frame::{self, DEFAULT_MAX_FRAME_SIZE};
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::{
    ApiVersionsRequest, ApiVersionsResponse, ControlledShutdownRequest, FetchRequest,
    LeaderAndIsrRequest, MetadataRequest, ProduceRequest, RequestHeader, ResponseHeader,
    WriteTxnMarkersRequest,
};
use kafka_wire::{ApiMessage, ApiSet, DecodeErrorKind, Encode, EncodeErrorKind, KafkaString};

/// Kafka's request and response facts for the API of request `R`.
fn api<R: ApiMessage>() -> (&'static ApiInfo, &'static ApiInfo) {
    let request = RequestBody::find(R::API_KEY).expect("a request of Kafka's set");
    let response = ResponseBody::find(R::API_KEY).expect("a response of Kafka's set");
    (request, response)
}

fn header(key: i16, version: i16) -> RequestHeader {
    RequestHeader::default()
        .with_request_api_key(key)
        .with_request_api_version(version)
        .with_correlation_id(42)
        .with_client_id(Some(KafkaString::from_static("c")))
}

#[test]
fn header_versions_follow_kafka_rules() {
    // Fetch is flexible from 12: header v2 there, v1 before.
    let (request, response) = api::<FetchRequest>();
    assert_eq!(request.header_version(11), 1);
    assert_eq!(request.header_version(12), 2);
    assert_eq!(response.header_version(11), 0);
    assert_eq!(response.header_version(12), 1);
    // ControlledShutdown v0 has the header without a client id.
    let (request, _) = api::<ControlledShutdownRequest>();
    assert_eq!(request.header_version(0), 0);
    assert_eq!(request.header_version(1), 1);
    // ApiVersions answers with header v0 even when its response is flexible (v3+).
    let (request, response) = api::<ApiVersionsRequest>();
    assert!(response.flexible_versions().contains(3));
    assert_eq!(response.header_version(3), 0);
    assert_eq!(request.header_version(3), 2);
}

#[test]
fn registry_covers_every_api_key_and_links_responses() {
    let keys: Vec<i16> = RequestBody::APIS.iter().map(|a| a.key()).collect();
    for (i, k) in keys.iter().enumerate() {
        assert_eq!(RequestBody::find(*k), Some(&RequestBody::APIS[i]));
        assert_eq!(ResponseBody::find(*k).map(ApiInfo::key), Some(*k));
    }
    assert!(
        RequestBody::APIS.len() >= 90,
        "{} APIs",
        RequestBody::APIS.len()
    );
    assert_eq!(RequestBody::APIS.len(), ResponseBody::APIS.len());
    assert_eq!(RequestBody::find(-1), None);
    assert_eq!(api::<ProduceRequest>().0.versions().start(), Some(0));
    assert_eq!(
        RequestBody::find_by_name("Fetch").map(ApiInfo::key),
        Some(FetchRequest::API_KEY)
    );
    fn response_of<R: RequestSet>(key: i16) -> &'static str {
        <R::Responses as ApiSet>::find(key).unwrap().message()
    }
    assert_eq!(
        response_of::<RequestBody>(FetchRequest::API_KEY),
        "FetchResponse"
    );
    assert_eq!(
        api::<WriteTxnMarkersRequest>().0.versions().to_string(),
        "0-2"
    );
    assert_eq!(api::<LeaderAndIsrRequest>().0.versions().to_string(), "0-7");
}

#[test]
fn request_frame_round_trips_at_every_header_version() {
    for (api, version, header_version) in [
        (MetadataRequest::API_KEY, 0, 1),
        (MetadataRequest::API_KEY, 9, 2),
        (MetadataRequest::API_KEY, 8, 1),
    ] {
        let h = header(api, version);
        let body = RequestBody::Metadata(MetadataRequest::default().with_topics(Some(vec![])));
        let mut wire = BytesMut::new();
        frame::encode_request(&mut wire, &h, &body).unwrap();
        let size = i32::from_be_bytes(wire[..4].try_into().unwrap()) as usize;
        assert_eq!(size, wire.len() - 4);
        assert_eq!(
            size,
            h.encoded_len(header_version).unwrap() + body.encoded_len(version).unwrap()
        );
        let one = frame::split_frame(&mut wire, DEFAULT_MAX_FRAME_SIZE)
            .unwrap()
            .unwrap();
        assert!(wire.is_empty());
        let (h2, b2) = frame::decode_request::<RequestBody>(one).unwrap();
        assert_eq!((h2, b2), (h, body));
    }
}

#[test]
fn split_frame_waits_for_whole_frames_and_enforces_the_maximum() {
    let mut stream = BytesMut::new();
    stream.put_slice(&[0, 0, 0, 3, 1, 2]);
    assert_eq!(frame::split_frame(&mut stream, 100).unwrap(), None);
    stream.put_slice(&[3, 0, 0]);
    assert_eq!(
        frame::split_frame(&mut stream, 100).unwrap(),
        Some(Bytes::from_static(&[1, 2, 3]))
    );
    assert_eq!(&stream[..], &[0, 0]);
    // Refused on the prefix alone, before the bytes arrive.
    let mut huge = BytesMut::from(&[0x7f, 0xff, 0xff, 0xff][..]);
    let err = frame::split_frame(&mut huge, DEFAULT_MAX_FRAME_SIZE).unwrap_err();
    assert_eq!(
        *err.kind(),
        DecodeErrorKind::FrameTooLarge {
            size: 0x7fff_ffff,
            max: DEFAULT_MAX_FRAME_SIZE
        }
    );
    let mut negative = BytesMut::from(&[0xff, 0xff, 0xff, 0xfe][..]);
    assert!(matches!(
        frame::split_frame(&mut negative, 100).unwrap_err().kind(),
        DecodeErrorKind::NegativeLength { length: -2 }
    ));
}

#[test]
fn trailing_bytes_unknown_keys_and_mismatches_are_errors() {
    let h = header(MetadataRequest::API_KEY, 1);
    let body = RequestBody::Metadata(MetadataRequest::default());
    let mut wire = BytesMut::new();
    frame::encode_request(&mut wire, &h, &body).unwrap();
    let mut contents = BytesMut::from(&wire[4..]);
    contents.put_u8(0);
    let err = frame::decode_request::<RequestBody>(contents.freeze()).unwrap_err();
    assert_eq!(*err.kind(), DecodeErrorKind::TrailingBytes { count: 1 });
    assert_eq!(err.offset(), Some(wire.len() - 4));

    let err =
        frame::decode_request::<RequestBody>(Bytes::from_static(&[0x7f, 0x00, 0, 0, 0, 0, 0, 1]))
            .unwrap_err();
    assert_eq!(*err.kind(), DecodeErrorKind::UnknownApiKey { key: 0x7f00 });
    let err =
        frame::decode_request::<RequestBody>(Bytes::from_static(&[0, 3, 0x7f, 0, 0, 0, 0, 1]))
            .unwrap_err();
    assert!(matches!(
        err.kind(),
        DecodeErrorKind::UnsupportedVersion {
            version: 0x7f00,
            ..
        }
    ));

    let wrong = header(FetchRequest::API_KEY, 1);
    let err = frame::encode_request(&mut BytesMut::new(), &wrong, &body).unwrap_err();
    assert_eq!(
        *err.kind(),
        EncodeErrorKind::HeaderMismatch {
            header_key: 1,
            body_key: 3
        }
    );
}

#[test]
fn api_versions_response_uses_header_v0() {
    let h = ResponseHeader::default().with_correlation_id(9);
    let body = ResponseBody::ApiVersions(ApiVersionsResponse::default());
    let mut wire = BytesMut::new();
    frame::encode_response(&mut wire, &h, &body, 3).unwrap();
    // size, correlation id (header v0: no tagged section), then the flexible body.
    assert_eq!(&wire[4..8], &[0, 0, 0, 9]);
    assert_eq!(wire.len() - 8, body.encoded_len(3).unwrap());
    let (h2, b2) = frame::decode_response::<ResponseBody>(
        wire.split_off(4).freeze(),
        ApiVersionsRequest::API_KEY,
        3,
    )
    .unwrap();
    assert_eq!((h2, b2), (h, body));
}
