//! The cluster file (`cluster.txt` in the data directory): which broker leads which partition
//! and which one coordinates. Written whole and renamed into place, read again whenever it
//! changes, and applied to the leaders and the coordinator of this broker.

use std::io::{self, Write};
use std::path::Path;
use std::time::SystemTime;

use crate::cluster::Cluster;
use crate::trace;

use super::{load_coordinator, Shared, State};

/// The name of the cluster file inside the data directory.
pub const CLUSTER_FILE: &str = "cluster.txt";

/// The modification time and length of a file: what tells that the cluster file changed.
pub(super) fn stamp_of(path: &Path) -> io::Result<(SystemTime, u64)> {
    let meta = std::fs::metadata(path)?;
    Ok((meta.modified()?, meta.len()))
}

/// Reads and parses the cluster file of `data`.
pub fn read_cluster(data: &Path) -> io::Result<Cluster> {
    let text = std::fs::read_to_string(data.join(CLUSTER_FILE))?;
    Cluster::from_text(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Writes the cluster file of `data` so that a reader never sees half of it (a temporary file
/// renamed over the old one).
pub fn write_cluster(data: &Path, cluster: &Cluster) -> io::Result<()> {
    std::fs::create_dir_all(data)?;
    let tmp = data.join(format!("{CLUSTER_FILE}.tmp.{}", std::process::id()));
    {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(cluster.to_text().as_bytes())?;
        file.sync_all()?;
    }
    std::fs::rename(&tmp, data.join(CLUSTER_FILE))
}

impl Shared {
    /// Re-reads the cluster file when it changed, and brings leaders and coordinator in line.
    pub(super) fn refresh(&self, state: &mut State) {
        let path = self.opts.data.join(CLUSTER_FILE);
        let stamp = match stamp_of(&path) {
            Ok(stamp) => stamp,
            Err(e) => {
                trace!(self.who, "cannot stat {}: {e}", path.display());
                return;
            }
        };
        if state.cluster_stamp == Some(stamp) {
            return;
        }
        match read_cluster(&self.opts.data) {
            Ok(cluster) => {
                state.cluster_stamp = Some(stamp);
                if cluster != state.cluster {
                    trace!(self.who, "cluster file changed; syncing leaders");
                    state.cluster = cluster;
                    self.apply_cluster(state);
                }
            }
            // Keep the old map; the next request tries again.
            Err(e) => trace!(
                self.who,
                "cluster file unreadable, keeping the old one: {e}"
            ),
        }
    }

    fn apply_cluster(&self, state: &mut State) {
        if let Err(e) = state.leaders.sync(&state.cluster) {
            trace!(self.who, "leader sync failed: {e}");
        }
        let ours = state.cluster.coordinator == self.opts.id;
        if ours && state.coordinator.is_none() {
            match load_coordinator(&self.opts) {
                Ok(c) => {
                    trace!(
                        self.who,
                        "coordinator loaded, coordinator epoch {}",
                        c.epoch()
                    );
                    state.coordinator = Some(c);
                }
                Err(e) => trace!(self.who, "coordinator load failed: {e}"),
            }
        } else if !ours && state.coordinator.take().is_some() {
            trace!(self.who, "no longer the coordinator");
        }
    }
}
