//! The transaction a Bolt session has open, its result streams, and its place in the counters.
//!
//! Every transaction counted as opened is counted exactly once as committed or rolled back
//! (abandoned ones also as abandoned), and leaves the active gauge exactly once, also when it is
//! dropped unfinished by a panic: the gauge stays exact.

use quiver_status::Status;
use std::sync::Arc;
use std::time::Duration;

use quiver_engine::{CancelHandle, CommitInfo, DurabilityTicket, QueryId, Transaction, TxOptions};
use quiver_placement::TextKey;
use tokio::time::Instant;

use crate::metrics::Metrics;

/// How a transaction ended, for the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    Committed,
    RolledBack,
    /// Rolled back because its client went away or the server stopped.
    Abandoned,
}

/// One open result stream.
#[derive(Debug)]
pub(super) struct Stream {
    /// Bolt's qid inside an explicit transaction; `None` for the auto-commit stream.
    pub qid: Option<i64>,
    pub query: QueryId,
    pub key: TextKey,
    /// When its RUN arrived: the query latency histogram counts from here.
    pub started: Instant,
    /// Records sent so far.
    pub records: u64,
    /// The result has columns (a query without any yields no records at all).
    pub has_columns: bool,
    pub logged: Logged,
    /// Its span (disabled when its transaction is not traced).
    pub span: tracing::Span,
}

/// What the query log writes of a query beside its figures.
#[derive(Debug)]
pub(super) struct Logged {
    /// Its text; `None` when there is no query log.
    pub text: Option<Arc<str>>,
    /// When its RUN arrived, by the clock.
    pub arrived_at: std::time::SystemTime,
    /// The wait for its bookmarks before it ran (auto-commit only).
    pub waiting: Option<Duration>,
    /// Its parameters, when the log takes them.
    pub parameters: Option<quiver_value::Map>,
}

/// Who runs a transaction, as the query log names them.
#[derive(Debug)]
pub(super) struct TxAbout {
    /// `SHOW TRANSACTIONS`'s id.
    pub id: String,
    pub user: Option<Arc<str>>,
    pub client: Option<std::net::SocketAddr>,
    pub metadata: quiver_value::Map,
    /// The database it runs on.
    pub database: Arc<str>,
}

pub(super) struct OpenTx {
    /// `None` once committed or rolled back (or expired).
    tx: Option<Transaction>,
    pub auto_commit: bool,
    pub streams: Vec<Stream>,
    cancel: CancelHandle,
    /// `tx_timeout`, or the server's default: the transaction is terminated at this instant.
    deadline: Option<Instant>,
    pub timeout: Option<Duration>,
    /// The timeout is the server's default (`--transaction-timeout-ms`), not the client's.
    timeout_by_server: bool,
    /// The deadline passed and the engine transaction was rolled back.
    pub expired: bool,
    /// Rolled back because the client sent nothing for the idle-transaction timeout (set with
    /// `expired`).
    pub idle_expired: Option<Duration>,
    /// Results of a write transaction may leave only once this ticket is acknowledged (the
    /// commit it reads at; `None`: nothing to wait for).
    pub horizon: Option<DurabilityTicket>,
    /// Some step of it ran long: its commit and rollback run on the query pool.
    pub heavy: bool,
    /// Opened in write mode while writes are refused (the status and the words the client is
    /// shown: `NotALeader` on a cluster member that does not lead, else a disk fault): it
    /// reads at the acknowledged point and a write in it fails with that reason.
    pub writes_refused: Option<(Status, String)>,
    pub about: Arc<TxAbout>,
    /// The database it runs on.
    pub graph: Arc<crate::graph::Graph>,
    /// Nothing run yet (on a server with several databases): a first query that begins with
    /// `USE name` moves it to that database, begun again with these options, after the
    /// bookmarks BEGIN gave.
    pub movable: Option<(quiver_engine::TxOptions, Vec<String>)>,
    /// Its span (disabled when it is not traced).
    pub span: tracing::Span,
    metrics: Arc<Metrics>,
    ended: bool,
}

impl std::fmt::Debug for OpenTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenTx")
            .field("auto_commit", &self.auto_commit)
            .field("streams", &self.streams.len())
            .field("expired", &self.expired)
            .finish_non_exhaustive()
    }
}

impl OpenTx {
    /// Begins a transaction and counts it.
    /// Begins a transaction and counts it. `default_timeout` bounds it when the client set no
    /// timeout of its own.
    pub fn begin(
        graph: &Arc<crate::graph::Graph>,
        opts: TxOptions,
        metrics: &Arc<Metrics>,
        default_timeout: Option<Duration>,
    ) -> Result<OpenTx, quiver_engine::Error> {
        let timeout_by_server = opts.timeout.is_none() && default_timeout.is_some();
        let timeout = opts.timeout.or(default_timeout);
        let auto_commit = opts.auto_commit;
        let (user, client, metadata) = (opts.user.clone(), opts.client, opts.metadata.clone());
        let tx = graph.database().begin(opts)?;
        let about = Arc::new(TxAbout {
            id: tx.id(),
            user,
            client,
            metadata,
            database: graph.database().name(),
        });
        let horizon = tx.read_horizon();
        metrics.transactions.opened.inc();
        metrics.transactions.active.inc();
        Ok(OpenTx {
            cancel: tx.cancel_handle(),
            tx: Some(tx),
            auto_commit,
            streams: Vec::new(),
            deadline: timeout.map(|t| Instant::now() + t),
            timeout,
            timeout_by_server,
            expired: false,
            idle_expired: None,
            horizon,
            heavy: false,
            writes_refused: None,
            about,
            graph: Arc::clone(graph),
            movable: None,
            span: tracing::Span::none(),
            metrics: Arc::clone(metrics),
            ended: false,
        })
    }

    /// The engine transaction, while it is open.
    pub fn engine(&mut self) -> Option<&mut Transaction> {
        self.tx.as_mut()
    }

    pub fn cancel_handle(&self) -> &CancelHandle {
        &self.cancel
    }

    /// The timeout's deadline, unless it already passed and was acted on.
    pub fn pending_deadline(&self) -> Option<Instant> {
        self.deadline.filter(|_| !self.expired && self.tx.is_some())
    }

    /// Whether the timeout has passed (acted on or not).
    pub fn is_past_deadline(&self) -> bool {
        self.expired || self.deadline.is_some_and(|at| Instant::now() >= at)
    }

    /// The FAILURE a client gets for a transaction the server ended by a timeout: Neo4j's
    /// `TransactionTimedOutClientConfiguration` when the client set the limit, else
    /// `TransactionTimedOut` naming the server setting. `detail` follows the sentence.
    pub fn timeout_failure(&self, detail: Option<&str>) -> (Status, String) {
        let detail = detail.map_or(String::new(), |d| format!(": {d}"));
        if let Some(idle) = self.idle_expired {
            return (
                Status::TransactionTimedOut,
                format!(
                    "The transaction has been terminated: its client sent nothing for {} ms \
                     while it was open (idle transaction timeout){detail}",
                    idle.as_millis()
                ),
            );
        }
        let ms = self.timeout.map_or(0, |t| t.as_millis());
        if self.timeout_by_server {
            (
                Status::TransactionTimedOut,
                format!(
                    "The transaction has been terminated. Transactions timed out after {ms} ms \
                     (the server's transaction timeout){detail}"
                ),
            )
        } else {
            (
                Status::TransactionTimedOutClientConfiguration,
                format!(
                    "The transaction has been terminated. Transactions timed out after {ms} ms{detail}"
                ),
            )
        }
    }

    pub fn stream_mut(&mut self, qid: Option<i64>) -> Option<&mut Stream> {
        self.streams.iter_mut().find(|s| s.qid == qid)
    }

    /// The span of the open stream of `query`.
    pub fn stream_span(&self, query: QueryId) -> Option<tracing::Span> {
        self.streams
            .iter()
            .find(|s| s.query == query)
            .map(|s| s.span.clone())
    }

    /// The span of this transaction when the server traces it (`policy`): the caller's
    /// `traceparent` in its metadata, or the sampler, decides before anything is made of it.
    pub fn trace(&mut self, policy: &quiver_telemetry::Policy, protocol: &'static str) {
        let about = &self.about;
        let text = |key: &str| about.metadata.get(key).and_then(|v| v.as_str());
        let Some(sampled) = policy.sample(text("traceparent"), text("tracestate")) else {
            return;
        };
        let metadata = about
            .metadata
            .iter()
            .filter(|(key, _)| !matches!(key.as_ref(), "traceparent" | "tracestate"))
            .map(|(key, value)| {
                let value = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                (key.as_ref(), value)
            })
            .collect();
        self.span = sampled.transaction_span(&quiver_telemetry::TransactionAbout {
            protocol,
            database: &about.database,
            id: &about.id,
            user: about.user.as_deref(),
            client: about.client,
            metadata,
        });
    }

    pub fn remove_stream(&mut self, qid: Option<i64>) -> Option<Stream> {
        let at = self.streams.iter().position(|s| s.qid == qid)?;
        Some(self.streams.remove(at))
    }

    /// Commits (the engine runs open writing queries to their end first), without waiting for
    /// the acknowledgement: the session awaits `Database::durable` for the ticket.
    pub fn commit(&mut self) -> Result<CommitInfo, quiver_engine::Error> {
        match self.tx.take() {
            Some(tx) => tx.commit_unacknowledged(),
            None => Err(quiver_engine::Error::Terminated(
                "the transaction is no longer open".to_owned(),
            )),
        }
    }

    /// Rolls the engine transaction back (a no-op once it ended).
    pub fn rollback(&mut self) {
        self.streams.clear();
        if let Some(tx) = self.tx.take()
            && let Err(error) = tx.rollback()
        {
            tracing::warn!(%error, "rolling back a Bolt transaction failed");
        }
    }

    /// Counts how the transaction ended; later calls change nothing.
    pub fn end(&mut self, ending: Ending) {
        if self.ended {
            return;
        }
        self.ended = true;
        let counters = &self.metrics.transactions;
        counters.active.dec();
        match ending {
            Ending::Committed => {
                counters.committed.inc();
            }
            Ending::RolledBack => {
                counters.rolled_back.inc();
                if self.idle_expired.is_some() {
                    counters.idle_timed_out.inc();
                } else if self.expired {
                    counters.timed_out.inc();
                }
            }
            Ending::Abandoned => {
                counters.rolled_back.inc();
                counters.abandoned.inc();
            }
        }
    }
}

impl Drop for OpenTx {
    fn drop(&mut self) {
        // Reached unended only when a panic unwound the session: the engine transaction rolls
        // back as it drops, and the counters must say so.
        self.end(Ending::RolledBack);
    }
}
