//! Version ranges, with the same meaning as the derive's `versions = "..."` strings.

use core::fmt;

/// An inclusive range of protocol versions, or the empty range `none`.
///
/// `"2+"` is `VersionRange::new(2, i16::MAX)`; `"none"` is [`VersionRange::NONE`].
///
/// ```
/// use kafka_wire::VersionRange;
///
/// let flexible = VersionRange::new(1, i16::MAX);
/// assert!(flexible.contains(2));
/// assert!(!flexible.contains(0));
/// assert_eq!(flexible.to_string(), "1+");
/// assert!(VersionRange::NONE.is_empty());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionRange {
    start: i16,
    end: i16,
}

impl VersionRange {
    /// The empty range, written `none` in schemas.
    pub const NONE: VersionRange = VersionRange { start: 0, end: -1 };

    /// Every version from `start` to `end`, both included. An `end` below `start` gives an
    /// empty range.
    pub const fn new(start: i16, end: i16) -> Self {
        if end < start {
            Self::NONE
        } else {
            VersionRange { start, end }
        }
    }

    /// The lowest version in the range, `None` for an empty range.
    pub const fn start(self) -> Option<i16> {
        if self.is_empty() {
            None
        } else {
            Some(self.start)
        }
    }

    /// The highest version in the range, `None` for an empty range.
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
}

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

#[cfg(test)]
mod tests {
    use super::VersionRange;

    #[test]
    fn display_matches_schema_syntax() {
        assert_eq!(VersionRange::new(0, 2).to_string(), "0-2");
        assert_eq!(VersionRange::new(3, 3).to_string(), "3");
        assert_eq!(VersionRange::new(1, i16::MAX).to_string(), "1+");
        assert_eq!(VersionRange::new(2, 1).to_string(), "none");
    }

    #[test]
    fn intersect_and_contains() {
        let r = VersionRange::new(0, i16::MAX).intersect(VersionRange::new(1, 2));
        assert_eq!(r, VersionRange::new(1, 2));
        assert!(!r.contains(0) && r.contains(1) && r.contains(2) && !r.contains(3));
        assert!(VersionRange::new(0, 1)
            .intersect(VersionRange::new(2, 3))
            .is_empty());
        assert!(!VersionRange::NONE.contains(0));
        assert!(!VersionRange::NONE.contains(-1));
    }
}
