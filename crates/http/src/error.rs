//! The HTTP layer's errors, each with the Neo4j status code clients branch on.
//!
//! Engine errors keep their own codes ([`quiver_engine::Error::status_code`]); the variants
//! here are what the HTTP layer itself detects: request bodies, headers, transaction handles.

use quiver_status::Status;

/// Errors of the HTTP API.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApiError {
    /// A body or header that does not parse or has the wrong shape.
    #[error("{0}")]
    InvalidFormat(String),
    /// A well-formed request the API cannot serve (unsupported option, bad path).
    #[error("{0}")]
    Invalid(String),
    #[error("The database requested does not exists. Requested database name: '{0}'.")]
    DatabaseNotFound(String),
    #[error("Unrecognized transaction id. Transaction may have timed out and been rolled back.")]
    TransactionNotFound,
    /// The transaction was rolled back because no request came for it within the idle
    /// timeout.
    #[error(
        "The transaction has been terminated: no request came for it for {0} ms \
         (idle transaction timeout)."
    )]
    TransactionIdleTimedOut(u128),
    /// The Query API's answer for a transaction id it does not hold (never opened, committed,
    /// rolled back, expired, or opened on another cluster member), in Neo4j's words.
    #[error(
        "Transaction with Id: \"{0}\" was not found. It may have timed out and therefore rolled \
         back or the routing header 'neo4j-cluster-affinity' was not provided."
    )]
    QueryTransactionNotFound(String),
    #[error("The requested transaction is being used concurrently by another request.")]
    ConcurrentAccess,
    #[error(
        "The server already holds its limit of {0} open transactions; commit or roll back some first."
    )]
    TooManyTransactions(usize),
    /// The requesting user holds its own share of the open transactions.
    #[error(
        "This user already holds its limit of {0} open transactions \
         (http_transactions_per_user_max); commit or roll back some first."
    )]
    TooManyTransactionsForUser(usize),
    /// The requesting client address holds its own share of the open transactions.
    #[error(
        "This client address already holds its limit of {0} open transactions \
         (http_transactions_per_address_max); commit or roll back some first."
    )]
    TooManyTransactionsForAddress(usize),
    #[error("Invalid bookmark `{0}`.")]
    InvalidBookmark(String),
    #[error("Database not up to the requested bookmark `{0}` within the wait limit.")]
    BookmarkTimeout(String),
    /// The commit happened but could not be confirmed on disk.
    #[error("The transaction was committed but is not known to be durable: {0}")]
    NotDurable(String),
    /// A write reached a cluster member that does not lead (the reason names the leader).
    #[error("{0}")]
    NotALeader(String),
    #[error("{0}")]
    Engine(#[from] quiver_engine::Error),
}

impl ApiError {
    /// The Neo4j status (`Neo.ClientError.Request.InvalidFormat`, ...).
    pub fn code(&self) -> Status {
        match self {
            ApiError::InvalidFormat(_) => Status::RequestInvalidFormat,
            ApiError::Invalid(_) => Status::RequestInvalid,
            ApiError::DatabaseNotFound(_) => Status::DatabaseNotFound,
            ApiError::TransactionNotFound => Status::TransactionNotFound,
            ApiError::QueryTransactionNotFound(_) => Status::RequestInvalid,
            ApiError::TransactionIdleTimedOut(_) => Status::TransactionTimedOut,
            ApiError::ConcurrentAccess => Status::TransactionAccessedConcurrently,
            ApiError::TooManyTransactions(_)
            | ApiError::TooManyTransactionsForUser(_)
            | ApiError::TooManyTransactionsForAddress(_) => Status::MaximumTransactionLimitReached,
            ApiError::InvalidBookmark(_) => Status::InvalidBookmark,
            ApiError::BookmarkTimeout(_) => Status::BookmarkTimeout,
            ApiError::NotDurable(_) => Status::TransactionCommitFailed,
            ApiError::NotALeader(_) => Status::NotALeader,
            ApiError::Engine(e) => e.status_code(),
        }
    }

    pub fn message(&self) -> String {
        self.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_neo4j() {
        assert_eq!(
            ApiError::TransactionNotFound.code(),
            Status::TransactionNotFound
        );
        assert!(
            ApiError::DatabaseNotFound("nope".to_owned())
                .message()
                .contains("'nope'")
        );
    }
}
