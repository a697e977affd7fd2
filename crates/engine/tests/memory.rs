//! Query memory: every byte a query holds counts against its own limit and against the
//! database's pool, and the pool gets everything back when a query ends, however it ends.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_engine::{
    Database, EngineConfig, Field, FieldType, Procedure, ProcedureContext, ProcedureSignature,
    PullState, TxOptions,
};
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

/// A database whose `:Big` nodes each hold a 1 MiB string, 16 of them, under an 8 MiB limit.
fn with_big_strings() -> Arc<Database> {
    let db = db(8 * MIB, 1 << 30);
    let mut params = Map::new();
    params.insert("s".into(), Value::from("x".repeat(MIB)));
    // One transaction per node: sixteen together would pass the limit with their writes.
    for i in 1..=16 {
        params.insert("i".into(), Value::Int(i));
        db.execute("CREATE (:Big {i: $i, s: $s})", params.clone())
            .unwrap();
    }
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    db
}

#[test]
fn huge_property_values_and_nodes_returned_at_once_fail_on_the_limit() {
    let db = with_big_strings();
    for query in [
        "MATCH (n:Big) RETURN n.s AS s",
        "MATCH (n:Big) RETURN n",
        "MATCH (n:Big) RETURN n {.*} AS m",
        "MATCH (n:Big) RETURN properties(n) AS p",
    ] {
        let e = db.execute(query, Map::new()).unwrap_err();
        assert_eq!(
            e.status_code(),
            "Neo.TransientError.General.TransactionMemoryLimit",
            "{query}"
        );
        let message = e.message();
        assert!(message.contains(&(8 * MIB).to_string()), "{message}");
        // Whichever comes first of the next value read and the rows already handed out.
        assert!(
            message.contains("rows being returned") || message.contains("read from the store"),
            "{message}"
        );
        assert_eq!(db.query_memory_reserved_bytes(), 0, "{query}");
    }
    // What is not returned is not held: the values are read and dropped row by row.
    let r = db
        .execute("MATCH (n:Big) RETURN sum(size(n.s)) AS total", Map::new())
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(16 * MIB as i64)]]);
    // Pulled a few rows at a time, the same rows fit.
    let mut tx = db.begin(TxOptions::read()).unwrap();
    let q = tx.run("MATCH (n:Big) RETURN n", Map::new()).unwrap();
    let mut seen = 0;
    loop {
        let mut rows = Vec::new();
        let state = tx.pull(q, 2, &mut rows).unwrap();
        seen += rows.len();
        if matches!(state, PullState::Done(_)) {
            break;
        }
    }
    assert_eq!(seen, 16);
    tx.commit().unwrap();
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn an_entity_read_whole_from_the_store_must_fit() {
    let db = db(4 * MIB, 1 << 30);
    let mut params = Map::new();
    params.insert("s".into(), Value::from("x".repeat(MIB)));
    db.execute("CREATE (:Wide)", Map::new()).unwrap();
    for key in ["a", "b", "c", "d", "e", "f"] {
        db.execute(&format!("MATCH (n:Wide) SET n.{key} = $s"), params.clone())
            .unwrap();
    }
    let e = db
        .execute(
            "MATCH (n:Wide) RETURN size(keys(properties(n))) AS n",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert!(e.message().contains("properties"), "{}", e.message());
    // One of its values at a time is fine.
    let r = db
        .execute(
            "MATCH (n:Wide) RETURN size(n.a) + size(n.f) AS n",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(2 * MIB as i64)]]);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

/// `test.strings(n, bytes)`: `n` rows of a string of `bytes` bytes each, returned whole.
struct Strings(ProcedureSignature);

impl Procedure for Strings {
    fn signature(&self) -> &ProcedureSignature {
        &self.0
    }

    fn call(
        &self,
        _: &ProcedureContext<'_>,
        args: &[Value],
    ) -> quiver_engine::Result<Vec<Vec<Value>>> {
        let (Some(Value::Int(n)), Some(Value::Int(bytes))) = (args.first(), args.get(1)) else {
            return Ok(Vec::new());
        };
        let s = Value::from("y".repeat(usize::try_from(*bytes).unwrap_or(0)));
        Ok((0..*n).map(|_| vec![Value::from(s.to_string())]).collect())
    }
}

fn with_strings_procedure(db: &Database) {
    db.register_procedure(Arc::new(Strings(ProcedureSignature {
        name: "test.strings".to_owned(),
        inputs: vec![
            Field::new("n", FieldType::Integer),
            Field::new("bytes", FieldType::Integer),
        ],
        outputs: vec![Field::new("s", FieldType::String)],
        writes: false,
    })));
}

#[test]
fn a_procedure_result_is_counted_while_its_rows_are_handed_on() {
    let db = db(8 * MIB, 1 << 30);
    with_strings_procedure(&db);
    // 16 MiB returned whole by the procedure: over the limit before a row is handed on.
    let e = db
        .execute(
            "CALL test.strings(256, 65536) YIELD s RETURN count(s) AS n",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert!(e.message().contains("procedure"), "{}", e.message());
    assert!(
        e.message().contains(&(8 * MIB).to_string()),
        "{}",
        e.message()
    );
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    // Called once per row, each result given back before the next: 16 MiB in all is fine.
    let r = db
        .execute(
            "UNWIND range(1, 16) AS i CALL test.strings(16, 65536) YIELD s RETURN count(s) AS n",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(256)]]);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn show_transactions_rows_are_counted() {
    let db = db(MIB, 1 << 30);
    // Three open queries whose texts are 400 KiB each: SHOW TRANSACTIONS returns them all.
    let text = format!("RETURN '{}' AS s", "z".repeat(400 << 10));
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut tx = db.begin(TxOptions::read()).unwrap();
        tx.run(&text, Map::new()).unwrap();
        open.push(tx);
    }
    let e = db
        .execute(
            "SHOW TRANSACTIONS YIELD currentQuery RETURN count(*) AS n",
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert!(e.message().contains("command"), "{}", e.message());
    drop(open);
    let r = db
        .execute(
            "SHOW TRANSACTIONS YIELD currentQuery RETURN count(*) AS n",
            Map::new(),
        )
        .unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(1)]]);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn parameters_count_for_as_long_as_the_query_runs() {
    let db = db(MIB, 1 << 30);
    let mut params = Map::new();
    params.insert(
        "l".into(),
        Value::from((0..100_000).map(Value::Int).collect::<Vec<_>>()),
    );
    let e = db
        .execute("RETURN size($l) AS n", params.clone())
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert!(e.message().contains("parameters"), "{}", e.message());
    // A parameter the query does not use is not its to hold.
    let r = db.execute("RETURN 1 AS n", params).unwrap();
    assert_eq!(r.rows, vec![vec![Value::Int(1)]]);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn a_list_being_unwound_is_held_while_the_rows_above_buffer() {
    // The list (1.3 MB) and the sort of its items (5.8 MB) each fit in 6 MiB, not together.
    let db = db(6 * MIB, 1 << 30);
    assert_eq!(
        code(
            &db,
            "WITH [x IN range(1, 80000) | x] AS l UNWIND l AS i \
             WITH i ORDER BY i DESC RETURN count(*) AS n"
        ),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert_eq!(
        code(
            &db,
            "UNWIND range(1, 80000) AS i WITH i ORDER BY i DESC RETURN count(*) AS n"
        ),
        "ok"
    );
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

/// Runs `query` in `tx` and pulls all its rows.
fn run_all(tx: &mut quiver_engine::Transaction, query: &str) -> quiver_engine::Result<()> {
    let q = tx.run(query, Map::new())?;
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).map(|_| ())
}

fn node_count(db: &Database) -> Value {
    let r = db
        .execute("MATCH (n) RETURN count(n) AS n", Map::new())
        .unwrap();
    r.rows[0][0].clone()
}

/// About 1.2 KiB of writes per row: a node with a 1000-byte string.
const CREATE_LONG: &str =
    "CREATE (:N {s: reduce(s = '', j IN range(1, 100) | s + '0123456789'), i: i})";

#[test]
fn a_write_load_over_the_limit_fails_naming_it_and_commits_nothing() {
    let db = db(4 * MIB, 1 << 30);
    let e = db
        .execute(
            &format!("UNWIND range(1, 100000000) AS i {CREATE_LONG}"),
            Map::new(),
        )
        .unwrap_err();
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    let message = e.message();
    assert!(message.contains(&(4 * MIB).to_string()), "{message}");
    assert!(message.contains("writes"), "{message}");
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    assert_eq!(node_count(&db), Value::Int(0));
    // Each write counts for its values: SET and MERGE too.
    let e = db
        .execute(
            "UNWIND range(1, 100000) AS i CREATE (m:M) \
             SET m.s = toString(i) + reduce(s = '', j IN range(1, 100) | s + '0123456789')",
            Map::new(),
        )
        .unwrap_err();
    assert!(e.message().contains("writes"), "{}", e.message());
    let e = db
        .execute(
            "UNWIND range(1, 100000) AS i \
             MERGE (:G {i: i, s: reduce(s = '', j IN range(1, 100) | s + '0123456789')})",
            Map::new(),
        )
        .unwrap_err();
    assert!(e.message().contains("writes"), "{}", e.message());
    assert_eq!(node_count(&db), Value::Int(0));
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn the_writes_of_an_explicit_transaction_add_up_across_its_queries() {
    let db = db(4 * MIB, 1 << 30);
    let mut tx = db.begin(TxOptions::default()).unwrap();
    // Each query's 1000 nodes (about 1.2 MiB) fit alone; the fourth passes the limit.
    let query = format!("UNWIND range(1, 1000) AS i {CREATE_LONG}");
    let mut failed = None;
    for n in 1..=8 {
        if let Err(e) = run_all(&mut tx, &query) {
            failed = Some((n, e));
            break;
        }
        assert!(db.query_memory_reserved_bytes() >= MIB * n / 2);
    }
    let (n, e) = failed.expect("the writes passed the limit");
    assert!((3..=4).contains(&n), "failed at query {n}");
    assert_eq!(
        e.status_code(),
        "Neo.TransientError.General.TransactionMemoryLimit"
    );
    assert!(
        e.message().contains(&(4 * MIB).to_string()),
        "{}",
        e.message()
    );
    assert!(tx.is_failed());
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    tx.rollback().unwrap();
    assert_eq!(node_count(&db), Value::Int(0));
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn a_write_load_within_the_limit_commits_and_gives_its_room_back() {
    let db = db(4 * MIB, 1 << 30);
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let query = format!("UNWIND range(1, 1000) AS i {CREATE_LONG}");
    for _ in 0..2 {
        run_all(&mut tx, &query).unwrap();
    }
    run_all(&mut tx, "MATCH (n:N) WHERE n.i <= 500 SET n.i = -n.i").unwrap();
    run_all(&mut tx, "MATCH (n:N) WHERE n.i > 900 DETACH DELETE n").unwrap();
    assert!(db.query_memory_reserved_bytes() >= 2 * MIB);
    tx.commit().unwrap();
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    assert_eq!(node_count(&db), Value::Int(1800));
    // Committed writes are the store's: the next transaction starts from nothing.
    db.execute(
        &format!("UNWIND range(1, 2500) AS i {CREATE_LONG}"),
        Map::new(),
    )
    .unwrap();
    assert_eq!(node_count(&db), Value::Int(4300));
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

#[test]
fn batches_committed_by_their_own_transactions_count_only_their_own_writes() {
    let db = db(4 * MIB, 1 << 30);
    // About 12 MiB of writes in all, three times the limit; 1000 rows a batch (about 1.2 MiB)
    // fit it, so the load commits batch by batch.
    db.execute(
        "UNWIND range(1, 10000) AS i CALL (i) { CREATE (:N {s: reduce(s = '', j IN range(1, 100) | s + '0123456789'), i: i}) } IN TRANSACTIONS OF 1000 ROWS",
        Map::new(),
    )
    .unwrap();
    assert_eq!(node_count(&db), Value::Int(10000));
    assert_eq!(db.query_memory_reserved_bytes(), 0);
    // A batch that alone passes the limit still fails on it, naming the writes.
    let e = db
        .execute(
            "UNWIND range(1, 10000) AS i CALL (i) { CREATE (:Q {s: reduce(s = '', j IN range(1, 100) | s + '0123456789'), i: i}) } IN TRANSACTIONS OF 5000 ROWS",
            Map::new(),
        )
        .unwrap_err();
    assert!(e.message().contains("writes"), "{}", e.message());
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}
