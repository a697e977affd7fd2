//! Writes refused after a disk fault, as the HTTP API reports them.
//!
//! Acknowledgement and visibility are the engine's: a commit is answered once
//! `Database::durable_blocking` returns for its ticket (on disk in the `group` and `sync`
//! modes), a write transaction's rows once the ticket it read at is acknowledged, and a
//! bookmark once `Database::visible_blocking` sees its commit. The API's request work runs on
//! threads that may block, so it uses the blocking forms.

/// The error a write gets once `Database::writes_refused` names a reason (the log's words).
pub(crate) fn refused_write(reason: &str) -> crate::error::ApiError {
    crate::error::ApiError::NotDurable(reason.to_owned())
}
