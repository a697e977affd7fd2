//! The embedded database: the handle an embedding program opens, begins transactions on and
//! configures (procedures, settings, servers, authentication, the audit sink). What it
//! shares with its transactions and running queries is [`crate::state`]'s.

use std::sync::Arc;

use quiver_durability::{Durability, Mode, Options};
use quiver_storage::{CommitLog, Storage, StoreHandle};
use quiver_value::{Map, Value};

use crate::config::{EngineConfig, Setting, TxOptions};
use crate::error::Result;
use crate::metadata::ServerDirectory;
use crate::procedures::Procedure;
use crate::security::{AuditSink, Authentication};
use crate::state::{DatabaseState, Store};
use crate::summary::{QuerySummary, TransactionInfo};
use crate::transaction::Transaction;

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
        Database {
            shared: Arc::new(DatabaseState::new(
                store,
                log,
                config,
                durability.as_ref().map(|d| d.dir().to_owned()),
                crate::metadata::builtin_procedures(),
            )),
            durability,
        }
    }

    /// Pool room the running queries hold now (whole chunks): 0 when none runs.
    pub fn query_memory_reserved_bytes(&self) -> usize {
        self.shared.memory.reserved_bytes()
    }

    pub(crate) fn shared(&self) -> &Arc<DatabaseState> {
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
        self.shared.register_procedures(procedures);
    }

    /// Sets what `SHOW SETTINGS` and `dbms.listConfig` list: a server's effective
    /// configuration (replacing the engine's own settings, which it should include).
    pub fn set_settings(&self, settings: Vec<Setting>) {
        self.shared.set_settings(settings);
    }

    /// Sets what `SHOW SERVERS` lists: the embedder's servers (its own listeners, or a
    /// cluster's members), asked again at each command. Without it the database lists
    /// itself at its advertised Bolt address.
    pub fn set_servers(&self, servers: ServerDirectory) {
        self.shared.set_servers(servers);
    }

    /// Turns the privilege checks on (see [`crate::security`]): every transaction that names
    /// a user ([`TxOptions::user`]) runs as that user, looked up again at each statement.
    /// `None` turns them off (authentication off: everything is allowed).
    pub fn set_authentication(&self, authentication: Option<Authentication>) {
        self.shared.set_authentication(authentication);
    }

    /// Where committed user and role changes and terminated transactions are reported
    /// (the server's audit log).
    pub fn set_audit_sink(&self, sink: AuditSink) {
        self.shared.set_audit_sink(sink);
    }

    /// Whether any user is stored (made with `CREATE USER`).
    pub fn has_stored_users(&self) -> bool {
        !self.shared.security().users.is_empty()
    }

    /// The stored user `name` (from `CREATE USER`), as last committed: what logins check.
    pub fn stored_user(&self, name: &str) -> Option<quiver_storage::UserRecord> {
        self.shared.security().users.get(name).cloned()
    }

    /// The home database of stored user `name`, when they have one (read without copying
    /// the user: a session asks at each transaction that names no database).
    pub fn user_home(&self, name: &str) -> Option<String> {
        self.shared.security().users.get(name)?.home.clone()
    }

    /// Lists this database as `name` in `catalog`, the server's databases (see
    /// [`crate::catalog`]): what `SHOW DATABASES` lists, `USE` may name and database
    /// management commands change.
    pub fn set_catalog(&self, name: &str, catalog: Arc<dyn crate::catalog::DatabaseCatalog>) {
        self.shared.set_catalog(name, catalog);
        // Plans checked `USE` against the name: plan again.
        self.shared.schema_changed();
    }

    /// The server's databases or aliases changed: plans that checked a `USE` are planned
    /// again.
    pub fn catalog_changed(&self) {
        self.shared.schema_changed();
    }

    /// Refuses (or again accepts) every write: a statement that writes fails with
    /// `Neo.ClientError.General.ForbiddenOnReadOnlyDatabase`.
    pub fn set_read_only(&self, read_only: bool) {
        self.shared
            .read_only
            .store(read_only, std::sync::atomic::Ordering::Release);
    }

    /// This database's name (`neo4j` unless a catalog names it otherwise).
    pub fn name(&self) -> Arc<str> {
        self.shared.names().name
    }

    /// Runs this database's transactions under `owner`'s users, roles and privileges (the
    /// server's security catalogue is kept by one database): user and role commands are then
    /// refused here, to be run on `owner`.
    pub fn share_security_of(&self, owner: &Database) {
        self.shared.share_security_of(Arc::clone(&owner.shared));
    }

    /// How many transactions are open now.
    pub fn transactions_open(&self) -> usize {
        self.shared.transactions_open()
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
        self.shared.begun_again()
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
                        .map_err(crate::Error::not_acknowledged)?;
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
