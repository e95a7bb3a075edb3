//! The Kafka error codes this broker answers with, as the `i16` that response fields hold.
//!
//! Each is [`ErrorCode`]'s constant of the same name: no number is written here. Code that
//! reads an error code rather than writing one matches on [`ErrorCode`] itself.

pub use kafka_wire::ErrorCode;

/// `pub const NAME: i16` for each `ErrorCode::NAME`.
macro_rules! field_codes {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("[`ErrorCode::", stringify!($name), "`], as a response field holds it.")]
            pub const $name: i16 = ErrorCode::$name.code();
        )*
    };
}

field_codes!(
    NONE,
    OFFSET_OUT_OF_RANGE,
    CORRUPT_MESSAGE,
    UNKNOWN_TOPIC_OR_PARTITION,
    LEADER_NOT_AVAILABLE,
    NOT_LEADER_OR_FOLLOWER,
    COORDINATOR_NOT_AVAILABLE,
    NOT_COORDINATOR,
    INVALID_REQUIRED_ACKS,
    CLUSTER_AUTHORIZATION_FAILED,
    UNSUPPORTED_VERSION,
    INVALID_REQUEST,
    OUT_OF_ORDER_SEQUENCE_NUMBER,
    DUPLICATE_SEQUENCE_NUMBER,
    INVALID_PRODUCER_EPOCH,
    INVALID_TXN_STATE,
    INVALID_PRODUCER_ID_MAPPING,
    INVALID_TRANSACTION_TIMEOUT,
    CONCURRENT_TRANSACTIONS,
    TRANSACTION_COORDINATOR_FENCED,
    OPERATION_NOT_ATTEMPTED,
    KAFKA_STORAGE_ERROR,
    UNKNOWN_PRODUCER_ID,
    UNSUPPORTED_COMPRESSION_TYPE,
    INVALID_RECORD,
    PRODUCER_FENCED,
);
