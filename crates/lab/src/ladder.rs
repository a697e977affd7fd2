//! `--ladder`: the connection ladder (1, 8, 64, 256, 1024 by default) plus a saturation rung,
//! each rung in a child process of its own, optionally side by side with peers.
//!
//! Why a child per rung: a process's allocator, descriptor table, runtime and profiler state
//! carry over from one measurement to the next; a fresh child gives every rung a cold heap and
//! its own CPU profile, so a rung is measured under conditions the next sweep can reproduce.
//! At each rung the targets run one after another (Quiver in process, then each peer), so they
//! share the host's momentary load as closely as a shared machine allows.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::args::LabArgs;
use crate::artifacts::html::{STYLE, Series, escape, line_chart};
use crate::artifacts::{write_json, write_text};
use crate::error::LabError;
use crate::host::Host;
use crate::report::{RunRecord, fmt_ns};
use crate::target::parse_peer;
use crate::workload::Workload;

pub const LADDER_SCHEMA: &str = "quiver.lab.ladder/v1";
/// Most time one rung's child may take before it is killed.
const RUNG_TIMEOUT: Duration = Duration::from_secs(900);
/// Most time a peer child may take to print where it listens.
const PEER_START_TIMEOUT: Duration = Duration::from_secs(60);

/// A server the rungs are run against.
#[derive(Clone, Debug, Serialize)]
pub struct LadderTarget {
    pub name: String,
    /// `None`: the in-process server of each child.
    pub url: Option<String>,
    pub http: Option<String>,
    pub pid: Option<u32>,
    /// A reference that is not a database (the echo server).
    pub reference: bool,
    /// Seed it over the wire before its first rung.
    pub seed: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct RungEntry {
    pub target: String,
    pub rung: String,
    pub connections: usize,
    pub max_connections: Option<u32>,
    pub command: Vec<String>,
    pub exit_code: Option<i32>,
    pub outcome: &'static str,
    pub dir: String,
    pub elapsed_ms: u64,
    pub record: Option<RunRecord>,
}

/// redis-benchmark against a RESP port at one connection count.
#[derive(Clone, Debug, Serialize)]
pub struct RespEntry {
    pub connections: usize,
    pub requests_per_s: Option<f64>,
    pub command: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct LadderRecord {
    pub schema: &'static str,
    pub host: Host,
    pub workload: Workload,
    pub rungs_swept: Vec<usize>,
    pub targets: Vec<LadderTarget>,
    pub rungs: Vec<RungEntry>,
    pub resp: Vec<RespEntry>,
    pub passed: bool,
}

/// A peer child process, killed when dropped.
struct PeerChild {
    child: Child,
}

impl Drop for PeerChild {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn run(args: &LabArgs) -> Result<bool, LabError> {
    let dir = args
        .artifact_dir
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("quiver-lab-{}", std::process::id())));
    std::fs::create_dir_all(&dir).map_err(|e| LabError::artifact(&dir, e))?;
    let exe = match &args.exe {
        Some(e) => e.clone(),
        None => std::env::current_exe()?,
    };
    let mut host = Host::probe(
        "Every rung ran in a fresh child process on this host, targets one after another. \
         In-process rungs share the host's cores between client and server; peers and \
         separate servers share them with the client.",
    );
    let (targets, children) = ladder_targets(&exe, args)?;
    let mut rungs = Vec::new();
    let mut resp = Vec::new();
    let mut seeded = vec![false; targets.len()];
    for &n in &args.rungs {
        for (t, target) in targets.iter().enumerate() {
            let seed = target.seed && !seeded[t];
            let entry = run_child(&exe, args, &dir, target, n, None, seed)?;
            seeded[t] |= entry.record.is_some();
            print_entry(&entry);
            rungs.push(entry);
        }
        // redis-benchmark at this rung right after the Bolt targets, so it shares their
        // moment of the host's load rather than running after the whole sweep.
        if let (Some(port), Some(query)) = (args.resp_port, args.workload.read_query()) {
            let e = redis_benchmark(port, n, args.queries, query);
            println!(
                "# resp conn={n}: {}",
                e.requests_per_s
                    .map_or_else(|| "failed".to_owned(), |r| format!("{r:.0} requests/s"))
            );
            resp.push(e);
        }
    }
    if !args.no_saturation && args.target.is_none() && args.workload != Workload::Mixed {
        let entry = run_child(
            &exe,
            args,
            &dir,
            &targets[0],
            args.saturation_connections,
            Some(args.saturation_max),
            false,
        )?;
        print_entry(&entry);
        rungs.push(entry);
    }
    drop(children);
    host.finish();
    let passed = rungs.iter().all(|r| r.outcome == "passed");
    let ladder = LadderRecord {
        schema: LADDER_SCHEMA,
        host,
        workload: args.workload,
        rungs_swept: args.rungs.clone(),
        targets,
        rungs,
        resp,
        passed,
    };
    write_ladder_artifacts(&dir, &ladder)?;
    println!("{}", summary(&ladder));
    println!("# artefacts in {}", dir.display());
    Ok(passed)
}

/// The targets a ladder sweeps: the in-process server or the given target first, then the
/// peers asked for, with the child processes that serve them (killed when dropped).
fn ladder_targets(
    exe: &Path,
    args: &LabArgs,
) -> Result<(Vec<LadderTarget>, Vec<PeerChild>), LabError> {
    let mut children = Vec::new();
    let mut targets = vec![match &args.target {
        None => LadderTarget {
            name: "quiver".into(),
            url: None,
            http: None,
            pid: None,
            reference: false,
            seed: false,
        },
        Some(url) => LadderTarget {
            name: "target".into(),
            url: Some(url.clone()),
            http: args.target_http.clone(),
            pid: args.target_pid,
            reference: false,
            seed: args.seed_target,
        },
    }];
    if args.peer_serve {
        let (child, bolt, http) = start_serve(exe, args)?;
        targets.push(LadderTarget {
            name: "quiver-serve".into(),
            url: Some(format!("bolt://{bolt}")),
            http: Some(http),
            pid: Some(child.child.id()),
            reference: false,
            seed: true,
        });
        // The same server over TLS, right after it at every rung.
        if let Some(url) = crate::tls::serve_url(args, &bolt) {
            targets.push(LadderTarget {
                name: "quiver-serve-tls".into(),
                url: Some(url),
                http: targets.last().and_then(|t| t.http.clone()),
                pid: Some(child.child.id()),
                reference: false,
                seed: true,
            });
        }
        children.push(child);
    }
    for peer in &args.peer {
        let (name, url) = parse_peer(peer).map_err(LabError::Usage)?;
        targets.push(LadderTarget {
            name,
            url: Some(url.display.clone()),
            http: None,
            pid: None,
            reference: false,
            seed: true,
        });
        // Credentials, if any, stay in the original string.
        if let Some(t) = targets.last_mut() {
            t.url = peer.split_once('=').map(|(_, u)| u.to_owned());
        }
    }
    if args.peer_echo {
        let (child, addr) = start_echo(exe, args)?;
        targets.push(LadderTarget {
            name: "echo".into(),
            url: Some(format!("bolt://{addr}")),
            http: None,
            pid: Some(child.child.id()),
            reference: true,
            seed: false,
        });
        children.push(child);
    }
    Ok((targets, children))
}

/// `ladder.json`, `host.json`, the rungs' `bench.txt` lines gathered in one, and `report.html`.
fn write_ladder_artifacts(dir: &Path, ladder: &LadderRecord) -> Result<(), LabError> {
    write_json(&dir.join("ladder.json"), ladder)?;
    write_json(&dir.join("host.json"), &ladder.host)?;
    let mut bench = String::new();
    for r in &ladder.rungs {
        if let Ok(text) = std::fs::read_to_string(Path::new(&r.dir).join("bench.txt")) {
            bench.push_str(&text);
        }
    }
    write_text(&dir.join("bench.txt"), &bench)?;
    write_text(&dir.join("report.html"), &ladder_page(ladder))?;
    Ok(())
}

fn print_entry(e: &RungEntry) {
    let m = e.record.as_ref().and_then(RunRecord::median);
    println!(
        "# rung target={} {} outcome={} throughput={} p99={} elapsed={}ms",
        e.target,
        e.rung,
        e.outcome,
        m.map_or_else(|| "-".to_owned(), |w| format!("{:.0}/s", w.throughput_qps)),
        m.map_or_else(|| "-".to_owned(), |w| fmt_ns(w.latency.p99_ns)),
        e.elapsed_ms
    );
}

/// The flags every child shares with the parent.
fn common_flags(args: &LabArgs) -> Vec<String> {
    let mut f = vec![
        "--nodes".into(),
        args.nodes.to_string(),
        "--knows-min".into(),
        args.knows_min.to_string(),
        "--knows-max".into(),
        args.knows_max.to_string(),
        "--seed".into(),
        args.seed.to_string(),
        "--write-slots".into(),
        args.write_slots.to_string(),
        "--workload".into(),
        args.workload.name().into(),
        "--queries".into(),
        args.queries.to_string(),
        "--rows".into(),
        args.rows.to_string(),
        "--sessions".into(),
        args.sessions.to_string(),
        "--repetitions".into(),
        args.repetitions.to_string(),
        "--source-addrs".into(),
        args.source_addrs.to_string(),
        "--connect-timeout-ms".into(),
        args.connect_timeout_ms.to_string(),
        "--request-timeout-ms".into(),
        args.request_timeout_ms.to_string(),
        "--fd-sampling".into(),
        args.fd_sampling.to_string(),
        "--profile".into(),
        args.profile.unwrap_or(true).to_string(),
    ];
    if let Some(d) = args.duration_ms {
        f.extend(["--duration-ms".into(), d.to_string()]);
    }
    if let Some(t) = args.client_threads {
        f.extend(["--client-threads".into(), t.to_string()]);
    }
    if let Some(t) = args.server_threads {
        f.extend(["--server-threads".into(), t.to_string()]);
    }
    if args.manifest {
        f.push("--manifest".into());
    }
    f.extend(crate::tls::child_flags(args));
    f
}

fn run_child(
    exe: &Path,
    args: &LabArgs,
    dir: &Path,
    target: &LadderTarget,
    n: usize,
    saturation_max: Option<u32>,
    seed: bool,
) -> Result<RungEntry, LabError> {
    let rung = match saturation_max {
        Some(_) => "saturation".to_owned(),
        None if args.workload == Workload::Mixed => format!("readers={n}"),
        None => format!("conn={n}"),
    };
    let rung_dir = dir.join(&target.name).join(&rung);
    std::fs::create_dir_all(&rung_dir).map_err(|e| LabError::artifact(&rung_dir, e))?;
    let mut flags = vec!["lab".to_owned()];
    flags.extend(common_flags(args));
    if args.workload == Workload::Mixed {
        flags.extend([
            "--writers".into(),
            args.writers.to_string(),
            "--readers".into(),
            n.to_string(),
        ]);
    } else {
        flags.extend(["--connections".into(), n.to_string()]);
    }
    if let Some(max) = saturation_max {
        flags.extend(["--max-connections".into(), max.to_string()]);
    }
    if let Some(url) = &target.url {
        flags.extend(["--target".into(), url.clone()]);
    }
    if let Some(http) = &target.http {
        flags.extend(["--target-http".into(), http.clone()]);
    }
    if let Some(pid) = target.pid {
        flags.extend(["--target-pid".into(), pid.to_string()]);
    }
    if seed {
        flags.push("--seed-target".into());
    }
    flags.extend([
        "--label".into(),
        format!("{}/{}/{rung}", target.name, args.workload.name()),
        "--artifact-dir".into(),
        rung_dir.display().to_string(),
    ]);
    let shown: Vec<String> = std::iter::once(exe.display().to_string())
        .chain(flags.iter().map(|f| redact(f)))
        .collect();
    let log_path = rung_dir.join("run.log");
    let log = std::fs::File::create(&log_path).map_err(|e| LabError::artifact(&log_path, e))?;
    let log_err = log
        .try_clone()
        .map_err(|e| LabError::artifact(&log_path, e))?;
    let t0 = Instant::now();
    let mut child = Command::new(exe)
        .args(&flags)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .spawn()
        .map_err(|e| LabError::Rung {
            rung: rung.clone(),
            detail: format!("cannot start {}: {e}", exe.display()),
        })?;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if t0.elapsed() > RUNG_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let record: Option<RunRecord> = std::fs::read_to_string(rung_dir.join("metrics.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok());
    let outcome = match (status.map(|s| s.success()), &record) {
        (Some(true), Some(_)) => "passed",
        (None, _) => "timed out",
        (_, Some(_)) => "failed verification",
        _ => "error",
    };
    Ok(RungEntry {
        target: target.name.clone(),
        rung,
        connections: n,
        max_connections: saturation_max,
        command: shown,
        exit_code: status.and_then(|s| s.code()),
        outcome,
        dir: rung_dir.display().to_string(),
        elapsed_ms: t0.elapsed().as_millis() as u64,
        record,
    })
}

/// Credentials never reach ladder.json.
fn redact(flag: &str) -> String {
    match flag.split_once("://") {
        Some((scheme, rest)) => match rest.rsplit_once('@') {
            Some((_, host)) => format!("{scheme}://***@{host}"),
            None => flag.to_owned(),
        },
        None => flag.to_owned(),
    }
}

/// Reads lines of a child's stdout until `want` returns a value.
fn wait_for_line<T>(child: &mut Child, mut want: impl FnMut(&str) -> Option<T>) -> Option<T> {
    let stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + PEER_START_TIMEOUT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx.recv_timeout(left).ok()?;
        if let Some(v) = want(&line) {
            // Keep draining the pipe so the child never blocks on a full one.
            std::thread::spawn(move || while rx.recv().is_ok() {});
            return Some(v);
        }
    }
}

fn start_serve(exe: &Path, args: &LabArgs) -> Result<(PeerChild, String, String), LabError> {
    let mut child = Command::new(exe)
        .args([
            "serve",
            "--in-memory",
            "--bolt-listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
            "--max-connections",
            "20000",
            "--log",
            "error",
        ])
        .args(crate::tls::serve_flags(args))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| LabError::Target {
            target: "quiver serve".into(),
            detail: e.to_string(),
        })?;
    let mut bolt = None;
    let http = wait_for_line(&mut child, |line| {
        if let Some(a) = line.strip_prefix("bolt listening on ") {
            bolt = Some(a.trim().to_owned());
        }
        line.strip_prefix("http listening on ")
            .map(|a| a.trim().to_owned())
    });
    let child = PeerChild { child };
    match (bolt, http) {
        (Some(b), Some(h)) => Ok((child, b, h)),
        _ => Err(LabError::Target {
            target: "quiver serve".into(),
            detail: "it did not print its listening addresses".into(),
        }),
    }
}

fn start_echo(exe: &Path, args: &LabArgs) -> Result<(PeerChild, String), LabError> {
    let mut command = Command::new(exe);
    command.args([
        "lab",
        "--mode",
        "echo",
        "--listen",
        "127.0.0.1:0",
        "--nodes",
        &args.nodes.to_string(),
        "--knows-min",
        &args.knows_min.to_string(),
        "--knows-max",
        &args.knows_max.to_string(),
        "--seed",
        &args.seed.to_string(),
        "--workload",
        args.workload.name(),
    ]);
    if let Some(t) = args.server_threads {
        command.args(["--server-threads", &t.to_string()]);
    }
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| LabError::Target {
            target: "echo".into(),
            detail: e.to_string(),
        })?;
    let addr = wait_for_line(&mut child, |line| {
        line.strip_prefix("echo listening on ")
            .map(|a| a.trim().to_owned())
    });
    let child = PeerChild { child };
    addr.map(|a| (child, a)).ok_or_else(|| LabError::Target {
        target: "echo".into(),
        detail: "it did not print its address".into(),
    })
}

/// `redis-benchmark` on FalkorDB's RESP face with the workload's query, at `n` connections.
/// Its graph is `falkordb`, the one FalkorDB's Bolt face serves (and a `--peer` seeds).
fn redis_benchmark(port: u16, n: usize, queries: u64, query: &str) -> RespEntry {
    let command: Vec<String> = [
        "redis-benchmark",
        "-h",
        "127.0.0.1",
        "-p",
        &port.to_string(),
        "-c",
        &n.to_string(),
        "-n",
        &queries.max(n as u64).to_string(),
        "-q",
        "GRAPH.QUERY",
        "falkordb",
        query,
    ]
    .iter()
    .map(ToString::to_string)
    .collect();
    let output = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            let mut text = String::new();
            if let Some(mut out) = c.stdout.take() {
                let _ = out.read_to_string(&mut text);
            }
            c.wait().map(|_| text)
        })
        .ok();
    RespEntry {
        connections: n,
        requests_per_s: output.as_deref().and_then(parse_redis_benchmark),
        command,
    }
}

/// The last `… requests per second` figure of redis-benchmark's quiet output.
pub fn parse_redis_benchmark(text: &str) -> Option<f64> {
    text.split(['\r', '\n'])
        .filter_map(|line| {
            let (_, rest) = line.split_once(": ")?;
            rest.split_whitespace()
                .next()?
                .parse::<f64>()
                .ok()
                .filter(|_| rest.contains("requests per second"))
        })
        .next_back()
}

/// One point per rung: (connections, value) for a target, from each rung's median window.
fn points(
    ladder: &LadderRecord,
    target: &str,
    value: impl Fn(&crate::rung::WindowRecord) -> f64,
) -> Vec<(f64, f64)> {
    ladder
        .rungs
        .iter()
        .filter(|r| r.target == target && r.max_connections.is_none())
        .filter_map(|r| Some((r.connections as f64, value(r.record.as_ref()?.median()?))))
        .collect()
}

fn median_of<'a>(
    ladder: &'a LadderRecord,
    target: &str,
    n: usize,
) -> Option<&'a crate::rung::WindowRecord> {
    ladder
        .rungs
        .iter()
        .find(|r| r.target == target && r.connections == n && r.max_connections.is_none())
        .and_then(|r| r.record.as_ref())
        .and_then(RunRecord::median)
}

/// The text table printed at the end of a sweep: each target's rate per rung, and the
/// primary target's ratio to every other.
pub fn summary(ladder: &LadderRecord) -> String {
    let mut out = String::new();
    let primary = ladder.targets.first().map_or("quiver", |t| t.name.as_str());
    let _ = write!(
        out,
        "# ladder workload={} (queries/s, median effect window)\n# {:>6}",
        ladder.workload.name(),
        "conn"
    );
    for t in &ladder.targets {
        let _ = write!(out, " {:>14}", t.name);
    }
    if !ladder.resp.is_empty() {
        let _ = write!(out, " {:>14}", "resp-bench");
    }
    for &n in &ladder.rungs_swept {
        let _ = write!(out, "\n# {n:>6}");
        for t in &ladder.targets {
            let v = median_of(ladder, &t.name, n)
                .map_or_else(|| "-".to_owned(), |w| format!("{:.0}", w.throughput_qps));
            let _ = write!(out, " {v:>14}");
        }
        if let Some(r) = ladder.resp.iter().find(|r| r.connections == n) {
            let v = r
                .requests_per_s
                .map_or_else(|| "-".to_owned(), |v| format!("{v:.0}"));
            let _ = write!(out, " {v:>14}");
        }
    }
    for t in ladder.targets.iter().skip(1) {
        let _ = write!(out, "\n# ratio {primary}/{}:", t.name);
        for &n in &ladder.rungs_swept {
            let ratio = median_of(ladder, primary, n)
                .zip(median_of(ladder, &t.name, n))
                .filter(|(_, b)| b.throughput_qps > 0.0)
                .map(|(a, b)| a.throughput_qps / b.throughput_qps);
            let _ = write!(
                out,
                " {n}={}",
                ratio.map_or_else(|| "-".to_owned(), |r| format!("{r:.2}"))
            );
        }
    }
    if let Some(sat) = ladder.rungs.iter().find(|r| r.max_connections.is_some())
        && let Some(w) = sat.record.as_ref().and_then(RunRecord::median)
    {
        let c = w.counters.unwrap_or_default();
        let _ = write!(
            out,
            "\n# saturation offered={} max={} accepted={} rejected={} closed={} queries.ok={} errors={}",
            w.conn_offered,
            sat.max_connections.unwrap_or(0),
            c.accepted,
            c.rejected,
            c.closed,
            w.queries_ok,
            w.errors.summary()
        );
    }
    let _ = write!(
        out,
        "\n# ladder {}",
        if ladder.passed { "passed" } else { "FAILED" }
    );
    out
}

/// The sweep's `report.html`.
pub fn ladder_page(ladder: &LadderRecord) -> String {
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>quiver lab ladder</title><style>{STYLE}</style></head><body><h1>quiver lab: {} ladder</h1>",
        ladder.workload.name()
    );
    let h = &ladder.host;
    let _ = write!(
        html,
        "<p class=\"note\">{} cores ({}), load average before {} / after {}. {}<br>{}</p>",
        h.cores,
        escape(h.cpu_model.as_deref().unwrap_or("unknown CPU")),
        crate::host::fmt_loadavg(h.loadavg_before),
        crate::host::fmt_loadavg(h.loadavg_after),
        escape(&h.note),
        escape(&h.idle_note)
    );
    if !ladder.passed {
        html.push_str("<p class=\"fail\">Some rungs failed verification or did not finish: see the table.</p>");
    }
    push_ladder_charts(&mut html, ladder);
    push_rung_table(&mut html, ladder);
    html.push_str("</table><p>Each point is the median of a rung's unprofiled effect windows; the profiled probe windows (flamegraph.svg in each rung's directory) are attribution only and never charted. Dashed lines are references, not databases.</p>");
    let _ = writeln!(
        html,
        "<pre>{}</pre></body></html>",
        escape(&summary(ladder))
    );
    html
}

/// Throughput and the p50, p99 and p999 latencies against connections, a line per target.
fn push_ladder_charts(html: &mut String, ladder: &LadderRecord) {
    let mut throughput: Vec<Series> = ladder
        .targets
        .iter()
        .map(|t| Series {
            name: t.name.clone(),
            points: points(ladder, &t.name, |w| w.throughput_qps),
            dashed: t.reference,
        })
        .collect();
    if ladder.resp.iter().any(|r| r.requests_per_s.is_some()) {
        throughput.push(Series {
            name: "redis-benchmark (RESP)".into(),
            points: ladder
                .resp
                .iter()
                .filter_map(|r| Some((r.connections as f64, r.requests_per_s?)))
                .collect(),
            dashed: true,
        });
    }
    html.push_str(&line_chart(
        "Throughput vs connections",
        "connections",
        "queries/s",
        &throughput,
        true,
        false,
    ));
    for (title, pick) in [
        (
            "p50 latency",
            (|w: &crate::rung::WindowRecord| w.latency.p50_ns as f64)
                as fn(&crate::rung::WindowRecord) -> f64,
        ),
        ("p99 latency", |w| w.latency.p99_ns as f64),
        ("p999 latency", |w| w.latency.p999_ns as f64),
    ] {
        let series: Vec<Series> = ladder
            .targets
            .iter()
            .map(|t| Series {
                name: t.name.clone(),
                points: points(ladder, &t.name, pick),
                dashed: t.reference,
            })
            .collect();
        html.push_str(&line_chart(
            &format!("{title} vs connections"),
            "connections",
            title,
            &series,
            true,
            true,
        ));
    }
}

/// A row per rung: its outcome and its median window's figures.
fn push_rung_table(html: &mut String, ladder: &LadderRecord) {
    html.push_str("<table><tr><th>target</th><th>rung</th><th>outcome</th><th>queries ok</th><th>queries/s</th><th>p50</th><th>p99</th><th>p999</th><th>accepted / rejected</th><th>client CPU share</th></tr>");
    for r in &ladder.rungs {
        let m = r.record.as_ref().and_then(RunRecord::median);
        let cell =
            |f: &dyn Fn(&crate::rung::WindowRecord) -> String| m.map_or_else(|| "-".to_owned(), f);
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&r.target),
            escape(&r.rung),
            if r.outcome == "passed" {
                r.outcome.to_owned()
            } else {
                format!("<span class=\"fail\">{}</span>", r.outcome)
            },
            cell(&|w| w.queries_ok.to_string()),
            cell(&|w| format!("{:.0}", w.throughput_qps)),
            cell(&|w| fmt_ns(w.latency.p50_ns)),
            cell(&|w| fmt_ns(w.latency.p99_ns)),
            cell(&|w| fmt_ns(w.latency.p999_ns)),
            cell(&|w| w.counters.map_or_else(
                || "n/a".to_owned(),
                |c| format!("{} / {}", c.accepted, c.rejected)
            )),
            cell(&|w| w
                .cpu
                .client_share
                .map_or_else(|| "?".to_owned(), |s| format!("{:.0}%", s * 100.0))),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redis_benchmark_output_parses() {
        let quiet = "GRAPH.QUERY falkordb MATCH (n:Person) RETURN count(n) AS c: rps=0.0 (overall: nan) avg_msec=nan\r\
                     GRAPH.QUERY falkordb MATCH (n:Person) RETURN count(n) AS c: 31545.74 requests per second, p50=1.911 msec\n";
        assert_eq!(parse_redis_benchmark(quiet), Some(31545.74));
        assert_eq!(parse_redis_benchmark("nothing useful"), None);
    }

    #[test]
    fn credentials_are_redacted() {
        assert_eq!(
            redact("bolt://neo4j:pw@127.0.0.1:7687"),
            "bolt://***@127.0.0.1:7687"
        );
        assert_eq!(redact("--queries"), "--queries");
    }
}
