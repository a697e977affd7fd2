//! The node: its builder, what it is built over, and its run.

use std::net::SocketAddr;
use std::sync::Arc;

use quiver_durability::Durability;
use quiver_engine::Database;
use quiver_http::{ApiConfig, Hooks, HttpApi};
use quiver_placement::QueryPool;
use quiver_server::config::{AuthSpec, Config, StorageMode};
use quiver_server::databases::Databases;
use quiver_server::health::{Health, Readiness};
use quiver_server::http_listener::ApiHandler;
use quiver_server::metrics::{EngineFigures, Metrics};
use quiver_server::query_log::QueryLog;
use quiver_server::shutdown::ShutdownReport;
use quiver_server::tls::ServerTls;
use quiver_server::{Graph, Replica, Server, ServerParts, ShutdownTrigger};
use quiver_storage::Storage;

use crate::api::{ServerTelemetry, api_config, engine_config};
use crate::error::NodeError;
use crate::{store, users};

/// What a node serves.
#[derive(Default)]
pub enum Store {
    /// What the configuration names: an empty graph in memory, a data directory (recovered),
    /// or this cluster member's replicated store.
    #[default]
    Configured,
    /// An engine over this storage, with the configuration's engine limits (the lab's seeded
    /// graph; a test's store with a commit log of its own).
    Storage(Arc<Storage>),
    /// This database.
    Database(Arc<Database>),
    /// This graph (a cluster member composed elsewhere).
    Graph(Arc<Graph>),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Store::Configured => "Configured",
            Store::Storage(_) => "Storage",
            Store::Database(_) => "Database",
            Store::Graph(_) => "Graph",
        })
    }
}

/// What the HTTP listener serves besides its operations endpoints.
#[derive(Debug, Default)]
pub enum HttpService {
    /// Neo4j's HTTP APIs over the node's database, on the query pool Bolt uses, its
    /// transactions counted in the node's metrics.
    #[default]
    Neo4j,
    /// A handler of the caller's own.
    Handler(ApiHandler),
    /// Nothing: only the operations endpoints.
    OperationsOnly,
}

/// Assembles a [`Node`] from a configuration.
#[derive(Debug)]
pub struct NodeBuilder {
    config: Config,
    store: Store,
    http: HttpService,
    api_config: Option<ApiConfig>,
}

impl NodeBuilder {
    /// A node as the configuration describes it: its store, Neo4j's HTTP API.
    pub fn new(config: Config) -> NodeBuilder {
        NodeBuilder {
            config,
            store: Store::Configured,
            http: HttpService::Neo4j,
            api_config: None,
        }
    }

    /// Serves `store` instead of the configured one.
    #[must_use]
    pub fn store(mut self, store: Store) -> NodeBuilder {
        self.store = store;
        self
    }

    /// Serves `http` on the HTTP listener instead of Neo4j's HTTP API.
    #[must_use]
    pub fn http_service(mut self, http: HttpService) -> NodeBuilder {
        self.http = http;
        self
    }

    /// Neo4j's HTTP API with these settings instead of those derived from the configuration
    /// ([`api_config`]). Whether the API authenticates stays the server's: it follows the
    /// configuration's authentication either way.
    #[must_use]
    pub fn api_config(mut self, api: ApiConfig) -> NodeBuilder {
        self.api_config = Some(api);
        self
    }

    /// Loads the users, opens the store, starts the query pool and the HTTP API and binds both
    /// listeners (ports are taken now, so the addresses can be printed before serving). On a
    /// Tokio runtime: the HTTP API starts its idle-transaction expiry task on it.
    pub async fn build(self) -> Result<Node, NodeError> {
        let NodeBuilder {
            config,
            store,
            http,
            api_config: api_settings,
        } = self;
        let metrics = Arc::new(Metrics::new());
        let health = Arc::new(Health::default());
        let (users, audit) = users::load(&config, &metrics).await?;
        let loopback_only =
            config.bolt_listen.ip().is_loopback() && config.http_listen.ip().is_loopback();
        if !users.is_enabled() && !loopback_only {
            // Only with --auth none --allow-unauthenticated-network: the configuration
            // refuses it otherwise.
            tracing::warn!("authentication is disabled on a non-loopback address");
        }
        health.set(Readiness::Recovering);
        let query_log = open_query_log(&config, &metrics)?;
        // A single server configured to keep its store keeps several databases; a cluster
        // member, and a store a caller composed, serve one.
        let many = matches!(store, Store::Configured) && config.cluster.is_none();
        let graph = open(store, &config, &metrics).await?;
        let log_procedure = query_log.clone().zip(config.query_log.clone());
        let databases = open_databases(many, &config, &graph, log_procedure).await?;
        if let (Some(view), Some(audit)) = (graph.cluster(), audit) {
            view.set_audit_log(audit);
        }
        metrics.follow_engine({
            let db = Arc::downgrade(graph.database());
            let data_dir = match &config.storage {
                StorageMode::Directory(dir) => Some(dir.clone()),
                StorageMode::InMemory => None,
            };
            Box::new(move || {
                db.upgrade()
                    .map_or_else(EngineFigures::default, |db| EngineFigures {
                        transactions_begun_again: db.transactions_begun_again(),
                        query_memory_reserved_bytes: db.query_memory_reserved_bytes() as u64,
                        durability: db.durability().map(Durability::stats),
                        data_dir_space: store::data_dir_space(&db, data_dir.as_deref()),
                    })
            })
        });
        metrics.query_memory_max.set(
            i64::try_from(engine_config(&config).query_memory_total_bytes_max).unwrap_or(i64::MAX),
        );
        // One query pool for both listeners: Bolt and HTTP work share its threads.
        let pool = Arc::new(QueryPool::new(config.query.threads).map_err(NodeError::Pool)?);
        let (http_api, handler) = match http {
            HttpService::Neo4j => {
                let settings = ApiConfig {
                    auth_enabled: config.auth.enabled,
                    ..api_settings.unwrap_or_else(|| api_config(&config))
                };
                let hooks = Hooks {
                    telemetry: Arc::new(ServerTelemetry {
                        metrics: Arc::clone(&metrics),
                        query_log: query_log.clone(),
                    }),
                    pool: Some(Arc::clone(&pool)),
                };
                // Starts the idle-transaction expiry task on this runtime.
                let api = HttpApi::with_hooks(
                    Arc::clone(graph.database()),
                    settings.clone(),
                    hooks.clone(),
                );
                if let Some(databases) = &databases {
                    api.route_others(http_router(databases, &graph, settings, hooks));
                }
                (Some(api.clone()), Some(ApiHandler::from_service(api)))
            }
            HttpService::Handler(handler) => (None, Some(handler)),
            HttpService::OperationsOnly => (None, None),
        };
        let server = Server::bind(
            config,
            ServerParts {
                metrics,
                health: Arc::clone(&health),
                users: Arc::new(users),
                http_api: handler,
                query_pool: Some(pool),
                query_log,
            },
        )?;
        let server = match &databases {
            Some(databases) => server.with_databases(Arc::clone(databases)),
            None => server.with_graph(Arc::clone(&graph)),
        };
        Ok(Node {
            server,
            graph,
            databases,
            health,
            http_api,
        })
    }
}

/// The server's databases over `graph`, its first, when it keeps several (`many`), with the
/// query log's procedure registered on each; else the procedure on `graph` alone.
async fn open_databases(
    many: bool,
    config: &Config,
    graph: &Arc<Graph>,
    log_procedure: Option<(Arc<QueryLog>, quiver_server::query_log::QueryLogSettings)>,
) -> Result<Option<Arc<Databases>>, NodeError> {
    if !many {
        quiver_server::query_log::procedure::register(graph.database(), log_procedure);
        return Ok(None);
    }
    let databases = store::open_databases(config, Arc::clone(graph))
        .await
        .map_err(NodeError::Store)?;
    databases.equip(Arc::new(move |graph: &Arc<Graph>| {
        quiver_server::query_log::procedure::register(graph.database(), log_procedure.clone());
    }));
    Ok(Some(databases))
}

/// Finds the HTTP API of each database other than the first, made when first asked for
/// (again after the database restarts) with the first one's settings under its own name.
fn http_router(
    databases: &Arc<Databases>,
    root: &Arc<Graph>,
    settings: ApiConfig,
    hooks: Hooks,
) -> quiver_http::Router {
    let databases = Arc::downgrade(databases);
    let root = Arc::downgrade(root.database());
    let apis: std::sync::Mutex<std::collections::HashMap<String, HttpApi>> =
        std::sync::Mutex::default();
    Arc::new(move |name: &str| {
        let not_found = || quiver_http::ApiError::DatabaseNotFound(name.to_owned());
        let databases = databases.upgrade().ok_or_else(not_found)?;
        let graph = databases.get(name).map_err(|unavailable| {
            if unavailable.status == quiver_status::Status::DatabaseNotFound {
                not_found()
            } else {
                quiver_http::ApiError::Engine(quiver_engine::Error::runtime(
                    unavailable.status,
                    None,
                    unavailable.message,
                ))
            }
        })?;
        let db = graph.database();
        // The first database answers under its own name only.
        if root.upgrade().is_some_and(|root| Arc::ptr_eq(&root, db)) {
            return Err(not_found());
        }
        let mut apis = apis
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = db.name().to_string();
        if let Some(api) = apis.get(&key).filter(|api| Arc::ptr_eq(api.database(), db)) {
            return Ok(api.clone());
        }
        let api = HttpApi::with_hooks(
            Arc::clone(db),
            ApiConfig {
                database_name: key.clone(),
                ..settings.clone()
            },
            hooks.clone(),
        );
        apis.insert(key, api.clone());
        Ok(api)
    })
}

/// The query log the configuration names, its writer started.
fn open_query_log(config: &Config, metrics: &Metrics) -> Result<Option<Arc<QueryLog>>, NodeError> {
    let Some(settings) = &config.query_log else {
        return Ok(None);
    };
    QueryLog::open(settings, metrics.query_log_dropped.clone())
        .map(|log| Some(Arc::new(log)))
        .map_err(|source| NodeError::QueryLog {
            path: settings.path.clone(),
            source,
        })
}

/// The graph the builder was given or the configuration names, with the `--initial-user`
/// created on a first start.
async fn open(
    store: Store,
    config: &Config,
    metrics: &Arc<Metrics>,
) -> Result<Arc<Graph>, NodeError> {
    let graph = match store {
        Store::Configured => store::open_configured(config, metrics)
            .await
            .map_err(NodeError::Store)?,
        Store::Storage(storage) => Arc::new(Graph::new(Database::with_storage(
            storage,
            engine_config(config),
        ))),
        Store::Database(db) => Arc::new(Graph::new(db)),
        Store::Graph(graph) => graph,
    };
    if let Some(AuthSpec::Basic { user, password }) = &config.initial_user {
        if graph.cluster().is_some() {
            tokio::spawn(users::create_initial_user_when_leading(
                Arc::clone(graph.database()),
                user.clone(),
                password.clone(),
            ));
        } else {
            users::create_initial_user(graph.database(), user, password)
                .await
                .map_err(|message| NodeError::Store(format!("initial user: {message}")))?;
        }
    }
    Ok(graph)
}

/// A node, its listeners bound but not yet accepting.
#[derive(Debug)]
pub struct Node {
    server: Server,
    graph: Arc<Graph>,
    /// The server's databases, when it keeps several (`graph` is the first).
    databases: Option<Arc<Databases>>,
    health: Arc<Health>,
    http_api: Option<HttpApi>,
}

/// How a node's run ended.
#[derive(Debug)]
pub struct Stopped {
    /// How the drain went.
    pub report: ShutdownReport,
    /// Whether the store closed cleanly (the log flushed and the closing snapshot written, or
    /// the cluster member stopped).
    pub closed: bool,
}

impl Node {
    pub fn bolt_addr(&self) -> SocketAddr {
        self.server.bolt_addr()
    }

    pub fn http_addr(&self) -> SocketAddr {
        self.server.http_addr()
    }

    /// Starts the drain from anywhere (a signal handler, the lab, a test).
    pub fn trigger(&self) -> ShutdownTrigger {
        self.server.trigger()
    }

    /// The listeners' TLS, for reloading the certificate and key; `None` without TLS.
    pub fn tls(&self) -> Option<Arc<ServerTls>> {
        self.server.tls()
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        self.server.metrics()
    }

    /// The query log, when the configuration names one.
    pub fn query_log(&self) -> Option<&Arc<QueryLog>> {
        self.server.query_log()
    }

    pub fn health(&self) -> &Arc<Health> {
        &self.health
    }

    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    pub fn database(&self) -> &Arc<Database> {
        self.graph.database()
    }

    /// The server's databases, when it keeps several.
    pub fn databases(&self) -> Option<&Arc<Databases>> {
        self.databases.as_ref()
    }

    /// Neo4j's HTTP API, when the node serves it.
    pub fn http_api(&self) -> Option<&HttpApi> {
        self.http_api.as_ref()
    }

    /// This cluster member's database, when the node is one.
    pub fn replica(&self) -> Option<Arc<Replica>> {
        self.graph.cluster().map(|view| Arc::clone(view.replica()))
    }

    /// Turns ready now and serves until the drain ends, then closes the store.
    pub fn run(self) -> impl Future<Output = Stopped> + Send + 'static {
        self.health.set(Readiness::Ready);
        let query_log = self.server.query_log().cloned();
        async move {
            let report = self.server.run().await;
            if report.forced {
                tracing::warn!(?report, "drain deadline passed; connections were cut");
            }
            if let Some(log) = query_log {
                // The last queries' lines reach the file before the process may exit.
                if let Err(error) = tokio::task::spawn_blocking(move || log.sync()).await {
                    tracing::warn!(%error, "the query log's last lines may be lost");
                }
            }
            if let Some(databases) = self.databases {
                // The other databases close first: the first keeps their users.
                let closing = tokio::task::spawn_blocking(move || databases.close_others());
                if let Err(error) = closing.await {
                    tracing::error!(%error, "closing the databases stopped");
                }
            }
            let closed = store::close(self.graph).await;
            Stopped { report, closed }
        }
    }
}
