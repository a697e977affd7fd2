//! Every Neo4j status code Quiver sends, in one enum with one table.
//!
//! A client sees a status three ways: the Neo4j code (`Neo.ClientError.Statement.SyntaxError`),
//! whose second segment is the classification drivers decide retries from, and — on Bolt 5.7+ —
//! a GQL status (`42001`), the description's subcondition and a GQL classification. All of
//! them come from [`Status`]'s one table, a `match` on the enum: a new status does not compile
//! until it has its code and its GQL status, so no layer can send a code the others do not know.
//!
//! Statuses Neo4j gives no specific GQL code are sent as `50N42` (unexpected error, what
//! drivers assume when the field is missing) with the classification of their Neo4j class.
//!
//! ```
//! use quiver_status::{Classification, Status};
//!
//! let status = Status::DeadlockDetected;
//! assert_eq!(status.to_string(), "Neo.TransientError.Transaction.DeadlockDetected");
//! assert_eq!(status.classification(), Classification::TransientError);
//! assert!(status.is_retryable());
//! assert_eq!(status.gql().gql_status, "50N05");
//! assert_eq!(Status::from_code(status.code()), Some(status));
//! ```

use std::fmt;

/// The class of a status, the second segment of its code. Drivers retry a transaction on
/// `TransientError` and never on the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Classification {
    /// The request was wrong; repeating it fails again.
    ClientError,
    /// A note about a query that succeeded.
    ClientNotification,
    /// The request may succeed if retried (conflict, timeout, unavailability).
    TransientError,
    /// The server failed.
    DatabaseError,
}

impl Classification {
    /// The name as it appears in a code (`ClientError`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Classification::ClientError => "ClientError",
            Classification::ClientNotification => "ClientNotification",
            Classification::TransientError => "TransientError",
            Classification::DatabaseError => "DatabaseError",
        }
    }

    /// The classification of a code received as text: its second segment, if it names one.
    pub fn of_code(code: &str) -> Option<Classification> {
        match code.split('.').nth(1)? {
            "ClientError" => Some(Classification::ClientError),
            "ClientNotification" => Some(Classification::ClientNotification),
            "TransientError" => Some(Classification::TransientError),
            "DatabaseError" => Some(Classification::DatabaseError),
            _ => None,
        }
    }

    /// The `_classification` of a GQL error status: `CLIENT_ERROR`, `TRANSIENT_ERROR` or
    /// `DATABASE_ERROR`. A notification is not an error; it falls to `DATABASE_ERROR` as any
    /// code outside the two retry-relevant classes does.
    pub const fn gql_error(self) -> &'static str {
        match self {
            Classification::ClientError => "CLIENT_ERROR",
            Classification::TransientError => "TRANSIENT_ERROR",
            Classification::ClientNotification | Classification::DatabaseError => "DATABASE_ERROR",
        }
    }

    /// Whether a driver may retry the whole transaction.
    pub const fn is_retryable(self) -> bool {
        matches!(self, Classification::TransientError)
    }
}

impl fmt::Display for Classification {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The GQL status of an error, as a Bolt 5.7+ FAILURE carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GqlError {
    /// Five characters: the class (first two) and the subclass.
    pub gql_status: &'static str,
    /// Text after the condition in `description`; empty for class-level codes.
    pub subcondition: &'static str,
    /// `CLIENT_ERROR`, `TRANSIENT_ERROR` or `DATABASE_ERROR`.
    pub classification: &'static str,
}

impl GqlError {
    /// `50N42`, what a status without a GQL code of its own is sent as.
    pub const UNEXPECTED_STATUS: &'static str = "50N42";

    /// The fallback for a status with no GQL code of its own: drivers read the classification
    /// to decide retries, so it stays that of the Neo4j class even here.
    pub const fn unexpected(classification: Classification) -> GqlError {
        GqlError {
            gql_status: Self::UNEXPECTED_STATUS,
            subcondition: "unexpected error",
            classification: classification.gql_error(),
        }
    }

    /// The fallback for a code received as text that no [`Status`] names.
    pub fn unexpected_code(code: &str) -> GqlError {
        Self::unexpected(Classification::of_code(code).unwrap_or(Classification::DatabaseError))
    }
}

/// Declares [`Status`] and [`Status::ALL`] from one list, so the list of every status cannot
/// miss one.
macro_rules! statuses {
    ($($(#[doc = $doc:literal])* $variant:ident,)*) => {
        /// A Neo4j status code Quiver sends. [`Status::code`] is its text, [`Status::gql`] its
        /// GQL status.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Status {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Status {
            /// Every status, in declaration order.
            pub const ALL: &'static [Status] = &[$(Status::$variant,)*];
        }
    };
}

statuses! {
    // Statement
    /// The query text does not parse, or names something undefined.
    SyntaxError,
    /// The query parses but means nothing Quiver can run.
    SemanticError,
    /// A parameter the query uses was not supplied.
    ParameterMissing,
    /// An operand or argument of the wrong type.
    TypeError,
    /// An argument of the right type but an unacceptable value.
    ArgumentError,
    /// Integer overflow or division by zero.
    ArithmeticError,
    /// An entity the query reads was deleted.
    EntityNotFound,
    /// A write in a read-mode transaction.
    AccessMode,
    /// `LOAD CSV` could not read its file: refused, missing, unreadable or malformed.
    ExternalResourceFailed,
    /// A statement that cannot run where it was sent: `CALL { } IN TRANSACTIONS` inside an
    /// explicit transaction. Tools that send every query in a managed transaction read this
    /// code and that message and send the query again in an auto-commit transaction.
    ExecutionFailed,
    // Procedure
    /// A procedure that is not registered.
    ProcedureNotFound,
    /// A procedure refused its arguments or failed while running.
    ProcedureCallFailed,
    // Change data capture
    /// A change identifier that is malformed or names no change of this database.
    ChangeIdentifierInvalid,
    /// Change capture is off for this database (or it keeps no commit log to read).
    ChangeCaptureDisabled,
    /// The commit log no longer holds the changes a change identifier points at.
    ChangeScanFailure,
    // Schema
    /// A write would break a constraint.
    ConstraintValidationFailed,
    /// A constraint cannot be created over the data present.
    ConstraintCreationFailed,
    /// A constraint to drop does not exist.
    ConstraintDropFailed,
    /// An index or constraint equal to one that exists.
    EquivalentSchemaRuleAlreadyExists,
    /// An index of the same type over the same schema as a new index (or as the index a new
    /// constraint would own) exists under another name.
    IndexAlreadyExists,
    /// A constraint over the same schema blocks a new constraint, or owns the index a new
    /// index would be.
    ConstraintAlreadyExists,
    /// A new index or constraint named as an existing index it is not equal to.
    IndexWithNameAlreadyExists,
    /// A new index or constraint named as an existing constraint it is not equal to.
    ConstraintWithNameAlreadyExists,
    /// An index to drop does not exist.
    IndexDropFailed,
    /// An index named by a query does not exist.
    IndexNotFound,
    // Request
    /// A well-formed request that cannot be served (out of state, bad field, unknown path).
    RequestInvalid,
    /// Bytes or a body that do not decode.
    RequestInvalidFormat,
    // Transaction
    /// The transaction named does not exist (any more).
    TransactionNotFound,
    /// The transaction ran past the server's time limit.
    TransactionTimedOut,
    /// The transaction ran past the time limit the client set.
    TransactionTimedOutClientConfiguration,
    /// The transaction was terminated by a request or a limit.
    TransactionTerminated,
    /// An HTTP transaction used by two requests at once.
    TransactionAccessedConcurrently,
    /// A transaction that failed earlier and can only be rolled back.
    TransactionHookFailed,
    /// A bookmark that does not parse or names no commit of this server.
    InvalidBookmark,
    /// Schema and data changes in one transaction.
    ForbiddenDueToTransactionType,
    /// The transaction was terminated by something the client may retry past.
    TransientTransactionTerminated,
    /// The transaction's view is out of date: what it would change was changed by a
    /// transaction that committed after its snapshot (first updater wins).
    TransactionOutdated,
    /// Transactions waiting for each other in a cycle. Quiver's writers never wait while
    /// holding a change of their own, so it does not raise this; it is here for codes read
    /// from the wire.
    DeadlockDetected,
    /// Another transaction holds an uncommitted change to what this one would change, and it
    /// did not end within the lock wait (or this transaction could not wait for it).
    LockAcquisitionTimeout,
    /// The commit a bookmark names did not become visible within the wait limit.
    BookmarkTimeout,
    /// The server holds its limit of open transactions.
    MaximumTransactionLimitReached,
    /// The commit could not be made (or confirmed) durable.
    TransactionCommitFailed,
    // Security
    /// Authentication failed.
    Unauthorized,
    /// The user may not do this.
    Forbidden,
    /// The user must change their password before doing anything else.
    CredentialsExpired,
    // Cluster, database, general
    /// A write sent to a member that does not lead.
    NotALeader,
    /// The database named is not served here.
    DatabaseNotFound,
    /// A database (or an alias) of that name exists already.
    ExistingDatabaseFound,
    /// An alias of that name exists already, or the name given is an alias's.
    ExistingAliasFound,
    /// A database management command that cannot be carried out as asked (dropping or
    /// stopping `system`).
    NotSystemDatabaseError,
    /// A write to a read-only database.
    ForbiddenOnReadOnlyDatabase,
    /// The database is starting or stopping.
    DatabaseUnavailable,
    /// The server refuses work it is at its limit for (connections).
    ServiceUnavailable,
    /// The running queries together would pass the server's memory pool.
    MemoryPoolOutOfMemoryError,
    /// A query would pass its own memory limit.
    TransactionMemoryLimit,
    /// A failure the server cannot name more precisely.
    UnknownError,
}

/// One row of the table.
struct Row {
    status: Status,
    code: &'static str,
    classification: Classification,
    gql: GqlError,
}

const CLIENT: Classification = Classification::ClientError;
const TRANSIENT: Classification = Classification::TransientError;
const DATABASE: Classification = Classification::DatabaseError;

/// A GQL status with its subcondition, named once so the table reads by meaning and rows that
/// share a condition cannot drift apart.
struct Condition {
    gql_status: &'static str,
    subcondition: &'static str,
}

const fn condition(gql_status: &'static str, subcondition: &'static str) -> Condition {
    Condition {
        gql_status,
        subcondition,
    }
}

const INVALID_SYNTAX: Condition = condition("42001", "invalid syntax");
const SYNTAX_OR_ACCESS_RULE: Condition = condition("42000", "");
const INVALID_TYPE: Condition = condition("22N01", "invalid type");
const DATA_EXCEPTION: Condition = condition("22000", "");
const REQUEST_ERROR: Condition = condition("08N11", "request error");
const PROTOCOL_ERROR: Condition = condition("08N06", "protocol error");
const NO_SUCH_TRANSACTION: Condition = condition("25N04", "specified transaction does not exist");
const TERMINATED_OR_CLOSED: Condition = condition("25N05", "transaction terminated or closed");
const CONFLICTING_STATE: Condition = condition("25N11", "conflicting transaction state");
const DEADLOCK: Condition = condition("50N05", "deadlock detected");
const ACCESS_DENIED: Condition = condition("42NFF", "access denied");
const NOT_THE_LEADER: Condition = condition("08N07", "not the leader");
const READ_ONLY: Condition = condition("08N08", "database is read only");
const UNAVAILABLE: Condition = condition("08N09", "database unavailable");
const MEMORY_POOL_OUT_OF_MEMORY: Condition = condition("51N72", "memory pool out of memory");
const TRANSACTION_MEMORY_LIMIT: Condition = condition("51N73", "transaction memory limit reached");

/// A row with its own GQL status.
const fn row(
    status: Status,
    code: &'static str,
    classification: Classification,
    condition: Condition,
) -> Row {
    Row {
        status,
        code,
        classification,
        gql: GqlError {
            gql_status: condition.gql_status,
            subcondition: condition.subcondition,
            classification: classification.gql_error(),
        },
    }
}

/// A row sent as `50N42`.
const fn unexpected(status: Status, code: &'static str, classification: Classification) -> Row {
    Row {
        status,
        code,
        classification,
        gql: GqlError::unexpected(classification),
    }
}

/// The table: every status's code, classification and GQL status, one row per status in the
/// order [`Status`] declares them (checked at compile time below), so a status's row is found by
/// its discriminant.
const TABLE: [Row; Status::ALL.len()] = {
    use Status::*;
    [
        row(
            SyntaxError,
            "Neo.ClientError.Statement.SyntaxError",
            CLIENT,
            INVALID_SYNTAX,
        ),
        row(
            SemanticError,
            "Neo.ClientError.Statement.SemanticError",
            CLIENT,
            SYNTAX_OR_ACCESS_RULE,
        ),
        row(
            ParameterMissing,
            "Neo.ClientError.Statement.ParameterMissing",
            CLIENT,
            SYNTAX_OR_ACCESS_RULE,
        ),
        row(
            TypeError,
            "Neo.ClientError.Statement.TypeError",
            CLIENT,
            INVALID_TYPE,
        ),
        row(
            ArgumentError,
            "Neo.ClientError.Statement.ArgumentError",
            CLIENT,
            DATA_EXCEPTION,
        ),
        row(
            ArithmeticError,
            "Neo.ClientError.Statement.ArithmeticError",
            CLIENT,
            DATA_EXCEPTION,
        ),
        row(
            EntityNotFound,
            "Neo.ClientError.Statement.EntityNotFound",
            CLIENT,
            DATA_EXCEPTION,
        ),
        unexpected(AccessMode, "Neo.ClientError.Statement.AccessMode", CLIENT),
        unexpected(
            ExternalResourceFailed,
            "Neo.ClientError.Statement.ExternalResourceFailed",
            CLIENT,
        ),
        unexpected(
            ExecutionFailed,
            "Neo.DatabaseError.Statement.ExecutionFailed",
            DATABASE,
        ),
        unexpected(
            ProcedureNotFound,
            "Neo.ClientError.Procedure.ProcedureNotFound",
            CLIENT,
        ),
        unexpected(
            ProcedureCallFailed,
            "Neo.ClientError.Procedure.ProcedureCallFailed",
            CLIENT,
        ),
        unexpected(
            ChangeIdentifierInvalid,
            "Neo.ClientError.ChangeDataCapture.InvalidIdentifier",
            CLIENT,
        ),
        unexpected(
            ChangeCaptureDisabled,
            "Neo.DatabaseError.ChangeDataCapture.Disabled",
            DATABASE,
        ),
        unexpected(
            ChangeScanFailure,
            "Neo.DatabaseError.ChangeDataCapture.ScanFailure",
            DATABASE,
        ),
        row(
            ConstraintValidationFailed,
            "Neo.ClientError.Schema.ConstraintValidationFailed",
            CLIENT,
            DATA_EXCEPTION,
        ),
        unexpected(
            ConstraintCreationFailed,
            "Neo.ClientError.Schema.ConstraintCreationFailed",
            CLIENT,
        ),
        unexpected(
            ConstraintDropFailed,
            "Neo.ClientError.Schema.ConstraintDropFailed",
            CLIENT,
        ),
        unexpected(
            EquivalentSchemaRuleAlreadyExists,
            "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists",
            CLIENT,
        ),
        unexpected(
            IndexAlreadyExists,
            "Neo.ClientError.Schema.IndexAlreadyExists",
            CLIENT,
        ),
        unexpected(
            ConstraintAlreadyExists,
            "Neo.ClientError.Schema.ConstraintAlreadyExists",
            CLIENT,
        ),
        unexpected(
            IndexWithNameAlreadyExists,
            "Neo.ClientError.Schema.IndexWithNameAlreadyExists",
            CLIENT,
        ),
        unexpected(
            ConstraintWithNameAlreadyExists,
            "Neo.ClientError.Schema.ConstraintWithNameAlreadyExists",
            CLIENT,
        ),
        unexpected(
            IndexDropFailed,
            "Neo.ClientError.Schema.IndexDropFailed",
            CLIENT,
        ),
        unexpected(
            IndexNotFound,
            "Neo.ClientError.Schema.IndexNotFound",
            CLIENT,
        ),
        row(
            RequestInvalid,
            "Neo.ClientError.Request.Invalid",
            CLIENT,
            REQUEST_ERROR,
        ),
        row(
            RequestInvalidFormat,
            "Neo.ClientError.Request.InvalidFormat",
            CLIENT,
            PROTOCOL_ERROR,
        ),
        row(
            TransactionNotFound,
            "Neo.ClientError.Transaction.TransactionNotFound",
            CLIENT,
            NO_SUCH_TRANSACTION,
        ),
        row(
            TransactionTimedOut,
            "Neo.ClientError.Transaction.TransactionTimedOut",
            CLIENT,
            TERMINATED_OR_CLOSED,
        ),
        row(
            TransactionTimedOutClientConfiguration,
            "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
            CLIENT,
            TERMINATED_OR_CLOSED,
        ),
        row(
            TransactionTerminated,
            "Neo.ClientError.Transaction.Terminated",
            CLIENT,
            TERMINATED_OR_CLOSED,
        ),
        unexpected(
            TransactionAccessedConcurrently,
            "Neo.ClientError.Transaction.TransactionAccessedConcurrently",
            CLIENT,
        ),
        unexpected(
            TransactionHookFailed,
            "Neo.ClientError.Transaction.TransactionHookFailed",
            CLIENT,
        ),
        unexpected(
            InvalidBookmark,
            "Neo.ClientError.Transaction.InvalidBookmark",
            CLIENT,
        ),
        unexpected(
            ForbiddenDueToTransactionType,
            "Neo.ClientError.Transaction.ForbiddenDueToTransactionType",
            CLIENT,
        ),
        row(
            TransientTransactionTerminated,
            "Neo.TransientError.Transaction.Terminated",
            TRANSIENT,
            TERMINATED_OR_CLOSED,
        ),
        row(
            TransactionOutdated,
            "Neo.TransientError.Transaction.Outdated",
            TRANSIENT,
            CONFLICTING_STATE,
        ),
        row(
            DeadlockDetected,
            "Neo.TransientError.Transaction.DeadlockDetected",
            TRANSIENT,
            DEADLOCK,
        ),
        unexpected(
            LockAcquisitionTimeout,
            "Neo.TransientError.Transaction.LockAcquisitionTimeout",
            TRANSIENT,
        ),
        unexpected(
            BookmarkTimeout,
            "Neo.TransientError.Transaction.BookmarkTimeout",
            TRANSIENT,
        ),
        unexpected(
            MaximumTransactionLimitReached,
            "Neo.TransientError.Transaction.MaximumTransactionLimitReached",
            TRANSIENT,
        ),
        unexpected(
            TransactionCommitFailed,
            "Neo.DatabaseError.Transaction.TransactionCommitFailed",
            DATABASE,
        ),
        row(
            Unauthorized,
            "Neo.ClientError.Security.Unauthorized",
            CLIENT,
            ACCESS_DENIED,
        ),
        row(
            Forbidden,
            "Neo.ClientError.Security.Forbidden",
            CLIENT,
            ACCESS_DENIED,
        ),
        row(
            CredentialsExpired,
            "Neo.ClientError.Security.CredentialsExpired",
            CLIENT,
            ACCESS_DENIED,
        ),
        row(
            NotALeader,
            "Neo.ClientError.Cluster.NotALeader",
            CLIENT,
            NOT_THE_LEADER,
        ),
        unexpected(
            DatabaseNotFound,
            "Neo.ClientError.Database.DatabaseNotFound",
            CLIENT,
        ),
        unexpected(
            ExistingDatabaseFound,
            "Neo.ClientError.Database.ExistingDatabaseFound",
            CLIENT,
        ),
        unexpected(
            ExistingAliasFound,
            "Neo.ClientError.Database.ExistingAliasFound",
            CLIENT,
        ),
        unexpected(
            NotSystemDatabaseError,
            "Neo.ClientError.Statement.NotSystemDatabaseError",
            CLIENT,
        ),
        row(
            ForbiddenOnReadOnlyDatabase,
            "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase",
            CLIENT,
            READ_ONLY,
        ),
        row(
            DatabaseUnavailable,
            "Neo.TransientError.General.DatabaseUnavailable",
            TRANSIENT,
            UNAVAILABLE,
        ),
        unexpected(
            ServiceUnavailable,
            "Neo.TransientError.General.ServiceUnavailable",
            TRANSIENT,
        ),
        row(
            MemoryPoolOutOfMemoryError,
            "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
            TRANSIENT,
            MEMORY_POOL_OUT_OF_MEMORY,
        ),
        row(
            TransactionMemoryLimit,
            "Neo.TransientError.General.TransactionMemoryLimit",
            TRANSIENT,
            TRANSACTION_MEMORY_LIMIT,
        ),
        unexpected(
            UnknownError,
            "Neo.DatabaseError.General.UnknownError",
            DATABASE,
        ),
    ]
};

/// Row `i` of [`TABLE`] is the row of the `i`th status.
const _: () = {
    let mut i = 0;
    while i < TABLE.len() {
        assert!(
            TABLE[i].status as usize == i,
            "TABLE is out of the order Status declares"
        );
        i += 1;
    }
};

impl Status {
    /// This status's row of [`TABLE`].
    const fn row(self) -> &'static Row {
        &TABLE[self as usize]
    }

    /// The Neo4j code, e.g. `Neo.ClientError.Statement.SyntaxError`.
    pub const fn code(self) -> &'static str {
        self.row().code
    }

    /// The code's last segment, e.g. `SyntaxError` (the name the openCypher TCK uses).
    pub fn name(self) -> &'static str {
        let code = self.code();
        code.rsplit('.').next().unwrap_or(code)
    }

    /// The class drivers decide retries from (the code's second segment).
    pub const fn classification(self) -> Classification {
        self.row().classification
    }

    /// Whether a driver may retry the whole transaction (a `TransientError`).
    pub const fn is_retryable(self) -> bool {
        self.classification().is_retryable()
    }

    /// Whether the client is at fault (a `ClientError`).
    pub const fn is_client_error(self) -> bool {
        matches!(self.classification(), Classification::ClientError)
    }

    /// The GQL status a Bolt 5.7+ FAILURE carries.
    pub const fn gql(self) -> GqlError {
        self.row().gql
    }

    /// The status a code received as text names, if Quiver has it (codes read from the wire:
    /// the lab's client, the TCK's expectations).
    pub fn from_code(code: &str) -> Option<Status> {
        Status::ALL
            .iter()
            .copied()
            .find(|status| status.code() == code)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A status equals the text of its code, so a code read from the wire compares directly.
impl PartialEq<str> for Status {
    fn eq(&self, other: &str) -> bool {
        self.code() == other
    }
}

impl PartialEq<&str> for Status {
    fn eq(&self, other: &&str) -> bool {
        self.code() == *other
    }
}

impl PartialEq<Status> for str {
    fn eq(&self, other: &Status) -> bool {
        self == other.code()
    }
}

impl PartialEq<Status> for &str {
    fn eq(&self, other: &Status) -> bool {
        *self == other.code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_round_trips_through_its_code() {
        for &status in Status::ALL {
            assert_eq!(Status::from_code(status.code()), Some(status), "{status}");
            assert_eq!(status.to_string(), status.code());
            assert_eq!(status, status.code());
        }
        assert_eq!(Status::from_code("Neo.TransientError.Something.New"), None);
        assert_eq!(Status::from_code(""), None);
    }

    #[test]
    fn codes_are_distinct_and_well_formed() {
        for (i, a) in Status::ALL.iter().enumerate() {
            let segments: Vec<&str> = a.code().split('.').collect();
            assert_eq!(segments.len(), 4, "{a}");
            assert_eq!(segments[0], "Neo", "{a}");
            assert_eq!(segments[3], a.name(), "{a}");
            for b in &Status::ALL[i + 1..] {
                assert_ne!(a.code(), b.code());
            }
        }
    }

    #[test]
    fn classification_is_the_second_segment() {
        for &status in Status::ALL {
            let second = status.code().split('.').nth(1);
            assert_eq!(second, Some(status.classification().as_str()), "{status}");
            assert_eq!(
                Classification::of_code(status.code()),
                Some(status.classification())
            );
            assert_eq!(
                status.is_retryable(),
                status.code().starts_with("Neo.TransientError."),
                "{status}"
            );
        }
    }

    #[test]
    fn every_gql_status_is_consistent() {
        for &status in Status::ALL {
            let gql = status.gql();
            assert_eq!(gql.gql_status.len(), 5, "{status}");
            assert_eq!(
                gql.classification,
                status.classification().gql_error(),
                "{status}"
            );
        }
    }

    /// Rows as the Bolt layer's table had them before the table moved here, byte for byte.
    #[test]
    fn known_gql_mappings() {
        let known = [
            (
                "Neo.ClientError.Statement.SyntaxError",
                "42001",
                "invalid syntax",
                "CLIENT_ERROR",
            ),
            (
                "Neo.ClientError.Statement.SemanticError",
                "42000",
                "",
                "CLIENT_ERROR",
            ),
            (
                "Neo.ClientError.Statement.TypeError",
                "22N01",
                "invalid type",
                "CLIENT_ERROR",
            ),
            (
                "Neo.ClientError.Request.Invalid",
                "08N11",
                "request error",
                "CLIENT_ERROR",
            ),
            (
                "Neo.ClientError.Request.InvalidFormat",
                "08N06",
                "protocol error",
                "CLIENT_ERROR",
            ),
            (
                "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
                "25N05",
                "transaction terminated or closed",
                "CLIENT_ERROR",
            ),
            (
                "Neo.TransientError.Transaction.Outdated",
                "25N11",
                "conflicting transaction state",
                "TRANSIENT_ERROR",
            ),
            (
                "Neo.TransientError.Transaction.DeadlockDetected",
                "50N05",
                "deadlock detected",
                "TRANSIENT_ERROR",
            ),
            (
                "Neo.ClientError.Security.Unauthorized",
                "42NFF",
                "access denied",
                "CLIENT_ERROR",
            ),
            (
                "Neo.TransientError.General.DatabaseUnavailable",
                "08N09",
                "database unavailable",
                "TRANSIENT_ERROR",
            ),
            (
                "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
                "51N72",
                "memory pool out of memory",
                "TRANSIENT_ERROR",
            ),
            (
                "Neo.TransientError.General.TransactionMemoryLimit",
                "51N73",
                "transaction memory limit reached",
                "TRANSIENT_ERROR",
            ),
        ];
        for (code, gql_status, subcondition, classification) in known {
            let status = Status::from_code(code).expect(code);
            assert_eq!(
                status.gql(),
                GqlError {
                    gql_status,
                    subcondition,
                    classification
                },
                "{code}"
            );
        }
    }

    #[test]
    fn statuses_without_a_gql_code_fall_back_to_unexpected() {
        for (status, classification) in [
            (Status::UnknownError, "DATABASE_ERROR"),
            (Status::ServiceUnavailable, "TRANSIENT_ERROR"),
            (Status::BookmarkTimeout, "TRANSIENT_ERROR"),
            (Status::AccessMode, "CLIENT_ERROR"),
        ] {
            let gql = status.gql();
            assert_eq!(
                (gql.gql_status, gql.subcondition, gql.classification),
                ("50N42", "unexpected error", classification),
                "{status}"
            );
        }
        let unknown = GqlError::unexpected_code("Neo.TransientError.Something.New");
        assert_eq!(
            (unknown.gql_status, unknown.classification),
            ("50N42", "TRANSIENT_ERROR")
        );
        assert_eq!(
            GqlError::unexpected_code("not a code").classification,
            "DATABASE_ERROR"
        );
    }
}
