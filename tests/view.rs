//! Views beyond single messages: frames, peeking, the pass-through codec, and sharing a `Bytes`.
//! (Every golden vector and random round trip is also read through views, by the checks in
//! `support/json.rs`.)
#![forbid(unsafe_code)]

use bytes::{Bytes, BytesMut};
use kafka_wire::frame;
use kafka_wire::messages::api::{RequestBody, RequestBodyView, ResponseBody};
use kafka_wire::messages::{ProduceRequest, RequestHeader, ResponseHeader};
use kafka_wire::peek;
use kafka_wire::tokio::RawServerCodec;
use kafka_wire::view::{View, ViewIndex};
use kafka_wire::{
    ApiSet, Decode, Encode, IntArray, KafkaMessage, KafkaString, Records, UnknownTaggedFields, Uuid,
};
use kafka_wire_tests::kafka_classes::File;
use std::cell::{Cell, RefCell};
use std::sync::LazyLock;
use tokio_util::codec::{Decoder, Encoder};

static FILE: LazyLock<File> =
    LazyLock::new(|| File::parse(include_str!("golden/kafka_classes.json")));

/// A response frame's contents: a header for a request of `key` at `version`, then `body`.
fn response_frame(key: i16, version: i16, body: &[u8]) -> Option<Bytes> {
    let api = ResponseBody::find(key)?;
    let header = ResponseHeader::default().with_correlation_id(77);
    let mut frame = BytesMut::new();
    header
        .encode(&mut frame, api.header_version(version))
        .ok()?;
    frame.extend_from_slice(body);
    Some(frame.freeze())
}

/// Cut at every length short of the whole, `bytes` (a message of `M` at `version`) is refused
/// by a view with the error decoding gives.
fn refused_as_decoding_refuses<M: View + Decode + std::fmt::Debug>(
    bytes: &Bytes,
    version: i16,
    index: &mut ViewIndex,
) {
    for end in 0..bytes.len() {
        let cut = bytes.slice(..end);
        assert_eq!(
            M::view_in(&cut[..], version, index).unwrap_err(),
            M::decode_exact(cut.clone(), version).unwrap_err(),
            "version {version}, cut at {end} of {} bytes",
            bytes.len()
        );
    }
}

#[test]
fn response_frame_views_read_what_decoding_reads() {
    let seen = Cell::new(0);
    // One index for every frame, as a client's connection keeps one.
    let index = RefCell::new(ViewIndex::new());
    FILE.every_vector("response frames", |v| {
        let index = &mut *index.borrow_mut();
        let Some(api) = ResponseBody::APIS.iter().find(|a| a.message() == v.message) else {
            return Ok(());
        };
        seen.set(seen.get() + 1);
        let key = api.key();
        let frame = response_frame(key, v.version, &v.bytes).ok_or("no frame")?;
        let (header, body) = frame::decode_response::<ResponseBody>(frame.clone(), key, v.version)
            .map_err(|e| e.to_string())?;
        let (h, b) = frame::view_response::<ResponseBody>(&frame, key, v.version, index)
            .map_err(|e| format!("view_response: {e}"))?;
        if h.into_owned() != header || b.into_owned() != body {
            return Err("view_response reads another frame".into());
        }
        // One trailing byte: refused by both strict readers alike, read by both lenient ones.
        let mut longer = BytesMut::from(&frame[..]);
        longer.extend_from_slice(&[0]);
        let longer = longer.freeze();
        let strict = frame::decode_response::<ResponseBody>(longer.clone(), key, v.version);
        let viewed = frame::view_response::<ResponseBody>(&longer, key, v.version, index);
        if viewed.map(|_| ()).unwrap_err() != strict.map(|_| ()).unwrap_err() {
            return Err("the strict readers refuse a trailing byte differently".into());
        }
        let lenient = frame::view_response_lenient::<ResponseBody>(&longer, key, v.version, index)
            .map_err(|e| format!("view_response_lenient: {e}"))?;
        let decoded =
            frame::decode_response_lenient::<ResponseBody>(longer.clone(), key, v.version)
                .map_err(|e| e.to_string())?;
        if lenient.trailing_bytes != 1
            || lenient.trailing_bytes != decoded.trailing_bytes
            || lenient.version != decoded.version
            || lenient.body.into_owned() != decoded.body
        {
            return Err("the lenient readers differ".into());
        }
        Ok(())
    });
    assert!(seen.get() > 100, "only {} response vectors", seen.get());
}

#[test]
fn an_old_brokers_api_versions_answer_is_viewed_at_version_0() {
    use kafka_wire::messages::ApiVersionsResponse;
    use kafka_wire::ErrorCode;
    let old = ApiVersionsResponse::default().with_error_code(ErrorCode::UNSUPPORTED_VERSION.code());
    let body = old.encode_to_bytes(0).unwrap();
    let frame = response_frame(18, 0, &body).unwrap();
    let mut index = ViewIndex::new();
    let viewed = frame::view_response_lenient::<ResponseBody>(&frame, 18, 3, &mut index).unwrap();
    assert_eq!(viewed.version, 0);
    assert_eq!(viewed.body.into_owned(), ResponseBody::ApiVersions(old));
    // The strict reader has no such rule, and says what decoding says.
    assert_eq!(
        frame::view_response::<ResponseBody>(&frame, 18, 3, &mut index).unwrap_err(),
        frame::decode_response::<ResponseBody>(frame.clone(), 18, 3).unwrap_err()
    );
}

#[test]
fn peeking_at_produce_reads_its_first_fields_as_decoding_does() {
    let vectors = Cell::new(0);
    FILE.every_vector("produce peek", |v| {
        if v.message != "ProduceRequest" {
            return Ok(());
        }
        vectors.set(vectors.get() + 1);
        let decoded = ProduceRequest::decode_exact(Bytes::from(v.bytes.clone()), v.version)
            .map_err(|e| e.to_string())?;
        let front = peek::produce(&v.bytes, v.version).map_err(|e| e.to_string())?;
        if front.acks != decoded.acks
            || front.timeout_ms != decoded.timeout_ms
            || front.transactional_id != decoded.transactional_id.as_deref()
        {
            return Err(format!("peeked {front:?}"));
        }
        // Cut anywhere: where decoding fails in the first three fields, peeking fails alike;
        // anywhere later, peeking reads them all the same.
        for cut in 0..v.bytes.len() {
            let short = &v.bytes[..cut];
            let err = ProduceRequest::decode(&mut Bytes::copy_from_slice(short), v.version)
                .expect_err("a cut message does not decode");
            let front_fields = ["transactional_id", "acks", "timeout_ms"]
                .iter()
                .any(|f| err.path().ends_with(&format!("ProduceRequest.{f}")));
            match peek::produce(short, v.version) {
                Err(e) if front_fields && e == err => {}
                Ok(p) if !front_fields && p == front => {}
                other => return Err(format!("cut at {cut}: peeked {other:?}, decoding {err}")),
            }
        }
        Ok(())
    });
    assert!(
        vectors.get() >= 14,
        "only {} Produce vectors",
        vectors.get()
    );
    let err = peek::produce(&[], 99).unwrap_err();
    assert_eq!(
        err,
        ProduceRequest::decode(&mut Bytes::new(), 99).unwrap_err()
    );
}

#[test]
fn a_view_opened_on_bytes_shares_its_records() {
    let found = RefCell::new(None);
    FILE.every_vector("a Produce v13 with records", |v| {
        let has_records = v.message == "ProduceRequest"
            && v.version == 13
            && ProduceRequest::from_slice(&v.bytes, 13).is_ok_and(|r| {
                r.topic_data
                    .first()
                    .and_then(|t| t.partition_data.first())
                    .is_some_and(|p| p.records.as_ref().is_some_and(|r| !r.is_empty()))
            });
        if has_records && found.borrow().is_none() {
            *found.borrow_mut() = Some(v.bytes.clone());
        }
        Ok(())
    });
    let input = Bytes::from(
        found
            .into_inner()
            .expect("a Produce v13 vector with records"),
    );
    let mut index = ViewIndex::new();
    let request = ProduceRequest::view_in(&input, 13, &mut index)
        .unwrap()
        .into_owned();
    let records = request
        .topic_data
        .iter()
        .flat_map(|t| &t.partition_data)
        .filter_map(|p| p.records.as_ref())
        .find(|r| !r.is_empty())
        .expect("records");
    let (start, end) = (
        input.as_ptr() as usize,
        input.as_ptr() as usize + input.len(),
    );
    assert!(
        (start..end).contains(&(records.as_bytes().as_ptr() as usize)),
        "a copy, not a share"
    );
    // From a slice, they are copied.
    let copied = ProduceRequest::view_in(&input[..], 13, &mut index)
        .unwrap()
        .into_owned();
    let records = copied.topic_data[0].partition_data[0]
        .records
        .as_ref()
        .unwrap();
    assert!(!(start..end).contains(&(records.as_bytes().as_ptr() as usize)));
}

#[test]
fn the_pass_through_codec_reads_headers_and_forwards_frames_unchanged() {
    let forwarded = Cell::new(0);
    FILE.every_vector("pass-through", |v| {
        let Some(api) = RequestBody::APIS.iter().find(|a| a.message() == v.message) else {
            return Ok(());
        };
        let header = RequestHeader::default()
            .with_request_api_key(api.key())
            .with_request_api_version(v.version)
            .with_correlation_id(11);
        let mut wire = BytesMut::new();
        header
            .encode(&mut wire, api.header_version(v.version))
            .map_err(|e| e.to_string())?;
        wire.extend_from_slice(&v.bytes);
        let contents = wire.split().freeze();
        let mut stream = BytesMut::new();
        stream.extend_from_slice(&i32::try_from(contents.len()).unwrap().to_be_bytes());
        stream.extend_from_slice(&contents);
        let sent = stream.clone().freeze();
        let mut codec = RawServerCodec::<RequestBody>::new();
        let raw = codec
            .decode(&mut stream)
            .map_err(|e| e.to_string())?
            .ok_or("no frame")?;
        if raw.header() != &header || raw.body() != v.bytes {
            return Err(format!("read {raw:?}"));
        }
        let mut index = ViewIndex::new();
        let viewed = raw.view_in(&mut index).map_err(|e| e.to_string())?;
        let decoded = raw.decode().map_err(|e| e.to_string())?;
        if viewed.body.into_owned() != decoded.body {
            return Err("the view and decoding differ".into());
        }
        let mut out = BytesMut::new();
        codec.encode(raw, &mut out).map_err(|e| e.to_string())?;
        if out != sent {
            return Err("forwarded bytes differ".into());
        }
        forwarded.set(forwarded.get() + 1);
        Ok(())
    });
    assert!(
        forwarded.get() > 100,
        "only {} request vectors",
        forwarded.get()
    );
}

#[test]
fn peeking_at_a_header_leaves_an_unknown_api_versions_body_unread() {
    // ApiVersions v99: header v2 with client id "future", then bytes of an unknown format.
    let mut wire = vec![0, 18, 0, 99, 0, 0, 0, 7, 0, 6];
    wire.extend_from_slice(b"future");
    wire.push(0);
    wire.extend_from_slice(&[0xff; 9]);
    let mut index = ViewIndex::new();
    let (header, body) = frame::peek_request::<RequestBody>(&wire[..], &mut index).unwrap();
    assert_eq!(header.client_id(), Some("future"));
    assert_eq!(body, [0xff; 9]);
    let viewed = frame::view_request_lenient::<RequestBody>(&wire[..], &mut index).unwrap();
    assert_eq!((viewed.version, viewed.trailing_bytes), (0, 9));
    assert!(matches!(viewed.body, RequestBodyView::ApiVersions(_)));
    // Any other API at a version the set lacks is refused, as decoding refuses it.
    wire[1] = 3;
    assert_eq!(
        frame::peek_request::<RequestBody>(&wire[..], &mut index).unwrap_err(),
        frame::decode_request_lenient::<RequestBody>(Bytes::from(wire.clone())).unwrap_err()
    );
}

/// A struct that opens with fields of one width, which its record keeps as one word: among
/// them fields that some versions lack (so that where the next one is depends on the version),
/// and a field that is only ever tagged, declared inside the run but not on the wire there.
/// After a string, a field of one width that is not in the run.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
struct Run {
    #[kafka(versions = "0+")]
    a: i16,
    #[kafka(versions = "1+")]
    b: i64,
    #[kafka(versions = "3+", tag = 0, tagged = "3+")]
    only_tagged: i32,
    #[kafka(versions = "0+")]
    c: bool,
    #[kafka(versions = "2+", default = -1)]
    d: i32,
    #[kafka(versions = "0+")]
    e: Uuid,
    #[kafka(versions = "0+")]
    f: f64,
    #[kafka(versions = "0+")]
    name: KafkaString,
    #[kafka(versions = "0+")]
    after: i32,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Runs as elements of an array and as a struct field, after a run of one field and an array
/// of integers that only some versions have, found where the run ends.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-3", flexible = "2+")]
struct Runs {
    #[kafka(versions = "0+")]
    first: u16,
    #[kafka(versions = "1+")]
    ids: IntArray<i32>,
    #[kafka(versions = "0+")]
    runs: Vec<Run>,
    #[kafka(versions = "0+")]
    last: Run,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

impl Run {
    /// A run with every field this version has set to a value that is not its default.
    fn at(version: i16, n: i16) -> Self {
        Run {
            a: n,
            b: if version >= 1 {
                -7 * i64::from(n) - 1
            } else {
                0
            },
            only_tagged: if version >= 3 { 1000 + i32::from(n) } else { 0 },
            c: true,
            d: if version >= 2 { 300 + i32::from(n) } else { -1 },
            e: Uuid::from_u128(0x0102_0304_0506_0708_090a_0b0c_0d0e_0f10 + n as u128),
            f: 0.5 + f64::from(n),
            name: KafkaString::from(format!("run {n}")),
            after: -i32::from(n),
            unknown_tagged_fields: UnknownTaggedFields::default(),
        }
    }
}

#[test]
fn a_structs_opening_run_reads_at_every_version_and_refuses_as_decoding_does() {
    let mut index = ViewIndex::new();
    for version in 0..=3 {
        let ids: &[i32] = if version >= 1 { &[4, -5, 6] } else { &[] };
        let value = Runs {
            first: 0xbeef,
            ids: ids.iter().copied().collect(),
            runs: (1..=3).map(|n| Run::at(version, n)).collect(),
            last: Run::at(version, 9),
            unknown_tagged_fields: UnknownTaggedFields::default(),
        };
        let bytes = value.encode_to_bytes(version).unwrap();
        kafka_wire_tests::json::views_read(&value, &bytes, version).unwrap();
        let view = Runs::view_in(&bytes[..], version, &mut index).unwrap();
        assert_eq!(view.first(), value.first, "version {version}");
        assert_eq!(view.ids(), *ids, "version {version}");
        let second = view.runs().iter().nth(1).unwrap();
        let expected = &value.runs[1];
        assert_eq!(
            (second.a(), second.b(), second.c(), second.d()),
            (expected.a, expected.b, expected.c, expected.d),
            "version {version}"
        );
        assert_eq!(
            (second.e(), second.f(), second.after(), second.only_tagged()),
            (expected.e, expected.f, expected.after, expected.only_tagged),
            "version {version}"
        );
        // Cut anywhere, the view refuses with decoding's error.
        refused_as_decoding_refuses::<Runs>(&bytes, version, &mut index);
    }
}

/// An element of the arrays below.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-1", flexible = "1+")]
struct Item {
    #[kafka(versions = "0+")]
    id: i32,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Arrays of structs that may be empty, as a field, a nullable field, a tagged field, and the
/// elements of an array.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-1", flexible = "1+")]
struct Arrays {
    #[kafka(versions = "0+")]
    plain: Vec<Item>,
    #[kafka(versions = "0+", nullable = "0+")]
    nullable: Option<Vec<Item>>,
    #[kafka(versions = "0+")]
    nested: Vec<Vec<Item>>,
    #[kafka(versions = "1+", tag = 0, tagged = "1+")]
    tagged: Vec<Item>,
    #[kafka(versions = "0+")]
    last: i32,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

#[test]
fn empty_arrays_of_structs_read_as_decoding_reads_them_wherever_they_are() {
    let items = |ids: &[i32]| -> Vec<Item> {
        ids.iter()
            .map(|&id| Item {
                id,
                ..Item::default()
            })
            .collect()
    };
    let mut index = ViewIndex::new();
    for version in 0..=1 {
        for (plain, nullable, nested, tagged) in [
            (vec![], Some(vec![]), vec![], vec![]),
            (vec![], None, vec![vec![], vec![]], vec![]),
            (
                vec![1],
                Some(vec![]),
                vec![vec![], vec![2, 3], vec![]],
                vec![4],
            ),
            (vec![], Some(vec![5]), vec![vec![6], vec![]], vec![]),
        ] {
            let value = Arrays {
                plain: items(&plain),
                nullable: nullable.as_deref().map(items),
                nested: nested.iter().map(|ids| items(ids)).collect(),
                tagged: if version >= 1 { items(&tagged) } else { vec![] },
                last: -9,
                unknown_tagged_fields: UnknownTaggedFields::default(),
            };
            let bytes = value.encode_to_bytes(version).unwrap();
            kafka_wire_tests::json::views_read(&value, &bytes, version).unwrap();
            let view = Arrays::view_in(&bytes[..], version, &mut index).unwrap();
            let ids = |a: kafka_wire::view::Array<'_, Item>| -> Vec<i32> {
                a.iter().map(|i| i.id()).collect()
            };
            assert_eq!(ids(view.plain()), plain, "version {version}");
            assert_eq!(view.nullable().map(ids), nullable, "version {version}");
            let read: Vec<Vec<i32>> = view.nested().iter().map(ids).collect();
            assert_eq!(read, nested, "version {version}");
            let tagged = if version >= 1 { tagged } else { vec![] };
            assert_eq!(ids(view.tagged()), tagged, "version {version}");
            assert_eq!(view.last(), -9, "version {version}");
            refused_as_decoding_refuses::<Arrays>(&bytes, version, &mut index);
        }
    }
}

/// Strings, bytes and records fields in every place a struct's record can keep them: after the
/// opening run (placed by the struct's start), elsewhere (by where their bytes start and end),
/// nullable, null by default, in only some versions, and tagged.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-3", flexible = "2+")]
struct Blobs {
    #[kafka(versions = "0+")]
    id: i32,
    #[kafka(versions = "0+")]
    first: Bytes,
    #[kafka(versions = "0+", nullable = "0+")]
    maybe: Option<Records>,
    #[kafka(versions = "1+")]
    since_one: Bytes,
    #[kafka(versions = "0+", nullable = "1+")]
    null_since_one: Option<Bytes>,
    #[kafka(versions = "2+", nullable = "2+", default = "null")]
    null_by_default: Option<Bytes>,
    #[kafka(versions = "3+", tag = 0, tagged = "3+")]
    tagged: Bytes,
    #[kafka(versions = "0+")]
    label: KafkaString,
    #[kafka(versions = "1+", nullable = "1+")]
    maybe_label: Option<String>,
    #[kafka(versions = "0+")]
    last: i16,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

#[test]
fn strings_bytes_and_records_read_as_decoding_reads_them_wherever_the_record_keeps_them() {
    let records = |n: usize| Records::from(Bytes::from(vec![0x5a; n]));
    let mut index = ViewIndex::new();
    for version in 0..=3 {
        for (n, null) in [(0, false), (1, true), (130, false), (20_000, true)] {
            let since = |from: i16, b: Bytes| if version >= from { b } else { Bytes::new() };
            let value = Blobs {
                id: 7,
                first: Bytes::from(vec![1; n]),
                maybe: (!null).then(|| records(n)),
                since_one: since(1, Bytes::from(vec![2; n / 2])),
                null_since_one: (!null || version == 0).then(|| Bytes::from(vec![3; n + 1])),
                null_by_default: (!null && version >= 2).then(|| Bytes::from(vec![5; n])),
                tagged: since(3, Bytes::from(vec![4; n])),
                label: KafkaString::from("é".repeat(n / 2)),
                // Not in version 0, where it reads as its default, a value.
                maybe_label: match version {
                    0 => Some(String::new()),
                    _ => (!null).then(|| "x".repeat(n)),
                },
                last: -2,
                unknown_tagged_fields: UnknownTaggedFields::default(),
            };
            let bytes = value.encode_to_bytes(version).unwrap();
            kafka_wire_tests::json::views_read(&value, &bytes, version).unwrap();
            let view = Blobs::view_in(&bytes[..], version, &mut index).unwrap();
            let what = format!("version {version}, {n} bytes");
            assert_eq!(view.first(), &value.first[..], "{what}");
            assert_eq!(
                view.maybe().map(|r| r.len()),
                value.maybe.as_ref().map(|r| r.len()),
                "{what}"
            );
            assert_eq!(view.since_one(), &value.since_one[..], "{what}");
            assert_eq!(
                view.null_since_one(),
                value.null_since_one.as_deref(),
                "{what}"
            );
            assert_eq!(
                view.null_by_default(),
                value.null_by_default.as_deref(),
                "{what}"
            );
            assert_eq!(view.tagged(), &value.tagged[..], "{what}");
            assert_eq!(view.label(), &*value.label, "{what}");
            assert_eq!(view.maybe_label(), value.maybe_label.as_deref(), "{what}");
            assert_eq!((view.id(), view.last()), (7, -2), "{what}");
            if n > 200 {
                continue;
            }
            refused_as_decoding_refuses::<Blobs>(&bytes, version, &mut index);
        }
    }
}

/// A struct its start places: scalars alone, one of them only in later versions, and no tagged
/// field of its own.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-2", flexible = "2+")]
struct Point {
    #[kafka(versions = "0+")]
    x: i32,
    #[kafka(versions = "1+")]
    y: i16,
    #[kafka(versions = "0+")]
    on: bool,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

/// Arrays of [`Point`]: a field and the elements of an array.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0-2", flexible = "2+")]
struct Points {
    #[kafka(versions = "0+")]
    points: Vec<Point>,
    #[kafka(versions = "0+")]
    rows: Vec<Vec<Point>>,
    #[kafka(versions = "0+")]
    last: i32,
    #[kafka(unknown_tagged_fields)]
    unknown_tagged_fields: UnknownTaggedFields,
}

/// An array of structs placed by their start keeps no record per element while every
/// element's tagged section is empty, and a record each once one holds a field: read either
/// way, in order or by `get`, every element is what decoding gives, and every input decoding
/// refuses, a view refuses with its error.
#[test]
fn arrays_of_structs_of_scalars_read_as_decoding_reads_them_with_or_without_tagged_fields() {
    let point = |i: usize, tagged: bool| {
        let mut p = Point {
            x: i as i32 * 1000 - 7,
            y: -(i as i16),
            on: i.is_multiple_of(3),
            unknown_tagged_fields: UnknownTaggedFields::default(),
        };
        if tagged {
            p.unknown_tagged_fields.push(kafka_wire::RawTaggedField {
                tag: 5 + i as u32,
                data: Bytes::from(vec![i as u8; i % 4]),
            });
        }
        p
    };
    let mut index = ViewIndex::new();
    for version in 0..=2i16 {
        // Which elements carry a tagged field (only the flexible version has sections).
        let tagged: [&dyn Fn(usize, usize) -> bool; 5] = [
            &|_, _| false,
            &|i, _| i == 0,
            &|i, n| i == n / 2,
            &|i, n| i + 1 == n,
            &|_, _| true,
        ];
        for (which, is_tagged) in tagged.iter().enumerate() {
            if version < 2 && which > 0 {
                continue;
            }
            for n in [1usize, 2, 5, 40] {
                let points: Vec<Point> = (0..n).map(|i| point(i, is_tagged(i, n))).collect();
                let clear = |mut p: Point| {
                    if version < 1 {
                        p.y = 0;
                    }
                    p
                };
                let value = Points {
                    points: points.iter().cloned().map(clear).collect(),
                    rows: vec![
                        points.iter().cloned().map(clear).rev().collect(),
                        vec![],
                        points.iter().take(2).cloned().map(clear).collect(),
                    ],
                    last: 99,
                    unknown_tagged_fields: UnknownTaggedFields::default(),
                };
                let bytes = value.encode_to_bytes(version).unwrap();
                kafka_wire_tests::json::views_read(&value, &bytes, version).unwrap();
                let what = format!("version {version}, {n} points, tagged {which}");
                let view = Points::view_in(&bytes[..], version, &mut index).unwrap();
                let read = |a: kafka_wire::view::Array<'_, Point>| -> Vec<Point> {
                    let by_get: Vec<Point> = (0..a.len())
                        .map(|i| a.get(i).unwrap().into_owned())
                        .collect();
                    let in_order: Vec<Point> = a.iter().map(|p| p.into_owned()).collect();
                    assert_eq!(by_get, in_order, "{what}");
                    assert!(a.get(a.len()).is_none(), "{what}");
                    in_order
                };
                assert_eq!(read(view.points()), value.points, "{what}");
                let rows: Vec<Vec<Point>> = view.rows().iter().map(read).collect();
                assert_eq!(rows, value.rows, "{what}");
                assert_eq!(view.last(), 99, "{what}");
                if n > 5 {
                    continue;
                }
                refused_as_decoding_refuses::<Points>(&bytes, version, &mut index);
                // Each byte changed in turn: a view opens exactly where decoding accepts, reads
                // what it reads, and refuses with its error.
                for at in 0..bytes.len() {
                    for b in [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff] {
                        let mut changed = bytes.to_vec();
                        changed[at] = b;
                        let changed = Bytes::from(changed);
                        match Points::decode_exact(changed.clone(), version) {
                            Ok(decoded) => {
                                kafka_wire_tests::json::views_read(&decoded, &changed, version)
                                    .unwrap_or_else(|e| panic!("{what}, byte {at} = {b}: {e}"))
                            }
                            Err(e) => assert_eq!(
                                Points::view_in(&changed[..], version, &mut index).unwrap_err(),
                                e,
                                "{what}, byte {at} = {b}"
                            ),
                        }
                    }
                }
            }
        }
    }
}
