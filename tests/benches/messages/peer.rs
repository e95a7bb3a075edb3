//! Each kafka-wire value of the benchmark as a `kafka-protocol` value, field by field: the
//! peer's side of the same description, and the check that both libraries read the same
//! bytes to the same values.

use bytes::Bytes;
use kafka_protocol::messages as kp;
use kafka_protocol::protocol::StrBytes;
use kafka_wire::messages as kw;
use kafka_wire::{KafkaString, Records, UnknownTaggedFields, Uuid};
use std::collections::BTreeMap;

fn string(s: &KafkaString) -> StrBytes {
    StrBytes::from_utf8(s.clone().into_bytes()).expect("a KafkaString is UTF-8")
}

fn records(r: &Option<Records>) -> Option<Bytes> {
    r.as_ref().map(|r| r.as_bytes().clone())
}

fn uuid(id: &Uuid) -> uuid::Uuid {
    uuid::Uuid::from_bytes(*id.as_bytes())
}

/// kafka-protocol keeps one value per tag, in tag order; the benchmark's values have none.
fn tags(unknown: &UnknownTaggedFields) -> BTreeMap<i32, Bytes> {
    unknown
        .iter()
        .map(|f| (f.tag as i32, f.data.clone()))
        .collect()
}

fn brokers(ids: &[i32]) -> Vec<kp::BrokerId> {
    ids.iter().map(|&id| kp::BrokerId(id)).collect()
}

pub fn write_txn_markers_request(v: &kw::WriteTxnMarkersRequest) -> kp::WriteTxnMarkersRequest {
    use kp::write_txn_markers_request::{WritableTxnMarker, WritableTxnMarkerTopic};
    kp::WriteTxnMarkersRequest::default()
        .with_markers(
            v.markers
                .iter()
                .map(|m| {
                    // kafka-protocol 0.18 knows version 1 only, which has no transaction version.
                    assert_eq!(m.transaction_version, 0);
                    WritableTxnMarker::default()
                        .with_producer_id(kp::ProducerId(m.producer_id))
                        .with_producer_epoch(m.producer_epoch)
                        .with_transaction_result(m.transaction_result)
                        .with_topics(
                            m.topics
                                .iter()
                                .map(|t| {
                                    WritableTxnMarkerTopic::default()
                                        .with_name(kp::TopicName(string(&t.name)))
                                        .with_partition_indexes(t.partition_indexes.to_vec())
                                        .with_unknown_tagged_fields(tags(&t.unknown_tagged_fields))
                                })
                                .collect(),
                        )
                        .with_coordinator_epoch(m.coordinator_epoch)
                        .with_unknown_tagged_fields(tags(&m.unknown_tagged_fields))
                })
                .collect(),
        )
        .with_unknown_tagged_fields(tags(&v.unknown_tagged_fields))
}

pub fn write_txn_markers_response(v: &kw::WriteTxnMarkersResponse) -> kp::WriteTxnMarkersResponse {
    use kp::write_txn_markers_response::{
        WritableTxnMarkerPartitionResult, WritableTxnMarkerResult, WritableTxnMarkerTopicResult,
    };
    let partition = |p: &kw::write_txn_markers_response::WritableTxnMarkerPartitionResult| {
        WritableTxnMarkerPartitionResult::default()
            .with_partition_index(p.partition_index)
            .with_error_code(p.error_code)
            .with_unknown_tagged_fields(tags(&p.unknown_tagged_fields))
    };
    kp::WriteTxnMarkersResponse::default()
        .with_markers(
            v.markers
                .iter()
                .map(|m| {
                    WritableTxnMarkerResult::default()
                        .with_producer_id(kp::ProducerId(m.producer_id))
                        .with_topics(
                            m.topics
                                .iter()
                                .map(|t| {
                                    WritableTxnMarkerTopicResult::default()
                                        .with_name(kp::TopicName(string(&t.name)))
                                        .with_partitions(
                                            t.partitions.iter().map(partition).collect(),
                                        )
                                        .with_unknown_tagged_fields(tags(&t.unknown_tagged_fields))
                                })
                                .collect(),
                        )
                        .with_unknown_tagged_fields(tags(&m.unknown_tagged_fields))
                })
                .collect(),
        )
        .with_unknown_tagged_fields(tags(&v.unknown_tagged_fields))
}

pub fn metadata_response(v: &kw::MetadataResponse) -> kp::MetadataResponse {
    use kp::metadata_response::{
        MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
    };
    let broker = |b: &kw::metadata_response::MetadataResponseBroker| {
        MetadataResponseBroker::default()
            .with_node_id(kp::BrokerId(b.node_id))
            .with_host(string(&b.host))
            .with_port(b.port)
            .with_rack(b.rack.as_ref().map(string))
            .with_unknown_tagged_fields(tags(&b.unknown_tagged_fields))
    };
    let partition = |p: &kw::metadata_response::MetadataResponsePartition| {
        MetadataResponsePartition::default()
            .with_error_code(p.error_code)
            .with_partition_index(p.partition_index)
            .with_leader_id(kp::BrokerId(p.leader_id))
            .with_leader_epoch(p.leader_epoch)
            .with_replica_nodes(brokers(&p.replica_nodes.to_vec()))
            .with_isr_nodes(brokers(&p.isr_nodes.to_vec()))
            .with_offline_replicas(brokers(&p.offline_replicas.to_vec()))
            .with_unknown_tagged_fields(tags(&p.unknown_tagged_fields))
    };
    let topic = |t: &kw::metadata_response::MetadataResponseTopic| {
        MetadataResponseTopic::default()
            .with_error_code(t.error_code)
            .with_name(t.name.as_ref().map(|n| kp::TopicName(string(n))))
            .with_topic_id(uuid(&t.topic_id))
            .with_is_internal(t.is_internal)
            .with_partitions(t.partitions.iter().map(partition).collect())
            .with_topic_authorized_operations(t.topic_authorized_operations)
            .with_unknown_tagged_fields(tags(&t.unknown_tagged_fields))
    };
    kp::MetadataResponse::default()
        .with_throttle_time_ms(v.throttle_time_ms)
        .with_brokers(v.brokers.iter().map(broker).collect())
        .with_cluster_id(v.cluster_id.as_ref().map(string))
        .with_controller_id(kp::BrokerId(v.controller_id))
        .with_topics(v.topics.iter().map(topic).collect())
        .with_cluster_authorized_operations(v.cluster_authorized_operations)
        .with_error_code(v.error_code)
        .with_unknown_tagged_fields(tags(&v.unknown_tagged_fields))
}

pub fn produce_request(v: &kw::ProduceRequest) -> kp::ProduceRequest {
    use kp::produce_request::{PartitionProduceData, TopicProduceData};
    let partition = |p: &kw::produce_request::PartitionProduceData| {
        PartitionProduceData::default()
            .with_index(p.index)
            .with_records(records(&p.records))
            .with_unknown_tagged_fields(tags(&p.unknown_tagged_fields))
    };
    let topic = |t: &kw::produce_request::TopicProduceData| {
        TopicProduceData::default()
            .with_name(kp::TopicName(string(&t.name)))
            .with_topic_id(uuid(&t.topic_id))
            .with_partition_data(t.partition_data.iter().map(partition).collect())
            .with_unknown_tagged_fields(tags(&t.unknown_tagged_fields))
    };
    kp::ProduceRequest::default()
        .with_transactional_id(
            v.transactional_id
                .as_ref()
                .map(|id| kp::TransactionalId(string(id))),
        )
        .with_acks(v.acks)
        .with_timeout_ms(v.timeout_ms)
        .with_topic_data(v.topic_data.iter().map(topic).collect())
        .with_unknown_tagged_fields(tags(&v.unknown_tagged_fields))
}

pub fn fetch_response(v: &kw::FetchResponse) -> kp::FetchResponse {
    use kp::fetch_response::{
        AbortedTransaction, EpochEndOffset, FetchableTopicResponse, LeaderIdAndEpoch, NodeEndpoint,
        PartitionData, SnapshotId,
    };
    let aborted = |a: &kw::fetch_response::AbortedTransaction| {
        AbortedTransaction::default()
            .with_producer_id(kp::ProducerId(a.producer_id))
            .with_first_offset(a.first_offset)
            .with_unknown_tagged_fields(tags(&a.unknown_tagged_fields))
    };
    let partition = |p: &kw::fetch_response::PartitionData| {
        PartitionData::default()
            .with_partition_index(p.partition_index)
            .with_error_code(p.error_code)
            .with_high_watermark(p.high_watermark)
            .with_last_stable_offset(p.last_stable_offset)
            .with_log_start_offset(p.log_start_offset)
            .with_diverging_epoch(
                EpochEndOffset::default()
                    .with_epoch(p.diverging_epoch.epoch)
                    .with_end_offset(p.diverging_epoch.end_offset)
                    .with_unknown_tagged_fields(tags(&p.diverging_epoch.unknown_tagged_fields)),
            )
            .with_current_leader(
                LeaderIdAndEpoch::default()
                    .with_leader_id(kp::BrokerId(p.current_leader.leader_id))
                    .with_leader_epoch(p.current_leader.leader_epoch)
                    .with_unknown_tagged_fields(tags(&p.current_leader.unknown_tagged_fields)),
            )
            .with_snapshot_id(
                SnapshotId::default()
                    .with_end_offset(p.snapshot_id.end_offset)
                    .with_epoch(p.snapshot_id.epoch)
                    .with_unknown_tagged_fields(tags(&p.snapshot_id.unknown_tagged_fields)),
            )
            .with_aborted_transactions(
                p.aborted_transactions
                    .as_ref()
                    .map(|list| list.iter().map(aborted).collect()),
            )
            .with_preferred_read_replica(kp::BrokerId(p.preferred_read_replica))
            .with_records(records(&p.records))
            .with_unknown_tagged_fields(tags(&p.unknown_tagged_fields))
    };
    let topic = |t: &kw::fetch_response::FetchableTopicResponse| {
        FetchableTopicResponse::default()
            .with_topic(kp::TopicName(string(&t.topic)))
            .with_topic_id(uuid(&t.topic_id))
            .with_partitions(t.partitions.iter().map(partition).collect())
            .with_unknown_tagged_fields(tags(&t.unknown_tagged_fields))
    };
    let endpoint = |e: &kw::fetch_response::NodeEndpoint| {
        NodeEndpoint::default()
            .with_node_id(kp::BrokerId(e.node_id))
            .with_host(string(&e.host))
            .with_port(e.port)
            .with_rack(e.rack.as_ref().map(string))
            .with_unknown_tagged_fields(tags(&e.unknown_tagged_fields))
    };
    kp::FetchResponse::default()
        .with_throttle_time_ms(v.throttle_time_ms)
        .with_error_code(v.error_code)
        .with_session_id(v.session_id)
        .with_responses(v.responses.iter().map(topic).collect())
        .with_node_endpoints(v.node_endpoints.iter().map(endpoint).collect())
        .with_unknown_tagged_fields(tags(&v.unknown_tagged_fields))
}
