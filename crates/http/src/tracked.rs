//! Engine transactions that report their outcome, and the observer they report to.
//!
//! The server's metrics registry lives above this crate, so the HTTP API reports through the
//! [`Telemetry`] trait and the binary forwards to its counters. Every transaction reported as
//! opened is reported exactly once as committed or rolled back — also when it is dropped
//! unfinished (a panic, a client gone) — which keeps an "active" gauge derived from these
//! calls exact.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use quiver_engine::{CancelHandle, CommitInfo, Transaction};
use quiver_value::Map;

/// Receives the HTTP API's transaction and query events. Every method has a no-op default.
pub trait Telemetry: Send + Sync {
    /// An engine transaction began (explicit or implicit).
    fn transaction_opened(&self) {}
    fn transaction_committed(&self) {}
    /// Rolled back for any reason, abandoned ones included.
    fn transaction_rolled_back(&self) {}
    /// Also rolled back, because its client went away or let it idle past its deadline; always
    /// reported after [`Telemetry::transaction_rolled_back`].
    fn transaction_abandoned(&self) {}
    /// Also abandoned, because no request came for it within the idle timeout; reported after
    /// [`Telemetry::transaction_abandoned`].
    fn transaction_idle_timed_out(&self) {}
    /// A statement finished (successfully or not) after `elapsed` from its start.
    fn query_finished(&self, _elapsed: Duration) {}
    /// Whether statements that end are described to [`Telemetry::statement_ended`] (a query
    /// log takes them); without it their text is not kept.
    fn keeps_statements(&self) -> bool {
        false
    }
    /// Whether the descriptions carry the statements' parameters.
    fn keeps_parameters(&self) -> bool {
        false
    }
    /// A statement ended, described for a query log; reported after
    /// [`Telemetry::query_finished`], when [`Telemetry::keeps_statements`].
    fn statement_ended(&self, _statement: EndedStatement) {}
}

/// A statement that ended, as a query log writes it.
#[derive(Debug, Clone)]
pub struct EndedStatement {
    pub text: Arc<str>,
    /// When [`Telemetry::keeps_parameters`].
    pub parameters: Option<Map>,
    /// When it arrived, by the clock.
    pub started: SystemTime,
    pub elapsed: Duration,
    /// Records written.
    pub rows: u64,
    /// The user, client and metadata of its transaction.
    pub user: Option<Arc<str>>,
    pub client: Option<SocketAddr>,
    pub metadata: Map,
    /// `SHOW TRANSACTIONS`'s id of its transaction.
    pub transaction_id: Option<String>,
    /// Its status code and message, when it failed.
    pub failure: Option<String>,
    /// Its planning time, CPU time and memory, when it ran to its end.
    pub figures: Option<quiver_engine::QueryFigures>,
}

/// Ignores every event.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTelemetry;

impl Telemetry for NoTelemetry {}

/// The caller's W3C trace context, from a request's `traceparent` and `tracestate` headers.
#[derive(Debug, Clone, Default)]
pub struct TraceCaller {
    pub traceparent: Option<String>,
    pub tracestate: Option<String>,
}

impl TraceCaller {
    pub fn of(headers: &http::HeaderMap) -> TraceCaller {
        let text = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        TraceCaller {
            traceparent: text("traceparent"),
            tracestate: text("tracestate"),
        }
    }
}

/// The span of a statement `text` run in `transaction` (a transaction's span) on the API's
/// database; disabled when tracing is off or the transaction is not traced.
pub(crate) fn statement_span(
    config: &crate::ApiConfig,
    transaction: &tracing::Span,
    text: &str,
) -> tracing::Span {
    match &config.trace {
        Some(policy) => policy.query_span(
            transaction,
            &config.database_name,
            text,
            quiver_engine::catalog::first_keyword,
        ),
        None => tracing::Span::none(),
    }
}

/// A transaction that reports its end to [`Telemetry`].
pub struct TrackedTx {
    tx: Option<Transaction>,
    telemetry: Arc<dyn Telemetry>,
    /// Its span, when it is traced (else disabled).
    span: tracing::Span,
}

impl TrackedTx {
    pub fn new(tx: Transaction, telemetry: Arc<dyn Telemetry>) -> TrackedTx {
        telemetry.transaction_opened();
        TrackedTx {
            tx: Some(tx),
            telemetry,
            span: tracing::Span::none(),
        }
    }

    /// Gives the transaction its span when `policy` traces it (the caller's context
    /// continued); `options` are those it began with, on database `database`.
    pub fn traced(
        mut self,
        policy: Option<&quiver_telemetry::Policy>,
        database: &str,
        options: &quiver_engine::TxOptions,
        caller: &TraceCaller,
    ) -> TrackedTx {
        let (Some(policy), Some(tx)) = (policy, self.tx.as_ref()) else {
            return self;
        };
        let Some(sampled) =
            policy.sample(caller.traceparent.as_deref(), caller.tracestate.as_deref())
        else {
            return self;
        };
        let id = tx.id();
        self.span = sampled.transaction_span(&quiver_telemetry::TransactionAbout {
            protocol: "http",
            database,
            id: &id,
            user: options.user.as_deref(),
            client: options.client,
            metadata: Vec::new(),
        });
        self
    }

    /// Its span (disabled when it is not traced).
    pub fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// The transaction; `None` only after `commit`/`rollback`, which consume `self`.
    pub fn get(&mut self) -> Option<&mut Transaction> {
        self.tx.as_mut()
    }

    pub fn cancel_handle(&self) -> Option<CancelHandle> {
        self.tx.as_ref().map(Transaction::cancel_handle)
    }

    pub fn commit(mut self) -> Result<CommitInfo, quiver_engine::Error> {
        let Some(tx) = self.tx.take() else {
            return Err(quiver_engine::Error::Terminated(
                "the transaction is already closed".to_owned(),
            ));
        };
        // The acknowledgement is the caller's to wait for (and to report as it must).
        let outcome = self.span.in_scope(|| tx.commit_unacknowledged());
        match &outcome {
            Ok(_) => self.telemetry.transaction_committed(),
            Err(_) => self.telemetry.transaction_rolled_back(),
        }
        outcome
    }

    pub fn rollback(mut self) {
        self.finish_rollback();
    }

    /// Rolls back and reports the transaction as abandoned.
    pub fn abandon(mut self) {
        self.finish_rollback();
        self.telemetry.transaction_abandoned();
    }

    /// Rolls back and reports the transaction as abandoned for idling past its timeout.
    pub fn expire_idle(self) {
        let telemetry = Arc::clone(&self.telemetry);
        self.abandon();
        telemetry.transaction_idle_timed_out();
    }

    fn finish_rollback(&mut self) {
        if let Some(tx) = self.tx.take() {
            if let Err(error) = tx.rollback() {
                tracing::warn!(%error, "rolling back an HTTP transaction failed");
            }
            self.telemetry.transaction_rolled_back();
        }
    }
}

impl Drop for TrackedTx {
    fn drop(&mut self) {
        self.finish_rollback();
    }
}
