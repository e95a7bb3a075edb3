//! The fencing rules: how the coordinator and the leaders tell the current incarnation of a
//! producer, and of the coordinator, from an older one that is still running, and refuse the
//! older one. Each rule is one function here, with the reason for it; the coordinator and the
//! leaders call them where the rule applies.
//!
//! Three numbers carry the fencing:
//!
//! - **The producer epoch.** A new incarnation of a transactional producer (InitProducerId),
//!   a timeout and, with transaction version 2, every EndTxn move its transactional id to a
//!   higher epoch. The coordinator then refuses requests that name an older one
//!   ([`check_producer`]) and the leaders refuse data and markers with an older one
//!   ([`check_data_epoch`], [`judge_marker`]).
//! - **The coordinator epoch.** Each load of the transaction log raises it and every marker
//!   carries it. A leader refuses a marker from an older coordinator than the last one it heard
//!   from for that producer, and a coordinator told so stops sending ([`marker_answer`]).
//! - **The transaction version.** Version 1 keeps the producer epoch from one transaction to
//!   the next, so a late marker of transaction N looks like one for N+1: the coordinator holds
//!   the next transaction back until the markers of the last are delivered
//!   ([`check_markers_delivered`]). Version 2 bumps the epoch at every EndTxn, and its markers
//!   must carry an epoch above that of the data they end ([`judge_marker`]).

use kafka_wire::messages::write_txn_markers_request::WritableTxnMarker;
use kafka_wire::ErrorCode;

use crate::coordinator::{TxnMeta, TxnState};
use crate::leader::Listener;

/// A request a rule refused: the code to answer with, and why (for the trace, and for the
/// error message of the answers that carry one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fenced {
    pub code: ErrorCode,
    pub reason: String,
}

fn fenced<T>(code: ErrorCode, reason: String) -> Result<T, Fenced> {
    Err(Fenced { code, reason })
}

// ---------------------------------------------------------------------------------------------
// At the coordinator: the producer epoch.

/// From this epoch on a producer id is used up: the next bump moves the transactional id to a
/// new producer id at epoch 0. Stopping short of `i16::MAX` leaves room for the one bump that
/// fences the last epoch ([`next_epoch`]).
pub const EXHAUSTED_EPOCH: i16 = i16::MAX - 1;

/// The error a fenced producer gets: PRODUCER_FENCED from the first version of the request that
/// knows the code, INVALID_PRODUCER_EPOCH before it. Older clients do not know PRODUCER_FENCED,
/// and both are fatal to the producer.
pub fn fenced_error(version: i16, first_version_with_fenced: i16) -> ErrorCode {
    if version >= first_version_with_fenced {
        ErrorCode::PRODUCER_FENCED
    } else {
        ErrorCode::INVALID_PRODUCER_EPOCH
    }
}

/// The epoch that fences `epoch`: the next one. At `i16::MAX` there is none and the epoch
/// stays; an epoch gets there only from [`EXHAUSTED_EPOCH`], whose next bump moves the producer
/// to a new producer id anyway.
pub fn next_epoch(epoch: i16) -> i16 {
    if epoch < i16::MAX {
        epoch + 1
    } else {
        epoch
    }
}

/// Whether `epoch` has used up its producer id (see [`EXHAUSTED_EPOCH`]).
pub fn epoch_exhausted(epoch: i16) -> bool {
    epoch >= EXHAUSTED_EPOCH
}

/// A transactional request must name the producer id and epoch its transactional id has now.
/// Another epoch of a producer id the transactional id has had (the one its client holds, the
/// one its record names while it moves to a new one, the one before the last bump) comes from
/// a fenced incarnation, a zombie, and is answered `fenced`: serving it would let two instances
/// run one transactional id's transactions. A producer id it never had is
/// INVALID_PRODUCER_ID_MAPPING: the client holds an id that is not this transactional id's.
pub fn check_producer(meta: &TxnMeta, given: (i64, i16), fenced: ErrorCode) -> Result<(), Fenced> {
    let (pid, current) = meta.identity();
    if given == (pid, current) {
        return Ok(());
    }
    let (producer_id, epoch) = given;
    let known = producer_id == pid
        || producer_id == meta.producer_id
        || producer_id == meta.prev_producer_id;
    if !known {
        return self::fenced(
            ErrorCode::INVALID_PRODUCER_ID_MAPPING,
            format!("producer id {producer_id} is not this transactional id's ({pid})"),
        );
    }
    self::fenced(
        fenced,
        format!(
            "fenced zombie producer {producer_id} epoch {epoch} (current {pid} epoch {current})"
        ),
    )
}

/// InitProducerId (v3 on) naming the producer id and epoch the transactional id had before its
/// last bump is that bump again, sent by a producer that did not get the answer: it gets the
/// same answer, not a second bump and not a fencing error. While a transaction is open it is
/// no retry (the producer that got the bumped epoch has begun a transaction with it, so the
/// answer did arrive), and it is checked like any other.
///
/// A fencing abort does not record the epoch it fences as the one before the bump (see
/// [`fence_open_transaction`]): this rule and [`is_retried_end_txn`] would otherwise hand the
/// current epoch back to the fenced incarnation.
pub fn is_retried_bump(meta: &TxnMeta, given: (i64, i16)) -> bool {
    given == meta.prev_identity() && meta.state != TxnState::Ongoing
}

/// Fences the incarnation that has a transaction open when a new one starts (InitProducerId):
/// the epoch is bumped, and the abort that follows carries the new epoch to every partition
/// of the transaction, where it fences the old incarnation's writes. The previous identity is
/// cleared, not set to the fenced one: the retry rules match on it.
pub fn fence_open_transaction(meta: &mut TxnMeta) {
    meta.prev_producer_id = -1;
    meta.prev_producer_epoch = -1;
    meta.producer_epoch = next_epoch(meta.producer_epoch);
}

// ---------------------------------------------------------------------------------------------
// At the coordinator: the transaction version.

/// The transaction version an EndTxn asks for: 2 from EndTxn v5 on, which has the coordinator
/// bump the epoch at every EndTxn and answer with it, else 1.
pub fn transaction_version(end_txn_version: i16) -> i8 {
    if end_txn_version >= 5 {
        2
    } else {
        1
    }
}

/// EndTxn (transaction version 2) naming the epoch before the bump while its transaction is
/// being finished or is finished: the producer did not get the answer, and with it the bumped
/// epoch, of its EndTxn. It is told the outcome again, not fenced.
pub fn is_retried_end_txn(meta: &TxnMeta, given: (i64, i16), transaction_version: i8) -> bool {
    let finishing = meta.state.is_prepare() || meta.state.is_complete();
    transaction_version >= 2 && finishing && given == meta.prev_identity()
}

/// Nothing new begins for a transactional id while the markers of its last decision are out:
/// AddPartitionsToTxn, EndTxn and InitProducerId are answered CONCURRENT_TRANSACTIONS, which
/// clients retry. With transaction version 1 a late marker of the last transaction cannot be
/// told from one of the next, so the next must not start before every marker is in; this
/// narrows the window, it cannot close it against a copy delayed on the way.
pub fn check_markers_delivered(state: TxnState) -> Result<(), Fenced> {
    if state.is_prepare() {
        return fenced(
            ErrorCode::CONCURRENT_TRANSACTIONS,
            format!("the markers of {state:?} are still out"),
        );
    }
    Ok(())
}

/// The WriteTxnMarkers version for a request carrying `markers`: 2 when one belongs to a
/// transaction of version 2, else 1. The field that tells a leader the transaction version
/// exists from v2 on; sent at v1, a version 2 marker would be held to the version 1 rule.
pub fn write_txn_markers_version(markers: &[WritableTxnMarker]) -> i16 {
    if markers.iter().any(|m| m.transaction_version >= 2) {
        2
    } else {
        1
    }
}

/// What the coordinator makes of a leader's answer for one partition's marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerAnswer {
    /// The marker is in the partition (or was already).
    Acknowledged,
    /// INVALID_PRODUCER_EPOCH: the partition has moved past this transaction to a newer epoch
    /// of the producer, so there is nothing left to end there. Counted as acknowledged.
    Superseded,
    /// TRANSACTION_COORDINATOR_FENCED: the leader has heard from a newer coordinator for this
    /// producer. This one is deposed and sends nothing more for the transaction; the newer one
    /// finishes it.
    Deposed,
    /// Anything else (not the leader, storage error, ...): sent again after a backoff.
    Retry,
}

/// See [`MarkerAnswer`].
pub fn marker_answer(code: ErrorCode) -> MarkerAnswer {
    match code {
        ErrorCode::NONE => MarkerAnswer::Acknowledged,
        ErrorCode::INVALID_PRODUCER_EPOCH => MarkerAnswer::Superseded,
        ErrorCode::TRANSACTION_COORDINATOR_FENCED => MarkerAnswer::Deposed,
        _ => MarkerAnswer::Retry,
    }
}

// ---------------------------------------------------------------------------------------------
// At a partition leader.

/// Markers come only from the coordinator, over the inter-broker listener. A client that sent
/// one could commit or abort a transaction on its own, bypassing the coordinator's decision.
pub fn check_marker_listener(listener: Listener) -> Result<(), Fenced> {
    if listener != Listener::InterBroker {
        return fenced(
            ErrorCode::CLUSTER_AUTHORIZATION_FAILED,
            "it came in on the client listener".to_owned(),
        );
    }
    Ok(())
}

/// A data batch with a producer epoch older than the newest the partition has seen for its
/// producer comes from a fenced incarnation (a zombie) and is refused with
/// INVALID_PRODUCER_EPOCH.
pub fn check_data_epoch(batch_epoch: i16, current: i16) -> Result<(), Fenced> {
    if batch_epoch < current {
        return fenced(
            ErrorCode::INVALID_PRODUCER_EPOCH,
            format!("producer epoch {batch_epoch} is older than the current epoch {current}"),
        );
    }
    Ok(())
}

/// What a partition knows of a producer when a marker for it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProducerAtLeader {
    /// The newest producer epoch seen here.
    pub epoch: i16,
    /// The coordinator epoch of the last marker written here for it; -1 before any.
    pub coordinator_epoch: i32,
    /// The epoch of the data that opened its transaction here, if one is open.
    pub open_epoch: Option<i16>,
}

/// A marker's fencing facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarkerEpochs {
    pub producer_epoch: i16,
    pub coordinator_epoch: i32,
    pub transaction_version: i8,
}

/// What a leader does with a marker its rules let through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerAction {
    /// Append the control batch.
    Write,
    /// Answer success and write nothing.
    NoOp,
}

/// The rules for a marker at a leader, in the order they apply, given what the partition knows
/// of the producer (`None`: it has never written here).
///
/// 1. A coordinator epoch below the last one seen for the producer is an older coordinator,
///    paused and woken, retrying a transaction the newer one may have finished while the
///    producer began its next: TRANSACTION_COORDINATOR_FENCED.
/// 2. A producer epoch below the current one ends a transaction from before a bump, which the
///    bump already aborted: INVALID_PRODUCER_EPOCH.
/// 3. With no transaction open, the marker is a copy of one already applied, or the
///    transaction never wrote here: a no-op, answered with success so the coordinator counts
///    it as delivered. The exception is a producer epoch newer than any seen here: the marker
///    is written, so that the bump is on record and fences the older epoch here too (a zombie
///    could otherwise open a transaction here that no marker would ever end). Epoch 0 of an
///    unknown producer is no bump.
/// 4. Transaction version 2: the marker must carry an epoch above that of the open
///    transaction's data. Its EndTxn bumped the epoch, and the next transaction's data carries
///    the bumped one; a late copy of the previous marker has exactly that epoch and is refused
///    with INVALID_PRODUCER_EPOCH instead of ending the wrong transaction. Version 1 markers
///    keep rule 2 alone, since their epoch equals their data's.
pub fn judge_marker(
    marker: MarkerEpochs,
    producer: Option<ProducerAtLeader>,
) -> Result<MarkerAction, Fenced> {
    if let Some(known) = producer {
        if marker.coordinator_epoch < known.coordinator_epoch {
            return fenced(
                ErrorCode::TRANSACTION_COORDINATOR_FENCED,
                format!(
                    "coordinator epoch {} < {} already seen",
                    marker.coordinator_epoch, known.coordinator_epoch
                ),
            );
        }
        if marker.producer_epoch < known.epoch {
            return fenced(
                ErrorCode::INVALID_PRODUCER_EPOCH,
                format!("epoch {} < current {}", marker.producer_epoch, known.epoch),
            );
        }
    }
    let open_epoch = producer.and_then(|p| p.open_epoch);
    let newer_epoch = producer.map_or(marker.producer_epoch > 0, |p| {
        marker.producer_epoch > p.epoch
    });
    let Some(open_epoch) = open_epoch else {
        return Ok(if newer_epoch {
            MarkerAction::Write
        } else {
            MarkerAction::NoOp
        });
    };
    if marker.transaction_version >= 2 && marker.producer_epoch <= open_epoch {
        return fenced(
            ErrorCode::INVALID_PRODUCER_EPOCH,
            format!(
                "transaction version 2 needs an epoch above {open_epoch}, got {}",
                marker.producer_epoch
            ),
        );
    }
    Ok(MarkerAction::Write)
}

#[cfg(test)]
mod tests;
