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
        "#[kafka(crate = \"kw\")]\n    pub struct Handler {",
        "#[kafka(versions = \"1+\", tag = 0, tagged = \"1+\", default = -1)]",
        "#[derive(Debug, Clone, PartialEq, kw::ApiSet)]\n#[kafka(crate = \"kw\", requests, response_set = Responses)]",
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
