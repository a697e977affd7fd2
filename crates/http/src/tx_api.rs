//! The transactional endpoints, executed on the blocking pool and written as they run.
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
//! keeps the rows already written, closed off without stats.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use http::StatusCode;

use quiver_engine::{Counters, Notification, PlanDescription, PullState, Transaction, TxOptions};
use quiver_value::{Map, Node, Value};

use crate::bookmarks;
use crate::dates;
use crate::decode::{self, Statement};
use crate::encode::{self, GraphRecord};
use crate::error::ApiError;
use crate::json;
use crate::negotiate::JSON;
use crate::registry::{CheckedOut, Removed};
use crate::route::TxEndpoint;
use crate::service::Shared;
use crate::stream::Output;
use crate::tracked::TrackedTx;

/// Everything a transactional request needs once routed.
pub struct TxJob {
    pub endpoint: TxEndpoint,
    /// The transaction URL prefix, `http://host/db/neo4j/tx` (or the 3.x equivalent).
    pub base: String,
    pub owner: Option<Arc<str>>,
    pub options: TxOptions,
    /// Bookmarks from the `bookmarks` header, or why the header (or another) was rejected.
    pub bookmarks: Result<Vec<String>, ApiError>,
    pub body: bytes::Bytes,
}

/// How a request's transaction ended up.
enum Outcome {
    Open(SystemTime),
    Committed(String),
    RolledBack,
    /// A commit failed: the transaction is gone, its fate reported in `errors`.
    Unknown,
}

enum Handle {
    Implicit(TrackedTx),
    Explicit(CheckedOut),
}

impl Handle {
    fn tx(&mut self) -> Option<&mut Transaction> {
        match self {
            Handle::Implicit(tx) => tx.get(),
            Handle::Explicit(checked_out) => checked_out.tx.get(),
        }
    }
}

/// Why statement execution stopped early.
enum Stop {
    Failed(ApiError),
    ClientGone,
}

pub fn run(shared: &Shared, mut job: TxJob, mut out: Output) {
    if let TxEndpoint::Rollback(id) = job.endpoint {
        rollback(shared, id, job.owner.as_deref(), out);
        return;
    }
    let bookmarks = match std::mem::replace(&mut job.bookmarks, Ok(Vec::new())) {
        Ok(bookmarks) => bookmarks,
        Err(error) => {
            error_document(&mut out, StatusCode::OK, &error);
            let _ = out.finish();
            return;
        }
    };
    if let Err(error) = bookmarks::await_all(shared, &bookmarks) {
        error_document(&mut out, StatusCode::OK, &error);
        let _ = out.finish();
        return;
    }
    let (mut handle, status, commit_url) = match obtain(shared, &job) {
        Ok(obtained) => obtained,
        Err(error) => {
            let status = match error {
                ApiError::TransactionNotFound | ApiError::ConcurrentAccess => StatusCode::NOT_FOUND,
                ApiError::TooManyTransactions(_) => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::OK,
            };
            error_document(&mut out, status, &error);
            let _ = out.finish();
            return;
        }
    };
    let location = match (&handle, job.endpoint) {
        (Handle::Explicit(checked_out), TxEndpoint::Begin) => {
            Some(format!("{}/{}", job.base, checked_out.id))
        }
        _ => None,
    };
    out.head(status, JSON, location);
    out.buf.extend_from_slice(br#"{"results":["#);

    let mut notifications = Vec::new();
    let mut stop = None;
    match decode::tx_request(&job.body, shared.config.statements_per_request_max) {
        Err(error) => stop = Some(Stop::Failed(error)),
        Ok(statements) => {
            let mut first = true;
            for statement in statements {
                let Some(tx) = handle.tx() else { break };
                match execute(shared, tx, statement, &mut out, &mut first) {
                    Ok(mut notes) => notifications.append(&mut notes),
                    Err(reason) => {
                        stop = Some(reason);
                        break;
                    }
                }
            }
        }
    }

    let finish_with_commit = matches!(job.endpoint, TxEndpoint::Autocommit | TxEndpoint::Commit(_));
    let mut errors = Vec::new();
    let outcome = match stop {
        Some(Stop::ClientGone) => {
            // Nobody is listening: an implicit transaction is abandoned, an explicit one kept
            // for the client's next request (or its idle deadline), as Neo4j does.
            match handle {
                Handle::Implicit(tx) => tx.abandon(),
                Handle::Explicit(checked_out) => {
                    park(shared, checked_out, &mut Vec::new());
                }
            }
            return;
        }
        Some(Stop::Failed(error)) => {
            errors.push(error);
            discard(shared, handle);
            Outcome::RolledBack
        }
        None if finish_with_commit => commit(shared, handle, &mut errors),
        None => match handle {
            Handle::Explicit(checked_out) => park(shared, checked_out, &mut errors),
            Handle::Implicit(tx) => {
                // Unreachable by construction (implicit transactions always commit); roll back
                // rather than leave it open.
                tx.rollback();
                Outcome::RolledBack
            }
        },
    };
    write_trailer(
        &mut out,
        &notifications,
        &errors,
        commit_url.as_deref(),
        &outcome,
    );
    let _ = out.finish();
}

/// Begins or checks out the request's transaction; returns it, the status, and the commit URL
/// the document names (none for one-shot requests).
fn obtain(shared: &Shared, job: &TxJob) -> Result<(Handle, StatusCode, Option<String>), ApiError> {
    let begin = |shared: &Shared| -> Result<TrackedTx, ApiError> {
        let tx = shared.db.begin(job.options.clone())?;
        Ok(TrackedTx::new(tx, Arc::clone(&shared.telemetry)))
    };
    match job.endpoint {
        TxEndpoint::Autocommit => Ok((Handle::Implicit(begin(shared)?), StatusCode::OK, None)),
        TxEndpoint::Begin => {
            let id = shared.registry.reserve(job.owner.clone())?;
            let tx = match begin(shared) {
                Ok(tx) => tx,
                Err(error) => {
                    shared.registry.release(id);
                    return Err(error);
                }
            };
            if let Some(cancel) = tx.cancel_handle() {
                shared.registry.set_cancel(id, cancel);
            }
            let commit = format!("{}/{id}/commit", job.base);
            Ok((
                Handle::Explicit(CheckedOut { id, tx }),
                StatusCode::CREATED,
                Some(commit),
            ))
        }
        TxEndpoint::Run(id) | TxEndpoint::Commit(id) => {
            let checked_out = shared.registry.check_out(id, job.owner.as_deref())?;
            let commit = format!("{}/{id}/commit", job.base);
            Ok((Handle::Explicit(checked_out), StatusCode::OK, Some(commit)))
        }
        TxEndpoint::Rollback(_) => Err(ApiError::Invalid(
            "a rollback has no statements to run".to_owned(),
        )),
    }
}

fn discard(shared: &Shared, handle: Handle) {
    match handle {
        Handle::Implicit(tx) => tx.rollback(),
        Handle::Explicit(CheckedOut { id, tx }) => {
            shared.registry.release(id);
            tx.rollback();
        }
    }
}

fn commit(shared: &Shared, handle: Handle, errors: &mut Vec<ApiError>) -> Outcome {
    let tx = match handle {
        Handle::Implicit(tx) => tx,
        Handle::Explicit(CheckedOut { id, tx }) => {
            if !shared.registry.release(id) {
                tx.rollback();
                errors.push(ApiError::Engine(quiver_engine::Error::Terminated(
                    "the transaction was rolled back by a concurrent request".to_owned(),
                )));
                return Outcome::RolledBack;
            }
            tx
        }
    };
    match tx.commit() {
        Ok(info) => Outcome::Committed(info.bookmark),
        Err(error) => {
            errors.push(ApiError::Engine(error));
            Outcome::Unknown
        }
    }
}

fn park(shared: &Shared, checked_out: CheckedOut, errors: &mut Vec<ApiError>) -> Outcome {
    match shared.registry.park(checked_out) {
        Ok(expires) => Outcome::Open(expires),
        Err(tx) => {
            tx.rollback();
            errors.push(ApiError::Engine(quiver_engine::Error::Terminated(
                "the transaction was rolled back by a concurrent request".to_owned(),
            )));
            Outcome::RolledBack
        }
    }
}

fn rollback(shared: &Shared, id: u64, owner: Option<&str>, mut out: Output) {
    match shared.registry.remove(id, owner) {
        Ok(Removed::Parked(tx)) => {
            tx.rollback();
            out.buf.extend_from_slice(br#"{"results":[],"errors":[]}"#);
        }
        Ok(Removed::Cancelled) => {
            out.buf.extend_from_slice(br#"{"results":[],"errors":[]}"#);
        }
        Err(error) => error_document(&mut out, StatusCode::NOT_FOUND, &error),
    }
    let _ = out.finish();
}

/// A document with no results and one error.
pub fn error_document(out: &mut Output, status: StatusCode, error: &ApiError) {
    out.head(status, JSON, None);
    out.buf.clear();
    out.buf.extend_from_slice(br#"{"results":[],"errors":["#);
    write_error(&mut out.buf, error);
    out.buf.extend_from_slice(b"]}");
}

pub fn write_error(out: &mut Vec<u8>, error: &ApiError) {
    out.extend_from_slice(br#"{"code":"#);
    json::string(out, error.code());
    out.extend_from_slice(br#","message":"#);
    json::string(out, &error.message());
    out.push(b'}');
}

/// Runs one statement and writes its result object; returns its notifications.
fn execute(
    shared: &Shared,
    tx: &mut Transaction,
    statement: Statement,
    out: &mut Output,
    first: &mut bool,
) -> Result<Vec<Notification>, Stop> {
    let started = Instant::now();
    let result = stream_statement(shared, tx, statement, out, first);
    shared.telemetry.query_finished(started.elapsed());
    result
}

fn stream_statement(
    shared: &Shared,
    tx: &mut Transaction,
    statement: Statement,
    out: &mut Output,
    first: &mut bool,
) -> Result<Vec<Notification>, Stop> {
    let Statement {
        text,
        parameters,
        contents,
        include_stats,
    } = statement;
    let query = tx
        .run(&text, parameters)
        .map_err(|e| Stop::Failed(ApiError::Engine(e)))?;
    json::comma(&mut out.buf, first);
    out.buf.extend_from_slice(br#"{"columns":["#);
    let mut first_column = true;
    for column in tx.fields(query) {
        json::comma(&mut out.buf, &mut first_column);
        json::string(&mut out.buf, column);
    }
    out.buf.extend_from_slice(br#"],"data":["#);
    // A query without columns (an update with no RETURN) has no records, as in Neo4j, even
    // where the engine reports one empty row per update.
    let has_columns = !tx.fields(query).is_empty();
    let batch = shared.config.pull_rows_max.max(1);
    let mut rows = Vec::with_capacity(batch.min(1024));
    let mut graph = contents.graph.then(GraphRecord::default);
    let mut first_row = true;
    let summary = loop {
        rows.clear();
        let state = match tx.pull(query, batch as i64, &mut rows) {
            Ok(state) => state,
            Err(error) => {
                out.buf.extend_from_slice(b"]}");
                return Err(Stop::Failed(ApiError::Engine(error)));
            }
        };
        for row in rows.iter().filter(|_| has_columns) {
            json::comma(&mut out.buf, &mut first_row);
            out.buf.push(b'{');
            if contents.row {
                write_row(&mut out.buf, row);
            }
            if let Some(graph) = graph.as_mut() {
                if let Err(error) = collect_graph(tx, graph, row) {
                    out.buf.extend_from_slice(b"}]}");
                    return Err(Stop::Failed(ApiError::Engine(error)));
                }
                if contents.row {
                    out.buf.push(b',');
                }
                graph.write(&mut out.buf);
            }
            out.buf.push(b'}');
        }
        out.maybe_flush().map_err(|_| Stop::ClientGone)?;
        if let PullState::Done(summary) = state {
            break summary;
        }
    };
    out.buf.push(b']');
    if include_stats {
        write_stats(&mut out.buf, &summary.stats);
    }
    if let Some(plan) = &summary.plan {
        out.buf.extend_from_slice(br#","plan":{"root":"#);
        write_plan(&mut out.buf, plan);
        out.buf.push(b'}');
    }
    out.buf.push(b'}');
    Ok(summary.notifications)
}

fn write_row(out: &mut Vec<u8>, row: &[Value]) {
    out.extend_from_slice(br#""row":["#);
    let mut first = true;
    for value in row {
        json::comma(out, &mut first);
        encode::row_value(out, value);
    }
    out.extend_from_slice(br#"],"meta":["#);
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

fn write_stats(out: &mut Vec<u8>, stats: &Counters) {
    let count = |out: &mut Vec<u8>, name: &str, value: u64| {
        out.push(b',');
        json::key(out, name);
        json::uint(out, value);
    };
    out.extend_from_slice(br#","stats":{"contains_updates":"#);
    json::boolean(out, stats.contains_updates());
    count(out, "nodes_created", stats.nodes_created);
    count(out, "nodes_deleted", stats.nodes_deleted);
    count(out, "properties_set", stats.properties_set);
    count(out, "relationships_created", stats.relationships_created);
    // Neo4j's spelling, which clients read.
    count(out, "relationship_deleted", stats.relationships_deleted);
    count(out, "labels_added", stats.labels_added);
    count(out, "labels_removed", stats.labels_removed);
    count(out, "indexes_added", stats.indexes_added);
    count(out, "indexes_removed", stats.indexes_removed);
    count(out, "constraints_added", stats.constraints_added);
    count(out, "constraints_removed", stats.constraints_removed);
    out.extend_from_slice(br#","contains_system_updates":"#);
    json::boolean(out, stats.system_updates > 0);
    count(out, "system_updates", stats.system_updates);
    out.push(b'}');
}

/// A plan operator as Neo4j's HTTP API writes it: `operatorType`, the arguments, the
/// identifiers and the children.
pub fn write_plan(out: &mut Vec<u8>, plan: &PlanDescription) {
    out.extend_from_slice(br#"{"operatorType":"#);
    json::string(out, &plan.operator);
    if !plan.details.is_empty() {
        out.extend_from_slice(br#","Details":"#);
        json::string(out, &plan.details);
    }
    out.extend_from_slice(br#","EstimatedRows":"#);
    json::float(out, plan.estimated_rows);
    if let Some(profile) = &plan.profile {
        out.extend_from_slice(br#","Rows":"#);
        json::uint(out, profile.rows);
        out.extend_from_slice(br#","Time":"#);
        json::uint(
            out,
            u64::try_from(profile.time.as_nanos()).unwrap_or(u64::MAX),
        );
    }
    out.extend_from_slice(br#","identifiers":["#);
    let mut first = true;
    for identifier in &plan.identifiers {
        json::comma(out, &mut first);
        json::string(out, identifier);
    }
    out.extend_from_slice(br#"],"children":["#);
    let mut first = true;
    for child in &plan.children {
        json::comma(out, &mut first);
        write_plan(out, child);
    }
    out.extend_from_slice(b"]}");
}

pub fn write_notifications(out: &mut Vec<u8>, notifications: &[Notification]) {
    out.extend_from_slice(br#""notifications":["#);
    let mut first = true;
    for notification in notifications {
        json::comma(out, &mut first);
        out.extend_from_slice(br#"{"code":"#);
        json::string(out, notification.code);
        out.extend_from_slice(br#","severity":"WARNING","title":"#);
        json::string(out, &notification.title);
        out.extend_from_slice(br#","description":"#);
        json::string(out, &notification.description);
        out.push(b'}');
    }
    out.push(b']');
}

fn write_trailer(
    out: &mut Output,
    notifications: &[Notification],
    errors: &[ApiError],
    commit_url: Option<&str>,
    outcome: &Outcome,
) {
    let buf = &mut out.buf;
    buf.push(b']');
    if !notifications.is_empty() {
        buf.push(b',');
        write_notifications(buf, notifications);
    }
    buf.extend_from_slice(br#","errors":["#);
    let mut first = true;
    for error in errors {
        json::comma(buf, &mut first);
        write_error(buf, error);
    }
    buf.push(b']');
    if let Some(url) = commit_url {
        buf.extend_from_slice(br#","commit":"#);
        json::string(buf, url);
    }
    match outcome {
        Outcome::Open(expires) => {
            buf.extend_from_slice(br#","transaction":{"expires":"#);
            json::string(buf, &dates::rfc1123(*expires));
            buf.push(b'}');
        }
        Outcome::Committed(bookmark) => {
            buf.extend_from_slice(br#","lastBookmarks":["#);
            json::string(buf, bookmark);
            buf.push(b']');
        }
        Outcome::RolledBack | Outcome::Unknown => {}
    }
    buf.push(b'}');
}
