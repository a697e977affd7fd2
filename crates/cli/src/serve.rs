//! `quiver serve`: configuration, logging, listeners, signals.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

use quiver_server::auth::UserStore;
use quiver_server::config::{Config, Layer, StorageMode, resolve};
use quiver_server::health::{Health, Readiness};
use quiver_server::metrics::Metrics;
use quiver_server::{Server, ServerParts, ShutdownTrigger};

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
    let users = {
        let auth = config.auth.clone();
        let delay_max = config.timeouts.auth_failure_delay_max;
        let metrics = Arc::clone(&metrics);
        // Hashing passwords given in clear takes an argon2 run each: keep it off the workers.
        match tokio::task::spawn_blocking(move || UserStore::from_config(&auth, delay_max, metrics))
            .await
        {
            Ok(Ok(users)) => users,
            Ok(Err(error)) => {
                eprintln!("quiver: users: {error}");
                return ExitCode::from(EXIT_CONFIG);
            }
            Err(error) => {
                eprintln!("quiver: users: {error}");
                return ExitCode::FAILURE;
            }
        }
    };
    let loopback_only =
        config.bolt_listen.ip().is_loopback() && config.http_listen.ip().is_loopback();
    if !users.is_enabled() && !loopback_only {
        tracing::warn!("authentication is disabled on a non-loopback address");
    }
    let storage = config.storage.clone();
    let durability = config.durability;
    let server = match Server::bind(
        config,
        ServerParts {
            metrics,
            health: Arc::clone(&health),
            users: Arc::new(users),
            http_api: None,
        },
    ) {
        Ok(server) => server,
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
    // Machine-readable, on stdout, before anything else is printed there: scripts and tests that
    // start on port 0 read these two lines to learn where to connect.
    {
        let mut stdout = std::io::stdout().lock();
        let printed = writeln!(stdout, "bolt listening on {}", server.bolt_addr())
            .and_then(|()| writeln!(stdout, "http listening on {}", server.http_addr()))
            .and_then(|()| stdout.flush());
        if let Err(error) = printed {
            tracing::warn!(%error, "cannot print the listening addresses");
        }
    }
    tracing::info!(bolt = %server.bolt_addr(), http = %server.http_addr(), "listening");
    match &storage {
        StorageMode::InMemory => tracing::info!(%durability, "storage in memory"),
        StorageMode::Directory(dir) => {
            tracing::info!(dir = %dir.display(), %durability, "storage directory");
        }
    }
    // Until the query engine is wired in there is nothing to recover: the server is ready as soon
    // as it listens (and serves the handshake and the operations endpoints only).
    health.set(Readiness::Recovering);
    health.set(Readiness::Ready);
    #[cfg(unix)]
    tokio::spawn(watch_signals(signals, server.trigger()));
    #[cfg(not(unix))]
    tokio::spawn(watch_signals(server.trigger()));
    let report = server.run().await;
    if report.forced {
        tracing::warn!(?report, "drain deadline passed; connections were cut");
    }
    tracing::info!("stopped");
    ExitCode::SUCCESS
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
#[cfg(unix)]
async fn watch_signals(mut signals: Signals, trigger: ShutdownTrigger) {
    for round in 0..2 {
        tokio::select! {
            _ = signals.terminate.recv() => {}
            _ = signals.interrupt.recv() => {}
        }
        if round == 0 {
            tracing::info!("shutdown requested");
            trigger.shutdown();
        } else {
            tracing::warn!("second signal: exiting without waiting for the drain");
            std::process::exit(1);
        }
    }
}

#[cfg(not(unix))]
async fn watch_signals(trigger: ShutdownTrigger) {
    if tokio::signal::ctrl_c().await.is_ok() {
        trigger.shutdown();
    }
}
