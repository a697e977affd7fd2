//! Neo4j status codes mapped to GQL statuses, for the FAILURE form of Bolt 5.7+.
//!
//! The table holds the codes Quiver raises; anything else falls back to `50N42` (unexpected
//! error, what drivers assume when a field is missing) with the classification implied by
//! the Neo4j code's class (`ClientError`, `TransientError`, `DatabaseError`). Drivers retry on
//! the classification, so it must be right even when the GQL code is the fallback.

/// A GQL status for an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GqlError {
    pub gql_status: &'static str,
    /// Text after the condition in `description`; empty for class-level codes.
    pub subcondition: &'static str,
    /// `CLIENT_ERROR`, `TRANSIENT_ERROR` or `DATABASE_ERROR`.
    pub classification: &'static str,
}

const CLIENT: &str = "CLIENT_ERROR";
const TRANSIENT: &str = "TRANSIENT_ERROR";
const DATABASE: &str = "DATABASE_ERROR";

/// Neo4j code → (GQL status, subcondition, classification).
const TABLE: &[(&str, &str, &str, &str)] = &[
    (
        "Neo.ClientError.Statement.SyntaxError",
        "42001",
        "invalid syntax",
        CLIENT,
    ),
    (
        "Neo.ClientError.Statement.SemanticError",
        "42000",
        "",
        CLIENT,
    ),
    (
        "Neo.ClientError.Statement.ParameterMissing",
        "42000",
        "",
        CLIENT,
    ),
    (
        "Neo.ClientError.Statement.TypeError",
        "22N01",
        "invalid type",
        CLIENT,
    ),
    (
        "Neo.ClientError.Statement.ArgumentError",
        "22000",
        "",
        CLIENT,
    ),
    (
        "Neo.ClientError.Statement.ArithmeticError",
        "22000",
        "",
        CLIENT,
    ),
    (
        "Neo.ClientError.Statement.EntityNotFound",
        "22000",
        "",
        CLIENT,
    ),
    (
        "Neo.ClientError.Schema.ConstraintValidationFailed",
        "22000",
        "",
        CLIENT,
    ),
    (
        "Neo.ClientError.Request.Invalid",
        "08N11",
        "request error",
        CLIENT,
    ),
    (
        "Neo.ClientError.Request.InvalidFormat",
        "08N06",
        "protocol error",
        CLIENT,
    ),
    (
        "Neo.ClientError.Transaction.TransactionNotFound",
        "25N04",
        "specified transaction does not exist",
        CLIENT,
    ),
    (
        "Neo.ClientError.Transaction.TransactionTimedOut",
        "25N05",
        "transaction terminated or closed",
        CLIENT,
    ),
    (
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
        "25N05",
        "transaction terminated or closed",
        CLIENT,
    ),
    (
        "Neo.ClientError.Transaction.Terminated",
        "25N05",
        "transaction terminated or closed",
        CLIENT,
    ),
    (
        "Neo.TransientError.Transaction.Terminated",
        "25N05",
        "transaction terminated or closed",
        TRANSIENT,
    ),
    (
        "Neo.TransientError.Transaction.Outdated",
        "25N11",
        "conflicting transaction state",
        TRANSIENT,
    ),
    (
        "Neo.TransientError.Transaction.DeadlockDetected",
        "50N05",
        "deadlock detected",
        TRANSIENT,
    ),
    (
        "Neo.ClientError.Security.Unauthorized",
        "42NFF",
        "access denied",
        CLIENT,
    ),
    (
        "Neo.ClientError.Security.Forbidden",
        "42NFF",
        "access denied",
        CLIENT,
    ),
    (
        "Neo.ClientError.Cluster.NotALeader",
        "08N07",
        "not the leader",
        CLIENT,
    ),
    (
        "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase",
        "08N08",
        "database is read only",
        CLIENT,
    ),
    (
        "Neo.TransientError.General.DatabaseUnavailable",
        "08N09",
        "database unavailable",
        TRANSIENT,
    ),
];

/// The GQL status for a Neo4j status code.
pub fn gql_error(neo4j_code: &str) -> GqlError {
    if let Some(&(_, gql_status, subcondition, classification)) =
        TABLE.iter().find(|row| row.0 == neo4j_code)
    {
        return GqlError {
            gql_status,
            subcondition,
            classification,
        };
    }
    GqlError {
        gql_status: "50N42",
        subcondition: "unexpected error",
        classification: classification_of(neo4j_code),
    }
}

/// The classification a Neo4j code's class implies.
pub fn classification_of(neo4j_code: &str) -> &'static str {
    match neo4j_code.split('.').nth(1) {
        Some("ClientError") => CLIENT,
        Some("TransientError") => TRANSIENT,
        _ => DATABASE,
    }
}

/// GQL's name for the class of a status (its first two characters).
pub fn condition(gql_status: &str) -> &'static str {
    match gql_status.get(..2) {
        Some("00") => "successful completion",
        Some("01") => "warning",
        Some("02") => "no data",
        Some("03") => "informational",
        Some("08") => "connection exception",
        Some("22") => "data exception",
        Some("25") => "invalid transaction state",
        Some("40") => "transaction rollback",
        Some("42") => "syntax error or access rule violation",
        Some("51") => "system configuration or operation exception",
        Some("52") => "procedure exception",
        _ => "general processing exception",
    }
}

/// `error: <condition> - <subcondition>. <message>`, the shape Neo4j gives `description`.
pub fn error_description(gql: &GqlError, message: &str) -> String {
    let mut s = String::with_capacity(64 + message.len());
    s.push_str("error: ");
    s.push_str(condition(gql.gql_status));
    if !gql.subcondition.is_empty() {
        s.push_str(" - ");
        s.push_str(gql.subcondition);
    }
    if !message.is_empty() {
        s.push_str(". ");
        s.push_str(message);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_codes_and_fallback() {
        assert_eq!(
            gql_error("Neo.ClientError.Statement.SyntaxError").gql_status,
            "42001"
        );
        let unavailable = gql_error("Neo.TransientError.General.DatabaseUnavailable");
        assert_eq!(
            (unavailable.gql_status, unavailable.classification),
            ("08N09", "TRANSIENT_ERROR")
        );
        let unknown = gql_error("Neo.TransientError.Something.New");
        assert_eq!(
            (unknown.gql_status, unknown.classification),
            ("50N42", "TRANSIENT_ERROR")
        );
        assert_eq!(
            gql_error("Neo.DatabaseError.General.UnknownError").classification,
            "DATABASE_ERROR"
        );
        assert_eq!(
            error_description(
                &gql_error("Neo.ClientError.Statement.SyntaxError"),
                "Invalid input 'X'"
            ),
            "error: syntax error or access rule violation - invalid syntax. Invalid input 'X'"
        );
    }

    #[test]
    fn every_row_is_consistent() {
        for (code, gql, _, classification) in TABLE {
            assert_eq!(gql.len(), 5, "{code}");
            assert_eq!(*classification, classification_of(code), "{code}");
        }
    }
}
