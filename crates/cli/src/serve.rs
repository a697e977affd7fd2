//! `quiver serve`: configuration, logging, listeners, signals.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use quiver_cluster::{ClusterConfig, Node};
use quiver_durability::{Durability, Mode, Options};
use quiver_engine::{Database, EngineConfig};
use quiver_http::{ApiConfig, Hooks, HttpApi, Telemetry};
use quiver_placement::QueryPool;
use quiver_server::audit::AuditLog;
use quiver_server::auth::UserStore;
use quiver_server::config::{self, AuthSpec, ClusterSettings, Config, Layer, StorageMode, resolve};
use quiver_server::health::{Health, Readiness};
use quiver_server::http_listener::ApiHandler;
use quiver_server::metrics::{EngineFigures, Metrics};
use quiver_server::{Graph, Replica, Server, ServerParts, ShutdownTrigger};

/// How long a stopping leader waits for a follower to take over.
const HANDOVER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Exit status for a configuration or start-up error (as for a usage error).
const EXIT_CONFIG: u8 = 2;

#[derive(clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    layer: Layer,
}

pub fn run(args: ServeArgs) -> ExitCode {
    let config = match resolve(args.layer, |name| std::env::var(name).ok()) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("quiver: {error}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    init_logging(&config.log);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("quiver")
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("quiver: cannot start the runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(config))
}

fn init_logging(filter: &str) {
    // The filter was validated with the configuration; fall back to `info` rather than fail.
    let filter = tracing_subscriber::EnvFilter::try_new(filter)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

async fn serve(config: Config) -> ExitCode {
    let metrics = Arc::new(Metrics::new());
    let health = Arc::new(Health::default());
    let (users, audit) = match load_users(&config, &metrics).await {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let loopback_only =
        config.bolt_listen.ip().is_loopback() && config.http_listen.ip().is_loopback();
    if !users.is_enabled() && !loopback_only {
        // Only with --auth none --allow-unauthenticated-network: the configuration refuses it
        // otherwise.
        tracing::warn!("authentication is disabled on a non-loopback address");
    }
    health.set(Readiness::Recovering);
    let graph = match open_graph_and_users(&config, &metrics).await {
        Ok(opened) => opened,
        Err(message) => {
            eprintln!("quiver: {message}");
            return ExitCode::FAILURE;
        }
    };
    if let (Some(view), Some(audit)) = (graph.cluster(), audit) {
        view.set_audit_log(audit);
    }
    metrics.follow_engine({
        let db = Arc::downgrade(graph.database());
        Box::new(move || EngineFigures {
            transactions_begun_again: db.upgrade().map_or(0, |db| db.transactions_begun_again()),
        })
    });
    // One query pool for both listeners: Bolt and HTTP work share its threads.
    let pool = match QueryPool::new(config.query.threads) {
        Ok(pool) => Arc::new(pool),
        Err(error) => {
            eprintln!("quiver: cannot start the query threads: {error}");
            return ExitCode::FAILURE;
        }
    };
    let http_api = http_api(&config, &graph, &metrics, &pool);
    let server = match Server::bind(
        config,
        ServerParts {
            metrics,
            health: Arc::clone(&health),
            users: Arc::new(users),
            http_api: Some(http_api),
            query_pool: Some(pool),
        },
    ) {
        Ok(server) => server.with_graph(Arc::clone(&graph)),
        Err(error) => {
            eprintln!("quiver: {error}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    #[cfg(unix)]
    let signals = match install_signals() {
        Ok(signals) => signals,
        Err(error) => {
            eprintln!("quiver: cannot install signal handlers: {error}");
            return ExitCode::FAILURE;
        }
    };
    // Before the addresses are printed, like the others.
    #[cfg(unix)]
    if let Some(tls) = server.tls() {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
            Ok(hangup) => {
                tokio::spawn(reload_tls_on_hangup(hangup, "TLS", move || tls.reload()));
            }
            Err(error) => {
                eprintln!("quiver: cannot install the SIGHUP handler: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    print_listening(&server);
    tracing::info!(bolt = %server.bolt_addr(), http = %server.http_addr(), "listening");
    health.set(Readiness::Ready);
    let replica = graph.cluster().map(|view| Arc::clone(view.replica()));
    #[cfg(unix)]
    tokio::spawn(watch_signals(
        signals,
        server.trigger(),
        Arc::clone(&health),
        replica.clone(),
    ));
    #[cfg(not(unix))]
    tokio::spawn(watch_signals(server.trigger()));
    let report = server.run().await;
    if report.forced {
        tracing::warn!(?report, "drain deadline passed; connections were cut");
    }
    let closed = close_store(graph, replica).await;
    tracing::info!("stopped");
    if closed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The users the configuration names, with the audit log when one is configured (returned
/// too, for the cluster's membership changes). Hashing passwords given in clear takes an
/// argon2 run each, so it runs off the runtime's workers.
async fn load_users(
    config: &Config,
    metrics: &Arc<Metrics>,
) -> Result<(UserStore, Option<Arc<AuditLog>>), ExitCode> {
    let users = load_configured_users(config, metrics).await?;
    let Some(path) = &config.audit_log else {
        return Ok((users, None));
    };
    match AuditLog::open(path) {
        Ok(log) => {
            let log = Arc::new(log);
            Ok((users.with_audit_log(Arc::clone(&log)), Some(log)))
        }
        Err(error) => {
            eprintln!("quiver: audit log {}: {error}", path.display());
            Err(ExitCode::from(EXIT_CONFIG))
        }
    }
}

async fn load_configured_users(
    config: &Config,
    metrics: &Arc<Metrics>,
) -> Result<UserStore, ExitCode> {
    let auth = config.auth.clone();
    let delay_max = config.timeouts.auth_failure_delay_max;
    let attempts = config.limits.auth_attempts_in_flight_per_address_max;
    let metrics = Arc::clone(metrics);
    match tokio::task::spawn_blocking(move || {
        UserStore::from_config(&auth, delay_max, metrics)
            .map(|users| users.with_attempts_in_flight_per_address_max(attempts))
    })
    .await
    {
        Ok(Ok(users)) => Ok(users),
        Ok(Err(error)) => {
            eprintln!("quiver: users: {error}");
            Err(ExitCode::from(EXIT_CONFIG))
        }
        Err(error) => {
            eprintln!("quiver: users: {error}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// The store, and on a first start the `--initial-user`.
async fn open_graph_and_users(
    config: &Config,
    metrics: &Arc<Metrics>,
) -> Result<Arc<Graph>, String> {
    let graph = open_graph(config, metrics).await?;
    if let Some(AuthSpec::Basic { user, password }) = &config.initial_user {
        if graph.cluster().is_some() {
            tokio::spawn(create_initial_user_when_leading(
                Arc::clone(graph.database()),
                user.clone(),
                password.clone(),
            ));
        } else {
            create_initial_user(graph.database(), user, password)
                .await
                .map_err(|message| format!("initial user: {message}"))?;
        }
    }
    Ok(graph)
}

/// How often a cluster member looks whether it leads, or has the users, until the initial user
/// exists.
const INITIAL_USER_POLL_MS: u64 = 200;
/// After a failed attempt (a leadership lost mid-commit), the wait before the next.
const INITIAL_USER_RETRY_MS: u64 = 5_000;

/// `--initial-user` on a cluster member. Members start as followers, so at start none could
/// write the user; instead each waits until it either leads or has stored users. The one that
/// leads first creates the user through the log, once; the others receive it by replication
/// (and then stop waiting), like every other user change. A leader takes writes only after
/// applying everything committed before its term, so it never creates the user a second time.
async fn create_initial_user_when_leading(db: Arc<Database>, user: String, password: String) {
    loop {
        if db.has_stored_users() {
            return;
        }
        let mut wait = INITIAL_USER_POLL_MS;
        if db.write_refusal().is_none()
            && let Err(message) = create_initial_user(&db, &user, &password).await
        {
            tracing::warn!(%message, "creating the initial user failed; trying again");
            wait = INITIAL_USER_RETRY_MS;
        }
        tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
    }
}

/// `--initial-user`: on a first start (no user stored yet), the stored administrator whose
/// password must be changed before anything else runs. Its password is hashed here and given
/// as `ENCRYPTED`, so it may be shorter than the minimum (as Neo4j's `neo4j/neo4j`): the
/// new one it must be changed to may not. On a cluster member that does not lead, nothing is
/// created (see [`create_initial_user_when_leading`]).
async fn create_initial_user(db: &Arc<Database>, user: &str, password: &str) -> Result<(), String> {
    let (db, user, password) = (Arc::clone(db), user.to_owned(), password.to_owned());
    tokio::task::spawn_blocking(move || {
        if db.has_stored_users() {
            return Ok(());
        }
        let hash = quiver_engine::hash_password(&password).map_err(|e| e.to_string())?;
        let mut params = quiver_value::Map::new();
        params.insert("hash".into(), quiver_value::Value::from(hash.as_str()));
        let name = user.replace('`', "``");
        for statement in [
            format!(
                "CREATE USER `{name}` IF NOT EXISTS SET ENCRYPTED PASSWORD $hash CHANGE REQUIRED"
            ),
            format!("GRANT ROLE admin TO `{name}`"),
        ] {
            match db.execute(&statement, params.clone()) {
                Ok(_) => {}
                Err(error)
                    if error.status_code().code() == "Neo.ClientError.Cluster.NotALeader" =>
                {
                    return Ok(());
                }
                Err(error) => return Err(error.to_string()),
            }
        }
        tracing::info!(
            user,
            "created the initial user; its password must be changed at first login"
        );
        Ok(())
    })
    .await
    .map_err(|error| error.to_string())?
}

/// Machine-readable, on stdout, before anything else is printed there: scripts and tests that
/// start on port 0 read these two lines to learn where to connect.
fn print_listening(server: &Server) {
    let mut stdout = std::io::stdout().lock();
    let printed = writeln!(stdout, "bolt listening on {}", server.bolt_addr())
        .and_then(|()| writeln!(stdout, "http listening on {}", server.http_addr()))
        .and_then(|()| stdout.flush());
    if let Err(error) = printed {
        tracing::warn!(%error, "cannot print the listening addresses");
    }
}

/// Closes the store once the server has stopped: a cluster member stops Raft (its log is
/// durable at every acknowledgement, so that is the whole close); a single server flushes its
/// log and writes a closing snapshot. Whether it closed cleanly.
async fn close_store(graph: Arc<Graph>, replica: Option<Arc<Replica>>) -> bool {
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
        None => close(db).await,
    }
}

/// Recovers the data directory (or makes an empty in-memory graph). Recovery reads files and
/// replays the log: it runs off the runtime's workers.
async fn open_graph(config: &Config, metrics: &Arc<Metrics>) -> Result<Arc<Graph>, String> {
    let engine = EngineConfig {
        query_memory_bytes_max: config.query.memory_bytes_max,
        query_memory_total_bytes_max: config.query.memory_total_bytes_max,
        plan_cache_bytes_max: config.query.plan_cache_bytes_max,
        lock_wait_max: config.query.lock_wait,
        import_dir: config.import_dir.clone(),
        ..EngineConfig::default()
    };
    if let Some(cluster) = &config.cluster {
        return open_member(config, cluster, engine, metrics).await;
    }
    let dir = match &config.storage {
        StorageMode::InMemory => {
            tracing::info!("storage in memory: nothing is written to disk");
            let db = Database::open_in_memory(engine);
            return Ok(Arc::new(Graph::new(db)));
        }
        StorageMode::Directory(dir) => dir.clone(),
    };
    let mode = match config.durability {
        config::Durability::Buffered => Mode::Buffered,
        config::Durability::Group => Mode::Group,
        config::Durability::Sync => Mode::Sync,
    };
    // The database owns the directory from here: what "acknowledged" and "visible" mean, and
    // the close.
    let opened = tokio::task::spawn_blocking({
        let dir = dir.clone();
        let options = Options {
            flush_interval: config.commit_log.flush_interval,
            snapshot_log_bytes: config.commit_log.snapshot_log_bytes,
            snapshot_interval: config.commit_log.snapshot_interval,
            ..Options::default()
        };
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

/// Starts this cluster member: its Raft listener, log and snapshots in the data directory
/// (the Raft log is the member's only log: no single-node commit log, no second fsync), and
/// its store, loaded from the newest snapshot and the log.
async fn open_member(
    config: &Config,
    cluster: &ClusterSettings,
    engine: EngineConfig,
    metrics: &Arc<Metrics>,
) -> Result<Arc<Graph>, String> {
    let StorageMode::Directory(dir) = &config.storage else {
        return Err("a cluster member needs a data directory".to_owned());
    };
    if config.bolt_listen.port() == 0 || config.http_listen.port() == 0 {
        // The addresses are advertised to the other members before the listeners are bound.
        return Err("a cluster member needs fixed Bolt and HTTP ports (not 0)".to_owned());
    }
    let listener = tokio::net::TcpListener::bind(cluster.raft_listen)
        .await
        .map_err(|error| format!("raft listener {}: {error}", cluster.raft_listen))?;
    let raft_bound = listener
        .local_addr()
        .map_err(|error| format!("raft listener {}: {error}", cluster.raft_listen))?;
    let node = Node::new(
        cluster.advertise(raft_bound),
        cluster.advertise(config.bolt_listen),
        cluster.advertise(config.http_listen),
    );
    let mut member = ClusterConfig::new(cluster.node_id, node.clone(), dir);
    member.tls = cluster_tls(cluster)?;
    member.snapshot_every_entries = cluster.snapshot_entries;
    member.logs_kept_after_snapshot = cluster.logs_kept_after_snapshot();
    member.set_election_timeout(cluster.election_timeout_ms);
    member.initial_members = cluster
        .initial_members
        .iter()
        .map(|(id, raft)| {
            let known = if *id == cluster.node_id {
                node.clone()
            } else {
                // Their Bolt and HTTP addresses arrive once they announce themselves.
                Node::new(raft.clone(), "", "")
            };
            (*id, known)
        })
        .collect();
    let replica = Replica::start(member, listener, engine)
        .await
        .map_err(|error| format!("cluster member {}: {error}", cluster.node_id))?;
    if let Some(join) = &cluster.join {
        tokio::spawn(report_join(
            Arc::clone(&replica),
            join.clone(),
            node.raft_addr.clone(),
        ));
    }
    tracing::info!(
        member = cluster.node_id,
        raft = %raft_bound,
        dir = %dir.display(),
        "cluster member started"
    );
    tokio::spawn(quiver_server::cluster::follow_metrics(
        Arc::clone(&replica),
        Arc::clone(metrics),
    ));
    Ok(Arc::new(Graph::clustered(replica, cluster.reads_on_leader)))
}

/// The member's cluster TLS, when configured, re-read on SIGHUP like the listeners'.
fn cluster_tls(cluster: &ClusterSettings) -> Result<Option<Arc<quiver_cluster::PeerTls>>, String> {
    let Some(settings) = &cluster.tls else {
        if !cluster.raft_listen.ip().is_loopback() {
            tracing::warn!(raft = %cluster.raft_listen, "cluster TLS is off on a Raft listener beyond loopback");
        }
        return Ok(None);
    };
    let tls = quiver_server::tls::ClusterTls::load(cluster.node_id, settings)
        .map_err(|error| error.to_string())?;
    let peer = Arc::clone(tls.peer());
    #[cfg(unix)]
    {
        let hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
            .map_err(|error| format!("cannot install the SIGHUP handler: {error}"))?;
        tokio::spawn(reload_tls_on_hangup(hangup, "cluster TLS", move || {
            tls.reload()
        }));
    }
    Ok(Some(peer))
}

/// How often a member started with `--join` reports that it still waits to be added.
const JOIN_REPORT_INTERVAL_MS: u64 = 10_000;

/// A member started with `--join` initializes nothing: it waits for the leader to add it. Until
/// it is in a membership, it says so every little while, with whether the member it was told
/// to join answers on its Raft listener, so an operator sees what is missing.
async fn report_join(replica: Arc<Replica>, join: String, raft_addr: String) {
    let id = replica.member().id();
    loop {
        let status = replica.member().status();
        if status.role == quiver_cluster::Role::Shutdown {
            return;
        }
        if status.members.contains_key(&id) {
            tracing::info!(member = id, leader = ?status.leader, "added to the cluster");
            return;
        }
        let reachable = tokio::time::timeout(
            std::time::Duration::from_millis(JOIN_REPORT_INTERVAL_MS / 2),
            tokio::net::TcpStream::connect(&join),
        )
        .await
        .is_ok_and(|c| c.is_ok());
        tracing::info!(
            member = id,
            join = %join,
            reachable,
            "waiting to be added: on the leader, CALL dbms.cluster.addServer({id}, '{raft_addr}')"
        );
        tokio::time::sleep(std::time::Duration::from_millis(JOIN_REPORT_INTERVAL_MS)).await;
    }
}

/// Flushes the log, writes the closing snapshot and releases the directory. Returns whether
/// that went well.
async fn close(db: Arc<Database>) -> bool {
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

/// The signal streams, installed before the addresses are printed: a supervisor that reads the
/// addresses and sends SIGTERM at once must find the handler in place, not the default action.
#[cfg(unix)]
struct Signals {
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
}

#[cfg(unix)]
fn install_signals() -> std::io::Result<Signals> {
    use tokio::signal::unix::{SignalKind, signal};
    Ok(Signals {
        terminate: signal(SignalKind::terminate())?,
        interrupt: signal(SignalKind::interrupt())?,
    })
}

/// First SIGTERM/SIGINT: graceful shutdown. A second one: exit at once.
///
/// A cluster member first turns not ready and stops taking writes; a leader hands leadership
/// to its most up-to-date follower (so the cluster sits through no election timeout, and
/// drivers' writes fail with NotALeader and find the new leader); then in-flight work drains.
#[cfg(unix)]
async fn watch_signals(
    mut signals: Signals,
    trigger: ShutdownTrigger,
    health: Arc<Health>,
    replica: Option<Arc<Replica>>,
) {
    for round in 0..2 {
        tokio::select! {
            _ = signals.terminate.recv() => {}
            _ = signals.interrupt.recv() => {}
        }
        if round == 0 {
            tracing::info!("shutdown requested");
            if let Some(replica) = &replica {
                health.set(Readiness::Draining);
                let handover = replica.member().hand_over(HANDOVER_TIMEOUT);
                tokio::select! {
                    _ = handover => {}
                    _ = signals.terminate.recv() => {
                        tracing::warn!("second signal: exiting without waiting for the drain");
                        std::process::exit(1);
                    }
                }
            }
            trigger.shutdown();
        } else {
            tracing::warn!("second signal: exiting without waiting for the drain");
            std::process::exit(1);
        }
    }
}

/// SIGHUP re-reads the TLS certificate, key and client CA (or, for `what` = cluster TLS, the
/// member's certificate, key and cluster CA): handshakes from then on use them, connections
/// already open keep theirs. A file that does not load leaves the old ones in use.
#[cfg(unix)]
async fn reload_tls_on_hangup<F>(
    mut hangup: tokio::signal::unix::Signal,
    what: &'static str,
    reload: F,
) where
    F: Fn() -> Result<(), quiver_server::tls::TlsError> + Send + Sync + 'static,
{
    let reload = Arc::new(reload);
    while hangup.recv().await.is_some() {
        let reloading = Arc::clone(&reload);
        match tokio::task::spawn_blocking(move || reloading()).await {
            Ok(Ok(())) => tracing::info!("{what} certificate and key reloaded"),
            Ok(Err(error)) => {
                tracing::error!(%error, "{what} reload failed; the previous certificate stays in use");
            }
            Err(error) => tracing::error!(%error, "{what} reload stopped"),
        }
    }
}

#[cfg(not(unix))]
async fn watch_signals(trigger: ShutdownTrigger) {
    if tokio::signal::ctrl_c().await.is_ok() {
        trigger.shutdown();
    }
}

/// Forwards the HTTP API's transaction events to the server's counters, so `/metrics` and
/// `/stats` count HTTP transactions beside Bolt ones.
struct ServerTelemetry(Arc<Metrics>);

impl Telemetry for ServerTelemetry {
    fn transaction_opened(&self) {
        self.0.transactions.opened.inc();
        self.0.transactions.active.inc();
    }
    fn transaction_committed(&self) {
        self.0.transactions.committed.inc();
        self.0.transactions.active.dec();
    }
    fn transaction_rolled_back(&self) {
        self.0.transactions.rolled_back.inc();
        self.0.transactions.active.dec();
    }
    fn transaction_abandoned(&self) {
        self.0.transactions.abandoned.inc();
    }
    fn transaction_idle_timed_out(&self) {
        self.0.transactions.idle_timed_out.inc();
    }
    fn query_finished(&self, elapsed: std::time::Duration) {
        self.0.query_latency.observe(elapsed);
    }
}

/// Neo4j's HTTP API (transactional endpoints, Query API, discovery) over the served graph, its
/// engine work on `pool` beside Bolt's.
fn http_api(
    config: &Config,
    graph: &Graph,
    metrics: &Arc<Metrics>,
    pool: &Arc<QueryPool>,
) -> ApiHandler {
    let api = HttpApi::with_hooks(
        Arc::clone(graph.database()),
        http_api_config(config),
        Hooks {
            telemetry: Arc::new(ServerTelemetry(Arc::clone(metrics))),
            pool: Some(Arc::clone(pool)),
        },
    );
    // `with_hooks` started the idle-transaction expiry task on this runtime.
    ApiHandler::from_service(api)
}

/// The HTTP API's settings from the server's: the same bookmark wait as Bolt, and the same
/// query placement policy (`pool` keeps every statement off the connection's task, `inline`
/// measures both protocols without the hand-off).
fn http_api_config(config: &Config) -> ApiConfig {
    ApiConfig {
        bolt_port: config.bolt_listen.port(),
        bolt_tls_required: config
            .tls
            .as_ref()
            .is_some_and(|tls| tls.bolt == config::TlsMode::Required),
        http_tls_required: config
            .tls
            .as_ref()
            .is_some_and(|tls| tls.http == config::TlsMode::Required),
        bookmark_wait: config.timeouts.bookmark,
        placement: config.query.placement,
        // The same idle-transaction timeout as Bolt; "never" is a week, the longest timeout.
        transaction_idle_timeout: config
            .timeouts
            .idle_transaction
            .unwrap_or(std::time::Duration::from_millis(config::TIMEOUT_MS_LIMIT)),
        transaction_timeout: config.timeouts.transaction,
        open_transactions_per_user_max: config.limits.http_transactions_per_user_max as usize,
        open_transactions_per_address_max: config.limits.http_transactions_per_address_max as usize,
        auth_enabled: config.auth.enabled,
        // The version the Bolt agent and `dbms.components()` announce, from their one source.
        neo4j_version: quiver_server::procedures::neo4j_version().to_owned(),
        ..ApiConfig::default()
    }
}
