//! The query path: RUN, PULL, DISCARD, BEGIN, COMMIT, ROLLBACK and RESET over the engine.
//!
//! Records of one PULL are encoded straight into the outbox, which is written whenever
//! [`FLUSH_BYTES`] have gathered and once at the end of the batch. A commit is acknowledged only
//! once the durability layer says it may be (an asynchronous wait, holding nothing), and a write
//! transaction's records leave only once what they were read from is durable.

use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use quiver_bolt::message::{AccessMode as BoltMode, TxExtra, encode_record};
use quiver_bolt::meta::{RunSuccess, encode_begin_success, encode_commit_success, encode_has_more};
use quiver_bolt::packstream::Dialect;
use quiver_bolt::state::{Outcome, State};
use quiver_engine::{
    AccessMode, Bookmark, DurabilityTicket, PullState, QueryId, QuerySummary, TxOptions, WaitError,
};
use quiver_placement::{Place, TextKey};
use quiver_status::Status;
use quiver_value::Map;
use tokio::time::Instant;

use super::reply::{encode_summary, engine_failure, millis};
use super::tx::{Ending, Logged, OpenTx, Stream, TxAbout};
use super::work::Watched;
use super::{BoltSession, End, FLUSH_BYTES, is_known_database};
use crate::graph::Graph;
use crate::query_log::{FinishedQuery, Protocol};

/// Rows fetched from the engine per call while pulling: the unit of work between two checks of
/// the time budget and the outbox size.
pub const PULL_SLICE_ROWS: i64 = 64;
/// Bookmarks one BEGIN or RUN may present.
pub const BOOKMARKS_MAX: usize = 256;

/// What one step of pulling (or discarding) did.
enum Step {
    /// The records asked for were sent and the stream has more.
    HasMore,
    /// The stream ended.
    Done(Box<QuerySummary>),
    /// Stopped early: the outbox is full (flush it, then go on), or the inline budget ran out
    /// (go on on the pool).
    Paused {
        over_budget: bool,
    },
    Failed(StepError),
}

enum StepError {
    Engine(quiver_engine::Error),
    Encode(quiver_bolt::Error),
}

/// Pulls up to `want` records (−1: all) of `query` into `out`, or discards them.
fn pull_step(
    tx: &mut OpenTx,
    query: QueryId,
    want: i64,
    discard: bool,
    out: &mut BytesMut,
    dialect: Dialect,
    budget: Option<Duration>,
) -> (Step, u64) {
    let span = tx.stream_span(query).unwrap_or_else(tracing::Span::none);
    let _entered = span.enter();
    let Some(engine) = tx.engine() else {
        return (
            Step::Failed(StepError::Engine(quiver_engine::Error::Terminated(
                "the transaction is no longer open".to_owned(),
            ))),
            0,
        );
    };
    if discard {
        let step = match engine.discard(query, want) {
            Ok(PullState::HasMore) => Step::HasMore,
            Ok(PullState::Done(summary)) => Step::Done(summary),
            Err(error) => Step::Failed(StepError::Engine(error)),
        };
        return (step, 0);
    }
    let until = budget.map(|budget| std::time::Instant::now() + budget);
    let mut rows = Vec::new();
    let mut sent: u64 = 0;
    loop {
        let sent_i64 = i64::try_from(sent).unwrap_or(i64::MAX);
        let slice = if want < 0 {
            PULL_SLICE_ROWS
        } else {
            (want - sent_i64).clamp(1, PULL_SLICE_ROWS)
        };
        rows.clear();
        let state = match engine.pull(query, slice, &mut rows) {
            Ok(state) => state,
            Err(error) => return (Step::Failed(StepError::Engine(error)), sent),
        };
        for row in &rows {
            if let Err(error) = encode_record(out, row, dialect) {
                return (Step::Failed(StepError::Encode(error)), sent);
            }
            sent += 1;
        }
        match state {
            PullState::Done(summary) => return (Step::Done(summary), sent),
            PullState::HasMore => {
                let sent_i64 = i64::try_from(sent).unwrap_or(i64::MAX);
                if want >= 0 && sent_i64 >= want {
                    return (Step::HasMore, sent);
                }
                if out.len() >= FLUSH_BYTES {
                    return (Step::Paused { over_budget: false }, sent);
                }
                if until.is_some_and(|until| std::time::Instant::now() >= until) {
                    return (Step::Paused { over_budget: true }, sent);
                }
            }
        }
    }
}

fn gone_end(watched: Watched) -> End {
    if watched.stopped {
        End::Shutdown
    } else {
        End::Finished
    }
}

impl BoltSession {
    pub(super) fn graph(&self) -> Option<Arc<Graph>> {
        self.shared.graph.clone()
    }

    /// The database work named `db` runs on (the user's home database, else the server's
    /// default, when it names none); on refusal the FAILURE is queued and `None` returned.
    pub(super) fn graph_named(&mut self, db: Option<&str>) -> Option<Arc<Graph>> {
        let db = db.filter(|db| !db.is_empty());
        let Some(databases) = self.shared.databases.clone() else {
            if let Some(db) = db.filter(|db| !is_known_database(db)) {
                self.fail(
                    Status::DatabaseNotFound,
                    &format!("Database does not exist: {db}"),
                    None,
                );
                return None;
            }
            let graph = self.graph();
            if graph.is_none() {
                self.fail(
                    Status::DatabaseUnavailable,
                    "Quiver is running without a query engine: queries cannot be run.",
                    None,
                );
            }
            return graph;
        };
        let name = match db {
            Some(db) => db.to_owned(),
            None => self.home_database(&databases),
        };
        match databases.get(&name) {
            Ok(graph) => Some(graph),
            Err(unavailable) => {
                self.fail(unavailable.status, &unavailable.message, None);
                None
            }
        }
    }

    /// The session user's home database, else the server's default.
    pub(super) fn home_database(&self, databases: &crate::databases::Databases) -> String {
        self.principal
            .as_ref()
            .filter(|p| !p.name.is_empty())
            .and_then(|p| databases.root().database().user_home(&p.name))
            .unwrap_or_else(|| databases.default_name().to_owned())
    }

    /// Refuses new work while draining, or when the database `db` names cannot take it.
    fn refuse_new_work(&mut self, db: Option<&str>) -> Option<Arc<Graph>> {
        if self.shutdown.is_draining() {
            self.fail(
                Status::DatabaseUnavailable,
                "The server is shutting down.",
                None,
            );
            return None;
        }
        self.graph_named(db)
    }

    /// Reads BEGIN's (or an auto-commit RUN's) dictionary into engine options, after waiting
    /// for its bookmarks. On refusal the FAILURE is queued and `None` returned.
    async fn tx_options(
        &mut self,
        graph: &Graph,
        extra: TxExtra,
        auto_commit: bool,
    ) -> Option<TxOptions> {
        if extra.imp_user.is_some() {
            self.fail(Status::Forbidden, "Impersonation is not supported.", None);
            return None;
        }
        if extra.bookmarks.len() > BOOKMARKS_MAX {
            self.fail(
                Status::InvalidBookmark,
                &format!("At most {BOOKMARKS_MAX} bookmarks may be given."),
                None,
            );
            return None;
        }
        if !self.reach_bookmarks(graph, &extra.bookmarks).await {
            return None;
        }
        Some(TxOptions {
            mode: match extra.mode {
                BoltMode::Read => AccessMode::Read,
                BoltMode::Write => AccessMode::Write,
            },
            // Neo4j's drivers send 0 for "no timeout".
            timeout: extra
                .tx_timeout_ms
                .filter(|ms| *ms > 0)
                .map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0))),
            metadata: extra.tx_metadata.unwrap_or_default(),
            // Empty when authentication is off: then there is no user to name.
            user: self
                .principal
                .as_ref()
                .map(|p| Arc::clone(&p.name))
                .filter(|name| !name.is_empty()),
            auto_commit,
            client: Some(self.peer),
            connection: Some("bolt"),
        })
    }

    /// An explicit transaction's first query that begins with `USE name` moves it to that
    /// database (the transaction is bound to the database its first query names, as drivers
    /// that resolve the home database before BEGIN expect): the unused transaction is rolled
    /// back and begun again there. On refusal the FAILURE is queued and `None` returned.
    async fn move_to_used(&mut self, mut tx: Box<OpenTx>, query: &str) -> Option<Box<OpenTx>> {
        let Some((opts, bookmarks)) = tx.movable.take() else {
            return Some(tx);
        };
        let Some(named) = quiver_engine::catalog::named_by_use(query) else {
            return Some(tx);
        };
        let Some(graph) = self.graph_named(Some(&named)) else {
            tx.rollback();
            tx.end(Ending::RolledBack);
            return None;
        };
        if Arc::ptr_eq(&graph, &tx.graph) {
            return Some(tx);
        }
        tx.rollback();
        tx.end(Ending::RolledBack);
        if !self.reach_bookmarks(&graph, &bookmarks).await {
            return None;
        }
        self.open_tx(&graph, opts)
    }

    /// Waits until `graph` shows the newest of `bookmarks` it issued (those of other
    /// databases say nothing of it). On refusal the FAILURE is queued and `false` returned.
    async fn reach_bookmarks(&mut self, graph: &Graph, bookmarks: &[String]) -> bool {
        let database = graph.database().name();
        let newest = match Bookmark::newest_on(bookmarks.iter().map(String::as_str), &database) {
            Ok(newest) => newest,
            Err(invalid) => {
                self.fail(Status::InvalidBookmark, &invalid.to_string(), None);
                return false;
            }
        };
        let Some((bookmark, _)) = newest else {
            return true;
        };
        let started = Instant::now();
        let visible = graph.database().visible(&bookmark);
        let waited = tokio::time::timeout(self.shared.bookmark_timeout, visible).await;
        match waited.unwrap_or_else(|_| {
            Err(WaitError::BookmarkTimeout {
                bookmark,
                waited_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            })
        }) {
            Ok(()) => true,
            Err(WaitError::BookmarkTimeout { waited_ms, .. }) => {
                self.fail(
                    Status::BookmarkTimeout,
                    &format!(
                        "Database not up to the requested bookmark {bookmark} after {waited_ms} ms."
                    ),
                    None,
                );
                false
            }
            Err(error) => {
                self.fail(Status::DatabaseUnavailable, &error.to_string(), None);
                false
            }
        }
    }

    /// Begins an engine transaction, counted, with its durability horizon.
    fn open_tx(&mut self, graph: &Arc<Graph>, mut opts: TxOptions) -> Option<Box<OpenTx>> {
        // After a disk fault no write can commit, and the newest commits in memory (the one
        // whose log write failed) will never be durable: a write-mode transaction then reads
        // at the durable point like a read-mode one, and a write in it is refused by name.
        let fault = (opts.mode == AccessMode::Write)
            .then(|| graph.database().write_refusal())
            .flatten();
        if fault.is_some() {
            opts.mode = AccessMode::Read;
        }
        match OpenTx::begin(
            graph,
            opts,
            &self.shared.metrics,
            self.shared.transaction_timeout,
        ) {
            Ok(mut tx) => {
                tx.writes_refused = fault;
                if let Some(policy) = &self.shared.trace {
                    tx.trace(policy, "bolt");
                }
                Some(Box::new(tx))
            }
            Err(error) => {
                let (code, message, position) = engine_failure(&error);
                self.fail(code, &message, position);
                None
            }
        }
    }

    pub(super) async fn begin(&mut self, extra: TxExtra) -> (Outcome, Option<End>) {
        let Some(graph) = self.refuse_new_work(extra.db.as_deref()) else {
            return (Outcome::Failure, None);
        };
        let bookmarks = extra.bookmarks.clone();
        let Some(opts) = self.tx_options(&graph, extra, false).await else {
            return (Outcome::Failure, None);
        };
        let movable = self
            .shared
            .databases
            .is_some()
            .then(|| (opts.clone(), bookmarks));
        let Some(mut tx) = self.open_tx(&graph, opts) else {
            return (Outcome::Failure, None);
        };
        tx.movable = movable;
        self.tx = Some(tx);
        let name = graph.database().name();
        let encoded = encode_begin_success(&mut self.outbox, Some(&name), self.version);
        (self.encoded(encoded), None)
    }

    /// The transaction a RUN runs in: a new auto-commit one (on the database a leading `USE`
    /// names, else the one RUN names), or the open explicit one (moved by a first `USE`).
    async fn query_tx(
        &mut self,
        qid: Option<i64>,
        query: &str,
        extra: TxExtra,
        logged: &mut Logged,
        arrived: Instant,
    ) -> Result<Box<OpenTx>, (Outcome, Option<End>)> {
        if qid.is_some() {
            let tx = self.continue_tx().await?;
            return self
                .move_to_used(tx, query)
                .await
                .ok_or((Outcome::Failure, None));
        }
        // A query that begins with `USE name` runs on that database.
        let named = quiver_engine::catalog::named_by_use(query);
        let db = named.as_deref().or(extra.db.as_deref());
        let graph = self.refuse_new_work(db).ok_or((Outcome::Failure, None))?;
        let opts = self
            .tx_options(&graph, extra, true)
            .await
            .ok_or((Outcome::Failure, None))?;
        logged.waiting = Some(arrived.elapsed());
        self.open_tx(&graph, opts).ok_or((Outcome::Failure, None))
    }

    pub(super) async fn run_query(
        &mut self,
        qid: Option<i64>,
        query: String,
        params: Map,
        extra: TxExtra,
    ) -> (Outcome, Option<End>) {
        let arrived = Instant::now();
        let mut logged = self.logged(&query, &params);
        let tx = match self
            .query_tx(qid, &query, extra, &mut logged, arrived)
            .await
        {
            Ok(tx) => tx,
            Err(ended) => return ended,
        };
        if self.notice_resets() {
            // The RESET that overtook this RUN rolls the transaction back.
            self.tx = Some(tx);
            return (Outcome::Failure, None);
        }
        let key = TextKey::of(&query);
        let place = self.shared.placement.place(key);
        let version = self.version;
        let span = match &self.shared.trace {
            Some(policy) => policy.query_span(
                &tx.span,
                &tx.about.database,
                &query,
                quiver_engine::catalog::first_keyword,
            ),
            None => tracing::Span::none(),
        };
        let entered = span.clone();
        let (mut tx, result, watched) = self
            .work(tx, place, move |tx, out| {
                let _entered = entered.enter();
                let started = std::time::Instant::now();
                let database = tx.graph.database().name();
                let Some(engine) = tx.engine() else {
                    let error = quiver_engine::Error::Terminated(
                        "the transaction is no longer open".to_owned(),
                    );
                    return (Err(StepError::Engine(error)), started.elapsed());
                };
                let result = match engine.run(&query, params) {
                    Ok(id) => {
                        let fields = engine.fields(id);
                        let has_columns = !fields.is_empty();
                        let success = RunSuccess {
                            fields,
                            t_first_ms: millis(started.elapsed()),
                            qid,
                            db: Some(&database),
                        };
                        match success.encode(out, version) {
                            Ok(()) => Ok((id, has_columns)),
                            Err(error) => Err(StepError::Encode(error)),
                        }
                    }
                    Err(error) => Err(StepError::Engine(error)),
                };
                (result, started.elapsed())
            })
            .await;
        let (result, elapsed) = result;
        if place != Place::Pool {
            self.shared.placement.note(key, elapsed);
        }
        if elapsed >= self.shared.placement.budget() {
            tx.heavy = true;
        }
        if let Some(answer) = self.cut_short(watched) {
            self.tx = Some(tx);
            return answer;
        }
        match result {
            Ok((query, has_columns)) => {
                tx.streams.push(Stream {
                    qid,
                    query,
                    key,
                    started: arrived,
                    records: 0,
                    has_columns,
                    logged,
                    span,
                });
                self.tx = Some(tx);
                (Outcome::Success, None)
            }
            Err(error) => {
                self.shared.metrics.query_latency.observe(arrived.elapsed());
                trace_failure(&span, Some(0), &error);
                trace_failure(&tx.span, None, &error);
                let about = Arc::clone(&tx.about);
                self.log_query(&about, &mut logged, arrived.elapsed(), 0, Err(&error));
                self.fail_tx(tx, &error, watched).await
            }
        }
    }

    /// PULL (or DISCARD) of stream `qid`.
    pub(super) async fn stream_records(
        &mut self,
        qid: Option<i64>,
        n: i64,
        discard: bool,
    ) -> (Outcome, Option<End>) {
        let Some(mut tx) = self.tx.take() else {
            self.fail(Status::RequestInvalid, "There is no open result.", None);
            return (Outcome::Failure, None);
        };
        if !tx.auto_commit && tx.is_past_deadline() {
            return self.timed_out(tx).await;
        }
        let Some(stream) = tx.stream_mut(qid) else {
            return self.not_open(tx, "There is no open result with that qid.");
        };
        let (query, key) = (stream.query, stream.key);
        let dialect = self.codec.dialect;
        let mut remaining = n;
        let mut on_pool = false;
        loop {
            if self.notice_resets() {
                self.tx = Some(tx);
                return (Outcome::Failure, None);
            }
            let place = if on_pool {
                Place::Pool
            } else {
                self.shared.placement.place(key)
            };
            let budget = match place {
                Place::Inline { budget } => budget,
                Place::Pool => None,
            };
            let started = std::time::Instant::now();
            let (next, (step, sent), watched) = self
                .work(tx, place, move |tx, out| {
                    pull_step(tx, query, remaining, discard, out, dialect, budget)
                })
                .await;
            tx = next;
            let elapsed = started.elapsed();
            if let Some(stream) = tx.stream_mut(qid) {
                stream.records += sent;
            }
            let slow_after = self.shared.placement.budget();
            if matches!(step, Step::Paused { over_budget: true }) || elapsed >= slow_after {
                // Slow this time: the rest of this pull, and the text's next runs, use the pool.
                self.shared.placement.record(key, slow_after);
                tx.heavy = true;
                on_pool = true;
            } else {
                self.shared.placement.record(key, elapsed);
            }
            if let Some(answer) = self.cut_short(watched) {
                self.tx = Some(tx);
                return answer;
            }
            match step {
                Step::Paused { .. } => {
                    if remaining > 0 {
                        remaining -= i64::try_from(sent).unwrap_or(remaining);
                    }
                    if self.outbox.len() >= FLUSH_BYTES {
                        self.settle_horizon(&mut tx).await;
                        if let Err(end) = self.flush().await {
                            self.tx = Some(tx);
                            return (Outcome::Failure, Some(end));
                        }
                    }
                }
                Step::HasMore => {
                    self.settle_horizon(&mut tx).await;
                    self.tx = Some(tx);
                    return match encode_has_more(&mut self.outbox) {
                        Ok(()) => (Outcome::HasMore, None),
                        Err(error) => {
                            self.fail(error.status_code(), &error.to_string(), None);
                            (Outcome::Failure, None)
                        }
                    };
                }
                Step::Done(summary) => return self.finish_stream(tx, qid, &summary).await,
                Step::Failed(error) => {
                    let about = Arc::clone(&tx.about);
                    if let Some(stream) = tx.stream_mut(qid) {
                        let elapsed = stream.started.elapsed();
                        self.shared.metrics.query_latency.observe(elapsed);
                        let rows = stream.records;
                        trace_failure(&stream.span, Some(rows), &error);
                        self.log_query(&about, &mut stream.logged, elapsed, rows, Err(&error));
                    }
                    return self.fail_tx(tx, &error, watched).await;
                }
            }
        }
    }

    /// A stream ended: its summary, and for an auto-commit transaction the acknowledged commit.
    async fn finish_stream(
        &mut self,
        mut tx: Box<OpenTx>,
        qid: Option<i64>,
        summary: &QuerySummary,
    ) -> (Outcome, Option<End>) {
        let Some(mut stream) = tx.remove_stream(qid) else {
            return self.not_open(tx, "The result is no longer open.");
        };
        let elapsed = stream.started.elapsed();
        self.shared.metrics.query_latency.observe(elapsed);
        quiver_telemetry::finish_query(&stream.span, stream.records, None);
        let (about, records) = (&tx.about, stream.records);
        self.log_query(
            about,
            &mut stream.logged,
            elapsed,
            records,
            Ok(&summary.figures),
        );
        if !tx.auto_commit {
            self.settle_horizon(&mut tx).await;
            self.tx = Some(tx);
            let encoded = encode_summary(&mut self.outbox, self.version, summary, &stream, None);
            return (self.encoded(encoded), None);
        }
        tx.end(Ending::Committed);
        let Some(commit) = summary.commit.as_ref() else {
            // An auto-commit transaction always reports its commit; without one, say so.
            self.fail(
                Status::TransactionCommitFailed,
                "The transaction did not report its commit.",
                None,
            );
            return (Outcome::Failure, None);
        };
        let graph = Arc::clone(&tx.graph);
        if let Err(failed) = self.acknowledge(&graph, commit.ticket, &stream.span).await {
            return failed;
        }
        let bookmark = commit.bookmark.text_on(&graph.database().name());
        let encoded = encode_summary(
            &mut self.outbox,
            self.version,
            summary,
            &stream,
            Some(&bookmark),
        );
        (self.encoded(encoded), None)
    }

    /// What the query log will want of a query arriving now: nothing without a query log.
    fn logged(&self, text: &str, parameters: &Map) -> Logged {
        let log = self.shared.query_log.as_ref();
        Logged {
            text: log.map(|_| Arc::from(text)),
            arrived_at: std::time::SystemTime::now(),
            waiting: None,
            parameters: log
                .filter(|log| log.wants_parameters())
                .map(|_| parameters.clone()),
        }
    }

    /// Reports a query that ended, with its figures or its failure, to the query log, if
    /// there is one.
    fn log_query(
        &self,
        about: &TxAbout,
        logged: &mut Logged,
        elapsed: Duration,
        rows: u64,
        end: Result<&quiver_engine::QueryFigures, &StepError>,
    ) {
        let (Some(log), Some(text)) = (&self.shared.query_log, &logged.text) else {
            return;
        };
        let failure = end.err().map(|error| match error {
            StepError::Engine(error) => {
                let (code, message, _) = engine_failure(error);
                format!("{code}: {message}")
            }
            StepError::Encode(error) => format!("{}: {error}", error.status_code()),
        });
        log.finished(FinishedQuery {
            protocol: Protocol::Bolt,
            started: logged.arrived_at,
            elapsed,
            waiting: logged.waiting,
            rows,
            text: Arc::clone(text),
            parameters: logged.parameters.take(),
            user: about.user.clone(),
            client: about.client,
            database: Arc::clone(&about.database),
            transaction_id: Some(about.id.clone()),
            metadata: about.metadata.clone(),
            failure,
            figures: end.ok().copied(),
        });
    }

    /// Work in `tx` failed: the FAILURE, and the transaction rolled back and closed (the client
    /// RESETs next; the state machine IGNOREs everything until then).
    async fn fail_tx(
        &mut self,
        mut tx: Box<OpenTx>,
        error: &StepError,
        watched: Watched,
    ) -> (Outcome, Option<End>) {
        // Records pulled before the failure are in the outbox: like any others, they leave only
        // once what they were read from is durable.
        self.settle_horizon(&mut tx).await;
        let expired = watched.expired || tx.expired || tx.is_past_deadline();
        let (code, message, position) = match (error, &tx.writes_refused) {
            (StepError::Engine(error), Some((status, reason)))
                if error.status_code() == Status::AccessMode =>
            {
                (*status, reason.clone(), None)
            }
            (StepError::Engine(error), _) => engine_failure(error),
            (StepError::Encode(error), _) => (error.status_code(), error.to_string(), None),
        };
        if expired {
            let (status, message) = tx.timeout_failure(Some(&message));
            self.fail(status, &message, None);
        } else {
            self.fail(code, &message, position);
        }
        let place = self.closing_place(&tx);
        let (mut tx, (), _) = self.work(tx, place, |tx, _| tx.rollback()).await;
        tx.end(Ending::RolledBack);
        (Outcome::Failure, None)
    }

    /// The transaction's timeout passed: it is (or now gets) rolled back, and the client told.
    async fn timed_out(&mut self, tx: Box<OpenTx>) -> (Outcome, Option<End>) {
        let mut tx = if tx.expired {
            tx
        } else {
            self.expire(tx).await
        };
        tx.end(Ending::RolledBack);
        let (status, message) = tx.timeout_failure(None);
        self.fail(status, &format!("{message}."), None);
        (Outcome::Failure, None)
    }

    /// Results of a write transaction were read at a snapshot that may be newer than the disk:
    /// they leave only once it is durable.
    async fn settle_horizon(&mut self, tx: &mut OpenTx) {
        let Some(horizon) = tx.horizon.take() else {
            return;
        };
        if let Err(error) = tx.graph.database().durable(horizon).await {
            tracing::warn!(peer = %self.peer, %error, "results read from a commit that is not durable");
        }
    }

    /// The open explicit transaction a RUN or COMMIT goes on with: refused when there is
    /// none, ended (and answered) when it is past its deadline.
    async fn continue_tx(&mut self) -> Result<Box<OpenTx>, (Outcome, Option<End>)> {
        let Some(tx) = self.tx.take() else {
            self.fail(
                Status::RequestInvalid,
                "There is no open transaction.",
                None,
            );
            return Err((Outcome::Failure, None));
        };
        if tx.is_past_deadline() {
            return Err(self.timed_out(tx).await);
        }
        Ok(tx)
    }

    pub(super) async fn commit(&mut self) -> (Outcome, Option<End>) {
        let tx = match self.continue_tx().await {
            Ok(tx) => tx,
            Err(ended) => return ended,
        };
        if self.notice_resets() {
            self.tx = Some(tx);
            return (Outcome::Failure, None);
        }
        let place = self.closing_place(&tx);
        let (mut tx, result, watched) = self
            .work(tx, place, |tx, _| {
                let _entered = tx.span.clone().entered();
                tx.commit()
            })
            .await;
        match result {
            Ok(info) => {
                tx.end(Ending::Committed);
                if watched.gone() {
                    return (Outcome::Failure, Some(gone_end(watched)));
                }
                let graph = Arc::clone(&tx.graph);
                if let Err(failed) = self.acknowledge(&graph, info.ticket, &tx.span).await {
                    return failed;
                }
                let bookmark = info.bookmark.text_on(&graph.database().name());
                let encoded = encode_commit_success(&mut self.outbox, Some(&bookmark));
                (self.encoded(encoded), None)
            }
            Err(error) => {
                if watched.gone() {
                    tx.end(Ending::Abandoned);
                    return (Outcome::Failure, Some(gone_end(watched)));
                }
                let error = StepError::Engine(error);
                trace_failure(&tx.span, None, &error);
                self.fail_tx(tx, &error, watched).await
            }
        }
    }

    pub(super) async fn rollback(&mut self) -> (Outcome, Option<End>) {
        if let Some(tx) = self.tx.take() {
            let place = self.closing_place(&tx);
            let (mut tx, (), watched) = self.work(tx, place, |tx, _| tx.rollback()).await;
            tx.end(Ending::RolledBack);
            if watched.gone() {
                return (Outcome::Failure, Some(gone_end(watched)));
            }
        }
        self.succeed_empty();
        (Outcome::Success, None)
    }

    /// RESET: whatever transaction is open is rolled back, as by ROLLBACK; the session is READY
    /// again.
    pub(super) async fn reset(&mut self) -> (Outcome, Option<End>) {
        self.rollback().await
    }

    /// After work on the pool: the answer when the session must stop there, because the client
    /// went away or the server is stopping, or a RESET interrupted the work.
    fn cut_short(&self, watched: Watched) -> Option<(Outcome, Option<End>)> {
        if watched.gone() {
            Some((Outcome::Failure, Some(gone_end(watched))))
        } else if self.protocol.state() == State::Interrupted {
            Some((Outcome::Failure, None))
        } else {
            None
        }
    }

    /// Keeps `tx` as it is and answers with a FAILURE: the result the request names (`message`
    /// says which) is not open.
    fn not_open(&mut self, tx: Box<OpenTx>, message: &str) -> (Outcome, Option<End>) {
        self.tx = Some(tx);
        self.fail(Status::RequestInvalid, message, None);
        (Outcome::Failure, None)
    }

    /// Waits until the commit behind `ticket` is durable, before anyone is told of it; when it
    /// cannot be made durable, the FAILURE that says so.
    async fn acknowledge(
        &mut self,
        graph: &Graph,
        ticket: Option<DurabilityTicket>,
        span: &tracing::Span,
    ) -> Result<(), (Outcome, Option<End>)> {
        use tracing::Instrument as _;
        if let Some(ticket) = ticket
            && let Err(error) = graph
                .database()
                .durable(ticket)
                .instrument(quiver_telemetry::durable_wait_span(span))
                .await
        {
            self.fail(Status::TransactionCommitFailed, &error.to_string(), None);
            return Err((Outcome::Failure, None));
        }
        Ok(())
    }
}

/// Marks a query's span (with the rows it sent) or, without rows, its transaction's span
/// failed with the error the client is sent.
fn trace_failure(span: &tracing::Span, rows: Option<u64>, error: &StepError) {
    if span.is_disabled() {
        return;
    }
    let (code, message) = match error {
        StepError::Engine(error) => {
            let (code, message, _) = engine_failure(error);
            (code.to_string(), message)
        }
        StepError::Encode(error) => (error.status_code().to_string(), error.to_string()),
    };
    match rows {
        Some(rows) => quiver_telemetry::finish_query(span, rows, Some((&code, &message))),
        None => quiver_telemetry::set_failed(span, &code, &message),
    }
}
