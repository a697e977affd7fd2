//! `quiver serve` configuration: flags over `QUIVER_*` variables over a TOML file over defaults.
//!
//! [`Layer`] is one source; [`resolve`] stacks them and [`Config::from_layer`] validates the result
//! into typed settings, so a bad value is reported once, naming where it came from, before anything
//! binds a port.

mod auth;
mod cluster;
mod durability;
mod layer;
mod tls;

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use auth::{AuthSpec, CREDENTIAL_BYTES_MAX, PASSWORD_CHARS_MIN, UserEntry, check_password};
pub use cluster::{ClusterSettings, ClusterTlsSettings, Members};
pub use durability::Durability;
pub use layer::Layer;
pub use tls::{TlsMode, TlsSettings};

use crate::query_log::QueryLogSettings;
use quiver_placement::Policy;

/// Default Bolt address: loopback, Neo4j's port.
pub const BOLT_LISTEN_DEFAULT: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 7687));
/// Default HTTP address: loopback, Neo4j's port.
pub const HTTP_LISTEN_DEFAULT: SocketAddr =
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 7474));

/// Upper bound on any connection limit: beyond it the process runs out of descriptors long before.
pub const CONNECTIONS_MAX_LIMIT: u32 = 1_000_000;
/// Upper bound on any timeout setting (a week): larger values are almost certainly unit mistakes.
pub const TIMEOUT_MS_LIMIT: u64 = 7 * 24 * 3600 * 1000;
/// Bounds on the HTTP body limit.
pub const HTTP_BODY_BYTES_MIN: u64 = 1024;
pub const HTTP_BODY_BYTES_LIMIT: u64 = 1 << 30;
/// Bounds on the Bolt message limit.
pub const BOLT_MESSAGE_BYTES_MIN: u64 = 1024;
pub const BOLT_MESSAGE_BYTES_LIMIT: u64 = 1 << 30;
/// Shortest read timeout advertised to Bolt clients: the hint is in whole seconds.
pub const BOLT_RECV_TIMEOUT_MIN: Duration = Duration::from_secs(1);
/// Largest configuration file read, so a wrong path (a device, a log) cannot exhaust memory.
pub const CONFIG_FILE_BYTES_MAX: u64 = 1 << 20;

/// Why the configuration was rejected.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("environment variable {var}={value}: {reason}")]
    Env {
        var: String,
        value: String,
        reason: String,
    },
    #[error("configuration file {path}: {source}")]
    FileRead {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("configuration file {path}: {message}")]
    FileParse { path: String, message: String },
    #[error("setting {setting}: {reason}")]
    Invalid {
        setting: &'static str,
        reason: String,
    },
}

/// Where the graph lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageMode {
    /// Nothing is written to disk; everything is lost at exit.
    InMemory,
    /// Commit log and snapshots under this directory.
    Directory(PathBuf),
}

/// Connection admission limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bolt connections admitted at once, reserved slots included.
    pub bolt_connections_max: u32,
    /// Of those, how many only administrators may keep.
    pub admin_reserved_connections: u32,
    /// HTTP connections admitted at once.
    pub http_connections_max: u32,
    /// Open HTTP explicit transactions one authenticated user may hold (of the API's total),
    /// so one client cannot take every slot.
    pub http_transactions_per_user_max: u32,
    /// Open HTTP explicit transactions the clients at one IP address may hold.
    pub http_transactions_per_address_max: u32,
    /// Logins one IP address may have in progress at once; past it a login is refused
    /// unchecked, so parallel guesses cannot all run before the failure delay applies.
    pub auth_attempts_in_flight_per_address_max: u32,
    /// Refusals written concurrently; a flood beyond this is closed without a word.
    pub refusals_in_flight_max: u32,
    /// Largest HTTP request body.
    pub http_body_bytes_max: u64,
    /// Largest Bolt message, after de-chunking.
    pub bolt_message_bytes_max: u64,
}

/// Every deadline the server enforces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timeouts {
    pub handshake: Duration,
    pub idle: Duration,
    pub http_header_read: Duration,
    pub http_keep_alive: Duration,
    pub http_body_read: Duration,
    pub drain: Duration,
    pub refusal: Duration,
    pub auth_failure_delay_max: Duration,
    /// Advertised to Bolt clients as `connection.recv_timeout_seconds`; keep-alives during long
    /// queries go out four times as often.
    pub bolt_recv: Duration,
    /// Longest wait for a bookmark's commit to become visible.
    pub bookmark: Duration,
    /// An open transaction whose client is silent this long is rolled back, so a client that
    /// wrote and went quiet cannot hold other writers out for the connection's whole idle
    /// timeout (Postgres' `idle_in_transaction_session_timeout`). `None`: never.
    pub idle_transaction: Option<Duration>,
    /// Time limit of a transaction whose client sets none (Neo4j's `db.transaction.timeout`).
    /// `None`: unlimited.
    pub transaction: Option<Duration>,
}

/// When a single server's commit log is written and when it is folded into a snapshot (a
/// cluster member snapshots by Raft entries instead, see [`ClusterSettings`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitLogSettings {
    /// Commits nobody waits on are written and synced this often.
    pub flush_interval: Duration,
    /// A snapshot once the log has grown this many bytes since the last.
    pub snapshot_log_bytes: u64,
    /// A snapshot once this long has passed since the last (and something was committed);
    /// `None`: by log size only.
    pub snapshot_interval: Option<Duration>,
    /// Redundant segments kept while last written this recently (`None`: none by age).
    pub log_retention: Option<Duration>,
    /// The newest redundant segments kept up to this many bytes.
    pub log_retention_bytes: u64,
    /// Where every closed segment is copied before a snapshot removes it.
    pub log_archive_dir: Option<std::path::PathBuf>,
    /// What commits log of their changes for change data capture (`db.cdc.*`).
    pub capture: quiver_engine::Capture,
}

/// Smallest log-size threshold accepted: below it the server would do little but write
/// snapshots.
pub const SNAPSHOT_LOG_BYTES_MIN: u64 = 1 << 20;

/// How queries are executed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuerySettings {
    /// Threads of the query pool.
    pub threads: usize,
    pub placement: Policy,
    /// What one query may hold ([`quiver_engine::EngineConfig::query_memory_bytes_max`]).
    pub memory_bytes_max: usize,
    /// What all running queries may hold together
    /// ([`quiver_engine::EngineConfig::query_memory_total_bytes_max`]).
    pub memory_total_bytes_max: usize,
    /// What the cached plans may hold together
    /// ([`quiver_engine::EngineConfig::plan_cache_bytes_max`]); zero caches none.
    pub plan_cache_bytes_max: usize,
    /// How long a writer waits for another's uncommitted change to end
    /// ([`quiver_engine::EngineConfig::lock_wait_max`]); zero never waits.
    pub lock_wait: Duration,
    /// Whether queries' CPU time is measured
    /// ([`quiver_engine::EngineConfig::track_query_cpu_time`]).
    pub track_cpu_time: bool,
    /// The most threads one query runs on
    /// ([`quiver_engine::EngineConfig::query_workers_max`]).
    pub workers_max: usize,
}

/// Who may connect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthConfig {
    /// False: every client is accepted without credentials.
    pub enabled: bool,
    /// Users to load into the user store when enabled.
    pub users: Vec<UserEntry>,
    /// `/metrics` and `/stats` answer only authenticated requests (when `enabled`).
    pub metrics_auth: bool,
}

/// The validated configuration of `quiver serve`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub bolt_listen: SocketAddr,
    pub http_listen: SocketAddr,
    pub storage: StorageMode,
    pub durability: Durability,
    pub commit_log: CommitLogSettings,
    pub auth: AuthConfig,
    /// TLS on the listeners: `None` without a certificate.
    pub tls: Option<TlsSettings>,
    /// Where the audit log is appended (`--audit-log`); `None`: no audit log.
    pub audit_log: Option<PathBuf>,
    /// The query log (`--query-log`); `None`: no query log.
    pub query_log: Option<QueryLogSettings>,
    /// Tracing (`--trace-endpoint` or OpenTelemetry's variables); `None`: off.
    pub tracing: Option<quiver_telemetry::Settings>,
    /// `--initial-user`: the stored administrator created on a first start, whose password
    /// must be changed at first login. Always [`AuthSpec::Basic`].
    pub initial_user: Option<AuthSpec>,
    /// A `tracing_subscriber::EnvFilter` directive string, already checked to parse.
    pub log: String,
    pub limits: Limits,
    pub timeouts: Timeouts,
    pub query: QuerySettings,
    /// Cluster mode: `Some` when `--node-id` is given.
    pub cluster: Option<ClusterSettings>,
    /// Where `LOAD CSV` reads `file:///` URLs ([`quiver_engine::EngineConfig::import_dir`]):
    /// `--import-dir`, else `<data-dir>/import`; `None` in memory unless given.
    pub import_dir: Option<PathBuf>,
    /// The database sessions use when they name none (and their user has no home), lower
    /// case: `--default-database`, else `neo4j`.
    pub default_database: String,
}

impl Default for Config {
    fn default() -> Self {
        // The defaults are the validation of an empty layer, so they cannot drift apart.
        Config::from_layer(Layer::default())
            .unwrap_or_else(|error| unreachable!("the built-in defaults are valid: {error}"))
    }
}

/// Builds the configuration from parsed flags and an environment (`std::env::var` in the binary).
pub fn resolve(flags: Layer, env: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
    let upper = flags.over(Layer::from_env(&env)?);
    let file = match &upper.config {
        Some(path) => read_file(path)?,
        None => Layer::default(),
    };
    let mut layer = upper.over(file);
    let tracing = tracing_settings(&mut layer, &env)?;
    let mut config = Config::from_layer(layer)?;
    config.tracing = tracing;
    Ok(config)
}

/// Tracing's settings: the layer's, then OpenTelemetry's standard variables of `env`.
fn tracing_settings(
    layer: &mut Layer,
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<quiver_telemetry::Settings>, ConfigError> {
    let protocol = match layer.trace_protocol.take() {
        None => None,
        Some(text) => Some(
            text.parse()
                .map_err(|error: quiver_telemetry::SettingsError| {
                    invalid("trace_protocol", error.to_string())
                })?,
        ),
    };
    let requested = quiver_telemetry::Requested {
        endpoint: layer.trace_endpoint.take(),
        protocol,
        sample_ratio: layer.trace_sample_ratio.take(),
        query_text: layer.trace_query_text.take(),
    };
    quiver_telemetry::Settings::resolve(requested, env)
        .map_err(|error| invalid("trace_endpoint", error.to_string()))
}

fn read_file(path: &Path) -> Result<Layer, ConfigError> {
    use std::io::Read;
    let origin = path.display().to_string();
    let read_error = |source| ConfigError::FileRead {
        path: origin.clone(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut text = String::new();
    file.take(CONFIG_FILE_BYTES_MAX + 1)
        .read_to_string(&mut text)
        .map_err(read_error)?;
    if text.len() as u64 > CONFIG_FILE_BYTES_MAX {
        return Err(ConfigError::FileParse {
            path: origin,
            message: format!("larger than {CONFIG_FILE_BYTES_MAX} bytes"),
        });
    }
    Layer::from_toml(&text, &origin)
}

impl Config {
    /// Fills defaults into a merged layer and checks every value.
    pub fn from_layer(mut layer: Layer) -> Result<Config, ConfigError> {
        let query_log = query_log(&mut layer)?;
        let storage = storage_mode(layer.in_memory, layer.data_dir.take())?;
        let default_database = match layer.default_database.take() {
            None => quiver_engine::catalog::DEFAULT_DATABASE.to_owned(),
            Some(name) => quiver_engine::catalog::validate_name(&name, "database")
                .map_err(|error| invalid("default_database", error.to_string()))?,
        };
        let import_dir = match (layer.import_dir.take(), &storage) {
            (Some(dir), _) if dir.as_os_str().is_empty() => {
                return Err(invalid("import_dir", "must not be empty".to_owned()));
            }
            (Some(dir), _) => Some(dir),
            (None, StorageMode::Directory(data)) => Some(data.join("import")),
            (None, StorageMode::InMemory) => None,
        };
        let limits = limits(&layer)?;
        let timeouts = timeouts(&layer)?;
        let query = query_settings(&layer)?;
        let commit_log = commit_log_settings(&layer)?;
        let tls = tls_settings(&mut layer)?;

        let cluster = cluster_settings(
            ClusterLayer {
                node_id: layer.node_id,
                raft_listen: layer.raft_listen,
                initial_members: layer.initial_members,
                join: layer.join,
                snapshot_entries: layer.raft_snapshot_entries,
                election_timeout_ms: layer.raft_election_timeout_ms,
                advertised_address: layer.advertised_address,
                reads_on_leader: layer.cluster_reads_on_leader,
                tls_cert: layer.cluster_tls_cert.take(),
                tls_key: layer.cluster_tls_key.take(),
                tls_ca: layer.cluster_tls_ca.take(),
                allow_plain_network: layer.allow_plain_cluster_network,
            },
            &storage,
        )?;

        let bolt_listen = layer.bolt_listen.unwrap_or(BOLT_LISTEN_DEFAULT);
        let http_listen = layer.http_listen.unwrap_or(HTTP_LISTEN_DEFAULT);
        let explicitly_none = matches!(layer.auth, Some(AuthSpec::None));
        let initial_user = layer.initial_user.take();
        if matches!(initial_user, Some(AuthSpec::None)) {
            return Err(invalid(
                "initial_user",
                "expected `user/password`, not `none`".to_owned(),
            ));
        }
        if initial_user.is_some() && explicitly_none {
            return Err(invalid(
                "initial_user",
                "needs authentication on, but --auth is none".to_owned(),
            ));
        }
        let mut auth = auth_config(layer.auth, layer.users.unwrap_or_default())?;
        // The initial user switches authentication on by itself, as `[[users]]` do.
        auth.enabled |= initial_user.is_some();
        auth.metrics_auth = layer.metrics_auth.unwrap_or(false);
        if auth.metrics_auth && !auth.enabled {
            // Otherwise the operator would believe the counters closed while anyone reads them.
            return Err(invalid(
                "metrics_auth",
                "needs authentication on: give --auth USER/PASSWORD or [[users]]".to_owned(),
            ));
        }
        check_exposure(
            &[("Bolt", bolt_listen), ("HTTP", http_listen)],
            &auth,
            explicitly_none && layer.allow_unauthenticated_network == Some(true),
        )?;

        let log = layer.log.unwrap_or_else(|| "info".to_owned());
        if let Err(error) = tracing_subscriber::EnvFilter::try_new(&log) {
            return Err(invalid("log", format!("`{log}`: {error}")));
        }

        Ok(Config {
            bolt_listen,
            http_listen,
            storage,
            durability: layer.durability.unwrap_or_default(),
            commit_log,
            auth,
            tls,
            audit_log: layer.audit_log.take(),
            tracing: None,
            query_log,
            initial_user,
            log,
            limits,
            timeouts,
            query,
            cluster,
            import_dir,
            default_database,
        })
    }
}

/// Where the data lives: `--in-memory` and `--data-dir` exclude each other.
fn storage_mode(
    in_memory: Option<bool>,
    data_dir: Option<PathBuf>,
) -> Result<StorageMode, ConfigError> {
    let storage = match (in_memory, data_dir) {
        (Some(true), Some(dir)) => {
            return Err(invalid(
                "in_memory",
                format!(
                    "--in-memory and --data-dir {} exclude each other",
                    dir.display()
                ),
            ));
        }
        (Some(true), None) => StorageMode::InMemory,
        (_, Some(dir)) if dir.as_os_str().is_empty() => {
            return Err(invalid("data_dir", "must not be empty".to_owned()));
        }
        (_, Some(dir)) => StorageMode::Directory(dir),
        (_, None) => StorageMode::Directory(PathBuf::from("./data")),
    };
    Ok(storage)
}

/// Connection, message and body limits.
fn limits(layer: &Layer) -> Result<Limits, ConfigError> {
    let bolt_connections_max = bounded_count(
        "max_connections",
        layer.max_connections.unwrap_or(10_000),
        1,
    )?;
    let admin_reserved_connections = layer.admin_reserved_connections.unwrap_or(4);
    if admin_reserved_connections >= bolt_connections_max {
        return Err(invalid(
            "admin_reserved_connections",
            format!(
                "{admin_reserved_connections} must be below max_connections ({bolt_connections_max})"
            ),
        ));
    }
    Ok(Limits {
        bolt_connections_max,
        admin_reserved_connections,
        http_connections_max: bounded_count(
            "http_max_connections",
            layer.http_max_connections.unwrap_or(4096),
            1,
        )?,
        http_transactions_per_user_max: bounded_count(
            "http_transactions_per_user_max",
            layer
                .http_transactions_per_user_max
                .unwrap_or(HTTP_TRANSACTIONS_PER_CLIENT_DEFAULT),
            1,
        )?,
        http_transactions_per_address_max: bounded_count(
            "http_transactions_per_address_max",
            layer
                .http_transactions_per_address_max
                .unwrap_or(HTTP_TRANSACTIONS_PER_CLIENT_DEFAULT),
            1,
        )?,
        auth_attempts_in_flight_per_address_max: bounded_count(
            "auth_attempts_in_flight_per_address_max",
            layer
                .auth_attempts_in_flight_per_address_max
                .unwrap_or(crate::auth::throttle::ATTEMPTS_IN_FLIGHT_PER_PEER_DEFAULT),
            1,
        )?,
        refusals_in_flight_max: bounded_count(
            "refusals_in_flight_max",
            layer.refusals_in_flight_max.unwrap_or(8192),
            0,
        )?,
        http_body_bytes_max: {
            let bytes = layer.http_body_bytes_max.unwrap_or(16 << 20);
            if !(HTTP_BODY_BYTES_MIN..=HTTP_BODY_BYTES_LIMIT).contains(&bytes) {
                return Err(invalid(
                    "http_body_bytes_max",
                    format!("{bytes} is outside {HTTP_BODY_BYTES_MIN}..={HTTP_BODY_BYTES_LIMIT}"),
                ));
            }
            bytes
        },
        bolt_message_bytes_max: {
            let bytes = layer.bolt_message_bytes_max.unwrap_or(32 << 20);
            if !(BOLT_MESSAGE_BYTES_MIN..=BOLT_MESSAGE_BYTES_LIMIT).contains(&bytes) {
                return Err(invalid(
                    "bolt_message_bytes_max",
                    format!(
                        "{bytes} is outside {BOLT_MESSAGE_BYTES_MIN}..={BOLT_MESSAGE_BYTES_LIMIT}"
                    ),
                ));
            }
            bytes
        },
    })
}

/// Every deadline, with its default.
fn timeouts(layer: &Layer) -> Result<Timeouts, ConfigError> {
    let timeouts = Timeouts {
        handshake: timeout("handshake_timeout_ms", layer.handshake_timeout_ms, 10_000)?,
        idle: timeout("idle_timeout_ms", layer.idle_timeout_ms, 3_600_000)?,
        http_header_read: timeout(
            "http_header_read_timeout_ms",
            layer.http_header_read_timeout_ms,
            10_000,
        )?,
        http_keep_alive: timeout(
            "http_keep_alive_timeout_ms",
            layer.http_keep_alive_timeout_ms,
            60_000,
        )?,
        http_body_read: timeout(
            "http_body_read_timeout_ms",
            layer.http_body_read_timeout_ms,
            30_000,
        )?,
        drain: timeout("drain_timeout_ms", layer.drain_timeout_ms, 10_000)?,
        refusal: timeout("refusal_timeout_ms", layer.refusal_timeout_ms, 10_000)?,
        auth_failure_delay_max: timeout(
            "auth_failure_delay_max_ms",
            layer.auth_failure_delay_max_ms,
            5_000,
        )?,
        bolt_recv: timeout("bolt_recv_timeout_ms", layer.bolt_recv_timeout_ms, 120_000)?,
        bookmark: timeout("bookmark_timeout_ms", layer.bookmark_timeout_ms, 30_000)?,
        idle_transaction: optional_timeout(
            "idle_transaction_timeout_ms",
            layer.idle_transaction_timeout_ms,
            60_000,
        )?,
        transaction: optional_timeout("transaction_timeout_ms", layer.transaction_timeout_ms, 0)?,
    };
    if timeouts.bolt_recv < BOLT_RECV_TIMEOUT_MIN {
        return Err(invalid(
            "bolt_recv_timeout_ms",
            format!(
                "must be at least {} ms: clients time out reads after it",
                BOLT_RECV_TIMEOUT_MIN.as_millis()
            ),
        ));
    }
    Ok(timeouts)
}

/// The log's flush interval and the snapshot thresholds; the defaults are the durability
/// layer's own.
fn commit_log_settings(layer: &Layer) -> Result<CommitLogSettings, ConfigError> {
    let defaults = quiver_engine::DurabilityOptions::default();
    let flush_interval = match layer.flush_interval_ms {
        Some(ms) => timeout("flush_interval_ms", Some(ms), 0)?,
        None => defaults.flush_interval,
    };
    let snapshot_log_bytes = layer
        .snapshot_log_bytes
        .unwrap_or(defaults.snapshot_log_bytes);
    if snapshot_log_bytes < SNAPSHOT_LOG_BYTES_MIN {
        return Err(invalid(
            "snapshot_log_bytes",
            format!("{snapshot_log_bytes} bytes is below {SNAPSHOT_LOG_BYTES_MIN}"),
        ));
    }
    let snapshot_interval = match layer.snapshot_interval_ms {
        Some(0) => None,
        Some(ms) => Some(timeout("snapshot_interval_ms", Some(ms), 0)?),
        None => defaults.snapshot_interval,
    };
    Ok(CommitLogSettings {
        flush_interval,
        snapshot_log_bytes,
        snapshot_interval,
        log_retention: layer
            .log_retention_ms
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis),
        log_retention_bytes: layer.log_retention_bytes.unwrap_or(0),
        log_archive_dir: layer.log_archive_dir.clone(),
        capture: match &layer.cdc {
            Some(mode) => mode
                .parse()
                .map_err(|reason: String| invalid("cdc", reason))?,
            None => quiver_engine::Capture::Off,
        },
    })
}

/// The query pool's threads and the work placement policy.
fn query_settings(layer: &Layer) -> Result<QuerySettings, ConfigError> {
    Ok(QuerySettings {
        threads: match layer.query_threads {
            Some(threads) => {
                let threads = usize::try_from(threads).unwrap_or(usize::MAX);
                if !(1..=quiver_placement::QUERY_THREADS_LIMIT).contains(&threads) {
                    return Err(invalid(
                        "query_threads",
                        format!(
                            "{threads} is outside 1..={}",
                            quiver_placement::QUERY_THREADS_LIMIT
                        ),
                    ));
                }
                threads
            }
            None => std::thread::available_parallelism().map_or(2, std::num::NonZero::get),
        },
        placement: layer.query_placement.unwrap_or_default(),
        memory_bytes_max: memory_limit(
            "query_memory_max",
            layer.query_memory_max,
            quiver_engine::EngineConfig::default().query_memory_bytes_max,
        )?,
        memory_total_bytes_max: memory_limit(
            "query_memory_total_max",
            layer.query_memory_total_max,
            quiver_engine::memory::default_total_bytes_max(),
        )?,
        plan_cache_bytes_max: layer.plan_cache_bytes_max.map_or(
            quiver_engine::EngineConfig::default().plan_cache_bytes_max,
            |bytes| usize::try_from(bytes).unwrap_or(usize::MAX),
        ),
        lock_wait: match layer.lock_wait_ms {
            None => quiver_engine::LOCK_WAIT_DEFAULT,
            Some(ms) if ms <= TIMEOUT_MS_LIMIT => Duration::from_millis(ms),
            Some(ms) => {
                return Err(invalid(
                    "lock_wait_ms",
                    format!("{ms} ms is outside 0..={TIMEOUT_MS_LIMIT}"),
                ));
            }
        },
        track_cpu_time: layer.track_query_cpu_time.unwrap_or(false),
        workers_max: match layer.query_workers_max {
            None => quiver_engine::EngineConfig::default().query_workers_max,
            Some(n) if (1..=QUERY_WORKERS_LIMIT).contains(&n) => n as usize,
            Some(n) => {
                return Err(invalid(
                    "query_workers_max",
                    format!("{n} is outside 1..={QUERY_WORKERS_LIMIT}"),
                ));
            }
        },
    })
}

/// Most workers one query may be given: far beyond any machine's cores, low enough that a
/// typing mistake is caught.
const QUERY_WORKERS_LIMIT: u64 = 1024;

/// Smallest query memory limit accepted: one chunk of the engine's pool, below which no query
/// could hold anything.
const QUERY_MEMORY_BYTES_MIN: u64 = 1 << 20;

/// A query memory limit in bytes, at least [`QUERY_MEMORY_BYTES_MIN`].
fn memory_limit(
    setting: &'static str,
    value: Option<u64>,
    default_bytes: usize,
) -> Result<usize, ConfigError> {
    let Some(bytes) = value else {
        return Ok(default_bytes);
    };
    if bytes < QUERY_MEMORY_BYTES_MIN {
        return Err(invalid(
            setting,
            format!("{bytes} bytes is below {QUERY_MEMORY_BYTES_MIN}"),
        ));
    }
    Ok(usize::try_from(bytes).unwrap_or(usize::MAX))
}

fn auth_config(
    spec: Option<AuthSpec>,
    file_users: Vec<UserEntry>,
) -> Result<AuthConfig, ConfigError> {
    for user in &file_users {
        check_user(user)?;
    }
    let mut users = Vec::with_capacity(file_users.len() + 1);
    let enabled = match spec {
        Some(AuthSpec::None) => false,
        Some(AuthSpec::Basic { user, password }) => {
            // Checked here rather than when the flag is parsed, so that no parser's error
            // message repeats the password.
            check_password(&password).map_err(|reason| invalid("auth", reason))?;
            users.push(UserEntry {
                name: user,
                password_hash: None,
                password: Some(password),
                admin: true,
            });
            true
        }
        // Users listed in the file switch authentication on by themselves.
        None => !file_users.is_empty(),
    };
    if !enabled {
        return Ok(AuthConfig {
            enabled,
            users: Vec::new(),
            metrics_auth: false,
        });
    }
    for user in file_users {
        if users
            .iter()
            .any(|known: &UserEntry| known.name == user.name)
        {
            return Err(invalid(
                "users",
                format!("user `{}` is defined twice", user.name),
            ));
        }
        users.push(user);
    }
    Ok(AuthConfig {
        enabled,
        users,
        metrics_auth: false,
    })
}

/// A listener reachable beyond this machine never serves without authentication by accident:
/// that takes `--auth none` and the acknowledging flag together.
fn check_exposure(
    listeners: &[(&str, SocketAddr)],
    auth: &AuthConfig,
    acknowledged: bool,
) -> Result<(), ConfigError> {
    if auth.enabled || acknowledged {
        return Ok(());
    }
    let Some((name, addr)) = listeners.iter().find(|(_, addr)| !addr.ip().is_loopback()) else {
        return Ok(());
    };
    Err(invalid(
        "auth",
        format!(
            "the {name} listener on {addr} is reachable beyond this machine and authentication is off: \
             give --auth USER/PASSWORD (or [[users]] in the configuration file), or, to serve \
             without authentication on purpose, --auth none --allow-unauthenticated-network"
        ),
    ))
}

/// TLS: a certificate and key together turn it on, and each listener is `optional` unless set;
/// a mode other than `off`, or a client CA, without them is a mistake to report.
fn tls_settings(layer: &mut Layer) -> Result<Option<TlsSettings>, ConfigError> {
    let (cert, key) = match (layer.tls_cert.take(), layer.tls_key.take()) {
        (Some(cert), Some(key)) => (cert, key),
        (Some(_), None) => return Err(invalid("tls_key", "--tls-cert needs it".to_owned())),
        (None, Some(_)) => return Err(invalid("tls_cert", "--tls-key needs it".to_owned())),
        (None, None) => {
            for (setting, mode) in [("bolt_tls", layer.bolt_tls), ("http_tls", layer.http_tls)] {
                if mode.is_some_and(|mode| mode != TlsMode::Off) {
                    return Err(invalid(
                        setting,
                        format!(
                            "{} needs a certificate: give --tls-cert and --tls-key",
                            mode.unwrap_or(TlsMode::Off)
                        ),
                    ));
                }
            }
            if layer.tls_client_ca.is_some() {
                return Err(invalid(
                    "tls_client_ca",
                    "needs a certificate: give --tls-cert and --tls-key".to_owned(),
                ));
            }
            return Ok(None);
        }
    };
    for (setting, path) in [
        ("tls_cert", Some(&cert)),
        ("tls_key", Some(&key)),
        ("tls_client_ca", layer.tls_client_ca.as_ref()),
    ] {
        if path.is_some_and(|path| path.as_os_str().is_empty()) {
            return Err(invalid(setting, "must not be empty".to_owned()));
        }
    }
    Ok(Some(TlsSettings {
        cert,
        key,
        client_ca: layer.tls_client_ca.take(),
        bolt: layer.bolt_tls.unwrap_or(TlsMode::Optional),
        http: layer.http_tls.unwrap_or(TlsMode::Optional),
    }))
}

fn check_user(user: &UserEntry) -> Result<(), ConfigError> {
    if user.name.is_empty() || user.name.len() > CREDENTIAL_BYTES_MAX {
        return Err(invalid(
            "users",
            format!("a user name must be 1..={CREDENTIAL_BYTES_MAX} bytes"),
        ));
    }
    match (&user.password_hash, &user.password) {
        (Some(_), Some(_)) | (None, None) => Err(invalid(
            "users",
            format!(
                "user `{}` needs exactly one of password_hash and password",
                user.name
            ),
        )),
        (Some(hash), None) => argon2::PasswordHash::new(hash)
            .map(|_| ())
            .map_err(|error| {
                invalid(
                    "users",
                    format!(
                        "user `{}`: password_hash is not a PHC string: {error}",
                        user.name
                    ),
                )
            }),
        (None, Some(password)) => check_password(password)
            .map_err(|reason| invalid("users", format!("user `{}`: {reason}", user.name))),
    }
}

/// Default share of the HTTP API's open transactions (1000) one user or one address may hold: a
/// quarter, so it takes four clients, not one, to fill the server.
pub const HTTP_TRANSACTIONS_PER_CLIENT_DEFAULT: u32 = 250;

fn bounded_count(setting: &'static str, value: u32, minimum: u32) -> Result<u32, ConfigError> {
    if (minimum..=CONNECTIONS_MAX_LIMIT).contains(&value) {
        Ok(value)
    } else {
        Err(invalid(
            setting,
            format!("{value} is outside {minimum}..={CONNECTIONS_MAX_LIMIT}"),
        ))
    }
}

fn timeout(
    setting: &'static str,
    value: Option<u64>,
    default_ms: u64,
) -> Result<Duration, ConfigError> {
    let ms = value.unwrap_or(default_ms);
    if (1..=TIMEOUT_MS_LIMIT).contains(&ms) {
        Ok(Duration::from_millis(ms))
    } else {
        Err(invalid(
            setting,
            format!("{ms} ms is outside 1..={TIMEOUT_MS_LIMIT}"),
        ))
    }
}

/// A timeout that 0 turns off.
fn optional_timeout(
    setting: &'static str,
    value: Option<u64>,
    default_ms: u64,
) -> Result<Option<Duration>, ConfigError> {
    match value.unwrap_or(default_ms) {
        0 => Ok(None),
        ms => timeout(setting, Some(ms), default_ms).map(Some),
    }
}

/// The query log's settings, when a path is given.
fn query_log(layer: &mut Layer) -> Result<Option<QueryLogSettings>, ConfigError> {
    let Some(path) = layer.query_log.take() else {
        return Ok(None);
    };
    let mut settings = QueryLogSettings::at(&path);
    settings.mode = layer.query_log_enabled.unwrap_or(settings.mode);
    let threshold_ms = layer.query_log_threshold_ms.unwrap_or(0);
    if threshold_ms > TIMEOUT_MS_LIMIT {
        return Err(invalid(
            "query_log_threshold_ms",
            format!("{threshold_ms} is past the longest, {TIMEOUT_MS_LIMIT}"),
        ));
    }
    settings.threshold = Duration::from_millis(threshold_ms);
    settings.parameters = layer.query_log_parameters.unwrap_or(false);
    settings.rotation_bytes = layer
        .query_log_rotation_bytes
        .unwrap_or(settings.rotation_bytes);
    if settings.rotation_bytes < 1024 {
        return Err(invalid(
            "query_log_rotation_bytes",
            format!("{} is under the smallest, 1024", settings.rotation_bytes),
        ));
    }
    settings.rotation_keep = layer
        .query_log_rotation_keep
        .unwrap_or(settings.rotation_keep);
    Ok(Some(settings))
}

fn invalid(setting: &'static str, reason: String) -> ConfigError {
    ConfigError::Invalid { setting, reason }
}

#[cfg(test)]
mod tests;

/// Cluster mode's settings, checked: node id, Raft listener and either initial members (a new
/// cluster) or a member to join (a running one), or none of them; a data directory (the Raft
/// log is the member's durability).
struct ClusterLayer {
    node_id: Option<u64>,
    raft_listen: Option<SocketAddr>,
    initial_members: Option<Members>,
    join: Option<String>,
    snapshot_entries: Option<u64>,
    election_timeout_ms: Option<u64>,
    advertised_address: Option<String>,
    reads_on_leader: Option<bool>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    tls_ca: Option<PathBuf>,
    allow_plain_network: Option<bool>,
}

/// Raft entries between a cluster member's snapshots, unless configured.
const SNAPSHOT_ENTRIES_DEFAULT: u64 = 10_000;
/// A leader silent for 1.5–2 times this is replaced: 0.9–1.2 s, so that failover (detection,
/// one vote, the new term's first entry) stays within 2 s.
const ELECTION_TIMEOUT_DEFAULT_MS: u64 = 600;
/// Below this, heartbeats (a tenth of the timeout) would come faster than a loaded member
/// can be relied on to send them.
const ELECTION_TIMEOUT_MIN_MS: u64 = 100;

fn cluster_settings(
    layer: ClusterLayer,
    storage: &StorageMode,
) -> Result<Option<ClusterSettings>, ConfigError> {
    let Some(node_id) = layer.node_id else {
        refuse_cluster_settings_alone(&layer)?;
        return Ok(None);
    };
    if node_id == 0 {
        return Err(invalid("node_id", "ids start at 1".to_owned()));
    }
    let Some(raft_listen) = layer.raft_listen else {
        return Err(invalid("raft_listen", "cluster mode needs it".to_owned()));
    };
    let tls = cluster_tls_settings(&layer, raft_listen)?;
    let (initial_members, join) = match (&layer.initial_members, layer.join) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "join",
                "a member either starts a new cluster (--initial-members) or joins a running one (--join), not both".to_owned(),
            ));
        }
        (None, None) => {
            return Err(invalid(
                "initial_members",
                "cluster mode needs it, or --join to join a running cluster".to_owned(),
            ));
        }
        (Some(members), None) => {
            if !members.0.contains_key(&node_id) {
                return Err(invalid(
                    "initial_members",
                    format!("does not name this member ({node_id}): {members}"),
                ));
            }
            (members.0.clone(), None)
        }
        (None, Some(join)) => {
            let join = join.trim().to_owned();
            if join
                .rsplit_once(':')
                .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err())
            {
                return Err(invalid("join", format!("`{join}` is not HOST:PORT")));
            }
            (std::collections::BTreeMap::new(), Some(join))
        }
    };
    let snapshot_entries = layer.snapshot_entries.unwrap_or(SNAPSHOT_ENTRIES_DEFAULT);
    if snapshot_entries == 0 {
        return Err(invalid(
            "raft_snapshot_entries",
            "must be 1 or more".to_owned(),
        ));
    }
    let election_timeout_ms = layer
        .election_timeout_ms
        .unwrap_or(ELECTION_TIMEOUT_DEFAULT_MS);
    if election_timeout_ms < ELECTION_TIMEOUT_MIN_MS {
        return Err(invalid(
            "raft_election_timeout_ms",
            format!("must be {ELECTION_TIMEOUT_MIN_MS} or more"),
        ));
    }
    if *storage == StorageMode::InMemory {
        return Err(invalid(
            "in_memory",
            "a cluster member keeps its Raft log on disk: give --data-dir".to_owned(),
        ));
    }
    if let Some(host) = &layer.advertised_address
        && (host.trim().is_empty() || host.contains('/'))
    {
        return Err(invalid(
            "advertised_address",
            format!("`{host}` is not a host"),
        ));
    }
    Ok(Some(ClusterSettings {
        node_id,
        raft_listen,
        initial_members,
        join,
        snapshot_entries,
        election_timeout_ms,
        advertised_address: layer.advertised_address,
        reads_on_leader: layer.reads_on_leader.unwrap_or(false),
        tls,
    }))
}

/// Outside cluster mode, a cluster setting is a mistake to report rather than ignore.
fn refuse_cluster_settings_alone(layer: &ClusterLayer) -> Result<(), ConfigError> {
    for (set, setting) in [
        (layer.raft_listen.is_some(), "raft_listen"),
        (layer.initial_members.is_some(), "initial_members"),
        (layer.join.is_some(), "join"),
        (layer.snapshot_entries.is_some(), "raft_snapshot_entries"),
        (
            layer.election_timeout_ms.is_some(),
            "raft_election_timeout_ms",
        ),
        (layer.tls_cert.is_some(), "cluster_tls_cert"),
        (layer.tls_key.is_some(), "cluster_tls_key"),
        (layer.tls_ca.is_some(), "cluster_tls_ca"),
    ] {
        if set {
            return Err(invalid(
                setting,
                "needs --node-id (cluster mode)".to_owned(),
            ));
        }
    }
    Ok(())
}

/// Cluster TLS: the certificate, key and CA together turn it on. Without it, a Raft listener
/// beyond loopback is refused unless `--allow-plain-cluster-network` says so on purpose:
/// whoever reaches a plain listener may claim a member's id.
fn cluster_tls_settings(
    layer: &ClusterLayer,
    raft_listen: SocketAddr,
) -> Result<Option<ClusterTlsSettings>, ConfigError> {
    let given = [
        ("cluster_tls_cert", &layer.tls_cert),
        ("cluster_tls_key", &layer.tls_key),
        ("cluster_tls_ca", &layer.tls_ca),
    ];
    if let Some((setting, _)) = given
        .iter()
        .find(|(_, path)| path.as_ref().is_some_and(|p| p.as_os_str().is_empty()))
    {
        return Err(invalid(setting, "must not be empty".to_owned()));
    }
    match (&layer.tls_cert, &layer.tls_key, &layer.tls_ca) {
        (Some(cert), Some(key), Some(ca)) => Ok(Some(ClusterTlsSettings {
            cert: cert.clone(),
            key: key.clone(),
            ca: ca.clone(),
        })),
        (None, None, None) => {
            if !raft_listen.ip().is_loopback() && layer.allow_plain_network != Some(true) {
                return Err(invalid(
                    "raft_listen",
                    format!(
                        "the Raft listener on {raft_listen} is reachable beyond this machine and \
                         cluster TLS is off, so anyone who reaches it may act as a member: give \
                         --cluster-tls-cert, --cluster-tls-key and --cluster-tls-ca, or, on a \
                         network where that is safe, --allow-plain-cluster-network"
                    ),
                ));
            }
            Ok(None)
        }
        _ => {
            let (missing, _) = given
                .iter()
                .find(|(_, path)| path.is_none())
                .copied()
                .unwrap_or(("cluster_tls_ca", &None));
            Err(invalid(
                missing,
                "cluster TLS needs --cluster-tls-cert, --cluster-tls-key and --cluster-tls-ca together"
                    .to_owned(),
            ))
        }
    }
}
