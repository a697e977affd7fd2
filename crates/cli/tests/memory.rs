//! `quiver serve` under a query that builds a string without end: the query fails with the
//! memory limit over Bolt, the server's resident memory stays near the limit, and the server
//! goes on answering.

use std::net::SocketAddr;
use std::process::Child;
use std::time::{Duration, Instant};

use quiver_lab::client::ClientError;
use quiver_value::Value;
use tokio::runtime::Runtime;

mod common;
use common::{client_runtime, start};

const MIB: u64 = 1 << 20;
const QUERY_MEMORY_MAX: u64 = 64 * MIB;

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
    let out = common::auto_commit(bolt, query)
        .await
        .expect("auto-commit exchange");
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

/// Starts `quiver serve` in memory with `extra` flags and checks that it answers a first
/// query, so that what it holds after is its resident baseline: the server, its Bolt address
/// and the client runtime.
fn answering(extra: &[&str]) -> (Child, SocketAddr, Runtime) {
    let (child, bolt, _) = start(extra);
    let runtime = client_runtime();
    let warm = runtime.block_on(run(bolt, "RETURN 1 AS one"));
    assert_eq!(warm, Ok(Value::Int(1)));
    (child, bolt, runtime)
}

#[test]
fn the_string_bomb_fails_over_bolt_and_the_server_stays_near_its_limit() {
    let limit = QUERY_MEMORY_MAX.to_string();
    let (mut child, bolt, runtime) = answering(&["--query-memory-max", &limit]);
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

#[test]
fn memory_goes_back_to_the_system_after_a_burst() {
    let (mut child, bolt, runtime) = answering(&[]);
    let baseline = status_bytes(child.id(), "VmRSS:");

    let burst = runtime.block_on(run(
        bolt,
        "UNWIND range(1, 1000000) AS i WITH DISTINCT 'key-' + toString(i) AS k RETURN count(*) AS n",
    ));
    assert_eq!(burst, Ok(Value::Int(1_000_000)));
    let peak = status_bytes(child.id(), "VmHWM:");
    let after_query = runtime.block_on(run(bolt, "RETURN 2 AS two"));
    assert_eq!(after_query, Ok(Value::Int(2)));
    assert!(
        peak > baseline + 128 * MIB,
        "the burst was big: {peak} over {baseline}"
    );
    // The trim runs as the query's pool room goes back, when its context is dropped; give
    // that a few seconds on a loaded machine rather than assume when it happens.
    let margin = 24 * MIB;
    let deadline = Instant::now() + Duration::from_secs(10);
    let after = loop {
        let now = status_bytes(child.id(), "VmRSS:");
        if now < baseline + margin || Instant::now() > deadline {
            break now;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    eprintln!(
        "baseline {} MiB, peak {} MiB, after {} MiB",
        baseline / MIB,
        peak / MIB,
        after / MIB
    );
    assert!(
        after < baseline + margin,
        "RSS {after} after the burst over baseline {baseline} + {margin}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn huge_values_returned_over_the_limit_fail_and_another_client_goes_on() {
    let limit = (16 * MIB).to_string();
    let (mut child, bolt, _) = start(&["--query-memory-max", &limit]);
    let runtime = client_runtime();
    // 64 nodes of a 1 MiB string each, built one at a time inside the limit, eight to a
    // transaction: a transaction's writes count against the limit too.
    let mut created = 0;
    for batch in 0..8 {
        let made = runtime.block_on(run(
            bolt,
            &format!(
                "UNWIND range({}, {}) AS i \
                 CREATE (n:Big {{i: i, s: reduce(s = 'x', j IN range(1, 20) | s + s)}}) \
                 RETURN count(n) AS n",
                batch * 8 + 1,
                batch * 8 + 8
            ),
        ));
        let Ok(Value::Int(made)) = made else {
            panic!("batch {batch}: {made:?}");
        };
        created += made;
    }
    assert_eq!(created, 64);
    let baseline = status_bytes(child.id(), "VmRSS:");

    // A slice of rows handed to the connection holds 64 of them: over the limit, whether
    // the values leave as properties or inside their nodes.
    for query in ["MATCH (n:Big) RETURN n.s AS s", "MATCH (n:Big) RETURN n"] {
        let (code, message) = runtime
            .block_on(run(bolt, query))
            .expect_err("over the limit");
        assert_eq!(
            code, "Neo.TransientError.General.TransactionMemoryLimit",
            "{query}"
        );
        assert!(message.contains(&limit), "{message}");
    }
    let peak = status_bytes(child.id(), "VmHWM:");
    let margin = 16 * MIB + 64 * MIB;
    assert!(
        peak < baseline + margin,
        "peak RSS {peak} over baseline {baseline} + {margin}"
    );

    // Another client, and the same values read without being returned, go on.
    let total = runtime.block_on(run(bolt, "MATCH (n:Big) RETURN sum(size(n.s)) AS total"));
    assert_eq!(total, Ok(Value::Int(64 << 20)));
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn an_unbounded_write_load_fails_on_the_limit_commits_nothing_and_the_server_goes_on() {
    const WRITES_MAX: u64 = 16 * MIB;
    let limit = WRITES_MAX.to_string();
    let (mut child, bolt, runtime) =
        answering(&["--query-memory-max", &limit, "--plan-cache-bytes-max", "0"]);
    let baseline = status_bytes(child.id(), "VmRSS:");

    let load = runtime.block_on(run(
        bolt,
        "UNWIND range(1, 100000000) AS i \
         CREATE (:N {s: reduce(s = '', j IN range(1, 100) | s + '0123456789'), i: i}) \
         RETURN count(*) AS n",
    ));
    let peak = status_bytes(child.id(), "VmHWM:");
    let (code, message) = load.expect_err("the load fails");
    assert_eq!(code, "Neo.TransientError.General.TransactionMemoryLimit");
    assert!(message.contains(&limit), "{message}");
    assert!(message.contains("writes"), "{message}");
    eprintln!("baseline {} MiB, peak {} MiB", baseline / MIB, peak / MIB);
    // The estimate of the writes, what the store really allocated for them, and room for
    // the allocator.
    let margin = 4 * WRITES_MAX + 64 * MIB;
    assert!(
        peak < baseline + margin,
        "peak RSS {peak} over baseline {baseline} + {margin}"
    );

    let count = runtime.block_on(run(bolt, "MATCH (n) RETURN count(n) AS n"));
    assert_eq!(count, Ok(Value::Int(0)), "nothing committed");
    let within = runtime.block_on(run(
        bolt,
        "UNWIND range(1, 1000) AS i CREATE (:N {i: i}) RETURN count(*) AS n",
    ));
    assert_eq!(within, Ok(Value::Int(1000)));
    let _ = child.kill();
    let _ = child.wait();
}
