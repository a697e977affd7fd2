//! Quiver's counters, in one prometheus-client registry.
//!
//! Every metric is an atomic shared by handle: the hot path does one relaxed add, `/metrics` encodes
//! the registry, and the load lab reads the same atomics as plain numbers through
//! [`Metrics::snapshot`] between its measurement windows.

mod histogram;

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::{Registry, Unit};
use quiver_cluster::Status as MemberStatus;
use quiver_cluster::log_store::Synced;
use quiver_durability::{DurabilityStats, FreeSpace};
use serde::Serialize;

pub use histogram::{HistogramSnapshot, LatencyHistogram};

/// The gauge type of every Quiver gauge.
pub type IntGauge = Gauge<i64, AtomicI64>;

/// Connection counters of one listener (Bolt or HTTP).
#[derive(Clone, Debug, Default)]
pub struct ConnectionMetrics {
    /// Admitted into a slot.
    pub accepted: Counter,
    /// Turned away: past the connection limit (refused with a message or, past the refusal budget,
    /// closed at once), or holding an administrator's slot without being one.
    pub rejected: Counter,
    /// Refusals past the refusal budget: closed without a word.
    pub refusals_dropped: Counter,
    /// Refusals whose reply was written whole.
    pub refusals_written: Counter,
    /// Refusals given up at the refusal deadline before their reply was out (a client that
    /// never sent its opening, or never read).
    pub refusals_timed_out: Counter,
    /// Admitted connections that ended, for any reason.
    pub closed: Counter,
    /// Connection tasks that panicked (each closed that connection alone).
    pub panics: Counter,
    /// Connections closed by a deadline (handshake, idle, header read, body read).
    pub timed_out: Counter,
    /// Admitted connections open now.
    pub active: IntGauge,
    /// Requests (HTTP) or messages (Bolt) being worked on now.
    pub in_flight: IntGauge,
    /// How connections were opened when the listener has TLS on.
    pub tls: TlsMetrics,
    /// Bolt: connections that opened with a WebSocket upgrade (browser drivers).
    pub websocket_upgrades: Counter,
}

/// The opening of connections on a listener with TLS on.
#[derive(Clone, Debug, Default)]
pub struct TlsMetrics {
    /// TLS handshakes completed.
    pub handshakes: Counter,
    /// Plain connections taken on a listener where TLS is optional.
    pub plain: Counter,
    /// Plain connections closed on a listener that requires TLS.
    pub plain_refused: Counter,
    /// Handshakes failed, by reason: the opening deadline passed (a slow or silent client)...
    pub failed_timed_out: Counter,
    /// ...a certificate was refused (the client's by the client CA, or ours by the client)...
    pub failed_certificate: Counter,
    /// ...the client went away...
    pub failed_closed: Counter,
    /// ...not TLS after its first byte, no common version or suite, a broken record...
    pub failed_protocol: Counter,
    /// ...or the server began draining.
    pub failed_shutdown: Counter,
}

impl TlsMetrics {
    /// Registers the counters of `protocol`'s listener; failures are one family labelled by
    /// reason.
    fn registered(registry: &mut Registry, protocol: &str) -> TlsMetrics {
        let upper = protocol.to_ascii_uppercase();
        let failures = Family::<[(&'static str, &'static str); 1], Counter>::default();
        let reason = |name: &'static str| failures.get_or_create(&[("reason", name)]).clone();
        let tls = TlsMetrics {
            failed_timed_out: reason("timed_out"),
            failed_certificate: reason("certificate"),
            failed_closed: reason("closed"),
            failed_protocol: reason("protocol"),
            failed_shutdown: reason("shutdown"),
            ..TlsMetrics::default()
        };
        registry.register(
            format!("quiver_{protocol}_tls_handshakes"),
            format!("{upper} TLS handshakes completed"),
            tls.handshakes.clone(),
        );
        registry.register(
            format!("quiver_{protocol}_tls_handshake_failures"),
            format!("{upper} TLS handshakes that failed, by reason"),
            failures,
        );
        registry.register(
            format!("quiver_{protocol}_tls_plain_connections"),
            format!("{upper} plain connections taken where TLS is optional"),
            tls.plain.clone(),
        );
        registry.register(
            format!("quiver_{protocol}_tls_plain_refused"),
            format!("{upper} plain connections closed where TLS is required"),
            tls.plain_refused.clone(),
        );
        tls
    }

    /// Failed handshakes, every reason together.
    pub fn failures(&self) -> u64 {
        [
            &self.failed_timed_out,
            &self.failed_certificate,
            &self.failed_closed,
            &self.failed_protocol,
            &self.failed_shutdown,
        ]
        .iter()
        .map(|counter| counter.get())
        .sum()
    }
}

/// Transaction counters, shared by the Bolt and HTTP front ends.
#[derive(Clone, Debug, Default)]
pub struct TransactionMetrics {
    pub opened: Counter,
    pub committed: Counter,
    pub rolled_back: Counter,
    /// Rolled back because the client went away mid-transaction.
    pub abandoned: Counter,
    pub active: IntGauge,
    /// Ended by the server because they ran past their time limit (the client's or the
    /// server's default transaction timeout).
    pub timed_out: Counter,
    /// Ended by the server because their client sent nothing for the idle-in-transaction
    /// timeout while they were open.
    pub idle_timed_out: Counter,
    /// Met another transaction's uncommitted write, waited for it to end and began again at a
    /// fresh snapshot (the engine counts them; read when the metrics are encoded).
    pub begun_again: Counter,
}

/// Figures the engine keeps itself, read each time the metrics are encoded.
#[derive(Clone, Debug, Default)]
pub struct EngineFigures {
    pub transactions_begun_again: u64,
    /// Bytes the running queries hold together, of the query memory pool.
    pub query_memory_reserved_bytes: u64,
    /// The commit log's counters (`None` for a store without one: in memory, or a cluster
    /// member's, whose log is Raft's).
    pub durability: Option<DurabilityStats>,
    /// The space of the data directory's file system (zero in memory).
    pub data_dir_space: FreeSpace,
}

/// The store's metrics, kept current from [`EngineFigures`] when the metrics are encoded.
#[derive(Clone, Debug, Default)]
pub struct StoreMetrics {
    pub log_fsyncs: Counter,
    pub log_fsync_seconds: Counter<f64, AtomicU64>,
    pub log_bytes_written: Counter,
    pub log_bytes_since_snapshot: IntGauge,
    pub durable_commit: IntGauge,
    /// Snapshots written, and attempts that failed: a single server's of its store, a cluster
    /// member's Raft snapshots (read from its status, see [`ClusterMetrics::follow`]).
    pub snapshots: Counter,
    pub snapshot_failures: Counter,
    pub disk_available_bytes: IntGauge,
    pub disk_total_bytes: IntGauge,
}

impl StoreMetrics {
    /// The store's metrics, registered in `registry`.
    fn registered(registry: &mut Registry) -> StoreMetrics {
        let store = StoreMetrics::default();
        registry.register(
            "quiver_commit_log_fsyncs",
            "fsync calls on commit log segments that completed",
            store.log_fsyncs.clone(),
        );
        registry.register_with_unit(
            "quiver_commit_log_fsync",
            "Time spent in completed fsync calls on commit log segments",
            Unit::Seconds,
            store.log_fsync_seconds.clone(),
        );
        registry.register_with_unit(
            "quiver_commit_log_written",
            "Commit log bytes written since the store was opened",
            Unit::Bytes,
            store.log_bytes_written.clone(),
        );
        registry.register_with_unit(
            "quiver_commit_log_since_snapshot",
            "Commit log bytes written since the last snapshot (what a recovery would replay)",
            Unit::Bytes,
            store.log_bytes_since_snapshot.clone(),
        );
        registry.register(
            "quiver_commit_log_durable_commit",
            "The newest commit known to be on disk",
            store.durable_commit.clone(),
        );
        registry.register(
            "quiver_snapshots",
            "Snapshots of the store written",
            store.snapshots.clone(),
        );
        registry.register(
            "quiver_snapshot_failures",
            "Snapshots of the store that failed",
            store.snapshot_failures.clone(),
        );
        registry.register_with_unit(
            "quiver_data_dir_available",
            "Bytes a writer can still take on the data directory's file system (0 in memory)",
            Unit::Bytes,
            store.disk_available_bytes.clone(),
        );
        registry.register_with_unit(
            "quiver_data_dir_size",
            "The size of the data directory's file system (0 in memory)",
            Unit::Bytes,
            store.disk_total_bytes.clone(),
        );
        store
    }

    /// Adds what the log counted since `seen` and sets the gauges to `now`.
    fn follow(&self, seen: &EngineFigures, now: &EngineFigures) {
        let gauge = |g: &IntGauge, v: u64| {
            g.set(i64::try_from(v).unwrap_or(i64::MAX));
        };
        gauge(
            &self.disk_available_bytes,
            now.data_dir_space.available_bytes,
        );
        gauge(&self.disk_total_bytes, now.data_dir_space.total_bytes);
        let Some(log) = &now.durability else {
            return;
        };
        let none = DurabilityStats::default();
        let before = seen.durability.as_ref().unwrap_or(&none);
        let added = |now: u64, seen: u64| now.saturating_sub(seen);
        self.log_fsyncs.inc_by(added(log.fsyncs, before.fsyncs));
        self.log_fsync_seconds
            .inc_by(added(log.fsync_micros_total, before.fsync_micros_total) as f64 / 1e6);
        self.log_bytes_written
            .inc_by(added(log.log_bytes_written, before.log_bytes_written));
        self.snapshots
            .inc_by(added(log.snapshots_taken, before.snapshots_taken));
        self.snapshot_failures
            .inc_by(added(log.snapshot_failures, before.snapshot_failures));
        gauge(&self.log_bytes_since_snapshot, log.log_bytes_since_snapshot);
        gauge(&self.durable_commit, log.durable_commit);
    }
}

/// Where [`EngineFigures`] come from (the database, once it is open).
pub type EngineSource = Box<dyn Fn() -> EngineFigures + Send + Sync>;

/// One database's figures, for the metrics labelled by database.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DatabaseFigures {
    pub name: String,
    pub online: bool,
    /// Its last commit's number (0 while it is not online).
    pub last_committed: u64,
    /// Its transactions open now.
    pub transactions_open: u64,
}

/// Where a cluster member's status comes from, for the figures read when the metrics are
/// encoded (`None` once the member is gone).
pub type MemberSource = Box<dyn Fn() -> Option<MemberStatus> + Send + Sync>;

/// Where [`DatabaseFigures`] come from (a server that keeps several databases).
pub type DatabaseSource = Box<dyn Fn() -> Vec<DatabaseFigures> + Send + Sync>;

type DatabaseGauges = Family<[(&'static str, String); 1], IntGauge>;

/// The gauges labelled by database, set from [`DatabaseFigures`] when the metrics are
/// encoded (a dropped database's series go with it).
#[derive(Clone, Debug, Default)]
pub struct DatabaseMetrics {
    pub online: DatabaseGauges,
    pub last_committed: DatabaseGauges,
    pub transactions_open: DatabaseGauges,
}

impl DatabaseMetrics {
    fn registered(registry: &mut Registry) -> DatabaseMetrics {
        let metrics = DatabaseMetrics::default();
        registry.register(
            "quiver_database_online",
            "1 while the database serves, 0 while it is stopped or failed to start",
            metrics.online.clone(),
        );
        registry.register(
            "quiver_database_last_committed",
            "The number of the database's last commit",
            metrics.last_committed.clone(),
        );
        registry.register(
            "quiver_database_transactions_open",
            "The database's transactions open now",
            metrics.transactions_open.clone(),
        );
        metrics
    }

    fn set(&self, figures: &[DatabaseFigures]) {
        for family in [&self.online, &self.last_committed, &self.transactions_open] {
            family.clear();
        }
        let gauge = |family: &DatabaseGauges, name: &str, value: u64| {
            family
                .get_or_create(&[("database", name.to_owned())])
                .set(i64::try_from(value).unwrap_or(i64::MAX));
        };
        for f in figures {
            gauge(&self.online, &f.name, u64::from(f.online));
            gauge(&self.last_committed, &f.name, f.last_committed);
            gauge(&self.transactions_open, &f.name, f.transactions_open);
        }
    }
}

/// The sources of the figures read when the metrics are encoded, each set once.
#[derive(Default)]
struct Sources {
    engine: std::sync::OnceLock<EngineSource>,
    databases: std::sync::OnceLock<DatabaseSource>,
    member: std::sync::OnceLock<MemberSource>,
}

/// The registry and handles to everything in it.
pub struct Metrics {
    registry: Registry,
    /// Where the figures read at each encoding come from, once set.
    sources: Sources,
    /// The gauges labelled by database (none on a server that keeps one).
    pub databases: DatabaseMetrics,
    /// The engine's figures as last added to the counters.
    engine_seen: parking_lot::Mutex<EngineFigures>,
    pub bolt: ConnectionMetrics,
    /// Bolt messages received (after de-chunking).
    pub bolt_messages: Counter,
    /// Bolt reply batches written: one per pipelined batch, plus one per full write buffer of a
    /// large result (so K records cost O(bytes / buffer) writes, not K).
    pub bolt_flushes: Counter,
    /// Bolt read and write buffers lent from the listener's pool and not yet given back: zero
    /// while every connection is idle (see `crate::buffers`).
    pub bolt_buffers_lent: IntGauge,
    pub http: ConnectionMetrics,
    /// HTTP requests answered, whatever the status.
    pub http_requests: Counter,
    /// HTTP connections holding hyper's connection state (its buffers among it): zero while
    /// every connection is idle, waiting for its next request, or its first, on the bare
    /// socket (see `crate::http_listener`).
    pub http_connections_serving: IntGauge,
    pub transactions: TransactionMetrics,
    /// Time from a query's arrival to its last record (or failure).
    pub query_latency: LatencyHistogram,
    /// Failed authentication attempts, Bolt and HTTP.
    pub auth_failures: Counter,
    /// Query log reports dropped because its writer was behind (see `crate::query_log`).
    pub query_log_dropped: Counter,
    /// Bytes the running queries hold together (read from the engine when encoded), and the
    /// pool's limit (`dbms.memory.transaction.total.max`, set by the node).
    pub query_memory_used: IntGauge,
    pub query_memory_max: IntGauge,
    /// Raft's figures on a cluster member (zero otherwise).
    pub cluster: ClusterMetrics,
    /// The commit log's and the data directory's figures (zero in memory).
    pub store: StoreMetrics,
}

/// The metrics of a Raft log's fsyncs, one series for each file it syncs
/// ([`Synced::name`]).
type SyncedCounters<N = u64> = Family<[(&'static str, &'static str); 1], Counter<N, AtomicU64>>;

/// A cluster member's Raft figures, kept current by `crate::cluster::follow_metrics`; its Raft
/// log's and indexes are read from its status whenever the metrics are encoded
/// ([`Metrics::follow_member`]).
#[derive(Clone, Debug, Default)]
pub struct ClusterMetrics {
    /// Times the known leader changed to another member.
    pub leader_changes: Counter,
    /// Times the term advanced (every election, won or not, advances it).
    pub elections: Counter,
    pub term: IntGauge,
    /// 1 while this member leads.
    pub is_leader: IntGauge,
    /// Entries committed but not yet applied here (what a bookmarked read may wait for).
    pub applied_lag: IntGauge,
    /// On the leader: entries the furthest-behind follower lacks (0 elsewhere).
    pub follower_lag: IntGauge,
    /// Proposal to commit by a majority, per entry this member proposed as leader.
    pub append_latency: LatencyHistogram,
    /// Snapshots streamed whole to another member, and received and installed here.
    pub snapshots_sent: Counter,
    pub snapshots_installed: Counter,
    /// Connections the Raft listener closed without applying what they carried, by reason
    /// (`quiver_cluster::Refusal`): a plain or TLS mismatch, a refused certificate, a
    /// malformed, oversized or replayed frame, a sender outside the membership or not the
    /// certificate's.
    pub raft_refused: Family<[(&'static str, &'static str); 1], Counter>,
    /// The Raft log's completed fsyncs and their time, by file: its segments (the appends'
    /// group commits), the committed id (at nearly every commit), the vote, the purge point.
    pub raft_log_fsyncs: SyncedCounters,
    pub raft_log_fsync_seconds: SyncedCounters<f64>,
    /// Bytes and entries written to the Raft log's segments.
    pub raft_log_bytes_written: Counter,
    pub raft_log_entries_appended: Counter,
    /// The newest index in this member's log, known committed, applied here, and in its
    /// newest snapshot (0 for none).
    pub last_log_index: IntGauge,
    pub commit_index: IntGauge,
    pub applied_index: IntGauge,
    pub snapshot_index: IntGauge,
}

impl ClusterMetrics {
    /// The cluster metrics, registered in `registry` (zero outside cluster mode).
    fn registered(registry: &mut Registry) -> ClusterMetrics {
        let cluster = ClusterMetrics::default();
        registry.register(
            "quiver_cluster_leader_changes",
            "Times the cluster's known leader changed",
            cluster.leader_changes.clone(),
        );
        registry.register(
            "quiver_cluster_elections",
            "Raft terms begun (elections) seen by this member",
            cluster.elections.clone(),
        );
        registry.register(
            "quiver_cluster_term",
            "This member's Raft term",
            cluster.term.clone(),
        );
        registry.register(
            "quiver_cluster_is_leader",
            "1 while this member leads the cluster",
            cluster.is_leader.clone(),
        );
        registry.register(
            "quiver_cluster_applied_lag",
            "Raft entries committed but not yet applied on this member",
            cluster.applied_lag.clone(),
        );
        registry.register(
            "quiver_cluster_follower_lag",
            "On the leader, Raft entries the furthest-behind follower lacks",
            cluster.follower_lag.clone(),
        );
        registry.register_with_unit(
            "quiver_cluster_append_latency",
            "Time from proposing an entry to its commit by a majority, on the leader",
            Unit::Seconds,
            cluster.append_latency.clone(),
        );
        registry.register(
            "quiver_cluster_snapshots_sent",
            "Snapshots streamed whole to another member",
            cluster.snapshots_sent.clone(),
        );
        registry.register(
            "quiver_cluster_snapshots_installed",
            "Snapshots received from the leader and installed",
            cluster.snapshots_installed.clone(),
        );
        registry.register(
            "quiver_cluster_raft_refused",
            "Raft connections closed unapplied, by reason",
            cluster.raft_refused.clone(),
        );
        cluster.register_raft_log(registry);
        cluster
    }

    /// Registers the Raft log's counters and the indexes, every file's series at zero.
    fn register_raft_log(&self, registry: &mut Registry) {
        for file in Synced::ALL {
            let label = [("file", file.name())];
            let _ = self.raft_log_fsyncs.get_or_create(&label);
            let _ = self.raft_log_fsync_seconds.get_or_create(&label);
        }
        registry.register(
            "quiver_raft_log_fsyncs",
            "fsync calls on Raft log files that completed, by file",
            self.raft_log_fsyncs.clone(),
        );
        registry.register_with_unit(
            "quiver_raft_log_fsync",
            "Time spent in completed fsync calls on Raft log files, by file",
            Unit::Seconds,
            self.raft_log_fsync_seconds.clone(),
        );
        registry.register_with_unit(
            "quiver_raft_log_written",
            "Raft log segment bytes written since the member started",
            Unit::Bytes,
            self.raft_log_bytes_written.clone(),
        );
        registry.register(
            "quiver_raft_log_entries_appended",
            "Entries written to the Raft log since the member started",
            self.raft_log_entries_appended.clone(),
        );
        for (name, help, gauge) in [
            (
                "quiver_cluster_last_log_index",
                "The newest index in this member's Raft log",
                &self.last_log_index,
            ),
            (
                "quiver_cluster_commit_index",
                "The newest Raft index this member knows committed",
                &self.commit_index,
            ),
            (
                "quiver_cluster_applied_index",
                "The newest Raft index applied on this member",
                &self.applied_index,
            ),
            (
                "quiver_cluster_snapshot_index",
                "The last Raft index in this member's newest snapshot",
                &self.snapshot_index,
            ),
        ] {
            registry.register(name, help, gauge.clone());
        }
    }

    /// Brings the Raft log's counters, the indexes and the member's snapshot counts in `store`
    /// up to `status`. The counters take the larger of their value and the status's, so a
    /// status read before the last one (a member stands in its last one during a handover)
    /// neither lowers nor counts anything twice.
    fn follow(&self, status: &MemberStatus, store: &StoreMetrics) {
        let raise = |counter: &Counter, to: u64| {
            counter.inner().fetch_max(to, Ordering::Relaxed);
        };
        let log = &status.log;
        for file in Synced::ALL {
            let label = [("file", file.name())];
            let i = file as usize;
            raise(&self.raft_log_fsyncs.get_or_create(&label), log.fsyncs[i]);
            // A non-negative float's bits order as the float does.
            let seconds = log.fsync_micros[i] as f64 / 1e6;
            self.raft_log_fsync_seconds
                .get_or_create(&label)
                .inner()
                .fetch_max(seconds.to_bits(), Ordering::Relaxed);
        }
        raise(&self.raft_log_bytes_written, log.bytes_written);
        raise(&self.raft_log_entries_appended, log.entries_appended);
        raise(&store.snapshots, status.snapshots_built);
        raise(&store.snapshot_failures, status.snapshot_failures);
        let gauge = |g: &IntGauge, v: u64| {
            g.set(i64::try_from(v).unwrap_or(i64::MAX));
        };
        gauge(&self.last_log_index, status.last_log_index);
        gauge(&self.commit_index, status.commit_index);
        gauge(&self.applied_index, status.applied_index);
        gauge(&self.snapshot_index, status.snapshot_index.unwrap_or(0));
    }
}

/// Plain numbers read from the atomics; serialised as `/stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MetricsSnapshot {
    pub bolt: ConnectionSnapshot,
    pub http: ConnectionSnapshot,
    pub transactions: TransactionSnapshot,
    pub auth_failures_total: u64,
    pub query_latency: HistogramSnapshot,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ConnectionSnapshot {
    pub accepted_total: u64,
    pub rejected_total: u64,
    pub refusals_dropped_total: u64,
    pub refusals_written_total: u64,
    pub refusals_timed_out_total: u64,
    pub closed_total: u64,
    pub panics_total: u64,
    pub timed_out_total: u64,
    pub active: i64,
    pub in_flight: i64,
    /// Bolt: messages received; HTTP: requests answered.
    pub messages_total: u64,
    pub tls_handshakes_total: u64,
    pub tls_handshake_failures_total: u64,
    pub tls_plain_refused_total: u64,
    /// Bolt: connections opened as a WebSocket.
    pub websocket_upgrades_total: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TransactionSnapshot {
    pub opened_total: u64,
    pub committed_total: u64,
    pub rolled_back_total: u64,
    pub abandoned_total: u64,
    pub active: i64,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("bolt", &self.bolt)
            .field("http", &self.http)
            .field("transactions", &self.transactions)
            .finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let mut bolt = ConnectionMetrics::default();
        let mut http = ConnectionMetrics::default();
        bolt.tls = TlsMetrics::registered(&mut registry, "bolt");
        http.tls = TlsMetrics::registered(&mut registry, "http");
        let bolt_messages = Counter::default();
        let bolt_flushes = Counter::default();
        let bolt_buffers_lent = IntGauge::default();
        let http_requests = Counter::default();
        let http_connections_serving = IntGauge::default();
        let transactions = TransactionMetrics::default();
        let query_latency = LatencyHistogram::default();
        let auth_failures = Counter::default();
        let query_log_dropped = Counter::default();
        let query_memory_used = IntGauge::default();
        let query_memory_max = IntGauge::default();

        register_connections(&mut registry, "bolt", &bolt, "messages or queries");
        register_connections(&mut registry, "http", &http, "requests");
        registry.register(
            "quiver_bolt_messages",
            "Bolt messages received",
            bolt_messages.clone(),
        );
        registry.register(
            "quiver_bolt_websocket_upgrades",
            "Bolt connections opened as a WebSocket (browser drivers)",
            bolt.websocket_upgrades.clone(),
        );
        registry.register(
            "quiver_bolt_flushes",
            "Bolt reply batches written to sockets",
            bolt_flushes.clone(),
        );
        registry.register(
            "quiver_bolt_buffers_lent",
            "Bolt read and write buffers in use by connections (zero while all are idle)",
            bolt_buffers_lent.clone(),
        );
        registry.register(
            "quiver_http_requests",
            "HTTP requests answered",
            http_requests.clone(),
        );
        registry.register(
            "quiver_http_connections_serving",
            "HTTP connections with requests being read or answered (zero while all are idle)",
            http_connections_serving.clone(),
        );
        register_transactions(&mut registry, &transactions);
        registry.register_with_unit(
            "quiver_query_latency",
            "Query time from arrival to last record",
            Unit::Seconds,
            query_latency.clone(),
        );
        registry.register(
            "quiver_auth_failures",
            "Failed authentication attempts",
            auth_failures.clone(),
        );
        registry.register(
            "quiver_query_log_dropped",
            "Query log lines dropped because the log's writer was behind",
            query_log_dropped.clone(),
        );
        registry.register(
            "quiver_query_memory_pool_used_bytes",
            "Bytes the running queries hold together, of the query memory pool",
            query_memory_used.clone(),
        );
        registry.register(
            "quiver_query_memory_pool_max_bytes",
            "The query memory pool's limit (dbms.memory.transaction.total.max)",
            query_memory_max.clone(),
        );

        let cluster = ClusterMetrics::registered(&mut registry);
        let store = StoreMetrics::registered(&mut registry);
        let databases = DatabaseMetrics::registered(&mut registry);

        Metrics {
            registry,
            sources: Sources::default(),
            databases,
            engine_seen: parking_lot::Mutex::new(EngineFigures::default()),
            bolt,
            bolt_messages,
            bolt_flushes,
            bolt_buffers_lent,
            http,
            http_requests,
            http_connections_serving,
            transactions,
            query_latency,
            auth_failures,
            query_log_dropped,
            query_memory_used,
            query_memory_max,
            cluster,
            store,
        }
    }

    /// Reads the engine's own figures from `source` whenever the metrics are encoded. Set
    /// once; a second source is ignored.
    pub fn follow_engine(&self, source: EngineSource) {
        let _ = self.sources.engine.set(source);
    }

    /// Reads every database's figures from `source` whenever the metrics are encoded. Set
    /// once; a second source is ignored.
    pub fn follow_databases(&self, source: DatabaseSource) {
        let _ = self.sources.databases.set(source);
    }

    /// Reads this cluster member's status from `source` whenever the metrics are encoded: its
    /// Raft log's fsyncs, bytes and entries, its indexes and snapshots. Set once; a second
    /// source is ignored.
    pub fn follow_member(&self, source: MemberSource) {
        let _ = self.sources.member.set(source);
    }

    /// Adds what the engine counted since the last look to the counters.
    fn sync_engine(&self) {
        if let Some(source) = self.sources.databases.get() {
            self.databases.set(&source());
        }
        let Some(source) = self.sources.engine.get() else {
            return;
        };
        let now = source();
        let mut seen = self.engine_seen.lock();
        let added = now
            .transactions_begun_again
            .saturating_sub(seen.transactions_begun_again);
        self.transactions.begun_again.inc_by(added);
        self.query_memory_used
            .set(i64::try_from(now.query_memory_reserved_bytes).unwrap_or(i64::MAX));
        self.store.follow(&seen, &now);
        *seen = now;
    }

    /// The registry in the OpenMetrics text format (what `GET /metrics` serves).
    pub fn encode(&self) -> String {
        self.sync_engine();
        if let Some(status) = self.sources.member.get().and_then(|source| source()) {
            self.cluster.follow(&status, &self.store);
        }
        let mut text = String::with_capacity(8 * 1024);
        // Writing into a String cannot fail; an encoder error would be a bug in a metric's encode.
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            tracing::error!(%error, "encoding metrics failed");
        }
        text
    }

    pub fn snapshot(&self) -> MetricsSnapshot {
        MetricsSnapshot {
            bolt: connection_snapshot(&self.bolt, self.bolt_messages.get()),
            http: connection_snapshot(&self.http, self.http_requests.get()),
            transactions: TransactionSnapshot {
                opened_total: self.transactions.opened.get(),
                committed_total: self.transactions.committed.get(),
                rolled_back_total: self.transactions.rolled_back.get(),
                abandoned_total: self.transactions.abandoned.get(),
                active: self.transactions.active.get(),
            },
            auth_failures_total: self.auth_failures.get(),
            query_latency: self.query_latency.snapshot(),
        }
    }
}

/// The transaction counters, Bolt and HTTP together.
fn register_transactions(registry: &mut Registry, transactions: &TransactionMetrics) {
    registry.register(
        "quiver_transactions_opened",
        "Transactions begun, explicit or auto-commit",
        transactions.opened.clone(),
    );
    registry.register(
        "quiver_transactions_committed",
        "Transactions committed",
        transactions.committed.clone(),
    );
    registry.register(
        "quiver_transactions_rolled_back",
        "Transactions rolled back, abandoned ones included",
        transactions.rolled_back.clone(),
    );
    registry.register(
        "quiver_transactions_abandoned",
        "Transactions rolled back because their client went away",
        transactions.abandoned.clone(),
    );
    registry.register(
        "quiver_transactions_active",
        "Transactions open now",
        transactions.active.clone(),
    );
    registry.register(
        "quiver_transactions_timed_out",
        "Transactions ended by the server past their time limit",
        transactions.timed_out.clone(),
    );
    registry.register(
        "quiver_transactions_idle_timed_out",
        "Transactions ended by the server after their client was idle in them too long",
        transactions.idle_timed_out.clone(),
    );
    registry.register(
        "quiver_transactions_begun_again",
        "Transactions that waited for another's write to end and began again",
        transactions.begun_again.clone(),
    );
}

fn register_connections(
    registry: &mut Registry,
    protocol: &str,
    metrics: &ConnectionMetrics,
    work: &str,
) {
    let name = |suffix: &str| format!("quiver_{protocol}_{suffix}");
    let upper = protocol.to_ascii_uppercase();
    registry.register(
        name("connections_accepted"),
        format!("{upper} connections admitted"),
        metrics.accepted.clone(),
    );
    registry.register(
        name("connections_rejected"),
        format!("{upper} connections turned away at a limit"),
        metrics.rejected.clone(),
    );
    registry.register(
        name("refusals_dropped"),
        format!("{upper} refusals closed without a message, past the refusal budget"),
        metrics.refusals_dropped.clone(),
    );
    registry.register(
        name("refusals_written"),
        format!("{upper} refusals whose reply was written whole"),
        metrics.refusals_written.clone(),
    );
    registry.register(
        name("refusals_timed_out"),
        format!("{upper} refusals given up at the refusal deadline before their reply was out"),
        metrics.refusals_timed_out.clone(),
    );
    registry.register(
        name("connections_closed"),
        format!("{upper} admitted connections that ended"),
        metrics.closed.clone(),
    );
    registry.register(
        name("connections_panics"),
        format!("{upper} connection tasks that panicked"),
        metrics.panics.clone(),
    );
    registry.register(
        name("connections_timed_out"),
        format!("{upper} connections closed by a deadline"),
        metrics.timed_out.clone(),
    );
    registry.register(
        name("connections_active"),
        format!("{upper} connections open now"),
        metrics.active.clone(),
    );
    registry.register(
        name("in_flight"),
        format!("{upper} {work} being worked on now"),
        metrics.in_flight.clone(),
    );
}

fn connection_snapshot(metrics: &ConnectionMetrics, messages: u64) -> ConnectionSnapshot {
    ConnectionSnapshot {
        accepted_total: metrics.accepted.get(),
        rejected_total: metrics.rejected.get(),
        refusals_dropped_total: metrics.refusals_dropped.get(),
        refusals_written_total: metrics.refusals_written.get(),
        refusals_timed_out_total: metrics.refusals_timed_out.get(),
        closed_total: metrics.closed.get(),
        panics_total: metrics.panics.get(),
        timed_out_total: metrics.timed_out.get(),
        active: metrics.active.get(),
        in_flight: metrics.in_flight.get(),
        messages_total: messages,
        tls_handshakes_total: metrics.tls.handshakes.get(),
        tls_handshake_failures_total: metrics.tls.failures(),
        tls_plain_refused_total: metrics.tls.plain_refused.get(),
        websocket_upgrades_total: metrics.websocket_upgrades.get(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_required_name_is_exported() {
        let metrics = Metrics::new();
        metrics.bolt.accepted.inc();
        metrics
            .query_latency
            .observe(std::time::Duration::from_millis(3));
        let text = metrics.encode();
        for name in [
            "quiver_bolt_connections_accepted_total 1",
            "quiver_bolt_connections_rejected_total",
            "quiver_bolt_connections_closed_total",
            "quiver_bolt_connections_panics_total",
            "quiver_bolt_connections_active",
            "quiver_bolt_messages_total",
            "quiver_transactions_opened_total",
            "quiver_transactions_committed_total",
            "quiver_transactions_rolled_back_total",
            "quiver_transactions_abandoned_total",
            "quiver_transactions_active",
            "quiver_query_latency_seconds_bucket",
            "quiver_http_connections_accepted_total",
            "quiver_http_connections_active",
            "quiver_http_in_flight",
            "quiver_bolt_tls_handshakes_total",
            "quiver_http_tls_handshake_failures_total{reason=\"timed_out\"} 0",
            "quiver_bolt_tls_plain_refused_total",
        ] {
            assert!(text.contains(name), "missing {name} in\n{text}");
        }
    }

    #[test]
    fn the_query_memory_in_use_is_read_from_the_engine_when_encoded() {
        let metrics = Metrics::new();
        metrics.follow_engine(Box::new(|| EngineFigures {
            query_memory_reserved_bytes: 4096,
            ..EngineFigures::default()
        }));
        let text = metrics.encode();
        assert!(
            text.contains("quiver_query_memory_pool_used_bytes 4096"),
            "{text}"
        );
    }

    #[test]
    fn the_store_s_counters_add_what_the_log_counted_since_the_last_encoding() {
        let metrics = Metrics::new();
        let syncs = std::sync::Arc::new(AtomicU64::new(3));
        metrics.follow_engine(Box::new({
            let syncs = std::sync::Arc::clone(&syncs);
            move || {
                let n = syncs.load(std::sync::atomic::Ordering::Relaxed);
                EngineFigures {
                    durability: Some(DurabilityStats {
                        fsyncs: n,
                        fsync_micros_total: n * 500_000,
                        durable_commit: n * 10,
                        ..DurabilityStats::default()
                    }),
                    data_dir_space: FreeSpace {
                        available_bytes: 1 << 30,
                        total_bytes: 1 << 32,
                    },
                    ..EngineFigures::default()
                }
            }
        }));
        let first = metrics.encode();
        syncs.store(5, std::sync::atomic::Ordering::Relaxed);
        let second = metrics.encode();
        for (text, fsyncs, seconds, durable) in [(&first, 3, "1.5", 30), (&second, 5, "2.5", 50)] {
            for line in [
                format!("quiver_commit_log_fsyncs_total {fsyncs}\n"),
                format!("quiver_commit_log_fsync_seconds_total {seconds}\n"),
                format!("quiver_commit_log_durable_commit {durable}\n"),
                "quiver_data_dir_available_bytes 1073741824\n".to_owned(),
                "quiver_data_dir_size_bytes 4294967296\n".to_owned(),
            ] {
                assert!(text.contains(&line), "missing {line} in\n{text}");
            }
        }
    }

    /// A member's status whose log synced its segments `n` times, half a second each, and
    /// wrote `n` entries of 100 bytes.
    fn member_status(n: u64) -> MemberStatus {
        let mut log = quiver_cluster::log_store::LogStats {
            bytes_written: n * 100,
            entries_appended: n,
            ..Default::default()
        };
        log.fsyncs[Synced::Segment as usize] = n;
        log.fsync_micros[Synced::Segment as usize] = n * 500_000;
        log.fsyncs[Synced::Committed as usize] = 2 * n;
        MemberStatus {
            id: 1,
            role: quiver_cluster::Role::Leader,
            term: 2,
            leader: Some(1),
            last_log_index: n + 1,
            commit_index: n,
            applied_index: n,
            applied_term: 2,
            snapshot_index: None,
            purged_index: None,
            voters: std::collections::BTreeSet::from([1]),
            members: std::collections::BTreeMap::new(),
            lag: std::collections::BTreeMap::new(),
            snapshots_sent: 0,
            snapshots_installed: 0,
            snapshots_built: n / 2,
            snapshot_failures: 0,
            log,
            refused: std::collections::BTreeMap::new(),
        }
    }

    #[test]
    fn a_member_s_raft_log_figures_are_read_from_its_status_when_encoded() {
        let metrics = Metrics::new();
        let text = metrics.encode();
        // Outside cluster mode every series is there, at zero.
        for file in Synced::ALL {
            let line = format!(
                "quiver_raft_log_fsyncs_total{{file=\"{}\"}} 0\n",
                file.name()
            );
            assert!(text.contains(&line), "missing {line} in\n{text}");
        }
        let n = std::sync::Arc::new(AtomicU64::new(4));
        metrics.follow_member(Box::new({
            let n = std::sync::Arc::clone(&n);
            move || Some(member_status(n.load(Ordering::Relaxed)))
        }));
        // 4 then 6; then 5, a status older than the last one read (it lowers nothing and
        // counts nothing twice); then 6 again.
        for (now, shown) in [(4, 4), (6, 6), (5, 6), (6, 6)] {
            n.store(now, Ordering::Relaxed);
            let text = metrics.encode();
            for line in [
                format!("quiver_raft_log_fsyncs_total{{file=\"segment\"}} {shown}\n"),
                format!(
                    "quiver_raft_log_fsyncs_total{{file=\"committed\"}} {}\n",
                    2 * shown
                ),
                "quiver_raft_log_fsyncs_total{file=\"vote\"} 0\n".to_owned(),
                format!(
                    "quiver_raft_log_fsync_seconds_total{{file=\"segment\"}} {:?}\n",
                    shown as f64 / 2.0
                ),
                format!("quiver_raft_log_written_bytes_total {}\n", shown * 100),
                format!("quiver_raft_log_entries_appended_total {shown}\n"),
                format!("quiver_cluster_commit_index {now}\n"),
                format!("quiver_cluster_last_log_index {}\n", now + 1),
                format!("quiver_snapshots_total {}\n", shown / 2),
                "quiver_cluster_snapshot_index 0\n".to_owned(),
            ] {
                assert!(text.contains(&line), "at {now}: missing {line} in\n{text}");
            }
        }
    }

    #[test]
    fn snapshot_reads_the_same_atomics() {
        let metrics = Metrics::new();
        metrics.http.active.inc();
        metrics.http.in_flight.inc();
        metrics.transactions.opened.inc_by(3);
        let snapshot = metrics.snapshot();
        assert_eq!(snapshot.http.active, 1);
        assert_eq!(snapshot.http.in_flight, 1);
        assert_eq!(snapshot.transactions.opened_total, 3);
    }
}
