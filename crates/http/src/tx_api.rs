//! The transactional endpoints, as a state machine written out step by step.
//!
//! One request follows Neo4j's invocation: obtain the transaction (begin one, or check an
//! open one out), run the statements in order and stream their results, then commit, roll
//! back or park the transaction, and finish the document with the errors and the transaction
//! information:
//!
//! ```text
//! {"results":[{"columns":[..],"data":[{"row":[..],"meta":[..]},..],"stats":{..}},..],
//!  "notifications":[..], "errors":[{"code":..,"message":..}],
//!  "commit":"http://host/db/neo4j/tx/7/commit", "transaction":{"expires":".."},
//!  "lastBookmarks":[".."]}
//! ```
//!
//! As in Neo4j, statement errors are reported with status 200 (the status went out before the
//! statements ran) and any error rolls the transaction back. A statement that fails mid-stream
//! keeps the rows already written, closed off without stats. When the client goes away before
//! the end, the producer is dropped mid-way: an implicit transaction is then abandoned, an
//! explicit one parked for the client's next request (or its idle deadline), as Neo4j does.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use http::StatusCode;

use quiver_engine::{
    AccessMode, Counters, DurabilityTicket, Notification, PlanDescription, PullState, QueryId,
    Transaction, TxOptions,
};
use quiver_status::Status;
use quiver_value::{Map, Node, Value};

use crate::bookmarks;
use crate::dates;
use crate::decode::{self, Contents, Statement};
use crate::durable;
use crate::encode::{self, GraphRecord};
use crate::error::ApiError;
use crate::json;
use crate::negotiate::JSON;
use crate::registry::{CheckedOut, Handle, Removed};
use crate::route::TxEndpoint;
use crate::service::ApiState;
use crate::stream::{Head, OneShot, Produce};
use crate::tracked::{EndedStatement, TraceCaller, TrackedTx, statement_span};

/// Marks a statement's span failed with the engine's error, after `rows` rows.
pub(crate) fn trace_failure(span: &tracing::Span, rows: u64, error: &quiver_engine::Error) {
    if !span.is_disabled() {
        let code = error.status_code().to_string();
        quiver_telemetry::finish_query(span, rows, Some((&code, &error.to_string())));
    }
}

/// An engine error as the query log writes it: its status code and message.
fn failure_text(error: &quiver_engine::Error) -> String {
    format!("{}: {error}", error.status_code())
}

/// Everything a transactional request needs once routed.
pub struct TxJob {
    pub endpoint: TxEndpoint,
    /// The transaction URL prefix, `http://host/db/neo4j/tx` (or the 3.x equivalent).
    pub base: String,
    pub owner: Option<Arc<str>>,
    /// The client's address (from the request's extensions, where the server puts it).
    pub peer: Option<std::net::IpAddr>,
    pub options: TxOptions,
    /// Bookmarks from the `bookmarks` header, or why the header (or another) was rejected.
    pub bookmarks: Result<Vec<String>, ApiError>,
    pub body: bytes::Bytes,
    /// The caller's trace context (its `traceparent` header).
    pub caller: TraceCaller,
}

/// The producer for a transactional request.
pub fn producer(shared: Arc<ApiState>, job: TxJob) -> Box<dyn Produce> {
    if let TxEndpoint::Rollback(id) = job.endpoint {
        let owner = job.owner;
        return Box::new(OneShot::new(move |out: &mut Vec<u8>| {
            rollback(&shared, id, owner.as_deref(), out)
        }));
    }
    Box::new(TxRun {
        shared,
        job: Some(job),
        head: Head {
            status: StatusCode::OK,
            content_type: JSON,
            location: None,
            affinity: None,
        },
        handle: None,
        statements: Vec::new().into_iter(),
        running: None,
        first_result: true,
        notifications: Vec::new(),
        failure: None,
        commit_url: None,
        finish_with_commit: false,
        horizon: None,
        writes_refused: None,
        options: None,
    })
}

/// How a request's transaction ended up.
enum Outcome {
    Open(SystemTime),
    Committed(String),
    RolledBack,
    /// A commit failed: the transaction is gone, its fate reported in `errors`.
    Unknown,
}

/// The statement whose rows are being written.
struct Running {
    query: QueryId,
    contents: Contents,
    include_stats: bool,
    /// An update with no RETURN has no columns and, as in Neo4j, no records — even where the
    /// engine reports one empty row per update.
    has_columns: bool,
    graph: Option<GraphRecord>,
    first_row: bool,
    started: Instant,
    /// Records written so far.
    rows: u64,
    /// What a query log is told of it at its end.
    logged: Option<Logged>,
    /// Its span (disabled when its transaction is not traced).
    span: tracing::Span,
}

/// A statement's text and parameters, kept for the query log.
struct Logged {
    text: Arc<str>,
    parameters: Option<Map>,
    started: SystemTime,
}

struct TxRun {
    shared: Arc<ApiState>,
    /// Taken by the first step.
    job: Option<TxJob>,
    head: Head,
    /// `None` before the first step and once the transaction was settled.
    handle: Option<Handle>,
    statements: std::vec::IntoIter<Statement>,
    running: Option<Running>,
    first_result: bool,
    notifications: Vec<Notification>,
    failure: Option<ApiError>,
    commit_url: Option<String>,
    finish_with_commit: bool,
    /// A write transaction's rows may leave only once this ticket (the commit it reads at) is
    /// acknowledged; `None` once settled, or with nothing to wait for.
    horizon: Option<DurabilityTicket>,
    /// Opened in write mode while writes are refused (the reason): it reads at the durable
    /// point and a write in it fails naming the reason.
    writes_refused: Option<(Status, String)>,
    /// The transaction's options (user, client, metadata), once begun, for the query log.
    options: Option<TxOptions>,
}

impl Produce for TxRun {
    fn produce(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> bool {
        let complete = self.step(out, chunk_bytes);
        if let Some(horizon) = self.horizon.take()
            && let Err(error) = self.shared.db.durable_blocking(horizon)
        {
            // Nothing has left yet (the horizon settles in the first step): answer with
            // the reason instead of rows that may never be durable.
            if let Some(handle) = self.handle.take() {
                handle.discard(&self.shared.registry);
            }
            error_document(out, &ApiError::NotDurable(error.reason()));
            self.head.content_type = JSON;
            return true;
        }
        complete
    }

    fn head(&self) -> Head {
        self.head.clone()
    }
}

impl TxRun {
    fn step(&mut self, out: &mut Vec<u8>, chunk_bytes: usize) -> bool {
        if let Some(mut job) = self.job.take()
            && let Err(error) = self.start(&mut job, out)
        {
            error_document(out, &error);
            self.head.content_type = JSON;
            return true;
        }
        while out.len() < chunk_bytes {
            if self.running.is_some() {
                self.pull(out);
            } else if self.failure.is_some() {
                break;
            } else if let Some(statement) = self.statements.next() {
                self.begin_statement(statement, out);
            } else {
                break;
            }
            if self.failure.is_some() {
                break;
            }
        }
        if out.len() >= chunk_bytes && self.failure.is_none() {
            return false;
        }
        self.finish(out);
        true
    }
    /// Obtains the transaction and opens the document; `Err` answers with an error document.
    fn start(&mut self, job: &mut TxJob, out: &mut Vec<u8>) -> Result<(), ApiError> {
        let bookmarks = std::mem::replace(&mut job.bookmarks, Ok(Vec::new()))?;
        bookmarks::await_all(&self.shared, &bookmarks)?;
        let shared = Arc::clone(&self.shared);
        let mut options = job.options.clone();
        if shared.telemetry.keeps_statements() {
            self.options = Some(job.options.clone());
        }
        if options.mode == AccessMode::Write {
            self.writes_refused = shared.db.write_refusal();
            if self.writes_refused.is_some() {
                options.mode = AccessMode::Read;
            }
        }
        let caller = std::mem::take(&mut job.caller);
        let begin = || -> Result<TrackedTx, ApiError> {
            let tx = shared.db.begin(options.clone())?;
            Ok(TrackedTx::new(tx, Arc::clone(&shared.telemetry)).traced(
                shared.config.trace.as_ref(),
                &shared.config.database_name,
                &options,
                &caller,
            ))
        };
        let mut handle = match job.endpoint {
            TxEndpoint::Autocommit => {
                self.finish_with_commit = true;
                Handle::Implicit(begin()?)
            }
            TxEndpoint::Begin => {
                let id = shared
                    .registry
                    .reserve(job.owner.clone(), job.peer)
                    .inspect_err(|_| self.head.status = StatusCode::SERVICE_UNAVAILABLE)?;
                let tx = begin().inspect_err(|_| {
                    shared.registry.release(id);
                })?;
                if let Some(cancel) = tx.cancel_handle() {
                    shared.registry.set_cancel(id, cancel);
                }
                self.head.status = StatusCode::CREATED;
                self.head.location = Some(format!("{}/{id}", job.base));
                self.commit_url = Some(format!("{}/{id}/commit", job.base));
                Handle::Explicit(CheckedOut { id, tx })
            }
            TxEndpoint::Run(id) | TxEndpoint::Commit(id) => {
                let checked_out = shared
                    .registry
                    .check_out(id, job.owner.as_deref())
                    .inspect_err(|_| self.head.status = StatusCode::NOT_FOUND)?;
                self.finish_with_commit = matches!(job.endpoint, TxEndpoint::Commit(_));
                self.commit_url = Some(format!("{}/{id}/commit", job.base));
                Handle::Explicit(checked_out)
            }
            TxEndpoint::Rollback(_) => {
                return Err(ApiError::Invalid(
                    "a rollback has no statements to run".to_owned(),
                ));
            }
        };
        self.horizon = handle.tx().and_then(|tx| tx.read_horizon());
        self.handle = Some(handle);
        out.extend_from_slice(br#"{"results":["#);
        match decode::tx_request(&job.body, shared.config.statements_per_request_max) {
            Ok(statements) => self.statements = statements.into_iter(),
            Err(error) => self.failure = Some(error),
        }
        Ok(())
    }

    fn begin_statement(&mut self, statement: Statement, out: &mut Vec<u8>) {
        let Statement {
            text,
            parameters,
            contents,
            include_stats,
        } = statement;
        let started = Instant::now();
        let telemetry = &self.shared.telemetry;
        let logged = telemetry.keeps_statements().then(|| Logged {
            text: Arc::from(text.as_str()),
            parameters: telemetry.keeps_parameters().then(|| parameters.clone()),
            started: SystemTime::now(),
        });
        let span = match &self.handle {
            Some(handle) => statement_span(&self.shared.config, handle.span(), &text),
            None => tracing::Span::none(),
        };
        let Some(tx) = self.handle.as_mut().and_then(Handle::tx) else {
            return;
        };
        let query = match span.in_scope(|| tx.run(&text, parameters)) {
            Ok(query) => query,
            Err(error) => {
                self.shared.telemetry.query_finished(started.elapsed());
                let failure = failure_text(&error);
                trace_failure(&span, 0, &error);
                self.report(logged, started, 0, Err(failure));
                self.failure = Some(match &self.writes_refused {
                    Some(reason) if error.status_code() == Status::AccessMode => {
                        durable::refused_write(reason)
                    }
                    _ => ApiError::Engine(error),
                });
                return;
            }
        };
        json::comma(out, &mut self.first_result);
        out.extend_from_slice(br#"{"columns":"#);
        json::array(out, tx.fields(query), |out, column| {
            json::string(out, column);
        });
        out.extend_from_slice(br#","data":["#);
        let has_columns = !tx.fields(query).is_empty();
        self.running = Some(Running {
            query,
            contents,
            include_stats,
            has_columns,
            graph: contents.graph.then(GraphRecord::default),
            first_row: true,
            started,
            rows: 0,
            logged,
            span,
        });
    }

    /// Describes a statement that ended to the telemetry, when it keeps statements.
    fn report(
        &mut self,
        logged: Option<Logged>,
        started: Instant,
        rows: u64,
        end: Result<quiver_engine::QueryFigures, String>,
    ) {
        let Some(logged) = logged else {
            return;
        };
        let (figures, failure) = match end {
            Ok(figures) => (Some(figures), None),
            Err(failure) => (None, Some(failure)),
        };
        let options = self.options.as_ref();
        let transaction_id = self.handle.as_mut().and_then(Handle::tx).map(|tx| tx.id());
        self.shared.telemetry.statement_ended(EndedStatement {
            text: logged.text,
            parameters: logged.parameters,
            started: logged.started,
            elapsed: started.elapsed(),
            rows,
            user: options.and_then(|o| o.user.clone()),
            client: options.and_then(|o| o.client),
            metadata: options.map(|o| o.metadata.clone()).unwrap_or_default(),
            transaction_id,
            failure,
            figures,
        });
    }

    /// Writes one batch of the running statement's rows, and its end when it is done.
    fn pull(&mut self, out: &mut Vec<u8>) {
        let batch = self.shared.config.pull_rows_max.max(1);
        let Some(mut running) = self.running.take() else {
            return;
        };
        let Some(tx) = self.handle.as_mut().and_then(Handle::tx) else {
            return;
        };
        let mut rows = Vec::with_capacity(batch.min(1024));
        let pulled = running
            .span
            .in_scope(|| tx.pull(running.query, batch as i64, &mut rows));
        let state = match pulled {
            Ok(state) => state,
            Err(error) => {
                out.extend_from_slice(b"]}");
                self.fail_statement(&mut running, ApiError::Engine(error));
                return;
            }
        };
        for row in rows.iter().filter(|_| running.has_columns) {
            running.rows += 1;
            json::comma(out, &mut running.first_row);
            out.push(b'{');
            if running.contents.row {
                write_row(out, row);
            }
            if let Some(graph) = running.graph.as_mut() {
                if let Err(error) = collect_graph(tx, graph, row) {
                    out.extend_from_slice(b"}]}");
                    self.fail_statement(&mut running, ApiError::Engine(error));
                    return;
                }
                if running.contents.row {
                    out.push(b',');
                }
                graph.write(out);
            }
            out.push(b'}');
        }
        let PullState::Done(summary) = state else {
            self.running = Some(running);
            return;
        };
        out.push(b']');
        if running.include_stats {
            write_counters(out, &summary.stats, CounterNames::Transactional);
        }
        if let Some(plan) = &summary.plan {
            out.extend_from_slice(br#","plan":{"root":"#);
            write_plan(out, plan, true);
            out.push(b'}');
        }
        out.push(b'}');
        self.notifications.extend(summary.notifications);
        self.shared
            .telemetry
            .query_finished(running.started.elapsed());
        quiver_telemetry::finish_query(&running.span, running.rows, None);
        let figures = summary.figures;
        self.report(
            running.logged.take(),
            running.started,
            running.rows,
            Ok(figures),
        );
    }

    fn fail_statement(&mut self, running: &mut Running, error: ApiError) {
        self.shared
            .telemetry
            .query_finished(running.started.elapsed());
        let failure = match &error {
            ApiError::Engine(error) => {
                trace_failure(&running.span, running.rows, error);
                failure_text(error)
            }
            other => other.to_string(),
        };
        self.report(
            running.logged.take(),
            running.started,
            running.rows,
            Err(failure),
        );
        self.failure = Some(error);
    }

    /// Settles the transaction and writes the end of the document.
    fn finish(&mut self, out: &mut Vec<u8>) {
        let Some(handle) = self.handle.take() else {
            return;
        };
        let mut errors = Vec::new();
        let outcome = if let Some(error) = self.failure.take() {
            errors.push(error);
            handle.discard(&self.shared.registry);
            Outcome::RolledBack
        } else if self.finish_with_commit {
            commit(&self.shared, handle, &mut errors)
        } else {
            match handle {
                Handle::Explicit(checked_out) => park(&self.shared, checked_out, &mut errors),
                // Implicit transactions always finish with a commit; roll back rather than
                // leave one open.
                Handle::Implicit(tx) => {
                    tx.rollback();
                    Outcome::RolledBack
                }
            }
        };
        write_trailer(
            out,
            &self.notifications,
            &errors,
            self.commit_url.as_deref(),
            &outcome,
        );
    }
}

impl Drop for TxRun {
    /// Dropped unfinished: the client went away.
    fn drop(&mut self) {
        match self.handle.take() {
            Some(Handle::Implicit(tx)) => tx.abandon(),
            Some(Handle::Explicit(checked_out)) => {
                park(&self.shared, checked_out, &mut Vec::new());
            }
            None => {}
        }
    }
}

fn terminated() -> ApiError {
    ApiError::Engine(quiver_engine::Error::Terminated(
        "the transaction was rolled back by a concurrent request".to_owned(),
    ))
}

fn commit(shared: &ApiState, handle: Handle, errors: &mut Vec<ApiError>) -> Outcome {
    let tx = match handle {
        Handle::Implicit(tx) => tx,
        Handle::Explicit(CheckedOut { id, tx }) => {
            if !shared.registry.release(id) {
                tx.rollback();
                errors.push(terminated());
                return Outcome::RolledBack;
            }
            tx
        }
    };
    let span = tx.span().clone();
    match tx.commit() {
        Ok(info) => match info.ticket.map_or(Ok(()), |ticket| {
            quiver_telemetry::durable_wait_span(&span)
                .in_scope(|| shared.db.durable_blocking(ticket))
        }) {
            Ok(()) => Outcome::Committed(info.bookmark.to_string()),
            Err(error) => {
                errors.push(ApiError::NotDurable(error.reason()));
                Outcome::Unknown
            }
        },
        Err(error) => {
            errors.push(ApiError::Engine(error));
            Outcome::Unknown
        }
    }
}

fn park(shared: &ApiState, checked_out: CheckedOut, errors: &mut Vec<ApiError>) -> Outcome {
    match shared.registry.park(checked_out) {
        Ok(expires) => Outcome::Open(expires),
        Err(tx) => {
            tx.rollback();
            errors.push(terminated());
            Outcome::RolledBack
        }
    }
}

fn rollback(shared: &ApiState, id: u64, owner: Option<&str>, out: &mut Vec<u8>) -> Head {
    let mut head = Head {
        status: StatusCode::OK,
        content_type: JSON,
        location: None,
        affinity: None,
    };
    match shared.registry.remove(id, owner) {
        Ok(Removed::Parked(tx)) => {
            tx.rollback();
            out.extend_from_slice(br#"{"results":[],"errors":[]}"#);
        }
        Ok(Removed::Cancelled) => out.extend_from_slice(br#"{"results":[],"errors":[]}"#),
        Err(error) => {
            head.status = StatusCode::NOT_FOUND;
            error_document(out, &error);
        }
    }
    head
}

/// `{"results":[],"errors":[..]}`, replacing whatever `out` held.
pub fn error_document(out: &mut Vec<u8>, error: &ApiError) {
    out.clear();
    out.extend_from_slice(br#"{"results":[],"errors":["#);
    write_error(out, error);
    out.extend_from_slice(b"]}");
}

pub fn write_error(out: &mut Vec<u8>, error: &ApiError) {
    out.extend_from_slice(br#"{"code":"#);
    json::string(out, error.code().code());
    out.extend_from_slice(br#","message":"#);
    json::string(out, &error.message());
    out.push(b'}');
}

fn write_row(out: &mut Vec<u8>, row: &[Value]) {
    out.extend_from_slice(br#""row":"#);
    json::array(out, row, encode::row_value);
    out.extend_from_slice(br#","meta":["#);
    let mut first = true;
    for value in row {
        encode::meta(out, value, &mut first);
    }
    out.push(b']');
}

/// Gathers a record's entities, looking up relationship endpoints no column returned with a
/// query in the same transaction (so nodes it created are found too), as Neo4j does.
fn collect_graph(
    tx: &mut Transaction,
    graph: &mut GraphRecord,
    row: &[Value],
) -> Result<(), quiver_engine::Error> {
    graph.clear();
    for value in row {
        graph.collect(value);
    }
    let missing = graph.missing_endpoints();
    if missing.is_empty() {
        return Ok(());
    }
    for node in nodes_by_id(tx, &missing)? {
        graph.add_endpoint(&node);
    }
    Ok(())
}

fn nodes_by_id(tx: &mut Transaction, ids: &[u64]) -> Result<Vec<Node>, quiver_engine::Error> {
    let mut parameters = Map::new();
    let ids: Vec<Value> = ids
        .iter()
        .filter_map(|id| i64::try_from(*id).ok().map(Value::Int))
        .collect();
    parameters.insert(Arc::from("ids"), Value::from(ids));
    let query = tx.run(
        "UNWIND $ids AS id MATCH (n) WHERE id(n) = id RETURN n",
        parameters,
    )?;
    let mut rows = Vec::new();
    while let PullState::HasMore = tx.pull(query, -1, &mut rows)? {}
    Ok(rows
        .into_iter()
        .filter_map(|row| match row.into_iter().next() {
            Some(Value::Node(node)) => Some(node),
            _ => None,
        })
        .collect())
}

/// The API whose spelling of a query's counters to write.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CounterNames {
    /// The Query API's: `"counters"`, its members in camelCase.
    Query,
    /// The transactional API's: `"stats"`, its members in snake_case.
    Transactional,
}

/// Writes a query's counters as a member of the object being written, as `names` spells them:
/// whether it changed anything, the counts, then whether and how much it changed the system.
pub(crate) fn write_counters(out: &mut Vec<u8>, stats: &Counters, names: CounterNames) {
    out.extend_from_slice(match names {
        CounterNames::Query => br#","counters":{"#,
        CounterNames::Transactional => br#","stats":{"#,
    });
    counter_key(out, "containsUpdates", names);
    json::boolean(out, stats.contains_updates());
    let counts = [
        ("nodesCreated", stats.nodes_created),
        ("nodesDeleted", stats.nodes_deleted),
        ("propertiesSet", stats.properties_set),
        ("relationshipsCreated", stats.relationships_created),
        ("relationshipsDeleted", stats.relationships_deleted),
        ("labelsAdded", stats.labels_added),
        ("labelsRemoved", stats.labels_removed),
        ("indexesAdded", stats.indexes_added),
        ("indexesRemoved", stats.indexes_removed),
        ("constraintsAdded", stats.constraints_added),
        ("constraintsRemoved", stats.constraints_removed),
    ];
    for (name, value) in counts {
        out.push(b',');
        counter_key(out, name, names);
        json::uint(out, value);
    }
    out.push(b',');
    counter_key(out, "containsSystemUpdates", names);
    json::boolean(out, stats.system_updates > 0);
    out.push(b',');
    counter_key(out, "systemUpdates", names);
    json::uint(out, stats.system_updates);
    out.push(b'}');
}

/// The key of the counter named `camel` in the Query API, as `names` spells it: the
/// transactional API's is the same in snake_case, but for `relationship_deleted` (Neo4j's
/// spelling, which clients read).
fn counter_key(out: &mut Vec<u8>, camel: &str, names: CounterNames) {
    match names {
        CounterNames::Query => json::key(out, camel),
        CounterNames::Transactional if camel == "relationshipsDeleted" => {
            json::key(out, "relationship_deleted");
        }
        CounterNames::Transactional => {
            out.push(b'"');
            for byte in camel.bytes() {
                if byte.is_ascii_uppercase() {
                    out.push(b'_');
                }
                out.push(byte.to_ascii_lowercase());
            }
            out.extend_from_slice(b"\":");
        }
    }
}

/// A plan operator as Neo4j's transactional API writes it: `operatorType`, the arguments as
/// members of the operator itself (the root's carry the planner's), the identifiers and the
/// children. A profiled plan's figures are among the arguments (`Rows`, `DbHits`, `Time`).
pub fn write_plan(out: &mut Vec<u8>, plan: &PlanDescription, root: bool) {
    out.extend_from_slice(br#"{"operatorType":"#);
    json::string(out, &plan.operator);
    for (key, value) in plan.arguments(root) {
        out.push(b',');
        json::key(out, key);
        encode::plain_value(out, &value);
    }
    write_identifiers(out, plan);
    out.extend_from_slice(br#","children":"#);
    json::array(out, &plan.children, |out, child| {
        write_plan(out, child, false);
    });
    out.push(b'}');
}

/// `,"identifiers":[..]`.
fn write_identifiers(out: &mut Vec<u8>, plan: &PlanDescription) {
    out.extend_from_slice(br#","identifiers":"#);
    json::array(out, &plan.identifiers, |out, identifier| {
        json::string(out, identifier);
    });
}

/// A plan operator as the Query API writes it (`queryPlan` / `profiledQueryPlan`): the
/// profiled figures first (`dbHits`, `records`, the page cache's, `time` in nanoseconds),
/// then `operatorType`, the `arguments` object, the identifiers and the children.
pub fn write_query_plan(out: &mut Vec<u8>, plan: &PlanDescription, root: bool) {
    out.push(b'{');
    if let Some(profile) = &plan.profile {
        out.extend_from_slice(br#""dbHits":"#);
        json::uint(out, profile.db_hits);
        out.extend_from_slice(br#","records":"#);
        json::uint(out, profile.rows);
        out.extend_from_slice(
            br#","hasPageCacheStats":false,"pageCacheHits":0,"pageCacheMisses":0,"pageCacheHitRatio":0.0,"time":"#,
        );
        json::uint(out, profile.time_nanos());
        out.push(b',');
    }
    out.extend_from_slice(br#""operatorType":"#);
    json::string(out, &plan.operator);
    out.extend_from_slice(br#","arguments":{"#);
    let mut first = true;
    for (key, value) in plan.arguments(root) {
        json::comma(out, &mut first);
        json::key(out, key);
        encode::plain_value(out, &value);
    }
    out.push(b'}');
    write_identifiers(out, plan);
    out.extend_from_slice(br#","children":"#);
    json::array(out, &plan.children, |out, child| {
        write_query_plan(out, child, false);
    });
    out.push(b'}');
}

pub fn write_notifications(out: &mut Vec<u8>, notifications: &[Notification]) {
    out.extend_from_slice(br#""notifications":"#);
    json::array(out, notifications, |out, notification| {
        out.extend_from_slice(br#"{"code":"#);
        json::string(out, notification.code);
        out.extend_from_slice(br#","severity":"WARNING","title":"#);
        json::string(out, &notification.title);
        out.extend_from_slice(br#","description":"#);
        json::string(out, &notification.description);
        out.push(b'}');
    });
}

fn write_trailer(
    out: &mut Vec<u8>,
    notifications: &[Notification],
    errors: &[ApiError],
    commit_url: Option<&str>,
    outcome: &Outcome,
) {
    out.push(b']');
    if !notifications.is_empty() {
        out.push(b',');
        write_notifications(out, notifications);
    }
    out.extend_from_slice(br#","errors":["#);
    let mut first = true;
    for error in errors {
        json::comma(out, &mut first);
        write_error(out, error);
    }
    out.push(b']');
    if let Some(url) = commit_url {
        out.extend_from_slice(br#","commit":"#);
        json::string(out, url);
    }
    match outcome {
        Outcome::Open(expires) => {
            out.extend_from_slice(br#","transaction":{"expires":"#);
            json::string(out, &dates::rfc1123(*expires));
            out.push(b'}');
        }
        Outcome::Committed(bookmark) => {
            out.extend_from_slice(br#","lastBookmarks":["#);
            json::string(out, bookmark);
            out.push(b']');
        }
        Outcome::RolledBack | Outcome::Unknown => {}
    }
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_spelled_as_each_api_spells_them() {
        let stats = Counters {
            nodes_created: 1,
            nodes_deleted: 2,
            relationships_created: 3,
            relationships_deleted: 4,
            properties_set: 5,
            labels_added: 6,
            labels_removed: 7,
            indexes_added: 8,
            indexes_removed: 9,
            constraints_added: 10,
            constraints_removed: 11,
            system_updates: 12,
        };
        let written = |names| json::text(|out| write_counters(out, &stats, names));
        assert_eq!(
            written(CounterNames::Query),
            r#","counters":{"containsUpdates":true,"nodesCreated":1,"nodesDeleted":2,"propertiesSet":5,"relationshipsCreated":3,"relationshipsDeleted":4,"labelsAdded":6,"labelsRemoved":7,"indexesAdded":8,"indexesRemoved":9,"constraintsAdded":10,"constraintsRemoved":11,"containsSystemUpdates":true,"systemUpdates":12}"#
        );
        assert_eq!(
            written(CounterNames::Transactional),
            r#","stats":{"contains_updates":true,"nodes_created":1,"nodes_deleted":2,"properties_set":5,"relationships_created":3,"relationship_deleted":4,"labels_added":6,"labels_removed":7,"indexes_added":8,"indexes_removed":9,"constraints_added":10,"constraints_removed":11,"contains_system_updates":true,"system_updates":12}"#
        );
    }
}
