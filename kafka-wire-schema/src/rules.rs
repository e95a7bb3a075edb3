//! Rules of Kafka's message schemas that the derive and the generator both apply, each written
//! once here.

use crate::VersionRange;

/// A field's name in Kafka's JSON form: its schema name with the first letter in lower case
/// (`ProducerId` is `producerId`, `TopicID` is `topicID`).
pub fn kafka_json_name(schema_name: &str) -> String {
    let mut chars = schema_name.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The JSON name of a field that does not give one: its Rust name, in snake case, in camel
/// case (`producer_id` is `producerId`). For every field of Kafka's own schemas this is
/// [`kafka_json_name`] of the schema name; where it is not, the generator writes the schema's.
pub fn camel_case(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' && !out.is_empty() {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Kafka's text form of a uuid, as schemas write a uuid's default: its 16 bytes in URL-safe
/// base64, 22 characters, with or without the two `=` of padding. The 4 bits the last
/// character has to spare are ignored, as Java's decoder, which reads these defaults, ignores
/// them.
pub fn uuid_from_text(text: &str) -> Option<u128> {
    let digits = text.strip_suffix("==").unwrap_or(text);
    if digits.len() != 22 {
        return None;
    }
    let mut bits: u128 = 0;
    for (i, c) in digits.bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        // 21 whole characters give 126 bits; the last gives its top 2.
        bits = if i < 21 {
            (bits << 6) | u128::from(v)
        } else {
            (bits << 2) | u128::from(v >> 4)
        };
    }
    Some(bits)
}

/// A field whose default is null must be nullable in every version it exists in: a version
/// without the field holds the default, and a version where it exists must be able to carry it.
pub fn null_default_fits(versions: VersionRange, nullable: VersionRange) -> bool {
    versions.within(nullable)
}

/// Kafka numbers a struct's tags 0, 1, 2, ... without gaps. The first break in `tags` (in any
/// order, repeats allowed): the tag expected and the one found in its place.
pub fn first_tag_gap(tags: impl IntoIterator<Item = u32>) -> Option<(u32, u32)> {
    let mut tags: Vec<u32> = tags.into_iter().collect();
    tags.sort_unstable();
    tags.dedup();
    (0u32..).zip(tags).find(|(expected, tag)| expected != tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names() {
        assert_eq!(kafka_json_name("TopicID"), "topicID");
        assert_eq!(camel_case("topic_id"), "topicId");
        assert_eq!(kafka_json_name("ProducerId"), camel_case("producer_id"));
        assert_eq!(camel_case("type"), "type");
    }

    #[test]
    fn uuid_text() {
        assert_eq!(uuid_from_text("AAAAAAAAAAAAAAAAAAAAAQ"), Some(1));
        assert_eq!(uuid_from_text("AAAAAAAAAAAAAAAAAAAAAQ=="), Some(1));
        assert_eq!(uuid_from_text("_____________________w"), Some(u128::MAX));
        assert_eq!(uuid_from_text("AAAAAAAAAAAAAAAAAAAAA"), None);
        assert_eq!(uuid_from_text("AAAAAAAAAAAAAAAAAAAAA+"), None);
        assert_eq!(uuid_from_text("00000000-0000-0000-0000-000000000001"), None);
    }

    #[test]
    fn tag_gaps() {
        assert_eq!(first_tag_gap([]), None);
        assert_eq!(first_tag_gap([1, 0, 2, 1]), None);
        assert_eq!(first_tag_gap([0, 2]), Some((1, 2)));
        assert_eq!(first_tag_gap([3]), Some((0, 3)));
    }

    #[test]
    fn null_defaults() {
        let r = |s: &str| s.parse::<VersionRange>().unwrap();
        assert!(null_default_fits(r("1+"), r("0+")));
        assert!(!null_default_fits(r("0+"), r("1+")));
    }
}
