//! Version ranges as the schemas write them: `none`, `3`, `1-4`, or `2+`, open-ended.

use std::cmp::Ordering;
use std::fmt;

/// A range of versions. An open range (`2+`) holds the versions still to come: a field added
/// in version 2 stays in every later version until a schema closes its range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Versions {
    /// `none`: no version at all.
    None,
    /// `start` to `end`, both included: `1-4`, or `3` alone.
    Closed { start: i16, end: i16 },
    /// `start` and every version after it: `2+`.
    Open { start: i16 },
}

impl Versions {
    /// Parses `"3"`, `"1-4"`, `"2+"`, `"none"`.
    pub fn parse(text: &str) -> Result<Versions, String> {
        let bad = || format!("bad version range `{text}`");
        let num = |s: &str| match s.trim().parse::<i16>() {
            Ok(v) if v >= 0 => Ok(v),
            _ => Err(bad()),
        };
        let t = text.trim();
        if t == "none" {
            return Ok(Versions::None);
        }
        if let Some(start) = t.strip_suffix('+') {
            return Ok(Versions::Open { start: num(start)? });
        }
        let (start, end) = match t.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(t)?, num(t)?),
        };
        if end < start {
            return Err(bad());
        }
        Ok(Versions::Closed { start, end })
    }

    /// `start` to `end`; `none` when `end` comes before `start`.
    pub fn closed(start: i16, end: i16) -> Versions {
        if end < start {
            Versions::None
        } else {
            Versions::Closed { start, end }
        }
    }

    /// The range holding exactly `versions`, given in ascending order; `Err` with the versions
    /// when they leave a gap, which no range can hold.
    pub fn spanning(versions: impl IntoIterator<Item = i16>) -> Result<Versions, String> {
        let versions: Vec<i16> = versions.into_iter().collect();
        let (Some(&start), Some(&end)) = (versions.first(), versions.last()) else {
            return Ok(Versions::None);
        };
        if versions.windows(2).any(|w| w[1] != w[0] + 1) {
            return Err(format!("versions {versions:?} are not contiguous"));
        }
        Ok(Versions::Closed { start, end })
    }

    /// The range opened when it reaches `last`, the newest version known: what holds up to
    /// the newest version holds in the versions to come, as the schemas write it (`0+`).
    pub fn opened_at(self, last: i16) -> Versions {
        match self {
            Versions::Closed { start, end } if end >= last => Versions::Open { start },
            other => other,
        }
    }

    /// The range closed at `last`: the versions of it that exist so far.
    pub fn up_to(self, last: i16) -> Versions {
        self.intersect(Versions::closed(0, last))
    }

    pub fn is_empty(self) -> bool {
        self == Versions::None
    }

    /// The first version; `None` for an empty range.
    pub fn start(self) -> Option<i16> {
        match self {
            Versions::None => None,
            Versions::Closed { start, .. } | Versions::Open { start } => Some(start),
        }
    }

    /// The last version of a closed range; `None` for an empty or an open one.
    pub fn end(self) -> Option<i16> {
        match self {
            Versions::Closed { end, .. } => Some(end),
            Versions::None | Versions::Open { .. } => None,
        }
    }

    pub fn contains(self, v: i16) -> bool {
        match self {
            Versions::None => false,
            Versions::Closed { start, end } => (start..=end).contains(&v),
            Versions::Open { start } => v >= start,
        }
    }

    /// The versions in both ranges.
    pub fn intersect(self, other: Versions) -> Versions {
        let (Some(a), Some(b)) = (self.start(), other.start()) else {
            return Versions::None;
        };
        let start = a.max(b);
        match (self.end(), other.end()) {
            (None, None) => Versions::Open { start },
            (Some(end), None) | (None, Some(end)) => Versions::closed(start, end),
            (Some(x), Some(y)) => Versions::closed(start, x.min(y)),
        }
    }

    /// The versions of a closed range in order; an open range or `none` has none to list.
    pub fn iter(self) -> impl Iterator<Item = i16> {
        let (start, end) = match self {
            Versions::Closed { start, end } => (start, end),
            Versions::None | Versions::Open { .. } => (0, -1),
        };
        start..=end
    }
}

/// Ranges sort by first version, then by last, an open range after every closed one with the
/// same start; `none` first.
impl Ord for Versions {
    fn cmp(&self, other: &Self) -> Ordering {
        let key = |v: &Versions| match *v {
            Versions::None => None,
            Versions::Closed { start, end } => Some((start, false, end)),
            Versions::Open { start } => Some((start, true, 0)),
        };
        key(self).cmp(&key(other))
    }
}

impl PartialOrd for Versions {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Versions::None => f.write_str("none"),
            Versions::Closed { start, end } if start == end => write!(f, "{start}"),
            Versions::Closed { start, end } => write!(f, "{start}-{end}"),
            Versions::Open { start } => write!(f, "{start}+"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Versions;

    #[test]
    fn ranges_parse_and_print_as_the_schemas_write_them() {
        assert_eq!(
            Versions::parse("0-3"),
            Ok(Versions::Closed { start: 0, end: 3 })
        );
        assert_eq!(Versions::parse("2+"), Ok(Versions::Open { start: 2 }));
        for text in ["none", "4", "1-4", "2+"] {
            assert_eq!(Versions::parse(text).unwrap().to_string(), text);
        }
        for bad in ["3-1", "x", "-1", "1-", "+"] {
            assert!(Versions::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_open_range_holds_the_versions_to_come() {
        let open = Versions::Open { start: 2 };
        assert!(open.contains(2) && open.contains(i16::MAX) && !open.contains(1));
        assert_eq!(
            open.intersect(Versions::closed(0, 5)),
            Versions::closed(2, 5)
        );
        assert_eq!(
            open.intersect(Versions::Open { start: 4 }),
            Versions::Open { start: 4 }
        );
        assert_eq!(open.up_to(1), Versions::None);
        assert_eq!(open.up_to(7).iter().collect::<Vec<_>>(), [2, 3, 4, 5, 6, 7]);
        assert_eq!(open.iter().count(), 0);
    }

    #[test]
    fn versions_become_a_range_only_without_a_gap() {
        assert_eq!(Versions::spanning([1, 2, 3]), Ok(Versions::closed(1, 3)));
        assert_eq!(Versions::spanning([]), Ok(Versions::None));
        assert!(Versions::spanning([1, 3]).is_err());
        assert_eq!(
            Versions::closed(1, 3).opened_at(3),
            Versions::Open { start: 1 }
        );
        assert_eq!(Versions::closed(1, 2).opened_at(3), Versions::closed(1, 2));
    }

    #[test]
    fn ranges_sort_by_start_then_end_open_last() {
        let mut v = [
            Versions::Open { start: 0 },
            Versions::closed(1, 1),
            Versions::closed(0, 4),
            Versions::None,
        ];
        v.sort();
        assert_eq!(v.map(|r| r.to_string()), ["none", "0-4", "0+", "1"]);
    }
}
