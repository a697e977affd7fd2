//! Query memory: every byte a query holds counts against its own limit and against the
//! database's pool, and the pool gets everything back when a query ends, however it ends.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_engine::{Database, EngineConfig, PullState, TxOptions};
use quiver_value::{Map, Value};

const MIB: usize = 1 << 20;

fn db(query_max: usize, total_max: usize) -> Arc<Database> {
    Database::open_in_memory(EngineConfig {
        query_memory_bytes_max: query_max,
        query_memory_total_bytes_max: total_max,
        ..EngineConfig::default()
    })
}

fn code(db: &Database, query: &str) -> String {
    match db.execute(query, Map::new()) {
        Ok(_) => "ok".to_owned(),
        Err(e) => e.status_code().to_string(),
    }
}

const STRING_BOMB: &str = "RETURN size(reduce(s = 'x', i IN range(1, 31) | s + s)) AS n";

#[test]
fn a_string_doubled_in_a_loop_fails_fast_on_the_memory_limit() {
    let db = db(64 * MIB, 1 << 30);
    let started = Instant::now();
    let e = db.execute(STRING_BOMB, Map::new()).unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert!(e.is_retryable());
    let message = e.message();
    assert!(message.contains(&(64 * MIB).to_string()), "{message}");
    assert!(message.contains("string"), "{message}");
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    // The engine goes on, and a string that fits is still built.
    let r = db
        .execute(
            "RETURN size(reduce(s = 'x', i IN range(1, 20) | s + s)) AS n",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(1 << 20)]]);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn lists_and_maps_built_by_expressions_are_bounded() {
    let db = db(MIB, 1 << 30);
    for query in [
        "RETURN size(reduce(l = [], i IN range(1, 100000) | l + [i])) AS n",
        "RETURN size([x IN range(1, 100000) | x]) AS n",
        "RETURN size(range(1, 100000)) AS n",
        "RETURN size(COLLECT { UNWIND range(1, 100000) AS i RETURN i }) AS n",
    ] {
        assert_eq!(
            code(&db, query),
            "Neo.TransientError.General.TransactionMemoryLimit",
            "{query}"
        );
        assert_eq!(db.query_memory_reserved_bytes(), 0, "{query}");
    }
    assert_eq!(code(&db, "RETURN size(range(1, 1000)) AS n"), "ok");
}

#[test]
fn count_distinct_over_a_cross_product_fails_on_the_memory_limit() {
    let db = db(MIB, 1 << 30);
    let e = db
        .execute(
            "UNWIND range(1, 10000) AS a UNWIND range(1, 10000) AS b \
             RETURN count(DISTINCT [a, b]) AS n",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert!(e.message().contains("DISTINCT"), "{}", e.message());
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn buffers_give_back_what_they_held_when_consumed() {
    // Each sort fits the limit alone; run one after the other in a query, and in a
    // transaction, the figure tracks what is held, not a lifetime sum.
    let db = db(8 * MIB, 1 << 30);
    let mut tx = db.begin(TxOptions::read()).unwrap();
    for _ in 0..5 {
        let q = tx
            .run(
                "UNWIND range(1, 40000) AS i WITH i ORDER BY i DESC RETURN count(*) AS n",
                Map::new(),
            )
            .unwrap();
        let mut rows = Vec::new();
        tx.pull(q, -1, &mut rows).unwrap();
        assert_eq!(rows, vec![vec![Value::Int(40000)]]);
    }
    tx.rollback().unwrap();
    let r = db
        .execute(
            "UNWIND range(1, 3) AS k CALL { WITH k UNWIND range(1, 40000) AS i \
             WITH i ORDER BY i DESC RETURN count(*) AS n } RETURN sum(n) AS total",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(120_000)]]);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn a_top_n_holds_about_its_size_whatever_its_input() {
    let db = db(MIB, 1 << 30);
    let r = db
        .execute(
            "UNWIND range(1, 300000) AS i RETURN i ORDER BY i DESC LIMIT 3",
            Map::new(),
        )
        .unwrap();
    assert_eq!(
        r.rows,
        vec![
            vec![Value::Int(300_000)],
            vec![Value::Int(299_999)],
            vec![Value::Int(299_998)]
        ]
    );
    assert_eq!(
        code(&db, "UNWIND range(1, 300000) AS i RETURN i ORDER BY i DESC"),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

/// Runs `query` in `tx` and pulls one row, leaving the query open with its buffer full.
fn open_and_pull_one(
    tx: &mut quiver_engine::Transaction,
    query: &str,
) -> quiver_engine::Result<()> {
    let q = tx.run(query, Map::new())?;
    let mut rows = Vec::new();
    tx.pull(q, 1, &mut rows).map(|_| ())
}

#[test]
fn queries_that_each_fit_but_not_together_fail_on_the_pool_and_the_others_go_on() {
    const SORT: &str = "UNWIND range(1, 200000) AS i RETURN i ORDER BY i DESC";
    let db = db(32 * MIB, 24 * MIB);
    let mut first = db.begin(TxOptions::read()).unwrap();
    let q = first.run(SORT, Map::new()).unwrap();
    let mut rows = Vec::new();
    assert!(matches!(
        first.pull(q, 1, &mut rows).unwrap(),
        PullState::HasMore
    ));
    let held = db.query_memory_reserved_bytes();
    assert!(held >= 12 * MIB, "{held}");

    let mut second = db.begin(TxOptions::read()).unwrap();
    let e = open_and_pull_one(&mut second, SORT).unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.MemoryPoolOutOfMemoryError"
    );
    assert!(
        e.message().contains(&(24 * MIB).to_string()),
        "{}",
        e.message()
    );
    drop(second);
    assert_eq!(db.query_memory_reserved_bytes(), held);

    // The first query is untouched and completes.
    first.pull(q, -1, &mut rows).unwrap();
    assert_eq!(rows.len(), 200_000);
    assert_eq!(rows[0], vec![Value::Int(200_000)]);
    first.commit().unwrap();
    assert_eq!(db.query_memory_reserved_bytes(), 0);

    // With the room back, the same query runs.
    let r = db.execute(SORT, Map::new()).unwrap();
    assert_eq!(r.rows.len(), 200_000);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn concurrent_queries_over_the_pool_fail_one_at_a_time_and_return_everything() {
    let db = db(32 * MIB, 40 * MIB);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let db = db.clone();
            std::thread::spawn(move || {
                code(
                    &db,
                    "UNWIND range(1, 200000) AS i WITH i ORDER BY i DESC RETURN count(*) AS n",
                )
            })
        })
        .collect();
    for t in threads {
        let c = t.join().unwrap();
        assert!(
            c == "ok" || c == "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
            "{c}"
        );
    }
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn a_cancelled_or_abandoned_query_returns_its_room() {
    let db = db(32 * MIB, 1 << 30);
    let mut tx = db.begin(TxOptions::read()).unwrap();
    open_and_pull_one(
        &mut tx,
        "UNWIND range(1, 100000) AS i RETURN i ORDER BY i DESC",
    )
    .unwrap();
    assert!(db.query_memory_reserved_bytes() > 0);
    drop(tx);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}
