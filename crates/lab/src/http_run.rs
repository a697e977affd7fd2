//! `quiver lab --protocol http`: seed 002's four experiments against an HTTP listener (the
//! in-process server's, with Neo4j's HTTP API over the seeded graph, or `--target
//! http://[user:password@]host:port`), with the report lines, `metrics.json`, `host.json` and a
//! `report.html` of the run.

use std::io::Write as _;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use quiver_storage::Storage;

use crate::args::{LabArgs, Mode};
use crate::artifacts;
use crate::client::{Credentials, Dialer};
use crate::error::LabError;
use crate::experiments::http::{self, HttpReport, HttpTarget, LiveSource};
use crate::host::Host;
use crate::inproc::{InProcess, InProcessSpec};
use crate::procfs::Pid;
use crate::run::{client_runtime, host_and_shutdown_lines, social_of};
use crate::sampler::Probe;
use crate::seed::load_into;
use crate::target::split_credentials;

/// A parsed `http://[user:password@]host:port`.
pub fn parse_http_url(url: &str) -> Result<(SocketAddr, Option<Credentials>), LabError> {
    let bad = |detail: &str| LabError::Usage(format!("--target {url}: {detail}"));
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| bad("expected http://host:port with --protocol http"))?;
    let rest = rest.trim_end_matches('/');
    let (credentials, hostport) = split_credentials(rest).map_err(bad)?;
    let addr = hostport
        .to_socket_addrs()
        .map_err(|e| bad(&e.to_string()))?
        .next()
        .ok_or_else(|| bad("no address"))?;
    Ok((addr, credentials))
}

/// `--protocol http`: one experiment (`--mode`), or with `--ladder` all four at every rung
/// (`--rungs`), each against a fresh server, with `report.html` in `--artifact-dir`.
pub fn run(args: &LabArgs) -> Result<(), LabError> {
    if args.ladder {
        return suite(args);
    }
    let (_, lines, record) = measure(args, args.mode, args.connections.max(1))?;
    if let Some(dir) = &args.artifact_dir {
        std::fs::create_dir_all(dir).map_err(|e| LabError::artifact(dir, e))?;
        artifacts::write_json(&dir.join("metrics.json"), &record)?;
        if let Some(host) = record.get("host") {
            artifacts::write_json(&dir.join("host.json"), host)?;
        }
    }
    print_lines(&lines);
    Ok(())
}

fn print_lines(lines: &[String]) {
    let mut stdout = std::io::stdout().lock();
    for line in lines {
        let _ = writeln!(stdout, "{line}");
    }
}

/// The four experiments at every rung, one after another, then `report.html`.
fn suite(args: &LabArgs) -> Result<(), LabError> {
    let mut reports = Vec::new();
    let mut records = Vec::new();
    for mode in [Mode::Load, Mode::Idle, Mode::Slow, Mode::Slowloris] {
        for &connections in &args.rungs {
            let (report, lines, record) = measure(args, mode, connections.max(1))?;
            print_lines(&lines);
            println!();
            reports.push(report);
            records.push(record);
        }
    }
    if let Some(dir) = &args.artifact_dir {
        std::fs::create_dir_all(dir).map_err(|e| LabError::artifact(dir, e))?;
        let record = serde_json::json!({
            "schema": "quiver.lab.http-suite/v1",
            "header_deadline_ms": args.handshake_timeout_ms,
            "runs": records,
        });
        artifacts::write_json(&dir.join("http.json"), &record)?;
        artifacts::write_text(
            &dir.join("report.html"),
            &crate::artifacts::html::http_page(&reports, args.handshake_timeout_ms),
        )?;
    }
    Ok(())
}

/// One experiment at `connections`, against a fresh in-process server or the target.
pub fn measure(
    args: &LabArgs,
    mode: Mode,
    connections: usize,
) -> Result<(HttpReport, Vec<String>, serde_json::Value), LabError> {
    let mut host = Host::probe(
        "Client and server share the host's cores; figures are this machine's, not portable.",
    );
    let social = social_of(args);
    let expected = i64::try_from(social.people.len()).unwrap_or(i64::MAX);
    let ceiling =
        crate::experiments::Ceiling::of(connections, args.target.is_none(), args.source_addrs);
    let offered = ceiling.reachable.max(1);
    let runtime = client_runtime(args.client_threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    }))?;
    let (server, target) = match &args.target {
        None => {
            let storage = Storage::new();
            load_into(&storage, &social)?;
            let (server, bolt) = InProcess::start(
                storage,
                InProcessSpec {
                    max_connections: args
                        .max_connections
                        .unwrap_or(u32::try_from(offered + 16).unwrap_or(u32::MAX)),
                    threads: args.server_threads.unwrap_or_else(|| {
                        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
                    }),
                    handshake_timeout_ms: args.handshake_timeout_ms,
                    fds: args.fd_sampling,
                    http_api: true,
                },
            )?;
            let target = HttpTarget {
                label: crate::run::IN_PROCESS.to_owned(),
                addr: server.http_addr,
                authorization: None,
                live: LiveSource::InProcess(server.http_live()),
                probe: bolt.probe,
            };
            (Some(server), target)
        }
        Some(url) => {
            let (addr, credentials) = parse_http_url(url)?;
            let target = HttpTarget {
                label: format!("http://{addr}"),
                addr,
                authorization: HttpTarget::authorization_of(credentials.as_ref()),
                live: LiveSource::Stats(addr),
                probe: Probe {
                    pid: args.target_pid.map_or(Pid::Other(0), Pid::Other),
                    fds: args.fd_sampling && args.target_pid.is_some(),
                    tasks: None,
                },
            };
            (None, target)
        }
    };
    let dialer = Arc::new(Dialer::new(
        target.addr,
        args.source_addrs,
        Duration::from_millis(args.connect_timeout_ms),
    ));
    let hold = Duration::from_millis(args.hold_ms);
    let report = runtime.block_on(async {
        match mode {
            Mode::Idle => {
                http::idle(&target, &dialer, offered, hold, expected, args.idle_after).await
            }
            Mode::Slow => http::slow(&target, &dialer, offered, hold).await,
            Mode::Slowloris => {
                let drip = Duration::from_millis(args.drip_ms);
                http::slowloris(&target, &dialer, offered, drip, hold).await
            }
            _ => {
                let duration = Duration::from_millis(args.duration_ms.unwrap_or(args.hold_ms));
                http::load(&target, &dialer, offered, duration, expected).await
            }
        }
    });
    drop(runtime);
    host.finish();
    let shutdown = server.map(InProcess::stop);
    let mut lines = vec![
        format!("config.protocol=http mode={}", report.mode),
        format!("config.connections={offered}"),
        format!("config.source_addrs={}", args.source_addrs),
        format!("config.target={}", target.label),
    ];
    lines.extend(report.lines());
    lines.push(ceiling.line());
    lines.extend(host_lines(&host, shutdown.as_ref()));
    let record = serde_json::json!({
        "schema": "quiver.lab.http/v1",
        "protocol": "http",
        "host": host,
        "experiment": report,
        "shutdown": shutdown,
    });
    Ok((report, lines, record))
}

/// The host's limits and the in-process server's shutdown, as report lines.
fn host_lines(host: &Host, shutdown: Option<&crate::report::ShutdownRecord>) -> Vec<String> {
    let known = |v: Option<u64>| v.map_or_else(|| "unknown".to_owned(), |v| v.to_string());
    let limits = vec![format!(
        "# host.fd_limit soft={} hard={}",
        known(host.fd_limit_soft),
        known(host.fd_limit_hard)
    )];
    host_and_shutdown_lines(limits, host, shutdown)
}
