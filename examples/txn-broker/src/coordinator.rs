//! THROWAWAY STUB of the transaction coordinator, with the signatures of the shared design
//! only, so that the server compiles in this worktree. The real module replaces this file on
//! merge.

use crate::cluster::{BrokerId, Cluster};
use crate::storage::Storage;
use kafka_wire::messages::{
    AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, EndTxnRequest, EndTxnResponse,
    InitProducerIdRequest, InitProducerIdResponse, WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};

/// Stub: coordinates nothing.
pub struct Coordinator {
    _broker: BrokerId,
    _storage: Box<dyn Storage>,
}

/// Stub of the per-transaction summary the real module defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxnSummary;

/// One WriteTxnMarkers request to send in phase 2.
pub struct MarkerSend {
    pub id: u64,
    pub broker: BrokerId,
    pub request: WriteTxnMarkersRequest,
}

impl Coordinator {
    pub fn load(broker: BrokerId, storage: Box<dyn Storage>) -> std::io::Result<Self> {
        Ok(Self {
            _broker: broker,
            _storage: storage,
        })
    }

    pub fn epoch(&self) -> i32 {
        0
    }

    pub fn init_producer_id(
        &mut self,
        _req: &InitProducerIdRequest,
        _version: i16,
        _now_ms: u64,
    ) -> InitProducerIdResponse {
        InitProducerIdResponse::default()
    }

    pub fn add_partitions_to_txn(
        &mut self,
        _req: &AddPartitionsToTxnRequest,
        _version: i16,
        _cluster: &Cluster,
        _now_ms: u64,
    ) -> AddPartitionsToTxnResponse {
        AddPartitionsToTxnResponse::default()
    }

    pub fn end_txn(&mut self, _req: &EndTxnRequest, _version: i16, _now_ms: u64) -> EndTxnResponse {
        EndTxnResponse::default()
    }

    pub fn poll_markers(&mut self, _cluster: &Cluster, _now_ms: u64) -> Vec<MarkerSend> {
        Vec::new()
    }

    pub fn on_marker_result(
        &mut self,
        _id: u64,
        _result: Option<&WriteTxnMarkersResponse>,
        _now_ms: u64,
    ) {
    }

    pub fn tick(&mut self, _now_ms: u64) {}

    pub fn state_of(&self, _transactional_id: &str) -> Option<TxnSummary> {
        None
    }
}
