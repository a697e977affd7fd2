//! Query API v2: one statement in an implicit transaction, answered `202 Accepted` with
//!
//! ```text
//! {"data":{"fields":[..],"values":[[..],..]},"counters":{..},"notifications":[..],"bookmarks":[..]}
//! ```
//!
//! Values are plain JSON or, when the client accepts `application/vnd.neo4j.query`, typed JSON.
//! Unlike the transactional API the status reflects errors (400 for client errors, 404 for an
//! unknown database, 500 otherwise) — as long as the first chunk has not gone out; an error
//! after that is appended as an `errors` member, since the status is already sent.

use std::sync::Arc;
use std::time::Instant;

use http::StatusCode;

use quiver_engine::{AccessMode, Counters, DurabilityTicket, PullState, QueryId, TxOptions};
use quiver_status::Status;
use quiver_value::Value;

use crate::bookmarks;
use crate::decode::{self, QueryRequest};
use crate::durable;
use crate::encode;
use crate::error::ApiError;
use crate::json;
use crate::negotiate::{JSON, QueryFormat, TYPED_JSON};
use crate::service::ApiState;
use crate::stream::{Head, Produce};
use crate::tracked::TrackedTx;
use crate::tx_api::{write_error, write_notifications, write_query_plan};
use crate::typed;

pub struct QueryJob {
    pub format: QueryFormat,
    pub typed_parameters: bool,
    pub body: bytes::Bytes,
}

/// The status a Query API error is answered with.
pub fn status_of(error: &ApiError) -> StatusCode {
    match error.code() {
        Status::DatabaseNotFound => StatusCode::NOT_FOUND,
        code if code.is_client_error() => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// `{"errors":[{"code":..,"message":..}]}`, replacing whatever `out` held.
pub fn error_document(out: &mut Vec<u8>, error: &ApiError) {
    out.clear();
    out.extend_from_slice(br#"{"errors":["#);
    write_error(out, error);
    out.extend_from_slice(b"]}");
}

pub fn producer(shared: Arc<ApiState>, job: QueryJob) -> Box<dyn Produce> {
    let content_type = match job.format {
        QueryFormat::Plain => JSON,
        QueryFormat::Typed => TYPED_JSON,
    };
    Box::new(QueryRun {
        shared,
        format: job.format,
        job: Some(job),
        head: Head {
            status: StatusCode::ACCEPTED,
            content_type,
            location: None,
        },
        tx: None,
        query: None,
        include_counters: false,
        has_fields: false,
        first_row: true,
        first_step: true,
        started: Instant::now(),
        horizon: None,
    })
}

struct QueryRun {
    shared: Arc<ApiState>,
    format: QueryFormat,
    job: Option<QueryJob>,
    head: Head,
    /// Open until the last row; `None` once settled.
    tx: Option<TrackedTx>,
    query: Option<QueryId>,
    include_counters: bool,
    /// A query without fields (an update with no RETURN) has no records.
    has_fields: bool,
    first_row: bool,
    /// Errors in the first step still change the status.
    first_step: bool,
    started: Instant,
    /// A write transaction's rows may leave only once this ticket (the commit it reads at) is
    /// acknowledged; `None` once settled, or with nothing to wait for.
    horizon: Option<DurabilityTicket>,
}

impl Produce for QueryRun {
    fn produce(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> bool {
        let first_step = std::mem::replace(&mut self.first_step, false);
        let outcome = self.step(out, chunk_bytes);
        match outcome {
            Ok(complete) => complete,
            Err(error) => {
                self.shared.telemetry.query_finished(self.started.elapsed());
                self.tx = None;
                if first_step {
                    self.head.status = status_of(&error);
                    error_document(out, &error);
                } else {
                    // The status is out: close what is open and name the error.
                    out.extend_from_slice(br#"]},"errors":["#);
                    write_error(out, &error);
                    out.extend_from_slice(b"]}");
                }
                true
            }
        }
    }

    fn head(&self) -> Head {
        self.head.clone()
    }
}

impl QueryRun {
    fn step(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> Result<bool, ApiError> {
        if let Some(job) = self.job.take() {
            self.start(&job, out)?;
        }
        let batch = self.shared.config.pull_rows_max.max(1);
        let (Some(tracked), Some(query)) = (self.tx.as_mut(), self.query) else {
            return Ok(true);
        };
        let Some(tx) = tracked.get() else {
            return Ok(true);
        };
        let mut rows: Vec<Vec<Value>> = Vec::with_capacity(batch.min(1024));
        let summary = loop {
            rows.clear();
            let state = tx.pull(query, batch as i64, &mut rows)?;
            for row in rows.iter().filter(|_| self.has_fields) {
                json::comma(out, &mut self.first_row);
                out.push(b'[');
                let mut first_value = true;
                for value in row {
                    json::comma(out, &mut first_value);
                    match self.format {
                        QueryFormat::Plain => encode::plain_value(out, value),
                        QueryFormat::Typed => typed::write(out, value),
                    }
                }
                out.push(b']');
            }
            if let PullState::Done(summary) = state {
                break summary;
            }
            if out.len() >= chunk_bytes {
                // Rows leave before the commit: they wait for what they were read from.
                self.settle_horizon()?;
                return Ok(false);
            }
        };
        let info = match self.tx.take() {
            Some(tracked) => tracked.commit()?,
            None => return Ok(true),
        };
        self.settle_horizon()?;
        if let Some(ticket) = info.ticket {
            self.shared
                .db
                .durable_blocking(ticket)
                .map_err(|error| ApiError::NotDurable(error.reason()))?;
        }
        self.shared.telemetry.query_finished(self.started.elapsed());
        out.extend_from_slice(b"]}");
        if self.include_counters {
            write_counters(out, &summary.stats);
        }
        if !summary.notifications.is_empty() {
            out.push(b',');
            write_notifications(out, &summary.notifications);
        }
        if let Some(plan) = &summary.plan {
            out.extend_from_slice(if plan.profile.is_some() {
                br#","profiledQueryPlan":"#
            } else {
                br#","queryPlan":"#
            });
            write_query_plan(out, plan, true);
        }
        out.extend_from_slice(br#","bookmarks":["#);
        json::string(out, &info.bookmark.to_string());
        out.extend_from_slice(b"]}");
        Ok(true)
    }

    /// Waits until the rows read so far may leave the server: a write transaction read at a
    /// commit the log may not have acknowledged yet.
    fn settle_horizon(&mut self) -> Result<(), ApiError> {
        match self.horizon.take() {
            Some(horizon) => self
                .shared
                .db
                .durable_blocking(horizon)
                .map_err(|error| ApiError::NotDurable(error.reason())),
            None => Ok(()),
        }
    }

    fn start(&mut self, job: &QueryJob, out: &mut Vec<u8>) -> Result<(), ApiError> {
        let QueryRequest {
            statement,
            parameters,
            include_counters,
            bookmarks,
            read_only,
            impersonated_user,
        } = decode::query_request(&job.body, job.typed_parameters)?;
        if impersonated_user.is_some() {
            return Err(ApiError::Invalid(
                "Impersonation is not supported by Quiver.".to_owned(),
            ));
        }
        bookmarks::await_all(&self.shared, &bookmarks)?;
        self.include_counters = include_counters;
        let refused = if read_only == Some(true) {
            None
        } else {
            self.shared.db.write_refusal()
        };
        let options = TxOptions {
            mode: if read_only == Some(true) || refused.is_some() {
                AccessMode::Read
            } else {
                AccessMode::Write
            },
            timeout: self.shared.config.transaction_timeout,
            ..TxOptions::default()
        };
        self.started = Instant::now();
        let mut tracked = TrackedTx::new(
            self.shared.db.begin(options)?,
            Arc::clone(&self.shared.telemetry),
        );
        let Some(tx) = tracked.get() else {
            return Err(ApiError::Invalid(
                "the transaction closed before it ran".to_owned(),
            ));
        };
        self.horizon = tx.read_horizon();
        let query = tx
            .run(&statement, parameters)
            .map_err(|error| match &refused {
                Some(reason) if error.status_code() == Status::AccessMode => {
                    durable::refused_write(reason)
                }
                _ => ApiError::Engine(error),
            })?;
        out.extend_from_slice(br#"{"data":{"fields":["#);
        let mut first = true;
        for field in tx.fields(query) {
            json::comma(out, &mut first);
            json::string(out, field);
        }
        out.extend_from_slice(br#"],"values":["#);
        self.has_fields = !tx.fields(query).is_empty();
        self.query = Some(query);
        self.tx = Some(tracked);
        Ok(())
    }
}

impl Drop for QueryRun {
    /// Dropped with its transaction open: the client went away.
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            tx.abandon();
        }
    }
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
