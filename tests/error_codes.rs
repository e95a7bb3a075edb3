//! `kafka_wire::ErrorCode` against two statements of Kafka's error codes that we did not derive
//! from it: `error_codes/kafka-4.4.tsv`, written by hand from Kafka's sources (its header names
//! the commits), and the `kafka-protocol` crate's `ResponseError`, written by other people.

use std::collections::BTreeSet;

use kafka_protocol::error::ResponseError;
use kafka_wire::ErrorCode;

const TABLE: &str = include_str!("error_codes/kafka-4.4.tsv");

struct Row {
    code: i16,
    name: &'static str,
    retriable: bool,
}

fn rows() -> Vec<Row> {
    TABLE
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let [code, name, retriable] = fields[..] else {
                panic!("not three tab-separated fields: {line:?}");
            };
            Row {
                code: code.parse().expect("the code is an i16"),
                name,
                retriable: match retriable {
                    "true" => true,
                    "false" => false,
                    other => panic!("retriable is `true` or `false`, not {other:?}"),
                },
            }
        })
        .collect()
}

#[test]
fn every_code_in_the_table_has_its_name_and_retriability() {
    let rows = rows();
    assert_eq!(rows.len(), 137, "codes -1 to 135, NONE included");
    for row in &rows {
        let code = ErrorCode::new(row.code);
        assert_eq!(code.name(), Some(row.name), "code {}", row.code);
        assert_eq!(code.is_retriable(), row.retriable, "{}", row.name);
        assert_eq!(ErrorCode::from_name(row.name), Some(code), "{}", row.name);
    }
}

#[test]
fn error_code_knows_nothing_the_table_does_not() {
    let table: BTreeSet<i16> = rows().iter().map(|r| r.code).collect();
    let known: BTreeSet<i16> = ErrorCode::known().map(ErrorCode::code).collect();
    assert_eq!(known, table);
    for code in i16::MIN..=i16::MAX {
        assert_eq!(
            ErrorCode::new(code).is_known(),
            table.contains(&code),
            "code {code}"
        );
    }
}

/// `NotLeaderOrFollower` -> `NOT_LEADER_OR_FOLLOWER`.
fn upper_snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

#[test]
fn kafka_protocol_crate_agrees() {
    // Kafka made ConcurrentTransactionsException a RetriableException after kafka-protocol
    // 0.18 wrote its table; Kafka's source is the authority (see the table's header).
    let newer_in_kafka = [ErrorCode::CONCURRENT_TRANSACTIONS];
    let mut compared = 0;
    for code in ErrorCode::known() {
        // `try_from_code` reads 0 as "no error" and anything it does not name as `Unknown`.
        let Some(theirs) = ResponseError::try_from_code(code.code()) else {
            assert_eq!(code, ErrorCode::NONE);
            continue;
        };
        if let ResponseError::Unknown(_) = theirs {
            // Codes newer than kafka-protocol 0.18, which knows Kafka up to 4.1.
            assert!(code.code() > 133, "kafka-protocol does not know {code:?}");
            continue;
        }
        assert_eq!(theirs.code(), code.code());
        assert_eq!(
            Some(upper_snake(&format!("{theirs:?}")).as_str()),
            code.name()
        );
        if !newer_in_kafka.contains(&code) {
            assert_eq!(theirs.is_retriable(), code.is_retriable(), "{code:?}");
        } else {
            assert_ne!(
                theirs.is_retriable(),
                code.is_retriable(),
                "{code:?} no longer differs"
            );
        }
        compared += 1;
    }
    assert_eq!(compared, 134, "codes -1 and 1 to 133");
}
