//! Engine configuration and per-transaction options.

use std::sync::Arc;
use std::time::Duration;

use quiver_value::Map;

/// Limits and sizes of a [`crate::Database`]. Every limit is on by default: a query that runs
/// away fails cleanly instead of taking the server with it.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Compiled plans kept, keyed by query text.
    pub plan_cache_entries_max: usize,
    /// Estimated bytes the cached plans may hold together. A plan over a sixteenth of it is
    /// not cached (it is planned again each time it runs), a query text over 16 KiB is cached
    /// from its second run on, and past the limit the least recently used plans go. Lower it
    /// on a small machine serving many large distinct queries; raising it only helps when
    /// more distinct large queries repeat than fit. Zero: no plan is cached.
    pub plan_cache_bytes_max: usize,
    /// Wall-clock limit of one query (from `run` to its last row), unless the transaction sets
    /// a shorter one. `None`: unlimited.
    pub query_time_max: Option<Duration>,
    /// Approximate bytes one query may hold: sort, top-n, DISTINCT, aggregation (with its
    /// DISTINCT sets and collected lists) and eager buffers, path frontiers, and the strings,
    /// lists and maps its expressions build; with it, what its transaction's uncommitted
    /// writes hold so far (an estimate per change plus the values written, kept across the
    /// transaction's queries until it commits or rolls back). A query past it fails with
    /// `Neo.TransientError.General.TransactionMemoryLimit`; the others go on.
    pub query_memory_bytes_max: usize,
    /// Approximate bytes all running queries of the database may hold together (Neo4j's
    /// `dbms.memory.transaction.total.max`), so several large queries cannot take the
    /// machine. The query that would pass it fails with
    /// `Neo.TransientError.General.MemoryPoolOutOfMemoryError`; the others go on. Default:
    /// 70% of physical memory.
    pub query_memory_total_bytes_max: usize,
    /// Queries one explicit transaction may have open at once (Bolt `qid`s).
    pub open_queries_max: usize,
    /// Longest query text accepted.
    pub query_bytes_max: usize,
    /// Deepest expression or pattern nesting accepted by the parser.
    pub parse_depth_max: usize,
    /// Longest path a variable-length pattern without an upper bound explores.
    pub var_length_hops_max: u32,
    /// How long a writer that meets another transaction's uncommitted change waits for that
    /// transaction to end, from its first such meeting in a query. When the query is the
    /// first thing its transaction did and has returned nothing yet, the transaction then
    /// begins again at a fresh snapshot (as if it had started after the holder) and runs the
    /// query again, so contention on one hot entity becomes a queue instead of a storm of
    /// client retries; otherwise, or when the wait runs out, the query fails with a
    /// retryable error (`Neo.TransientError.Transaction.LockAcquisitionTimeout`, or
    /// `...Outdated` when the change was committed after this transaction's snapshot).
    /// Zero: never wait.
    pub lock_wait_max: Duration,
    /// Whether each query's CPU time is measured (Neo4j's `db.track_query_cpu_time`): two
    /// reads of the thread's CPU clock per step of its work, a system call each, which is why
    /// it is off unless asked for.
    pub track_query_cpu_time: bool,
    /// The directory `LOAD CSV` reads `file:///` URLs under (the root of every such URL, as
    /// Neo4j's `server.directories.import`); nothing outside it is read. `None`: `LOAD CSV`
    /// is refused.
    pub import_dir: Option<std::path::PathBuf>,
    /// Whether `count(*)` over a chain of expansions may be computed per node instead of per
    /// path (EXPLAIN shows `FactorizedCount`). Off: the row-at-a-time plan runs, as for a
    /// user from whom privileges hide part of the graph. For comparisons and tests.
    pub factorized_counts: bool,
    /// The pool the running queries take their memory from, when it is shared with the
    /// server's other databases (so `query_memory_total_bytes_max` bounds them all
    /// together); `None`: a pool of the database's own, of `query_memory_total_bytes_max`.
    pub query_memory_pool: Option<crate::memory::SharedPool>,
    /// The most threads one query runs on: an aggregation over a large scan splits the scan
    /// among this many workers (the query's own thread and helpers it borrows). 1: every
    /// query runs on its own thread alone. Default: the machine's cores.
    pub query_workers_max: usize,
    /// The fewest nodes a scan must have per worker before a query splits it (a scan of
    /// fewer runs on one thread: starting a worker costs about what a few hundred rows do).
    pub parallel_scan_min: u64,
    /// The helper threads queries borrow to run in parallel, when shared with other
    /// databases than the machine's default pool (one helper per core beyond the first,
    /// shared by every database in the process).
    pub helper_pool: Option<crate::HelperPool>,
}

/// The default lock wait: long enough for a queue of a few hundred short transactions on one
/// entity (each holds its change for a client round trip, about a millisecond), short enough
/// that a holder that went quiet costs a waiter one second before its driver's own retry
/// (with back-off) takes over.
pub const LOCK_WAIT_DEFAULT: Duration = Duration::from_secs(1);

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            plan_cache_entries_max: 1024,
            plan_cache_bytes_max: 128 << 20,
            query_time_max: None,
            query_memory_bytes_max: 1 << 30,
            query_memory_total_bytes_max: crate::memory::default_total_bytes_max(),
            open_queries_max: 64,
            query_bytes_max: 1 << 20,
            parse_depth_max: 200,
            var_length_hops_max: 64,
            lock_wait_max: LOCK_WAIT_DEFAULT,
            track_query_cpu_time: false,
            import_dir: None,
            factorized_counts: true,
            query_memory_pool: None,
            query_workers_max: std::thread::available_parallelism().map_or(1, usize::from),
            parallel_scan_min: 50_000,
            helper_pool: None,
        }
    }
}

/// Whether a transaction may write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AccessMode {
    Read,
    #[default]
    Write,
}

/// How a transaction is begun.
#[derive(Clone, Debug, Default)]
pub struct TxOptions {
    pub mode: AccessMode,
    /// Overrides [`EngineConfig::query_time_max`] for the transaction's queries; the
    /// transaction as a whole is also bounded by it.
    pub timeout: Option<Duration>,
    /// Client metadata, shown by `SHOW TRANSACTIONS`.
    pub metadata: Map,
    /// The authenticated user running the transaction (`SHOW CURRENT USER`); `None` when
    /// authentication is off or the embedder names none.
    pub user: Option<Arc<str>>,
    /// An auto-commit transaction runs exactly one query and commits itself when that query's
    /// last row has been pulled (or discarded); the summary then carries the commit.
    pub auto_commit: bool,
    /// The client's address, when the embedder knows it: procedures that administer the
    /// server name it in the audit log.
    pub client: Option<std::net::SocketAddr>,
    /// The protocol the client came over (`bolt`, `http`), when the embedder says: change
    /// events name it.
    pub connection: Option<&'static str>,
}

impl TxOptions {
    /// An auto-commit transaction in write mode: what one query outside `BEGIN` gets.
    pub fn auto_commit() -> Self {
        TxOptions {
            auto_commit: true,
            ..TxOptions::default()
        }
    }

    /// An explicit read transaction.
    pub fn read() -> Self {
        TxOptions {
            mode: AccessMode::Read,
            ..TxOptions::default()
        }
    }
}

/// One configuration setting, as `SHOW SETTINGS` and `dbms.listConfig` list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Neo4j's name where Quiver has the same setting (`db.transaction.timeout`), Quiver's
    /// own (`quiver.*`) otherwise.
    pub name: String,
    /// The effective value, as text; `None` when unset.
    pub value: Option<String>,
    pub default_value: Option<String>,
    pub description: String,
    /// Whether it can change while the server runs (`dbms.setConfigValue`).
    pub dynamic: bool,
    /// Whether the operator set it (flag, environment or file) rather than left the default.
    pub explicitly_set: bool,
}

impl Setting {
    /// A setting the operator has not changed.
    pub fn new(name: &str, value: impl Into<String>, description: &str) -> Setting {
        let value = value.into();
        Setting {
            name: name.to_owned(),
            value: Some(value.clone()),
            default_value: Some(value),
            description: description.to_owned(),
            dynamic: false,
            explicitly_set: false,
        }
    }
}

/// The engine's own settings, under Neo4j's names where Neo4j has the same limit: what
/// `SHOW SETTINGS` lists for an embedded database, and what a server lists beside its own.
pub fn engine_settings(config: &EngineConfig) -> Vec<Setting> {
    let defaults = EngineConfig::default();
    let mut out = Vec::new();
    let mut add = |name: &str, value: String, default: String, description: &str| {
        let mut s = Setting::new(name, value.clone(), description);
        s.explicitly_set = value != default;
        s.default_value = Some(default);
        out.push(s);
    };
    let duration = |d: Option<std::time::Duration>| {
        d.map_or("0s".to_owned(), |d| format!("{}ms", d.as_millis()))
    };
    add(
        "db.transaction.timeout",
        duration(config.query_time_max),
        duration(defaults.query_time_max),
        "The longest a query may run unless its transaction sets a shorter timeout; 0s is no limit.",
    );
    add(
        "db.lock.acquisition.timeout",
        duration(Some(config.lock_wait_max)),
        duration(Some(defaults.lock_wait_max)),
        "How long a writer waits for another transaction's uncommitted change to be committed or rolled back.",
    );
    add(
        "db.track_query_cpu_time",
        config.track_query_cpu_time.to_string(),
        defaults.track_query_cpu_time.to_string(),
        "Whether each query's CPU time is measured (the query log's `cpu` field).",
    );
    add(
        "db.memory.transaction.max",
        config.query_memory_bytes_max.to_string(),
        defaults.query_memory_bytes_max.to_string(),
        "The bytes one query may hold in sorts, aggregations, DISTINCT and the values it builds.",
    );
    add(
        "dbms.memory.transaction.total.max",
        config.query_memory_total_bytes_max.to_string(),
        defaults.query_memory_total_bytes_max.to_string(),
        "The bytes all running queries may hold together.",
    );
    add(
        "server.memory.query_cache.per_db_cache_num_entries",
        config.plan_cache_entries_max.to_string(),
        defaults.plan_cache_entries_max.to_string(),
        "The number of compiled query plans kept.",
    );
    add(
        "quiver.plan_cache.bytes.max",
        config.plan_cache_bytes_max.to_string(),
        defaults.plan_cache_bytes_max.to_string(),
        "The estimated bytes the compiled query plans may hold together.",
    );
    add(
        "quiver.query.bytes.max",
        config.query_bytes_max.to_string(),
        defaults.query_bytes_max.to_string(),
        "The longest query text accepted, in bytes.",
    );
    add(
        "quiver.query.var_length_hops.max",
        config.var_length_hops_max.to_string(),
        defaults.var_length_hops_max.to_string(),
        "The longest path a variable-length pattern without an upper bound explores.",
    );
    add(
        "quiver.transaction.open_queries.max",
        config.open_queries_max.to_string(),
        defaults.open_queries_max.to_string(),
        "The queries one explicit transaction may have open at once.",
    );
    out
}
