//! `quiver cdc`: a capturing server's changes as JSON lines, from the earliest the log holds
//! or after a cursor, and followed as they are committed.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn serve(dir: &Path) -> (Child, SocketAddr, SocketAddr) {
    common::spawn(
        common::serve()
            .args(["--cdc", "full", "--durability", "group"])
            .arg("--data-dir")
            .arg(dir),
    )
}

fn create(runtime: &tokio::runtime::Runtime, bolt: SocketAddr, id: i64) {
    runtime
        .block_on(common::auto_commit(
            bolt,
            &format!("CREATE (:W {{id: {id}}})"),
        ))
        .expect("create");
}

fn cdc(http: SocketAddr, extra: &[&str]) -> Output {
    common::quiver()
        .args(["cdc", "--from", &format!("http://{http}")])
        .args(extra)
        .output()
        .expect("run quiver cdc")
}

/// The changes a run printed, one JSON object per line.
fn changes(output: &Output) -> Vec<serde_json::Value> {
    assert!(
        output.status.success(),
        "quiver cdc failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

fn created_id(change: &serde_json::Value) -> i64 {
    change["event"]["state"]["after"]["properties"]["id"]
        .as_i64()
        .expect("a created node's id")
}

#[test]
fn changes_print_once_each_in_order_and_a_cursor_resumes_after_the_last() {
    let dir = tempfile::tempdir().expect("dir");
    let (mut server, bolt, http) = serve(dir.path());
    let runtime = common::client_runtime();
    for id in 0..20 {
        create(&runtime, bolt, id);
    }
    let first = changes(&cdc(http, &[]));
    assert_eq!(
        first.iter().map(created_id).collect::<Vec<_>>(),
        (0..20).collect::<Vec<_>>()
    );
    let cursor = first.last().expect("a change")["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    for id in 20..25 {
        create(&runtime, bolt, id);
    }
    let rest = changes(&cdc(http, &["--cursor", &cursor]));
    assert_eq!(
        rest.iter().map(created_id).collect::<Vec<_>>(),
        (20..25).collect::<Vec<_>>()
    );
    let selected = changes(&cdc(
        http,
        &["--selector", r#"{"select":"n","operation":"d"}"#],
    ));
    assert!(selected.is_empty(), "nothing was deleted");

    let bad = cdc(http, &["--cursor", "not-an-identifier"]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("InvalidIdentifier"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn follow_prints_changes_as_they_are_committed() {
    let dir = tempfile::tempdir().expect("dir");
    let (mut server, bolt, http) = serve(dir.path());
    let runtime = common::client_runtime();
    let mut follower = common::quiver()
        .args([
            "cdc",
            "--from",
            &format!("http://{http}"),
            "--follow",
            "--interval-ms",
            "20",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn quiver cdc --follow");
    let stdout = follower.stdout.take().expect("stdout");
    let (lines, received) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    for id in 0..5 {
        create(&runtime, bolt, id);
        let line = received
            .recv_timeout(Duration::from_secs(60))
            .expect("the follower prints the change");
        seen.push(created_id(&serde_json::from_str(&line).expect("JSON")));
    }
    assert_eq!(seen, (0..5).collect::<Vec<_>>());
    let _ = follower.kill();
    let _ = follower.wait();
    let _ = server.kill();
    let _ = server.wait();
}
