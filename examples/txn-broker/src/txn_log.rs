//! The coordinator's durable transaction log.
//!
//! Its records are ordinary structs with `#[derive(KafkaMessage)]`, the way any user of
//! kafka-wire would describe a private schema. The file `txn-log` is a sequence of frames:
//!
//! ```text
//! [i32 length of what follows][i16 record kind][i16 record version][record bytes]
//! ```
//!
//! Every append goes through [`Storage::append`], which is durable when it returns. On
//! recovery a last frame that stops short (a write cut by a crash) is cut off; anything else
//! that does not parse is reported as [`io::ErrorKind::InvalidData`].

use std::io;

use kafka_wire::{Decode, Encode, KafkaMessage, UnknownTaggedFields};

use crate::storage::Storage;

/// The name of the log in the broker's storage.
pub const TXN_LOG_FILE: &str = "txn-log";

/// Bytes before a frame's payload: the length, then kind and version.
const LENGTH_BYTES: usize = 4;
/// Kind and version, counted by the length.
const KIND_VERSION_BYTES: usize = 4;
/// The largest frame accepted on recovery; a bigger length is taken as corruption.
const MAX_FRAME: usize = 16 << 20;

/// The whole durable state of one transactional id, written at every change of it.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0", flexible = "0+")]
pub struct TxnMetadataRecord {
    #[kafka(versions = "0+")]
    pub transactional_id: String,
    #[kafka(versions = "0+")]
    pub producer_id: i64,
    #[kafka(versions = "0+")]
    pub producer_epoch: i16,
    /// The producer id and epoch the client held before the last bump (-1 when none), so a
    /// retried request that lost its answer can be recognised.
    #[kafka(versions = "0+")]
    pub prev_producer_id: i64,
    #[kafka(versions = "0+")]
    pub prev_producer_epoch: i16,
    /// Transaction version 2 only: the producer id handed to the client when finishing this
    /// transaction exhausted the epoch (-1 when none); it takes over at completion.
    #[kafka(versions = "0+")]
    pub next_producer_id: i64,
    #[kafka(versions = "0+")]
    pub timeout_ms: i32,
    /// See `coordinator::TxnState` for the codes.
    #[kafka(versions = "0+")]
    pub state: i8,
    #[kafka(versions = "0+")]
    pub topics: Vec<TxnTopicRecord>,
    #[kafka(versions = "0+")]
    pub txn_start_ms: i64,
    #[kafka(versions = "0+")]
    pub last_update_ms: i64,
    /// 1 for the classic protocol, 2 when the epoch is bumped at every EndTxn.
    #[kafka(versions = "0+")]
    pub transaction_version: i8,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The partitions of one topic that a transaction has written to.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
pub struct TxnTopicRecord {
    #[kafka(versions = "0+")]
    pub name: String,
    #[kafka(versions = "0+")]
    pub partitions: Vec<i32>,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// Written each time the log is loaded: the coordinator epoch of that incarnation.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0", flexible = "0+")]
pub struct CoordinatorEpochRecord {
    #[kafka(versions = "0+")]
    pub coordinator_epoch: i32,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// Producer ids below `block_end` may have been handed out; a restart continues above it.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(versions = "0", flexible = "0+")]
pub struct ProducerIdBlockRecord {
    #[kafka(versions = "0+")]
    pub block_end: i64,
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One entry of the log.
#[derive(Debug, Clone, PartialEq)]
pub enum LogRecord {
    Txn(TxnMetadataRecord),
    CoordinatorEpoch(CoordinatorEpochRecord),
    ProducerIdBlock(ProducerIdBlockRecord),
}

const KIND_TXN: i16 = 0;
const KIND_COORDINATOR_EPOCH: i16 = 1;
const KIND_PRODUCER_ID_BLOCK: i16 = 2;
const RECORD_VERSION: i16 = 0;

fn invalid(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

impl LogRecord {
    fn kind(&self) -> i16 {
        match self {
            LogRecord::Txn(_) => KIND_TXN,
            LogRecord::CoordinatorEpoch(_) => KIND_COORDINATOR_EPOCH,
            LogRecord::ProducerIdBlock(_) => KIND_PRODUCER_ID_BLOCK,
        }
    }

    /// The record as one frame of the log file.
    pub fn to_frame(&self) -> io::Result<Vec<u8>> {
        let body = match self {
            LogRecord::Txn(r) => r.encode_to_bytes(RECORD_VERSION),
            LogRecord::CoordinatorEpoch(r) => r.encode_to_bytes(RECORD_VERSION),
            LogRecord::ProducerIdBlock(r) => r.encode_to_bytes(RECORD_VERSION),
        }
        .map_err(|e| invalid(format!("txn-log record: {e}")))?;
        let len = KIND_VERSION_BYTES + body.len();
        if len > MAX_FRAME {
            return Err(invalid(format!(
                "txn-log record of {len} bytes is too large"
            )));
        }
        let mut frame = Vec::with_capacity(LENGTH_BYTES + len);
        frame.extend_from_slice(&(len as i32).to_be_bytes());
        frame.extend_from_slice(&self.kind().to_be_bytes());
        frame.extend_from_slice(&RECORD_VERSION.to_be_bytes());
        frame.extend_from_slice(&body);
        Ok(frame)
    }

    fn from_payload(offset: usize, kind: i16, version: i16, body: &[u8]) -> io::Result<Self> {
        if version != RECORD_VERSION {
            return Err(invalid(format!(
                "txn-log frame at byte {offset}: unknown record version {version}"
            )));
        }
        let err =
            |e: kafka_wire::DecodeError| invalid(format!("txn-log frame at byte {offset}: {e}"));
        Ok(match kind {
            KIND_TXN => LogRecord::Txn(TxnMetadataRecord::from_slice(body, version).map_err(err)?),
            KIND_COORDINATOR_EPOCH => LogRecord::CoordinatorEpoch(
                CoordinatorEpochRecord::from_slice(body, version).map_err(err)?,
            ),
            KIND_PRODUCER_ID_BLOCK => LogRecord::ProducerIdBlock(
                ProducerIdBlockRecord::from_slice(body, version).map_err(err)?,
            ),
            other => {
                return Err(invalid(format!(
                    "txn-log frame at byte {offset}: unknown record kind {other}"
                )))
            }
        })
    }
}

/// Reads every complete frame of `data`. Returns the records and the length of the bytes they
/// take; whatever follows is a torn last frame. A frame that is complete but malformed is an
/// error.
pub fn parse_frames(data: &[u8]) -> io::Result<(Vec<LogRecord>, usize)> {
    let mut records = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let rest = &data[pos..];
        if rest.len() < LENGTH_BYTES {
            break;
        }
        let len = i32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]);
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| (KIND_VERSION_BYTES..=MAX_FRAME).contains(&l))
            .ok_or_else(|| invalid(format!("txn-log frame at byte {pos}: bad length {len}")))?;
        if rest.len() < LENGTH_BYTES + len {
            break;
        }
        let payload = &rest[LENGTH_BYTES..LENGTH_BYTES + len];
        let kind = i16::from_be_bytes([payload[0], payload[1]]);
        let version = i16::from_be_bytes([payload[2], payload[3]]);
        records.push(LogRecord::from_payload(
            pos,
            kind,
            version,
            &payload[KIND_VERSION_BYTES..],
        )?);
        pos += LENGTH_BYTES + len;
    }
    Ok((records, pos))
}

/// The open log: appends go to the end of the storage file.
pub struct TxnLog {
    storage: Box<dyn Storage>,
    /// Bytes of whole frames in the file.
    len: u64,
}

impl TxnLog {
    /// Reads the log, cuts a torn last frame off the file, and returns the log ready for
    /// appends with every record it held, oldest first.
    pub fn open(mut storage: Box<dyn Storage>) -> io::Result<(Self, Vec<LogRecord>)> {
        let data = storage.read(TXN_LOG_FILE)?;
        let (records, valid) = parse_frames(&data)?;
        if valid < data.len() {
            storage.truncate(TXN_LOG_FILE, valid as u64)?;
        }
        Ok((
            TxnLog {
                storage,
                len: valid as u64,
            },
            records,
        ))
    }

    /// Appends `record`; durable when this returns `Ok`. After a failed write the file is cut
    /// back to its last whole frame when possible, so later frames stay readable.
    pub fn append(&mut self, record: &LogRecord) -> io::Result<()> {
        let frame = record.to_frame()?;
        match self.storage.append(TXN_LOG_FILE, &frame) {
            Ok(()) => {
                self.len += frame.len() as u64;
                Ok(())
            }
            Err(e) => {
                let _ = self.storage.truncate(TXN_LOG_FILE, self.len);
                Err(e)
            }
        }
    }

    /// Bytes of the log file.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether nothing was ever written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemStorage;

    fn sample_txn() -> TxnMetadataRecord {
        TxnMetadataRecord {
            transactional_id: "payments-7".into(),
            producer_id: 4001,
            producer_epoch: 12,
            prev_producer_id: 4001,
            prev_producer_epoch: 11,
            next_producer_id: -1,
            timeout_ms: 60_000,
            state: 2,
            topics: vec![
                TxnTopicRecord {
                    name: "orders".into(),
                    partitions: vec![0, 2],
                    ..Default::default()
                },
                TxnTopicRecord {
                    name: "audit".into(),
                    partitions: vec![1],
                    ..Default::default()
                },
            ],
            txn_start_ms: 1_000,
            last_update_ms: 1_250,
            transaction_version: 2,
            ..Default::default()
        }
    }

    #[test]
    fn records_round_trip_through_the_derive() {
        let txn = sample_txn();
        let bytes = txn.encode_to_bytes(0).unwrap();
        assert_eq!(bytes.len(), txn.encoded_len(0).unwrap());
        assert_eq!(TxnMetadataRecord::decode_exact(bytes, 0).unwrap(), txn);
        // Only version 0 exists.
        assert!(txn.encode_to_bytes(1).is_err());

        let records = vec![
            LogRecord::CoordinatorEpoch(CoordinatorEpochRecord {
                coordinator_epoch: 3,
                ..Default::default()
            }),
            LogRecord::Txn(txn),
            LogRecord::ProducerIdBlock(ProducerIdBlockRecord {
                block_end: 2000,
                ..Default::default()
            }),
        ];
        let mut file = Vec::new();
        for r in &records {
            file.extend(r.to_frame().unwrap());
        }
        let (back, used) = parse_frames(&file).unwrap();
        assert_eq!(back, records);
        assert_eq!(used, file.len());
    }

    #[test]
    fn torn_tail_is_cut_and_earlier_frames_survive() {
        let storage = MemStorage::default();
        let first = LogRecord::Txn(sample_txn());
        let (mut log, records) = TxnLog::open(Box::new(storage.clone())).unwrap();
        assert!(records.is_empty() && log.is_empty());
        log.append(&first).unwrap();
        let whole = log.len();
        // A second frame cut short by a crash, at every possible point.
        let second = LogRecord::CoordinatorEpoch(CoordinatorEpochRecord {
            coordinator_epoch: 9,
            ..Default::default()
        })
        .to_frame()
        .unwrap();
        for cut in 1..second.len() {
            let mut s = storage.clone();
            s.append(TXN_LOG_FILE, &second[..cut]).unwrap();
            let (log, records) = TxnLog::open(Box::new(storage.clone())).unwrap();
            assert_eq!(records, vec![first.clone()], "cut at {cut}");
            assert_eq!(log.len(), whole);
            assert_eq!(storage.read(TXN_LOG_FILE).unwrap().len() as u64, whole);
        }
    }

    #[test]
    fn corrupt_frames_are_errors() {
        let good = LogRecord::Txn(sample_txn()).to_frame().unwrap();
        // An unknown kind, followed by a good frame.
        let mut bad_kind = good.clone();
        bad_kind[4..6].copy_from_slice(&77i16.to_be_bytes());
        bad_kind.extend(&good);
        assert_eq!(
            parse_frames(&bad_kind).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        // A body that does not decode (a string length past the end of the frame).
        let mut bad_body = good.clone();
        bad_body[8] = 0xff;
        assert!(parse_frames(&bad_body).is_err());
        // A negative length.
        let mut bad_len = good.clone();
        bad_len[0..4].copy_from_slice(&(-5i32).to_be_bytes());
        assert!(parse_frames(&bad_len).is_err());
        // An unknown record version.
        let mut bad_version = good;
        bad_version[6..8].copy_from_slice(&3i16.to_be_bytes());
        assert!(parse_frames(&bad_version).is_err());
        // And the log refuses to open over it.
        let mut storage = MemStorage::default();
        storage.append(TXN_LOG_FILE, &bad_kind).unwrap();
        assert!(TxnLog::open(Box::new(storage)).is_err());
    }
}
