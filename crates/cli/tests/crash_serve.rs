//! Crash tests through the server: `quiver serve` on a fresh data directory, many writers
//! committing over Bolt, `kill -9` at random moments, restart, verify. In `sync` and `group`
//! every commit a writer heard acknowledged survives; in `buffered` at most the last flush
//! interval is lost; in every mode no transaction is partly visible.
//!
//! Two views are checked after each kill: the directory itself, recovered by the crash
//! harness's verifier (shared with the durability crate's tests), and the restarted server,
//! which must serve exactly what the directory holds before any writer starts again.
//!
//! The short form runs with `cargo test`. The long form (20 kills per mode, or
//! `QUIVER_CRASH_KILLS`; 32 writers, or `QUIVER_CRASH_WRITERS`) is run by hand:
//! `cargo test -p quiver --release --test crash_serve -- --ignored --nocapture --test-threads=1`.

#![cfg(unix)]

mod common;
#[path = "../../durability/tests/crash_harness/mod.rs"]
mod crash_harness;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use common::{client_runtime, connect};
use crash_harness::{Ack, CrashTarget, Observed, kill_repeatedly, micros_now};
use quiver_bolt::Request;
use quiver_bolt::message::{AccessMode, TxExtra};
use quiver_durability::Mode;
use quiver_lab::client::{ClientError, Connection, Summary as BoltSummary};
use quiver_value::{Map, Value};

/// The server's default buffered flush interval (`quiver serve` has no flag for it).
const FLUSH_INTERVAL_MS: u64 = 50;
/// SIGKILL's number: the only way the server may have died.
const SIGKILL: i32 = 9;

/// One acknowledged commit of writer `$w`: its item, two parts, two relationships, and the
/// writer's `last`, all in one auto-commit transaction (the shape the harness verifies).
const COMMIT: &str = "MATCH (x:Writer {w: $w}) SET x.last = $s \
     CREATE (i:Item {w: $w, s: $s}) \
     CREATE (i)-[:HAS]->(:Part {w: $w, s: $s, i: 0}) \
     CREATE (i)-[:HAS]->(:Part {w: $w, s: $s, i: 1}) \
     RETURN x.last";

fn params(pairs: &[(&str, i64)]) -> Map {
    pairs
        .iter()
        .map(|(k, v)| (Arc::from(*k), Value::Int(*v)))
        .collect()
}

/// Starts `quiver serve` with the test's environment stripped of every `QUIVER_*` setting.
fn serve_command(dir: &Path, mode: Mode) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_quiver"));
    serve_args(&mut command, dir, mode);
    command
}

/// `quiver serve` on ephemeral loopback ports over `dir`, logging at `info` without colours.
fn serve_args(command: &mut Command, dir: &Path, mode: Mode) {
    command
        .arg("serve")
        .args([
            "--bolt-listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
        ])
        .arg("--data-dir")
        .arg(dir)
        .args(["--durability", &mode.to_string()]);
    common::without_quiver_settings(command)
        .env("QUIVER_LOG", "info")
        .env("NO_COLOR", "1");
}

/// What the server wrote to stderr, gathered until it died.
#[derive(Debug, Default)]
struct ServerLog {
    /// WARN and ERROR lines.
    warnings: Vec<String>,
    /// The last lines, for a failure message.
    tail: Vec<String>,
}

/// A running server: the child, its Bolt address, and the threads draining its output.
struct Server {
    child: Child,
    bolt: SocketAddr,
    stderr: JoinHandle<ServerLog>,
    stdout: JoinHandle<()>,
    /// The recovery time the server logged.
    recovery: Option<Duration>,
}

const LOG_TAIL_LINES: usize = 40;

/// Spawns `command` and waits for the listening lines. Returns the server or, if it exited
/// first, its exit status and log.
fn spawn_server(mut command: Command) -> Result<Server, (String, ServerLog)> {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| (format!("spawn quiver: {e}"), ServerLog::default()))?;
    let (Some(out), Some(err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(("no pipes".to_string(), ServerLog::default()));
    };
    let (recovery_tx, recovery_rx) = channel::<Duration>();
    let stderr = std::thread::spawn(move || {
        let mut log = ServerLog::default();
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            if line.contains(" recovered ")
                && let Some(ms) = field(&line, "duration_ms=")
            {
                let _ = recovery_tx.send(Duration::from_millis(ms));
            }
            if line.contains(" WARN ") || line.contains(" ERROR ") {
                log.warnings.push(line.clone());
            }
            if log.tail.len() == LOG_TAIL_LINES {
                log.tail.remove(0);
            }
            log.tail.push(line);
        }
        log
    });
    let (addr_tx, addr_rx) = channel::<SocketAddr>();
    let stdout = std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if let Some(addr) = line.strip_prefix("bolt listening on ")
                && let Ok(addr) = addr.parse()
            {
                let _ = addr_tx.send(addr);
            }
        }
    });
    let Ok(bolt) = addr_rx.recv_timeout(Duration::from_secs(300)) else {
        let _ = child.kill();
        let status = child
            .wait()
            .map_or_else(|e| e.to_string(), |s| s.to_string());
        let log = stderr.join().unwrap_or_default();
        let _ = stdout.join();
        return Err((format!("quiver serve never listened ({status})"), log));
    };
    Ok(Server {
        child,
        bolt,
        stderr,
        stdout,
        // Logged before the addresses were printed; the reader may still be on its way.
        recovery: recovery_rx.recv_timeout(Duration::from_secs(5)).ok(),
    })
}

/// The number after `name` in a log line (`duration_ms=12`).
fn field(line: &str, name: &str) -> Option<u64> {
    let at = line.find(name)? + name.len();
    let digits: String = line[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

impl Server {
    /// SIGKILL, then the log. Errors if the server had already died by itself.
    fn kill(mut self) -> Result<ServerLog, String> {
        // `Child::kill` sends SIGKILL: no destructor, no flush, no goodbye.
        self.child.kill().map_err(|e| e.to_string())?;
        let status = self.child.wait().map_err(|e| e.to_string())?;
        let log = self.stderr.join().map_err(|_| "stderr reader panicked")?;
        let _ = self.stdout.join();
        if status.signal() == Some(SIGKILL) {
            Ok(log)
        } else {
            Err(format!(
                "the server died by itself ({status}); its last lines:\n{}",
                log.tail.join("\n")
            ))
        }
    }
}

async fn scalar(conn: &mut Connection, query: &str, p: Map) -> Result<Value, String> {
    conn.query_scalar(query, p)
        .await
        .map_err(|e| format!("`{query}`: {e}"))?
        .ok_or_else(|| format!("`{query}` returned no row"))
}

async fn count(conn: &mut Connection, query: &str) -> Result<i64, String> {
    let v = scalar(conn, query, Map::new()).await?;
    v.as_int()
        .ok_or_else(|| format!("`{query}` returned {v:?}, not a count"))
}

/// What the server serves: each writer's `last`, and the counts that expose a partly
/// visible transaction.
#[derive(Debug, PartialEq, Eq)]
struct Served {
    last: BTreeMap<i64, i64>,
    items: i64,
    parts: i64,
    has: i64,
    /// Items without exactly two parts.
    partial: i64,
}

/// `use` is the `USE name ` the queries begin with when the writers write to a database of
/// the server other than the first (empty otherwise).
async fn served(conn: &mut Connection, using: &str) -> Result<Served, String> {
    let q = format!("{using}MATCH (x:Writer) RETURN collect([x.w, x.last])");
    let pairs = scalar(conn, &q, Map::new()).await?;
    let mut last = BTreeMap::new();
    for pair in pairs.as_list().unwrap_or_default() {
        match pair.as_list() {
            Some([w, l]) => {
                last.insert(w.as_int().unwrap_or(-1), l.as_int().unwrap_or(-1));
            }
            _ => return Err(format!("`{q}` returned {pairs:?}")),
        }
    }
    let counted = |q: &str| format!("{using}{q}");
    Ok(Served {
        last,
        items: count(conn, &counted("MATCH (i:Item) RETURN count(i)")).await?,
        parts: count(conn, &counted("MATCH (p:Part) RETURN count(p)")).await?,
        has: count(
            conn,
            &counted("MATCH (:Item)-[r:HAS]->(:Part) RETURN count(r)"),
        )
        .await?,
        partial: count(
            conn,
            &counted(
                "MATCH (i:Item) OPTIONAL MATCH (i)-[:HAS]->(p:Part) \
                 WITH i, count(p) AS n WHERE n <> 2 RETURN count(i)",
            ),
        )
        .await?,
    })
}

/// Checks that what the restarted server serves is whole and, when known, equals what the
/// directory held.
fn check_served(s: &Served, expected: Option<&Observed>) -> Result<(), String> {
    let sum: i64 = s.last.values().sum();
    if s.partial != 0 || s.parts != 2 * s.items || s.has != 2 * s.items || s.items != sum {
        return Err(format!(
            "the restarted server serves a partial transaction: {s:?}"
        ));
    }
    if let Some(seen) = expected {
        let items: usize = seen.items.values().map(Vec::len).sum();
        if seen.last != s.last || usize::try_from(s.items).ok() != Some(items) {
            return Err(format!(
                "the restarted server serves {s:?}, the directory held lasts {:?} and {items} items",
                seen.last
            ));
        }
    }
    Ok(())
}

/// How one writer's run ended: the commits it heard acknowledged, or an error that was not
/// the server dying.
type WriterEnd = Result<u64, String>;

/// Commits `s = first, first + 1, …` until the connection breaks, sending each acknowledged
/// one to `acks` the moment its reply arrives.
async fn write(
    mut conn: Connection,
    w: i64,
    first: i64,
    acks: Sender<Ack>,
    using: String,
) -> WriterEnd {
    let mut acked = 0;
    let mut s = first;
    let commit = format!("{using}{COMMIT}");
    loop {
        match conn
            .query_scalar(&commit, params(&[("w", w), ("s", s)]))
            .await
        {
            Ok(Some(Value::Int(last))) if last == s => {
                let _ = acks.send(Ack {
                    writer: w,
                    seq: s,
                    at_micros: micros_now(),
                });
                acked += 1;
                s += 1;
            }
            Ok(other) => return Err(format!("writer {w} commit {s} returned {other:?}")),
            // Nothing committed: the same commit again.
            Err(ClientError::Failure { code, .. }) if code.contains("TransientError") => {}
            Err(ClientError::Failure { code, message, .. }) => {
                return Err(format!("writer {w} commit {s}: {code}: {message}"));
            }
            // The server is gone: whatever was in flight was never acknowledged.
            Err(_) => return Ok(acked),
        }
    }
}

/// Runs `quiver serve` and drives it over Bolt: the crash harness's target.
struct ServeTarget {
    writers: i64,
    /// Flags added to every start.
    extra_args: Vec<&'static str>,
    /// Each kill waits until a snapshot is being written, and comes then.
    kill_mid_snapshot: bool,
    /// Kills after which the unfinished snapshot file was still there: they came during one.
    mid_snapshot_kills: usize,
    /// The directory of the current run.
    dir: Option<std::path::PathBuf>,
    runtime: tokio::runtime::Runtime,
    server: Option<Server>,
    tasks: Vec<tokio::task::JoinHandle<WriterEnd>>,
    /// What the directory held after the last kill.
    expected: Option<Observed>,
    /// Torn-tail warnings the restarted servers logged.
    torn_tails: usize,
    /// The longest a restart took, from spawn to writers connected.
    restart_max: Duration,
    /// The database of the server the writers write to, when not the first: the harness's
    /// directory is then that database's, two levels below the server's data directory.
    database: Option<&'static str>,
}

impl ServeTarget {
    fn new(writers: i64) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("client runtime");
        ServeTarget {
            writers,
            extra_args: Vec::new(),
            kill_mid_snapshot: false,
            mid_snapshot_kills: 0,
            dir: None,
            runtime,
            server: None,
            tasks: Vec::new(),
            expected: None,
            torn_tails: 0,
            restart_max: Duration::ZERO,
            database: None,
        }
    }

    /// `USE name ` for the writers' database, or nothing for the first.
    fn using(&self) -> String {
        self.database
            .map_or_else(String::new, |name| format!("USE {name} "))
    }

    /// Checks the restarted server, creates missing writers, and connects one client per
    /// writer. Returns each writer's connection and next sequence number.
    async fn prepare(&self, bolt: SocketAddr) -> Result<Vec<(Connection, i64)>, String> {
        let mut setup = connect(bolt).await?;
        if let Some(name) = self.database {
            let create = format!("CREATE DATABASE {name} IF NOT EXISTS");
            setup
                .query_scalar(&create, Map::new())
                .await
                .map_err(|e| format!("`{create}`: {e}"))?;
        }
        let using = self.using();
        check_served(&served(&mut setup, &using).await?, self.expected.as_ref())?;
        let mut writers = Vec::new();
        for w in 0..self.writers {
            let last = scalar(
                &mut setup,
                &format!(
                    "{using}MERGE (x:Writer {{w: $w}}) ON CREATE SET x.last = 0 RETURN x.last"
                ),
                params(&[("w", w)]),
            )
            .await?
            .as_int()
            .ok_or("a writer's last is not an integer")?;
            writers.push((connect(bolt).await?, last + 1));
        }
        setup.close().await;
        Ok(writers)
    }
}

impl CrashTarget for ServeTarget {
    fn start(
        &mut self,
        dir: &Path,
        mode: Mode,
        acks: Sender<Ack>,
    ) -> Result<Option<Duration>, String> {
        let began = Instant::now();
        self.dir = Some(dir.to_path_buf());
        let served_dir = match self.database {
            Some(_) => dir
                .parent()
                .and_then(Path::parent)
                .ok_or("a database's directory is two levels below the data directory")?,
            None => dir,
        };
        let mut command = serve_command(served_dir, mode);
        command.args(&self.extra_args);
        let server = spawn_server(command)
            .map_err(|(e, log)| format!("{e}; its last lines:\n{}", log.tail.join("\n")))?;
        let (bolt, recovery) = (server.bolt, server.recovery);
        self.server = Some(server);
        let writers = self.runtime.block_on(self.prepare(bolt))?;
        self.restart_max = self.restart_max.max(began.elapsed());
        for (w, (conn, first)) in (0..).zip(writers) {
            let using = self.using();
            self.tasks.push(
                self.runtime
                    .spawn(write(conn, w, first, acks.clone(), using)),
            );
        }
        Ok(recovery)
    }

    fn kill(&mut self) -> Result<(), String> {
        let server = self.server.take().ok_or("not running")?;
        let dir = self.dir.clone().ok_or("no directory")?;
        if self.kill_mid_snapshot {
            // The server snapshots back to back under the writers' load; wait for one to be
            // in progress (its unfinished file present), then kill at once.
            let deadline = Instant::now() + Duration::from_secs(30);
            while unfinished_snapshot(&dir).is_none() {
                if Instant::now() > deadline {
                    return Err("no snapshot was written within 30 s".into());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        let log = server.kill()?;
        if self.kill_mid_snapshot && unfinished_snapshot(&dir).is_some() {
            self.mid_snapshot_kills += 1;
        }
        self.torn_tails += log
            .warnings
            .iter()
            .filter(|l| l.contains("torn record") || l.contains("torn log segment"))
            .count();
        let tasks = std::mem::take(&mut self.tasks);
        let ends = self.runtime.block_on(async {
            tokio::time::timeout(Duration::from_secs(60), async {
                let mut ends = Vec::new();
                for task in tasks {
                    ends.push(task.await.map_err(|e| e.to_string()).and_then(|end| end));
                }
                ends
            })
            .await
        });
        let ends = ends.map_err(|_| "writers still running a minute after the kill")?;
        for end in ends {
            end?;
        }
        Ok(())
    }

    fn recovered(&mut self, seen: &Observed) {
        self.expected = Some(Observed {
            last: seen.last.clone(),
            items: seen.items.clone(),
            commit: seen.commit,
        });
    }
}

/// A snapshot file still being written in `dir`, if there is one.
fn unfinished_snapshot(dir: &Path) -> Option<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("snapshot-") && n.ends_with(".qsnap.tmp"))
        })
}

/// A fresh data directory on the build's disk (where the server's syncs are real).
fn data_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temporary directory")
}

fn crash_mode(mode: Mode, writers: i64, kills: usize, run_ms: std::ops::Range<u64>) {
    crash_target(mode, ServeTarget::new(writers), kills, run_ms);
}

/// Kills `target` `kills` times under its writers' load; checks nothing acknowledged is lost
/// in a durable mode. Returns the target for what else it counted.
fn crash_target(
    mode: Mode,
    mut target: ServeTarget,
    kills: usize,
    run_ms: std::ops::Range<u64>,
) -> ServeTarget {
    let tmp = data_dir();
    let writers = target.writers;
    let dir = match target.database {
        Some(name) => tmp.path().join("databases").join(name),
        None => tmp.path().to_path_buf(),
    };
    let (dir, interval) = (dir.as_path(), FLUSH_INTERVAL_MS);
    let summary = kill_repeatedly(&mut target, dir, mode, kills, run_ms, interval);
    println!(
        "serve {mode}: {writers} writers, {} kills, {} commits acknowledged, {} lost \
         (worst {:.1} ms before the kill), recovery up to {:.1} ms, restart up to {:.1} ms, \
         {} torn tails cut, last commit {}",
        summary.kills,
        summary.acked,
        summary.lost,
        summary.worst_loss_ms,
        summary.recovery_ms_max,
        target.restart_max.as_secs_f64() * 1000.0,
        target.torn_tails,
        summary.last_commit
    );
    summary.assert_kept(mode, kills);
    target
}

/// A kill while a snapshot is being written: the unfinished file is ignored (and removed) at
/// the next start, which recovers from the previous snapshot and the log, losing nothing.
#[test]
fn a_kill_during_a_snapshot_loses_nothing() {
    let mut target = ServeTarget::new(SHORT_WRITERS);
    // A snapshot at every MiB of log and every millisecond something was committed: the
    // server is nearly always writing one.
    target.extra_args = vec![
        "--snapshot-log-bytes",
        "1048576",
        "--snapshot-interval-ms",
        "1",
    ];
    target.kill_mid_snapshot = true;
    let target = crash_target(Mode::Group, target, 3, 300..900);
    assert!(
        target.mid_snapshot_kills >= 1,
        "no kill came while a snapshot was being written"
    );
    println!(
        "{} of 3 kills left an unfinished snapshot behind",
        target.mid_snapshot_kills
    );
}

const SHORT_WRITERS: i64 = 8;

/// A database of the server other than the first keeps the same promise: its writers'
/// acknowledged commits survive `kill -9` in its own store.
#[test]
fn crash_serve_short_group_on_a_created_database() {
    let mut target = ServeTarget::new(SHORT_WRITERS);
    target.database = Some("crashed");
    crash_target(Mode::Group, target, 3, 300..900);
}

#[test]
fn crash_serve_short_sync() {
    crash_mode(Mode::Sync, SHORT_WRITERS, 3, 300..900);
}

#[test]
fn crash_serve_short_group() {
    crash_mode(Mode::Group, SHORT_WRITERS, 3, 300..900);
}

#[test]
fn crash_serve_short_buffered() {
    crash_mode(Mode::Buffered, SHORT_WRITERS, 3, 300..900);
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn crash_long(mode: Mode) {
    crash_mode(
        mode,
        env_or("QUIVER_CRASH_WRITERS", 32),
        env_or("QUIVER_CRASH_KILLS", 20),
        200..3000,
    );
}

#[test]
#[ignore = "long form: run by hand"]
fn crash_serve_long_sync() {
    crash_long(Mode::Sync);
}

#[test]
#[ignore = "long form: run by hand"]
fn crash_serve_long_group() {
    crash_long(Mode::Group);
}

#[test]
#[ignore = "long form: run by hand"]
fn crash_serve_long_buffered() {
    crash_long(Mode::Buffered);
}

/// A second server on a directory another one holds stops at once and says why.
#[test]
fn a_second_server_on_the_same_directory_is_refused() {
    let tmp = data_dir();
    let first = spawn_server(serve_command(tmp.path(), Mode::Group))
        .unwrap_or_else(|(e, log)| panic!("{e}: {log:?}"));
    let mut second = serve_command(tmp.path(), Mode::Group)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the second quiver");
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = second.try_wait().expect("wait for the second quiver") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = second.kill();
            let _ = second.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    if let (Some(out), Some(err)) = (second.stdout.as_mut(), second.stderr.as_mut()) {
        out.read_to_string(&mut stdout).expect("read stdout");
        err.read_to_string(&mut stderr).expect("read stderr");
    }
    first.kill().expect("the first server was still running");
    let status = status.unwrap_or_else(|| panic!("the second server kept running: {stderr}"));
    assert!(!status.success(), "{stderr}");
    assert!(
        stderr.contains("already in use") && stderr.contains(&tmp.path().display().to_string()),
        "{stderr}"
    );
    assert!(!stdout.contains("listening"), "the second server listened");
}

/// The newest log segment in `dir`.
fn newest_segment(dir: &Path) -> PathBuf {
    let mut segments: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .expect("read the data directory")
        .filter_map(|e| {
            let e = e.ok()?;
            let base = quiver_durability::parse_segment_name(e.file_name().to_str()?)?;
            Some((base, e.path()))
        })
        .collect();
    segments.sort();
    segments.pop().expect("a log segment").1
}

/// Commits `n` items for writer 0 over one connection; returns the last acknowledged `s`.
async fn commit_items(bolt: SocketAddr, n: i64) -> Result<i64, String> {
    let mut conn = connect(bolt).await?;
    scalar(
        &mut conn,
        "MERGE (x:Writer {w: 0}) ON CREATE SET x.last = 0 RETURN x.last",
        Map::new(),
    )
    .await?;
    for s in 1..=n {
        let last = scalar(&mut conn, COMMIT, params(&[("w", 0), ("s", s)])).await?;
        if last != Value::Int(s) {
            return Err(format!("commit {s} returned {last:?}"));
        }
    }
    conn.close().await;
    Ok(n)
}

/// A record half written when the server died is cut off at the restart, the cut is
/// logged, and every acknowledged commit before it is served.
#[test]
fn a_torn_tail_is_cut_reported_and_the_commits_before_it_served() {
    let tmp = data_dir();
    let rt = client_runtime();
    let server = spawn_server(serve_command(tmp.path(), Mode::Sync))
        .unwrap_or_else(|(e, log)| panic!("{e}: {log:?}"));
    let acked = rt.block_on(commit_items(server.bolt, 20)).expect("commits");
    server.kill().expect("the server was still running");
    // The start of a frame whose body never made it: a length, a checksum and half a commit
    // number.
    let segment = newest_segment(tmp.path());
    let mut bytes = std::fs::read(&segment).expect("read the segment");
    let intact = bytes.len();
    bytes.extend_from_slice(&[0x40, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 0x15, 0]);
    std::fs::write(&segment, &bytes).expect("tear the tail");

    let server = spawn_server(serve_command(tmp.path(), Mode::Sync))
        .unwrap_or_else(|(e, log)| panic!("{e}: {log:?}"));
    let now = rt
        .block_on(async {
            let mut conn = connect(server.bolt).await?;
            served(&mut conn, "").await
        })
        .expect("read back");
    let log = server.kill().expect("the server was still running");
    let torn: Vec<&String> = log
        .warnings
        .iter()
        .filter(|l| l.contains("torn record"))
        .collect();
    assert_eq!(torn.len(), 1, "{:?}", log.warnings);
    assert!(torn[0].contains(&format!("offset={intact}")), "{}", torn[0]);
    check_served(&now, None).expect("whole transactions");
    assert_eq!(now.last.get(&0), Some(&acked));
    assert_eq!(
        std::fs::metadata(&segment).expect("segment").len(),
        u64::try_from(intact).expect("length"),
        "the torn bytes were not cut off"
    );
}

/// How a write ended in the disk-fault test.
enum Written {
    Acked,
    Refused { code: String, message: String },
}

async fn write_one(conn: &mut Connection, s: i64) -> Result<Written, String> {
    match conn
        .query_scalar(COMMIT, params(&[("w", 0), ("s", s)]))
        .await
    {
        Ok(Some(Value::Int(last))) if last == s => Ok(Written::Acked),
        Ok(other) => Err(format!("commit {s} returned {other:?}")),
        Err(ClientError::Failure { code, message, .. }) => Ok(Written::Refused { code, message }),
        Err(e) => Err(format!("commit {s}: {e}")),
    }
}

/// Blocks of file size the server may write (`ulimit -f`): room for its lock file, the log
/// segment's header and some commits, then every write fails with `EFBIG`.
const FILE_SIZE_BLOCKS: u32 = 64;

/// `quiver serve --durability sync` on `dir` under a file-size limit: a full disk, for one
/// process. The shell ignores SIGXFSZ (so a write past the limit fails instead of killing the
/// server; the disposition survives `exec`) and sets the limit.
fn spawn_limited(dir: &Path) -> Server {
    let mut limited = Command::new("sh");
    limited
        .arg("-c")
        .arg(format!(
            "trap '' XFSZ; ulimit -f {FILE_SIZE_BLOCKS} && exec \"$0\" \"$@\""
        ))
        .arg(env!("CARGO_BIN_EXE_quiver"));
    serve_args(&mut limited, dir, Mode::Sync);
    spawn_server(limited).unwrap_or_else(|(e, log)| panic!("{e}: {log:?}"))
}

/// A refused commit's code and message.
type Refusal = (String, String);

/// Commits until the disk refuses one, then tries once more. Returns the number acknowledged,
/// the failed commit's refusal and the next one's.
async fn write_until_refused(conn: &mut Connection) -> Result<(i64, Refusal, Refusal), String> {
    scalar(
        conn,
        "MERGE (x:Writer {w: 0}) ON CREATE SET x.last = 0 RETURN x.last",
        Map::new(),
    )
    .await?;
    let mut acked = 0;
    let first = loop {
        if acked > 100_000 {
            return Err("no write failed under the file-size limit".to_string());
        }
        match write_one(conn, acked + 1).await? {
            Written::Acked => acked += 1,
            Written::Refused { code, message } => break (code, message),
        }
    };
    let second = match write_one(conn, acked + 1).await? {
        Written::Acked => return Err("a write after the fault was acknowledged".into()),
        Written::Refused { code, message } => (code, message),
    };
    Ok((acked, first, second))
}

/// How many records `query` returns in a read-mode auto-commit transaction (what a driver's
/// read session sends).
async fn read_rows(conn: &mut Connection, query: &str) -> Result<u64, String> {
    let extra = TxExtra {
        mode: AccessMode::Read,
        ..TxExtra::default()
    };
    let run = Request::Run {
        query: query.to_owned(),
        params: Map::new(),
        extra,
    };
    let replies = conn
        .request(&[run, Request::Pull { n: -1, qid: -1 }])
        .await
        .map_err(|e| format!("`{query}`: {e}"))?;
    if replies
        .summaries
        .iter()
        .all(|s| matches!(s, BoltSummary::Success { .. }))
    {
        return Ok(replies.records);
    }
    let _ = conn.reset().await;
    Err(format!("`{query}`: {:?}", replies.summaries))
}

/// [`served`] for writer 0 alone, through read-mode transactions: each figure is a number of
/// records.
async fn served_to_readers(conn: &mut Connection) -> Result<Served, String> {
    let mut rows = async |q: &str| -> Result<i64, String> {
        i64::try_from(read_rows(conn, q).await?).map_err(|e| e.to_string())
    };
    let last = rows("MATCH (x:Writer {w: 0}) UNWIND range(1, x.last) AS k RETURN k").await?;
    Ok(Served {
        last: BTreeMap::from([(0, last)]),
        items: rows("MATCH (i:Item) RETURN 1").await?,
        parts: rows("MATCH (p:Part) RETURN 1").await?,
        has: rows("MATCH (:Item)-[r:HAS]->(:Part) RETURN 1").await?,
        partial: rows(
            "MATCH (i:Item) OPTIONAL MATCH (i)-[:HAS]->(p:Part) \
             WITH i, count(p) AS n WHERE n <> 2 RETURN 1",
        )
        .await?,
    })
}

/// A full disk: the commit whose write failed is refused, and so is every write after it,
/// with an error that names the disk; read sessions go on serving every acknowledged commit;
/// after a restart without the limit every acknowledged commit is there and writes work
/// again.
#[test]
fn a_disk_fault_refuses_writes_while_reads_continue() {
    let tmp = data_dir();
    let rt = client_runtime();
    let server = spawn_limited(tmp.path());
    let ((acked, first, second), now) = rt
        .block_on(async {
            let mut conn = connect(server.bolt).await?;
            let refused = write_until_refused(&mut conn).await?;
            Ok::<_, String>((refused, served_to_readers(&mut conn).await?))
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let log = server
        .kill()
        .expect("the server kept running after the fault");
    println!("acknowledged {acked}; the failed commit: {first:?}; the next: {second:?}");
    assert!(acked > 0, "the limit left no room for a single commit");
    for (code, message) in [&first, &second] {
        assert!(message.contains("disk fault"), "{code}: {message}");
    }
    assert!(second.1.contains("refused"), "{second:?}");
    assert!(
        log.warnings.iter().any(|l| l.contains("disk fault")),
        "{:?}",
        log.warnings
    );
    check_served(&now, None).expect("whole transactions");
    assert_eq!(
        now.last.get(&0),
        Some(&acked),
        "reads serve the acknowledged commits"
    );

    let server = spawn_server(serve_command(tmp.path(), Mode::Sync))
        .unwrap_or_else(|(e, log)| panic!("{e}: {log:?}"));
    let (after, next) = rt
        .block_on(async {
            let mut conn = connect(server.bolt).await?;
            let after = served(&mut conn, "").await?;
            let s = after.last.get(&0).copied().unwrap_or(0) + 1;
            Ok::<_, String>((after, write_one(&mut conn, s).await?))
        })
        .unwrap_or_else(|e| panic!("{e}"));
    server
        .kill()
        .expect("the restarted server was still running");
    check_served(&after, None).expect("whole transactions after the restart");
    let last = after.last.get(&0).copied().unwrap_or(0);
    assert!(last >= acked, "acknowledged {acked}, recovered {last}");
    assert!(matches!(next, Written::Acked), "writes work again");
}

/// A read in the default (write) access mode after a disk fault is served, at the durable
/// point: the newest commit in memory (the one whose write failed) never becomes durable, so
/// a transaction reading at it could never answer.
#[test]
fn a_default_mode_read_after_a_disk_fault_is_served() {
    let tmp = data_dir();
    let rt = client_runtime();
    let server = spawn_limited(tmp.path());
    let outcome = rt.block_on(async {
        let mut conn = connect(server.bolt).await?;
        let (acked, _, _) = write_until_refused(&mut conn).await?;
        Ok::<_, String>((acked, served(&mut conn, "").await))
    });
    server
        .kill()
        .expect("the server kept running after the fault");
    let (acked, read) = outcome.unwrap_or_else(|e| panic!("{e}"));
    let now = read.unwrap_or_else(|e| panic!("the read failed: {e}"));
    assert_eq!(now.last.get(&0), Some(&acked));
}
