//! The API catalogue as the fuzzer needs it: a random request or response body for any
//! API and version. The list follows `kafka_wire::messages::api`; a test checks that it names
//! every API of Kafka's sets.

use crate::check::{check_type, Outcome, Violation};
use kafka_wire::api::ApiInfo;
use kafka_wire::messages::api::{RequestBody, ResponseBody};
use kafka_wire::messages::*;
use kafka_wire::ApiMessage;
use kafka_wire_tests::random::{Random, Rng};

macro_rules! apis {
    ($($api:ident => $req:ident, $resp:ident;)*) => {
        /// A random request body of `api` at `version`; `None` for an API this list lacks.
        pub fn random_request(api: &ApiInfo, r: &mut Rng, version: i16) -> Option<RequestBody> {
            let flexible = api.flexible_versions().contains(version);
            Some(match api.key() {
                $(<$req as ApiMessage>::API_KEY => RequestBody::$api($req::random(r, version, flexible)),)*
                _ => return None,
            })
        }

        /// A random response body of `api` at `version`; `None` for an API this list lacks.
        pub fn random_response(api: &ApiInfo, r: &mut Rng, version: i16) -> Option<ResponseBody> {
            let flexible = api.flexible_versions().contains(version);
            Some(match api.key() {
                $(<$resp as ApiMessage>::API_KEY => ResponseBody::$api($resp::random(r, version, flexible)),)*
                _ => return None,
            })
        }

        /// Checks `input` as the request body of `api` at `version`.
        pub fn check_request(api: &ApiInfo, input: &[u8], version: i16) -> Option<Result<Outcome, Violation>> {
            Some(match api.key() {
                $(<$req as ApiMessage>::API_KEY => check_type::<$req>(input, version),)*
                _ => return None,
            })
        }

        /// Checks `input` as the response body of `api` at `version`.
        pub fn check_response(api: &ApiInfo, input: &[u8], version: i16) -> Option<Result<Outcome, Violation>> {
            Some(match api.key() {
                $(<$resp as ApiMessage>::API_KEY => check_type::<$resp>(input, version),)*
                _ => return None,
            })
        }
    };
}

macro_rules! schemas {
    ($($ty:ty),* $(,)?) => {
        /// The messages without an API key: headers and data schemas, with their versions.
        pub fn schemas() -> Vec<(&'static str, kafka_wire::VersionRange)> {
            use kafka_wire::Message;
            vec![$((<$ty>::NAME, <$ty>::VERSIONS)),*]
        }

        /// Checks `input` as schema number `index` of [`schemas`] at `version`.
        pub fn check_schema(index: usize, input: &[u8], version: i16) -> Option<Result<Outcome, Violation>> {
            let checks: &[fn(&[u8], i16) -> Result<Outcome, Violation>] = &[$(check_type::<$ty>),*];
            checks.get(index).map(|check| check(input, version))
        }

        /// A random value of schema `index`, encoded at `version`.
        pub fn random_schema(index: usize, r: &mut Rng, version: i16) -> Option<Vec<u8>> {
            let makers: &[fn(&mut Rng, i16) -> Option<Vec<u8>>] = &[$(encode_random::<$ty>),*];
            makers.get(index).and_then(|make| make(r, version))
        }
    };
}

fn encode_random<M: kafka_wire::Message + Random>(r: &mut Rng, version: i16) -> Option<Vec<u8>> {
    use kafka_wire::Encode;
    let flexible = M::FLEXIBLE_VERSIONS.contains(version);
    M::random(r, version, flexible)
        .encode_to_bytes(version)
        .ok()
        .map(|b| b.to_vec())
}

schemas! {
    RequestHeader,
    ResponseHeader,
    aborted_txn::AbortedTxn,
    consumer_protocol_assignment::ConsumerProtocolAssignment,
    consumer_protocol_subscription::ConsumerProtocolSubscription,
    control_record_type_schema::ControlRecordTypeSchema,
    default_principal_data::DefaultPrincipalData,
    end_txn_marker::EndTxnMarker,
    k_raft_version_record::KRaftVersionRecord,
    leader_change_message::LeaderChangeMessage,
    snapshot_footer_record::SnapshotFooterRecord,
    snapshot_header_record::SnapshotHeaderRecord,
    voters_record::VotersRecord,
}

apis! {
    Produce => ProduceRequest, ProduceResponse;
    Fetch => FetchRequest, FetchResponse;
    ListOffsets => ListOffsetsRequest, ListOffsetsResponse;
    Metadata => MetadataRequest, MetadataResponse;
    LeaderAndIsr => LeaderAndIsrRequest, LeaderAndIsrResponse;
    StopReplica => StopReplicaRequest, StopReplicaResponse;
    UpdateMetadata => UpdateMetadataRequest, UpdateMetadataResponse;
    ControlledShutdown => ControlledShutdownRequest, ControlledShutdownResponse;
    OffsetCommit => OffsetCommitRequest, OffsetCommitResponse;
    OffsetFetch => OffsetFetchRequest, OffsetFetchResponse;
    FindCoordinator => FindCoordinatorRequest, FindCoordinatorResponse;
    JoinGroup => JoinGroupRequest, JoinGroupResponse;
    Heartbeat => HeartbeatRequest, HeartbeatResponse;
    LeaveGroup => LeaveGroupRequest, LeaveGroupResponse;
    SyncGroup => SyncGroupRequest, SyncGroupResponse;
    DescribeGroups => DescribeGroupsRequest, DescribeGroupsResponse;
    ListGroups => ListGroupsRequest, ListGroupsResponse;
    SaslHandshake => SaslHandshakeRequest, SaslHandshakeResponse;
    ApiVersions => ApiVersionsRequest, ApiVersionsResponse;
    CreateTopics => CreateTopicsRequest, CreateTopicsResponse;
    DeleteTopics => DeleteTopicsRequest, DeleteTopicsResponse;
    DeleteRecords => DeleteRecordsRequest, DeleteRecordsResponse;
    InitProducerId => InitProducerIdRequest, InitProducerIdResponse;
    OffsetForLeaderEpoch => OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse;
    AddPartitionsToTxn => AddPartitionsToTxnRequest, AddPartitionsToTxnResponse;
    AddOffsetsToTxn => AddOffsetsToTxnRequest, AddOffsetsToTxnResponse;
    EndTxn => EndTxnRequest, EndTxnResponse;
    WriteTxnMarkers => WriteTxnMarkersRequest, WriteTxnMarkersResponse;
    TxnOffsetCommit => TxnOffsetCommitRequest, TxnOffsetCommitResponse;
    DescribeAcls => DescribeAclsRequest, DescribeAclsResponse;
    CreateAcls => CreateAclsRequest, CreateAclsResponse;
    DeleteAcls => DeleteAclsRequest, DeleteAclsResponse;
    DescribeConfigs => DescribeConfigsRequest, DescribeConfigsResponse;
    AlterConfigs => AlterConfigsRequest, AlterConfigsResponse;
    AlterReplicaLogDirs => AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse;
    DescribeLogDirs => DescribeLogDirsRequest, DescribeLogDirsResponse;
    SaslAuthenticate => SaslAuthenticateRequest, SaslAuthenticateResponse;
    CreatePartitions => CreatePartitionsRequest, CreatePartitionsResponse;
    CreateDelegationToken => CreateDelegationTokenRequest, CreateDelegationTokenResponse;
    RenewDelegationToken => RenewDelegationTokenRequest, RenewDelegationTokenResponse;
    ExpireDelegationToken => ExpireDelegationTokenRequest, ExpireDelegationTokenResponse;
    DescribeDelegationToken => DescribeDelegationTokenRequest, DescribeDelegationTokenResponse;
    DeleteGroups => DeleteGroupsRequest, DeleteGroupsResponse;
    ElectLeaders => ElectLeadersRequest, ElectLeadersResponse;
    IncrementalAlterConfigs => IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse;
    AlterPartitionReassignments => AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse;
    ListPartitionReassignments => ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse;
    OffsetDelete => OffsetDeleteRequest, OffsetDeleteResponse;
    DescribeClientQuotas => DescribeClientQuotasRequest, DescribeClientQuotasResponse;
    AlterClientQuotas => AlterClientQuotasRequest, AlterClientQuotasResponse;
    DescribeUserScramCredentials => DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse;
    AlterUserScramCredentials => AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse;
    Vote => VoteRequest, VoteResponse;
    BeginQuorumEpoch => BeginQuorumEpochRequest, BeginQuorumEpochResponse;
    EndQuorumEpoch => EndQuorumEpochRequest, EndQuorumEpochResponse;
    DescribeQuorum => DescribeQuorumRequest, DescribeQuorumResponse;
    AlterPartition => AlterPartitionRequest, AlterPartitionResponse;
    UpdateFeatures => UpdateFeaturesRequest, UpdateFeaturesResponse;
    Envelope => EnvelopeRequest, EnvelopeResponse;
    FetchSnapshot => FetchSnapshotRequest, FetchSnapshotResponse;
    DescribeCluster => DescribeClusterRequest, DescribeClusterResponse;
    DescribeProducers => DescribeProducersRequest, DescribeProducersResponse;
    BrokerRegistration => BrokerRegistrationRequest, BrokerRegistrationResponse;
    BrokerHeartbeat => BrokerHeartbeatRequest, BrokerHeartbeatResponse;
    UnregisterBroker => UnregisterBrokerRequest, UnregisterBrokerResponse;
    DescribeTransactions => DescribeTransactionsRequest, DescribeTransactionsResponse;
    ListTransactions => ListTransactionsRequest, ListTransactionsResponse;
    AllocateProducerIds => AllocateProducerIdsRequest, AllocateProducerIdsResponse;
    ConsumerGroupHeartbeat => ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse;
    ConsumerGroupDescribe => ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse;
    ControllerRegistration => ControllerRegistrationRequest, ControllerRegistrationResponse;
    GetTelemetrySubscriptions => GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse;
    PushTelemetry => PushTelemetryRequest, PushTelemetryResponse;
    AssignReplicasToDirs => AssignReplicasToDirsRequest, AssignReplicasToDirsResponse;
    ListConfigResources => ListConfigResourcesRequest, ListConfigResourcesResponse;
    DescribeTopicPartitions => DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse;
    ShareGroupHeartbeat => ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse;
    ShareGroupDescribe => ShareGroupDescribeRequest, ShareGroupDescribeResponse;
    ShareFetch => ShareFetchRequest, ShareFetchResponse;
    ShareAcknowledge => ShareAcknowledgeRequest, ShareAcknowledgeResponse;
    AddRaftVoter => AddRaftVoterRequest, AddRaftVoterResponse;
    RemoveRaftVoter => RemoveRaftVoterRequest, RemoveRaftVoterResponse;
    UpdateRaftVoter => UpdateRaftVoterRequest, UpdateRaftVoterResponse;
    InitializeShareGroupState => InitializeShareGroupStateRequest, InitializeShareGroupStateResponse;
    ReadShareGroupState => ReadShareGroupStateRequest, ReadShareGroupStateResponse;
    WriteShareGroupState => WriteShareGroupStateRequest, WriteShareGroupStateResponse;
    DeleteShareGroupState => DeleteShareGroupStateRequest, DeleteShareGroupStateResponse;
    ReadShareGroupStateSummary => ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse;
    StreamsGroupHeartbeat => StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse;
    StreamsGroupDescribe => StreamsGroupDescribeRequest, StreamsGroupDescribeResponse;
    DescribeShareGroupOffsets => DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse;
    AlterShareGroupOffsets => AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse;
    DeleteShareGroupOffsets => DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse;
    StreamsGroupTopologyDescriptionUpdate => StreamsGroupTopologyDescriptionUpdateRequest, StreamsGroupTopologyDescriptionUpdateResponse;
    UnregisterController => UnregisterControllerRequest, UnregisterControllerResponse;
}
