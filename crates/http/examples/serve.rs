//! A Quiver server with the HTTP API and no authentication, assembled from the same parts as
//! `quiver serve` (the server's listeners, deadlines and metrics; the engine, in memory or over
//! a durable data directory; this crate's API): the reference for wiring the API into a
//! binary, and a way to measure the API without building the whole `quiver` binary
//! (`bench/http/run.sh` measures `quiver serve` itself).
//!
//! ```sh
//! cargo run --release -p quiver-http --example serve -- 127.0.0.1:7474 127.0.0.1:7687
//! cargo run --release -p quiver-http --example serve -- 127.0.0.1:7474 127.0.0.1:7687 data group
//! ```

use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quiver_durability::{Durability, Mode, Options};
use quiver_engine::{Database, EngineConfig};
use quiver_http::{ApiConfig, CommitWait, Hooks, HttpApi, Telemetry};
use quiver_server::auth::UserStore;
use quiver_server::config::{Config, Layer};
use quiver_server::health::{Health, Readiness};
use quiver_server::http::ApiHandler;
use quiver_server::metrics::Metrics;
use quiver_server::{Server, ServerParts};

/// Forwards the API's transaction events to the server's counters.
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
    fn query_finished(&self, elapsed: Duration) {
        self.0.query_latency.observe(elapsed);
    }
}

/// Acknowledges a commit once the durability layer has it on disk.
struct DiskWait(Arc<Durability>);

impl CommitWait for DiskWait {
    fn wait(&self, commit: u64) -> Result<(), String> {
        self.0.wait_for(commit).map_err(|e| e.to_string())
    }
}

fn address(arg: Option<String>, default: &str) -> Result<SocketAddr, String> {
    arg.as_deref()
        .unwrap_or(default)
        .parse()
        .map_err(|e| format!("bad address: {e}"))
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let http = address(args.next(), "127.0.0.1:7474")?;
    let bolt = address(args.next(), "127.0.0.1:7687")?;
    let durable = match args.next() {
        None => None,
        Some(dir) => {
            let mode: Mode = args
                .next()
                .as_deref()
                .unwrap_or("group")
                .parse()
                .map_err(|e: quiver_durability::Error| e.to_string())?;
            let (storage, durability) =
                Durability::open(&dir, mode, Options::default()).map_err(|e| e.to_string())?;
            Some((storage, Arc::new(durability)))
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    // Dropping the durability handle (with the server) syncs the log and stops its threads.
    runtime.block_on(serve(http, bolt, durable))
}

async fn serve(
    http: SocketAddr,
    bolt: SocketAddr,
    durable: Option<(Arc<quiver_storage::Storage>, Arc<Durability>)>,
) -> Result<(), String> {
    let config = Config::from_layer(Layer {
        http_listen: Some(http),
        bolt_listen: Some(bolt),
        in_memory: Some(true),
        ..Layer::default()
    })
    .map_err(|e| e.to_string())?;
    let metrics = Arc::new(Metrics::new());
    let health = Arc::new(Health::default());
    let users = UserStore::from_config(
        &config.auth,
        config.timeouts.auth_failure_delay_max,
        Arc::clone(&metrics),
    )
    .map_err(|e| e.to_string())?;
    let (db, commit_wait) = match durable {
        Some((storage, durability)) => (
            Database::with_storage(storage, EngineConfig::default()),
            Some(Arc::new(DiskWait(durability)) as Arc<dyn CommitWait>),
        ),
        None => (Database::open_in_memory(EngineConfig::default()), None),
    };
    let api = HttpApi::with_hooks(
        db,
        ApiConfig {
            bolt_port: bolt.port(),
            ..ApiConfig::default()
        },
        Hooks {
            telemetry: Arc::new(ServerTelemetry(Arc::clone(&metrics))),
            commit_wait,
        },
    );
    let server = Server::bind(
        config,
        ServerParts {
            metrics,
            health: Arc::clone(&health),
            users: Arc::new(users),
            http_api: Some(ApiHandler::from_service(api)),
        },
    )
    .map_err(|e| e.to_string())?;
    {
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "http listening on {}", server.http_addr());
        let _ = stdout.flush();
    }
    health.set(Readiness::Ready);
    let trigger = server.trigger();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            trigger.shutdown();
        }
    });
    server.run().await;
    Ok(())
}
