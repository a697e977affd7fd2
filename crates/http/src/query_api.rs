//! Query API v2: one statement in an implicit transaction, answered `202 Accepted` with
//!
//! ```text
//! {"data":{"fields":[..],"values":[[..],..]},"counters":{..},"notifications":[..],"bookmarks":[..]}
//! ```
//!
//! Values are plain JSON or, when the client accepts `application/vnd.neo4j.query`, typed JSON.
//! Unlike the transactional API the status reflects errors (400 for client errors, 404 for an
//! unknown database, 500 otherwise) — as long as the response has not started streaming; an
//! error after that is appended as an `errors` member, since the status is already sent.

use std::sync::Arc;
use std::time::Instant;

use http::StatusCode;

use quiver_engine::{AccessMode, Counters, PullState, TxOptions};
use quiver_value::Value;

use crate::bookmarks;
use crate::decode::{self, QueryRequest};
use crate::encode;
use crate::error::ApiError;
use crate::json;
use crate::negotiate::{JSON, QueryFormat, TYPED_JSON};
use crate::service::Shared;
use crate::stream::Output;
use crate::tracked::TrackedTx;
use crate::tx_api::{write_error, write_notifications};
use crate::typed;

pub struct QueryJob {
    pub format: QueryFormat,
    pub typed_parameters: bool,
    pub body: bytes::Bytes,
}

/// The status a Query API error is answered with.
pub fn status_of(error: &ApiError) -> StatusCode {
    let code = error.code();
    if code == "Neo.ClientError.Database.DatabaseNotFound" {
        StatusCode::NOT_FOUND
    } else if code.starts_with("Neo.ClientError.") {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::INTERNAL_SERVER_ERROR
    }
}

/// `{"errors":[{"code":..,"message":..}]}`.
pub fn error_document(out: &mut Output, content_type: &'static str, error: &ApiError) {
    out.head(status_of(error), content_type, None);
    out.buf.clear();
    out.buf.extend_from_slice(br#"{"errors":["#);
    write_error(&mut out.buf, error);
    out.buf.extend_from_slice(b"]}");
}

pub fn run(shared: &Shared, job: QueryJob, mut out: Output) {
    let content_type = match job.format {
        QueryFormat::Plain => JSON,
        QueryFormat::Typed => TYPED_JSON,
    };
    let request = match decode::query_request(&job.body, job.typed_parameters).and_then(|r| {
        if r.impersonated_user.is_some() {
            Err(ApiError::Invalid(
                "Impersonation is not supported by Quiver.".to_owned(),
            ))
        } else {
            Ok(r)
        }
    }) {
        Ok(request) => request,
        Err(error) => {
            error_document(&mut out, content_type, &error);
            let _ = out.finish();
            return;
        }
    };
    out.head(StatusCode::ACCEPTED, content_type, None);
    let started = Instant::now();
    let result = execute(shared, request, job.format, &mut out);
    shared.telemetry.query_finished(started.elapsed());
    match result {
        Ok(()) => {
            let _ = out.finish();
        }
        Err(Failure::ClientGone) => {}
        Err(Failure::Error(error)) => {
            if out.committed() {
                // The status is out: close what is open and name the error in the document.
                out.buf.extend_from_slice(br#"]},"errors":["#);
                write_error(&mut out.buf, &error);
                out.buf.extend_from_slice(b"]}");
            } else {
                error_document(&mut out, content_type, &error);
            }
            let _ = out.finish();
        }
    }
}

enum Failure {
    Error(ApiError),
    ClientGone,
}

impl From<ApiError> for Failure {
    fn from(error: ApiError) -> Self {
        Failure::Error(error)
    }
}

impl From<quiver_engine::Error> for Failure {
    fn from(error: quiver_engine::Error) -> Self {
        Failure::Error(ApiError::Engine(error))
    }
}

fn execute(
    shared: &Shared,
    request: QueryRequest,
    format: QueryFormat,
    out: &mut Output,
) -> Result<(), Failure> {
    bookmarks::await_all(shared, &request.bookmarks)?;
    let options = TxOptions {
        mode: if request.read_only == Some(true) {
            AccessMode::Read
        } else {
            AccessMode::Write
        },
        ..TxOptions::default()
    };
    let mut tracked = TrackedTx::new(shared.db.begin(options)?, Arc::clone(&shared.telemetry));
    let Some(tx) = tracked.get() else {
        return Err(Failure::Error(ApiError::Invalid(
            "the transaction closed before it ran".to_owned(),
        )));
    };
    let query = tx.run(&request.statement, request.parameters)?;
    out.buf.extend_from_slice(br#"{"data":{"fields":["#);
    let mut first = true;
    for field in tx.fields(query) {
        json::comma(&mut out.buf, &mut first);
        json::string(&mut out.buf, field);
    }
    out.buf.extend_from_slice(br#"],"values":["#);
    let has_fields = !tx.fields(query).is_empty();
    let batch = shared.config.pull_rows_max.max(1);
    let mut rows: Vec<Vec<Value>> = Vec::with_capacity(batch.min(1024));
    let mut first_row = true;
    let summary = loop {
        rows.clear();
        let state = tx.pull(query, batch as i64, &mut rows)?;
        for row in rows.iter().filter(|_| has_fields) {
            json::comma(&mut out.buf, &mut first_row);
            out.buf.push(b'[');
            let mut first_value = true;
            for value in row {
                json::comma(&mut out.buf, &mut first_value);
                match format {
                    QueryFormat::Plain => encode::plain_value(&mut out.buf, value),
                    QueryFormat::Typed => typed::write(&mut out.buf, value),
                }
            }
            out.buf.push(b']');
        }
        if let Err(gone) = out.maybe_flush() {
            let _ = gone;
            tracked.abandon();
            return Err(Failure::ClientGone);
        }
        if let PullState::Done(summary) = state {
            break summary;
        }
    };
    let info = tracked.commit()?;
    out.buf.extend_from_slice(b"]}");
    if request.include_counters {
        write_counters(&mut out.buf, &summary.stats);
    }
    if !summary.notifications.is_empty() {
        out.buf.push(b',');
        write_notifications(&mut out.buf, &summary.notifications);
    }
    out.buf.extend_from_slice(br#","bookmarks":["#);
    json::string(&mut out.buf, &info.bookmark);
    out.buf.extend_from_slice(b"]}");
    Ok(())
}

fn write_counters(out: &mut Vec<u8>, stats: &Counters) {
    let count = |out: &mut Vec<u8>, name: &str, value: u64| {
        out.push(b',');
        json::key(out, name);
        json::uint(out, value);
    };
    out.extend_from_slice(br#","counters":{"containsUpdates":"#);
    json::boolean(out, stats.contains_updates());
    count(out, "nodesCreated", stats.nodes_created);
    count(out, "nodesDeleted", stats.nodes_deleted);
    count(out, "propertiesSet", stats.properties_set);
    count(out, "relationshipsCreated", stats.relationships_created);
    count(out, "relationshipsDeleted", stats.relationships_deleted);
    count(out, "labelsAdded", stats.labels_added);
    count(out, "labelsRemoved", stats.labels_removed);
    count(out, "indexesAdded", stats.indexes_added);
    count(out, "indexesRemoved", stats.indexes_removed);
    count(out, "constraintsAdded", stats.constraints_added);
    count(out, "constraintsRemoved", stats.constraints_removed);
    out.extend_from_slice(br#","containsSystemUpdates":"#);
    json::boolean(out, stats.system_updates > 0);
    count(out, "systemUpdates", stats.system_updates);
    out.push(b'}');
}
