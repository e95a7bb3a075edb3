use super::{ErrorCode, TABLE};

#[test]
fn table_is_sorted_by_code_without_repeats() {
    for pair in TABLE.windows(2) {
        assert!(
            pair[0].code < pair[1].code,
            "{:?} before {:?}",
            pair[0].code,
            pair[1].code
        );
    }
}

#[test]
fn names_are_unique_and_in_kafkas_spelling() {
    for e in TABLE {
        assert!(
            e.name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'),
            "{}",
            e.name
        );
        assert_eq!(
            TABLE.iter().filter(|o| o.name == e.name).count(),
            1,
            "{}",
            e.name
        );
        assert_eq!(ErrorCode::from_name(e.name), Some(e.code));
    }
}

#[test]
fn descriptions_read_as_clauses() {
    // They follow a name and a colon in `Display`, so they start in lower case (or with a
    // proper noun) and end without a full stop.
    for e in TABLE {
        let first = e.description.chars().next().unwrap_or(' ');
        assert!(
            first.is_lowercase() || e.description.starts_with("SASL"),
            "{}",
            e.name
        );
        assert!(!e.description.ends_with('.'), "{}", e.name);
    }
}

#[test]
fn every_i16_survives_the_round_trip() {
    for code in i16::MIN..=i16::MAX {
        let e = ErrorCode::from(code);
        assert_eq!(i16::from(e), code);
        assert_eq!(e, code);
        assert_eq!(e.is_known(), e.name().is_some());
        assert_eq!(e.is_known(), e.description().is_some());
        assert!(e.is_known() || !e.is_retriable());
        assert_eq!(e.is_ok(), code == 0);
        assert_eq!(e.as_result().is_err(), e.is_error());
    }
}

#[test]
fn known_codes_are_the_table() {
    assert_eq!(ErrorCode::known().len(), TABLE.len());
    assert!(ErrorCode::known().all(ErrorCode::is_known));
    assert_eq!(
        ErrorCode::known().next(),
        Some(ErrorCode::UNKNOWN_SERVER_ERROR)
    );
    assert_eq!(ErrorCode::known().filter(|c| c.is_ok()).count(), 1);
}

#[test]
fn constants_are_patterns() {
    let describe = |code: i16| match ErrorCode::from(code) {
        ErrorCode::NONE => "ok",
        ErrorCode::NOT_COORDINATOR | ErrorCode::COORDINATOR_NOT_AVAILABLE => "find coordinator",
        c if c.is_retriable() => "retry",
        _ => "fail",
    };
    assert_eq!(
        [0, 16, 15, 6, 90, 30_000].map(describe),
        [
            "ok",
            "find coordinator",
            "find coordinator",
            "retry",
            "fail",
            "fail"
        ]
    );
}

#[test]
fn display_and_debug() {
    assert_eq!(
        ErrorCode::NOT_COORDINATOR.to_string(),
        "NOT_COORDINATOR (16): this broker is not the coordinator of the group or transactional id"
    );
    assert_eq!(
        format!("{:?}", ErrorCode::NOT_COORDINATOR),
        "NOT_COORDINATOR(16)"
    );
    assert_eq!(
        format!("{:?}", ErrorCode::UNKNOWN_SERVER_ERROR),
        "UNKNOWN_SERVER_ERROR(-1)"
    );
    assert_eq!(format!("{:?}", ErrorCode::new(30_000)), "ErrorCode(30000)");
    assert_eq!(
        ErrorCode::new(-2).to_string(),
        "error code -2, which Kafka 4.4 does not define"
    );
}

#[test]
fn default_is_none() {
    assert_eq!(ErrorCode::default(), ErrorCode::NONE);
}
