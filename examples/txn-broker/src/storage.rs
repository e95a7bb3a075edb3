//! Append-only named files: a directory on disk for the real brokers, a shared map in memory
//! for the simulation (where a "crash" drops a node's state but keeps what it wrote).

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Where logs live. `append` is durable when it returns: a crash after it keeps the bytes.
pub trait Storage: Send {
    /// Everything written to `name` so far; empty when nothing was.
    fn read(&self, name: &str) -> io::Result<Vec<u8>>;
    /// Adds `data` at the end of `name`, creating it if needed.
    fn append(&mut self, name: &str, data: &[u8]) -> io::Result<()>;
    /// Cuts `name` to `len` bytes (to drop a torn tail found on recovery).
    fn truncate(&mut self, name: &str, len: u64) -> io::Result<()>;
}

/// Files under one directory, synced on every append.
#[derive(Debug, Clone)]
pub struct FileStorage {
    dir: PathBuf,
}

impl FileStorage {
    /// Uses `dir`, creating it when missing.
    pub fn open(dir: impl Into<PathBuf>) -> io::Result<Self> {
        let dir = dir.into();
        fs::create_dir_all(&dir)?;
        Ok(Self { dir })
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Storage for FileStorage {
    fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        match fs::read(self.path(name)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            other => other,
        }
    }

    fn append(&mut self, name: &str, data: &[u8]) -> io::Result<()> {
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path(name))?;
        file.write_all(data)?;
        file.sync_data()
    }

    fn truncate(&mut self, name: &str, len: u64) -> io::Result<()> {
        let file = OpenOptions::new().write(true).open(self.path(name))?;
        file.set_len(len)?;
        file.sync_data()
    }
}

/// Files in memory, shared by every clone: the simulation's disk, which outlives the nodes
/// that crash.
#[derive(Debug, Clone, Default)]
pub struct MemStorage {
    files: Arc<Mutex<HashMap<String, Vec<u8>>>>,
}

impl MemStorage {
    fn files(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<u8>>> {
        // A panic elsewhere while holding the lock leaves the map usable: every write is a
        // single call on it.
        self.files
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Storage for MemStorage {
    fn read(&self, name: &str) -> io::Result<Vec<u8>> {
        Ok(self.files().get(name).cloned().unwrap_or_default())
    }

    fn append(&mut self, name: &str, data: &[u8]) -> io::Result<()> {
        self.files()
            .entry(name.to_owned())
            .or_default()
            .extend_from_slice(data);
        Ok(())
    }

    fn truncate(&mut self, name: &str, len: u64) -> io::Result<()> {
        if let Some(file) = self.files().get_mut(name) {
            file.truncate(usize::try_from(len).unwrap_or(usize::MAX));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exercise(mut s: impl Storage) {
        assert!(s.read("a").unwrap().is_empty());
        s.append("a", b"hello").unwrap();
        s.append("a", b" world").unwrap();
        assert_eq!(s.read("a").unwrap(), b"hello world");
        s.truncate("a", 5).unwrap();
        assert_eq!(s.read("a").unwrap(), b"hello");
        assert!(s.read("b").unwrap().is_empty());
    }

    #[test]
    fn memory_storage_appends_reads_and_truncates() {
        let s = MemStorage::default();
        exercise(s.clone());
        // Clones share the files.
        assert_eq!(s.read("a").unwrap(), b"hello");
    }

    #[test]
    fn file_storage_appends_reads_and_truncates() {
        let dir = std::env::temp_dir().join(format!("txn-broker-storage-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        exercise(FileStorage::open(&dir).unwrap());
        fs::remove_dir_all(&dir).unwrap();
    }
}
