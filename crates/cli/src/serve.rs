//! `quiver serve`: configuration, logging, the node (assembled by `quiver-node`), signals and
//! exit codes.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

#[cfg(unix)]
use quiver_node::reload_tls_on_hangup;
use quiver_node::{Node, NodeBuilder};
#[cfg(unix)]
use quiver_server::Replica;
use quiver_server::ShutdownTrigger;
use quiver_server::config::{Config, Layer, resolve};
#[cfg(unix)]
use quiver_server::health::{Health, Readiness};

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
    // The trace exporter sends its batches on the runtime, so it is built within it.
    let exporter = {
        let _entered = runtime.enter();
        match init_logging(&config) {
            Ok(exporter) => exporter,
            Err(error) => {
                eprintln!("quiver: {error}");
                return ExitCode::from(EXIT_CONFIG);
            }
        }
    };
    let code = runtime.block_on(serve(config));
    if let Some(exporter) = exporter {
        let _entered = runtime.enter();
        exporter.shutdown();
    }
    code
}

/// The log on stderr, and with tracing on the exporter of [`quiver_telemetry::TARGET`]'s spans
/// (which the log leaves out).
fn init_logging(
    config: &Config,
) -> Result<Option<quiver_telemetry::Exporter>, quiver_telemetry::ExporterError> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    // The filter was validated with the configuration; fall back to `info` rather than fail.
    let filter = tracing_subscriber::EnvFilter::try_new(&config.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let filter = match format!("{}=off", quiver_telemetry::TARGET).parse() {
        Ok(spans_off) => filter.add_directive(spans_off),
        Err(_) => filter,
    };
    let log = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter);
    let registry = tracing_subscriber::registry().with(log);
    match &config.tracing {
        None => {
            registry.init();
            Ok(None)
        }
        Some(settings) => {
            let (spans, exporter) = quiver_telemetry::Exporter::start(settings)?;
            registry.with(spans).init();
            Ok(Some(exporter))
        }
    }
}

async fn serve(config: Config) -> ExitCode {
    let node = match NodeBuilder::new(config).build().await {
        Ok(node) => node,
        Err(error) => {
            eprintln!("quiver: {error}");
            return if error.is_configuration() {
                ExitCode::from(EXIT_CONFIG)
            } else {
                ExitCode::FAILURE
            };
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
    if let Some(tls) = node.tls() {
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
    print_listening(&node);
    tracing::info!(bolt = %node.bolt_addr(), http = %node.http_addr(), "listening");
    #[cfg(unix)]
    tokio::spawn(watch_signals(
        signals,
        node.trigger(),
        Arc::clone(node.health()),
        node.replica(),
    ));
    #[cfg(not(unix))]
    tokio::spawn(watch_signals(node.trigger()));
    let stopped = node.run().await;
    tracing::info!("stopped");
    if stopped.closed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Machine-readable, on stdout, before anything else is printed there: scripts and tests that
/// start on port 0 read these two lines to learn where to connect.
fn print_listening(node: &Node) {
    let mut stdout = std::io::stdout().lock();
    let printed = writeln!(stdout, "bolt listening on {}", node.bolt_addr())
        .and_then(|()| writeln!(stdout, "http listening on {}", node.http_addr()))
        .and_then(|()| stdout.flush());
    if let Err(error) = printed {
        tracing::warn!(%error, "cannot print the listening addresses");
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

#[cfg(not(unix))]
async fn watch_signals(trigger: ShutdownTrigger) {
    if tokio::signal::ctrl_c().await.is_ok() {
        trigger.shutdown();
    }
}
