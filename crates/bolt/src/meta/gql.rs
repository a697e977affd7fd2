//! GQL statuses for the FAILURE form of Bolt 5.7+.
//!
//! Which GQL status each Neo4j status has is [`quiver_status::Status::gql`]'s table; this
//! module writes the `description` Neo4j gives it. A code received as text that Quiver does
//! not have falls back to `50N42` (unexpected error, what drivers assume when a field is
//! missing) with the classification implied by the Neo4j code's class (`ClientError`,
//! `TransientError`, `DatabaseError`): drivers retry on the classification, so it must be
//! right even when the GQL code is the fallback.

pub use quiver_status::GqlError;
use quiver_status::Status;

/// The GQL status for a Neo4j status code given as text.
pub fn gql_error(neo4j_code: &str) -> GqlError {
    Status::from_code(neo4j_code).map_or_else(|| GqlError::unexpected_code(neo4j_code), Status::gql)
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
}
