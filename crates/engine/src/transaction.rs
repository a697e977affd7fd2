//! Transactions: run queries, pull their rows in batches, commit or roll back.
//!
//! A transaction may have several queries open at once (Bolt's `qid`): each is an independent
//! cursor over the same storage transaction. A failure fails the whole transaction: its writes
//! are rolled back at once (so they stop blocking other writers) and every later request on it
//! is refused until the client rolls back.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use quiver_storage::{DurabilityTicket, Transaction as StorageTx};
use quiver_value::{FunctionContext, Map, TimeZone, Value};

use crate::config::{AccessMode, TxOptions};
use crate::error::{Error, LockWaited, Result, code};
use crate::eval::{Row, row_bytes};
use crate::exec::{self, BoxCursor, Cx};
use crate::materialize::materialize;
use crate::memory::TxWrites;
use crate::plan::{self, Compiled};
use crate::state::DatabaseState;
use crate::summary::{CommitInfo, OperatorProfile, PullState, QuerySummary};

/// Identifies an open query within its transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueryId(pub u64);

/// Cancels the running query of a transaction from another thread.
#[derive(Clone, Debug)]
pub struct CancelHandle(Arc<AtomicBool>);

impl CancelHandle {
    /// Makes the transaction's running and future pulls fail with `Terminated`.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

struct OpenQuery {
    id: QueryId,
    compiled: Arc<Compiled>,
    /// `None` for EXPLAIN, which never runs.
    cursor: Option<BoxCursor>,
    row: Row,
    cx: Cx,
    started: Instant,
    first_row: Option<Duration>,
    /// Rows handed to the caller so far: once there are any, the query cannot begin again.
    returned: u64,
    /// When the query first met another transaction's uncommitted change: its lock wait runs
    /// from here, however many times it begins again.
    waiting_since: Option<Instant>,
    /// Rows of a writing query carried out at its run ([`Transaction::run_ahead`]) that are
    /// still to be pulled, counted in the query's memory until they are.
    ahead: VecDeque<Vec<Value>>,
    /// Parsing and planning it.
    planning: Duration,
    /// CPU time of its steps so far, when the database measures it.
    cpu: Duration,
}

/// A transaction. `Send`; used by one connection at a time.
pub struct Transaction {
    shared: Arc<DatabaseState>,
    stx: Arc<StorageTx>,
    id: u64,
    opts: TxOptions,
    cancel: Arc<AtomicBool>,
    queries: Vec<OpenQuery>,
    next_query: u64,
    /// Set once a query failed: the storage transaction has been rolled back.
    failed: Option<String>,
    /// Set when an auto-commit transaction committed after its query.
    committed: Option<CommitInfo>,
    ran: bool,
    fctx_tx: quiver_value::temporal::Instant,
    /// What the transaction's uncommitted writes hold, across its queries: given back when
    /// they go (commit, rollback, failure, beginning again).
    writes: Arc<TxWrites>,
    /// User and role changes of its queries, for the audit sink once committed.
    audit: Arc<parking_lot::Mutex<Vec<crate::security::AuditEvent>>>,
}

impl std::fmt::Debug for Transaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transaction")
            .field("id", &self.shared.tx_name(self.id))
            .field("open_queries", &self.queries.len())
            .field("failed", &self.failed.is_some())
            .finish_non_exhaustive()
    }
}

impl Transaction {
    pub(crate) fn begin(shared: Arc<DatabaseState>, opts: TxOptions) -> Transaction {
        let stx = match opts.mode {
            AccessMode::Read => shared.storage().begin_read(),
            AccessMode::Write => shared.storage().begin_write(),
        };
        if !opts.auto_commit {
            // A uniqueness violation fails the statement that causes it, as in Neo4j, so a
            // client that catches the statement's error sees it there and not at COMMIT.
            stx.check_statements();
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let id = shared.register_tx(opts.metadata.clone(), opts.user.clone(), cancel.clone());
        shared.set_tx_client(id, opts.client, opts.connection);
        Transaction {
            shared,
            stx: Arc::new(stx),
            id,
            opts,
            cancel,
            queries: Vec::new(),
            next_query: 0,
            failed: None,
            committed: None,
            ran: false,
            fctx_tx: quiver_value::temporal::Instant::now(),
            writes: Arc::default(),
            audit: Arc::default(),
        }
    }

    /// The id `SHOW TRANSACTIONS` lists (`<database>-transaction-N`).
    pub fn id(&self) -> String {
        self.shared.tx_name(self.id)
    }

    pub fn cancel_handle(&self) -> CancelHandle {
        CancelHandle(self.cancel.clone())
    }

    fn check_usable(&self) -> Result<()> {
        if let Some(why) = &self.failed {
            return Err(Error::request(
                code::TX_FAILED,
                format!("The transaction has failed and must be rolled back: {why}"),
            ));
        }
        if self.committed.is_some() {
            return Err(Error::request(
                code::TX_NOT_FOUND,
                "The transaction has already been committed",
            ));
        }
        if self.cancel.load(Ordering::Relaxed) {
            return Err(Error::Terminated(
                "the transaction was terminated".to_owned(),
            ));
        }
        Ok(())
    }

    /// Records a failure: closes every query and rolls the storage transaction back.
    fn fail(&mut self, e: &Error) {
        self.failed = Some(e.message());
        self.queries.clear();
        let _ = self.stx.rollback();
        self.writes.clear(&self.shared.memory);
        self.shared.set_query(self.id, None);
    }

    /// Compiles a query (or takes it from the plan cache).
    fn compile(&self, query: &str) -> Result<Arc<Compiled>> {
        compile(&self.shared, &self.stx, query)
    }

    /// Compiles and starts a query; its rows are fetched with [`Transaction::pull`].
    pub fn run(&mut self, query: &str, params: Map) -> Result<QueryId> {
        self.check_usable()?;
        if self.opts.auto_commit && self.ran {
            return Err(Error::request(
                code::REQUEST_INVALID,
                "An auto-commit transaction runs exactly one query",
            ));
        }
        if self.queries.len() >= self.shared.config.open_queries_max {
            return Err(Error::request(
                code::REQUEST_INVALID,
                format!(
                    "A transaction may have at most {} open queries",
                    self.shared.config.open_queries_max
                ),
            ));
        }
        self.ran = true;
        let cpu = self.cpu_clock();
        match self
            .start(query, params)
            .and_then(|id| self.run_ahead(id).map(|()| id))
        {
            Ok(id) => {
                if let Ok(at) = self.position(id) {
                    self.count_cpu(at, cpu);
                }
                Ok(id)
            }
            Err(e) => {
                self.fail(&e);
                Err(e)
            }
        }
    }

    /// Whether a query is carried out in full when it is run rather than when its result is
    /// pulled: one that writes. Neo4j carries out every writing query at RUN (its rows wait,
    /// counted in the transaction's memory, to be pulled), so its errors (a uniqueness
    /// violation, a type error half-way through) answer the RUN; drivers rely on that.
    /// neo4rs's `run()` pipelines DISCARD behind RUN and retries any failure of that DISCARD as
    /// if it were transient, for up to a minute. Queries that commit batches of their own are
    /// left to their pull: their batches are committed as they go.
    fn runs_ahead(compiled: &Compiled) -> bool {
        compiled.writes && !compiled.explain && !compiled.commits_batches()
    }

    /// Carries out a query that [`Transaction::runs_ahead`] to its end, keeping its rows, and
    /// checks the uniqueness constraints over what it changed, leaving it open: its pulls then
    /// hand out the kept rows and end it (an auto-commit transaction then commits, checking
    /// again under the commit lock).
    fn run_ahead(&mut self, id: QueryId) -> Result<()> {
        let at = self.position(id)?;
        if !Self::runs_ahead(&self.queries[at].compiled) {
            return Ok(());
        }
        // An explicit transaction checks every statement already; an auto-commit one only
        // at commit, which comes at the pull.
        self.stx.check_statements();
        let mut rows = Vec::new();
        self.advance_waiting(at, -1, Some(&mut rows))?;
        let q = &mut self.queries[at];
        // Exhausted: dropping the cursors gives back their memory, and pulls find the rows.
        q.cursor = None;
        let bytes = rows.iter().map(|row| row_bytes(row)).sum();
        q.cx.reserve(
            bytes,
            "the rows of a writing query, kept until they are pulled",
        )?;
        q.ahead = rows.into();
        self.stx.check_statement()?;
        Ok(())
    }

    /// Hands out (or, without `out`, drops) up to `n` (`-1`: all) of the rows a query kept
    /// when it ran ahead; `true` once none are left.
    fn hand_ahead(q: &mut OpenQuery, n: i64, mut out: Option<&mut Vec<Vec<Value>>>) -> bool {
        let take = usize::try_from(n).map_or(q.ahead.len(), |n| n.min(q.ahead.len()));
        for row in q.ahead.drain(..take) {
            q.cx.release(row_bytes(&row));
            if let Some(out) = out.as_deref_mut() {
                out.push(row);
            }
        }
        q.ahead.is_empty()
    }

    /// Who runs the transaction now (see [`crate::security`]): looked up at every statement
    /// and at commit, so a dropped or suspended user fails at once and a role change counts
    /// from the next statement.
    fn subject(&self) -> Result<crate::security::Subject> {
        let Some(auth) = self.shared.authentication() else {
            return Ok(crate::security::Subject::Unrestricted);
        };
        let names = self.shared.names();
        crate::security::Subject::resolve(
            Some(&auth),
            &self.shared.security(),
            self.opts.user.as_deref(),
            &names.name,
            &names.default,
        )
    }

    fn start(&mut self, query: &str, params: Map) -> Result<QueryId> {
        let subject = self.subject()?;
        let compiling = Instant::now();
        let compiled = self.compile(query)?;
        let planning = compiling.elapsed();
        if !compiled.explain {
            subject.check_statement(compiled.required)?;
        }
        let mut values = Vec::with_capacity(compiled.params.len());
        let mut missing = Vec::new();
        for name in &compiled.params {
            match params.get(name) {
                Some(v) => values.push(v.clone()),
                None => missing.push(format!("${name}")),
            }
        }
        if !missing.is_empty() {
            return Err(Error::ParameterMissing(missing.join(", ")));
        }
        if compiled.writes && self.opts.mode == AccessMode::Read && !compiled.explain {
            return Err(crate::exec::read_only_error());
        }
        if compiled.writes
            && !compiled.explain
            && self
                .shared
                .read_only
                .load(std::sync::atomic::Ordering::Acquire)
        {
            return Err(Error::request(
                quiver_status::Status::ForbiddenOnReadOnlyDatabase,
                format!(
                    "The database {} is read-only: writing or modifying it is not allowed \
                     (ALTER DATABASE ... SET ACCESS READ WRITE allows it again)",
                    self.shared.names().name
                ),
            ));
        }
        // Its batches commit on their own, which in an explicit transaction would commit what
        // the client may still roll back; Neo4j refuses it there the same way, with the code
        // and message tools (LangChain's vector store, Neo4j's own) read to send the query
        // again in an auto-commit transaction.
        if !self.opts.auto_commit && !compiled.explain && compiled.commits_batches() {
            return Err(Error::request(
                quiver_status::Status::ExecutionFailed,
                "A query with 'CALL { ... } IN TRANSACTIONS' can only be executed in an implicit transaction, but tried to execute in an explicit transaction.",
            ));
        }
        let limit = match (self.opts.timeout, self.shared.config.query_time_max) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let started = Instant::now();
        let fctx = FunctionContext::at(
            quiver_value::temporal::Instant::now(),
            self.fctx_tx,
            TimeZone::Offset(0),
        );
        let mut cx = Cx::new(
            self.stx.clone(),
            values,
            fctx,
            self.shared.clone(),
            self.cancel.clone(),
            limit.map(|l| started + l),
            limit.map_or(0, |l| u64::try_from(l.as_millis()).unwrap_or(u64::MAX)),
        );
        cx.tx_id = self.id;
        cx.writes = self.writes.clone();
        cx.set_subject(Arc::new(subject));
        cx.audit = self.audit.clone();
        cx.count_params()?;
        if compiled.profile {
            cx.profile = Some(vec![
                OperatorProfile::default();
                compiled.root.id_bound() + 1
            ]);
        }
        let cursor = if compiled.explain {
            None
        } else {
            Some(exec::build(&compiled.root, &cx)?)
        };
        let id = QueryId(self.next_query);
        self.next_query += 1;
        self.shared
            .set_query(self.id, Some(compiled.redacted.as_deref().unwrap_or(query)));
        self.queries.push(OpenQuery {
            id,
            row: vec![Value::Null; compiled.slots],
            compiled,
            cursor,
            cx,
            started,
            first_row: None,
            returned: 0,
            waiting_since: None,
            ahead: VecDeque::new(),
            planning,
            cpu: Duration::ZERO,
        });
        Ok(id)
    }

    /// Whether query `at` may wait out a conflict and begin the transaction again: it is the
    /// transaction's first and only query, in write mode, and has returned no row. Nothing the
    /// client has seen then depends on the snapshot, so beginning again at a newer one is the
    /// same as having begun later. A query whose batches commit on their own (`CALL { } IN
    /// TRANSACTIONS`) never may: the batches it committed would run twice.
    fn may_begin_again(&self, at: usize) -> bool {
        self.opts.mode == AccessMode::Write
            && self.next_query == 1
            && self.queries.len() == 1
            && self
                .queries
                .get(at)
                .is_some_and(|q| q.returned == 0 && !q.compiled.commits_batches())
    }

    /// Query `at` met a change of another transaction to entity `id`. Gives up every change of
    /// this transaction (so it holds nothing while it waits), waits for the holder to end
    /// within the lock wait, and begins the transaction again at a fresh snapshot with the
    /// query ready to run from the start. A conflict with a change committed after this
    /// snapshot begins again at once. The error names the conflict when it cannot.
    fn wait_and_begin_again(
        &mut self,
        at: usize,
        kind: quiver_storage::EntityKind,
        id: u64,
    ) -> Result<()> {
        let lock_wait = self.shared.config.lock_wait_max;
        let holder = self.stx.conflicting_writer(kind, id);
        if lock_wait.is_zero() || !self.may_begin_again(at) {
            return Err(match holder {
                Some(_) if lock_wait.is_zero() => Error::LockHeld {
                    kind,
                    id,
                    waited: LockWaited::Off,
                },
                Some(_) => Error::LockHeld {
                    kind,
                    id,
                    waited: LockWaited::ResultsReturned,
                },
                None => Error::Outdated { kind, id },
            });
        }
        let q = &mut self.queries[at];
        let since = *q.waiting_since.get_or_insert_with(Instant::now);
        let mut deadline = since + lock_wait;
        if let Some(limit) = q.cx.deadline {
            deadline = deadline.min(limit);
        }
        let _ = self.stx.rollback();
        if let Some(mut holder) = holder {
            // When the holder ends, every waiter wakes and one of them takes the entity first:
            // the others look again and wait for that one, instead of each beginning again
            // only to meet it (a herd of restarts per commit).
            loop {
                let ended = wait_for(&holder, deadline, &self.cancel);
                if self.cancel.load(Ordering::Relaxed) {
                    return Err(Error::Terminated(
                        "the transaction was terminated while it waited for another".to_owned(),
                    ));
                }
                if !ended {
                    return Err(Error::LockHeld {
                        kind,
                        id,
                        waited: LockWaited::TimedOut {
                            waited_ms: u64::try_from(since.elapsed().as_millis())
                                .unwrap_or(u64::MAX),
                        },
                    });
                }
                match self.stx.conflicting_writer(kind, id) {
                    Some(next) => holder = next,
                    None => break,
                }
            }
        } else if Instant::now() >= deadline {
            // Every new snapshot met a newer commit again: the lock wait bounds that too.
            return Err(Error::Outdated { kind, id });
        }
        self.begin_again(at)
    }

    /// Replaces the (rolled back) storage transaction with a new one at a fresh snapshot and
    /// rebuilds query `at` over it, keeping its id, parameters, limits and wait clock.
    fn begin_again(&mut self, at: usize) -> Result<()> {
        let storage = self.shared.storage();
        let stx = storage.begin_write();
        if !self.opts.auto_commit {
            stx.check_statements();
        }
        if self.opts.auto_commit && Self::runs_ahead(&self.queries[at].compiled) {
            stx.check_statements();
        }
        self.stx = Arc::new(stx);
        self.shared.note_begun_again();
        let q = &mut self.queries[at];
        let params = std::mem::take(&mut q.cx.params);
        let mut cx = Cx::new(
            self.stx.clone(),
            params,
            q.cx.fctx.clone(),
            self.shared.clone(),
            self.cancel.clone(),
            q.cx.deadline,
            q.cx.time_limit_ms,
        );
        cx.tx_id = self.id;
        cx.writes = self.writes.clone();
        cx.set_subject(q.cx.subject.clone());
        cx.audit = self.audit.clone();
        if q.compiled.profile {
            cx.profile = Some(vec![
                OperatorProfile::default();
                q.compiled.root.id_bound() + 1
            ]);
        }
        // The old cursors go first: they give back the memory they were counted for.
        q.cursor = None;
        q.cx = cx;
        // The rolled back writes, the old context's last ones among them, are gone.
        self.writes.clear(&self.shared.memory);
        q.cx.count_params()?;
        q.cursor = Some(exec::build(&q.compiled.root, &q.cx)?);
        q.row = vec![Value::Null; q.compiled.slots];
        q.first_row = None;
        Ok(())
    }

    /// Runs query `at` for up to `n` rows like [`Transaction::advance`], waiting out and
    /// naming write conflicts (see [`crate::EngineConfig::lock_wait_max`]).
    fn advance_waiting(
        &mut self,
        at: usize,
        n: i64,
        mut out: Option<&mut Vec<Vec<Value>>>,
    ) -> Result<bool> {
        loop {
            match self.advance(at, n, out.as_deref_mut()) {
                Err(Error::Storage(quiver_storage::Error::WriteConflict { kind, id })) => {
                    self.wait_and_begin_again(at, kind, id)?;
                }
                other => return other,
            }
        }
    }

    /// The column names of an open query.
    pub fn fields(&self, q: QueryId) -> &[Arc<str>] {
        self.queries
            .iter()
            .find(|o| o.id == q)
            .map_or(&[], |o| &o.compiled.columns)
    }

    fn position(&self, q: QueryId) -> Result<usize> {
        self.queries.iter().position(|o| o.id == q).ok_or_else(|| {
            Error::request(
                code::REQUEST_INVALID,
                format!("No open query with id {}", q.0),
            )
        })
    }

    /// Fetches up to `n` rows (`-1`: all) of a query into `out`, materialised for the client.
    pub fn pull(&mut self, q: QueryId, n: i64, out: &mut Vec<Vec<Value>>) -> Result<PullState> {
        self.check_usable()?;
        let at = self.position(q)?;
        let cpu = self.cpu_clock();
        let result = self.advance_waiting(at, n, Some(out));
        self.count_cpu(at, cpu);
        self.finish_step(at, result)
    }

    /// The thread's CPU clock now, when the database measures queries' CPU time.
    fn cpu_clock(&self) -> Option<Duration> {
        self.shared
            .config
            .track_query_cpu_time
            .then(thread_cpu_time)
    }

    /// Adds the CPU time since `since` (from [`Transaction::cpu_clock`]) to query `at`.
    fn count_cpu(&mut self, at: usize, since: Option<Duration>) {
        if let (Some(since), Some(q)) = (since, self.queries.get_mut(at)) {
            q.cpu += thread_cpu_time().saturating_sub(since);
        }
    }

    /// Skips up to `n` rows (`-1`: all). Updates of a writing query are always carried out in
    /// full; a reading query is simply closed when everything is discarded.
    pub fn discard(&mut self, q: QueryId, n: i64) -> Result<PullState> {
        self.check_usable()?;
        let at = self.position(q)?;
        let cpu = self.cpu_clock();
        let result = if self.queries[at].compiled.writes {
            self.advance_waiting(at, -1, None)
        } else if n < 0 {
            Ok(true)
        } else {
            self.advance_waiting(at, n, None)
        };
        self.count_cpu(at, cpu);
        self.finish_step(at, result)
    }

    /// Runs query `at` for up to `n` rows; `Ok(true)` when it is exhausted.
    ///
    /// The rows handed out, materialised, are counted against the query's memory while the
    /// pull builds them: a pull of everything holds every row at once (an HTTP statement, an
    /// embedded `execute`), and a slice of a few rows of huge values holds them all the same.
    /// The caller owns them once the pull returns, so they are given back then.
    fn advance(
        &mut self,
        at: usize,
        n: i64,
        mut out: Option<&mut Vec<Vec<Value>>>,
    ) -> Result<bool> {
        let q = &mut self.queries[at];
        let Some(cursor) = q.cursor.as_mut() else {
            return Ok(Self::hand_ahead(q, n, out));
        };
        let _execute = quiver_telemetry::step("execute");
        // A query without columns yields no records: run it to the end in one go.
        let rowless = q.compiled.columns.is_empty();
        let mut produced: i64 = 0;
        let mut handed_bytes = 0;
        let result = (|| {
            while n < 0 || rowless || produced < n {
                q.cx.check()?;
                if !cursor.next(&mut q.cx, &mut q.row)? {
                    return Ok(true);
                }
                if q.first_row.is_none() {
                    q.first_row = Some(q.started.elapsed());
                }
                produced += 1;
                if rowless {
                    continue;
                }
                if let Some(out) = out.as_deref_mut() {
                    q.returned += 1;
                    let values: Vec<Value> = q
                        .compiled
                        .out_slots
                        .iter()
                        .map(|s| {
                            materialize(q.row.get(*s).cloned().unwrap_or(Value::Null), &q.cx.tx)
                        })
                        .collect();
                    let bytes = row_bytes(&values);
                    out.push(values);
                    handed_bytes += bytes;
                    q.cx.reserve(bytes, "the rows being returned")?;
                }
            }
            Ok(false)
        })();
        q.cx.release(handed_bytes);
        result
    }

    fn finish_step(&mut self, at: usize, result: Result<bool>) -> Result<PullState> {
        match result {
            Ok(false) => Ok(PullState::HasMore),
            Ok(true) => {
                if !self.opts.auto_commit
                    && self.queries[at].compiled.writes
                    && let Err(e) = self.stx.check_statement()
                {
                    let e = Error::from(e);
                    self.fail(&e);
                    return Err(e);
                }
                let q = self.queries.remove(at);
                if !q.cx.tx.is_same_transaction(&self.stx) {
                    // `CALL { } IN TRANSACTIONS` moved the query on to a transaction at a
                    // snapshot after its batches; the one it began in wrote nothing.
                    let began = std::mem::replace(&mut self.stx, q.cx.tx.unrestricted());
                    let _ = began.rollback();
                }
                let mut summary = summary(q, self.shared.config.track_query_cpu_time);
                if self.queries.is_empty() {
                    self.shared.set_query(self.id, None);
                }
                if self.opts.auto_commit {
                    match self.commit_inner() {
                        Ok(info) => {
                            summary.commit = Some(info.clone());
                            self.committed = Some(info);
                        }
                        Err(e) => {
                            self.fail(&e);
                            return Err(e);
                        }
                    }
                }
                Ok(PullState::Done(Box::new(summary)))
            }
            Err(e) => {
                self.fail(&e);
                Err(e)
            }
        }
    }
}

/// Compiles a query over `stx` (or takes it from the plan cache): a transaction's own queries
/// and the statements procedures run inside them.
pub(crate) fn compile(
    shared: &DatabaseState,
    stx: &StorageTx,
    query: &str,
) -> Result<Arc<Compiled>> {
    let epoch = shared.epoch();
    let nodes = stx.count_nodes().unwrap_or(0);
    if let Some(plan) = shared.cache.lock().get(query, epoch, nodes) {
        return Ok(plan);
    }
    let options = quiver_cypher::ParseOptions {
        parse_depth_max: shared.config.parse_depth_max,
        query_bytes_max: shared.config.query_bytes_max,
    };
    let procedures = shared.procedures();
    let (stmt, analysis) = {
        let _parse = quiver_telemetry::step("parse");
        let stmt = quiver_cypher::parse_with(query, &options)?;
        let analyze = quiver_cypher::AnalyzeOptions {
            functions: &crate::apoc::Functions,
            procedures: Some(&*procedures),
        };
        let analysis = quiver_cypher::analyze_with(&stmt, query, &analyze)?;
        (stmt, analysis)
    };
    let _plan = quiver_telemetry::step("plan");
    let compiled = Arc::new(plan::compile(
        &stmt,
        &analysis,
        query,
        stx,
        &procedures,
        shared,
    )?);
    // An administration command's text may hold a password: it is not kept as a cache key.
    if compiled.redacted.is_none() {
        shared
            .cache
            .lock()
            .insert(query, epoch, nodes, compiled.clone());
    }
    Ok(compiled)
}

/// The calling thread's CPU time (user and system) so far.
fn thread_cpu_time() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(now.tv_sec).unwrap_or(0),
        u32::try_from(now.tv_nsec).unwrap_or(0),
    )
}

fn summary(q: OpenQuery, track_cpu: bool) -> QuerySummary {
    let plan = if q.compiled.explain || q.compiled.profile {
        Some(plan::describe_query(
            &q.compiled.root,
            &q.compiled.columns,
            q.cx.profile.as_deref(),
        ))
    } else {
        None
    };
    let elapsed = q.started.elapsed();
    let first = q.first_row.unwrap_or(elapsed);
    QuerySummary {
        stats: q.cx.counters,
        query_type: q.compiled.query_type,
        plan,
        notifications: q.compiled.notifications.clone(),
        commit: None,
        t_first: first,
        t_last: elapsed.saturating_sub(first),
        figures: crate::QueryFigures {
            planning: q.planning,
            cpu: track_cpu.then_some(q.cpu),
            memory_peak_bytes: q.cx.memory_peak_bytes as u64,
        },
    }
}

impl Transaction {
    /// Finishes open queries (running writing ones to completion) and commits.
    fn commit_inner(&mut self) -> Result<CommitInfo> {
        while let Some(q) = self.queries.first() {
            if q.compiled.writes {
                self.advance_waiting(0, -1, None)?;
            }
            self.queries.remove(0);
        }
        // A user dropped or suspended while the transaction was open commits nothing.
        if self.stx.is_write()
            && let Err(e) = self.subject()
        {
            let _ = self.stx.rollback();
            self.writes.clear(&self.shared.memory);
            return Err(e);
        }
        if self.stx.is_write() && self.shared.storage().capture() != quiver_storage::Capture::Off {
            self.stx
                .set_change_context(self.shared.change_context(self.id));
        }
        let committed = if quiver_telemetry::steps_traced() && self.stx.has_changes() {
            // A span: a cluster's Raft round for the changes is traced below it.
            let _commit = step_span!("commit");
            self.stx.commit()
        } else {
            // Nothing is logged, so nothing is traced below it: a leaf step (or nothing at
            // all when the query is not traced).
            let _commit = quiver_telemetry::step("commit");
            self.stx.commit()
        };
        // Committed, the writes are the store's; refused, they are undone: either way the
        // transaction no longer holds them.
        self.writes.clear(&self.shared.memory);
        let info = committed.map_err(|error| self.refused_commit(error))?;
        let events = std::mem::take(&mut *self.audit.lock());
        self.shared.audit(events);
        // A write transaction that wrote nothing still read at the newest commit, which the
        // log may not have acknowledged yet: its results wait for that commit.
        let ticket = info.ticket.or_else(|| self.read_horizon());
        Ok(CommitInfo::new(info.commit, ticket))
    }

    /// A commit the cluster's log refused because this member no longer leads (it is handing
    /// leadership over, or lost it while the transaction ran) is answered `NotALeader`: nothing
    /// was committed, and drivers answer that code by finding the new leader and retrying.
    fn refused_commit(&self, error: quiver_storage::Error) -> Error {
        if matches!(error, quiver_storage::Error::CommitLog(_))
            && let Some(reason) = self.shared.not_leader()
        {
            return Error::request(quiver_status::Status::NotALeader, reason);
        }
        error.into()
    }

    /// The ticket rows read so far must wait for before they leave the server: a write
    /// transaction reads at the newest commit, which the log may not have acknowledged yet.
    /// `None` for a read transaction (it reads only acknowledged commits), without a log, or
    /// at commit 0 (the empty store, acknowledged by definition).
    pub fn read_horizon(&self) -> Option<DurabilityTicket> {
        let snapshot = self.stx.snapshot();
        (self.shared.log.is_some() && self.stx.is_write() && snapshot > 0)
            .then_some(DurabilityTicket(snapshot))
    }

    /// Commits, and returns once the commit is acknowledged (on disk in the `group` and
    /// `sync` modes): what an embedding program wants. An auto-commit transaction that
    /// already committed reports that commit, acknowledged.
    pub fn commit(self) -> Result<CommitInfo> {
        let shared = Arc::clone(&self.shared);
        let info = self.commit_unacknowledged()?;
        if let (Some(log), Some(ticket)) = (&shared.log, info.ticket) {
            let _wait = step_span!("durable wait");
            log.wait(ticket).map_err(Error::not_acknowledged)?;
        }
        Ok(info)
    }

    /// Commits and returns as soon as the commit is in memory and its record with the log,
    /// without waiting for the acknowledgement: the caller awaits
    /// [`crate::Database::durable`] for [`CommitInfo::ticket`] before telling anyone (a server
    /// does, so its runtime threads never block on a disk). An auto-commit transaction that
    /// already committed reports that commit.
    pub fn commit_unacknowledged(mut self) -> Result<CommitInfo> {
        if let Some(info) = self.committed.clone() {
            return Ok(info);
        }
        if let Some(why) = &self.failed {
            return Err(Error::request(
                code::TX_FAILED,
                format!("The transaction has failed and was rolled back: {why}"),
            ));
        }
        match self.commit_inner() {
            Ok(info) => {
                self.committed = Some(info.clone());
                Ok(info)
            }
            Err(e) => {
                self.fail(&e);
                Err(e)
            }
        }
    }

    /// Rolls back; a failed transaction rolls back without complaint.
    pub fn rollback(mut self) -> Result<()> {
        self.queries.clear();
        self.writes.clear(&self.shared.memory);
        if self.committed.is_some() || self.failed.is_some() {
            return Ok(());
        }
        match self.stx.rollback() {
            Ok(()) | Err(quiver_storage::Error::TransactionClosed) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// Whether a query failed and the transaction must be rolled back.
    pub fn is_failed(&self) -> bool {
        self.failed.is_some()
    }
}

impl Drop for Transaction {
    fn drop(&mut self) {
        self.queries.clear();
        self.writes.clear(&self.shared.memory);
        self.shared.unregister_tx(self.id);
    }
}

/// Blocks until `holder` ends, `deadline` passes or the transaction is cancelled; returns
/// whether the holder ended. The wait runs through the embedder's blocking hook
/// ([`crate::blocking`]): on a runtime worker thread the worker's other connections (the
/// holder's among them) go on; the query pool's threads and an embedding program's threads
/// simply block. The cancel flag is
/// looked at every [`CANCEL_CHECK`].
fn wait_for(holder: &quiver_storage::WriterWait, deadline: Instant, cancel: &AtomicBool) -> bool {
    let wait = || loop {
        if cancel.load(Ordering::Relaxed) {
            return holder.has_ended();
        }
        let slice = deadline.min(Instant::now() + CANCEL_CHECK);
        if holder.wait_until(slice) {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
    };
    crate::blocking::blocking(wait)
}

/// How often a transaction waiting for another looks whether it was cancelled.
const CANCEL_CHECK: Duration = Duration::from_millis(50);
