//! Parallel aggregations checked against one thread on random small graphs: an aggregation
//! over a scan, expands (fixed and variable length, any direction and type), filters and
//! optional matches, grouped by nothing, a property or a node, returns the same groups with
//! the same counts, sums, averages, minimums and maximums whether its scan is split among
//! four workers drawing morsels of one node id or run on one thread. The one-thread answers
//! come from a second database holding the same graph with `query_workers_max` 1.

use std::sync::Arc;

use proptest::prelude::*;
use quiver_engine::{Database, EngineConfig, HelperPool};
use quiver_value::{Map, Value};

fn run(db: &Database, q: &str) -> Vec<Vec<Value>> {
    db.execute(q, Map::new())
        .unwrap_or_else(|e| panic!("{q}: {e}"))
        .rows
}

/// Rows in a fixed order (groups come in any order).
fn sorted(rows: Vec<Vec<Value>>) -> Vec<String> {
    let mut rows: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
    rows.sort();
    rows
}

/// One node: its labels (`A`, `B`, both or none) and its `age`, if any.
type NodeSpec = (u8, Option<i64>);
/// One relationship: from, to (indexes into the nodes) and whether it is a `T` or a `U`.
type RelSpec = (usize, usize, bool);

/// A database of the graph: split among four workers from its first node (`parallel`), or
/// every query on one thread.
fn open(nodes: &[NodeSpec], rels: &[RelSpec], pool: Option<&HelperPool>) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig {
        query_workers_max: if pool.is_some() { 4 } else { 1 },
        parallel_scan_min: 1,
        helper_pool: pool.cloned(),
        ..EngineConfig::default()
    });
    let created: Vec<String> = nodes
        .iter()
        .enumerate()
        .map(|(i, (labels, age))| {
            let labels = [":X", ":X:A", ":X:B", ":X:A:B"][usize::from(*labels % 4)];
            let age = age.map_or(String::new(), |a| format!(", age: {a}"));
            format!("(n{i}{labels} {{id: {i}{age}}})")
        })
        .collect();
    run(&db, &format!("CREATE {}", created.join(", ")));
    for (ty, wanted) in [("T", true), ("U", false)] {
        let pairs: Vec<String> = rels
            .iter()
            .filter(|r| r.2 == wanted)
            .map(|(a, b, _)| format!("[{}, {}]", a % nodes.len(), b % nodes.len()))
            .collect();
        run(
            &db,
            &format!(
                "UNWIND [{}] AS r MATCH (a:X {{id: r[0]}}), (b:X {{id: r[1]}}) \
                 CREATE (a)-[:{ty}]->(b)",
                pairs.join(", ")
            ),
        );
    }
    db
}

fn graph() -> impl Strategy<Value = (Vec<NodeSpec>, Vec<RelSpec>)> {
    (
        prop::collection::vec((0u8..4, prop::option::of(0i64..60)), 1..40),
        prop::collection::vec((0usize..40, 0usize..40, prop::bool::weighted(0.6)), 0..80),
    )
}

/// The query: a scan of `a` (all nodes, `:A` or `:B`), then a step to `b` (none, `->`,
/// `<-[:T|U]-`, `-[*1..2]-`), a filter, an optional match, grouping keys and aggregates.
fn query(label: u8, step: u8, filter: u8, optional: bool, key: u8, aggs: &[u8]) -> String {
    let label = ["", ":A", ":B"][usize::from(label % 3)];
    let step = ["", "-[:T]->(b)", "<-[:T|U]-(b:A)", "-[*1..2]-(b)"][usize::from(step % 4)];
    let mut q = format!("MATCH (a{label}){step}");
    q += match filter % 4 {
        0 => "",
        1 => " WHERE a.age > 20",
        2 => " WHERE a.age IS NULL OR a.age < 40",
        _ => " WHERE EXISTS { (a)-[:U]-() }",
    };
    if optional {
        q += " OPTIONAL MATCH (a)-[:U]->(c)";
    }
    let mut items: Vec<String> = match key % 4 {
        0 => Vec::new(),
        1 => vec!["a.age AS k".into()],
        2 => vec!["a AS k".into()],
        _ => vec!["labels(a) AS k".into()],
    };
    let c = if optional { "c" } else { "a" };
    for (i, agg) in aggs.iter().enumerate() {
        let expr = match agg % 8 {
            0 => "count(*)".to_string(),
            1 => format!("count({c})"),
            2 => "sum(a.age)".into(),
            3 => "avg(a.age)".into(),
            4 => "min(a.age)".into(),
            5 => "max(a.id)".into(),
            6 => format!("min({c}.age)"),
            // Not mergeable: the whole query runs on one thread.
            _ => "count(DISTINCT a.age)".into(),
        };
        items.push(format!("{expr} AS v{i}"));
    }
    format!("{q} RETURN {}", items.join(", "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn parallel_aggregations_equal_one_thread(
        (nodes, rels) in graph(),
        label in 0u8..3,
        step in 0u8..4,
        filter in 0u8..4,
        optional in any::<bool>(),
        key in 0u8..4,
        aggs in prop::collection::vec(0u8..8, 1..4),
    ) {
        let pool = HelperPool::new(3);
        let parallel = open(&nodes, &rels, Some(&pool));
        let one = open(&nodes, &rels, None);
        let q = query(label, step, filter, optional, key, &aggs);
        prop_assert_eq!(sorted(run(&parallel, &q)), sorted(run(&one, &q)), "{}", q);
        // A scan of every node with mergeable aggregates, one of them not a count (which the
        // store or a factorized count may answer), was split.
        let summed = aggs.iter().any(|a| (2..=6).contains(a));
        if label == 0 && step != 2 && nodes.len() >= 2 && !aggs.contains(&7) && summed {
            prop_assert!(pool.lent() > 0, "not split: {}", q);
        }
    }
}

fn people(pool: &HelperPool) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig {
        query_workers_max: 4,
        parallel_scan_min: 100,
        helper_pool: Some(pool.clone()),
        ..EngineConfig::default()
    });
    run(
        &db,
        "UNWIND range(0, 999) AS i CREATE (:Person {id: i, age: i % 70})",
    );
    run(
        &db,
        "MATCH (a:Person), (b:Person) WHERE b.id = (a.id * 7 + 3) % 1000 CREATE (a)-[:F]->(b)",
    );
    run(&db, "UNWIND range(1, 50) AS i CREATE (:Few {id: i})");
    db
}

/// Workers are borrowed for an aggregation over a scan of enough nodes, and their groups
/// merged: the counts are the whole graph's.
#[test]
fn a_large_scan_is_split_among_workers() {
    let pool = HelperPool::new(3);
    let db = people(&pool);
    let before = pool.lent();
    let rows = run(
        &db,
        "MATCH (a:Person)-[:F]->(b) RETURN a.age % 2 AS k, count(*) AS n, sum(b.age) AS s \
         ORDER BY k",
    );
    assert_eq!(pool.lent() - before, 3, "four workers: three helpers");
    let sum = |parity: i64| -> i64 {
        (0..1000)
            .filter(|i| (i % 70) % 2 == parity)
            .map(|i| ((i * 7 + 3) % 1000) % 70)
            .sum()
    };
    assert_eq!(
        rows,
        vec![
            vec![Value::Int(0), Value::Int(500), Value::Int(sum(0))],
            vec![Value::Int(1), Value::Int(500), Value::Int(sum(1))],
        ]
    );
}

/// Workers are not borrowed where splitting could change the answer or gains nothing: a
/// `DISTINCT` or `collect` aggregate, a LIMIT between the scan and the aggregation, a scan
/// run again for each row of another, a scan of fewer nodes than `parallel_scan_min` for
/// two workers, a profiled query; and a query takes no more workers than its scan is worth.
#[test]
fn workers_are_borrowed_only_where_a_split_is_exact_and_worth_it() {
    let pool = HelperPool::new(3);
    let db = people(&pool);
    for q in [
        "MATCH (a:Person) RETURN count(DISTINCT a.age)",
        "MATCH (a:Person) RETURN collect(a.id)",
        "MATCH (a:Person) WITH a LIMIT 900 RETURN count(*)",
        "MATCH (a:Person) WHERE a.id < 150 WITH a MATCH (b:Person {id: a.id}) RETURN count(*)",
        "MATCH (f:Few) RETURN count(f.id)",
        "PROFILE MATCH (a:Person) RETURN count(a.age)",
    ] {
        let before = pool.lent();
        run(&db, q);
        assert_eq!(pool.lent(), before, "{q}");
    }
    // 1,000 people at 300 a worker: three workers.
    let db = Database::open_in_memory(EngineConfig {
        query_workers_max: 8,
        parallel_scan_min: 300,
        helper_pool: Some(pool.clone()),
        ..EngineConfig::default()
    });
    run(&db, "UNWIND range(0, 999) AS i CREATE (:Person {id: i})");
    let before = pool.lent();
    assert_eq!(
        run(&db, "MATCH (a:Person) RETURN count(a.id)"),
        vec![vec![Value::Int(1000)]]
    );
    assert_eq!(pool.lent() - before, 2);
}

/// A graph where counting paths of up to eight hops from every node takes hours: what stops
/// such a query stops every worker, or the query would not end.
fn endless(pool: &HelperPool) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig {
        query_workers_max: 4,
        parallel_scan_min: 100,
        helper_pool: Some(pool.clone()),
        ..EngineConfig::default()
    });
    run(&db, "CREATE INDEX FOR (p:Person) ON (p.id)");
    run(&db, "UNWIND range(0, 1999) AS i CREATE (:Person {id: i})");
    run(
        &db,
        "UNWIND range(0, 1999) AS i MATCH (a:Person {id: i}) UNWIND [(i + 1) % 2000, \
         (i * 3) % 2000, (i * 7 + 1) % 2000] AS j MATCH (b:Person {id: j}) CREATE (a)-[:F]->(b)",
    );
    db
}

const ENDLESS: &str = "MATCH (a:Person)-[*1..8]-(b) RETURN a.id % 3 AS k, count(*) AS n";

/// A deadline and `TERMINATE TRANSACTION` stop every worker of a split query, each worker's
/// memory goes back to the pool, and the helpers go back to theirs.
#[test]
fn deadlines_and_cancellation_stop_every_worker() {
    let pool = HelperPool::new(3);
    let db = endless(&pool);
    let mut tx = db
        .begin(quiver_engine::TxOptions {
            timeout: Some(std::time::Duration::from_millis(200)),
            ..quiver_engine::TxOptions::read()
        })
        .unwrap();
    let before = pool.lent();
    let q = tx.run(ENDLESS, Map::new()).unwrap();
    let e = tx.pull(q, -1, &mut Vec::new()).unwrap_err();
    assert!(
        e.status_code().code().contains("TransactionTimedOut"),
        "{e}"
    );
    assert_eq!(pool.lent() - before, 3);
    drop(tx);
    assert_eq!(db.query_memory_reserved_bytes(), 0);

    let mut tx = db.begin(quiver_engine::TxOptions::read()).unwrap();
    let handle = tx.cancel_handle();
    let q = tx.run(ENDLESS, Map::new()).unwrap();
    let before = pool.lent();
    let cancel = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(100));
        handle.cancel();
    });
    let mut rows = Vec::new();
    let e = tx.pull(q, -1, &mut rows).unwrap_err();
    cancel.join().unwrap();
    assert_eq!(e.status_code(), "Neo.ClientError.Transaction.Terminated");
    assert_eq!(pool.lent() - before, 3);
    drop(tx);
    assert_eq!(db.query_memory_reserved_bytes(), 0);
}

/// The query's memory limit holds across workers: each may hold a share of what the query
/// had left, so grouping by every node fails on the limit as on one thread, and what the
/// workers held goes back to the pool.
#[test]
fn the_memory_limit_holds_across_workers() {
    let pool = HelperPool::new(3);
    for split in [true, false] {
        let db = Database::open_in_memory(EngineConfig {
            query_workers_max: if split { 4 } else { 1 },
            parallel_scan_min: 100,
            helper_pool: Some(pool.clone()),
            query_memory_bytes_max: 64 << 10,
            ..EngineConfig::default()
        });
        for from in (0..2000).step_by(100) {
            run(
                &db,
                &format!(
                    "UNWIND range({from}, {}) AS i CREATE (:Person {{id: i}})",
                    from + 99
                ),
            );
        }
        let before = pool.lent();
        let e = db
            .execute(
                "MATCH (a:Person) RETURN a.id AS k, count(*) AS n",
                Map::new(),
            )
            .unwrap_err();
        assert_eq!(
            e.status_code(),
            "Neo.TransientError.General.TransactionMemoryLimit",
            "{e}"
        );
        assert_eq!(pool.lent() - before, if split { 3 } else { 0 });
        assert_eq!(db.query_memory_reserved_bytes(), 0);
        // What fits in the limit is counted whole.
        let rows = run(
            &db,
            "MATCH (a:Person) RETURN a.id % 100 AS k, count(*) AS n ORDER BY k LIMIT 1",
        );
        assert_eq!(rows, vec![vec![Value::Int(0), Value::Int(20)]]);
    }
}
