//! The assembled server: both listeners bound, their accept loops, readiness, and the drain.

use std::net::SocketAddr;
use std::sync::Arc;

use quiver_bolt::Version;
use quiver_placement::{Placement, QueryPool};
use tokio::net::TcpListener;

use crate::admission::Admission;
use crate::auth::UserStore;
use crate::bolt_listener::{BoltProtocol, BoltRefusal, BoltShared, EncodeError};
use crate::buffers::BufferPool;
use crate::config::Config;
use crate::config::TlsMode;
use crate::graph::Graph;
use crate::health::{Health, Readiness};
use crate::http_listener::{ApiHandler, HttpProtocol, HttpShared, watch_limits};
use crate::listener::{ListenerContext, accept_loop, bind};
use crate::metrics::{ConnectionMetrics, Metrics};
use crate::query_log::QueryLog;
use crate::shutdown::{Shutdown, ShutdownReport, ShutdownSignal};
use crate::tls::{ServerTls, TlsError, TlsFront};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    #[error("cannot listen for {protocol} on {addr}: {source}")]
    Bind {
        protocol: &'static str,
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the query threads: {0}")]
    Pool(#[source] std::io::Error),
    #[error(transparent)]
    Refusal(#[from] EncodeError),
    #[error(transparent)]
    Tls(#[from] TlsError),
}

/// What an HTTP client speaking plain HTTP to a listener that requires TLS is told.
const HTTP_PLAIN_REFUSAL: &[u8] = b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\ncontent-length: 37\r\n\r\nThis port requires TLS: use https://\n";

/// What the binary supplies besides the configuration.
#[derive(Debug)]
pub struct ServerParts {
    pub metrics: Arc<Metrics>,
    pub health: Arc<Health>,
    pub users: Arc<UserStore>,
    /// Neo4j's HTTP API; without it the HTTP listener serves only the operations endpoints.
    pub http_api: Option<ApiHandler>,
    /// The query pool, when the binary shares one with the HTTP API; without it the server
    /// starts its own with `query.threads` threads.
    pub query_pool: Option<Arc<QueryPool>>,
    /// Where Bolt reports the queries that ended (HTTP reports through its API's telemetry).
    pub query_log: Option<Arc<QueryLog>>,
}

/// Both listeners, bound but not yet accepting.
#[derive(Debug)]
pub struct Server {
    config: Config,
    parts: ServerParts,
    bolt: TcpListener,
    http: TcpListener,
    bolt_addr: SocketAddr,
    http_addr: SocketAddr,
    shutdown: Shutdown,
    graph: Option<Arc<Graph>>,
    /// The server's databases, when it keeps several (`graph` is then the first of them).
    databases: Option<Arc<crate::databases::Databases>>,
    pool: Arc<QueryPool>,
    /// What Bolt clients past the limit are told, encoded once.
    bolt_refusal: Arc<BoltRefusal>,
    /// The certificate and key, when TLS is on.
    tls: Option<Arc<ServerTls>>,
}

/// Starts the drain from anywhere (a signal handler, a test). Cloneable.
#[derive(Clone, Debug)]
pub struct ShutdownTrigger {
    shutdown: Shutdown,
    health: Arc<Health>,
}

impl ShutdownTrigger {
    /// Flips readiness to draining, then stops the accept loops and idle connections. Idempotent.
    pub fn shutdown(&self) {
        self.health.set(Readiness::Draining);
        self.shutdown.begin_drain();
    }
}

impl Server {
    /// Binds both listeners (ports are taken now, so the addresses can be printed before serving).
    pub fn bind(config: Config, parts: ServerParts) -> Result<Server, ServerError> {
        let bolt = bind(config.bolt_listen).map_err(|source| ServerError::Bind {
            protocol: "bolt",
            addr: config.bolt_listen,
            source,
        })?;
        let http = bind(config.http_listen).map_err(|source| ServerError::Bind {
            protocol: "http",
            addr: config.http_listen,
            source,
        })?;
        let local = |listener: &TcpListener, protocol, addr| {
            listener.local_addr().map_err(|source| ServerError::Bind {
                protocol,
                addr,
                source,
            })
        };
        let bolt_addr = local(&bolt, "bolt", config.bolt_listen)?;
        let http_addr = local(&http, "http", config.http_listen)?;
        let pool = match &parts.query_pool {
            Some(pool) => Arc::clone(pool),
            None => Arc::new(QueryPool::new(config.query.threads).map_err(ServerError::Pool)?),
        };
        let bolt_refusal = Arc::new(BoltRefusal::new(
            config.limits.bolt_connections_max,
            &Version::SUPPORTED,
        )?);
        let tls = match &config.tls {
            Some(settings) => Some(Arc::new(ServerTls::load(settings)?)),
            None => None,
        };
        Ok(Server {
            config,
            parts,
            bolt,
            http,
            bolt_addr,
            http_addr,
            shutdown: Shutdown::new(),
            graph: None,
            databases: None,
            pool,
            bolt_refusal,
            tls,
        })
    }

    /// The TLS configuration, for reloading the certificate and key (SIGHUP); `None` without TLS.
    pub fn tls(&self) -> Option<Arc<ServerTls>> {
        self.tls.clone()
    }

    /// Serves `graph` over Bolt. Without a graph, RUN and BEGIN are answered with a transient
    /// "database unavailable" FAILURE.
    #[must_use]
    /// Serves `graph`; its stored users log in beside the configured ones, and with
    /// authentication on its privilege checks apply to every connection.
    pub fn with_graph(mut self, graph: Arc<Graph>) -> Server {
        self.parts.users.attach(graph.database());
        self.graph = Some(graph);
        self
    }

    /// Serves the databases of `databases`, the first of them as [`Server::with_graph`] does.
    pub fn with_databases(mut self, databases: Arc<crate::databases::Databases>) -> Server {
        // The first database keeps the stored users; every database, it too, is equipped
        // below.
        self.parts.users.keep_users_of(databases.root().database());
        self.graph = Some(Arc::clone(databases.root()));
        let weak = Arc::downgrade(&databases);
        self.parts.metrics.follow_databases(Box::new(move || {
            weak.upgrade()
                .map_or_else(Vec::new, |databases| databases.figures())
        }));
        let users = Arc::clone(&self.parts.users);
        databases.equip(Arc::new(move |graph: &Arc<Graph>| {
            users.equip(graph.database());
        }));
        self.databases = Some(databases);
        self
    }

    /// The threads long queries run on (those of [`ServerParts::query_pool`] when given).
    pub fn query_pool(&self) -> &Arc<QueryPool> {
        &self.pool
    }

    pub fn bolt_addr(&self) -> SocketAddr {
        self.bolt_addr
    }

    pub fn http_addr(&self) -> SocketAddr {
        self.http_addr
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.parts.metrics
    }

    /// Where Bolt reports the queries that ended, when there is a query log.
    pub fn query_log(&self) -> Option<&Arc<QueryLog>> {
        self.parts.query_log.as_ref()
    }

    pub fn health(&self) -> &Arc<Health> {
        &self.parts.health
    }

    pub fn trigger(&self) -> ShutdownTrigger {
        ShutdownTrigger {
            shutdown: self.shutdown.clone(),
            health: Arc::clone(&self.parts.health),
        }
    }

    /// The signal connection tasks watch, for code that must refuse new work while draining.
    pub fn shutdown_signal(&self) -> ShutdownSignal {
        self.shutdown.signal()
    }

    /// Accepts on both listeners until a [`ShutdownTrigger`] fires, then drains (up to the drain
    /// timeout) and reports. Readiness is left to the caller (it knows when recovery is done).
    pub async fn run(self) -> ShutdownReport {
        let Server {
            config,
            parts,
            bolt,
            http,
            shutdown,
            graph,
            databases,
            pool,
            bolt_refusal,
            tls,
            bolt_addr: self_bolt_addr,
            http_addr: self_http_addr,
            ..
        } = self;
        let limits = &config.limits;
        let timeouts = &config.timeouts;

        let cluster_view = graph.as_ref().and_then(|g| g.cluster().cloned());
        let (backup_graph, backup_databases) = (graph.clone(), databases.clone());
        let addresses = (self_bolt_addr, self_http_addr);
        let connections = publish(graph.as_ref(), databases.as_ref(), &config, addresses);
        let bolt_protocol = Arc::new(BoltProtocol {
            shared: Arc::new(bolt_shared(
                &config,
                &parts,
                (connections, graph, databases, pool),
            )),
            refusal: bolt_refusal,
        });
        let http_protocol = Arc::new(HttpProtocol {
            shared: Arc::new(HttpShared {
                metrics: Arc::clone(&parts.metrics),
                health: Arc::clone(&parts.health),
                users: Arc::clone(&parts.users),
                api: parts.http_api.clone(),
                body_bytes_max: limits.http_body_bytes_max,
                body_read: timeouts.http_body_read,
                shutdown: shutdown.signal(),
                cluster: cluster_view,
                metrics_auth: config.auth.metrics_auth,
                durability: config.durability,
                graph: backup_graph,
                databases: backup_databases,
            }),
            limits: watch_limits(timeouts),
            connections_max: limits.http_connections_max,
        });

        let (bolt_tls, http_tls) = tls_fronts(tls.as_ref(), &config, &parts.metrics);
        let context = |name, connections_max, reserved, metrics, tls| ListenerContext {
            name,
            admission: Admission::new(connections_max, reserved, limits.refusals_in_flight_max),
            metrics: Arc::new(metrics),
            refusal_timeout: timeouts.refusal,
            refusals_in_flight_max: limits.refusals_in_flight_max,
            shutdown: shutdown.clone(),
            tls,
        };
        let bolt_context = context(
            "bolt",
            limits.bolt_connections_max,
            limits.admin_reserved_connections,
            parts.metrics.bolt.clone(),
            bolt_tls,
        );
        let http_context = context(
            "http",
            limits.http_connections_max,
            0,
            parts.metrics.http.clone(),
            http_tls,
        );
        shutdown
            .tracker()
            .spawn(accept_loop(bolt, bolt_protocol, bolt_context));
        shutdown
            .tracker()
            .spawn(accept_loop(http, http_protocol, http_context));

        shutdown.signal().draining().await;
        parts.health.set(Readiness::Draining);
        tracing::info!(drain_timeout = ?timeouts.drain, "draining");
        let report = shutdown.drain(timeouts.drain).await;
        tracing::info!(?report, "drained");
        report
    }
}

/// Publishes the server's side of the procedures (see [`publish_to_graph`]) to the first
/// graph and to every database, open now or later. Returns the connection registry the Bolt
/// sessions enter themselves in.
fn publish(
    graph: Option<&Arc<Graph>>,
    databases: Option<&Arc<crate::databases::Databases>>,
    config: &Config,
    (bolt_addr, http_addr): (SocketAddr, SocketAddr),
) -> Arc<crate::connections::Connections> {
    let connections = Arc::new(crate::connections::Connections::default());
    match (databases, graph) {
        // Every database, the first among them.
        (Some(databases), _) => {
            let (connections, config) = (Arc::clone(&connections), config.clone());
            databases.equip(Arc::new(move |graph: &Arc<Graph>| {
                publish_to_graph(graph, &connections, &config, bolt_addr, http_addr);
            }));
        }
        (None, Some(graph)) => publish_to_graph(graph, &connections, config, bolt_addr, http_addr),
        (None, None) => {}
    }
    connections
}

/// The server's side of what the graph's procedures report: its open Bolt connections
/// (`dbms.listConnections()`), its routing table (`dbms.routing.getRoutingTable`), its
/// effective settings (`SHOW SETTINGS`) and its servers (`SHOW SERVERS`). Returns the
/// connection registry the Bolt sessions enter themselves in.
fn publish_to_graph(
    graph: &Graph,
    connections: &Arc<crate::connections::Connections>,
    config: &Config,
    bolt_addr: SocketAddr,
    http_addr: SocketAddr,
) {
    let db = graph.database();
    crate::connections::register(db, connections);
    let advertised = config
        .cluster
        .as_ref()
        .map_or_else(|| bolt_addr.to_string(), |c| c.advertise(bolt_addr));
    db.set_servers(servers(graph.cluster(), config, &advertised, http_addr));
    crate::routing::register(db, graph.cluster(), advertised);
    db.set_settings(crate::settings::settings(
        config,
        db.config(),
        bolt_addr,
        http_addr,
    ));
}

/// What `SHOW SERVERS` lists: a cluster's members, or this server at its advertised Bolt
/// address and its HTTP listener (plain, TLS, or both as its TLS mode allows).
fn servers(
    cluster: Option<&Arc<crate::cluster::ClusterView>>,
    config: &Config,
    advertised: &str,
    http_addr: SocketAddr,
) -> quiver_engine::ServerDirectory {
    let version = crate::procedures::neo4j_version();
    if let Some(view) = cluster {
        let view = Arc::clone(view);
        return Arc::new(move || view.servers(version));
    }
    let http_tls = config.tls.as_ref().map_or(TlsMode::Off, |t| t.http);
    let this = quiver_engine::ServerInfo {
        id: quiver_engine::server_id(advertised),
        address: Some(advertised.to_owned()),
        http_address: (http_tls != TlsMode::Required).then(|| http_addr.to_string()),
        https_address: (http_tls != TlsMode::Off).then(|| http_addr.to_string()),
        health: quiver_engine::ServerHealth::Available,
        version: version.to_owned(),
    };
    Arc::new(move || vec![this.clone()])
}

/// Each listener's TLS front, where TLS is on for it. The opening deadline a handshake counts
/// against is the listener's own: Bolt's handshake deadline, HTTP's first request head's.
fn tls_fronts(
    tls: Option<&Arc<ServerTls>>,
    config: &Config,
    metrics: &Metrics,
) -> (Option<Arc<TlsFront>>, Option<Arc<TlsFront>>) {
    let (Some(tls), Some(settings)) = (tls, config.tls.as_ref()) else {
        return (None, None);
    };
    let front = |mode: TlsMode, opening_timeout, listener: &ConnectionMetrics, plain_refusal| {
        (mode != TlsMode::Off).then(|| {
            Arc::new(TlsFront {
                tls: Arc::clone(tls),
                mode,
                opening_timeout,
                metrics: listener.tls.clone(),
                plain_refusal,
            })
        })
    };
    (
        front(settings.bolt, config.timeouts.handshake, &metrics.bolt, &[]),
        front(
            settings.http,
            config.timeouts.http_header_read,
            &metrics.http,
            HTTP_PLAIN_REFUSAL,
        ),
    )
}

/// What every Bolt session shares: the settings, the counters and where work goes.
fn bolt_shared(
    config: &Config,
    parts: &ServerParts,
    (connections, graph, databases, pool): (
        Arc<crate::connections::Connections>,
        Option<Arc<Graph>>,
        Option<Arc<crate::databases::Databases>>,
        Arc<QueryPool>,
    ),
) -> BoltShared {
    let (limits, timeouts) = (&config.limits, &config.timeouts);
    BoltShared {
        metrics: Arc::clone(&parts.metrics),
        users: Arc::clone(&parts.users),
        handshake_timeout: timeouts.handshake,
        idle_timeout: timeouts.idle,
        connections_max: limits.bolt_connections_max,
        message_bytes_max: limits.bolt_message_bytes_max,
        connection_ids: std::sync::atomic::AtomicU64::new(1),
        connections,
        graph,
        databases,
        pool,
        placement: Placement::new(config.query.placement),
        recv_timeout: timeouts.bolt_recv,
        query_log: parts.query_log.clone(),
        trace: config.tracing.as_ref().map(quiver_telemetry::Policy::new),
        bookmark_timeout: timeouts.bookmark,
        idle_transaction_timeout: timeouts.idle_transaction,
        transaction_timeout: timeouts.transaction,
        buffers: BufferPool::new(parts.metrics.bolt_buffers_lent.clone()),
    }
}
