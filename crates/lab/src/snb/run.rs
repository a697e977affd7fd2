//! `quiver lab --workload ldbc-snb`: generate (once), load (once), copy, serve, drive, report,
//! and (with `--crash-check`) kill the server and look for every acknowledged update.
//!
//! Under `--snb-dir`:
//! - `data/`: the generator's files (bulk CSVs, `params.json`, `updates.jsonl`, its
//!   manifest), made when missing;
//! - `db/`: the bulk data loaded by `quiver import`, with the workload's indexes, made when
//!   missing and never written by a run;
//! - `run/`: the copy of `db/` a run's updates go into (made afresh by every run, since the
//!   update stream can be applied once);
//! - `server.log`: the server's log.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use quiver_value::Value;

use super::datagen;
use super::driver::{self, Inputs, Mix, Report, connect};
use super::durable;
use super::ops::Class;
use super::queries;
use crate::args::LabArgs;
use crate::client::{Connection, Credentials};
use crate::cluster::members::{Member, free_ports, http_get};
use crate::error::LabError;
use crate::procfs::{self, Pid};
use quiver_server::databases::value_json;

/// How long a started server may take to answer `/health/ready`.
const READY_TIMEOUT: Duration = Duration::from_secs(600);
/// Written into `db/` when the load and its indexes are complete: a load that was cut short
/// is made again.
const LOADED_MARK: &str = "snb-loaded";
/// The run's default length when `--duration-ms` is not given.
const DURATION_DEFAULT: Duration = Duration::from_secs(60);
/// Connections when `--connections` is not given.
const CONNECTIONS_DEFAULT: usize = 8;

/// A `quiver serve` the lab started on a directory.
struct Served {
    member: Member,
    bolt: SocketAddr,
    http: SocketAddr,
    started: Instant,
}

impl Served {
    fn start(
        exe: &Path,
        data_dir: &Path,
        log: &Path,
        connections: usize,
    ) -> Result<Served, LabError> {
        let ports = free_ports(2)?;
        let (bolt, http) = (ports[0], ports[1]);
        let mut command = Command::new(exe);
        command
            .arg("serve")
            .args(["--bolt-listen", &bolt.to_string()])
            .args(["--http-listen", &http.to_string()])
            .args(["--durability", "group"])
            .args(["--max-connections", &(connections + 8).to_string()])
            .arg("--data-dir")
            .arg(data_dir);
        Ok(Served {
            member: Member::spawn(command, log)?,
            bolt,
            http,
            started: Instant::now(),
        })
    }

    async fn ready(&mut self) -> Result<Duration, LabError> {
        while !matches!(http_get(self.http, "/health/ready").await, Some((200, _))) {
            if self.member.exited() {
                return Err(LabError::Server(
                    "quiver serve exited before it was ready (see server.log)".into(),
                ));
            }
            if self.started.elapsed() > READY_TIMEOUT {
                return Err(LabError::Server("quiver serve not ready in time".into()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(self.started.elapsed())
    }
}

/// Runs one statement outside any measurement; its failure stops the run.
async fn execute(conn: &mut Connection, query: &str) -> Result<Vec<Vec<Value>>, LabError> {
    let exchanged = conn
        .query(query, quiver_value::Map::new())
        .await
        .map_err(|e| LabError::Server(e.to_string()))?;
    if let Some(Err(error)) = exchanged.summaries.iter().find(|s| s.is_err()) {
        return Err(LabError::Snb(format!("{query}: {error}")));
    }
    Ok(exchanged.records)
}

/// Prints a progress line at once.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Copies a data directory (files and subdirectories) to a fresh `to`.
fn copy_dir(from: &Path, to: &Path) -> Result<(), LabError> {
    std::fs::create_dir_all(to).map_err(|e| LabError::artifact(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| LabError::artifact(from, e))? {
        let entry = entry.map_err(|e| LabError::artifact(from, e))?;
        let target = to.join(entry.file_name());
        if entry
            .file_type()
            .map_err(|e| LabError::artifact(from, e))?
            .is_dir()
        {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| LabError::artifact(&target, e))?;
        }
    }
    Ok(())
}

pub fn run(args: &LabArgs) -> Result<bool, LabError> {
    let shape = match args.snb_persons {
        Some(persons) => format!("p{persons}"),
        None => format!("sf{}", args.scale_factor),
    };
    let dir = args
        .snb_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("quiver-snb-{shape}")));
    let data = dir.join("data");
    if !data.join(datagen::MANIFEST).exists() {
        let spec = match args.snb_persons {
            Some(persons) => datagen::Spec::new(persons, args.seed),
            None => datagen::Spec {
                seed: args.seed,
                ..datagen::Spec::scale_factor(&args.scale_factor)?
            },
        };
        say(&format!("# generating {shape} into {}", data.display()));
        let began = Instant::now();
        datagen::generate(&spec, &data)?;
        say(&format!(
            "# generated in {:.1} s",
            began.elapsed().as_secs_f64()
        ));
    }
    let runtime = crate::run::client_runtime(args.client_threads.unwrap_or(2))?;
    let exe = match &args.exe {
        Some(exe) => exe.clone(),
        None => std::env::current_exe()?,
    };
    let connections = if args.connections == 0 {
        CONNECTIONS_DEFAULT
    } else {
        args.connections
    };
    let log = dir.join("server.log");
    runtime.block_on(async {
        let (addr, credentials, mut served) = match &args.target {
            Some(url) => {
                let url = crate::target::parse_url(url)?;
                (url.addr, url.credentials, None)
            }
            None => {
                let pristine = dir.join("db");
                if !pristine.join(LOADED_MARK).exists() {
                    load(&exe, &data, &pristine, &log).await?;
                }
                let copy = dir.join("run");
                if copy.exists() {
                    std::fs::remove_dir_all(&copy).map_err(|e| LabError::artifact(&copy, e))?;
                }
                copy_dir(&pristine, &copy)?;
                let mut served = Served::start(&exe, &copy, &log, connections)?;
                let ready = served.ready().await?;
                say(&format!("# server ready in {:.2} s", ready.as_secs_f64()));
                (served.bolt, None, Some(served))
            }
        };
        let credentials = credentials.as_ref();
        if let Some(file) = &args.snb_answers {
            return answers(addr, credentials, &data, file).await.map(|()| true);
        }
        let duration = args.duration_ms.map_or(DURATION_DEFAULT, Duration::from_millis);
        let mix = Mix {
            tcr: args.tcr,
            duration,
            frequencies: match &args.frequencies {
                Some(f) => f.as_slice().try_into().map_err(|_| {
                    LabError::Usage("--frequencies takes 14 numbers".into())
                })?,
                None => driver::FREQUENCIES_SF1,
            },
            short_reads: !args.no_short_reads,
            seed: args.seed,
            ..Mix::default()
        };
        // Only the updates the run can reach are read: those due within its span.
        let span = (duration.as_secs_f64() * 1e3 / mix.tcr).ceil() as i64;
        let inputs = Inputs::read(&data, Some(span))?;
        let pid = served.as_ref().and_then(|s| s.member.pid()).or(args.target_pid);
        let cpu_before = pid.and_then(|p| procfs::process_cpu(Pid::Other(p)));
        let report = driver::run(addr, credentials, connections, &inputs, &mix).await?;
        let cpu = pid
            .and_then(|p| procfs::process_cpu(Pid::Other(p)))
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before));
        print_report(&report, cpu);
        let mut passed = report.failures == 0;
        if args.crash_check
            && let Some(served) = served.as_mut()
        {
            passed &= crash_check(served, &exe, &dir, &log, connections, &report).await?;
        }
        if let Some(dir) = &args.artifact_dir {
            std::fs::create_dir_all(dir).map_err(|e| LabError::artifact(dir, e))?;
            let path = dir.join("ldbc-snb.json");
            let json = serde_json::json!({ "report": report, "server_cpu_s": cpu.map(|c| c.as_secs_f64()) });
            std::fs::write(&path, json.to_string()).map_err(|e| LabError::artifact(&path, e))?;
        }
        Ok(passed)
    })
}

/// Loads the bulk files into `db/` and builds the workload's indexes there.
async fn load(exe: &Path, data: &Path, pristine: &Path, log: &Path) -> Result<(), LabError> {
    if pristine.exists() {
        std::fs::remove_dir_all(pristine).map_err(|e| LabError::artifact(pristine, e))?;
    }
    say(&format!(
        "# loading {} into {}",
        data.display(),
        pristine.display()
    ));
    let began = Instant::now();
    datagen::import(data, pristine)?;
    say(&format!(
        "# imported in {:.1} s",
        began.elapsed().as_secs_f64()
    ));
    let mut served = Served::start(exe, pristine, log, 1)?;
    served.ready().await?;
    let mut conn = connect(served.bolt, None).await?;
    let began = Instant::now();
    for statement in datagen::SCHEMA {
        execute(&mut conn, statement).await?;
    }
    execute(&mut conn, "CALL db.awaitIndexes(600)").await?;
    say(&format!(
        "# indexes built in {:.1} s",
        began.elapsed().as_secs_f64()
    ));
    conn.close().await;
    if !served.member.terminate() {
        return Err(LabError::Server(
            "quiver serve did not stop cleanly after the load".into(),
        ));
    }
    let mark = pristine.join(LOADED_MARK);
    std::fs::write(&mark, b"").map_err(|e| LabError::artifact(&mark, e))
}

fn millis(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn print_report(report: &Report, server_cpu: Option<Duration>) {
    say(&format!(
        "{:<5} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8} {:>6}",
        "op", "count", "p50 ms", "p99 ms", "max ms", "mean ms", "rows", "fail"
    ));
    for kind in &report.kinds {
        say(&format!(
            "{:<5} {:>8} {:>9.3} {:>9.3} {:>9.3} {:>9.3} {:>8.1} {:>6}",
            kind.kind,
            kind.latency.count,
            millis(kind.latency.p50_ns),
            millis(kind.latency.p99_ns),
            millis(kind.latency.max_ns),
            millis(kind.latency.mean_ns),
            kind.mean_rows,
            kind.failures
        ));
        if let Some(failure) = &kind.first_failure {
            say(&format!("#   {} failed: {failure}", kind.kind));
        }
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    say(&format!(
        "operations={} elapsed_s={:.1} ops_per_s={:.1} ops_per_s_per_vcpu={:.1} (unaudited; {} vCPUs shared by server and driver)",
        report.operations,
        report.elapsed_s,
        report.ops_per_s,
        report.ops_per_s / cores as f64,
        cores
    ));
    say(&format!(
        "scheduled={} on_time_ratio={:.4} not_started={} retries={} failures={} tcr={} connections={}",
        report.scheduled,
        report.on_time_ratio,
        report.not_started,
        report.retries,
        report.failures,
        report.mix.tcr,
        report.connections
    ));
    if let Some(cpu) = server_cpu {
        say(&format!(
            "server_cpu_s={:.2} server_cpu_us_per_op={:.0}",
            cpu.as_secs_f64(),
            cpu.as_secs_f64() * 1e6 / report.operations.max(1) as f64
        ));
    }
    say(&format!(
        "valid={} (no failure, everything started, on time ≥ 95%)",
        report.valid()
    ));
}

/// `kill -9`, restart, and look for every acknowledged update.
async fn crash_check(
    served: &mut Served,
    exe: &Path,
    dir: &Path,
    log: &Path,
    connections: usize,
    report: &Report,
) -> Result<bool, LabError> {
    served.member.kill();
    let mut restarted = Served::start(exe, &dir.join("run"), log, connections)?;
    let ready = restarted.ready().await?;
    let mut conn = connect(restarted.bolt, None).await?;
    let found = durable::check(&mut conn, &report.acknowledged).await?;
    conn.close().await;
    say(&format!(
        "crash_check: restarted after kill -9 in {:.2} s; acknowledged updates {} looked for, {} lost{}",
        ready.as_secs_f64(),
        found.checked,
        found.lost(),
        if found.examples.is_empty() {
            String::new()
        } else {
            format!(" (e.g. {})", found.examples.join("; "))
        }
    ));
    *served = restarted;
    Ok(found.lost() == 0)
}

/// Every curated complex and short read once, in turn: its parameters and its rows, one JSON
/// line each (what a second implementation's answers are compared with).
async fn answers(
    addr: SocketAddr,
    credentials: Option<&Credentials>,
    data: &Path,
    file: &Path,
) -> Result<(), LabError> {
    let params = datagen::read_params(data)?;
    let mut conn = connect(addr, credentials).await?;
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(file).map_err(|e| LabError::artifact(file, e))?,
    );
    let mut total = 0;
    for (kind, ops) in params.iter().filter(|(k, _)| k.class() != Class::Update) {
        for op in ops {
            let statement = queries::statement(op);
            let began = Instant::now();
            let exchanged = conn
                .query(statement.text, statement.params)
                .await
                .map_err(|e| LabError::Server(e.to_string()))?;
            let ms = began.elapsed().as_secs_f64() * 1e3;
            let error = exchanged
                .summaries
                .iter()
                .find_map(|s| s.as_ref().err())
                .map(ToString::to_string);
            let rows: Vec<serde_json::Value> = exchanged
                .records
                .iter()
                .map(|r| r.iter().map(value_json).collect())
                .collect();
            let line = serde_json::json!({
                "kind": kind.name(), "params": op, "ms": ms, "rows": rows, "error": error,
            });
            writeln!(out, "{line}").map_err(|e| LabError::artifact(file, e))?;
            total += 1;
        }
    }
    out.flush().map_err(|e| LabError::artifact(file, e))?;
    conn.close().await;
    say(&format!("# {total} answers written to {}", file.display()));
    Ok(())
}
