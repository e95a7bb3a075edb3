//! The generator's error: every problem it found, one a line.

use std::fmt;

/// What went wrong: every problem found, one a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub problems: Vec<String>,
}

impl Error {
    pub(crate) fn one(problem: impl Into<String>) -> Self {
        Error {
            problems: vec![problem.into()],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.problems.join("\n"))
    }
}

impl std::error::Error for Error {}
