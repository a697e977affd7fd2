//! The node's store from its configuration (in memory, a data directory or a cluster member),
//! and its close.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use quiver_durability::{Durability, FreeSpace, Mode, Options, Retention};
use quiver_engine::Database;
use quiver_server::config::{self, Config, StorageMode};
use quiver_server::databases::{Databases, Stores};
use quiver_server::metrics::Metrics;
use quiver_server::{Graph, Replica};

use crate::api::engine_config;
use crate::member::open_member;

/// Recovers the data directory (or makes an empty in-memory graph, or starts the cluster
/// member). Recovery reads files and replays the log: it runs off the runtime's workers.
pub(crate) async fn open_configured(
    config: &Config,
    metrics: &Arc<Metrics>,
) -> Result<Arc<Graph>, String> {
    let engine = engine_config(config);
    if let Some(cluster) = &config.cluster {
        if config.commit_log.capture != quiver_engine::Capture::Off {
            return Err(
                "change data capture (`cdc`) runs on a single server: a cluster member cannot \
                 capture changes yet"
                    .to_owned(),
            );
        }
        return open_member(config, cluster, engine, metrics).await;
    }
    // One query memory pool for every database of the server: the total bounds them all.
    let engine = quiver_engine::EngineConfig {
        query_memory_pool: Some(quiver_engine::memory::SharedPool::new(
            engine.query_memory_total_bytes_max,
        )),
        ..engine
    };
    let graph = open_single(config, engine).await?;
    // A cluster member's store is replaced whole when it installs a snapshot, and its log is
    // Raft's: change capture is a single server's for now.
    graph
        .database()
        .storage()
        .set_capture(config.commit_log.capture);
    Ok(graph)
}

/// A single server's store: in memory or in its data directory.
async fn open_single(
    config: &Config,
    engine: quiver_engine::EngineConfig,
) -> Result<Arc<Graph>, String> {
    let dir = match &config.storage {
        StorageMode::InMemory => {
            tracing::info!("storage in memory: nothing is written to disk");
            let db = Database::open_in_memory(engine);
            return Ok(Arc::new(Graph::new(db)));
        }
        StorageMode::Directory(dir) => dir.clone(),
    };
    let mode = mode_of(config);
    // The database owns the directory from here: what "acknowledged" and "visible" mean, and
    // the close.
    let opened = tokio::task::spawn_blocking({
        let dir = dir.clone();
        let options = durability_options(config);
        move || Database::open_with(&dir, mode, options, engine)
    })
    .await
    .map_err(|error| format!("recovery of {} stopped: {error}", dir.display()))?;
    let db = opened.map_err(|error| format!("cannot open {}: {error}", dir.display()))?;
    if let Some(durability) = db.durability() {
        let report = durability.recovery();
        // The total as a field too, for tools that read the log (the crash tests do).
        let duration_ms = u64::try_from(report.duration.as_millis()).unwrap_or(u64::MAX);
        tracing::info!(
            duration_ms,
            "storage recovered ({mode} durability): {report}"
        );
    }
    Ok(Arc::new(Graph::new(db)))
}

fn mode_of(config: &Config) -> Mode {
    match config.durability {
        config::Durability::Buffered => Mode::Buffered,
        config::Durability::Group => Mode::Group,
        config::Durability::Sync => Mode::Sync,
    }
}

fn durability_options(config: &Config) -> Options {
    Options {
        flush_interval: config.commit_log.flush_interval,
        snapshot_log_bytes: config.commit_log.snapshot_log_bytes,
        snapshot_interval: config.commit_log.snapshot_interval,
        log_retention: Retention {
            age: config.commit_log.log_retention,
            bytes: config.commit_log.log_retention_bytes,
        },
        log_archive_dir: config.commit_log.log_archive_dir.clone(),
        ..Options::default()
    }
}

/// Where a single server keeps the stores of its databases other than the first: each in a
/// directory of its own under `<data-dir>/databases/`, with the first's durability settings;
/// or in memory.
pub(crate) struct DatabaseStores {
    /// `None` in memory.
    dir: Option<PathBuf>,
    mode: Mode,
    options: Options,
    engine: quiver_engine::EngineConfig,
    capture: quiver_engine::Capture,
    /// In memory: the stores of stopped databases, kept until they start again or are
    /// dropped (there is nowhere else for them to be).
    stopped: std::sync::Mutex<std::collections::HashMap<String, Arc<Database>>>,
}

impl DatabaseStores {
    /// Stores with `config`'s durability settings, whose databases run with `engine`'s limits
    /// (the first database's: its query memory pool among them).
    pub(crate) fn new(config: &Config, engine: quiver_engine::EngineConfig) -> DatabaseStores {
        DatabaseStores {
            dir: match &config.storage {
                StorageMode::Directory(dir) => Some(dir.clone()),
                StorageMode::InMemory => None,
            },
            mode: mode_of(config),
            options: durability_options(config),
            engine,
            capture: config.commit_log.capture,
            stopped: std::sync::Mutex::default(),
        }
    }

    /// The catalog file of the server's databases; `None` in memory.
    pub(crate) fn catalog_file(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|dir| dir.join("databases.json"))
    }

    fn dir_of(&self, name: &str) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|dir| dir.join("databases").join(name))
    }
}

impl Stores for DatabaseStores {
    fn open(&self, name: &str) -> Result<Arc<Database>, String> {
        let db = match self.dir_of(name) {
            Some(dir) => {
                Database::open_with(&dir, self.mode, self.options.clone(), self.engine.clone())
                    .map_err(|error| format!("cannot open {}: {error}", dir.display()))?
            }
            None => match self
                .stopped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(name)
            {
                Some(db) => return Ok(db),
                None => Database::open_in_memory(self.engine.clone()),
            },
        };
        db.storage().set_capture(self.capture);
        Ok(db)
    }

    fn close(&self, db: Arc<Database>) {
        if self.dir.is_none() {
            self.stopped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(db.name().to_string(), db);
            return;
        }
        // Closed now even while a transaction still holds it (its commit then fails): a
        // database stopped or dropped must not write to its directory again, which a
        // database of the same name may take next.
        if let Err(error) = db.close() {
            tracing::error!(%error, database = %db.name(), "closing a database failed");
        }
    }

    fn remove(&self, name: &str, keep: bool) -> Result<(), String> {
        let Some(dir) = self.dir_of(name) else {
            self.stopped
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(name);
            return Ok(());
        };
        if !dir.exists() {
            return Ok(());
        }
        if keep {
            let stamp = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs();
            let Some(root) = &self.dir else {
                return Ok(());
            };
            let aside = root.join("dropped").join(format!("{name}-{stamp}"));
            std::fs::create_dir_all(aside.parent().unwrap_or(root))
                .and_then(|()| std::fs::rename(&dir, &aside))
                .map_err(|error| format!("cannot move {} aside: {error}", dir.display()))
        } else {
            // What a broken database left may be a file where its directory belongs.
            let removed = if dir.is_dir() {
                std::fs::remove_dir_all(&dir)
            } else {
                std::fs::remove_file(&dir)
            };
            removed.map_err(|error| format!("cannot remove {}: {error}", dir.display()))
        }
    }
}

/// The server's databases over its first one, `root` (see [`Databases`]), reading the
/// catalog and opening every database wanted online. Opening stores reads files: it runs off
/// the runtime's workers.
pub(crate) async fn open_databases(
    config: &Config,
    root: Arc<Graph>,
) -> Result<Arc<Databases>, String> {
    let stores = DatabaseStores::new(config, root.database().config().clone());
    let file = stores.catalog_file();
    let default = config.default_database.clone();
    tokio::task::spawn_blocking(move || Databases::open(root, &default, Arc::new(stores), file))
        .await
        .map_err(|error| format!("opening the databases stopped: {error}"))?
}

/// Closes the store once the server has stopped: a cluster member stops Raft (its log is
/// durable at every acknowledgement, so that is the whole close); a single server flushes its
/// log and writes a closing snapshot. Whether it closed cleanly.
pub(crate) async fn close(graph: Arc<Graph>) -> bool {
    let replica: Option<Arc<Replica>> = graph.cluster().map(|view| Arc::clone(view.replica()));
    let db = Arc::clone(graph.database());
    drop(graph);
    match replica {
        Some(replica) => match replica.member().stop().await {
            Ok(()) => true,
            Err(error) => {
                tracing::error!(%error, "stopping the cluster member failed");
                false
            }
        },
        None => close_database(db).await,
    }
}

/// Flushes the log, writes the closing snapshot and releases the directory. Returns whether
/// that went well.
async fn close_database(db: Arc<Database>) -> bool {
    let closed = tokio::task::spawn_blocking(move || match Arc::try_unwrap(db) {
        Ok(db) => db.close().map_err(|error| error.to_string()),
        // A connection task cut at the drain deadline may still hold the database: make the
        // log durable now; the directory is released when the last holder lets go.
        Err(shared) => shared
            .durability()
            .map_or(Ok(()), Durability::sync)
            .map_err(|error| error.to_string()),
    })
    .await;
    match closed {
        Ok(Ok(())) => true,
        Ok(Err(error)) => {
            tracing::error!(%error, "closing the data directory failed");
            false
        }
        Err(error) => {
            tracing::error!(%error, "closing the data directory stopped");
            false
        }
    }
}

/// The space of the file system the store writes to (its commit log's directory, or the
/// configured data directory of a cluster member, whose log is Raft's), for the metrics: zero
/// in memory, and when the file system cannot be asked.
pub(crate) fn data_dir_space(db: &Database, data_dir: Option<&Path>) -> FreeSpace {
    db.durability()
        .map(Durability::dir)
        .or(data_dir)
        .and_then(|dir| quiver_durability::free_space(dir).ok())
        .unwrap_or_default()
}
