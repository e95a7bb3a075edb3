//! Every `#[kafka(...)]` key on one message, and the behaviour each one promises, checked by
//! encoding and decoding at every version.

use kafka_wire::bytes::Bytes;
use kafka_wire::{ApiMessage, Decode, Encode, ErrorKind, KafkaMessage, KafkaString, Message, RawTaggedField, Records, UnknownTaggedFields, Uuid, VersionRange};

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(key = 1000, versions = "0-3", flexible = "2+", view = "EverythingRead")]
pub struct Everything {
    // A classic nullable string in every version, as the request header's client id.
    #[kafka(versions = "0+", nullable = "0+", flexible = "none")]
    pub client_id: Option<KafkaString>,
    #[kafka(versions = "0+")]
    pub id: i32,
    #[kafka(versions = "0+")]
    pub flag: bool,
    #[kafka(versions = "0+")]
    pub ratio: f64,
    #[kafka(versions = "0+")]
    pub topic_id: Uuid,
    #[kafka(versions = "0+", default = 65535)]
    pub port: u16,
    #[kafka(versions = "1+", default = -1)]
    pub epoch: i64,
    #[kafka(versions = "1+", ignorable, default = 7)]
    pub level: i8,
    #[kafka(versions = "1+", default = true)]
    pub enabled: bool,
    #[kafka(versions = "0+", nullable = "1+")]
    pub rack: Option<String>,
    #[kafka(versions = "1+", nullable = "1+", default = "null")]
    pub parent: Option<Child>,
    #[kafka(versions = "0+", nullable = "2+", default = "text")]
    pub label: Option<KafkaString>,
    #[kafka(versions = "0+")]
    pub children: Vec<Child>,
    #[kafka(versions = "0+", nullable = "2+")]
    pub ids: Option<Vec<i32>>,
    #[kafka(versions = "0+")]
    pub payload: Bytes,
    #[kafka(versions = "0+", nullable = "0+")]
    pub records: Option<Records>,
    #[kafka(versions = "2+", tag = 0, tagged = "2+", default = "eu")]
    pub zone: KafkaString,
    // A regular field in version 2 that moves to the tagged section from version 3.
    #[kafka(versions = "2+", tag = 1, tagged = "3+", default = 1.5)]
    pub weight: f64,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
pub struct Child {
    #[kafka(versions = "0+")]
    pub name: String,
    #[kafka(versions = "3+", tag = 0, tagged = "3+")]
    pub note: KafkaString,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// A value every version can carry: what is absent somewhere holds its default.
fn portable() -> Everything {
    Everything {
        client_id: Some(KafkaString::from_static("ab")),
        id: 42,
        flag: true,
        ratio: 0.25,
        topic_id: Uuid::from_u128(7),
        port: 65535,
        epoch: -1,
        level: 7,
        enabled: true,
        rack: Some("r1".to_string()),
        parent: None,
        label: Some(KafkaString::from_static("text")),
        children: vec![Child {
            name: "c".to_string(),
            ..Default::default()
        }],
        ids: Some(vec![1, 2]),
        payload: Bytes::from_static(b"xyz"),
        records: None,
        zone: KafkaString::from_static("eu"),
        weight: 1.5,
        unknown_tagged_fields: UnknownTaggedFields::default(),
    }
}

fn round_trip(value: &Everything, version: i16) -> Everything {
    let bytes = value.encode_to_bytes(version).unwrap();
    assert_eq!(bytes.len(), value.encoded_len(version).unwrap());
    Everything::decode_exact(bytes, version).unwrap()
}

fn main() {
    // `key`, `versions` and `flexible` on the struct.
    assert_eq!(Everything::API_KEY, 1000);
    assert_eq!(Everything::NAME, "Everything");
    assert_eq!(Everything::VERSIONS, VersionRange::new(0, 3));
    assert_eq!(Everything::FLEXIBLE_VERSIONS, VersionRange::new(2, i16::MAX));

    let value = portable();
    for version in 0..=3 {
        assert_eq!(round_trip(&value, version), value, "version {version}");
    }

    // `view` on the struct: the view type's name.
    let mut index = kafka_wire::ViewIndex::new();
    for version in 0..=3 {
        let bytes = value.encode_to_bytes(version).unwrap();
        let read: EverythingRead<'_> =
            <Everything as kafka_wire::View>::view_in(&bytes, version, &mut index).unwrap();
        assert_eq!(read.id(), value.id);
        assert_eq!(read.into_owned(), value, "version {version}");
    }
    assert!(value.encode_to_bytes(4).is_err());

    // `flexible = "none"` on a field: a classic string (int16 length) even in flexible versions.
    for version in 0..=3 {
        let bytes = value.encode_to_bytes(version).unwrap();
        assert_eq!(&bytes[..4], &[0x00, 0x02, b'a', b'b'], "version {version}");
    }

    // `ignorable`: dropped where absent; decoding gives the `default`.
    let mut v = portable();
    v.level = 3;
    assert_eq!(round_trip(&v, 0).level, 7);
    assert_eq!(round_trip(&v, 1).level, 3);

    // Not ignorable: a non-default value in a version that lacks the field is an error of
    // `encode`. Sizing leaves the field out, as version 0 does, and does not fail.
    let mut v = portable();
    v.epoch = 5;
    let err = v.encode_to_bytes(0).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::NonDefaultField { version: 0 });
    assert_eq!(err.path(), "Everything.epoch");
    assert_eq!(v.encoded_len(0).unwrap(), portable().encoded_len(0).unwrap());
    assert_eq!(round_trip(&v, 1).epoch, 5);

    // `nullable`: a null only where the field is nullable.
    let mut v = portable();
    v.rack = None;
    assert!(v.encode_to_bytes(0).is_err());
    assert_eq!(round_trip(&v, 1).rack, None);
    v.ids = None;
    assert!(v.encode_to_bytes(1).is_err());
    assert_eq!(round_trip(&v, 2).ids, None);

    // `default = "null"`: absent at version 0, so decoding gives `None`.
    let mut v = portable();
    v.parent = Some(Child {
        name: "p".to_string(),
        ..Default::default()
    });
    assert!(v.encode_to_bytes(0).is_err());
    assert_eq!(round_trip(&v, 1), v);

    // `tag` / `tagged`: written only when not at the default, so a default costs nothing.
    let base = value.encode_to_bytes(3).unwrap().len();
    let mut v = portable();
    v.zone = KafkaString::from_static("us");
    v.weight = 2.0;
    v.children[0].note = KafkaString::from_static("n");
    assert!(v.encode_to_bytes(3).unwrap().len() > base);
    assert_eq!(round_trip(&v, 3), v);
    // Version 2 has the zone tagged and the weight regular, and no `note`; version 1 has
    // none of them.
    assert!(v.encode_to_bytes(2).is_err());
    v.children[0].note = KafkaString::default();
    assert_eq!(round_trip(&v, 2), v);
    assert!(v.encode_to_bytes(1).is_err());

    // `unknown_tagged_fields`: unknown tags survive a round trip.
    let mut v = portable();
    v.unknown_tagged_fields.push(RawTaggedField {
        tag: 9,
        data: Bytes::from_static(&[1, 2, 3]),
    });
    assert_eq!(round_trip(&v, 3), v);
}
