//! Progress on standard error while a large file is read.

/// Files above this size report their progress.
const LARGE: usize = 4 << 20;

pub struct Progress<'a> {
    name: &'a str,
    total: usize,
    shown: usize,
}

impl<'a> Progress<'a> {
    pub fn new(name: &'a str, total: usize) -> Self {
        Progress {
            name,
            total,
            shown: 0,
        }
    }

    /// Reports `done` bytes of the total at each further tenth.
    pub fn update(&mut self, done: usize) {
        if self.total < LARGE {
            return;
        }
        let tenth = done.saturating_mul(10) / self.total;
        if tenth > self.shown {
            self.shown = tenth;
            eprintln!(
                "{}: {}% ({done} of {} bytes)",
                self.name,
                tenth * 10,
                self.total
            );
        }
    }
}
