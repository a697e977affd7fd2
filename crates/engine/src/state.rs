//! What a database shares with its transactions and running queries: the store and its
//! commit log, the plan cache, the procedure registry, the registry of running transactions,
//! the memory pool, and what the embedder set (settings, servers, authentication, the audit
//! sink).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use parking_lot::{Mutex, RwLock};

use quiver_storage::{CommitLog, Storage, StoreHandle};
use quiver_value::Map;

use crate::cache::PlanCache;
use crate::config::{EngineConfig, Setting};
use crate::memory::MemoryPool;
use crate::metadata::servers::ServerDirectory;
use crate::procedures::{Procedure, Procedures};
use crate::security::{AuditEvent, AuditSink, Authentication};
use crate::summary::TransactionInfo;

/// A running transaction as the registry knows it.
struct TxEntry {
    started: SystemTime,
    query: Option<String>,
    metadata: Map,
    user: Option<Arc<str>>,
    /// The client's address, when the embedder gave it ([`crate::TxOptions::client`]).
    client: Option<std::net::SocketAddr>,
    /// The client's protocol, when the embedder gave it ([`crate::TxOptions::connection`]).
    connection: Option<&'static str>,
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
    /// Room every running query of the database takes its memory from (shared with the
    /// server's other databases when the configuration gives a pool).
    pub memory: Arc<MemoryPool>,
    /// The helper threads its queries may borrow to run in parallel.
    pub helpers: crate::exec::parallel::HelperPool,
    pub cache: Mutex<PlanCache>,
    procedures: RwLock<Arc<Procedures>>,
    /// Bumped by schema changes and procedure registration: cached plans from an older epoch
    /// are planned again.
    epoch: AtomicU64,
    registry: Mutex<HashMap<u64, TxEntry>>,
    next_tx: AtomicU64,
    /// Transactions begun again at a fresh snapshot after waiting out a write conflict.
    begun_again: AtomicU64,
    /// Set by [`crate::Database::set_settings`].
    settings: RwLock<Option<Arc<Vec<Setting>>>>,
    /// Set by [`crate::Database::set_servers`].
    servers: RwLock<Option<ServerDirectory>>,
    /// The data directory, for a database [`crate::Database::open`] opened (`dbms.queryJmx`'s store
    /// sizes).
    pub data_dir: Option<std::path::PathBuf>,
    /// Set by [`crate::Database::set_authentication`]: `None` while authentication is off.
    authentication: RwLock<Option<Arc<Authentication>>>,
    /// Set by [`crate::Database::set_audit_sink`].
    audit_sink: RwLock<Option<AuditSink>>,
    /// When the database was opened (`db.info`, `SHOW DATABASES`).
    pub opened: quiver_value::temporal::Instant,
    /// Set by [`crate::Database::set_catalog`]: its name and the server's default database's.
    names: RwLock<Names>,
    /// Set by [`crate::Database::set_catalog`]: the server's databases. Weak: the catalog
    /// holds its databases.
    catalog: RwLock<Option<std::sync::Weak<dyn crate::catalog::DatabaseCatalog>>>,
    /// Set by [`crate::Database::share_security_of`]: the database whose users, roles and
    /// privileges this one's transactions run under.
    security_of: RwLock<Option<Arc<DatabaseState>>>,
    /// Set by [`crate::Database::set_read_only`] (`ALTER DATABASE ... SET ACCESS READ ONLY`).
    pub read_only: std::sync::atomic::AtomicBool,
}

/// A database's name and its server's default database's, lower case.
#[derive(Clone)]
pub(crate) struct Names {
    pub name: Arc<str>,
    pub default: Arc<str>,
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
                connection: None,
                cancel,
            },
        );
        id
    }

    /// Records the address of a running transaction's client and the protocol it came over.
    pub fn set_tx_client(
        &self,
        id: u64,
        client: Option<std::net::SocketAddr>,
        connection: Option<&'static str>,
    ) {
        if let Some(e) = self.registry.lock().get_mut(&id) {
            e.client = client;
            e.connection = connection;
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

    /// This database's number of the transaction named `name` (`<database>-transaction-N`);
    /// `None` for another database's, or no transaction's.
    fn tx_number(&self, name: &str) -> Option<u64> {
        let (database, n) = name.rsplit_once("-transaction-")?;
        if !database.eq_ignore_ascii_case(&self.names().name) {
            return None;
        }
        n.parse().ok()
    }

    /// Who runs the transaction named `name` (`<database>-transaction-N`), if it runs here.
    pub fn tx_owner(&self, name: &str) -> Option<TxOwner> {
        let id = self.tx_number(name)?;
        self.registry
            .lock()
            .get(&id)
            .map(|e| TxOwner(e.user.clone()))
    }

    /// Who runs a transaction and from where, as its change events name it (change data
    /// capture): its user, its client and protocol (when the embedder gave them), when it
    /// began and its metadata now (`tx.setMetaData` included).
    pub(crate) fn change_context(&self, id: u64) -> quiver_storage::ChangeContext {
        let registry = self.registry.lock();
        let Some(e) = registry.get(&id) else {
            return quiver_storage::ChangeContext::default();
        };
        let start_micros = e
            .started
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX));
        quiver_storage::ChangeContext {
            executing_user: e.user.clone(),
            authenticated_user: e.user.clone(),
            connection_type: e.connection.map(Arc::from),
            client: e.client.map(|c| Arc::from(c.to_string())),
            start_micros,
            metadata: e.metadata.clone(),
        }
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
        Arc::new(crate::config::engine_settings(&self.config))
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

    pub fn transactions_open(&self) -> usize {
        self.registry.lock().len()
    }

    pub fn transactions(&self) -> Vec<TransactionInfo> {
        let mut out: Vec<TransactionInfo> = self
            .registry
            .lock()
            .iter()
            .map(|(id, e)| TransactionInfo {
                id: self.tx_name(*id),
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
        let Some(id) = self.tx_number(name) else {
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

impl DatabaseState {
    /// The name `SHOW TRANSACTIONS` shows for this database's transaction `id`, as Neo4j
    /// names them: `<database>-transaction-N`.
    pub fn tx_name(&self, id: u64) -> String {
        format!("{}-transaction-{id}", self.names().name)
    }

    /// The state of a database over `store`, committing to `log`, with `procedures`
    /// registered.
    pub fn new(
        store: Store,
        log: Option<Arc<dyn CommitLog>>,
        config: EngineConfig,
        data_dir: Option<std::path::PathBuf>,
        procedures: Procedures,
    ) -> DatabaseState {
        let capacity = config.plan_cache_entries_max;
        let cache_bytes_max = config.plan_cache_bytes_max;
        DatabaseState {
            store,
            log,
            memory: config.query_memory_pool.as_ref().map_or_else(
                || Arc::new(MemoryPool::new(config.query_memory_total_bytes_max)),
                |pool| Arc::clone(&pool.0),
            ),
            helpers: config
                .helper_pool
                .clone()
                .unwrap_or_else(crate::exec::parallel::HelperPool::machine),
            config,
            cache: Mutex::new(PlanCache::new(capacity, cache_bytes_max)),
            procedures: RwLock::new(Arc::new(procedures)),
            epoch: AtomicU64::new(0),
            registry: Mutex::new(HashMap::new()),
            next_tx: AtomicU64::new(1),
            begun_again: AtomicU64::new(0),
            settings: RwLock::new(None),
            servers: RwLock::new(None),
            data_dir,
            authentication: RwLock::new(None),
            audit_sink: RwLock::new(None),
            opened: quiver_value::temporal::Instant::now(),
            names: RwLock::new(Names {
                name: Arc::from(crate::catalog::DEFAULT_DATABASE),
                default: Arc::from(crate::catalog::DEFAULT_DATABASE),
            }),
            catalog: RwLock::new(None),
            security_of: RwLock::new(None),
            read_only: std::sync::atomic::AtomicBool::new(false),
        }
    }

    pub fn set_catalog(&self, name: &str, catalog: Arc<dyn crate::catalog::DatabaseCatalog>) {
        *self.names.write() = Names {
            name: Arc::from(crate::catalog::key(name)),
            default: Arc::from(crate::catalog::key(&catalog.default_database())),
        };
        *self.catalog.write() = Some(Arc::downgrade(&catalog));
    }

    /// The catalog this database is listed in; `None` for a server's only database (or once
    /// the server has let its catalog go).
    pub fn catalog(&self) -> Option<Arc<dyn crate::catalog::DatabaseCatalog>> {
        self.catalog
            .read()
            .as_ref()
            .and_then(std::sync::Weak::upgrade)
    }

    /// This database's name and the server's default database's (without a catalog, both
    /// [`crate::catalog::DEFAULT_DATABASE`]).
    pub fn names(&self) -> Names {
        self.names.read().clone()
    }

    pub fn share_security_of(&self, owner: Arc<DatabaseState>) {
        *self.security_of.write() = Some(owner);
    }

    /// Whether the users, roles and privileges are another database's (they are changed
    /// there, not here).
    pub fn borrows_security(&self) -> bool {
        self.security_of.read().is_some()
    }

    /// The users, roles and privileges as last committed, from the database that keeps them.
    pub fn security(&self) -> Arc<quiver_storage::Security> {
        match &*self.security_of.read() {
            Some(owner) => owner.storage().security(),
            None => self.storage().security(),
        }
    }

    /// Adds or replaces procedures in one change of the registry; cached plans are planned
    /// again.
    pub fn register_procedures(&self, procedures: impl IntoIterator<Item = Arc<dyn Procedure>>) {
        let mut guard = self.procedures.write();
        let mut next = (**guard).clone();
        for procedure in procedures {
            next.register(procedure);
        }
        *guard = Arc::new(next);
        drop(guard);
        self.schema_changed();
    }

    pub fn set_settings(&self, settings: Vec<Setting>) {
        *self.settings.write() = Some(Arc::new(settings));
    }

    pub fn set_servers(&self, servers: ServerDirectory) {
        *self.servers.write() = Some(servers);
    }

    pub fn set_authentication(&self, authentication: Option<Authentication>) {
        *self.authentication.write() = authentication.map(Arc::new);
    }

    pub fn set_audit_sink(&self, sink: AuditSink) {
        *self.audit_sink.write() = Some(sink);
    }

    /// Transactions begun again at a fresh snapshot after waiting out a write conflict.
    pub fn begun_again(&self) -> u64 {
        self.begun_again.load(Ordering::Relaxed)
    }
}
