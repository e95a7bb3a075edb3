//! Version ranges: `"0-3"`, `"2+"`, `"1"` and `"none"`, as Kafka's schemas write them.

use core::fmt;
use core::str::FromStr;

/// An inclusive range of protocol versions, or the empty range `none`.
///
/// An open range (`"2+"`) holds every version from its start on: `end` is `i16::MAX`, the
/// highest version the protocol can name. It is the one range type of kafka-wire: the derive
/// reads attributes into it, the generator reads schemas into it, and messages report their
/// versions with it.
///
/// ```
/// use kafka_wire_schema::VersionRange;
///
/// let flexible: VersionRange = "1+".parse()?;
/// assert!(flexible.contains(2) && !flexible.contains(0));
/// assert_eq!(flexible, VersionRange::new(1, i16::MAX));
/// assert_eq!(flexible.to_string(), "1+");
/// assert!(VersionRange::NONE.is_empty());
/// assert_eq!("3-1".parse::<VersionRange>().unwrap_err().to_string(),
///     "invalid version range `3-1`: start is greater than end");
/// # Ok::<(), kafka_wire_schema::ParseVersionRangeError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VersionRange {
    // Ranges order by first version, then by last (an open range after every closed one with
    // the same start); the empty range, (0, -1), comes first.
    start: i16,
    end: i16,
}

impl VersionRange {
    /// The empty range, written `none`.
    pub const NONE: VersionRange = VersionRange { start: 0, end: -1 };

    /// Every version, `"0+"`.
    pub const ALL: VersionRange = VersionRange {
        start: 0,
        end: i16::MAX,
    };

    /// Every version from `start` to `end`, both included. An `end` below `start` gives the
    /// empty range.
    pub const fn new(start: i16, end: i16) -> Self {
        if end < start {
            Self::NONE
        } else {
            VersionRange { start, end }
        }
    }

    /// `start` and every version after it: `"2+"`.
    pub const fn open(start: i16) -> Self {
        Self::new(start, i16::MAX)
    }

    /// The lowest version in the range, `None` for an empty range.
    pub const fn start(self) -> Option<i16> {
        if self.is_empty() {
            None
        } else {
            Some(self.start)
        }
    }

    /// The highest version in the range, `None` for an empty range; `i16::MAX` for an open
    /// one.
    pub const fn end(self) -> Option<i16> {
        if self.is_empty() {
            None
        } else {
            Some(self.end)
        }
    }

    /// True when the range holds no version.
    pub const fn is_empty(self) -> bool {
        self.end < self.start
    }

    /// True when `version` lies in the range.
    #[inline]
    pub const fn contains(self, version: i16) -> bool {
        version >= self.start && version <= self.end
    }

    /// True when the range is open towards newer versions (`"2+"`).
    pub const fn is_open(self) -> bool {
        !self.is_empty() && self.end == i16::MAX
    }

    /// The versions in both ranges.
    pub const fn intersect(self, other: VersionRange) -> VersionRange {
        let start = if self.start > other.start {
            self.start
        } else {
            other.start
        };
        let end = if self.end < other.end {
            self.end
        } else {
            other.end
        };
        VersionRange::new(start, end)
    }

    /// True when every version of `self` is in `other` (the empty range is in every range).
    pub const fn within(self, other: VersionRange) -> bool {
        self.is_empty() || (self.start >= other.start && self.end <= other.end)
    }

    /// The versions of `self` before `version`.
    pub const fn before(self, version: i16) -> VersionRange {
        self.intersect(VersionRange::new(0, version.saturating_sub(1)))
    }

    /// The versions of `self` up to `last`, both included: the versions of it that exist so
    /// far when `last` is the newest.
    pub const fn up_to(self, last: i16) -> VersionRange {
        self.intersect(VersionRange::new(0, last))
    }

    /// The range opened when it reaches `last`, the newest version known: what holds up to
    /// the newest version holds in the versions to come, as the schemas write it (`0+`).
    pub const fn opened_at(self, last: i16) -> VersionRange {
        if !self.is_empty() && self.end >= last {
            Self::open(self.start)
        } else {
            self
        }
    }

    /// The range holding exactly `versions`, given in ascending order; an error naming them
    /// when they leave a gap, which no range can hold.
    pub fn spanning(versions: impl IntoIterator<Item = i16>) -> Result<VersionRange, Gap> {
        let mut range = VersionRange::NONE;
        for v in versions {
            match range.end() {
                None => range = VersionRange::new(v, v),
                Some(end) if end.checked_add(1) == Some(v) => range.end = v,
                Some(end) => {
                    return Err(Gap {
                        after: end,
                        next: v,
                    })
                }
            }
        }
        Ok(range)
    }

    /// The versions of the range, in order (an open one runs to `i16::MAX`).
    pub fn iter(self) -> impl Iterator<Item = i16> {
        self.start..=self.end
    }
}

/// Versions that no range can hold: `next` follows `after` with a gap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    /// The last version before the gap.
    pub after: i16,
    /// The first version after it.
    pub next: i16,
}

impl fmt::Display for Gap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "versions are not contiguous: {} follows {}",
            self.next, self.after
        )
    }
}

impl std::error::Error for Gap {}

impl fmt::Display for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            f.write_str("none")
        } else if self.end == i16::MAX {
            write!(f, "{}+", self.start)
        } else if self.start == self.end {
            write!(f, "{}", self.start)
        } else {
            write!(f, "{}-{}", self.start, self.end)
        }
    }
}

impl fmt::Debug for VersionRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VersionRange({self})")
    }
}

/// Why a version range's text is not one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseVersionRangeError {
    /// Not of the form `"3"`, `"1-4"`, `"2+"` or `"none"`.
    Syntax(String),
    /// A version past `i16::MAX`.
    OutOfRange(String),
    /// `"3-1"`.
    Reversed(String),
}

impl fmt::Display for ParseVersionRangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(text) => write!(
                f,
                "expected a version range such as `0-3`, `2+`, `1` or `none`, found `{text}`"
            ),
            Self::OutOfRange(version) => write!(
                f,
                "version `{version}` is out of range: versions go from 0 to 32767"
            ),
            Self::Reversed(text) => {
                write!(
                    f,
                    "invalid version range `{text}`: start is greater than end"
                )
            }
        }
    }
}

impl std::error::Error for ParseVersionRangeError {}

/// `"3"`, `"1-4"`, `"2+"` or `"none"`, with spaces around the whole allowed.
impl FromStr for VersionRange {
    type Err = ParseVersionRangeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let syntax = || ParseVersionRangeError::Syntax(text.to_owned());
        let version = |s: &str| -> Result<i16, ParseVersionRangeError> {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            s.parse::<i16>()
                .map_err(|_| ParseVersionRangeError::OutOfRange(s.to_owned()))
        };
        let t = text.trim();
        if t == "none" {
            return Ok(Self::NONE);
        }
        if let Some(start) = t.strip_suffix('+') {
            return Ok(Self::open(version(start)?));
        }
        if let Some((start, end)) = t.split_once('-') {
            let (start, end) = (version(start)?, version(end)?);
            if start > end {
                return Err(ParseVersionRangeError::Reversed(text.to_owned()));
            }
            return Ok(Self::new(start, end));
        }
        let v = version(t)?;
        Ok(Self::new(v, v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(text: &str) -> VersionRange {
        text.parse().unwrap()
    }

    #[test]
    fn ranges_parse_and_print_as_the_schemas_write_them() {
        assert_eq!(range("0-3"), VersionRange::new(0, 3));
        assert_eq!(range("2+"), VersionRange::open(2));
        assert_eq!(range(" 3 "), VersionRange::new(3, 3));
        for text in ["none", "4", "1-4", "2+"] {
            assert_eq!(range(text).to_string(), text);
        }
        assert_eq!(VersionRange::new(2, 1).to_string(), "none");
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        let err = |text: &str| text.parse::<VersionRange>().unwrap_err().to_string();
        assert_eq!(
            err("3-1"),
            "invalid version range `3-1`: start is greater than end"
        );
        for bad in ["1-", "-1", "abc", "+", "", "1 - 2"] {
            assert!(err(bad).starts_with("expected a version range"), "{bad}");
        }
        assert_eq!(
            err("40000+"),
            "version `40000` is out of range: versions go from 0 to 32767"
        );
    }

    #[test]
    fn an_open_range_holds_the_versions_to_come() {
        let open = range("2+");
        assert!(open.contains(2) && open.contains(i16::MAX) && !open.contains(1));
        assert_eq!(
            open.intersect(VersionRange::new(0, 5)),
            VersionRange::new(2, 5)
        );
        assert_eq!(open.intersect(range("4+")), range("4+"));
        assert_eq!(open.up_to(1), VersionRange::NONE);
        assert_eq!(open.up_to(7).iter().collect::<Vec<_>>(), [2, 3, 4, 5, 6, 7]);
        assert_eq!(open.before(4), VersionRange::new(2, 3));
        assert!(!VersionRange::NONE.contains(0) && !VersionRange::NONE.contains(-1));
        assert!(VersionRange::NONE.within(range("3")) && range("3-4").within(range("2+")));
    }

    #[test]
    fn versions_become_a_range_only_without_a_gap() {
        assert_eq!(
            VersionRange::spanning([1, 2, 3]),
            Ok(VersionRange::new(1, 3))
        );
        assert_eq!(VersionRange::spanning([]), Ok(VersionRange::NONE));
        assert_eq!(
            VersionRange::spanning([1, 3]),
            Err(Gap { after: 1, next: 3 })
        );
        assert_eq!(VersionRange::new(1, 3).opened_at(3), range("1+"));
        assert_eq!(
            VersionRange::new(1, 2).opened_at(3),
            VersionRange::new(1, 2)
        );
    }

    #[test]
    fn ranges_sort_by_start_then_end_open_last() {
        let mut v = [range("0+"), range("1"), range("0-4"), VersionRange::NONE];
        v.sort();
        assert_eq!(v.map(|r| r.to_string()), ["none", "0-4", "0+", "1"]);
    }
}
