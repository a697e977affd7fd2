//! What the server's configuration means to the HTTP API and the engine, and the adaptor that
//! counts the HTTP API's transactions in the server's metrics.

use std::sync::Arc;
use std::time::Duration;

use quiver_engine::EngineConfig;
use quiver_http::{ApiConfig, EndedStatement, Telemetry};
use quiver_server::config::{self, Config};
use quiver_server::metrics::Metrics;
use quiver_server::query_log::{FinishedQuery, Protocol, QueryLog};

/// Forwards the HTTP API's transaction events to the server's counters, so `/metrics` and
/// `/stats` count HTTP transactions beside Bolt ones, and its statements to the query log.
#[derive(Debug)]
pub struct ServerTelemetry {
    pub metrics: Arc<Metrics>,
    pub query_log: Option<Arc<QueryLog>>,
}

impl ServerTelemetry {
    /// Counts into `metrics`, with no query log.
    pub fn counting(metrics: Arc<Metrics>) -> ServerTelemetry {
        ServerTelemetry {
            metrics,
            query_log: None,
        }
    }
}

impl Telemetry for ServerTelemetry {
    fn transaction_opened(&self) {
        self.metrics.transactions.opened.inc();
        self.metrics.transactions.active.inc();
    }
    fn transaction_committed(&self) {
        self.metrics.transactions.committed.inc();
        self.metrics.transactions.active.dec();
    }
    fn transaction_rolled_back(&self) {
        self.metrics.transactions.rolled_back.inc();
        self.metrics.transactions.active.dec();
    }
    fn transaction_abandoned(&self) {
        self.metrics.transactions.abandoned.inc();
    }
    fn transaction_idle_timed_out(&self) {
        self.metrics.transactions.idle_timed_out.inc();
    }
    fn query_finished(&self, elapsed: Duration) {
        self.metrics.query_latency.observe(elapsed);
    }
    fn keeps_statements(&self) -> bool {
        self.query_log.is_some()
    }
    fn keeps_parameters(&self) -> bool {
        self.query_log
            .as_ref()
            .is_some_and(|log| log.wants_parameters())
    }
    fn statement_ended(&self, statement: EndedStatement) {
        let Some(log) = &self.query_log else {
            return;
        };
        log.finished(FinishedQuery {
            protocol: Protocol::Http,
            started: statement.started,
            elapsed: statement.elapsed,
            waiting: None,
            rows: statement.rows,
            text: statement.text,
            parameters: statement.parameters,
            user: statement.user,
            client: statement.client,
            database: Arc::from(quiver_server::routing::DATABASE),
            transaction_id: statement.transaction_id,
            metadata: statement.metadata,
            failure: statement.failure,
            figures: statement.figures,
        });
    }
}

/// The HTTP API's settings from the server's: the same bookmark wait as Bolt, and the same
/// query placement policy (`pool` keeps every statement off the connection's task, `inline`
/// measures both protocols without the hand-off).
pub fn api_config(config: &Config) -> ApiConfig {
    ApiConfig {
        bolt_port: config.bolt_listen.port(),
        bolt_tls_required: config
            .tls
            .as_ref()
            .is_some_and(|tls| tls.bolt == config::TlsMode::Required),
        http_tls_required: config
            .tls
            .as_ref()
            .is_some_and(|tls| tls.http == config::TlsMode::Required),
        bookmark_wait: config.timeouts.bookmark,
        placement: config.query.placement,
        // The same idle-transaction timeout as Bolt; "never" is a week, the longest timeout.
        transaction_idle_timeout: config
            .timeouts
            .idle_transaction
            .unwrap_or(Duration::from_millis(config::TIMEOUT_MS_LIMIT)),
        transaction_timeout: config.timeouts.transaction,
        open_transactions_per_user_max: config.limits.http_transactions_per_user_max as usize,
        open_transactions_per_address_max: config.limits.http_transactions_per_address_max as usize,
        auth_enabled: config.auth.enabled,
        trace: config.tracing.as_ref().map(quiver_telemetry::Policy::new),
        // The version the Bolt agent and `dbms.components()` announce, from their one source.
        neo4j_version: quiver_server::procedures::neo4j_version().to_owned(),
        ..ApiConfig::default()
    }
}

/// The engine's limits from the server's configuration.
pub fn engine_config(config: &Config) -> EngineConfig {
    EngineConfig {
        query_memory_bytes_max: config.query.memory_bytes_max,
        query_memory_total_bytes_max: config.query.memory_total_bytes_max,
        plan_cache_bytes_max: config.query.plan_cache_bytes_max,
        lock_wait_max: config.query.lock_wait,
        track_query_cpu_time: config.query.track_cpu_time,
        query_workers_max: config.query.workers_max,
        import_dir: config.import_dir.clone(),
        ..EngineConfig::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quiver_server::config::Layer;

    fn configured(tweak: impl FnOnce(&mut Layer)) -> Config {
        let mut layer = Layer {
            bolt_listen: Some("127.0.0.1:7699".parse().expect("address")),
            http_listen: Some("127.0.0.1:0".parse().expect("address")),
            in_memory: Some(true),
            ..Layer::default()
        };
        tweak(&mut layer);
        Config::from_layer(layer).expect("a valid configuration")
    }

    #[test]
    fn the_http_api_announces_the_bolt_port_it_is_served_beside() {
        assert_eq!(api_config(&configured(|_| {})).bolt_port, 7699);
    }

    #[test]
    fn the_http_api_waits_for_bookmarks_as_long_as_bolt_does() {
        let config = configured(|layer| layer.bookmark_timeout_ms = Some(1_234));
        assert_eq!(
            api_config(&config).bookmark_wait,
            Duration::from_millis(1_234)
        );
    }

    #[test]
    fn an_http_transaction_opened_and_committed_is_counted_and_no_longer_active() {
        let metrics = Arc::new(Metrics::new());
        let telemetry = ServerTelemetry::counting(Arc::clone(&metrics));
        telemetry.transaction_opened();
        telemetry.transaction_committed();
        let counted = metrics.snapshot().transactions;
        assert_eq!((counted.opened_total, counted.committed_total), (1, 1));
        assert_eq!(counted.active, 0);
    }
}
