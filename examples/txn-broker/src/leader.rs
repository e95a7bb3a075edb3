//! THROWAWAY STUB of the partition leaders, with the signatures of the shared design only, so
//! that the server compiles in this worktree. The real module replaces this file on merge.

use crate::cluster::{BrokerId, Cluster, TopicPartition};
use crate::storage::Storage;
use kafka_wire::messages::{
    FetchRequest, FetchResponse, ListOffsetsRequest, ListOffsetsResponse, ProduceRequest,
    ProduceResponse, WriteTxnMarkersRequest, WriteTxnMarkersResponse,
};

/// Which listener a request came in on. WriteTxnMarkers is only accepted on InterBroker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listener {
    Client,
    InterBroker,
}

/// Stub: leads nothing.
pub struct Leaders {
    _broker: BrokerId,
    _storage: Box<dyn Storage>,
}

impl Leaders {
    pub fn new(broker: BrokerId, storage: Box<dyn Storage>) -> Self {
        Self {
            _broker: broker,
            _storage: storage,
        }
    }

    pub fn sync(&mut self, _cluster: &Cluster) -> std::io::Result<()> {
        Ok(())
    }

    pub fn produce(&mut self, _req: &ProduceRequest, _version: i16) -> ProduceResponse {
        ProduceResponse::default()
    }

    pub fn write_txn_markers(
        &mut self,
        _req: &WriteTxnMarkersRequest,
        _version: i16,
        _listener: Listener,
    ) -> WriteTxnMarkersResponse {
        WriteTxnMarkersResponse::default()
    }

    pub fn fetch(&self, _req: &FetchRequest, _version: i16) -> FetchResponse {
        FetchResponse::default()
    }

    pub fn list_offsets(&self, _req: &ListOffsetsRequest, _version: i16) -> ListOffsetsResponse {
        ListOffsetsResponse::default()
    }

    pub fn batches(&self, _tp: &TopicPartition) -> Option<Vec<kafka_wire::records::RecordBatch>> {
        None
    }
}
