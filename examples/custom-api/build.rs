//! Generates the Ping messages from `schemas/` and the crate's API sets, with Kafka's
//! ApiVersions beside Ping, into `$OUT_DIR/messages.rs`.

fn main() -> Result<(), kafka_wire_codegen::Error> {
    kafka_wire_codegen::Generator::new()
        .schema_dir("schemas")
        .api_sets("Requests", "Responses")
        .kafka_api("ApiVersions")
        .generate()?;
    Ok(())
}
