//! Bolt messages: requests a client sends, responses a server sends, both directions of
//! each (the server decodes requests and encodes responses; Quiver's load client does the
//! opposite).

mod extra;
mod request;
mod response;

pub(crate) use extra::DictWriter;
pub use extra::{
    AccessMode, Auth, BoltAgent, HelloExtra, NotificationConfig, RouteExtra, TelemetryApi, TxExtra,
};
pub use request::{Request, RunExtra, peek_signature};
pub use response::{
    Response, encode_failure_message, encode_ignored, encode_record, encode_record_with,
    encode_success_map,
};

/// Message signatures (structure tags).
pub mod signature {
    pub const HELLO: u8 = 0x01;
    pub const GOODBYE: u8 = 0x02;
    pub const RESET: u8 = 0x0F;
    pub const RUN: u8 = 0x10;
    pub const BEGIN: u8 = 0x11;
    pub const COMMIT: u8 = 0x12;
    pub const ROLLBACK: u8 = 0x13;
    pub const DISCARD: u8 = 0x2F;
    pub const PULL: u8 = 0x3F;
    pub const TELEMETRY: u8 = 0x54;
    pub const ROUTE: u8 = 0x66;
    pub const LOGON: u8 = 0x6A;
    pub const LOGOFF: u8 = 0x6B;
    pub const SUCCESS: u8 = 0x70;
    pub const RECORD: u8 = 0x71;
    pub const IGNORED: u8 = 0x7E;
    pub const FAILURE: u8 = 0x7F;
}
