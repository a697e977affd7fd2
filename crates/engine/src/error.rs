//! The engine's one error type, and the one place where every layer's errors become Neo4j
//! status codes.
//!
//! Clients see three things: the status code (drivers decide whether to retry from its class),
//! a message, and — for the openCypher TCK — a detail name and the phase in which the error was
//! raised (a compile-time error must not depend on data and leaves no side effects).

use quiver_status::Status;
use quiver_value::ValueError;

/// When an error was raised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// While parsing, checking or planning: no data was read or written.
    CompileTime,
    /// While executing.
    Runtime,
}

/// Errors of the query engine.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A parse, semantic or planning error, with position and excerpt.
    #[error("{0}")]
    Compile(#[from] quiver_cypher::Error),

    /// A failure while computing with values (type errors, overflow, bad arguments).
    #[error("{0}")]
    Value(#[from] ValueError),

    /// A failure reported by the storage engine.
    #[error("{}", storage_message(.0))]
    Storage(#[from] quiver_storage::Error),

    /// A failure the engine itself detects while executing.
    #[error("{message}")]
    Runtime {
        code: Status,
        detail: Option<&'static str>,
        message: String,
    },

    /// A query parameter the query uses was not supplied.
    #[error("Expected parameter(s): {0}")]
    ParameterMissing(String),

    /// The query ran past its time limit.
    #[error(
        "The transaction has been terminated: the query ran longer than its limit of {limit_ms} ms"
    )]
    TimedOut { limit_ms: u64 },

    /// The query would have held more memory than its own limit
    /// ([`crate::EngineConfig::query_memory_bytes_max`]) while building `what`.
    #[error(
        "The query used more than its memory limit of {limit_bytes} bytes (query memory max) \
         while building {what}"
    )]
    MemoryLimit {
        limit_bytes: usize,
        what: &'static str,
    },

    /// The queries running together would have held more than the server's pool
    /// ([`crate::EngineConfig::query_memory_total_bytes_max`]) while this one built `what`.
    #[error(
        "The running queries together would use more than the memory pool's limit of \
         {limit_bytes} bytes (query memory total max) while building {what}"
    )]
    MemoryPool {
        limit_bytes: usize,
        what: &'static str,
    },

    /// Another transaction holds an uncommitted change to the entity this one would change,
    /// and this one did not get it: see [`LockWaited`] for why. Retryable: the holder ends
    /// (at the latest at its idle or transaction timeout) and a retry begins after it.
    #[error("{kind} {id} is being changed by another transaction that has not ended: {waited}")]
    LockHeld {
        kind: quiver_storage::EntityKind,
        id: u64,
        waited: LockWaited,
    },

    /// What this transaction would change was changed by a transaction that committed after
    /// this one began (snapshot isolation, first updater wins). Retryable: a retry reads the
    /// newer data.
    #[error(
        "{kind} {id} was changed by a transaction that committed after this one began; \
         the transaction must be retried to see the change"
    )]
    Outdated {
        kind: quiver_storage::EntityKind,
        id: u64,
    },

    /// The transaction was cancelled or terminated by another session.
    #[error("The transaction has been terminated: {0}")]
    Terminated(String),

    /// A request that does not fit the transaction's state (unknown query id, closed or failed
    /// transaction, write in a read transaction).
    #[error("{message}")]
    Request { code: Status, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Why a writer that met another transaction's uncommitted change did not get it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockWaited {
    /// It waited this long, the lock wait ([`crate::EngineConfig::lock_wait_max`]), and the
    /// holder was still there.
    TimedOut { waited_ms: u64 },
    /// Waiting is off (a lock wait of 0).
    Off,
    /// It had already returned results or run an earlier query: beginning again at a newer
    /// snapshot would change what the client saw, so it fails at once instead of waiting.
    ResultsReturned,
}

impl std::fmt::Display for LockWaited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LockWaited::TimedOut { waited_ms } => {
                write!(f, "waited {waited_ms} ms for it (lock wait max)")
            }
            LockWaited::Off => f.write_str("the lock wait is off, so it did not wait"),
            LockWaited::ResultsReturned => f.write_str(
                "this transaction had already returned results, so it could not wait and \
                 begin again; retry it",
            ),
        }
    }
}

/// Statuses used in more than one place, by the names the executor raises them under.
pub(crate) mod code {
    use quiver_status::Status;

    pub const SYNTAX_ERROR: Status = Status::SyntaxError;
    pub const TYPE_ERROR: Status = Status::TypeError;
    pub const ARGUMENT_ERROR: Status = Status::ArgumentError;
    pub const SEMANTIC_ERROR: Status = Status::SemanticError;
    pub const ENTITY_NOT_FOUND: Status = Status::EntityNotFound;
    pub const CONSTRAINT_VALIDATION: Status = Status::ConstraintValidationFailed;
    pub const ACCESS_MODE: Status = Status::AccessMode;
    pub const EXTERNAL_RESOURCE: Status = Status::ExternalResourceFailed;
    pub const TX_NOT_FOUND: Status = Status::TransactionNotFound;
    pub const REQUEST_INVALID: Status = Status::RequestInvalid;
    pub const TX_FAILED: Status = Status::TransactionHookFailed;
    pub const COMMIT_FAILED: Status = Status::TransactionCommitFailed;
}

impl Error {
    /// The error an embedding program's commit gets when the log cannot acknowledge it.
    pub(crate) fn not_acknowledged(error: impl std::fmt::Display) -> Self {
        Self::request(
            code::COMMIT_FAILED,
            format!("the commit could not be made durable: {error}"),
        )
    }

    /// A runtime error with a Neo4j status code and a TCK detail: how a procedure fails
    /// with a status of its choosing.
    pub fn runtime(code: Status, detail: Option<&'static str>, message: impl Into<String>) -> Self {
        Error::Runtime {
            code,
            detail,
            message: message.into(),
        }
    }

    /// A runtime type error (`InvalidArgumentType` unless told otherwise).
    pub(crate) fn type_error(message: impl Into<String>) -> Self {
        Self::runtime(code::TYPE_ERROR, Some("InvalidArgumentType"), message)
    }

    pub(crate) fn request(code: Status, message: impl Into<String>) -> Self {
        Error::Request {
            code,
            message: message.into(),
        }
    }

    /// The Neo4j status a client sees.
    pub fn status_code(&self) -> Status {
        match self {
            Error::Compile(e) => e.status_code(),
            Error::Value(e) => e.status_code(),
            Error::Storage(e) => storage_code(e),
            Error::Runtime { code, .. } | Error::Request { code, .. } => *code,
            Error::ParameterMissing(_) => Status::ParameterMissing,
            Error::TimedOut { .. } => Status::TransactionTimedOutClientConfiguration,
            Error::MemoryLimit { .. } => Status::TransactionMemoryLimit,
            Error::MemoryPool { .. } => Status::MemoryPoolOutOfMemoryError,
            Error::Terminated(_) => Status::TransactionTerminated,
            Error::LockHeld { .. } => Status::LockAcquisitionTimeout,
            Error::Outdated { .. } => Status::TransactionOutdated,
        }
    }

    /// The message for humans.
    pub fn message(&self) -> String {
        self.to_string()
    }

    /// The openCypher TCK's name for what went wrong (`UndefinedVariable`,
    /// `DeleteConnectedNode`, ...), when there is one.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Error::Compile(e) => e.detail(),
            Error::Value(e) => Some(e.detail.name()),
            Error::Storage(e) => match e {
                quiver_storage::Error::DeleteConnectedNode { .. } => Some("DeleteConnectedNode"),
                quiver_storage::Error::EntityNotFound { .. } => Some("DeletedEntityAccess"),
                quiver_storage::Error::UnstorableValue(_) => Some("InvalidPropertyType"),
                _ => None,
            },
            Error::Runtime { detail, .. } => *detail,
            Error::ParameterMissing(_) => Some("MissingParameter"),
            _ => None,
        }
    }

    /// Whether the error was raised before any data was touched.
    pub fn phase(&self) -> Phase {
        match self {
            Error::Compile(_) | Error::ParameterMissing(_) => Phase::CompileTime,
            _ => Phase::Runtime,
        }
    }

    /// Whether a driver may retry the whole transaction (Neo4j's `TransientError` class).
    pub fn is_retryable(&self) -> bool {
        self.status_code().is_retryable()
    }
}

/// The message of a storage failure as a Cypher user reads it: values are written as Cypher
/// literals, as in Neo4j's messages.
fn storage_message(e: &quiver_storage::Error) -> String {
    match e {
        quiver_storage::Error::ConstraintViolation {
            relationship,
            id,
            label,
            keys,
            values,
        } => {
            let (entity, token) = entity_words(*relationship);
            let pairs = keys
                .iter()
                .zip(values)
                .map(|(k, v)| format!("`{k}` = {}", quiver_value::to_cypher_literal(v)))
                .collect::<Vec<_>>()
                .join(", ");
            let noun = property_noun(keys.len());
            format!("{entity}({id}) already exists with {token} `{label}` and {noun} {pairs}")
        }
        quiver_storage::Error::KeyPropertyMissing {
            relationship,
            id,
            label,
            keys,
        } => {
            let (entity, token) = entity_words(*relationship);
            let names = keys
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let noun = property_noun(keys.len());
            format!("{entity}({id}) with {token} `{label}` must have the {noun} {names}")
        }
        other => other.to_string(),
    }
}

/// "property" or "properties", for `n` keys.
fn property_noun(n: usize) -> &'static str {
    if n == 1 { "property" } else { "properties" }
}

/// How Neo4j's messages name an entity and its label or type.
fn entity_words(relationship: bool) -> (&'static str, &'static str) {
    if relationship {
        ("Relationship", "type")
    } else {
        ("Node", "label")
    }
}

/// The Neo4j status of a storage error.
fn storage_code(e: &quiver_storage::Error) -> Status {
    use quiver_storage::Error as S;
    match e {
        // A transaction names its conflicts (`Error::LockHeld`, `Error::Outdated`) where it
        // can tell which they are; one it could not look at is still retryable.
        S::WriteConflict { .. } => Status::TransactionOutdated,
        S::EntityNotFound { .. } => code::ENTITY_NOT_FOUND,
        S::DeleteConnectedNode { .. }
        | S::ConstraintViolation { .. }
        | S::PropertyExistenceViolation { .. }
        | S::PropertyTypeViolation { .. }
        | S::KeyPropertyMissing { .. } => code::CONSTRAINT_VALIDATION,
        S::InvalidSchema(_) | S::VectorFilterKey { .. } => code::ARGUMENT_ERROR,
        S::ConstraintCreationFailed { .. } => Status::ConstraintCreationFailed,
        S::SchemaRuleExists { .. } => Status::EquivalentSchemaRuleAlreadyExists,
        S::SchemaIndexed { .. } => Status::IndexAlreadyExists,
        S::SchemaConstrained { .. } => Status::ConstraintAlreadyExists,
        S::SchemaNameTaken {
            constraint: false, ..
        } => Status::IndexWithNameAlreadyExists,
        S::SchemaNameTaken {
            constraint: true, ..
        } => Status::ConstraintWithNameAlreadyExists,
        S::SchemaRuleNotFound { .. } => Status::IndexDropFailed,
        S::IndexNotFound { .. } => Status::IndexNotFound,
        S::MixedSchemaAndData | S::MixedAdministrationAndData => {
            Status::ForbiddenDueToTransactionType
        }
        // Another commit changed the users and roles first: retry against the new ones.
        S::SecurityConflict => Status::TransactionOutdated,
        S::UnstorableValue(_) => code::TYPE_ERROR,
        S::ValueTooLarge { .. } | S::CapacityExceeded { .. } => code::ARGUMENT_ERROR,
        S::UnknownToken { .. } => Status::UnknownError,
        S::TransactionClosed => code::TX_NOT_FOUND,
        S::ReadOnlyTransaction => code::ACCESS_MODE,
        S::CommitLog(_) => Status::TransactionCommitFailed,
        _ => Status::UnknownError,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_errors_map_to_neo4j_codes() {
        let e = Error::from(quiver_storage::Error::WriteConflict {
            kind: quiver_storage::EntityKind::Node,
            id: 1,
        });
        assert_eq!(e.status_code(), Status::TransactionOutdated);
        assert!(e.is_retryable());
        let held = Error::LockHeld {
            kind: quiver_storage::EntityKind::Node,
            id: 1,
            waited: LockWaited::TimedOut { waited_ms: 1000 },
        };
        assert_eq!(held.status_code(), Status::LockAcquisitionTimeout);
        assert!(held.is_retryable());
        assert!(
            held.message().contains("waited 1000 ms"),
            "{}",
            held.message()
        );
        let e = Error::from(quiver_storage::Error::DeleteConnectedNode { id: 3 });
        assert_eq!(e.detail(), Some("DeleteConnectedNode"));
        assert_eq!(e.phase(), Phase::Runtime);
    }

    #[test]
    fn compile_errors_keep_their_detail() {
        let e = Error::from(quiver_cypher::parse("RETURN (").unwrap_err());
        assert_eq!(e.status_code(), Status::SyntaxError);
        assert_eq!(e.phase(), Phase::CompileTime);
        assert!(e.detail().is_some());
    }
}
