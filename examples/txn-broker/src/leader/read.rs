//! Reading a partition: the slices of its log a Fetch returns, the aborted transactions a
//! read_committed reader skips, and the offsets ListOffsets finds by timestamp.

use bytes::Bytes;
use kafka_wire::records::{BatchView, RecordBatch, RecordsReader};

use super::log::{AbortedTxn, BatchInfo, Partition};

/// A slice of the log handed out by a fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Slice {
    pub bytes: Bytes,
    /// The base offset of the first batch and one past the last offset of the last batch;
    /// equal when nothing was taken.
    pub from: i64,
    pub to: i64,
}

impl Partition {
    /// Whole batches from the one holding `offset`, of offsets below `upper`, within `budget`
    /// bytes; the first batch is taken whatever its size when `at_least_one`.
    pub fn read(&self, offset: i64, upper: i64, budget: usize, at_least_one: bool) -> Slice {
        let first = self.index.partition_point(|b| b.last_offset < offset);
        let mut taken: Option<(usize, usize)> = None;
        let mut to = offset;
        for b in self.index.get(first..).unwrap_or_default() {
            if b.last_offset >= upper {
                break;
            }
            let start = taken.map_or(b.start, |(s, _)| s);
            let size = b.end - start;
            if size > budget && !(taken.is_none() && at_least_one) {
                break;
            }
            taken = Some((start, b.end));
            to = b.last_offset + 1;
        }
        match taken {
            Some((start, end)) => Slice {
                bytes: Bytes::copy_from_slice(self.data.get(start..end).unwrap_or_default()),
                from: self.index.get(first).map_or(offset, |b| b.base_offset),
                to,
            },
            None => Slice {
                bytes: Bytes::new(),
                from: offset,
                to: offset,
            },
        }
    }

    /// Aborted transactions whose ABORT marker is at or after `from` and which began before
    /// `to`: those a reader of offsets `from..to` needs to skip.
    pub fn aborted_between(&self, from: i64, to: i64) -> Vec<AbortedTxn> {
        self.aborted
            .iter()
            .filter(|a| a.last_offset >= from && a.first_offset < to)
            .copied()
            .collect()
    }

    /// The first data record below `upper` whose timestamp is at least `timestamp`: its offset
    /// and timestamp.
    pub fn offset_for_timestamp(&self, timestamp: i64, upper: i64) -> Option<(i64, i64)> {
        let batch = self
            .index
            .iter()
            .filter(|b| !b.control && b.base_offset < upper)
            .find(|b| b.max_timestamp >= timestamp)?;
        self.decode(batch)?
            .records()
            .ok()?
            .map_while(Result::ok)
            .filter(|r| r.offset() < upper)
            .find(|r| r.timestamp() >= timestamp)
            .map(|r| (r.offset(), r.timestamp()))
    }

    /// The data record with the largest timestamp below `upper` (the earliest such).
    pub fn max_timestamp_offset(&self, upper: i64) -> Option<(i64, i64)> {
        let mut best: Option<&BatchInfo> = None;
        for b in self
            .index
            .iter()
            .filter(|b| !b.control && b.base_offset < upper)
        {
            if best.is_none_or(|x| b.max_timestamp > x.max_timestamp) {
                best = Some(b);
            }
        }
        let batch = best?;
        let decoded = self.decode(batch)?;
        let records = decoded.records().ok()?.map_while(Result::ok);
        let first = records.clone().next();
        records
            .filter(|r| r.offset() < upper)
            .find(|r| r.timestamp() == batch.max_timestamp)
            .or(first)
            .map(|r| (r.offset(), r.timestamp()))
    }

    fn decode(&self, info: &BatchInfo) -> Option<BatchView> {
        let bytes = Bytes::copy_from_slice(self.data.get(info.start..info.end)?);
        RecordsReader::new(bytes).next()?.ok()
    }

    /// Every batch of the log, decoded.
    pub fn batches(&self) -> Vec<RecordBatch> {
        RecordsReader::new(Bytes::copy_from_slice(&self.data))
            .into_owned()
            .filter_map(Result::ok)
            .collect()
    }
}
