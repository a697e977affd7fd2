//! `quiver serve` under a query that builds a string without end: the query fails with the
//! memory limit over Bolt, the server's resident memory stays near the limit, and the server
//! goes on answering.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use quiver_bolt::Request;
use quiver_bolt::message::RunExtra;
use quiver_lab::client::{ClientError, Connection};
use quiver_value::{Map, Value};

const MIB: u64 = 1 << 20;
const QUERY_MEMORY_MAX: u64 = 64 * MIB;

/// Starts `quiver serve` in memory on ephemeral ports with `extra` flags; its Bolt address.
fn start(extra: &[&str]) -> (Child, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quiver"))
        .args([
            "serve",
            "--bolt-listen",
            "127.0.0.1:0",
            "--http-listen",
            "127.0.0.1:0",
            "--in-memory",
        ])
        .args(extra)
        .env_remove("QUIVER_AUTH")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn quiver");
    let stdout = child.stdout.take().expect("stdout");
    let line = BufReader::new(stdout)
        .lines()
        .next()
        .expect("a line")
        .expect("utf-8 line");
    let bolt = line
        .strip_prefix("bolt listening on ")
        .unwrap_or_else(|| panic!("expected the Bolt address, got `{line}`"))
        .parse()
        .expect("socket address");
    (child, bolt)
}

/// A field of `/proc/<pid>/status` in bytes (`VmRSS`, `VmHWM`).
fn status_bytes(pid: u32, field: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let line = text
        .lines()
        .find(|l| l.starts_with(field))
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"));
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("a number of kB");
    kib * 1024
}

/// Runs `query` in auto-commit over Bolt: its first row's first value, or the failure's code
/// and message.
async fn run(bolt: SocketAddr, query: &str) -> Result<Value, (String, String)> {
    let stream = tokio::net::TcpStream::connect(bolt).await.expect("connect");
    let mut conn = Connection::open(stream, None, false)
        .await
        .expect("bolt handshake");
    let out = conn
        .exchange(&[
            Request::Run {
                query: query.to_owned(),
                params: Map::new(),
                extra: RunExtra::default(),
            },
            Request::Pull { n: -1, qid: -1 },
        ])
        .await
        .expect("exchange");
    conn.close().await;
    if let Some(Err(ClientError::Failure { code, message, .. })) =
        out.summaries.iter().find(|s| s.is_err())
    {
        return Err((code.clone(), message.clone()));
    }
    Ok(out
        .records
        .first()
        .and_then(|r| r.first())
        .cloned()
        .expect("a row"))
}

#[test]
fn the_string_bomb_fails_over_bolt_and_the_server_stays_near_its_limit() {
    let limit = QUERY_MEMORY_MAX.to_string();
    let (mut child, bolt) = start(&["--query-memory-max", &limit]);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let warm = runtime.block_on(run(bolt, "RETURN 1 AS one"));
    assert_eq!(warm, Ok(Value::Int(1)));
    let baseline = status_bytes(child.id(), "VmRSS:");

    let started = Instant::now();
    let bomb = runtime.block_on(run(
        bolt,
        "RETURN size(reduce(s = 'x', i IN range(1, 31) | s + s)) AS n",
    ));
    let elapsed = started.elapsed();
    let peak = status_bytes(child.id(), "VmHWM:");
    let (code, message) = bomb.expect_err("the bomb fails");
    assert_eq!(code, "Neo.TransientError.General.TransactionMemoryLimit");
    assert!(message.contains(&limit), "{message}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    // The limit, plus the accumulator it was built from and room for the allocator.
    let margin = QUERY_MEMORY_MAX + 64 * MIB;
    assert!(
        peak < baseline + margin,
        "peak RSS {peak} over baseline {baseline} + {margin}"
    );

    let after = runtime.block_on(run(bolt, "RETURN 2 AS two"));
    assert_eq!(after, Ok(Value::Int(2)));
    let _ = child.kill();
    let _ = child.wait();
}
