//! The restore drill, short form: clients write in `group` durability against `quiver serve`
//! while `quiver backup` takes a full and then incremental backups; `quiver restore` then
//! rebuilds exactly what each point held: every acknowledged write up to the backup's (or
//! the `--restore-until` transaction's) last commit and nothing after it, and for a time,
//! exactly the writes committed by then. After a kill -9 and a restart the chain goes on with
//! every acknowledged write. A damaged backup fails by name with nothing restored.

#[allow(dead_code)]
#[path = "../../server/tests/common/certs.rs"]
mod certs;
mod common;

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use quiver_bolt::Request;
use quiver_bolt::message::RunExtra;
use quiver_durability::Durability;
use quiver_durability::backup::BackupDir;
use quiver_value::{Map, Value};

const ROOT: (&str, &str) = ("root", "root-password");
const WRITERS: i64 = 3;

fn serve(dir: &Path) -> (Child, SocketAddr, SocketAddr) {
    common::spawn(
        common::serve()
            .args([
                "--durability",
                "group",
                "--auth",
                &format!("{}/{}", ROOT.0, ROOT.1),
            ])
            .arg("--data-dir")
            .arg(dir),
    )
}

/// `quiver backup` as the administrator (or as `password` says).
fn backup(http: SocketAddr, to: &Path, password: &str) -> Output {
    common::quiver()
        .args([
            "backup",
            "--from",
            &format!("http://{http}"),
            "--user",
            ROOT.0,
        ])
        .arg("--to-path")
        .arg(to)
        .env("QUIVER_BACKUP_PASSWORD", password)
        .output()
        .expect("run quiver backup")
}

fn restore(from: &Path, to: &Path, until: Option<&str>) -> Output {
    let mut command = common::quiver();
    command.arg("restore").arg("--from-path").arg(from);
    command.arg("--data-dir").arg(to);
    if let Some(until) = until {
        command.args(["--restore-until", until]);
    }
    command.output().expect("run quiver restore")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The `id`s of every `:W` node in a restored directory.
fn restored_ids(dir: &Path) -> BTreeSet<i64> {
    let (db, _) = Durability::inspect(dir).expect("the restored directory opens");
    let (Some(w), Some(id)) = (db.label_id("W"), db.property_key_id("id")) else {
        return BTreeSet::new();
    };
    let tx = db.begin_read();
    tx.scan_label(w)
        .unwrap()
        .map(|n| match tx.node_property(n.unwrap(), id).unwrap() {
            Some(Value::Int(i)) => i,
            other => panic!("unexpected id {other:?}"),
        })
        .collect()
}

/// An acknowledged write: its node's id and its commit (from the bookmark).
#[derive(Clone, Copy, Debug)]
struct Acked {
    id: i64,
    commit: u64,
}

fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros() as i64
}

/// Writers that create `:W {id}` nodes one auto-commit transaction at a time until told to
/// stop; `gate` held for writing pauses them with no write in flight.
struct Writers {
    stop: Arc<AtomicBool>,
    gate: Arc<tokio::sync::RwLock<()>>,
    /// The newest commit acknowledged so far.
    newest: Arc<AtomicU64>,
    tasks: Vec<tokio::task::JoinHandle<Vec<Acked>>>,
}

impl Writers {
    fn start(runtime: &tokio::runtime::Runtime, bolt: SocketAddr) -> Writers {
        let stop = Arc::new(AtomicBool::new(false));
        let gate = Arc::new(tokio::sync::RwLock::new(()));
        let next = Arc::new(AtomicI64::new(0));
        let newest = Arc::new(AtomicU64::new(0));
        let tasks = (0..WRITERS)
            .map(|_| {
                let (stop, gate, next) = (stop.clone(), gate.clone(), next.clone());
                let newest = newest.clone();
                runtime.spawn(async move {
                    let mut conn = common::login(bolt, ROOT.0, ROOT.1).await.expect("login");
                    let mut acked = Vec::new();
                    while !stop.load(Ordering::Relaxed) {
                        let _open = gate.read().await;
                        let id = next.fetch_add(1, Ordering::Relaxed);
                        let mut params = Map::new();
                        params.insert("id".into(), Value::Int(id));
                        let out = conn
                            .exchange(&[
                                Request::Run {
                                    query: "CREATE (:W {id: $id})".to_owned(),
                                    params,
                                    extra: RunExtra::default(),
                                },
                                Request::Pull { n: -1, qid: -1 },
                            ])
                            .await
                            .expect("write");
                        let summary = out.summaries[1].as_ref().expect("acknowledged");
                        let Some(Value::String(bookmark)) = summary.get("bookmark") else {
                            panic!("no bookmark in {summary:?}");
                        };
                        let commit = bookmark
                            .rsplit(':')
                            .next()
                            .and_then(|digits| digits.parse().ok())
                            .expect("a Quiver bookmark");
                        newest.fetch_max(commit, Ordering::Relaxed);
                        acked.push(Acked { id, commit });
                    }
                    acked
                })
            })
            .collect();
        Writers {
            stop,
            gate,
            newest,
            tasks,
        }
    }

    /// Runs `f` with every writer paused between writes; returns what it returns and the
    /// newest commit acknowledged before the pause (none is in flight during it).
    fn paused<T>(&self, runtime: &tokio::runtime::Runtime, f: impl FnOnce() -> T) -> (T, u64) {
        let _closed = runtime.block_on(self.gate.write());
        (f(), self.newest.load(Ordering::Relaxed))
    }

    fn finish(self, runtime: &tokio::runtime::Runtime) -> Vec<Acked> {
        self.stop.store(true, Ordering::Relaxed);
        let mut all = Vec::new();
        for task in self.tasks {
            all.extend(runtime.block_on(task).expect("writer"));
        }
        all
    }
}

fn ids_up_to(acked: &[Acked], commit: u64) -> BTreeSet<i64> {
    acked
        .iter()
        .filter(|a| a.commit <= commit)
        .map(|a| a.id)
        .collect()
}

/// Fails naming only the ids one side has and the other lacks.
fn assert_same(restored: &BTreeSet<i64>, expected: &BTreeSet<i64>, what: &str) {
    let extra: Vec<_> = restored.difference(expected).collect();
    let missing: Vec<_> = expected.difference(restored).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "{what}: restored {} ids, expected {}; not expected: {extra:?}; missing: {missing:?}",
        restored.len(),
        expected.len()
    );
}

fn last_commit(backups: &Path) -> u64 {
    BackupDir::open(backups)
        .unwrap()
        .last()
        .expect("a piece")
        .last_commit
}

#[test]
fn a_chain_taken_under_writes_restores_exactly_what_each_point_held() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let backups = tmp.path().join("backups");
    let (mut server, bolt, http) = serve(&data);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let writers = Writers::start(&runtime, bolt);
    let pause = || std::thread::sleep(Duration::from_millis(300));

    // Only an administrator's credentials take a backup.
    pause();
    let refused = backup(http, &backups, "wrong-password");
    assert!(!refused.status.success(), "{}", text(&refused));
    assert!(text(&refused).contains("401"), "{}", text(&refused));

    let full = backup(http, &backups, ROOT.1);
    assert!(full.status.success(), "{}", text(&full));
    assert!(text(&full).contains("(full)"), "{}", text(&full));
    let full_end = last_commit(&backups);
    pause();
    // A point in time between two writes: every writer paused, so none is in flight.
    let (time, acked_by_then) = writers.paused(&runtime, || {
        std::thread::sleep(Duration::from_millis(5));
        let time = now_micros();
        std::thread::sleep(Duration::from_millis(5));
        time
    });
    pause();
    let second = backup(http, &backups, ROOT.1);
    assert!(second.status.success(), "{}", text(&second));
    assert!(text(&second).contains("(incremental)"), "{}", text(&second));
    let second_end = last_commit(&backups);
    pause();
    let third = backup(http, &backups, ROOT.1);
    assert!(third.status.success(), "{}", text(&third));
    let third_end = last_commit(&backups);
    pause();
    let acked = writers.finish(&runtime);
    // SIGKILL: no flush, no closing snapshot.
    let _ = server.kill();
    let _ = server.wait();
    assert!(full_end < second_end && second_end < third_end);
    // The time falls inside the second piece, with writes of it on both sides.
    assert!(
        full_end < acked_by_then && acked_by_then < second_end,
        "{full_end} < {acked_by_then} < {second_end}"
    );

    let inspect = common::quiver()
        .args(["backup", "--inspect"])
        .arg(&backups)
        .output()
        .unwrap();
    assert!(inspect.status.success(), "{}", text(&inspect));
    assert!(
        text(&inspect).contains("every file matches"),
        "{}",
        text(&inspect)
    );

    // The whole chain: every write acknowledged up to the last backup's commit, none after.
    let target = tmp.path().join("whole");
    let out = restore(&backups, &target, None);
    assert!(out.status.success(), "{}", text(&out));
    assert_same(
        &restored_ids(&target),
        &ids_up_to(&acked, third_end),
        "whole chain",
    );
    assert!(
        acked.iter().any(|a| a.commit > third_end),
        "writes after it"
    );

    // Until the full backup's last transaction, and until one inside the second piece.
    for until in [full_end, u64::midpoint(full_end, second_end)] {
        let target = tmp.path().join(format!("until-{until}"));
        let out = restore(&backups, &target, Some(&until.to_string()));
        assert!(out.status.success(), "{}", text(&out));
        let expected = ids_up_to(&acked, until);
        assert_same(&restored_ids(&target), &expected, &format!("until {until}"));
    }

    // Until the recorded time: exactly the writes acknowledged before it.
    let stamp = jiff::Timestamp::from_microsecond(time).unwrap().to_string();
    let target = tmp.path().join("until-time");
    let out = restore(&backups, &target, Some(&stamp));
    assert!(out.status.success(), "{}", text(&out));
    let expected = ids_up_to(&acked, acked_by_then);
    assert_same(&restored_ids(&target), &expected, &format!("until {stamp}"));

    continues_after_a_kill(&data, &backups, tmp.path(), &acked);
    damaged_piece_restores_nothing(&backups, tmp.path());
}

/// Starts the server killed with SIGKILL again: the chain goes on, and every write
/// acknowledged in group durability before the kill is in the next backup and restores.
fn continues_after_a_kill(data: &Path, backups: &Path, scratch: &Path, acked: &[Acked]) {
    let (mut server, _, http) = serve(data);
    let after_kill = backup(http, backups, ROOT.1);
    let _ = server.kill();
    let _ = server.wait();
    assert!(after_kill.status.success(), "{}", text(&after_kill));
    assert!(
        text(&after_kill).contains("(incremental)"),
        "{}",
        text(&after_kill)
    );
    let target = scratch.join("after-kill");
    let out = restore(backups, &target, None);
    assert!(out.status.success(), "{}", text(&out));
    let every = acked.iter().map(|a| a.id).collect();
    assert_same(&restored_ids(&target), &every, "after kill -9");
}

/// A damaged piece: the restore names it and leaves nothing behind.
fn damaged_piece_restores_nothing(backups: &Path, scratch: &Path) {
    let piece = backups.join("backup-000002-incremental.qlog");
    let mut bytes = std::fs::read(&piece).unwrap();
    let at = bytes.len() - 10;
    bytes[at] ^= 0x01;
    std::fs::write(&piece, bytes).unwrap();
    let target = scratch.join("damaged");
    let out = restore(backups, &target, None);
    assert!(!out.status.success());
    assert!(
        text(&out).contains("backup-000002-incremental.qlog"),
        "{}",
        text(&out)
    );
    assert!(!target.exists());
    assert_no_staging(scratch);
}

fn assert_no_staging(parent: &Path) {
    let left: Vec<PathBuf> = std::fs::read_dir(parent)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".restore"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `quiver dump` then `quiver load`: the loaded directory holds what the dumped one held; a
/// damaged dump fails by name and loads nothing.
#[test]
fn a_dump_loads_back_and_a_damaged_one_loads_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (mut server, bolt, _) = serve(&data);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let writers = Writers::start(&runtime, bolt);
    std::thread::sleep(Duration::from_millis(300));
    let acked = writers.finish(&runtime);
    // A clean stop: the server releases the directory.
    let _ = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(server.id().to_string())
        .status();
    let _ = server.wait();

    let file = tmp.path().join("db.dump");
    let out = common::quiver()
        .args(["dump", "--data-dir"])
        .arg(&data)
        .arg("--to-path")
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let loaded = tmp.path().join("loaded");
    let out = common::quiver()
        .args(["load", "--from-path"])
        .arg(&file)
        .arg("--data-dir")
        .arg(&loaded)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let all = acked.iter().map(|a| a.id).collect();
    assert_same(&restored_ids(&loaded), &all, "loaded");

    let mut bytes = std::fs::read(&file).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x20;
    std::fs::write(&file, bytes).unwrap();
    let target = tmp.path().join("damaged");
    let out = common::quiver()
        .args(["load", "--from-path"])
        .arg(&file)
        .arg("--data-dir")
        .arg(&target)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("db.dump"), "{}", text(&out));
    assert!(!target.exists());
}

/// `quiver backup` as `user`, with `extra` flags, against `from`.
fn backup_as(from: &str, to: &Path, user: (&str, &str), extra: &[&str]) -> Output {
    common::quiver()
        .args(["backup", "--from", from, "--user", user.0])
        .arg("--to-path")
        .arg(to)
        .args(extra)
        .env("QUIVER_BACKUP_PASSWORD", user.1)
        .output()
        .expect("run quiver backup")
}

/// Over HTTPS the client checks the server against the CA it is given; an authenticated user
/// without the admin role is refused; a server without a data directory has nothing to back
/// up. Each refusal says why.
#[test]
fn a_backup_needs_an_administrator_the_servers_ca_and_a_data_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let files = certs::TestPki::generate().write(tmp.path());
    let data = tmp.path().join("data");
    let (mut server, bolt, http) = common::spawn(
        common::serve()
            .args(["--durability", "group", "--auth", "root/root-password"])
            .arg("--data-dir")
            .arg(&data)
            .arg("--tls-cert")
            .arg(&files.server_cert)
            .arg("--tls-key")
            .arg(&files.server_key)
            .args(["--http-tls", "required"]),
    );
    let runtime = common::client_runtime();
    runtime.block_on(async {
        let mut root = common::login(bolt, ROOT.0, ROOT.1).await.expect("root");
        for statement in [
            "CREATE USER reader SET PASSWORD 'reader-password' CHANGE NOT REQUIRED",
            "CREATE (:W {id: 1})",
        ] {
            root.query_scalar(statement, Map::new())
                .await
                .expect(statement);
        }
    });
    let https = format!("https://localhost:{}", http.port());
    let ca = files.ca.to_str().unwrap();
    let backups = tmp.path().join("backups");

    let out = backup_as(
        &https,
        &backups,
        ("reader", "reader-password"),
        &["--tls-ca", ca],
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("admin role"), "{}", text(&out));
    let out = backup_as(&https, &backups, ROOT, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--tls-ca"), "{}", text(&out));
    let out = backup_as(&format!("http://{http}"), &backups, ROOT, &[]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(BackupDir::open(&backups).unwrap().pieces().is_empty());

    let out = backup_as(&https, &backups, ROOT, &["--tls-ca", ca]);
    assert!(out.status.success(), "{}", text(&out));
    let _ = server.kill();
    let _ = server.wait();
    let target = tmp.path().join("restored");
    let out = restore(&backups, &target, None);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(restored_ids(&target), BTreeSet::from([1]));

    let (mut memory, _, http) = common::start(&[]);
    let out = backup_as(&format!("{http}"), &tmp.path().join("none"), ROOT, &[]);
    let _ = memory.kill();
    let _ = memory.wait();
    assert!(!out.status.success());
    assert!(text(&out).contains("in memory"), "{}", text(&out));
}
