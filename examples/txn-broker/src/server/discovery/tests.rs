use std::thread;
use std::time::Duration;

use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::metadata_request::MetadataRequestTopic;
use kafka_wire::messages::{AddPartitionsToTxnRequest, EndTxnRequest, InitProducerIdRequest};

use super::*;
use crate::server::tests::*;
use crate::server::{start, write_cluster, Client, Options};

#[test]
fn metadata_reports_leaders_unknown_topics_and_follows_the_cluster_file() {
    let (dir, mut cluster) = setup("metadata", 3, 1);
    let server = start(Options::new(&dir, 0)).unwrap();
    let mut c = client(server.client_addr);
    let mut ask = |topics: Option<Vec<&str>>, version: i16| {
        let req = MetadataRequest::default()
            .with_topics(topics.map(|names| {
                names
                    .into_iter()
                    .map(|n| MetadataRequestTopic::default().with_name(Some(n.to_owned().into())))
                    .collect()
            }))
            // The field exists from v4 on.
            .with_allow_auto_topic_creation(version < 4);
        match c.call(RequestBody::Metadata(req), version).unwrap() {
            ResponseBody::Metadata(m) => m,
            other => panic!("{other:?}"),
        }
    };
    let all = ask(None, 9);
    let brokers: Vec<(i32, i32)> = all.brokers.iter().map(|b| (b.node_id, b.port)).collect();
    let expected: Vec<(i32, i32)> = cluster
        .brokers
        .iter()
        .map(|b| (b.id, i32::from(b.client_port)))
        .collect();
    assert_eq!(brokers, expected);
    assert_eq!(all.controller_id, 1);
    assert_eq!(all.topics.len(), 1);
    let leaders: Vec<(i32, i32, Vec<i32>)> = all.topics[0]
        .partitions
        .iter()
        .map(|p| (p.partition_index, p.leader_id, p.isr_nodes.to_vec()))
        .collect();
    assert_eq!(
        leaders,
        vec![(0, 0, vec![0]), (1, 1, vec![1]), (2, 2, vec![2])]
    );
    // v0: the empty list means all topics; v1+: an empty list means none.
    assert_eq!(ask(Some(vec![]), 0).topics.len(), 1);
    assert_eq!(ask(Some(vec![]), 1).topics.len(), 0);
    let unknown = ask(Some(vec!["nope", "orders"]), 9);
    assert_eq!(
        unknown.topics[0].error_code,
        ErrorCode::UNKNOWN_TOPIC_OR_PARTITION
    );
    assert_eq!(unknown.topics[0].name.as_deref(), Some("nope"));
    assert_eq!(unknown.topics[1].error_code, ErrorCode::NONE);

    // A leader moved in the file shows in the next answer.
    assert!(cluster.move_leader(&crate::cluster::TopicPartition::new("orders", 0), 2));
    // Coarse file-system clocks: make sure the modification time changes.
    thread::sleep(Duration::from_millis(20));
    write_cluster(&dir, &cluster).unwrap();
    let moved = ask(None, 9);
    assert_eq!(moved.topics[0].partitions[0].leader_id, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn find_coordinator_and_requests_to_a_broker_that_does_not_coordinate() {
    // Broker 1 coordinates; only broker 0 runs.
    let (dir, cluster) = setup("coordinator", 2, 1);
    let server = start(Options::new(&dir, 0)).unwrap();
    let mut c = client(server.client_addr);
    let find = |c: &mut Client, key_type: i8| {
        let req = FindCoordinatorRequest::default()
            .with_key("some-id")
            .with_key_type(key_type);
        match c.call(RequestBody::FindCoordinator(req), 3).unwrap() {
            ResponseBody::FindCoordinator(r) => r,
            other => panic!("{other:?}"),
        }
    };
    let txn = find(&mut c, 1);
    assert_eq!(txn.error_code, ErrorCode::NONE);
    assert_eq!(txn.node_id, 1);
    assert_eq!(txn.port, i32::from(cluster.brokers[1].client_port));
    assert_eq!(&*txn.host, "127.0.0.1");
    let group = find(&mut c, 0);
    assert_eq!(group.error_code, ErrorCode::COORDINATOR_NOT_AVAILABLE);

    let init = InitProducerIdRequest::default()
        .with_transactional_id(Some("t".into()))
        .with_transaction_timeout_ms(1000)
        .with_producer_id(-1)
        .with_producer_epoch(-1);
    match c.call(RequestBody::InitProducerId(init), 4).unwrap() {
        ResponseBody::InitProducerId(r) => assert_eq!(r.error_code, ErrorCode::NOT_COORDINATOR),
        other => panic!("{other:?}"),
    }
    let end = EndTxnRequest::default()
        .with_transactional_id("t")
        .with_producer_id(1)
        .with_producer_epoch(0)
        .with_committed(true);
    match c.call(RequestBody::EndTxn(end), 3).unwrap() {
        ResponseBody::EndTxn(r) => assert_eq!(r.error_code, ErrorCode::NOT_COORDINATOR),
        other => panic!("{other:?}"),
    }
    let add = AddPartitionsToTxnRequest::default()
        .with_v3_and_below_transactional_id("t")
        .with_v3_and_below_producer_id(1)
        .with_v3_and_below_topics(vec![
            kafka_wire::messages::add_partitions_to_txn_request::AddPartitionsToTxnTopic::default()
                .with_name("orders")
                .with_partitions(vec![0, 2].into()),
        ]);
    match c.call(RequestBody::AddPartitionsToTxn(add), 3).unwrap() {
        ResponseBody::AddPartitionsToTxn(r) => {
            let codes: Vec<(i32, ErrorCode)> = r.results_by_topic_v3_and_below[0]
                .results_by_partition
                .iter()
                .map(|p| (p.partition_index, ErrorCode::from(p.partition_error_code)))
                .collect();
            assert_eq!(
                codes,
                vec![
                    (0, ErrorCode::NOT_COORDINATOR),
                    (2, ErrorCode::NOT_COORDINATOR)
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
