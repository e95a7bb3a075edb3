//! WriteTxnMarkersResponse (API key 27), versions 0-2, flexible from 1.
//!
//! Schema: `WriteTxnMarkersResponse.json` in Kafka's `clients/src/main/resources/common/message`.

use crate::{KafkaMessage, KafkaString, UnknownTaggedFields};

/// A partition leader's answer: an error code per marker, topic and partition.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
#[kafka(key = 27, versions = "0-2", flexible = "1+")]
pub struct WriteTxnMarkersResponse {
    /// `[]WritableTxnMarkerResult`, versions 0+.
    #[kafka(versions = "0+")]
    pub markers: Vec<WritableTxnMarkerResult>,
    /// Tagged fields this version does not define.
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The results for one producer's marker.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
pub struct WritableTxnMarkerResult {
    /// `int64`, versions 0+, entity type `producerId`.
    #[kafka(versions = "0+")]
    pub producer_id: i64,
    /// `[]WritableTxnMarkerTopicResult`, versions 0+.
    #[kafka(versions = "0+")]
    pub topics: Vec<WritableTxnMarkerTopicResult>,
    /// Tagged fields this version does not define.
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The results for one topic.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
pub struct WritableTxnMarkerTopicResult {
    /// `string`, versions 0+, entity type `topicName`.
    #[kafka(versions = "0+")]
    pub name: KafkaString,
    /// `[]WritableTxnMarkerPartitionResult`, versions 0+.
    #[kafka(versions = "0+")]
    pub partitions: Vec<WritableTxnMarkerPartitionResult>,
    /// Tagged fields this version does not define.
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}

/// The result for one partition.
#[derive(Debug, Clone, PartialEq, Default, KafkaMessage)]
pub struct WritableTxnMarkerPartitionResult {
    /// `int32`, versions 0+.
    #[kafka(versions = "0+")]
    pub partition_index: i32,
    /// `int16`, versions 0+.
    #[kafka(versions = "0+")]
    pub error_code: i16,
    /// Tagged fields this version does not define.
    #[kafka(unknown_tagged_fields)]
    pub unknown_tagged_fields: UnknownTaggedFields,
}
