//! Writes refused after a disk fault, as the HTTP API reports them.
//!
//! Acknowledgement and visibility are the engine's: a commit is answered once
//! `Database::durable_blocking` returns for its ticket (on disk in the `group` and `sync`
//! modes), a write transaction's rows once the ticket it read at is acknowledged, and a
//! bookmark once `Database::visible_blocking` sees its commit. The API's request work runs on
//! threads that may block, so it uses the blocking forms.

use quiver_status::Status;

/// The error a write gets once `Database::write_refusal` names a reason (the log's words):
/// `NotALeader` on a cluster member that does not lead, else a disk fault's.
pub(crate) fn refused_write(refusal: &(Status, String)) -> crate::error::ApiError {
    match refusal {
        (Status::NotALeader, reason) => crate::error::ApiError::NotALeader(reason.clone()),
        (_, reason) => crate::error::ApiError::NotDurable(reason.clone()),
    }
}
