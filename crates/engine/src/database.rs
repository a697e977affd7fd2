//! The embedded database: storage, plan cache, procedures and the registry of running
//! transactions, shared by every session.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use parking_lot::{Mutex, RwLock};

use quiver_durability::{Durability, Mode, Options};
use quiver_storage::{CommitLog, Storage, StoreHandle};
use quiver_value::{Map, Value};

use crate::cache::PlanCache;
use crate::config::{EngineConfig, TxOptions};
use crate::error::Result;
use crate::memory::MemoryPool;
use crate::metadata::{ServerDirectory, Setting};
use crate::procedures::{Procedure, Procedures};
use crate::security::{AuditEvent, AuditSink, Authentication};
use crate::summary::{QuerySummary, TransactionInfo};
use crate::transaction::Transaction;

/// A running transaction as the registry knows it.
struct TxEntry {
    started: SystemTime,
    query: Option<String>,
    metadata: Map,
    user: Option<Arc<str>>,
    /// The client's address, when the embedder gave it ([`TxOptions::client`]).
    client: Option<std::net::SocketAddr>,
    cancel: Arc<AtomicBool>,
}

/// The user a running transaction names (`None`: it names none).
pub(crate) struct TxOwner(pub Option<Arc<str>>);

/// Where the database's store is. A cluster member's store is replaced whole when a snapshot
/// is installed or an unreplicated tail discarded, so every access goes through its one
/// handle (a transaction keeps the store it began on) rather than a copy of the `Arc` taken
/// at open.
pub(crate) enum Store {
    Fixed(Arc<Storage>),
    Swappable(Arc<dyn StoreHandle>),
}

impl Store {
    pub fn current(&self) -> Arc<Storage> {
        match self {
            Store::Fixed(storage) => Arc::clone(storage),
            Store::Swappable(handle) => handle.storage(),
        }
    }
}

/// State shared by the database handle, its transactions and running queries.
pub(crate) struct DatabaseState {
    pub store: Store,
    /// The store's commit log, taken when the database was made: what acknowledgements and
    /// visibility wait on (see [`crate::acknowledge`]), and what refuses writes on a cluster
    /// member that does not lead. `None` in memory.
    pub log: Option<Arc<dyn CommitLog>>,
    pub config: EngineConfig,
    /// Room every running query of the database takes its memory from.
    pub memory: MemoryPool,
    pub cache: Mutex<PlanCache>,
    procedures: RwLock<Arc<Procedures>>,
    /// Bumped by schema changes and procedure registration: cached plans from an older epoch
    /// are planned again.
    epoch: AtomicU64,
    registry: Mutex<HashMap<u64, TxEntry>>,
    next_tx: AtomicU64,
    /// Transactions begun again at a fresh snapshot after waiting out a write conflict.
    begun_again: AtomicU64,
    /// Set by [`Database::set_settings`].
    settings: RwLock<Option<Arc<Vec<Setting>>>>,
    /// Set by [`Database::set_servers`].
    servers: RwLock<Option<ServerDirectory>>,
    /// The data directory, for a database [`Database::open`] opened (`dbms.queryJmx`'s store
    /// sizes).
    pub data_dir: Option<std::path::PathBuf>,
    /// Set by [`Database::set_authentication`]: `None` while authentication is off.
    authentication: RwLock<Option<Arc<Authentication>>>,
    /// Set by [`Database::set_audit_sink`].
    audit_sink: RwLock<Option<AuditSink>>,
    /// When the database was opened (`db.info`, `SHOW DATABASES`).
    pub opened: quiver_value::temporal::Instant,
}

impl DatabaseState {
    /// The store now; hold it for one unit of work (see [`Store`]).
    pub fn storage(&self) -> Arc<Storage> {
        self.store.current()
    }

    /// What cached plans are keyed by: this database's own epoch (procedures registered,
    /// schema changed through it) and the store's schema epoch, which also moves for schema
    /// changes replayed from a leader and for a replaced store. Both stay below 2^32 in any
    /// real process, so packing them keeps distinct pairs distinct.
    pub fn epoch(&self) -> u64 {
        let own = self.epoch.load(Ordering::Acquire) & 0xffff_ffff;
        (self.storage().schema_epoch() << 32) | own
    }

    pub fn note_begun_again(&self) {
        self.begun_again.fetch_add(1, Ordering::Relaxed);
    }

    pub fn schema_changed(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }

    pub fn procedures(&self) -> Arc<Procedures> {
        self.procedures.read().clone()
    }

    /// A transaction number no registered transaction has: for a batch of
    /// `CALL { } IN TRANSACTIONS`, which reports it but is never listed.
    pub fn unregistered_tx_id(&self) -> u64 {
        self.next_tx.fetch_add(1, Ordering::Relaxed)
    }

    pub fn register_tx(
        &self,
        metadata: Map,
        user: Option<Arc<str>>,
        cancel: Arc<AtomicBool>,
    ) -> u64 {
        let id = self.next_tx.fetch_add(1, Ordering::Relaxed);
        self.registry.lock().insert(
            id,
            TxEntry {
                started: SystemTime::now(),
                query: None,
                metadata,
                user,
                client: None,
                cancel,
            },
        );
        id
    }

    /// Records the address of a running transaction's client.
    pub fn set_tx_client(&self, id: u64, client: Option<std::net::SocketAddr>) {
        if let Some(e) = self.registry.lock().get_mut(&id) {
            e.client = client;
        }
    }

    /// The address of a running transaction's client, when it was given.
    pub fn tx_client(&self, id: u64) -> Option<std::net::SocketAddr> {
        self.registry.lock().get(&id).and_then(|e| e.client)
    }

    /// Why this cluster member takes no write now (it does not lead), in the words a client is
    /// shown; `None` where writes are taken (every single-node database).
    pub fn not_leader(&self) -> Option<String> {
        self.log.as_ref().and_then(|log| log.not_leader())
    }

    /// Whether this member takes writes: a cluster follower does not.
    pub fn accepts_writes(&self) -> bool {
        self.not_leader().is_none()
    }

    /// Replaces a running transaction's metadata (`tx.setMetaData`).
    pub fn set_metadata(&self, id: u64, metadata: Map) {
        if let Some(e) = self.registry.lock().get_mut(&id) {
            e.metadata = metadata;
        }
    }

    /// What the server said about authentication; `None` while it is off.
    pub fn authentication(&self) -> Option<Arc<Authentication>> {
        self.authentication.read().clone()
    }

    /// Hands committed user and role changes and terminated transactions to the audit sink.
    pub fn audit(&self, events: impl IntoIterator<Item = AuditEvent>) {
        if let Some(sink) = self.audit_sink.read().clone() {
            for event in events {
                sink(event);
            }
        }
    }

    /// Who runs the transaction named `name` (`neo4j-transaction-N`), if it runs.
    pub fn tx_owner(&self, name: &str) -> Option<TxOwner> {
        let id = name
            .strip_prefix("neo4j-transaction-")
            .and_then(|n| n.parse::<u64>().ok())?;
        self.registry
            .lock()
            .get(&id)
            .map(|e| TxOwner(e.user.clone()))
    }

    /// The user running a transaction, when it names one.
    pub fn tx_user(&self, id: u64) -> Option<Arc<str>> {
        self.registry.lock().get(&id).and_then(|e| e.user.clone())
    }

    /// The settings `SHOW SETTINGS` and `dbms.listConfig` list: the embedder's, or the
    /// engine's own when it has given none.
    pub fn settings(&self) -> Arc<Vec<Setting>> {
        if let Some(settings) = self.settings.read().clone() {
            return settings;
        }
        Arc::new(crate::metadata::engine_settings(&self.config))
    }

    /// What `SHOW SERVERS` lists, when the embedder has published it.
    pub fn servers(&self) -> Option<ServerDirectory> {
        self.servers.read().clone()
    }

    pub fn set_query(&self, id: u64, query: Option<&str>) {
        if let Some(e) = self.registry.lock().get_mut(&id) {
            e.query = query.map(str::to_owned);
        }
    }

    pub fn unregister_tx(&self, id: u64) {
        self.registry.lock().remove(&id);
    }

    pub fn transactions(&self) -> Vec<TransactionInfo> {
        let mut out: Vec<TransactionInfo> = self
            .registry
            .lock()
            .iter()
            .map(|(id, e)| TransactionInfo {
                id: tx_name(*id),
                started: e.started,
                query: e.query.clone(),
                metadata: e.metadata.clone(),
            })
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Marks a transaction terminated; its running query fails at its next check.
    pub fn terminate(&self, name: &str) -> bool {
        let Some(id) = name
            .strip_prefix("neo4j-transaction-")
            .and_then(|n| n.parse::<u64>().ok())
        else {
            return false;
        };
        match self.registry.lock().get(&id) {
            Some(e) => {
                e.cancel.store(true, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }
}

/// The name `SHOW TRANSACTIONS` shows for a transaction id.
pub(crate) fn tx_name(id: u64) -> String {
    format!("neo4j-transaction-{id}")
}

/// A Quiver database: open it, begin transactions, run Cypher.
///
/// [`Database::open`] opens (or creates) a durable database in a directory; every commit an
/// embedding program makes returns once it is acknowledged per the [`Mode`] (on disk in
/// `group` and `sync`):
///
/// ```
/// use quiver_engine::{Database, Mode};
/// # let dir = tempfile::tempdir()?;
/// let db = Database::open(dir.path(), Mode::Group)?;
/// db.execute("CREATE (:Person {name: 'Ann'})", quiver_value::Map::new())?;
/// # drop(db);
/// # let db = Database::open(dir.path(), Mode::Group)?;
/// # let rows = db.execute("MATCH (p:Person) RETURN p.name", quiver_value::Map::new())?.rows;
/// # assert_eq!(rows, vec![vec![quiver_value::Value::from("Ann")]]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// In memory, nothing is written anywhere:
///
/// ```
/// use quiver_engine::{Database, EngineConfig};
/// use quiver_value::{Map, Value};
///
/// let db = Database::open_in_memory(EngineConfig::default());
/// db.execute("CREATE (:Person {name: 'Ann'})", Map::new())?;
/// let result = db.execute("MATCH (p:Person) RETURN p.name AS name", Map::new())?;
/// assert_eq!(result.rows, vec![vec![Value::from("Ann")]]);
/// # Ok::<(), quiver_engine::Error>(())
/// ```
pub struct Database {
    shared: Arc<DatabaseState>,
    /// The data directory's keeper, for a database [`Database::open`] opened: dropped with the
    /// database, which flushes the log and releases the directory.
    durability: Option<Durability>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("durability", &self.durability)
            .finish_non_exhaustive()
    }
}

/// Everything one auto-committed query returned.
#[derive(Clone, Debug)]
pub struct QueryResult {
    pub columns: Vec<Arc<str>>,
    pub rows: Vec<Vec<Value>>,
    pub summary: QuerySummary,
}

impl Database {
    /// Opens the durable database in `dir` (created if missing, recovered if not), with the
    /// default log options and engine configuration. See [`Database::open_with`].
    pub fn open(
        dir: impl AsRef<std::path::Path>,
        mode: Mode,
    ) -> quiver_durability::Result<Arc<Database>> {
        Self::open_with(dir, mode, Options::default(), EngineConfig::default())
    }

    /// Opens the durable database in `dir`: locks the directory, recovers it (newest snapshot,
    /// then the log) and runs the log writer and snapshots until the database is dropped or
    /// [`Database::close`]d.
    pub fn open_with(
        dir: impl AsRef<std::path::Path>,
        mode: Mode,
        options: Options,
        config: EngineConfig,
    ) -> quiver_durability::Result<Arc<Database>> {
        let (storage, durability) = Durability::open(dir, mode, options)?;
        Ok(Self::with_durability(storage, durability, config))
    }

    /// A database over a store [`Durability::open`] (or `open_on`, with an injected disk)
    /// returned, keeping its handle.
    pub fn with_durability(
        storage: Arc<Storage>,
        durability: Durability,
        config: EngineConfig,
    ) -> Arc<Database> {
        let log = storage.commit_log();
        Arc::new(Self::build(
            Store::Fixed(storage),
            log,
            Some(durability),
            config,
        ))
    }

    /// A database over a fresh, empty in-memory store.
    pub fn open_in_memory(config: EngineConfig) -> Arc<Database> {
        Self::with_storage(Storage::new(), config)
    }

    /// A database over an existing store (recovered from disk, or shared with other users).
    /// Its commit log, if one is installed, is the one acknowledgements wait on.
    pub fn with_storage(storage: Arc<Storage>, config: EngineConfig) -> Arc<Database> {
        let log = storage.commit_log();
        Arc::new(Self::build(Store::Fixed(storage), log, None, config))
    }

    /// A database over a store that is replaced whole while it runs (a cluster member's, on a
    /// snapshot install), committing to `log`: acknowledgements are the log's, and so is the
    /// refusal of writes where the member does not lead ([`CommitLog::not_leader`]).
    pub fn with_swappable_store(
        store: Arc<dyn StoreHandle>,
        log: Arc<dyn CommitLog>,
        config: EngineConfig,
    ) -> Arc<Database> {
        Arc::new(Self::build(
            Store::Swappable(store),
            Some(log),
            None,
            config,
        ))
    }

    fn build(
        store: Store,
        log: Option<Arc<dyn CommitLog>>,
        durability: Option<Durability>,
        config: EngineConfig,
    ) -> Database {
        let capacity = config.plan_cache_entries_max;
        let cache_bytes_max = config.plan_cache_bytes_max;
        Database {
            shared: Arc::new(DatabaseState {
                store,
                log,
                memory: MemoryPool::new(config.query_memory_total_bytes_max),
                config,
                cache: Mutex::new(PlanCache::new(capacity, cache_bytes_max)),
                procedures: RwLock::new(Arc::new(Procedures::builtin())),
                epoch: AtomicU64::new(0),
                registry: Mutex::new(HashMap::new()),
                next_tx: AtomicU64::new(1),
                begun_again: AtomicU64::new(0),
                settings: RwLock::new(None),
                servers: RwLock::new(None),
                data_dir: durability.as_ref().map(|d| d.dir().to_owned()),
                authentication: RwLock::new(None),
                audit_sink: RwLock::new(None),
                opened: quiver_value::temporal::Instant::now(),
            }),
            durability,
        }
    }

    /// Pool room the running queries hold now (whole chunks): 0 when none runs.
    pub fn query_memory_reserved_bytes(&self) -> usize {
        self.shared.memory.reserved_bytes()
    }

    pub(crate) fn shared(&self) -> &DatabaseState {
        &self.shared
    }

    /// The data directory's handle (its mode, statistics, snapshots), for a database
    /// [`Database::open`] opened.
    pub fn durability(&self) -> Option<&Durability> {
        self.durability.as_ref()
    }

    /// Flushes the log, writes the closing snapshot (when configured) and releases the data
    /// directory; commits after this fail. What dropping the database does, with the outcome
    /// reported. Nothing to do in memory.
    pub fn close(&self) -> quiver_durability::Result<()> {
        match &self.durability {
            Some(durability) => durability.shutdown(),
            None => Ok(()),
        }
    }

    /// Begins a transaction (explicit, or auto-commit per [`TxOptions::auto_commit`]).
    pub fn begin(&self, opts: TxOptions) -> Result<Transaction> {
        Ok(Transaction::begin(self.shared.clone(), opts))
    }

    /// The store now. In cluster mode a snapshot install replaces it: hold the handle for one
    /// unit of work, not for ever.
    pub fn storage(&self) -> Arc<Storage> {
        self.shared.storage()
    }

    pub fn config(&self) -> &EngineConfig {
        &self.shared.config
    }

    /// Adds (or replaces) a procedure callable with `CALL`.
    pub fn register_procedure(&self, procedure: Arc<dyn Procedure>) {
        self.register_procedures([procedure]);
    }

    /// Adds or replaces procedures, as [`Database::register_procedure`] does each, in one
    /// change of the registry.
    pub fn register_procedures(&self, procedures: impl IntoIterator<Item = Arc<dyn Procedure>>) {
        let mut guard = self.shared.procedures.write();
        let mut next = (**guard).clone();
        for procedure in procedures {
            next.register(procedure);
        }
        *guard = Arc::new(next);
        drop(guard);
        self.shared.schema_changed();
    }

    /// Sets what `SHOW SETTINGS` and `dbms.listConfig` list: a server's effective
    /// configuration (replacing the engine's own settings, which it should include).
    pub fn set_settings(&self, settings: Vec<Setting>) {
        *self.shared.settings.write() = Some(Arc::new(settings));
    }

    /// Sets what `SHOW SERVERS` lists: the embedder's servers (its own listeners, or a
    /// cluster's members), asked again at each command. Without it the database lists
    /// itself at its advertised Bolt address.
    pub fn set_servers(&self, servers: ServerDirectory) {
        *self.shared.servers.write() = Some(servers);
    }

    /// Turns the privilege checks on (see [`crate::security`]): every transaction that names
    /// a user ([`TxOptions::user`]) runs as that user, looked up again at each statement.
    /// `None` turns them off (authentication off: everything is allowed).
    pub fn set_authentication(&self, authentication: Option<Authentication>) {
        *self.shared.authentication.write() = authentication.map(Arc::new);
    }

    /// Where committed user and role changes and terminated transactions are reported
    /// (the server's audit log).
    pub fn set_audit_sink(&self, sink: AuditSink) {
        *self.shared.audit_sink.write() = Some(sink);
    }

    /// Whether any user is stored (made with `CREATE USER`).
    pub fn has_stored_users(&self) -> bool {
        !self.shared.storage().security().users.is_empty()
    }

    /// The stored user `name` (from `CREATE USER`), as last committed: what logins check.
    pub fn stored_user(&self, name: &str) -> Option<quiver_storage::UserRecord> {
        self.shared.storage().security().users.get(name).cloned()
    }

    /// The transactions running now (`SHOW TRANSACTIONS`).
    pub fn transactions(&self) -> Vec<TransactionInfo> {
        self.shared.transactions()
    }

    /// Terminates a running transaction by its `neo4j-transaction-N` id.
    pub fn terminate(&self, id: &str) -> bool {
        self.shared.terminate(id)
    }

    /// Transactions that met another's uncommitted write, waited for it to end and began
    /// again at a fresh snapshot (see [`EngineConfig::lock_wait_max`]), since the database
    /// opened.
    pub fn transactions_begun_again(&self) -> u64 {
        self.shared.begun_again.load(Ordering::Relaxed)
    }

    /// Plans cached now and their estimated bytes.
    pub fn plan_cache_size(&self) -> (usize, usize) {
        let c = self.shared.cache.lock();
        (c.len(), c.bytes())
    }

    /// Plan cache hits and misses since the database opened.
    pub fn plan_cache_stats(&self) -> (u64, u64) {
        let c = self.shared.cache.lock();
        (c.hits, c.misses)
    }

    /// Runs one query in its own auto-commit transaction and collects every row; returns once
    /// its commit is acknowledged.
    pub fn execute(&self, query: &str, params: Map) -> Result<QueryResult> {
        let mut tx = self.begin(TxOptions::auto_commit())?;
        let q = tx.run(query, params)?;
        let columns = tx.fields(q).to_vec();
        let mut rows = Vec::new();
        match tx.pull(q, -1, &mut rows)? {
            crate::PullState::Done(summary) => {
                // The commit is acknowledged before the caller hears of it.
                if let Some(ticket) = summary.commit.as_ref().and_then(|c| c.ticket) {
                    self.durable_blocking(ticket)
                        .map_err(crate::transaction::not_acknowledged)?;
                }
                Ok(QueryResult {
                    columns,
                    rows,
                    summary: *summary,
                })
            }
            crate::PullState::HasMore => Err(crate::Error::request(
                crate::error::code::REQUEST_INVALID,
                "the query did not finish",
            )),
        }
    }
}
