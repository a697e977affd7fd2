//! The storage layer's one error type.
//!
//! Every failure a client can provoke is a variant here, so the engine can map each to a Neo4j
//! status code in one place; [`Error::is_retryable`] says which ones a driver should retry.

use std::sync::Arc;

use quiver_value::Value;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of entity an id named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntityKind {
    Node,
    Relationship,
}

impl std::fmt::Display for EntityKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EntityKind::Node => "node",
            EntityKind::Relationship => "relationship",
        })
    }
}

/// `Node(3)` or `Relationship(3)`, as Neo4j names an entity in a constraint violation.
fn entity_name(kind: &EntityKind, id: &u64) -> String {
    match kind {
        EntityKind::Node => format!("Node({id})"),
        EntityKind::Relationship => format!("Relationship({id})"),
    }
}

fn token_kind(kind: &EntityKind) -> &'static str {
    match kind {
        EntityKind::Node => "label",
        EntityKind::Relationship => "type",
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Another transaction changed the entity after this one's snapshot, or holds an uncommitted
    /// change to it. The transaction must be rolled back and retried.
    #[error("write conflict on {kind} {id}: changed by a concurrent transaction")]
    WriteConflict { kind: EntityKind, id: u64 },

    #[error("{kind} {id} not found")]
    EntityNotFound { kind: EntityKind, id: u64 },

    /// A bulk load named an id that is already taken.
    #[error("{kind} {id} already exists")]
    EntityExists { kind: EntityKind, id: u64 },

    /// A bulk load or an unobserved replay was asked of a store it cannot take.
    #[error("bulk load refused: {0}")]
    BulkLoadRefused(&'static str),

    #[error("cannot delete node {id}: it still has relationships")]
    DeleteConnectedNode { id: u64 },

    /// Another entity already holds the values a uniqueness or key constraint makes unique.
    #[error(
        "{} {id} already exists with {} `{label}` and properties {keys:?} = {values:?}",
        if *.relationship { "relationship" } else { "node" },
        if *.relationship { "type" } else { "label" }
    )]
    ConstraintViolation {
        relationship: bool,
        id: u64,
        /// The label, or the relationship type.
        label: Arc<str>,
        keys: Vec<Arc<str>>,
        values: Vec<Value>,
    },

    /// An entity under a key constraint lacks one of its properties.
    #[error(
        "{} {id} with {} `{label}` must have the properties {keys:?}",
        if *.relationship { "relationship" } else { "node" },
        if *.relationship { "type" } else { "label" }
    )]
    KeyPropertyMissing {
        relationship: bool,
        id: u64,
        label: Arc<str>,
        keys: Vec<Arc<str>>,
    },

    /// A committed node or relationship lacks a property an existence constraint requires
    /// (Neo4j's message).
    #[error("{} with {} `{token}` must have the property `{key}`", entity_name(.kind, .id), token_kind(.kind))]
    PropertyExistenceViolation {
        kind: EntityKind,
        id: u64,
        token: Arc<str>,
        key: Arc<str>,
    },

    /// A committed node or relationship holds a property of a type its type constraint does
    /// not allow (Neo4j's message).
    #[error(
        "{} with {} `{token}` required the property `{key}` to be of type `{expected}`, but was of type `{actual}`",
        entity_name(.kind, .id),
        token_kind(.kind)
    )]
    PropertyTypeViolation {
        kind: EntityKind,
        id: u64,
        token: Arc<str>,
        key: Arc<str>,
        expected: String,
        actual: String,
    },

    #[error("cannot create constraint `{name}`: existing data violates it ({reason})")]
    ConstraintCreationFailed { name: String, reason: String },

    /// The rule being made exists: the same name, kind and schema (Neo4j's message, with
    /// the existing rule described in Neo4j's form). `IF NOT EXISTS` does nothing here.
    #[error(
        "An equivalent {} already exists, '{existing}'.",
        if *.constraint { "constraint" } else { "index" }
    )]
    SchemaRuleExists {
        name: String,
        /// Whether the rule is a constraint.
        constraint: bool,
        /// The existing rule, as Neo4j describes it.
        existing: String,
    },

    /// Indexes and constraints share one name space: a new rule named as an existing one
    /// that it is not equivalent to (Neo4j's message, naming what holds the name).
    #[error(
        "There already exists {} called '{name}'.",
        if *.constraint { "a constraint" } else { "an index" }
    )]
    SchemaNameTaken {
        name: String,
        /// Whether a constraint holds the name.
        constraint: bool,
        /// Whether `IF NOT EXISTS` does nothing here (see [`Error::schema_rule_present`]).
        present: bool,
    },

    /// An index of the same type over the same schema stops a new index, or the index a new
    /// constraint would own (Neo4j's `IndexAlreadyExists`, with its message).
    #[error("{message}")]
    SchemaIndexed {
        message: String,
        /// Whether `IF NOT EXISTS` does nothing here (see [`Error::schema_rule_present`]).
        present: bool,
    },

    /// A constraint over the same schema stops a new constraint, or owns the index a new
    /// index would be (Neo4j's `ConstraintAlreadyExists`, with its message).
    #[error("{message}")]
    SchemaConstrained {
        message: String,
        /// Whether `IF NOT EXISTS` does nothing here (see [`Error::schema_rule_present`]).
        present: bool,
    },

    #[error("no index or constraint named `{name}`")]
    SchemaRuleNotFound { name: String },

    /// An index or constraint definition that cannot be made (no keys, a key twice).
    #[error("invalid schema rule: {0}")]
    InvalidSchema(&'static str),

    #[error("no index on :{label}({key})")]
    IndexNotFound { label: String, key: String },

    #[error("vector index `{index}` has {expected} dimensions, the query vector {got}")]
    VectorDimensions {
        index: String,
        expected: usize,
        got: usize,
    },

    /// A filtered vector search on a property the index does not name in its `WITH [...]`.
    #[error(
        "vector index `{index}` cannot filter on `{key}`: a search filters only on the \
         properties the index names in its WITH [...]"
    )]
    VectorFilterKey { index: String, key: String },

    #[error("a transaction may not mix schema changes with data changes")]
    MixedSchemaAndData,

    /// User and role changes run in a transaction of their own: they are replicated and
    /// recovered as one op that replaces the catalogue, never beside data or schema.
    #[error(
        "a transaction may not mix user and role changes with data or schema changes; \
         run them in a transaction of their own"
    )]
    MixedAdministrationAndData,

    /// Another transaction committed a user or role change after this one read the
    /// catalogue. The transaction must be rolled back and retried.
    #[error("the users and roles were changed by a concurrent transaction")]
    SecurityConflict,

    /// The value cannot be a property: maps, nodes, relationships, paths, nulls inside lists,
    /// mixed-type or nested lists.
    #[error("property values cannot be {0}")]
    UnstorableValue(String),

    #[error("value of {bytes} bytes exceeds the limit of {limit} bytes")]
    ValueTooLarge { bytes: usize, limit: usize },

    #[error("{what} limit of {limit} reached")]
    CapacityExceeded { what: &'static str, limit: u64 },

    #[error("unknown {what} token id {id}")]
    UnknownToken { what: &'static str, id: u32 },

    #[error("the transaction has already ended")]
    TransactionClosed,

    #[error("the transaction is read-only")]
    ReadOnlyTransaction,

    /// The commit log refused the record; the transaction was rolled back.
    #[error("commit log append failed: {0}")]
    CommitLog(crate::AppendError),

    /// A redo record or stored blob failed to decode.
    #[error("corrupt data at byte {offset}: {reason}")]
    Corrupt { offset: usize, reason: &'static str },

    #[error(transparent)]
    Fulltext(#[from] FulltextError),

    /// A redo record does not fit the store it is replayed into.
    #[error("cannot replay redo record: {0}")]
    Replay(String),
}

impl Error {
    /// Whether retrying the whole transaction may succeed (Neo4j's `TransientError` class).
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::WriteConflict { .. })
    }

    /// Whether a refused schema rule is one Neo4j's `IF NOT EXISTS` takes as already there
    /// (and so does nothing): for an index, an index of its type over its schema or an index
    /// with its name; for a constraint, a constraint of its kind over its schema or a
    /// constraint with its name. Decided with the refusal, in `rules`.
    pub fn schema_rule_present(&self) -> bool {
        match self {
            Error::SchemaRuleExists { .. } => true,
            Error::SchemaNameTaken { present, .. }
            | Error::SchemaIndexed { present, .. }
            | Error::SchemaConstrained { present, .. } => *present,
            _ => false,
        }
    }

    pub(crate) fn node_not_found(id: u64) -> Self {
        Error::EntityNotFound {
            kind: EntityKind::Node,
            id,
        }
    }

    pub(crate) fn rel_not_found(id: u64) -> Self {
        Error::EntityNotFound {
            kind: EntityKind::Relationship,
            id,
        }
    }
}

/// Why a full-text operation failed; the engine names the argument from the variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FulltextError {
    #[error("there is no full-text index called `{name}`")]
    UnknownIndex { name: String },
    #[error("the full-text index `{name}` indexes {indexes}, not {asked}")]
    WrongEntity {
        name: String,
        indexes: &'static str,
        asked: &'static str,
    },
    #[error("unknown full-text analyzer `{name}`")]
    UnknownAnalyzer { name: String },
    #[error("cannot parse the full-text query `{query}`: {reason}")]
    Query { query: String, reason: String },
    #[error("{rows} rows asked of a full-text search; at most {max}")]
    TooManyRows { rows: usize, max: usize },
    #[error("full-text index `{name}`: {reason}")]
    Engine { name: String, reason: String },
}
