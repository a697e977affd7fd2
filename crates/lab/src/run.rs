//! `quiver lab`'s entry point: one rung, a connection experiment, the echo server, or (via
//! [`crate::ladder`]) a whole sweep.

use std::io::Write as _;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use quiver_storage::Storage;
use tokio::runtime::Runtime;

use crate::args::{LabArgs, Mode, Protocol};
use crate::artifacts;
use crate::client::Dialer;
use crate::echo::{EchoScript, EchoServer};
use crate::error::LabError;
use crate::experiments::{idle, slow, slowloris};
use crate::host::Host;
use crate::inproc::{InProcess, InProcessSpec};
use crate::load::{Budget, ClientShape, WindowSpec};
use crate::report::{Facts, RunConfig, RunRecord, render};
use crate::rung::{CLIENT_THREAD_PREFIX, RungSpec, run_rung};
use crate::seed::{Social, SocialSpec, load_into};
use crate::target::{Target, parse_url, remote, seed_over_wire};
use crate::workload::{Plan, Workload};

/// The target label of the in-process server.
pub const IN_PROCESS: &str = "quiver (in process)";

const CAVEAT_IN_PROCESS: &str = "Client and server run in one process and share the host's cores: \
throughput and latency include the client's own cost (cpu.client_share says how much). Compare rungs \
with each other, not with a server measured from another machine.";
const CAVEAT_REMOTE: &str = "Client and server are separate processes on the same host and share its \
cores: the client's CPU time (cpu.client) is taken from the same machine the server runs on.";

/// Exit status for flags that do not make sense together.
const EXIT_USAGE: u8 = 2;

pub fn main(args: LabArgs) -> ExitCode {
    if let Err(message) = args.validate() {
        eprintln!("quiver lab: {message}");
        return ExitCode::from(EXIT_USAGE);
    }
    let outcome = if args.workload == Workload::LdbcSnb {
        crate::snb::run::run(&args)
    } else if args.cluster.is_some() {
        crate::cluster::run(&args)
    } else if args.protocol == Protocol::Http && args.mode != Mode::Echo {
        crate::http_run::run(&args).map(|()| true)
    } else if args.ladder {
        crate::ladder::run(&args)
    } else {
        match args.mode {
            Mode::Load => run_load(&args).map(|record| record.passed),
            Mode::Idle | Mode::Slow | Mode::Slowloris | Mode::Handshakes => {
                run_experiment(&args).map(|()| true)
            }
            Mode::Echo => run_echo(&args).map(|()| true),
        }
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("quiver lab: verification failed (see the # verify lines)");
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("quiver lab: {error}");
            ExitCode::FAILURE
        }
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

pub fn client_runtime(threads: usize) -> Result<Runtime, LabError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .thread_name(CLIENT_THREAD_PREFIX)
        .enable_all()
        .build()
        .map_err(LabError::Io)
}

pub fn social_of(args: &LabArgs) -> Social {
    SocialSpec {
        persons: args.nodes,
        knows_min: args.knows_min,
        knows_max: args.knows_max,
        seed: args.seed,
        write_slots: args.write_slots,
    }
    .generate()
}

/// The target a run drives: the in-process server (started here), or `--target`.
pub fn open_target(
    args: &LabArgs,
    social: &Social,
    max_connections: u32,
) -> Result<(Option<InProcess>, Target), LabError> {
    match &args.target {
        None => {
            let storage = Storage::new();
            load_into(&storage, social)?;
            let (server, target) = InProcess::start(
                storage,
                InProcessSpec {
                    max_connections,
                    threads: args.server_threads.unwrap_or_else(cores),
                    handshake_timeout_ms: args.handshake_timeout_ms,
                    fds: args.fd_sampling,
                    http_api: false,
                },
            )?;
            Ok((Some(server), target))
        }
        Some(url) => {
            let url = parse_url(url)?;
            let http = match &args.target_http {
                Some(a) => Some(
                    a.parse::<SocketAddr>()
                        .map_err(|e| LabError::Usage(format!("--target-http {a}: {e}")))?,
                ),
                None => None,
            };
            Ok((None, remote(&url, http, args.target_pid, args.fd_sampling)))
        }
    }
}

pub fn window_spec(args: &LabArgs, social: Arc<Social>) -> WindowSpec {
    let shape = if args.workload == Workload::Mixed {
        ClientShape::Mixed {
            writers: args.writers,
            readers: args.readers,
        }
    } else if args.connections == 0 {
        ClientShape::Pooled {
            sessions: args.sessions,
            pool_max: args.pool_max,
        }
    } else {
        ClientShape::Connections {
            connections: args.connections,
            sessions: args.sessions,
        }
    };
    WindowSpec {
        shape,
        budget: args.duration_ms.map_or(Budget::Units(args.queries), |ms| {
            Budget::Time(Duration::from_millis(ms))
        }),
        plan: Plan {
            workload: args.workload,
            rows: args.rows,
            write_slots: args.write_slots,
            social,
        },
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        connect_timeout: Duration::from_millis(args.connect_timeout_ms),
        credentials: None,
        manifest: args.manifest,
    }
}

/// The rung's label: target, workload and connection count.
pub fn label_of(args: &LabArgs) -> String {
    args.label.clone().unwrap_or_else(|| {
        let target = if args.target.is_some() {
            "target"
        } else {
            "quiver"
        };
        let conn = if args.workload == Workload::Mixed {
            format!("writers={}/readers={}", args.writers, args.readers)
        } else if args.connections == 0 {
            format!("pooled={}", args.sessions)
        } else {
            format!("conn={}", args.connections)
        };
        format!("{target}/{}/{conn}", args.workload.name())
    })
}

/// One rung: seed, start or reach the server, measure, stop, report.
pub fn run_load(args: &LabArgs) -> Result<RunRecord, LabError> {
    let caveat = if args.target.is_some() {
        CAVEAT_REMOTE
    } else {
        CAVEAT_IN_PROCESS
    };
    let mut host = Host::probe(caveat);
    let social = Arc::new(social_of(args));
    let client_threads = args.client_threads.unwrap_or_else(cores);
    let runtime = client_runtime(client_threads)?;
    let (server, mut target) = open_target(args, &social, args.effective_max_connections())?;
    let mut spec = window_spec(args, Arc::clone(&social));
    spec.credentials.clone_from(&target.credentials);
    let dialer = dialer_for(args, &target)?;
    let flamegraph = args
        .artifact_dir
        .as_ref()
        .filter(|_| args.profile_enabled())
        .map(|d| d.join("flamegraph.svg"));
    if let Some(dir) = &args.artifact_dir {
        std::fs::create_dir_all(dir).map_err(|e| LabError::artifact(dir, e))?;
    }
    let rung = RungSpec {
        window: spec,
        repetitions: args.repetitions,
        flamegraph: flamegraph.clone(),
        saturation: args.expects_rejections(),
    };
    let (windows, totals) = runtime.block_on(async {
        if server.is_none() && args.seed_target {
            seed_over_wire(&target, &dialer, &social).await?;
        }
        let before = target.counters.read().await;
        let windows = run_rung(&target, &dialer, &rung).await?;
        let totals = match before {
            Some(b) => target.counters.settle(0).await.map(|(a, _)| a.since(&b)),
            None => None,
        };
        Ok::<_, LabError>((windows, totals))
    })?;
    drop(runtime);
    host.finish();
    let shutdown = server.map(InProcess::stop);
    target.total_reader = None;
    let config = RunConfig::new(
        args,
        &target.label,
        client_threads,
        args.target
            .is_none()
            .then(|| args.server_threads.unwrap_or_else(cores)),
    );
    let facts = Facts {
        nodes_person: social.people.len(),
        edges_knows: social.edge_count(),
        nodes_counter: args.write_slots,
    };
    let mut record = RunRecord::new(
        label_of(args),
        config,
        host,
        facts,
        windows,
        flamegraph
            .filter(|p| p.exists())
            .map(|_| "flamegraph.svg".to_owned()),
    );
    record.counters_total = totals;
    if let Some(s) = &shutdown {
        record.passed &= s.clean;
    }
    record.shutdown = shutdown;
    if let Some(dir) = &args.artifact_dir {
        artifacts::write_run(dir, &record)?;
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(render(&record).as_bytes());
    let _ = stdout.flush();
    Ok(record)
}

/// The dialler to `target` that `args` ask for: its source addresses, connect timeout and TLS.
fn dialer_for(args: &LabArgs, target: &Target) -> Result<Arc<Dialer>, LabError> {
    let connect_timeout = Duration::from_millis(args.connect_timeout_ms);
    let dialer = Dialer::new(target.addr, args.source_addrs, connect_timeout);
    Ok(Arc::new(dialer.with_tls(crate::tls::client_for(args)?)))
}

/// The comment lines an experiment ends with: the host's limits and how the in-process
/// server (if any) shut down.
fn host_lines(host: &Host, shutdown: Option<&crate::report::ShutdownRecord>) -> Vec<String> {
    let limits = vec![
        format!("# host.cores={}", host.cores),
        format!(
            "# host.fd_limit_soft={}",
            host.fd_limit_soft
                .map_or_else(|| "unknown".into(), |v| v.to_string())
        ),
    ];
    host_and_shutdown_lines(limits, host, shutdown)
}

/// The comment lines every protocol's experiment ends with: its own `limits` lines, then the
/// host's ephemeral ports and idleness and how the in-process server (if any) shut down.
pub(crate) fn host_and_shutdown_lines(
    mut lines: Vec<String>,
    host: &Host,
    shutdown: Option<&crate::report::ShutdownRecord>,
) -> Vec<String> {
    lines.extend([
        format!(
            "# host.ephemeral_ports={}",
            host.ephemeral_ports.clone().unwrap_or_default()
        ),
        format!("# host.idle={} ({})", host.idle, host.idle_note),
    ]);
    if let Some(s) = shutdown {
        lines.push(if s.clean {
            "# server shut down cleanly".to_owned()
        } else {
            format!(
                "# server shutdown NOT clean: forced={} tasks_left={}",
                s.forced, s.tasks_left
            )
        });
    }
    lines
}

fn run_experiment(args: &LabArgs) -> Result<(), LabError> {
    let caveat = if args.target.is_some() {
        CAVEAT_REMOTE
    } else {
        CAVEAT_IN_PROCESS
    };
    let mut host = Host::probe(caveat);
    let social = social_of(args);
    // What the host's descriptor limit and ports let the lab hold; less than asked is said, not
    // failed.
    let ceiling = crate::experiments::Ceiling::of(
        args.connections.max(1),
        args.target.is_none(),
        args.source_addrs,
    );
    let offered = ceiling.reachable.max(1);
    // Admit everything offered: these experiments measure holding, not refusing.
    let max = args.max_connections.unwrap_or((offered + 16) as u32);
    let runtime = client_runtime(args.client_threads.unwrap_or_else(cores))?;
    let (server, target) = open_target(args, &social, max)?;
    let dialer = dialer_for(args, &target)?;
    let hold = Duration::from_millis(args.hold_ms);
    let connect_timeout = Duration::from_millis(args.connect_timeout_ms);
    let lines = runtime.block_on(async {
        if server.is_none() && args.seed_target {
            seed_over_wire(&target, &dialer, &social).await?;
        }
        let (lines, json) = match args.mode {
            Mode::Idle => {
                let r = idle::run(&target, &dialer, offered, hold, connect_timeout).await;
                (r.lines(), serde_json::to_value(&r).ok())
            }
            Mode::Slow => {
                let r = slow::run(&target, &dialer, offered, hold, connect_timeout).await;
                (r.lines(), serde_json::to_value(&r).ok())
            }
            Mode::Handshakes => {
                let spec = crate::tls::handshakes::HandshakeSpec {
                    clients: offered,
                    duration: Duration::from_millis(args.duration_ms.unwrap_or(args.hold_ms)),
                    connect_timeout,
                    manifest: args.manifest,
                    resumed: args.tls_resume,
                };
                let r = crate::tls::handshakes::run(&target, &dialer, &spec).await;
                (r.lines(), serde_json::to_value(&r).ok())
            }
            _ => {
                let drip = Duration::from_millis(args.drip_ms);
                let r = slowloris::run(&target, &dialer, offered, drip, hold).await;
                (r.lines(), serde_json::to_value(&r).ok())
            }
        };
        Ok::<_, LabError>((lines, json))
    })?;
    drop(runtime);
    host.finish();
    let shutdown = server.map(InProcess::stop);
    let (mut lines, json) = lines;
    let mode = format!("{:?}", args.mode).to_lowercase();
    lines.insert(0, format!("config.mode={mode}"));
    lines.insert(1, format!("config.connections={offered}"));
    lines.insert(2, format!("config.source_addrs={}", args.source_addrs));
    lines.push(ceiling.line());
    if args.target.is_some() {
        lines.insert(3, format!("config.target={}", target.label));
    }
    lines.extend(host_lines(&host, shutdown.as_ref()));
    if let Some(dir) = &args.artifact_dir {
        let record = serde_json::json!({
            "schema": crate::rung::SCHEMA,
            "mode": mode,
            "host": host,
            "experiment": json,
            "shutdown": shutdown,
        });
        artifacts::write_json(&dir.join("metrics.json"), &record)?;
        artifacts::write_json(&dir.join("host.json"), &host)?;
    }
    let mut stdout = std::io::stdout().lock();
    for l in lines {
        let _ = writeln!(stdout, "{l}");
    }
    Ok(())
}

/// `--mode echo`: record Quiver's replies from an in-process server (or use Quiver's encoders
/// when none can start), then serve them until `--duration-ms` passes or the process is
/// stopped. Prints `echo listening on ADDR` first, for scripts and the ladder.
fn run_echo(args: &LabArgs) -> Result<(), LabError> {
    let social = social_of(args);
    let runtime = client_runtime(args.server_threads.unwrap_or_else(cores))?;
    let listen: SocketAddr = args
        .listen
        .parse()
        .map_err(|e| LabError::Usage(format!("--listen {}: {e}", args.listen)))?;
    let script = {
        let storage = Storage::new();
        load_into(&storage, &social)?;
        let (server, target) = InProcess::start(
            storage,
            InProcessSpec {
                max_connections: 8,
                threads: 1,
                handshake_timeout_ms: 10_000,
                fds: false,
                http_api: false,
            },
        )?;
        let (query, answer) = match args.workload {
            Workload::Return1 => (crate::workload::RETURN1_QUERY, 1),
            _ => (crate::workload::COUNT_QUERY, social.people.len() as i64),
        };
        let recorded = runtime.block_on(EchoScript::record(target.addr, None, query));
        let _ = server.stop();
        recorded.unwrap_or_else(|_| EchoScript::synthetic(quiver_bolt::Version::V5_8, answer))
    };
    runtime.block_on(async {
        let server = EchoServer::start(listen, script)?;
        {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "echo listening on {}", server.addr);
            let _ = stdout.flush();
        }
        match args.duration_ms {
            Some(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
            None => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
        server.stop();
        Ok::<_, LabError>(())
    })
}
