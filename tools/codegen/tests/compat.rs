//! Each kind of change the compatibility check reports, on small schema pairs written here.

use kafka_wire_codegen::compat::{compare, compare_sets, Change, Finding, Severity};
use kafka_wire_codegen::schema::{Schema, VersionRange};

/// A request schema of API key 1000 with these versions, flexible versions and fields.
fn schema(valid: &str, flexible: &str, fields: &str) -> Schema {
    Schema::parse(&format!(
        r#"{{ "apiKey": 1000, "type": "request", "name": "PingRequest",
             "validVersions": "{valid}", "flexibleVersions": "{flexible}",
             "fields": [ {fields} ] }}"#
    ))
    .unwrap()
}

const BASE: &str = r#"
    { "name": "Seq", "type": "int32", "versions": "0+" },
    { "name": "Origin", "type": "string", "versions": "0+", "nullableVersions": "1+" },
    { "name": "Peers", "type": "[]Peer", "versions": "1+", "fields": [
        { "name": "Id", "type": "int32", "versions": "0+" },
        { "name": "Zone", "type": "string", "versions": "2+", "taggedVersions": "2+", "tag": 0 }
    ]}"#;

fn v(text: &str) -> VersionRange {
    text.parse::<VersionRange>().unwrap()
}

/// The findings from BASE (versions 0-2, flexible 2+) to `new`.
fn changes(valid: &str, flexible: &str, new: &str) -> Vec<Finding> {
    compare(&schema("0-2", "2+", BASE), &schema(valid, flexible, new))
}

fn one(findings: &[Finding]) -> (&str, VersionRange, &Change) {
    assert_eq!(findings.len(), 1, "{findings:#?}");
    let f = &findings[0];
    (f.path.as_str(), f.versions, &f.change)
}

#[test]
fn the_same_schema_has_no_findings() {
    assert_eq!(changes("0-2", "2+", BASE), []);
}

#[test]
fn a_field_added_to_an_existing_version_breaks() {
    let new = BASE.replace(
        r#"{ "name": "Seq", "type": "int32", "versions": "0+" },"#,
        r#"{ "name": "Seq", "type": "int32", "versions": "0+" },
           { "name": "Epoch", "type": "int32", "versions": "1+" },"#,
    );
    let found = changes("0-2", "2+", &new);
    let (path, versions, change) = one(&found);
    assert_eq!((path, versions), ("PingRequest", v("1-2")));
    assert_eq!(
        change,
        &Change::FieldAdded {
            field: "Epoch".into()
        }
    );
    assert_eq!(found[0].severity(), Severity::Breaking);
    assert_eq!(
        found[0].to_string(),
        "breaking PingRequest v1-2: field `Epoch` added"
    );
}

#[test]
fn a_field_removed_from_an_existing_version_breaks() {
    let new = BASE.replace(
        r#""name": "Id", "type": "int32", "versions": "0+""#,
        r#""name": "Id", "type": "int32", "versions": "0-1""#,
    );
    let found = changes("0-2", "2+", &new);
    let (path, versions, change) = one(&found);
    assert_eq!((path, versions), ("PingRequest.Peers", v("2")));
    assert_eq!(change, &Change::FieldRemoved { field: "Id".into() });
}

#[test]
fn a_retyped_field_breaks() {
    let new = BASE.replace(
        r#""name": "Seq", "type": "int32""#,
        r#""name": "Seq", "type": "int64""#,
    );
    let found = changes("0-2", "2+", &new);
    let (_, versions, change) = one(&found);
    assert_eq!(versions, v("0-2"));
    assert_eq!(
        change,
        &Change::FieldRetyped {
            field: "Seq".into(),
            old: "int32".into(),
            new: "int64".into()
        }
    );
}

#[test]
fn a_changed_tag_breaks() {
    let new = BASE.replace(r#""tag": 0"#, r#""tag": 1"#);
    let found = changes("0-2", "2+", &new);
    let (path, versions, change) = one(&found);
    assert_eq!((path, versions), ("PingRequest.Peers", v("2")));
    assert_eq!(
        change,
        &Change::TagChanged {
            field: "Zone".into(),
            old: Some(0),
            new: Some(1)
        }
    );

    // Untagged: the field moves from the tagged section into the regular fields.
    let new = BASE.replace(r#", "taggedVersions": "2+", "tag": 0"#, "");
    let found = changes("0-2", "2+", &new);
    assert_eq!(
        one(&found).2,
        &Change::TagChanged {
            field: "Zone".into(),
            old: Some(0),
            new: None
        }
    );
}

#[test]
fn narrowed_and_widened_nullability_break() {
    let new = BASE.replace(r#""nullableVersions": "1+""#, r#""nullableVersions": "2+""#);
    let found = changes("0-2", "2+", &new);
    let (_, versions, change) = one(&found);
    assert_eq!(versions, v("1"));
    assert_eq!(
        change,
        &Change::NullableNarrowed {
            field: "Origin".into()
        }
    );

    let new = BASE.replace(r#""nullableVersions": "1+""#, r#""nullableVersions": "0+""#);
    let found = changes("0-2", "2+", &new);
    assert_eq!(
        one(&found).2,
        &Change::NullableWidened {
            field: "Origin".into()
        }
    );
}

#[test]
fn changed_flexible_versions_break() {
    // Version 2 is no longer flexible: its tagged section is gone with it.
    let found = changes("0-2", "3+", BASE);
    assert!(
        found.iter().any(|f| f.versions == v("2")
            && f.change
                == Change::FlexibleChanged {
                    old: true,
                    new: false
                }),
        "{found:#?}"
    );
    assert!(found.iter().all(|f| f.severity() == Severity::Breaking));
}

#[test]
fn removed_versions_are_removals_not_breaks() {
    let found = changes("1-3", "2+", BASE);
    let (_, versions, change) = one(&found);
    assert_eq!(versions, v("0"));
    assert_eq!(change, &Change::VersionsRemoved { versions: v("0") });
    assert_eq!(found[0].severity(), Severity::Removal);
    assert_eq!(
        found[0].to_string(),
        "removal  PingRequest: versions 0 removed"
    );
}

#[test]
fn moved_fields_break() {
    let new = r#"
        { "name": "Origin", "type": "string", "versions": "0+", "nullableVersions": "1+" },
        { "name": "Seq", "type": "int32", "versions": "0+" },
        { "name": "Peers", "type": "[]Peer", "versions": "1+", "fields": [
            { "name": "Id", "type": "int32", "versions": "0+" },
            { "name": "Zone", "type": "string", "versions": "2+", "taggedVersions": "2+", "tag": 0 }
        ]}"#;
    let found = changes("0-2", "2+", new);
    assert!(
        found
            .iter()
            .all(|f| matches!(f.change, Change::FieldMoved { .. })),
        "{found:#?}"
    );
    assert!(!found.is_empty());
}

#[test]
fn renames_and_tagged_fields_keep_the_bytes() {
    let new = BASE
        .replace(r#""name": "Seq""#, r#""name": "Sequence""#)
        .replace(r#""type": "[]Peer""#, r#""type": "[]Node""#)
        .replace(
            r#""tag": 0 }"#,
            r#""tag": 0 },
               { "name": "Rack", "type": "string", "versions": "2+", "taggedVersions": "2+", "tag": 1 }"#,
        );
    let found = changes("0-2", "2+", &new);
    let kinds: Vec<&Change> = found.iter().map(|f| &f.change).collect();
    assert!(kinds.contains(&&Change::FieldRenamed {
        old: "Seq".into(),
        new: "Sequence".into()
    }));
    assert!(kinds.contains(&&Change::StructRenamed {
        old: "Peer".into(),
        new: "Node".into()
    }));
    assert!(kinds.contains(&&Change::TaggedFieldAdded {
        field: "Rack".into(),
        tag: 1
    }));
    assert!(
        found.iter().all(|f| f.severity() == Severity::Note),
        "{found:#?}"
    );
}

#[test]
fn sets_pair_apis_by_key_and_report_removed_messages() {
    let old = vec![schema("0-2", "2+", BASE)];
    let mut renamed = schema("0-2", "2+", BASE);
    renamed.name = "EchoRequest".into();
    let found = compare_sets(&old, std::slice::from_ref(&renamed));
    assert_eq!(
        one(&found).2,
        &Change::MessageRenamed {
            old: "PingRequest".into()
        }
    );
    let found = compare_sets(&old, &[]);
    assert_eq!(one(&found).2, &Change::MessageRemoved);
    assert_eq!(found[0].severity(), Severity::Removal);
}

#[test]
fn an_unstable_version_is_not_compared() {
    let mut old = schema("0-3", "2+", BASE);
    old.latest_unstable = true;
    let new_fields = BASE.replace(
        r#"{ "name": "Seq", "type": "int32", "versions": "0+" },"#,
        r#"{ "name": "Seq", "type": "int32", "versions": "0+" },
           { "name": "Epoch", "type": "int32", "versions": "3+" },"#,
    );
    assert_eq!(compare(&old, &schema("0-3", "2+", &new_fields)), []);
}
