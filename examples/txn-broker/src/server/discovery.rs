//! How a client finds its way: Metadata (the brokers and who leads each partition) and
//! FindCoordinator (who coordinates transactions), both answered from the cluster file.

use kafka_wire::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::messages::{
    FindCoordinatorRequest, FindCoordinatorResponse, MetadataRequest, MetadataResponse,
};
use kafka_wire::{ErrorCode, KafkaString};

use crate::cluster::{Cluster, TopicPartition};

use super::CLUSTER_ID;

/// Brokers (with their client ports), and the requested topics (all of them for a null list,
/// or an empty one at v0) with their partition leaders. Topics are never created here.
pub fn metadata(cluster: &Cluster, req: &MetadataRequest, version: i16) -> MetadataResponse {
    let names: Vec<String> = match &req.topics {
        None => cluster.topics.iter().map(|t| t.name.clone()).collect(),
        // v0 cannot send null: an empty list means every topic there.
        Some(topics) if topics.is_empty() && version == 0 => {
            cluster.topics.iter().map(|t| t.name.clone()).collect()
        }
        Some(topics) => topics
            .iter()
            .filter_map(|t| t.name.as_deref().map(str::to_owned))
            .collect(),
    };
    let topics = names
        .into_iter()
        .map(|name| topic_metadata(cluster, name))
        .collect();
    MetadataResponse::default()
        .with_brokers(
            cluster
                .brokers
                .iter()
                .map(|b| {
                    MetadataResponseBroker::default()
                        .with_node_id(b.id)
                        .with_host(b.host.clone())
                        .with_port(i32::from(b.client_port))
                        .with_rack(None)
                })
                .collect(),
        )
        .with_cluster_id(Some(KafkaString::from_static(CLUSTER_ID)))
        .with_controller_id(cluster.coordinator)
        .with_topics(topics)
}

/// One topic of a Metadata answer: its partitions and their leaders, or UNKNOWN_TOPIC_OR_PARTITION.
fn topic_metadata(cluster: &Cluster, name: String) -> MetadataResponseTopic {
    let Some(topic) = cluster.topic(&name) else {
        return MetadataResponseTopic::default()
            .with_error_code(ErrorCode::UNKNOWN_TOPIC_OR_PARTITION.code())
            .with_name(Some(name.into()));
    };
    let partitions = (0..topic.partitions)
        .map(|p| partition_metadata(cluster, TopicPartition::new(name.clone(), p)))
        .collect();
    MetadataResponseTopic::default()
        .with_error_code(ErrorCode::NONE.code())
        .with_name(Some(name.into()))
        .with_partitions(partitions)
}

/// One partition of a Metadata answer: its leader, the only replica there is.
fn partition_metadata(cluster: &Cluster, tp: TopicPartition) -> MetadataResponsePartition {
    match cluster.leader(&tp) {
        Some(leader) => MetadataResponsePartition::default()
            .with_error_code(ErrorCode::NONE.code())
            .with_partition_index(tp.partition)
            .with_leader_id(leader)
            .with_replica_nodes(vec![leader].into())
            .with_isr_nodes(vec![leader].into()),
        None => MetadataResponsePartition::default()
            .with_error_code(ErrorCode::LEADER_NOT_AVAILABLE.code())
            .with_partition_index(tp.partition)
            .with_leader_id(-1),
    }
}

/// Key type 1 (transactions): the coordinator's client address. Key type 0 (groups): this
/// cluster has no group coordinator.
pub fn find_coordinator(
    cluster: &Cluster,
    req: &FindCoordinatorRequest,
    _version: i16,
) -> FindCoordinatorResponse {
    let unavailable = |message: &'static str| {
        FindCoordinatorResponse::default()
            .with_error_code(ErrorCode::COORDINATOR_NOT_AVAILABLE.code())
            .with_error_message(Some(KafkaString::from_static(message)))
            .with_node_id(-1)
            .with_host("")
            .with_port(-1)
    };
    if req.key_type != 1 {
        return unavailable("this cluster has no group coordinator");
    }
    match cluster.broker(cluster.coordinator) {
        Some(b) => FindCoordinatorResponse::default()
            .with_error_code(ErrorCode::NONE.code())
            .with_error_message(None)
            .with_node_id(b.id)
            .with_host(b.host.clone())
            .with_port(i32::from(b.client_port)),
        None => unavailable("the coordinator broker is not in the cluster file"),
    }
}

#[cfg(test)]
mod tests;
