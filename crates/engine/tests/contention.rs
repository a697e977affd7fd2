//! Writers meeting each other's uncommitted changes: a transaction whose first query has
//! returned nothing waits for the holder (within the lock wait) and begins again, losing no
//! update; every other conflict fails at once with a retryable error named for what happened.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_engine::{Database, EngineConfig, Error, LockWaited, PullState, TxOptions};
use quiver_status::Status;
use quiver_value::{Map, Value};

fn db(lock_wait: Duration) -> Arc<Database> {
    let db = Database::open_in_memory(EngineConfig {
        lock_wait_max: lock_wait,
        ..EngineConfig::default()
    });
    db.execute("CREATE (:C {id: 1, v: 0})", Map::new()).unwrap();
    db
}

fn value(db: &Database) -> i64 {
    let r = db
        .execute("MATCH (c:C {id: 1}) RETURN c.v AS v", Map::new())
        .unwrap();
    r.rows[0][0].as_int().unwrap()
}

const INCREMENT: &str = "MATCH (c:C {id: 1}) SET c.v = c.v + 1";

/// An explicit transaction that has written the hot node and not ended.
fn holder(db: &Database) -> quiver_engine::Transaction {
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let q = tx
        .run("MATCH (c:C {id: 1}) SET c.v = c.v + 10", Map::new())
        .unwrap();
    let mut rows = Vec::new();
    assert!(matches!(
        tx.pull(q, -1, &mut rows).unwrap(),
        PullState::Done(_)
    ));
    tx
}

#[test]
fn a_first_query_waits_for_the_holder_and_loses_no_update() {
    for commit in [true, false] {
        let db = db(Duration::from_secs(30));
        let tx = holder(&db);
        let waiter = {
            let db = Arc::clone(&db);
            std::thread::spawn(move || db.execute(INCREMENT, Map::new()).map(|_| ()))
        };
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "the writer queues behind the holder");
        if commit {
            tx.commit().unwrap();
        } else {
            tx.rollback().unwrap();
        }
        waiter.join().unwrap().unwrap();
        assert_eq!(value(&db), if commit { 11 } else { 1 });
        assert_eq!(db.transactions_begun_again(), 1);
    }
}

#[test]
fn many_writers_of_one_node_queue_and_the_count_is_exact() {
    let db = db(Duration::from_secs(30));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let db = Arc::clone(&db);
            std::thread::spawn(move || {
                for _ in 0..50 {
                    db.execute(INCREMENT, Map::new()).unwrap();
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    assert_eq!(value(&db), 400);
}

#[test]
fn the_wait_is_bounded_and_names_the_held_lock() {
    let db = db(Duration::from_millis(100));
    let tx = holder(&db);
    let started = Instant::now();
    let error = db.execute(INCREMENT, Map::new()).unwrap_err();
    assert!(started.elapsed() >= Duration::from_millis(100));
    assert_eq!(error.status_code(), Status::LockAcquisitionTimeout);
    assert!(error.is_retryable());
    assert!(
        matches!(
            error,
            Error::LockHeld {
                waited: LockWaited::TimedOut { waited_ms },
                ..
            } if waited_ms >= 100
        ),
        "{error:?}"
    );
    tx.rollback().unwrap();
}

#[test]
fn without_a_lock_wait_the_conflict_fails_at_once() {
    let db = db(Duration::ZERO);
    let tx = holder(&db);
    let error = db.execute(INCREMENT, Map::new()).unwrap_err();
    assert!(
        matches!(
            error,
            Error::LockHeld {
                waited: LockWaited::Off,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(error.status_code(), Status::LockAcquisitionTimeout);
    tx.rollback().unwrap();
    assert_eq!(db.transactions_begun_again(), 0);
}

#[test]
fn a_transaction_that_returned_results_does_not_begin_again() {
    let db = db(Duration::from_secs(30));
    // It read and returned a row before meeting the held node: it fails at once.
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let q = tx
        .run("MATCH (c:C {id: 1}) RETURN c.v AS v", Map::new())
        .unwrap();
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).unwrap();
    assert_eq!(rows, vec![vec![Value::Int(0)]]);
    let held = holder(&db);
    // A writing query without columns is carried out at its run.
    let error = tx.run(INCREMENT, Map::new()).unwrap_err();
    assert!(
        matches!(
            error,
            Error::LockHeld {
                waited: LockWaited::ResultsReturned,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.is_retryable());
    held.commit().unwrap();

    // The holder committed after this one's snapshot: Outdated, not a lock.
    let mut tx = db.begin(TxOptions::default()).unwrap();
    let q = tx.run("RETURN 1 AS one", Map::new()).unwrap();
    tx.pull(q, -1, &mut rows).unwrap();
    db.execute(INCREMENT, Map::new()).unwrap();
    let error = tx.run(INCREMENT, Map::new()).unwrap_err();
    assert!(matches!(error, Error::Outdated { .. }), "{error:?}");
    assert_eq!(error.status_code(), Status::TransactionOutdated);
    assert!(error.is_retryable());
    assert_eq!(value(&db), 11);
}

#[test]
fn a_first_query_meeting_a_newer_commit_begins_again_at_once() {
    let db = db(Duration::from_secs(30));
    let mut tx = db.begin(TxOptions::default()).unwrap();
    // Committed after `tx` took its snapshot.
    db.execute(INCREMENT, Map::new()).unwrap();
    let q = tx.run(INCREMENT, Map::new()).unwrap();
    let mut rows = Vec::new();
    tx.pull(q, -1, &mut rows).unwrap();
    tx.commit().unwrap();
    assert_eq!(value(&db), 2, "the second increment read the first");
}
