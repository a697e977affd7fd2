//! Query API v2: one statement in an implicit transaction, answered `202 Accepted` with
//!
//! ```text
//! {"data":{"fields":[..],"values":[[..],..]},"counters":{..},"notifications":[..],"bookmarks":[..]}
//! ```
//!
//! and its explicit transactions (`query/v2/tx`): begin (with an optional first statement),
//! run, commit (with an optional last statement) and `DELETE` to roll back, each answered in
//! the same form; an open transaction's answers add `"transaction":{"id":..,"expires":..}`
//! and the `neo4j-cluster-affinity` header naming the member that holds it. The transactions
//! live in the transactional API's registry (one owner, one set of limits, one expiry); an id
//! it does not hold is answered with Neo4j's `Request.Invalid` naming the id.
//!
//! Values are plain JSON or, when the client accepts `application/vnd.neo4j.query`, typed JSON.
//! Unlike the transactional API the status reflects errors (400 for client errors, 404 for an
//! unknown database or transaction, 500 otherwise) — as long as the first chunk has not gone
//! out; an error after that is appended as an `errors` member, since the status is already sent.
//! Any error in an explicit transaction rolls it back.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use http::StatusCode;

use quiver_engine::{AccessMode, DurabilityTicket, PullState, QueryId, QuerySummary, TxOptions};
use quiver_status::Status;
use quiver_value::Value;

use crate::bookmarks;
use crate::dates;
use crate::decode::{self, QueryRequest};
use crate::durable;
use crate::encode;
use crate::error::ApiError;
use crate::json;
use crate::negotiate::{JSON, QueryFormat, TYPED_JSON};
use crate::registry::{CheckedOut, Handle, Removed};
use crate::route::TxEndpoint;
use crate::service::ApiState;
use crate::stream::{Head, OneShot, Produce};
use crate::tracked::{EndedStatement, TrackedTx};
use crate::tx_api::{
    CounterNames, write_counters, write_error, write_notifications, write_query_plan,
};
use crate::typed;

/// The header naming the cluster member that holds a Query API transaction (base64 of the
/// address the client reached); clients replay it on the transaction's later requests.
pub const CLUSTER_AFFINITY: http::header::HeaderName =
    http::header::HeaderName::from_static("neo4j-cluster-affinity");

pub struct QueryJob {
    pub format: QueryFormat,
    pub typed_parameters: bool,
    pub body: bytes::Bytes,
    /// `None`: one statement in an implicit transaction.
    pub explicit: Option<QueryTx>,
    /// The authenticated user the transaction runs as (`None` when authentication is off).
    pub user: Option<Arc<str>>,
    /// The client's address, which the audit log names beside what it changed.
    pub client: Option<std::net::SocketAddr>,
    /// The caller's trace context (its `traceparent` header).
    pub caller: crate::tracked::TraceCaller,
}

/// A request to the Query API's explicit transactions.
pub struct QueryTx {
    /// `Begin`, `Run`, `Commit` or `Rollback` (never `Autocommit`).
    pub endpoint: TxEndpoint,
    /// The authenticated user: only they may use the transaction.
    pub owner: Option<Arc<str>>,
    /// The client's address, counted against the per-address limit.
    pub peer: Option<std::net::IpAddr>,
    /// The `neo4j-cluster-affinity` value this member answers with.
    pub affinity: String,
}

/// The status a Query API error is answered with: a transaction the server does not hold is
/// not found, one past the open-transaction limits unavailable for now.
pub fn status_of(error: &ApiError) -> StatusCode {
    match error {
        ApiError::QueryTransactionNotFound(_) => return StatusCode::NOT_FOUND,
        ApiError::TooManyTransactions(_)
        | ApiError::TooManyTransactionsForUser(_)
        | ApiError::TooManyTransactionsForAddress(_) => return StatusCode::SERVICE_UNAVAILABLE,
        _ => {}
    }
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
    if let Some(QueryTx {
        endpoint: TxEndpoint::Rollback(id),
        owner,
        affinity,
        ..
    }) = job.explicit
    {
        return Box::new(OneShot::new(move |out: &mut Vec<u8>| {
            rollback(&shared, id, owner.as_deref(), out, content_type, affinity)
        }));
    }
    Box::new(QueryRun {
        shared,
        format: job.format,
        head: Head {
            status: StatusCode::ACCEPTED,
            content_type,
            location: None,
            affinity: job.explicit.as_ref().map(|tx| tx.affinity.clone()),
        },
        job: Some(job),
        handle: None,
        park: false,
        query: None,
        include_counters: false,
        has_fields: false,
        first_row: true,
        first_step: true,
        started: Instant::now(),
        horizon: None,
        rows: 0,
        logged: None,
        span: tracing::Span::none(),
    })
}

/// The statement of a request as the query log is told of it at its end.
struct Logged {
    statement: EndedStatement,
}

struct QueryRun {
    shared: Arc<ApiState>,
    format: QueryFormat,
    job: Option<QueryJob>,
    head: Head,
    /// Open until the last row; `None` once settled.
    handle: Option<Handle>,
    /// An explicit transaction's request that neither commits nor fails parks it at the end.
    park: bool,
    /// `None` for an explicit transaction's request without a statement.
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
    /// Records written.
    rows: u64,
    /// Set when its statement ran and the telemetry keeps statements.
    logged: Option<Logged>,
    /// Its statement's span (disabled when its transaction is not traced).
    span: tracing::Span,
}

impl Produce for QueryRun {
    fn produce(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> bool {
        let first_step = std::mem::replace(&mut self.first_step, false);
        let outcome = self.step(out, chunk_bytes);
        match outcome {
            Ok(complete) => complete,
            Err(error) => {
                self.shared.telemetry.query_finished(self.started.elapsed());
                let failure = match &error {
                    ApiError::Engine(error) => {
                        crate::tx_api::trace_failure(&self.span, self.rows, error);
                        format!("{}: {error}", error.status_code())
                    }
                    other => other.to_string(),
                };
                self.report(Err(failure));
                if let Some(handle) = self.handle.take() {
                    handle.discard(&self.shared.registry);
                }
                // An explicit transaction that failed is gone: no member holds it any more.
                self.head.affinity = None;
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
    /// Describes the request's statement, which ended, to the telemetry when it keeps them.
    fn report(&mut self, end: Result<Option<quiver_engine::QueryFigures>, String>) {
        if let Some(Logged { mut statement }) = self.logged.take() {
            statement.elapsed = self.started.elapsed();
            statement.rows = self.rows;
            match end {
                Ok(figures) => statement.figures = figures,
                Err(failure) => statement.failure = Some(failure),
            }
            self.shared.telemetry.statement_ended(statement);
        }
    }

    fn step(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> Result<bool, ApiError> {
        if let Some(job) = self.job.take() {
            self.start(&job, out)?;
        }
        let summary = match self.query {
            None => None,
            Some(query) => match self.pull_rows(query, out, chunk_bytes)? {
                Pulled::Done(summary) => Some(summary),
                Pulled::More => return Ok(false),
                Pulled::Gone => return Ok(true),
            },
        };
        let Some(settled) = self.settle()? else {
            return Ok(true);
        };
        if self.query.is_some() {
            self.shared.telemetry.query_finished(self.started.elapsed());
            quiver_telemetry::finish_query(&self.span, self.rows, None);
            self.report(Ok(summary.as_ref().map(|summary| summary.figures)));
        }
        out.extend_from_slice(b"]}");
        if let Some(summary) = &summary {
            self.write_summary(out, summary);
        }
        match settled {
            Settled::Committed(bookmark) => {
                out.extend_from_slice(br#","bookmarks":["#);
                json::string(out, &bookmark);
                out.extend_from_slice(b"]}");
            }
            Settled::Open { id, expires } => {
                out.extend_from_slice(br#","transaction":{"id":"#);
                json::string(out, &id.to_string());
                out.extend_from_slice(br#","expires":"#);
                json::string(out, &dates::iso8601(expires));
                out.extend_from_slice(b"}}");
            }
        }
        Ok(true)
    }

    /// Writes rows of `query` until it ends or `out` holds a chunk.
    fn pull_rows(
        &mut self,
        query: QueryId,
        out: &mut Vec<u8>,
        chunk_bytes: usize,
    ) -> Result<Pulled, ApiError> {
        let batch = self.shared.config.pull_rows_max.max(1);
        let Some(tx) = self.handle.as_mut().and_then(Handle::tx) else {
            return Ok(Pulled::Gone);
        };
        let mut rows: Vec<Vec<Value>> = Vec::with_capacity(batch.min(1024));
        loop {
            rows.clear();
            let state = self
                .span
                .in_scope(|| tx.pull(query, batch as i64, &mut rows))?;
            for row in rows.iter().filter(|_| self.has_fields) {
                self.rows += 1;
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
                return Ok(Pulled::Done(summary));
            }
            if out.len() >= chunk_bytes {
                // Rows leave before the commit: they wait for what they were read from.
                self.settle_horizon()?;
                return Ok(Pulled::More);
            }
        }
    }

    /// Commits the transaction (waiting until the commit is acknowledged) or parks an
    /// explicit one for its next request; `None` when there was none.
    fn settle(&mut self) -> Result<Option<Settled>, ApiError> {
        let Some(handle) = self.handle.take() else {
            return Ok(None);
        };
        let settled = if self.park {
            let Handle::Explicit(checked_out) = handle else {
                return Err(ApiError::Invalid(
                    "an implicit transaction cannot stay open".to_owned(),
                ));
            };
            let id = checked_out.id;
            match self.shared.registry.park(checked_out) {
                Ok(expires) => Settled::Open { id, expires },
                Err(tx) => {
                    tx.rollback();
                    return Err(terminated());
                }
            }
        } else {
            let tx = match handle {
                Handle::Implicit(tx) => tx,
                Handle::Explicit(CheckedOut { id, tx }) => {
                    if !self.shared.registry.release(id) {
                        tx.rollback();
                        return Err(terminated());
                    }
                    tx
                }
            };
            let span = tx.span().clone();
            let info = tx.commit()?;
            self.settle_horizon()?;
            if let Some(ticket) = info.ticket {
                quiver_telemetry::durable_wait_span(&span)
                    .in_scope(|| self.shared.db.durable_blocking(ticket))
                    .map_err(|error| ApiError::NotDurable(error.reason()))?;
            }
            self.head.affinity = None;
            Settled::Committed(info.bookmark.to_string())
        };
        self.settle_horizon()?;
        Ok(Some(settled))
    }

    /// The counters (when asked for), notifications and plan of a finished statement.
    fn write_summary(&self, out: &mut Vec<u8>, summary: &QuerySummary) {
        if self.include_counters {
            write_counters(out, &summary.stats, CounterNames::Query);
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
        let request = match &job.explicit {
            None => Some(decode::query_request(&job.body, job.typed_parameters)?),
            Some(_) => decode::query_tx_request(&job.body, job.typed_parameters)?,
        };
        let (read_only, bookmarks) = request
            .as_ref()
            .map_or((None, &[][..]), |r| (r.read_only, &r.bookmarks[..]));
        if request
            .as_ref()
            .is_some_and(|r| r.impersonated_user.is_some())
        {
            return Err(ApiError::Invalid(
                "Impersonation is not supported by Quiver.".to_owned(),
            ));
        }
        bookmarks::await_all(&self.shared, bookmarks)?;
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
            user: job.user.clone(),
            client: job.client,
            connection: Some("http"),
            ..TxOptions::default()
        };
        self.started = Instant::now();
        let mut handle = self.open(job.explicit.as_ref(), &options, &job.caller)?;
        if let Some(request) = &request {
            let config = &self.shared.config;
            self.span = crate::tracked::statement_span(config, handle.span(), &request.statement);
        }
        let Some(tx) = handle.tx() else {
            handle.discard(&self.shared.registry);
            return Err(ApiError::Invalid(
                "the transaction closed before it ran".to_owned(),
            ));
        };
        self.horizon = tx.read_horizon();
        let Some(QueryRequest {
            statement,
            parameters,
            include_counters,
            ..
        }) = request
        else {
            out.extend_from_slice(br#"{"data":{"fields":[],"values":["#);
            self.handle = Some(handle);
            return Ok(());
        };
        self.include_counters = include_counters;
        let telemetry = &self.shared.telemetry;
        if telemetry.keeps_statements() {
            self.logged = Some(Logged {
                statement: EndedStatement {
                    text: Arc::from(statement.as_str()),
                    parameters: telemetry.keeps_parameters().then(|| parameters.clone()),
                    started: SystemTime::now(),
                    elapsed: std::time::Duration::ZERO,
                    rows: 0,
                    user: options.user.clone(),
                    client: options.client,
                    metadata: options.metadata.clone(),
                    transaction_id: Some(tx.id()),
                    failure: None,
                    figures: None,
                },
            });
        }
        let query = match self.span.in_scope(|| tx.run(&statement, parameters)) {
            Ok(query) => query,
            Err(error) => {
                let error = match &refused {
                    Some(reason) if error.status_code() == Status::AccessMode => {
                        durable::refused_write(reason)
                    }
                    _ => ApiError::Engine(error),
                };
                handle.discard(&self.shared.registry);
                return Err(error);
            }
        };
        out.extend_from_slice(br#"{"data":{"fields":"#);
        json::array(out, tx.fields(query), |out, field| json::string(out, field));
        out.extend_from_slice(br#","values":["#);
        self.has_fields = !tx.fields(query).is_empty();
        self.query = Some(query);
        self.handle = Some(handle);
        Ok(())
    }

    /// Begins the request's transaction, or checks out the explicit one it names.
    fn open(
        &mut self,
        explicit: Option<&QueryTx>,
        options: &TxOptions,
        caller: &crate::tracked::TraceCaller,
    ) -> Result<Handle, ApiError> {
        let shared = Arc::clone(&self.shared);
        let begin = || -> Result<TrackedTx, ApiError> {
            Ok(TrackedTx::new(
                shared.db.begin(options.clone())?,
                Arc::clone(&shared.telemetry),
            )
            .traced(
                shared.config.trace.as_ref(),
                &shared.config.database_name,
                options,
                caller,
            ))
        };
        Ok(match explicit {
            None => Handle::Implicit(begin()?),
            Some(explicit) => match explicit.endpoint {
                TxEndpoint::Begin => {
                    let id = shared
                        .registry
                        .reserve(explicit.owner.clone(), explicit.peer)?;
                    let tx = begin().inspect_err(|_| {
                        shared.registry.release(id);
                    })?;
                    if let Some(cancel) = tx.cancel_handle() {
                        shared.registry.set_cancel(id, cancel);
                    }
                    self.park = true;
                    Handle::Explicit(CheckedOut { id, tx })
                }
                TxEndpoint::Run(id) | TxEndpoint::Commit(id) => {
                    let checked_out = shared
                        .registry
                        .check_out(id, explicit.owner.as_deref())
                        .map_err(|error| not_found(id, error))?;
                    self.park = matches!(explicit.endpoint, TxEndpoint::Run(_));
                    Handle::Explicit(checked_out)
                }
                TxEndpoint::Autocommit | TxEndpoint::Rollback(_) => {
                    return Err(ApiError::Invalid(
                        "no statement runs on this transaction path".to_owned(),
                    ));
                }
            },
        })
    }
}

impl Drop for QueryRun {
    /// Dropped with its transaction open: the client went away. An implicit transaction is
    /// abandoned; an explicit one is parked for the client's next request (or its deadline),
    /// as the transactional API does.
    fn drop(&mut self) {
        match self.handle.take() {
            Some(Handle::Implicit(tx)) => tx.abandon(),
            Some(Handle::Explicit(checked_out)) => {
                if let Err(tx) = self.shared.registry.park(checked_out) {
                    tx.rollback();
                }
            }
            None => {}
        }
    }
}

/// How far a pull got.
enum Pulled {
    Done(Box<QuerySummary>),
    /// `out` holds a chunk; rows remain.
    More,
    /// The transaction closed under the request.
    Gone,
}

/// How a request left its transaction.
enum Settled {
    Committed(String),
    Open { id: u64, expires: SystemTime },
}

fn terminated() -> ApiError {
    ApiError::Engine(quiver_engine::Error::Terminated(
        "the transaction was rolled back by a concurrent request".to_owned(),
    ))
}

/// The registry's "no such transaction" (never opened, closed, expired) in the Query API's
/// words; other refusals (in use by another request) keep their own.
fn not_found(id: u64, error: ApiError) -> ApiError {
    match error {
        ApiError::TransactionNotFound | ApiError::TransactionIdleTimedOut(_) => {
            ApiError::QueryTransactionNotFound(id.to_string())
        }
        other => other,
    }
}

/// `DELETE query/v2/tx/{id}`: rolls the transaction back (cancelling a request running in
/// it), answered with an empty result.
fn rollback(
    shared: &ApiState,
    id: u64,
    owner: Option<&str>,
    out: &mut Vec<u8>,
    content_type: &'static str,
    affinity: String,
) -> Head {
    let mut head = Head {
        status: StatusCode::ACCEPTED,
        content_type,
        location: None,
        affinity: Some(affinity),
    };
    match shared.registry.remove(id, owner) {
        Ok(removed) => {
            if let Removed::Parked(tx) = removed {
                tx.rollback();
            }
            out.extend_from_slice(br#"{"data":{"fields":[],"values":[]},"bookmarks":[]}"#);
        }
        Err(error) => {
            head.status = StatusCode::NOT_FOUND;
            head.affinity = None;
            error_document(out, &not_found(id, error));
        }
    }
    head
}
