//! The generator for a user's schemas: what it writes for a renamed dependency, with sets.

use kafka_wire_codegen::Generator;
use std::path::Path;

fn schemas() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/custom-api/schemas"
    ))
}

#[test]
fn writes_messages_and_sets_that_name_the_renamed_crate() {
    let out = std::env::temp_dir().join(format!("kafka-wire-codegen-test-{}", std::process::id()));
    let generated = Generator::new()
        .schema_dir(schemas())
        .out_dir(&out)
        .file_name("kw_messages.rs")
        .crate_path("kw")
        .api_sets("Requests", "Responses")
        .kafka_api("ApiVersions")
        .rustfmt(false)
        .generate()
        .unwrap();
    assert_eq!(generated.messages, ["PingRequest", "PingResponse"]);
    let text = std::fs::read_to_string(&generated.path).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    for expected in [
        "pub mod ping_request {",
        "use kw::bytes::Bytes;",
        "use kw::{KafkaMessage, KafkaString, UnknownTaggedFields};",
        "#[kafka(crate = \"kw\", key = 1000, versions = \"0-1\", flexible = \"1+\")]",
        // The nested struct names the crate too.
        "#[kafka(crate = \"kw\")]\n    #[non_exhaustive]\n    pub struct Handler {",
        // A user's own set stays exhaustive: its APIs change only when the user adds one.
        "#[derive(Debug, Clone, PartialEq, kw::ApiSet)]\n#[kafka(crate = \"kw\", requests, response_set = Responses)]\npub enum Requests {",
        "#[kafka(versions = \"1+\", tag = 0, tagged = \"1+\", default = -1)]",
        "    Ping(PingRequest),",
        "    #[kafka(header_v0 = \"0+\")]\n    ApiVersions(kw::messages::ApiVersionsResponse),",
        "pub use self::ping_response::PingResponse;",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(!text.contains("kafka_wire"), "{text}");
}

#[test]
fn a_request_without_its_response_is_an_error() {
    let dir = std::env::temp_dir().join(format!("kafka-wire-codegen-lone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        schemas().join("PingRequest.json"),
        dir.join("PingRequest.json"),
    )
    .unwrap();
    let err = Generator::new()
        .schema_dir(&dir)
        .out_dir(&dir)
        .api_sets("Requests", "Responses")
        .rustfmt(false)
        .generate()
        .unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        err.to_string(),
        "PingRequest: no response schema with apiKey 1000"
    );
}

/// A folder holding one request schema with these fields, for the generator's checks.
fn one_schema(test: &str, fields: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("kafka-wire-codegen-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("EchoRequest.json"),
        format!(
            r#"{{ "apiKey": 1001, "type": "request", "name": "EchoRequest",
                 "validVersions": "0-2", "flexibleVersions": "1+", "fields": [ {fields} ] }}"#
        ),
    )
    .unwrap();
    dir
}

fn generate_in(dir: &Path) -> Result<String, String> {
    let generated = Generator::new()
        .schema_dir(dir)
        .out_dir(dir)
        .rustfmt(false)
        .generate();
    let text = generated.map(|g| std::fs::read_to_string(g.path).unwrap());
    std::fs::remove_dir_all(dir).unwrap();
    text.map_err(|e| e.to_string())
}

#[test]
fn ranges_reaching_the_newest_version_stay_open() {
    let dir = one_schema(
        "open",
        r#"{ "name": "Seq", "type": "int32", "versions": "0+" },
           { "name": "Old", "type": "int32", "versions": "0-1" },
           { "name": "Note", "type": "string", "versions": "1+", "nullableVersions": "2+" }"#,
    );
    let text = generate_in(&dir).unwrap();
    for expected in [
        "#[kafka(key = 1001, versions = \"0-2\", flexible = \"1+\")]",
        "#[kafka(versions = \"0+\")]\n        pub seq: i32,",
        "#[kafka(versions = \"0-1\")]\n        pub old: i32,",
        "#[kafka(versions = \"1+\", nullable = \"2+\")]\n        pub note: Option<KafkaString>,",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn a_null_default_needs_the_field_nullable_wherever_it_exists() {
    let dir = one_schema(
        "null",
        r#"{ "name": "Note", "type": "string", "versions": "0+", "nullableVersions": "1+",
             "default": "null" }"#,
    );
    assert_eq!(
        generate_in(&dir).unwrap_err(),
        "EchoRequest.EchoRequest.Note: default `null` but nullable in versions 1+ of 0+"
    );
}

#[test]
fn a_set_name_that_is_not_an_identifier_is_an_error() {
    let err = Generator::new()
        .schema_dir(schemas())
        .out_dir(std::env::temp_dir())
        .api_sets("My Requests", "Responses")
        .rustfmt(false)
        .generate()
        .unwrap_err();
    assert_eq!(err.to_string(), "`My Requests` is not a Rust identifier");
}

#[test]
fn names_rust_cannot_take_as_they_are_are_qualified_renamed_or_numbered() {
    let dir = one_schema(
        "names",
        r#"{ "name": "Boxes", "type": "[]Box", "versions": "0+",
             "fields": [ { "name": "Size", "type": "int16", "versions": "0+" } ] },
           { "name": "Maybe", "type": "Option", "versions": "0+", "nullableVersions": "0+",
             "fields": [ { "name": "A", "type": "int8", "versions": "0+" } ] },
           { "name": "Me", "type": "Self", "versions": "0+",
             "fields": [ { "name": "B", "type": "int8", "versions": "0+" } ] },
           { "name": "Echo", "type": "EchoRequest", "versions": "0+",
             "fields": [ { "name": "C", "type": "int8", "versions": "0+" } ] },
           { "name": "ISRTopic", "type": "int32", "versions": "0+" },
           { "name": "IsrTopic", "type": "int32", "versions": "0+" },
           { "name": "UnknownTaggedFields", "type": "int32", "versions": "0+" }"#,
    );
    let text = generate_in(&dir).unwrap();
    for expected in [
        // `Box` and `Option` are structs here, and `Option` shadows Rust's, which is then
        // written with its path; `Vec` is Rust's.
        "pub boxes: Vec<self::Box>,",
        "pub maybe: ::core::option::Option<self::Option>,",
        "pub me: SelfStruct,",
        "pub struct SelfStruct {",
        "pub echo: EchoRequestStruct,",
        "pub struct EchoRequestStruct {",
        "json_name = \"iSRTopic\")]\n        pub isr_topic: i32,",
        "json_name = \"isrTopic\")]\n        pub isr_topic_2: i32,",
        "pub unknown_tagged_fields_2: i32,",
        "impl Default for EchoRequest {",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn an_unstable_version_reserves_the_tags_only_it_uses() {
    let dir = std::env::temp_dir().join(format!(
        "kafka-wire-codegen-unstable-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("GapRequest.json"),
        r#"{ "apiKey": 1002, "type": "request", "name": "GapRequest", "validVersions": "0-1",
             "flexibleVersions": "0+", "latestVersionUnstable": true, "fields": [
             { "name": "Added", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": 0 },
             { "name": "Kept", "type": "int32", "versions": "0+", "taggedVersions": "0+", "tag": 1 }
           ] }"#,
    )
    .unwrap();
    let text = generate_in(&dir).unwrap();
    assert!(
        text.contains(
            "#[kafka(key = 1002, versions = \"0\", flexible = \"0+\", reserved_tags = \"0\")]"
        ),
        "{text}"
    );
}

#[test]
fn a_tagged_field_of_a_struct_that_ends_early_keeps_open_ranges() {
    let dir = one_schema(
        "ends-early",
        r#"{ "name": "S", "type": "Inner", "versions": "1",
             "fields": [ { "name": "T", "type": "int32", "versions": "0+",
                           "taggedVersions": "1+", "tag": 0 },
                         { "name": "U", "type": "int32", "versions": "0+" } ] }"#,
    );
    let text = generate_in(&dir).unwrap();
    for expected in [
        "#[kafka(versions = \"1+\", tag = 0, tagged = \"1+\")]\n        pub t: i32,",
        // An untagged field keeps the range the versions give it.
        "#[kafka(versions = \"1\")]\n        pub u: i32,",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

#[test]
fn uuid_and_empty_defaults_are_read_as_kafka_reads_them() {
    let dir = one_schema(
        "defaults",
        r#"{ "name": "Id", "type": "uuid", "versions": "0+", "default": "AAAAAAAAAAAAAAAAAAAAAQ" },
           { "name": "Names", "type": "[]string", "versions": "0+", "nullableVersions": "0+",
             "default": "" }"#,
    );
    let text = generate_in(&dir).unwrap();
    for expected in [
        "#[kafka(versions = \"0+\", default = \"AAAAAAAAAAAAAAAAAAAAAQ\")]\n        pub id: Uuid,",
        "id: Uuid::from_u128(1),",
        "#[kafka(versions = \"0+\", nullable = \"0+\")]\n        pub names: Option<Vec<KafkaString>>,",
        "names: Some(Default::default()),",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    let dir = one_schema(
        "bad-uuid",
        r#"{ "name": "Id", "type": "uuid", "versions": "0+", "default": "not-a-uuid" }"#,
    );
    let err = generate_in(&dir).unwrap_err();
    assert!(
        err.ends_with("EchoRequest.json: EchoRequest.Id: default `not-a-uuid` does not fit `uuid`"),
        "{err}"
    );
}
