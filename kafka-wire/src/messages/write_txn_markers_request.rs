//! WriteTxnMarkersRequest (API key 27), versions 0-2, flexible from 1.
//!
//! Schema: `WriteTxnMarkersRequest.json` in Kafka's `clients/src/main/resources/common/message`;
//! versions 0-1 as Kafka 3.9 defines them, version 2 (with `transaction_version`) as 4.2+ does.

use crate::{KafkaMessage, KafkaString, UnknownTaggedFields};

/// Sent by a transaction coordinator to partition leaders to append COMMIT or ABORT markers.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(key = 27, versions = "0-2", flexible = "1+")]
pub struct WriteTxnMarkersRequest {
    /// `[]WritableTxnMarker`, versions 0+.
    #[kafka(versions = "0+")]
    pub markers: Vec<WritableTxnMarker>,
    /// Tagged fields this version does not define.
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// One transaction's marker, for all its partitions.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
pub struct WritableTxnMarker {
    /// `int64`, versions 0+, entity type `producerId`.
    #[kafka(versions = "0+")]
    pub producer_id: i64,
    /// `int16`, versions 0+.
    #[kafka(versions = "0+")]
    pub producer_epoch: i16,
    /// `bool`, versions 0+: `true` for COMMIT, `false` for ABORT.
    #[kafka(versions = "0+")]
    pub transaction_result: bool,
    /// `[]WritableTxnMarkerTopic`, versions 0+.
    #[kafka(versions = "0+")]
    pub topics: Vec<WritableTxnMarkerTopic>,
    /// `int32`, versions 0+.
    #[kafka(versions = "0+")]
    pub coordinator_epoch: i32,
    /// `int8`, versions 2+, ignorable, default 0.
    #[kafka(versions = "2+", ignorable, default = 0)]
    pub transaction_version: i8,
    /// Tagged fields this version does not define.
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The partitions of one topic that get the marker.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
pub struct WritableTxnMarkerTopic {
    /// `string`, versions 0+, entity type `topicName`.
    #[kafka(versions = "0+")]
    pub name: KafkaString,
    /// `[]int32`, versions 0+.
    #[kafka(versions = "0+")]
    pub partition_indexes: Vec<i32>,
    /// Tagged fields this version does not define.
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}
