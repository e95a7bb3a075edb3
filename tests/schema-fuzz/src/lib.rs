//! Messages generated from random schemas (`gen_schemas.py`) and from hand-written cases, by
//! `kafka-wire-codegen` in this crate's build script, as a user's crate generates its own.
//! The tests hold them to the bytes and JSON that Kafka's own generated classes write for the
//! same schemas.
#![forbid(unsafe_code)]

use kafka_wire::json::JsonCodec;
use kafka_wire::Message;
use std::fmt::Debug;

/// The random schemas' messages.
pub mod random {
    include!(concat!(env!("OUT_DIR"), "/random.rs"));
}

/// The hand-written cases' messages.
pub mod cases {
    include!(concat!(env!("OUT_DIR"), "/cases.rs"));
}

/// What a test does with a message type found by name.
pub trait Visit {
    /// What it gives back.
    type Out;
    /// Runs with the message type `M`.
    fn visit<M: Message + kafka_wire::View + JsonCodec + Default + Debug + PartialEq>(
        self,
    ) -> Self::Out;
}

include!(concat!(env!("OUT_DIR"), "/visit.rs"));
