//! `LOAD CSV ... CALL { } IN TRANSACTIONS OF k ROWS` into `quiver serve`, killed with SIGKILL in
//! the middle of the load: after a restart every batch that finished is there and nothing of the
//! one that was running, so the rows loaded are exactly the file's first `m * k`.
//!
//! The short form runs with `cargo test`; the long form (a million rows) is run by hand:
//! `cargo test -p quiver --release --test load_csv_kill -- --ignored --nocapture`.

#![cfg(unix)]

use std::io::Write;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use quiver_value::Value;

mod common;

/// Starts `quiver serve` over `data` with `import` as its import directory, in `group`
/// durability (a batch is committed once it is on disk).
fn serve(data: &Path, import: &Path) -> (Child, SocketAddr) {
    let (child, bolt, _) = common::spawn(
        common::serve()
            .args(["--durability", "group"])
            .arg("--data-dir")
            .arg(data)
            .arg("--import-dir")
            .arg(import),
    );
    (child, bolt)
}

/// Runs `query` in auto-commit: its first row, or the failure's message.
async fn run(bolt: SocketAddr, query: &str) -> Result<Vec<Value>, String> {
    let out = common::auto_commit(bolt, query).await?;
    if let Some(Err(e)) = out.summaries.iter().find(|s| s.is_err()) {
        return Err(format!("{e:?}"));
    }
    Ok(out.records.first().cloned().unwrap_or_default())
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        other => panic!("expected an integer, got {other:?}"),
    }
}

fn write_csv(path: &Path, rows: usize) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("csv"));
    writeln!(f, "id,name").expect("write");
    for i in 1..=rows {
        writeln!(f, "{i},row number {i}").expect("write");
    }
    f.flush().expect("flush");
}

/// Loads `rows` rows in batches of `batch`, kills the server once `kill_after` rows are
/// visible, restarts it and checks that exactly a prefix of whole batches survived.
fn load_kill_restart(rows: usize, batch: usize, kill_after: i64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (data, import) = (dir.path().join("data"), dir.path().join("import"));
    std::fs::create_dir_all(&import).expect("import dir");
    write_csv(&import.join("rows.csv"), rows);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("client runtime");

    let (mut child, bolt) = serve(&data, &import);
    let load = format!(
        "LOAD CSV WITH HEADERS FROM 'file:///rows.csv' AS row \
         CALL (row) {{ CREATE (:Row {{id: toInteger(row.id), name: row.name}}) }} \
         IN TRANSACTIONS OF {batch} ROWS"
    );
    let loading = runtime.spawn(async move { run(bolt, &load).await });
    let count = "MATCH (r:Row) RETURN count(r) AS n";
    let started = Instant::now();
    let seen = loop {
        let n = runtime.block_on(run(bolt, count)).map_or(0, |r| int(&r[0]));
        if n >= kill_after || loading.is_finished() {
            break n;
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the load made no progress"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let _ = runtime.block_on(loading);

    let (mut child, bolt) = serve(&data, &import);
    let r = runtime
        .block_on(run(
            bolt,
            "MATCH (r:Row) RETURN count(r) AS n, min(r.id) AS lo, max(r.id) AS hi, \
             count(DISTINCT r.id) AS ids",
        ))
        .expect("count after restart");
    let _ = child.kill();
    let _ = child.wait();
    let (n, ids) = (int(&r[0]), int(&r[3]));
    eprintln!("{seen} rows seen before the kill, {n} after the restart");
    assert!(n >= seen, "{n} rows after the restart, {seen} seen before");
    assert_eq!(
        n % i64::try_from(batch).expect("batch"),
        0,
        "a partial batch survived"
    );
    assert_eq!(ids, n, "each row once");
    if n > 0 {
        assert_eq!((int(&r[1]), int(&r[2])), (1, n), "the file's first rows");
    }
}

#[test]
fn a_load_killed_midway_keeps_exactly_its_finished_batches() {
    load_kill_restart(200_000, 1000, 20_000);
}

#[test]
#[ignore = "a million rows: run by hand with --release"]
fn a_million_row_load_killed_midway_keeps_exactly_its_finished_batches() {
    load_kill_restart(1_000_000, 10_000, 400_000);
}
