//! Frames: size prefix, header version rules, maximum size, and trailing bytes, refused by the
//! strict readers and counted by the lenient ones.
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
use kafka_wire::{ApiMessage, ApiSet, Encode, ErrorKind, KafkaString, RawTaggedField};
use kafka_wire_tests::{catalogue_vectors, from_hex};

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
        ErrorKind::FrameTooLarge {
            size: 0x7fff_ffff,
            max: DEFAULT_MAX_FRAME_SIZE
        }
    );
    let mut negative = BytesMut::from(&[0xff, 0xff, 0xff, 0xfe][..]);
    assert!(matches!(
        frame::split_frame(&mut negative, 100).unwrap_err().kind(),
        ErrorKind::NegativeLength { length: -2 }
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
    assert_eq!(*err.kind(), ErrorKind::TrailingBytes { count: 1 });
    assert_eq!(err.offset(), Some(wire.len() - 4));

    let err =
        frame::decode_request::<RequestBody>(Bytes::from_static(&[0x7f, 0x00, 0, 0, 0, 0, 0, 1]))
            .unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::UnknownApiKey { key: 0x7f00 });
    let err =
        frame::decode_request::<RequestBody>(Bytes::from_static(&[0, 3, 0x7f, 0, 0, 0, 0, 1]))
            .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::UnsupportedVersion {
            version: 0x7f00,
            ..
        }
    ));

    let wrong = header(FetchRequest::API_KEY, 1);
    let err = frame::encode_request(&mut BytesMut::new(), &wrong, &body).unwrap_err();
    assert_eq!(
        *err.kind(),
        ErrorKind::HeaderMismatch {
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

/// librdkafka 2.16's Metadata v9 request for all topics, as `list_topics()` (AdminClient and
/// Producer) sends it, without its size. librdkafka writes a 4-byte placeholder for the topic
/// count and, for all topics at v9+, leaves it as it is where the compact encoding has one
/// byte: Kafka's reader takes its first byte for a null compact array, reads the fields after
/// it from the placeholder's other three bytes on, and leaves the frame's last byte.
const LIBRDKAFKA_METADATA_V9: &str = "0003000900000003000772646b61666b61000000000001000000";

#[test]
fn librdkafka_metadata_v9_is_read_leniently_and_refused_strictly() {
    let contents = Bytes::from(from_hex(LIBRDKAFKA_METADATA_V9));
    let request = frame::decode_request_lenient::<RequestBody>(contents.clone()).unwrap();
    assert_eq!(request.header.request_api_key, MetadataRequest::API_KEY);
    assert_eq!(request.header.request_api_version, 9);
    assert_eq!(request.header.correlation_id, 3);
    assert_eq!(request.header.client_id.as_deref(), Some("rdkafka"));
    assert_eq!((request.version, request.trailing_bytes), (9, 1));
    let RequestBody::Metadata(body) = &request.body else {
        panic!("not Metadata: {}", request.body.api().name())
    };
    // What Kafka's broker reads from these bytes: null topics (all of them), the three flags
    // from the placeholder's zero bytes, and librdkafka's flag byte `01` as a tagged-field
    // count, its one field (tag 0, size 0) made of the bytes after it.
    assert_eq!(body.topics, None);
    assert!(!body.allow_auto_topic_creation);
    assert!(!body.include_cluster_authorized_operations);
    assert!(!body.include_topic_authorized_operations);
    assert_eq!(
        body.unknown_tagged_fields.as_slice(),
        &[RawTaggedField {
            tag: 0,
            data: Bytes::new()
        }]
    );

    let err = frame::decode_request::<RequestBody>(contents.clone()).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::TrailingBytes { count: 1 });
    assert_eq!(err.offset(), Some(contents.len() - 1));

    // The same frame off a stream, with its size.
    let mut stream = BytesMut::new();
    stream.put_i32(contents.len() as i32);
    stream.put_slice(&contents);
    let one = frame::split_frame(&mut stream, DEFAULT_MAX_FRAME_SIZE)
        .unwrap()
        .unwrap();
    let again = frame::decode_request_lenient::<RequestBody>(one).unwrap();
    assert_eq!(again, request);
}

/// Every request and response of the golden catalogue (bytes written by kio and kafka-python),
/// framed with a header: the lenient and strict readers read the same header and body when
/// the body uses every byte; with bytes after it, the lenient reader counts them and reads the
/// same body, and the strict one refuses them at the first of them.
#[test]
fn lenient_and_strict_readers_differ_only_in_what_follows_the_body() {
    let mut requests = 0;
    let mut responses = 0;
    for vector in catalogue_vectors() {
        let label = vector.label();
        let version = vector.version;
        if let Some(api) = RequestBody::APIS
            .iter()
            .find(|a| a.message() == vector.message)
        {
            let h = header(api.key(), version);
            let mut contents = h
                .encode_to_bytes(api.header_version(version))
                .unwrap()
                .to_vec();
            contents.extend_from_slice(&vector.bytes);
            let strict = frame::decode_request::<RequestBody>(Bytes::from(contents.clone()))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            for extra in [&[][..], &[0][..], &[0xff, 0x00, 0x7f]] {
                let mut with = contents.clone();
                with.extend_from_slice(extra);
                let lenient =
                    frame::decode_request_lenient::<RequestBody>(Bytes::from(with.clone()))
                        .unwrap_or_else(|e| panic!("{label} + {extra:?}: {e}"));
                assert_eq!(
                    (&lenient.header, &lenient.body),
                    (&strict.0, &strict.1),
                    "{label}"
                );
                assert_eq!(lenient.version, version, "{label}");
                assert_eq!(lenient.trailing_bytes, extra.len(), "{label}");
                if !extra.is_empty() {
                    let err = frame::decode_request::<RequestBody>(Bytes::from(with)).unwrap_err();
                    let count = extra.len();
                    assert_eq!(*err.kind(), ErrorKind::TrailingBytes { count }, "{label}");
                    assert_eq!(err.offset(), Some(contents.len()), "{label}");
                }
            }
            requests += 1;
        } else if let Some(api) = ResponseBody::APIS
            .iter()
            .find(|a| a.message() == vector.message)
        {
            let h = ResponseHeader::default().with_correlation_id(42);
            let mut contents = h
                .encode_to_bytes(api.header_version(version))
                .unwrap()
                .to_vec();
            contents.extend_from_slice(&vector.bytes);
            let key = api.key();
            let strict =
                frame::decode_response::<ResponseBody>(Bytes::from(contents.clone()), key, version)
                    .unwrap_or_else(|e| panic!("{label}: {e}"));
            for extra in [&[][..], &[0][..], &[0xff, 0x00, 0x7f]] {
                let mut with = contents.clone();
                with.extend_from_slice(extra);
                let lenient = frame::decode_response_lenient::<ResponseBody>(
                    Bytes::from(with.clone()),
                    key,
                    version,
                )
                .unwrap_or_else(|e| panic!("{label} + {extra:?}: {e}"));
                assert_eq!(
                    (&lenient.header, &lenient.body),
                    (&strict.0, &strict.1),
                    "{label}"
                );
                assert_eq!(lenient.version, version, "{label}");
                assert_eq!(lenient.trailing_bytes, extra.len(), "{label}");
                if !extra.is_empty() {
                    let err =
                        frame::decode_response::<ResponseBody>(Bytes::from(with), key, version)
                            .unwrap_err();
                    let count = extra.len();
                    assert_eq!(*err.kind(), ErrorKind::TrailingBytes { count }, "{label}");
                    assert_eq!(err.offset(), Some(contents.len()), "{label}");
                }
            }
            responses += 1;
        }
    }
    // The catalogue has requests and responses of 30 APIs; a test that matched none of them
    // would prove nothing.
    assert!(
        requests >= 30 && responses >= 30,
        "{requests} requests, {responses} responses"
    );
}

/// What the strict reader refuses for another reason than trailing bytes, the lenient one
/// refuses too, with the same error.
#[test]
fn lenient_readers_refuse_what_is_malformed() {
    let h = header(MetadataRequest::API_KEY, 12);
    let body = RequestBody::Metadata(
        MetadataRequest::default().with_topics(Some(vec![Default::default()])),
    );
    let mut wire = BytesMut::new();
    frame::encode_request(&mut wire, &h, &body).unwrap();
    let contents = wire.split_off(4).freeze();
    for cut in 0..contents.len() {
        let short = contents.slice(..cut);
        let strict = frame::decode_request::<RequestBody>(short.clone()).unwrap_err();
        let lenient = frame::decode_request_lenient::<RequestBody>(short).unwrap_err();
        assert_eq!(lenient, strict, "cut at {cut}");
    }
    for bad in [
        &[0x7f, 0x00, 0, 0, 0, 0, 0, 1][..], // an API key Kafka's set lacks
        &[0, 3, 0x7f, 0, 0, 0, 0, 1],        // a Metadata version it lacks
    ] {
        let strict = frame::decode_request::<RequestBody>(Bytes::copy_from_slice(bad)).unwrap_err();
        let lenient =
            frame::decode_request_lenient::<RequestBody>(Bytes::copy_from_slice(bad)).unwrap_err();
        assert_eq!(lenient, strict);
    }

    // A response cut short: the same error from both, ApiVersions' second reading included.
    let answer = ResponseBody::ApiVersions(
        ApiVersionsResponse::default().with_error_code(35), // UNSUPPORTED_VERSION
    );
    let mut wire = BytesMut::new();
    let rh = ResponseHeader::default().with_correlation_id(1);
    frame::encode_response(&mut wire, &rh, &answer, 3).unwrap();
    let contents = wire.split_off(4).freeze();
    for cut in 0..contents.len() {
        let short = contents.slice(..cut);
        let strict = frame::decode_response::<ResponseBody>(short.clone(), 18, 3).unwrap_err();
        let lenient = frame::decode_response_lenient::<ResponseBody>(short, 18, 3).unwrap_err();
        assert_eq!(lenient, strict, "cut at {cut}");
    }
}

/// ApiVersions at a version the set lacks: the strict reader refuses it; the lenient one reads
/// the header (v2 above ApiVersions' flexible newest version, as Kafka does) and leaves the body
/// unread, to be answered at v0, as Kafka's broker does.
#[test]
fn api_versions_at_an_unknown_version_is_read_as_kafka_reads_it() {
    let newest = RequestBody::find(ApiVersionsRequest::API_KEY)
        .unwrap()
        .versions()
        .end()
        .unwrap();
    let future = newest + 1;
    // Header v2 with one tagged field (tag 5, two bytes), then a body no known version reads.
    let mut contents = BytesMut::new();
    contents.put_i16(ApiVersionsRequest::API_KEY);
    contents.put_i16(future);
    contents.put_i32(77);
    contents.put_i16(3);
    contents.put_slice(b"new");
    contents.put_slice(&[1, 5, 2, 0xaa, 0xbb]);
    contents.put_slice(&[0xff; 6]);
    let contents = contents.freeze();

    let err = frame::decode_request::<RequestBody>(contents.clone()).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::UnsupportedVersion { version, .. } if *version == future),
        "{err}"
    );
    let request = frame::decode_request_lenient::<RequestBody>(contents).unwrap();
    assert_eq!(request.header.correlation_id, 77);
    assert_eq!(request.header.client_id.as_deref(), Some("new"));
    assert_eq!(
        request.header.unknown_tagged_fields.as_slice(),
        &[RawTaggedField {
            tag: 5,
            data: Bytes::from_static(&[0xaa, 0xbb])
        }]
    );
    assert_eq!(
        request.body,
        RequestBody::ApiVersions(ApiVersionsRequest::default())
    );
    assert_eq!((request.version, request.trailing_bytes), (0, 6));
}

/// An ApiVersions answer at v0 to a request at v3: the strict reader refuses it, the lenient
/// one reads it at v0 when it says UNSUPPORTED_VERSION, and keeps the v3 error otherwise.
#[test]
fn api_versions_answer_at_v0_is_read_at_v0_when_it_says_unsupported_version() {
    let old = ApiVersionsResponse::default()
        .with_error_code(35) // UNSUPPORTED_VERSION
        .with_api_keys(vec![Default::default()]);
    let mut wire = BytesMut::new();
    let rh = ResponseHeader::default().with_correlation_id(4);
    frame::encode_response(&mut wire, &rh, &ResponseBody::ApiVersions(old.clone()), 0).unwrap();
    let contents = wire.split_off(4).freeze();
    let strict = frame::decode_response::<ResponseBody>(contents.clone(), 18, 3).unwrap_err();
    let response = frame::decode_response_lenient::<ResponseBody>(contents.clone(), 18, 3).unwrap();
    assert_eq!((response.header, response.version), (rh, 0));
    assert_eq!(response.body, ResponseBody::ApiVersions(old));
    assert_eq!(response.trailing_bytes, 0);

    // Error code NONE: no broker answers at v0 without UNSUPPORTED_VERSION, so the bytes are
    // not read at v0 and the error is that of v3.
    let mut none = contents.to_vec();
    none[4..6].copy_from_slice(&0i16.to_be_bytes());
    let err = frame::decode_response_lenient::<ResponseBody>(Bytes::from(none.clone()), 18, 3)
        .unwrap_err();
    let at_v3 = frame::decode_response::<ResponseBody>(Bytes::from(none), 18, 3).unwrap_err();
    assert_eq!(err, at_v3);
    assert_eq!(strict.kind(), at_v3.kind());
}
