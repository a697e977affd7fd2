//! One layer of settings: what the command line, the environment or the TOML file said.
//!
//! Every field is optional so that layers can be stacked (flag > environment > file > default) and a
//! setting left out of a layer falls through to the next one. The same struct is parsed by clap (flags),
//! by serde (the file) and by [`Layer::from_env`], so a setting cannot exist in one source and be
//! forgotten in another.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

use serde::Deserialize;

use super::ConfigError;
use super::auth::{AuthSpec, UserEntry};
use super::cluster::Members;
use super::durability::Durability;
use super::tls::TlsMode;
use crate::query_log::Mode as QueryLogMode;
use quiver_placement::Policy;

/// The settings of `quiver serve`, from one source.
#[derive(clap::Args, Deserialize, Debug, Clone, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Layer {
    /// TOML configuration file; its settings rank below flags and `QUIVER_*` variables [env: QUIVER_CONFIG]
    #[arg(long, value_name = "FILE")]
    #[serde(skip)]
    pub config: Option<PathBuf>,

    /// Bolt listen address, IP:PORT; port 0 picks a free port [default: 127.0.0.1:7687] [env: QUIVER_BOLT_LISTEN]
    #[arg(long, value_name = "ADDR")]
    pub bolt_listen: Option<SocketAddr>,

    /// HTTP listen address, IP:PORT; port 0 picks a free port [default: 127.0.0.1:7474] [env: QUIVER_HTTP_LISTEN]
    #[arg(long, value_name = "ADDR")]
    pub http_listen: Option<SocketAddr>,

    /// Directory holding the commit log and snapshots [default: ./data] [env: QUIVER_DATA_DIR]
    #[arg(long, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// Directory LOAD CSV reads file:/// URLs under, as their root; nothing outside it is read [default: <data-dir>/import; none with --in-memory] [env: QUIVER_IMPORT_DIR]
    #[arg(long, value_name = "DIR")]
    pub import_dir: Option<PathBuf>,

    /// The database sessions use when they name none and their user has no home database; created at start when missing [default: neo4j] [env: QUIVER_DEFAULT_DATABASE]
    #[arg(long, value_name = "NAME")]
    pub default_database: Option<String>,

    /// Keep everything in memory, write nothing to disk [env: QUIVER_IN_MEMORY]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub in_memory: Option<bool>,

    /// Commit durability: buffered, group or sync [default: buffered] [env: QUIVER_DURABILITY]
    #[arg(long, value_name = "MODE")]
    pub durability: Option<Durability>,

    /// Write a snapshot once the commit log has grown this many bytes since the last one; a restart after a crash replays at most about this much log [default: 67108864] [env: QUIVER_SNAPSHOT_LOG_BYTES]
    #[arg(long, value_name = "BYTES")]
    pub snapshot_log_bytes: Option<u64>,

    /// Write a snapshot once this long has passed since the last one and something was committed; 0 turns the time threshold off [default: 600000] [env: QUIVER_SNAPSHOT_INTERVAL_MS]
    #[arg(long, value_name = "MS")]
    pub snapshot_interval_ms: Option<u64>,

    /// Keep commit-log segments a snapshot made redundant while they were last written this recently, for incremental backups and point-in-time restores; 0 keeps none by age [default: 0] [env: QUIVER_LOG_RETENTION_MS]
    #[arg(long, value_name = "MS")]
    pub log_retention_ms: Option<u64>,

    /// Keep the newest commit-log segments a snapshot made redundant up to this many bytes, for incremental backups and point-in-time restores [default: 0] [env: QUIVER_LOG_RETENTION_BYTES]
    #[arg(long, value_name = "BYTES")]
    pub log_retention_bytes: Option<u64>,

    /// Copy every closed commit-log segment into this directory before a snapshot removes it [default: none] [env: QUIVER_LOG_ARCHIVE_DIR]
    #[arg(long, value_name = "DIR")]
    pub log_archive_dir: Option<PathBuf>,

    /// Change data capture (Neo4j's txLogEnrichment): `off`, `diff` (an update's changed properties) or `full` (whole states before and after); on, every commit logs its changes for `db.cdc.query` [default: off] [env: QUIVER_CDC]
    #[arg(long, value_name = "MODE")]
    pub cdc: Option<String>,

    /// The log writer writes and syncs commits nobody waits on this often: in buffered durability, the most a power cut can lose [default: 50] [env: QUIVER_FLUSH_INTERVAL_MS]
    #[arg(long, value_name = "MS")]
    pub flush_interval_ms: Option<u64>,

    /// Authentication: `none`, or `user/password` for one administrator [default: none] [env: QUIVER_AUTH]
    #[arg(long, value_name = "SPEC")]
    pub auth: Option<AuthSpec>,

    /// Serve with authentication off (`--auth none`) on a listener bound to an address other than loopback, where anyone who reaches the port may read and change everything; without it such a server refuses to start [default: false] [env: QUIVER_ALLOW_UNAUTHENTICATED_NETWORK]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub allow_unauthenticated_network: Option<bool>,

    /// `/metrics` and `/stats` answer only authenticated requests (Basic credentials of any user); needs authentication on [default: false] [env: QUIVER_METRICS_AUTH]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub metrics_auth: Option<bool>,

    /// Audit log, JSON lines: logins, failed logins, user and role changes, terminated transactions (never passwords); off unless given [env: QUIVER_AUDIT_LOG]
    #[arg(long, value_name = "FILE")]
    pub audit_log: Option<PathBuf>,

    /// Query log, JSON lines with Neo4j's `query.log` fields: queries that ran past the threshold (or every query); off unless given [env: QUIVER_QUERY_LOG]
    #[arg(long, value_name = "FILE")]
    pub query_log: Option<PathBuf>,

    /// Which queries the query log takes (Neo4j's `db.logs.query.enabled`): off, info (those past the threshold) or verbose (all); changeable with dbms.setConfigValue [default: info] [env: QUIVER_QUERY_LOG_ENABLED]
    #[arg(long, value_name = "MODE")]
    pub query_log_enabled: Option<QueryLogMode>,

    /// Queries that ran at least this long are logged (`db.logs.query.threshold`); changeable with dbms.setConfigValue [default: 0] [env: QUIVER_QUERY_LOG_THRESHOLD_MS]
    #[arg(long, value_name = "MS")]
    pub query_log_threshold_ms: Option<u64>,

    /// The query log writes parameters, secrets hidden (`db.logs.query.parameter_logging_enabled`); changeable with dbms.setConfigValue [default: false] [env: QUIVER_QUERY_LOG_PARAMETERS]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub query_log_parameters: Option<bool>,

    /// The query log is rotated before it would pass this size (`db.logs.query.rotation.size`) [default: 20971520] [env: QUIVER_QUERY_LOG_ROTATION_BYTES]
    #[arg(long, value_name = "BYTES")]
    pub query_log_rotation_bytes: Option<u64>,

    /// Rotated query logs kept (`db.logs.query.rotation.keep_number`) [default: 7] [env: QUIVER_QUERY_LOG_ROTATION_KEEP]
    #[arg(long, value_name = "N")]
    pub query_log_rotation_keep: Option<u32>,

    /// Send traces of transactions and queries over OTLP to this collector, as OpenTelemetry's `OTEL_EXPORTER_OTLP_ENDPOINT` does (which also switches tracing on); off unless given [env: QUIVER_TRACE_ENDPOINT]
    #[arg(long, value_name = "URL")]
    pub trace_endpoint: Option<String>,

    /// The OTLP protocol traces are sent with: http/protobuf or grpc [default: OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf] [env: QUIVER_TRACE_PROTOCOL]
    #[arg(long, value_name = "PROTOCOL")]
    pub trace_protocol: Option<String>,

    /// The share of transactions traced, 0 to 1, when the caller sent no trace context (a caller's sampled flag decides for its own) [default: OTEL_TRACES_SAMPLER, else 1] [env: QUIVER_TRACE_SAMPLE_RATIO]
    #[arg(long, value_name = "RATIO")]
    pub trace_sample_ratio: Option<f64>,

    /// Spans carry the query's text (`db.query.text`; literals in it are sent as written) [default: false] [env: QUIVER_TRACE_QUERY_TEXT]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub trace_query_text: Option<bool>,

    /// `user/password`: on a first start (no users stored yet) create this stored user with the admin role and a password that must be changed before anything else runs (Neo4j's first-login flow); switches authentication on [env: QUIVER_INITIAL_USER]
    #[arg(long, value_name = "SPEC")]
    pub initial_user: Option<AuthSpec>,

    /// TLS certificate chain, PEM (the server's certificate first); with --tls-key turns TLS on. Re-read on SIGHUP [env: QUIVER_TLS_CERT]
    #[arg(long, value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,

    /// TLS private key, PEM (PKCS#8, PKCS#1 or SEC1). Re-read on SIGHUP [env: QUIVER_TLS_KEY]
    #[arg(long, value_name = "FILE")]
    pub tls_key: Option<PathBuf>,

    /// CA certificates, PEM, that TLS clients' certificates must chain to; given, every TLS client must present one (mutual TLS). Re-read on SIGHUP [env: QUIVER_TLS_CLIENT_CA]
    #[arg(long, value_name = "FILE")]
    pub tls_client_ca: Option<PathBuf>,

    /// TLS on the Bolt listener: required, optional (TLS and plain on one port) or off [default: optional with a certificate, else off] [env: QUIVER_BOLT_TLS]
    #[arg(long, value_name = "MODE")]
    pub bolt_tls: Option<TlsMode>,

    /// TLS on the HTTP listener: required, optional (https and http on one port) or off [default: optional with a certificate, else off] [env: QUIVER_HTTP_TLS]
    #[arg(long, value_name = "MODE")]
    pub http_tls: Option<TlsMode>,

    /// Log filter: a level (error, warn, info, debug, trace) or tracing directives [default: info] [env: QUIVER_LOG]
    #[arg(long, value_name = "FILTER")]
    pub log: Option<String>,

    /// Bolt connections admitted at once, administrators' reserved slots included [default: 10000] [env: QUIVER_MAX_CONNECTIONS]
    #[arg(long, value_name = "N")]
    pub max_connections: Option<u32>,

    /// Bolt slots kept for administrators once the others are taken [default: 4] [env: QUIVER_ADMIN_RESERVED_CONNECTIONS]
    #[arg(long, value_name = "N")]
    pub admin_reserved_connections: Option<u32>,

    /// HTTP connections admitted at once [default: 4096] [env: QUIVER_HTTP_MAX_CONNECTIONS]
    #[arg(long, value_name = "N")]
    pub http_max_connections: Option<u32>,

    /// Open HTTP explicit transactions one authenticated user may hold, of the server's 1000 [default: 250] [env: QUIVER_HTTP_TRANSACTIONS_PER_USER_MAX]
    #[arg(long, value_name = "N")]
    pub http_transactions_per_user_max: Option<u32>,

    /// Open HTTP explicit transactions the clients at one IP address may hold, of the server's 1000 [default: 250] [env: QUIVER_HTTP_TRANSACTIONS_PER_ADDRESS_MAX]
    #[arg(long, value_name = "N")]
    pub http_transactions_per_address_max: Option<u32>,

    /// Logins one IP address may have in progress at once (waiting out a failure delay or being checked); past it a login is refused unchecked [default: 4] [env: QUIVER_AUTH_ATTEMPTS_IN_FLIGHT_PER_ADDRESS_MAX]
    #[arg(long, value_name = "N")]
    pub auth_attempts_in_flight_per_address_max: Option<u32>,

    /// Refused connections (past a connection limit) held at once while their refusal is written; past it a connection is just closed [default: 8192] [env: QUIVER_REFUSALS_IN_FLIGHT_MAX]
    #[arg(long, value_name = "N")]
    pub refusals_in_flight_max: Option<u32>,

    /// Time one refusal may take, from accept, before its socket is dropped [default: 10000] [env: QUIVER_REFUSAL_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub refusal_timeout_ms: Option<u64>,

    /// Largest Bolt message accepted (after de-chunking); a larger one closes the connection [default: 33554432] [env: QUIVER_BOLT_MESSAGE_BYTES_MAX]
    #[arg(long, value_name = "BYTES")]
    pub bolt_message_bytes_max: Option<u64>,

    /// Deadline for a Bolt client to finish the handshake and authenticate [default: 10000] [env: QUIVER_HANDSHAKE_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub handshake_timeout_ms: Option<u64>,

    /// A Bolt connection that sends nothing for this long is closed [default: 3600000] [env: QUIVER_IDLE_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub idle_timeout_ms: Option<u64>,

    /// An open transaction (Bolt or HTTP) whose client sends nothing for this long is rolled back and its client told TransactionTimedOut at its next request; 0 never [default: 60000] [env: QUIVER_IDLE_TRANSACTION_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub idle_transaction_timeout_ms: Option<u64>,

    /// Time limit of a transaction whose client sets none (Neo4j's db.transaction.timeout); past it the transaction is rolled back with TransactionTimedOut; 0 none [default: 0] [env: QUIVER_TRANSACTION_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub transaction_timeout_ms: Option<u64>,

    /// Deadline for an HTTP client to send a request's headers [default: 10000] [env: QUIVER_HTTP_HEADER_READ_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub http_header_read_timeout_ms: Option<u64>,

    /// An idle keep-alive HTTP connection is closed after this long [default: 60000] [env: QUIVER_HTTP_KEEP_ALIVE_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub http_keep_alive_timeout_ms: Option<u64>,

    /// Deadline for an HTTP client to send a request's body [default: 30000] [env: QUIVER_HTTP_BODY_READ_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub http_body_read_timeout_ms: Option<u64>,

    /// Largest HTTP request body accepted; larger ones get 413 [default: 16777216] [env: QUIVER_HTTP_BODY_BYTES_MAX]
    #[arg(long, value_name = "BYTES")]
    pub http_body_bytes_max: Option<u64>,

    /// On shutdown, time in-flight work gets to finish before connections are cut [default: 10000] [env: QUIVER_DRAIN_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub drain_timeout_ms: Option<u64>,

    /// Longest delay imposed on a peer or user after repeated authentication failures [default: 5000] [env: QUIVER_AUTH_FAILURE_DELAY_MAX_MS]
    #[arg(long, value_name = "MS")]
    pub auth_failure_delay_max_ms: Option<u64>,

    /// Threads running long queries, beside the runtime's workers [default: the number of cores] [env: QUIVER_QUERY_THREADS]
    #[arg(long, value_name = "N")]
    pub query_threads: Option<u32>,

    /// Where query work runs: adaptive (inline when quick last time, else the query threads), pool or inline [default: adaptive] [env: QUIVER_QUERY_PLACEMENT]
    #[arg(long, value_name = "POLICY")]
    pub query_placement: Option<Policy>,

    /// Bytes one query may hold (strings, lists, sorts, aggregations, DISTINCT sets, and its transaction's uncommitted writes); past it the query fails with TransactionMemoryLimit [default: 1073741824] [env: QUIVER_QUERY_MEMORY_MAX]
    #[arg(long, value_name = "BYTES")]
    pub query_memory_max: Option<u64>,

    /// Bytes all running queries may hold together; the query that would pass it fails with MemoryPoolOutOfMemoryError [default: 70% of physical memory] [env: QUIVER_QUERY_MEMORY_TOTAL_MAX]
    #[arg(long, value_name = "BYTES")]
    pub query_memory_total_max: Option<u64>,

    /// Estimated bytes the cache of compiled plans may hold together; a plan over a sixteenth of it is planned again each time instead of cached; 0 caches no plan [default: 134217728] [env: QUIVER_PLAN_CACHE_BYTES_MAX]
    #[arg(long, value_name = "BYTES")]
    pub plan_cache_bytes_max: Option<u64>,

    /// How long a writer that meets another transaction's uncommitted change waits for it to end; a first query that has returned nothing then begins again at a fresh snapshot, else it fails with a retryable LockAcquisitionTimeout; 0 never waits [default: 1000] [env: QUIVER_LOCK_WAIT_MS]
    #[arg(long, value_name = "MS")]
    pub lock_wait_ms: Option<u64>,

    /// The most threads one query runs on: an aggregation or a factorized count over a large scan splits it among this many workers, its own thread and helpers borrowed from one per core beyond the first; 1 runs every query on one thread [default: the machine's cores] [env: QUIVER_QUERY_WORKERS_MAX]
    #[arg(long, value_name = "N")]
    pub query_workers_max: Option<u64>,

    /// Measure each query's CPU time (Neo4j's `db.track_query_cpu_time`), which the query log writes as `cpu`: two reads of the thread's CPU clock per step of a query [default: false] [env: QUIVER_TRACK_QUERY_CPU_TIME]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub track_query_cpu_time: Option<bool>,

    /// Read timeout Bolt clients are told to use (`connection.recv_timeout_seconds`, rounded up to seconds); long queries send keep-alives four times as often [default: 120000] [env: QUIVER_BOLT_RECV_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub bolt_recv_timeout_ms: Option<u64>,

    /// How long a transaction waits for the commit a bookmark names to become visible [default: 30000] [env: QUIVER_BOOKMARK_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub bookmark_timeout_ms: Option<u64>,

    /// This member's id in a cluster (1, 2, ...); turns cluster mode on, with --raft-listen and --initial-members or --join [env: QUIVER_NODE_ID]
    #[arg(long, value_name = "ID")]
    pub node_id: Option<u64>,

    /// Raft listen address of this cluster member, IP:PORT [env: QUIVER_RAFT_LISTEN]
    #[arg(long, value_name = "ADDR")]
    pub raft_listen: Option<SocketAddr>,

    /// The members a new cluster starts with, ID=HOST:PORT (Raft addresses) comma separated, this one included [env: QUIVER_INITIAL_MEMBERS]
    #[arg(long, value_name = "MEMBERS")]
    pub initial_members: Option<Members>,

    /// Start as a new member of a running cluster, HOST:PORT of any member's Raft listener: initializes nothing and waits for an administrator to add it (CALL dbms.cluster.addServer) [env: QUIVER_JOIN]
    #[arg(long, value_name = "ADDR", conflicts_with = "initial_members")]
    pub join: Option<String>,

    /// A cluster member snapshots its store every this many Raft entries and purges the log behind it (keeping a tenth, at most 1000, for lagging followers) [default: 10000] [env: QUIVER_RAFT_SNAPSHOT_ENTRIES]
    #[arg(long, value_name = "ENTRIES")]
    pub raft_snapshot_entries: Option<u64>,

    /// Followers of a leader silent for 1.5 to 2 times this (a random point in between, so that they rarely compete) elect a new one; the leader sends heartbeats every tenth of it. Shorter fails over sooner; too short for a loaded machine elects needlessly [default: 600] [env: QUIVER_RAFT_ELECTION_TIMEOUT_MS]
    #[arg(long, value_name = "MS")]
    pub raft_election_timeout_ms: Option<u64>,

    /// Host name or IP other members and drivers reach this one at, where a listen address is a wildcard [env: QUIVER_ADVERTISED_ADDRESS]
    #[arg(long, value_name = "HOST")]
    pub advertised_address: Option<String>,

    /// List the cluster's leader among the readers in routing tables, not only the followers [default: false] [env: QUIVER_CLUSTER_READS_ON_LEADER]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub cluster_reads_on_leader: Option<bool>,

    /// This cluster member's certificate chain, PEM, its own first, naming it by the DNS name member-<ID>.quiver-cluster; with --cluster-tls-key and --cluster-tls-ca turns on mutual TLS between members. Re-read on SIGHUP [env: QUIVER_CLUSTER_TLS_CERT]
    #[arg(long, value_name = "FILE")]
    pub cluster_tls_cert: Option<PathBuf>,

    /// This cluster member's private key, PEM (PKCS#8, PKCS#1 or SEC1). Re-read on SIGHUP [env: QUIVER_CLUSTER_TLS_KEY]
    #[arg(long, value_name = "FILE")]
    pub cluster_tls_key: Option<PathBuf>,

    /// The cluster CA's certificates, PEM: every member's certificate must chain to them. Re-read on SIGHUP [env: QUIVER_CLUSTER_TLS_CA]
    #[arg(long, value_name = "FILE")]
    pub cluster_tls_ca: Option<PathBuf>,

    /// Run a cluster member's Raft listener on an address other than loopback without cluster TLS, where anyone who reaches the port may claim to be a member and vote, replicate and snapshot; without it such a member refuses to start [default: false] [env: QUIVER_ALLOW_PLAIN_CLUSTER_NETWORK]
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub allow_plain_cluster_network: Option<bool>,

    /// Users, from the configuration file only (passwords never belong on a command line).
    #[arg(skip)]
    pub users: Option<Vec<UserEntry>>,
}

impl Layer {
    /// Reads the `QUIVER_*` variables through `lookup`, so tests can supply an environment without
    /// touching the process's own (which is shared by every test thread).
    // One line per setting: the whole list in one place is what keeps every source complete.
    #[allow(clippy::too_many_lines)]
    pub fn from_env(lookup: impl Fn(&str) -> Option<String>) -> Result<Layer, ConfigError> {
        Ok(Layer {
            config: lookup("QUIVER_CONFIG").map(PathBuf::from),
            bolt_listen: env_value(&lookup, "QUIVER_BOLT_LISTEN")?,
            http_listen: env_value(&lookup, "QUIVER_HTTP_LISTEN")?,
            data_dir: lookup("QUIVER_DATA_DIR").map(PathBuf::from),
            import_dir: lookup("QUIVER_IMPORT_DIR").map(PathBuf::from),
            default_database: lookup("QUIVER_DEFAULT_DATABASE"),
            in_memory: env_value(&lookup, "QUIVER_IN_MEMORY")?,
            durability: env_value(&lookup, "QUIVER_DURABILITY")?,
            snapshot_log_bytes: env_value(&lookup, "QUIVER_SNAPSHOT_LOG_BYTES")?,
            snapshot_interval_ms: env_value(&lookup, "QUIVER_SNAPSHOT_INTERVAL_MS")?,
            flush_interval_ms: env_value(&lookup, "QUIVER_FLUSH_INTERVAL_MS")?,
            log_retention_ms: env_value(&lookup, "QUIVER_LOG_RETENTION_MS")?,
            log_retention_bytes: env_value(&lookup, "QUIVER_LOG_RETENTION_BYTES")?,
            log_archive_dir: lookup("QUIVER_LOG_ARCHIVE_DIR").map(PathBuf::from),
            cdc: lookup("QUIVER_CDC").filter(|mode| !mode.trim().is_empty()),
            auth: env_value(&lookup, "QUIVER_AUTH")?,
            allow_unauthenticated_network: env_value(
                &lookup,
                "QUIVER_ALLOW_UNAUTHENTICATED_NETWORK",
            )?,
            metrics_auth: env_value(&lookup, "QUIVER_METRICS_AUTH")?,
            trace_endpoint: lookup("QUIVER_TRACE_ENDPOINT").filter(|url| !url.trim().is_empty()),
            trace_protocol: lookup("QUIVER_TRACE_PROTOCOL").filter(|text| !text.trim().is_empty()),
            trace_sample_ratio: env_value(&lookup, "QUIVER_TRACE_SAMPLE_RATIO")?,
            trace_query_text: env_value(&lookup, "QUIVER_TRACE_QUERY_TEXT")?,
            audit_log: lookup("QUIVER_AUDIT_LOG")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            query_log: lookup("QUIVER_QUERY_LOG")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            query_log_enabled: env_value(&lookup, "QUIVER_QUERY_LOG_ENABLED")?,
            query_log_threshold_ms: env_value(&lookup, "QUIVER_QUERY_LOG_THRESHOLD_MS")?,
            query_log_parameters: env_value(&lookup, "QUIVER_QUERY_LOG_PARAMETERS")?,
            query_log_rotation_bytes: env_value(&lookup, "QUIVER_QUERY_LOG_ROTATION_BYTES")?,
            query_log_rotation_keep: env_value(&lookup, "QUIVER_QUERY_LOG_ROTATION_KEEP")?,
            initial_user: env_value(&lookup, "QUIVER_INITIAL_USER")?,
            tls_cert: lookup("QUIVER_TLS_CERT")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            tls_key: lookup("QUIVER_TLS_KEY")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            tls_client_ca: lookup("QUIVER_TLS_CLIENT_CA")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            bolt_tls: env_value(&lookup, "QUIVER_BOLT_TLS")?,
            http_tls: env_value(&lookup, "QUIVER_HTTP_TLS")?,
            log: lookup("QUIVER_LOG"),
            max_connections: env_value(&lookup, "QUIVER_MAX_CONNECTIONS")?,
            admin_reserved_connections: env_value(&lookup, "QUIVER_ADMIN_RESERVED_CONNECTIONS")?,
            http_max_connections: env_value(&lookup, "QUIVER_HTTP_MAX_CONNECTIONS")?,
            http_transactions_per_user_max: env_value(
                &lookup,
                "QUIVER_HTTP_TRANSACTIONS_PER_USER_MAX",
            )?,
            http_transactions_per_address_max: env_value(
                &lookup,
                "QUIVER_HTTP_TRANSACTIONS_PER_ADDRESS_MAX",
            )?,
            auth_attempts_in_flight_per_address_max: env_value(
                &lookup,
                "QUIVER_AUTH_ATTEMPTS_IN_FLIGHT_PER_ADDRESS_MAX",
            )?,
            refusals_in_flight_max: env_value(&lookup, "QUIVER_REFUSALS_IN_FLIGHT_MAX")?,
            refusal_timeout_ms: env_value(&lookup, "QUIVER_REFUSAL_TIMEOUT_MS")?,
            bolt_message_bytes_max: env_value(&lookup, "QUIVER_BOLT_MESSAGE_BYTES_MAX")?,
            handshake_timeout_ms: env_value(&lookup, "QUIVER_HANDSHAKE_TIMEOUT_MS")?,
            idle_timeout_ms: env_value(&lookup, "QUIVER_IDLE_TIMEOUT_MS")?,
            idle_transaction_timeout_ms: env_value(&lookup, "QUIVER_IDLE_TRANSACTION_TIMEOUT_MS")?,
            transaction_timeout_ms: env_value(&lookup, "QUIVER_TRANSACTION_TIMEOUT_MS")?,
            http_header_read_timeout_ms: env_value(&lookup, "QUIVER_HTTP_HEADER_READ_TIMEOUT_MS")?,
            http_keep_alive_timeout_ms: env_value(&lookup, "QUIVER_HTTP_KEEP_ALIVE_TIMEOUT_MS")?,
            http_body_read_timeout_ms: env_value(&lookup, "QUIVER_HTTP_BODY_READ_TIMEOUT_MS")?,
            http_body_bytes_max: env_value(&lookup, "QUIVER_HTTP_BODY_BYTES_MAX")?,
            drain_timeout_ms: env_value(&lookup, "QUIVER_DRAIN_TIMEOUT_MS")?,
            auth_failure_delay_max_ms: env_value(&lookup, "QUIVER_AUTH_FAILURE_DELAY_MAX_MS")?,
            query_threads: env_value(&lookup, "QUIVER_QUERY_THREADS")?,
            query_placement: env_value(&lookup, "QUIVER_QUERY_PLACEMENT")?,
            query_memory_max: env_value(&lookup, "QUIVER_QUERY_MEMORY_MAX")?,
            query_memory_total_max: env_value(&lookup, "QUIVER_QUERY_MEMORY_TOTAL_MAX")?,
            plan_cache_bytes_max: env_value(&lookup, "QUIVER_PLAN_CACHE_BYTES_MAX")?,
            lock_wait_ms: env_value(&lookup, "QUIVER_LOCK_WAIT_MS")?,
            query_workers_max: env_value(&lookup, "QUIVER_QUERY_WORKERS_MAX")?,
            track_query_cpu_time: env_value(&lookup, "QUIVER_TRACK_QUERY_CPU_TIME")?,
            bolt_recv_timeout_ms: env_value(&lookup, "QUIVER_BOLT_RECV_TIMEOUT_MS")?,
            bookmark_timeout_ms: env_value(&lookup, "QUIVER_BOOKMARK_TIMEOUT_MS")?,
            node_id: env_value(&lookup, "QUIVER_NODE_ID")?,
            raft_listen: env_value(&lookup, "QUIVER_RAFT_LISTEN")?,
            initial_members: env_value(&lookup, "QUIVER_INITIAL_MEMBERS")?,
            join: lookup("QUIVER_JOIN").filter(|addr| !addr.trim().is_empty()),
            raft_snapshot_entries: env_value(&lookup, "QUIVER_RAFT_SNAPSHOT_ENTRIES")?,
            raft_election_timeout_ms: env_value(&lookup, "QUIVER_RAFT_ELECTION_TIMEOUT_MS")?,
            advertised_address: lookup("QUIVER_ADVERTISED_ADDRESS")
                .filter(|host| !host.trim().is_empty()),
            cluster_reads_on_leader: env_value(&lookup, "QUIVER_CLUSTER_READS_ON_LEADER")?,
            cluster_tls_cert: lookup("QUIVER_CLUSTER_TLS_CERT")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            cluster_tls_key: lookup("QUIVER_CLUSTER_TLS_KEY")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            cluster_tls_ca: lookup("QUIVER_CLUSTER_TLS_CA")
                .filter(|path| !path.trim().is_empty())
                .map(PathBuf::from),
            allow_plain_cluster_network: env_value(&lookup, "QUIVER_ALLOW_PLAIN_CLUSTER_NETWORK")?,
            users: None,
        })
    }

    /// Parses the TOML text of a configuration file; `origin` names the file in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Layer, ConfigError> {
        toml::from_str(text).map_err(|error| ConfigError::FileParse {
            path: origin.to_owned(),
            message: error.to_string(),
        })
    }

    /// Stacks `self` over `lower`: a setting present here wins, a missing one is taken from `lower`.
    ///
    /// The storage choice (`in_memory` / `data_dir`) is not merged field by field: the highest layer
    /// that names either decides both, so `QUIVER_DATA_DIR` in the environment does not contradict an
    /// `--in-memory` flag.
    #[must_use]
    // One line per setting, as in `from_env`.
    #[allow(clippy::too_many_lines)]
    pub fn over(self, lower: Layer) -> Layer {
        let names_storage = self.in_memory == Some(true) || self.data_dir.is_some();
        let (in_memory, data_dir) = if names_storage {
            (self.in_memory, self.data_dir)
        } else {
            (lower.in_memory, lower.data_dir)
        };
        Layer {
            config: self.config.or(lower.config),
            bolt_listen: self.bolt_listen.or(lower.bolt_listen),
            http_listen: self.http_listen.or(lower.http_listen),
            data_dir,
            import_dir: self.import_dir.or(lower.import_dir),
            default_database: self.default_database.or(lower.default_database),
            in_memory,
            durability: self.durability.or(lower.durability),
            snapshot_log_bytes: self.snapshot_log_bytes.or(lower.snapshot_log_bytes),
            snapshot_interval_ms: self.snapshot_interval_ms.or(lower.snapshot_interval_ms),
            flush_interval_ms: self.flush_interval_ms.or(lower.flush_interval_ms),
            log_retention_ms: self.log_retention_ms.or(lower.log_retention_ms),
            log_retention_bytes: self.log_retention_bytes.or(lower.log_retention_bytes),
            log_archive_dir: self.log_archive_dir.or(lower.log_archive_dir),
            cdc: self.cdc.or(lower.cdc),
            auth: self.auth.or(lower.auth),
            allow_unauthenticated_network: self
                .allow_unauthenticated_network
                .or(lower.allow_unauthenticated_network),
            metrics_auth: self.metrics_auth.or(lower.metrics_auth),
            audit_log: self.audit_log.or(lower.audit_log),
            trace_endpoint: self.trace_endpoint.or(lower.trace_endpoint),
            trace_protocol: self.trace_protocol.or(lower.trace_protocol),
            trace_sample_ratio: self.trace_sample_ratio.or(lower.trace_sample_ratio),
            trace_query_text: self.trace_query_text.or(lower.trace_query_text),
            query_log: self.query_log.or(lower.query_log),
            query_log_enabled: self.query_log_enabled.or(lower.query_log_enabled),
            query_log_threshold_ms: self.query_log_threshold_ms.or(lower.query_log_threshold_ms),
            query_log_parameters: self.query_log_parameters.or(lower.query_log_parameters),
            query_log_rotation_bytes: self
                .query_log_rotation_bytes
                .or(lower.query_log_rotation_bytes),
            query_log_rotation_keep: self
                .query_log_rotation_keep
                .or(lower.query_log_rotation_keep),
            initial_user: self.initial_user.or(lower.initial_user),
            tls_cert: self.tls_cert.or(lower.tls_cert),
            tls_key: self.tls_key.or(lower.tls_key),
            tls_client_ca: self.tls_client_ca.or(lower.tls_client_ca),
            bolt_tls: self.bolt_tls.or(lower.bolt_tls),
            http_tls: self.http_tls.or(lower.http_tls),
            log: self.log.or(lower.log),
            max_connections: self.max_connections.or(lower.max_connections),
            admin_reserved_connections: self
                .admin_reserved_connections
                .or(lower.admin_reserved_connections),
            http_max_connections: self.http_max_connections.or(lower.http_max_connections),
            http_transactions_per_user_max: self
                .http_transactions_per_user_max
                .or(lower.http_transactions_per_user_max),
            http_transactions_per_address_max: self
                .http_transactions_per_address_max
                .or(lower.http_transactions_per_address_max),
            auth_attempts_in_flight_per_address_max: self
                .auth_attempts_in_flight_per_address_max
                .or(lower.auth_attempts_in_flight_per_address_max),
            refusals_in_flight_max: self.refusals_in_flight_max.or(lower.refusals_in_flight_max),
            refusal_timeout_ms: self.refusal_timeout_ms.or(lower.refusal_timeout_ms),
            bolt_message_bytes_max: self.bolt_message_bytes_max.or(lower.bolt_message_bytes_max),
            handshake_timeout_ms: self.handshake_timeout_ms.or(lower.handshake_timeout_ms),
            idle_timeout_ms: self.idle_timeout_ms.or(lower.idle_timeout_ms),
            idle_transaction_timeout_ms: self
                .idle_transaction_timeout_ms
                .or(lower.idle_transaction_timeout_ms),
            transaction_timeout_ms: self.transaction_timeout_ms.or(lower.transaction_timeout_ms),
            http_header_read_timeout_ms: self
                .http_header_read_timeout_ms
                .or(lower.http_header_read_timeout_ms),
            http_keep_alive_timeout_ms: self
                .http_keep_alive_timeout_ms
                .or(lower.http_keep_alive_timeout_ms),
            http_body_read_timeout_ms: self
                .http_body_read_timeout_ms
                .or(lower.http_body_read_timeout_ms),
            http_body_bytes_max: self.http_body_bytes_max.or(lower.http_body_bytes_max),
            drain_timeout_ms: self.drain_timeout_ms.or(lower.drain_timeout_ms),
            auth_failure_delay_max_ms: self
                .auth_failure_delay_max_ms
                .or(lower.auth_failure_delay_max_ms),
            query_threads: self.query_threads.or(lower.query_threads),
            query_placement: self.query_placement.or(lower.query_placement),
            query_memory_max: self.query_memory_max.or(lower.query_memory_max),
            query_memory_total_max: self.query_memory_total_max.or(lower.query_memory_total_max),
            plan_cache_bytes_max: self.plan_cache_bytes_max.or(lower.plan_cache_bytes_max),
            lock_wait_ms: self.lock_wait_ms.or(lower.lock_wait_ms),
            query_workers_max: self.query_workers_max.or(lower.query_workers_max),
            track_query_cpu_time: self.track_query_cpu_time.or(lower.track_query_cpu_time),
            bolt_recv_timeout_ms: self.bolt_recv_timeout_ms.or(lower.bolt_recv_timeout_ms),
            bookmark_timeout_ms: self.bookmark_timeout_ms.or(lower.bookmark_timeout_ms),
            node_id: self.node_id.or(lower.node_id),
            raft_listen: self.raft_listen.or(lower.raft_listen),
            initial_members: self.initial_members.or(lower.initial_members),
            join: self.join.or(lower.join),
            raft_snapshot_entries: self.raft_snapshot_entries.or(lower.raft_snapshot_entries),
            raft_election_timeout_ms: self
                .raft_election_timeout_ms
                .or(lower.raft_election_timeout_ms),
            advertised_address: self.advertised_address.or(lower.advertised_address),
            cluster_reads_on_leader: self
                .cluster_reads_on_leader
                .or(lower.cluster_reads_on_leader),
            cluster_tls_cert: self.cluster_tls_cert.or(lower.cluster_tls_cert),
            cluster_tls_key: self.cluster_tls_key.or(lower.cluster_tls_key),
            cluster_tls_ca: self.cluster_tls_ca.or(lower.cluster_tls_ca),
            allow_plain_cluster_network: self
                .allow_plain_cluster_network
                .or(lower.allow_plain_cluster_network),
            users: self.users.or(lower.users),
        }
    }
}

fn env_value<T>(
    lookup: &impl Fn(&str) -> Option<String>,
    var: &str,
) -> Result<Option<T>, ConfigError>
where
    T: FromStr,
    T::Err: std::fmt::Display,
{
    let Some(raw) = lookup(var) else {
        return Ok(None);
    };
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        // An exported-but-empty variable is how shells "unset" things in compose files: ignore it.
        return Ok(None);
    }
    trimmed
        .parse()
        .map(Some)
        .map_err(|error: T::Err| ConfigError::Env {
            var: var.to_owned(),
            value: redact(var, &raw),
            reason: error.to_string(),
        })
}

/// Keeps passwords out of error messages and logs.
fn redact(var: &str, raw: &str) -> String {
    if var == "QUIVER_AUTH" {
        "<redacted>".to_owned()
    } else {
        raw.to_owned()
    }
}
