//! The one error type of the Bolt layer.
//!
//! Every variant is something a client (or a peer server, on the client side) can cause, so
//! none of them may panic. [`Error::status_code`] is the single place that turns them into the
//! Neo4j status code a FAILURE carries.

use quiver_status::Status;
use thiserror::Error;

/// Errors raised while decoding or encoding Bolt traffic.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Input ended in the middle of a value or a message.
    #[error("truncated input: needed {needed} more bytes at offset {offset}")]
    Truncated { offset: usize, needed: usize },
    /// A marker byte PackStream v1 reserves (`C4–C7 CF D3 D7 DB DC–DF E0–EF`).
    #[error("reserved PackStream marker 0x{marker:02X} at offset {offset}")]
    ReservedMarker { marker: u8, offset: usize },
    #[error("invalid UTF-8 in a string at offset {offset}")]
    InvalidUtf8 { offset: usize },
    #[error("values nested deeper than {depth_max} levels")]
    TooDeep { depth_max: usize },
    #[error("string or byte array of {bytes} bytes exceeds the limit of {bytes_max}")]
    StringTooLong { bytes: usize, bytes_max: usize },
    #[error("collection of {len} entries exceeds the limit of {len_max}")]
    CollectionTooLong { len: usize, len_max: usize },
    #[error("dictionary key is not a string at offset {offset}")]
    NonStringKey { offset: usize },
    #[error("structure 0x{tag:02X} has {found} fields, expected {expected}")]
    StructFields {
        tag: u8,
        expected: usize,
        found: usize,
    },
    #[error("unknown structure tag 0x{tag:02X}")]
    UnknownStruct { tag: u8 },
    /// Graph structures (nodes, relationships, paths) only flow from server to client.
    #[error("structure 0x{tag:02X} is not accepted from a client")]
    StructNotAccepted { tag: u8 },
    #[error("invalid {what}: {detail}")]
    InvalidValue { what: &'static str, detail: String },
    #[error("unknown time zone {0:?}")]
    UnknownZone(String),
    #[error("{trailing} bytes left after the end of the message")]
    TrailingBytes { trailing: usize },

    /// A node or relationship was handed to the encoder without its labels/properties.
    #[error("{kind} {id} was not materialised before encoding")]
    NotMaterialised { kind: &'static str, id: u64 },
    #[error("{what} of {len} is too large to encode")]
    TooLarge { what: &'static str, len: usize },
    /// A value of a type the negotiated version has no form for, in a version that has no
    /// unsupported-type marker either (below 6.0).
    #[error(
        "{type_name} values cannot be sent over the Bolt version this connection negotiated; \
         a driver that speaks Bolt {version_min} or newer is needed"
    )]
    TypeNotInVersion {
        type_name: &'static str,
        version_min: &'static str,
    },

    #[error("unknown message signature 0x{signature:02X}")]
    UnknownMessage { signature: u8 },
    #[error("message {message} is not part of Bolt {version}")]
    MessageNotInVersion {
        message: &'static str,
        version: String,
    },
    #[error("message {message} has {found} fields, expected {expected}")]
    MessageFields {
        message: &'static str,
        expected: &'static str,
        found: usize,
    },
    #[error("message {message}: field {field} {problem}")]
    InvalidField {
        message: &'static str,
        field: &'static str,
        problem: &'static str,
    },

    #[error("message of {bytes} bytes exceeds the limit of {message_bytes_max}")]
    MessageTooLarge {
        bytes: usize,
        message_bytes_max: usize,
    },

    #[error("handshake does not start with the Bolt magic 60 60 B0 17")]
    BadMagic,
    #[error("invalid handshake: {0}")]
    Handshake(&'static str),
}

impl Error {
    /// The Neo4j status code a server reports for this error.
    ///
    /// Malformed bytes are `Request.InvalidFormat`; well-formed bytes that do not make a valid
    /// request are `Request.Invalid`; values the server cannot represent are `Statement.TypeError`.
    pub fn status_code(&self) -> Status {
        match self {
            Error::Truncated { .. }
            | Error::ReservedMarker { .. }
            | Error::InvalidUtf8 { .. }
            | Error::TooDeep { .. }
            | Error::StringTooLong { .. }
            | Error::CollectionTooLong { .. }
            | Error::NonStringKey { .. }
            | Error::StructFields { .. }
            | Error::UnknownStruct { .. }
            | Error::TrailingBytes { .. }
            | Error::MessageTooLarge { .. }
            | Error::BadMagic
            | Error::Handshake(_) => Status::RequestInvalidFormat,
            Error::StructNotAccepted { .. }
            | Error::UnknownMessage { .. }
            | Error::MessageNotInVersion { .. }
            | Error::MessageFields { .. }
            | Error::InvalidField { .. } => Status::RequestInvalid,
            Error::InvalidValue { .. } | Error::UnknownZone(_) | Error::TypeNotInVersion { .. } => {
                Status::TypeError
            }
            Error::NotMaterialised { .. } | Error::TooLarge { .. } => Status::UnknownError,
        }
    }

    /// Whether the connection cannot continue after this error. Malformed bytes (and
    /// messages this version does not have) are a protocol breach: the server replies
    /// FAILURE and closes, as Neo4j does. Well-formed messages with unacceptable content
    /// (a bad field, a value over a limit, a graph structure as a parameter) fail the
    /// request only, and the connection goes on in FAILED.
    pub fn is_fatal(&self) -> bool {
        !matches!(
            self,
            Error::InvalidField { .. }
                | Error::InvalidValue { .. }
                | Error::UnknownZone(_)
                | Error::TypeNotInVersion { .. }
                | Error::StructNotAccepted { .. }
                | Error::StringTooLong { .. }
                | Error::CollectionTooLong { .. }
                | Error::TooDeep { .. }
        )
    }
}
