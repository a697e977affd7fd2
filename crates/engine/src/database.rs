//! The embedded database: storage, plan cache, procedures and the registry of running
//! transactions, shared by every session.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use parking_lot::{Mutex, RwLock};

use quiver_storage::Storage;
use quiver_value::{Map, Value};

use crate::cache::PlanCache;
use crate::config::{EngineConfig, TxOptions};
use crate::error::Result;
use crate::procedures::{Procedure, Procedures};
use crate::summary::{QuerySummary, TransactionInfo};
use crate::transaction::Transaction;

/// A running transaction as the registry knows it.
struct TxEntry {
    started: SystemTime,
    query: Option<String>,
    metadata: Map,
    cancel: Arc<AtomicBool>,
}

/// State shared by the database handle, its transactions and running queries.
pub(crate) struct DatabaseState {
    pub storage: Arc<Storage>,
    pub config: EngineConfig,
    pub cache: Mutex<PlanCache>,
    procedures: RwLock<Arc<Procedures>>,
    /// Bumped by schema changes and procedure registration: cached plans from an older epoch
    /// are planned again.
    epoch: AtomicU64,
    registry: Mutex<HashMap<u64, TxEntry>>,
    next_tx: AtomicU64,
}

impl DatabaseState {
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Acquire)
    }

    pub fn schema_changed(&self) {
        self.epoch.fetch_add(1, Ordering::AcqRel);
    }

    pub fn procedures(&self) -> Arc<Procedures> {
        self.procedures.read().clone()
    }

    pub fn register_tx(&self, metadata: Map, cancel: Arc<AtomicBool>) -> u64 {
        let id = self.next_tx.fetch_add(1, Ordering::Relaxed);
        self.registry.lock().insert(
            id,
            TxEntry {
                started: SystemTime::now(),
                query: None,
                metadata,
                cancel,
            },
        );
        id
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
}

/// Everything one auto-committed query returned.
#[derive(Clone, Debug)]
pub struct QueryResult {
    pub columns: Vec<Arc<str>>,
    pub rows: Vec<Vec<Value>>,
    pub summary: QuerySummary,
}

impl Database {
    /// A database over a fresh, empty in-memory store.
    pub fn open_in_memory(config: EngineConfig) -> Arc<Database> {
        Self::with_storage(Storage::new(), config)
    }

    /// A database over an existing store (recovered from disk, or shared with other users).
    pub fn with_storage(storage: Arc<Storage>, config: EngineConfig) -> Arc<Database> {
        let capacity = config.plan_cache_entries_max;
        Arc::new(Database {
            shared: Arc::new(DatabaseState {
                storage,
                config,
                cache: Mutex::new(PlanCache::new(capacity)),
                procedures: RwLock::new(Arc::new(Procedures::builtin())),
                epoch: AtomicU64::new(0),
                registry: Mutex::new(HashMap::new()),
                next_tx: AtomicU64::new(1),
            }),
        })
    }

    /// Begins a transaction (explicit, or auto-commit per [`TxOptions::auto_commit`]).
    pub fn begin(&self, opts: TxOptions) -> Result<Transaction> {
        Ok(Transaction::begin(self.shared.clone(), opts))
    }

    pub fn storage(&self) -> &Arc<Storage> {
        &self.shared.storage
    }

    pub fn config(&self) -> &EngineConfig {
        &self.shared.config
    }

    /// Adds (or replaces) a procedure callable with `CALL`.
    pub fn register_procedure(&self, procedure: Arc<dyn Procedure>) {
        let mut guard = self.shared.procedures.write();
        let mut next = (**guard).clone();
        next.register(procedure);
        *guard = Arc::new(next);
        drop(guard);
        self.shared.schema_changed();
    }

    /// The transactions running now (`SHOW TRANSACTIONS`).
    pub fn transactions(&self) -> Vec<TransactionInfo> {
        self.shared.transactions()
    }

    /// Terminates a running transaction by its `neo4j-transaction-N` id.
    pub fn terminate(&self, id: &str) -> bool {
        self.shared.terminate(id)
    }

    /// Plan cache hits and misses since the database opened.
    pub fn plan_cache_stats(&self) -> (u64, u64) {
        let c = self.shared.cache.lock();
        (c.hits, c.misses)
    }

    /// Runs one query in its own auto-commit transaction and collects every row.
    pub fn execute(&self, query: &str, params: Map) -> Result<QueryResult> {
        let mut tx = self.begin(TxOptions::auto_commit())?;
        let q = tx.run(query, params)?;
        let columns = tx.fields(q).to_vec();
        let mut rows = Vec::new();
        match tx.pull(q, -1, &mut rows)? {
            crate::PullState::Done(summary) => Ok(QueryResult {
                columns,
                rows,
                summary: *summary,
            }),
            crate::PullState::HasMore => Err(crate::Error::request(
                crate::error::code::REQUEST_INVALID,
                "the query did not finish",
            )),
        }
    }
}
