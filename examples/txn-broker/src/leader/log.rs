//! One partition: its log bytes, the position of every batch in them, and the per-producer
//! state the leader derives from the log (epochs, sequences, open and aborted transactions),
//! with the two ways the log grows: a produced batch and a transaction marker. Reading it is in
//! `read`, the producer state in `producer`, the checks of a produced batch in `validate`.
//!
//! Every change to the state goes through [`Partition::apply`], both when a batch is appended
//! and when the log is scanned on load, so a reloaded partition ends in the same state as the
//! one that wrote the log.

use std::collections::BTreeMap;
use std::io;

use bytes::Bytes;
use kafka_wire::records::{BatchHeader, BatchView, RecordsReader, TimestampType, TxnMarker};
use kafka_wire::ErrorCode;

use crate::cluster::TopicPartition;
use crate::fencing::{self, Fenced, MarkerAction, MarkerEpochs};
use crate::storage::Storage;
use crate::trace;

use super::producer::{
    add_sequence, next_sequence, FinishedTxn, OngoingTxn, ProducerState, SequencedBatch,
    RECENT_BATCHES,
};
use super::validate::validate;

/// Where one batch sits in the log, and the header facts the leader needs without decoding it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BatchInfo {
    pub base_offset: i64,
    pub last_offset: i64,
    /// Byte range in the log.
    pub start: usize,
    pub end: usize,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub max_timestamp: i64,
    pub transactional: bool,
    pub control: bool,
}

impl BatchInfo {
    fn of(batch: &BatchHeader, start: usize, end: usize) -> Self {
        BatchInfo {
            base_offset: batch.base_offset,
            last_offset: batch
                .base_offset
                .saturating_add(i64::from(batch.last_offset_delta)),
            start,
            end,
            producer_id: batch.producer_id,
            producer_epoch: batch.producer_epoch,
            base_sequence: batch.base_sequence,
            max_timestamp: batch.max_timestamp,
            transactional: batch.is_transactional,
            control: batch.is_control,
        }
    }

    fn last_sequence(&self) -> i32 {
        let delta = (self.last_offset - self.base_offset).clamp(0, i64::from(i32::MAX));
        add_sequence(self.base_sequence, delta)
    }
}

/// An aborted transaction: its producer, its first offset and the offset of its ABORT marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct AbortedTxn {
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
}

/// A request the partition refused, with the Kafka error code and a reason for humans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

pub(super) fn refuse(code: ErrorCode, message: impl Into<String>) -> Refusal {
    Refusal {
        code,
        message: message.into(),
    }
}

impl From<Fenced> for Refusal {
    fn from(fenced: Fenced) -> Self {
        refuse(fenced.code, fenced.reason)
    }
}

/// A produced batch that is in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Appended {
    pub base_offset: i64,
    /// The time stamped on a log-append-time batch, else -1.
    pub log_append_time: i64,
    /// True when the batch was a retry of one already in the log (nothing was written).
    pub duplicate: bool,
}

/// What a marker did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MarkerOutcome {
    /// The control batch was appended at this offset.
    Written(i64),
    /// Nothing was open for the producer here and the marker's epoch is not new here: the
    /// marker is a retry or the transaction never wrote to this partition.
    NoOp,
}

/// A transaction marker as the coordinator asks for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct MarkerRequest {
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub commit: bool,
    pub coordinator_epoch: i32,
    /// 1 or 2; version 2 holds the marker to a stricter epoch rule.
    pub transaction_version: i8,
}

/// One partition led by this broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Partition {
    pub tp: TopicPartition,
    pub file: String,
    pub data: Vec<u8>,
    pub index: Vec<BatchInfo>,
    pub producers: BTreeMap<i64, ProducerState>,
    /// Open transactions by first offset (the smallest gives the last stable offset).
    pub ongoing: BTreeMap<i64, i64>,
    pub aborted: Vec<AbortedTxn>,
}

/// The storage file of a partition's log.
pub(super) fn log_file(tp: &TopicPartition) -> String {
    format!("log-{}-{}", tp.topic, tp.partition)
}

impl Partition {
    /// Reads the partition's log from `storage`, cutting off a torn or unreadable tail, and
    /// rebuilds the index and the producer state.
    pub fn load(tp: TopicPartition, storage: &mut dyn Storage, who: &str) -> io::Result<Self> {
        let file = log_file(&tp);
        let raw = storage.read(&file)?;
        let total = raw.len();
        let mut part = Partition {
            tp,
            file,
            data: Vec::new(),
            index: Vec::new(),
            producers: BTreeMap::new(),
            ongoing: BTreeMap::new(),
            aborted: Vec::new(),
        };
        let bytes = Bytes::from(raw);
        let mut reader = RecordsReader::new(bytes.clone());
        let mut good = 0usize;
        loop {
            let start = reader.position();
            match reader.next() {
                Some(Ok(batch)) if batch.header.magic == 2 && record_count(&batch) > 0 => {
                    let end = reader.position();
                    let info = BatchInfo::of(&batch.header, start, end);
                    let marker = marker_of(&batch);
                    part.apply(&info, marker);
                    part.index.push(info);
                    good = end;
                }
                Some(Ok(_)) | Some(Err(_)) | None => break,
            }
        }
        if good < total {
            trace!(
                who,
                "{}: cutting {} unreadable bytes off the end of the log",
                part.tp,
                total - good
            );
            storage.truncate(&part.file, good as u64)?;
        }
        part.data = bytes.get(..good).unwrap_or_default().to_vec();
        Ok(part)
    }

    /// One past the last offset in the log (all of it is durable at the leader).
    pub fn high_watermark(&self) -> i64 {
        self.index.last().map_or(0, |b| b.last_offset + 1)
    }

    /// The first offset of the earliest open transaction, else the high watermark.
    pub fn last_stable_offset(&self) -> i64 {
        self.ongoing
            .keys()
            .next()
            .copied()
            .unwrap_or_else(|| self.high_watermark())
    }

    /// Nothing is ever deleted: the log starts at offset 0.
    pub fn log_start_offset(&self) -> i64 {
        0
    }

    /// Brings the producer state up to date with one batch of the log.
    fn apply(&mut self, info: &BatchInfo, marker: Option<TxnMarker>) {
        if info.producer_id < 0 {
            return;
        }
        let state = self
            .producers
            .entry(info.producer_id)
            .or_insert_with(ProducerState::new);
        state.observe_epoch(info.producer_epoch);
        if info.control {
            let Some(marker) = marker else {
                return;
            };
            state.coordinator_epoch = marker.coordinator_epoch;
            if let Some(txn) = state.ongoing.take() {
                self.ongoing.remove(&txn.first_offset);
                if !marker.commit {
                    self.aborted.push(AbortedTxn {
                        producer_id: info.producer_id,
                        first_offset: txn.first_offset,
                        last_offset: info.base_offset,
                    });
                }
            }
            state.last_finished = Some(FinishedTxn {
                epoch: info.producer_epoch,
                commit: marker.commit,
            });
            return;
        }
        if info.base_sequence >= 0 && info.producer_epoch == state.epoch {
            if state.recent.len() == RECENT_BATCHES {
                state.recent.pop_front();
            }
            state.recent.push_back(SequencedBatch {
                first_sequence: info.base_sequence,
                last_sequence: info.last_sequence(),
                base_offset: info.base_offset,
            });
        }
        if info.transactional && state.ongoing.is_none() {
            state.ongoing = Some(OngoingTxn {
                first_offset: info.base_offset,
                epoch: info.producer_epoch,
            });
            self.ongoing.insert(info.base_offset, info.producer_id);
        }
    }

    /// Validates a produced records field (exactly one magic 2 batch), checks the producer's
    /// epoch and sequence, and appends the batch with offsets assigned by the leader.
    pub fn produce(
        &mut self,
        storage: &mut dyn Storage,
        records: &Bytes,
        now_ms: i64,
        who: &str,
    ) -> Result<Appended, Refusal> {
        let view = validate(records)?;
        let batch = view.header;
        if let Some(base_offset) = self.check_producer_batch(&batch, who)? {
            return Ok(Appended {
                base_offset,
                log_append_time: -1,
                duplicate: true,
            });
        }
        let base_offset = self.high_watermark();
        let (bytes, log_append_time) = placed(&view, records, base_offset, now_ms)?;
        let mut stored = batch;
        stored.base_offset = base_offset;
        if log_append_time >= 0 {
            stored.max_timestamp = log_append_time;
        }
        self.append(storage, &bytes, &stored, None)?;
        Ok(Appended {
            base_offset,
            log_append_time,
            duplicate: false,
        })
    }

    /// The producer's checks on a data batch: a fenced epoch is refused
    /// ([`fencing::check_data_epoch`]); a retry of one of the producer's latest batches is
    /// recognised, and its offset returned so that it is answered without a second copy; any
    /// other batch must continue the producer's sequence (start at 0 with a new epoch).
    fn check_producer_batch(&self, batch: &BatchHeader, who: &str) -> Result<Option<i64>, Refusal> {
        if batch.producer_id < 0 {
            return Ok(None);
        }
        let Some(state) = self.producers.get(&batch.producer_id) else {
            return Ok(None);
        };
        if let Err(fenced) = fencing::check_data_epoch(batch.producer_epoch, state.epoch) {
            trace!(
                who,
                "{}: fenced zombie producer {}: {}",
                self.tp,
                batch.producer_id,
                fenced.reason
            );
            return Err(fenced.into());
        }
        if batch.producer_epoch != state.epoch {
            if batch.base_sequence != 0 && state.epoch >= 0 {
                return Err(refuse(
                    ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER,
                    format!(
                        "a new epoch {} must start at sequence 0, not {}",
                        batch.producer_epoch, batch.base_sequence
                    ),
                ));
            }
            return Ok(None);
        }
        let last_sequence = add_sequence(batch.base_sequence, i64::from(batch.last_offset_delta));
        let retried = state
            .recent
            .iter()
            .find(|b| b.first_sequence == batch.base_sequence && b.last_sequence == last_sequence);
        if let Some(dup) = retried {
            trace!(
                who,
                "{}: duplicate batch of producer {} (sequence {}), already at offset {}",
                self.tp,
                batch.producer_id,
                batch.base_sequence,
                dup.base_offset
            );
            return Ok(Some(dup.base_offset));
        }
        let expected = state
            .recent
            .back()
            .map_or(0, |b| next_sequence(b.last_sequence));
        if batch.base_sequence != expected {
            return Err(refuse(
                ErrorCode::OUT_OF_ORDER_SEQUENCE_NUMBER,
                format!(
                    "sequence {} where {} was expected",
                    batch.base_sequence, expected
                ),
            ));
        }
        Ok(None)
    }

    /// Ends the producer's open transaction in this partition with a control batch, when the
    /// marker rules ([`fencing::judge_marker`]) let the marker through: they refuse it from an
    /// older coordinator or for an older epoch, make it a no-op when nothing is open here
    /// (unless it records a newer epoch), and hold transaction version 2 to a stricter epoch.
    pub fn write_marker(
        &mut self,
        storage: &mut dyn Storage,
        req: &MarkerRequest,
        now_ms: i64,
        who: &str,
    ) -> Result<MarkerOutcome, Refusal> {
        let kind = if req.commit { "COMMIT" } else { "ABORT" };
        if self.judge_marker(req, kind, who)? == MarkerAction::NoOp {
            return Ok(MarkerOutcome::NoOp);
        }
        let open = self.producers.get(&req.producer_id).and_then(|s| s.ongoing);
        let offset = self.high_watermark();
        let marker = TxnMarker {
            commit: req.commit,
            coordinator_epoch: req.coordinator_epoch,
        };
        let batch = marker.batch(offset, now_ms, -1, req.producer_id, req.producer_epoch);
        let bytes = batch
            .encode()
            .map_err(|e| refuse(ErrorCode::INVALID_RECORD, e.to_string()))?
            .into_bytes();
        self.append(storage, &bytes, &batch.header, Some(marker))?;
        let began = match open {
            Some(txn) => format!("transaction began at {}", txn.first_offset),
            None => "no transaction open here, written to fence older epochs".to_owned(),
        };
        trace!(
            who,
            "{}: appended {kind} marker of producer {} (epoch {}, coordinator epoch {}) at offset {}, {began}",
            self.tp,
            req.producer_id,
            req.producer_epoch,
            req.coordinator_epoch,
            offset
        );
        Ok(MarkerOutcome::Written(offset))
    }

    /// [`fencing::judge_marker`] for `req`, given what this partition knows of its producer.
    fn judge_marker(
        &self,
        req: &MarkerRequest,
        kind: &str,
        who: &str,
    ) -> Result<MarkerAction, Refusal> {
        let epochs = MarkerEpochs {
            producer_epoch: req.producer_epoch,
            coordinator_epoch: req.coordinator_epoch,
            transaction_version: req.transaction_version,
        };
        let known = self.producers.get(&req.producer_id);
        match fencing::judge_marker(epochs, known.map(ProducerState::at_leader)) {
            Ok(MarkerAction::NoOp) => {
                trace!(
                    who,
                    "{}: ignored {kind} marker of producer {} (epoch {}): no open transaction here",
                    self.tp,
                    req.producer_id,
                    req.producer_epoch
                );
                Ok(MarkerAction::NoOp)
            }
            Ok(MarkerAction::Write) => Ok(MarkerAction::Write),
            Err(fenced) => {
                trace!(
                    who,
                    "{}: refused {kind} marker of producer {}: {}",
                    self.tp,
                    req.producer_id,
                    fenced.reason
                );
                Err(fenced.into())
            }
        }
    }

    /// Writes `bytes` (the encoding of `batch`) durably, then indexes it and updates the state.
    fn append(
        &mut self,
        storage: &mut dyn Storage,
        bytes: &[u8],
        batch: &BatchHeader,
        marker: Option<TxnMarker>,
    ) -> Result<(), Refusal> {
        if let Err(e) = storage.append(&self.file, bytes) {
            // Drop whatever part of the write landed, so the next append follows a whole batch.
            let _ = storage.truncate(&self.file, self.data.len() as u64);
            return Err(refuse(ErrorCode::KAFKA_STORAGE_ERROR, e.to_string()));
        }
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        let info = BatchInfo::of(batch, start, self.data.len());
        self.apply(&info, marker);
        self.index.push(info);
        Ok(())
    }
}

/// The bytes to store for a produced batch placed at `base_offset`, and the log append time
/// stamped on it (-1 when the producer's timestamps stay).
fn placed(
    view: &BatchView,
    records: &Bytes,
    base_offset: i64,
    now_ms: i64,
) -> Result<(Vec<u8>, i64), Refusal> {
    if view.header.timestamp_type != TimestampType::LogAppendTime {
        // The checksum starts after the base offset: the field can be rewritten in place.
        let mut bytes = records.to_vec();
        if let Some(slot) = bytes.get_mut(..8) {
            slot.copy_from_slice(&base_offset.to_be_bytes());
        }
        return Ok((bytes, -1));
    }
    // The broker's clock replaces the producer's: the timestamps change, so the batch is
    // written again (with its checksum recomputed).
    let mut stamped = view
        .to_record_batch()
        .map_err(|e| refuse(ErrorCode::CORRUPT_MESSAGE, e.to_string()))?;
    stamped.header.base_offset = base_offset;
    stamped.header.max_timestamp = now_ms;
    for (i, record) in stamped.records.iter_mut().enumerate() {
        record.offset = base_offset + i as i64;
        record.timestamp = now_ms;
    }
    let encoded = stamped
        .encode()
        .map_err(|e| refuse(ErrorCode::INVALID_RECORD, e.to_string()))?;
    Ok((encoded.into_bytes().to_vec(), now_ms))
}

/// The number of records of a batch whose every record reads; 0 when one does not.
fn record_count(batch: &BatchView) -> usize {
    let Ok(records) = batch.records() else {
        return 0;
    };
    let mut count = 0;
    for record in records {
        if record.is_err() {
            return 0;
        }
        count += 1;
    }
    count
}

/// The transaction marker a control batch holds, if it holds one.
fn marker_of(batch: &BatchView) -> Option<TxnMarker> {
    batch
        .control_record()
        .and_then(Result::ok)
        .and_then(|c| c.marker)
}
