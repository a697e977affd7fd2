//! The database's waits: acknowledgement over the commit log, bookmark visibility signalled
//! by the store, writes refused after a fault, and the durable embedding constructor.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use quiver_engine::{
    Bookmark, Database, DurabilityTicket, EngineConfig, Mode, TxOptions, WaitError,
};
use quiver_storage::CommitLog;
use quiver_value::{Map, Value};

mod common;

use common::recording_log::Recording;

fn count(db: &Database, label: &str) -> Value {
    let rows = db
        .execute(&format!("MATCH (n:{label}) RETURN count(n)"), Map::new())
        .expect("count")
        .rows;
    rows[0][0].clone()
}

#[test]
fn a_group_database_survives_being_dropped_and_reopened() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), Mode::Group).expect("open");
    let result = db
        .execute("CREATE (:Kept {n: 1}), (:Kept {n: 2})", Map::new())
        .expect("create");
    let commit = result.summary.commit.expect("auto-commit commits");
    assert_eq!(commit.ticket, Some(DurabilityTicket(commit.commit)));
    assert_eq!(commit.bookmark, Bookmark::new(commit.commit));
    // Acknowledged on return: on disk, hence visible to new readers.
    assert!(db.durability().expect("durable").durable_watermark() >= commit.commit);
    assert!(db.is_visible(&commit.bookmark));

    let mut tx = db.begin(TxOptions::default()).expect("begin");
    let q = tx.run("CREATE (:Kept {n: 3})", Map::new()).expect("run");
    tx.pull(q, -1, &mut Vec::new()).expect("pull");
    let explicit = tx.commit().expect("commit");
    assert!(explicit.commit > commit.commit);
    drop(db);

    let db = Database::open(dir.path(), Mode::Group).expect("reopen");
    assert_eq!(count(&db, "Kept"), Value::Int(3));
    db.close().expect("close");
}

#[test]
fn read_transactions_carry_no_ticket_and_empty_write_ones_their_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), Mode::Sync).expect("open");
    db.execute("CREATE ()", Map::new()).expect("create");
    let last = db.storage().last_committed();
    let read = db.begin(TxOptions::read()).expect("begin");
    assert_eq!(read.read_horizon(), None);
    assert_eq!(read.commit().expect("commit").ticket, None);
    let write = db.begin(TxOptions::default()).expect("begin");
    assert_eq!(write.read_horizon(), Some(DurabilityTicket(last)));
    let info = write.commit_unacknowledged().expect("commit");
    assert_eq!(info.ticket, Some(DurabilityTicket(last)));

    let memory = Database::open_in_memory(EngineConfig::default());
    let write = memory.begin(TxOptions::default()).expect("begin");
    assert_eq!(write.read_horizon(), None);
}

#[tokio::test]
async fn an_in_memory_commit_is_visible_at_once_and_a_future_one_waits_past_the_callers_timer() {
    let db = Database::open_in_memory(EngineConfig::default());
    db.execute("CREATE ()", Map::new()).expect("create");
    let last = db.storage().last_committed();
    assert!(last > 0);
    db.visible(&Bookmark::new(last)).await.expect("visible");
    db.durable(DurabilityTicket(last))
        .await
        .expect("acknowledged");
    // The wait has no deadline of its own: it is still pending when the caller's timer fires.
    let future = Bookmark::new(last + 10);
    let waited = tokio::time::timeout(Duration::from_millis(30), db.visible(&future)).await;
    assert!(waited.is_err(), "{waited:?}");
}

#[tokio::test]
async fn a_durable_commit_is_acknowledged_and_becomes_visible() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), Mode::Group).expect("open");
    let mut tx = db.begin(TxOptions::auto_commit()).expect("begin");
    let q = tx.run("CREATE ()", Map::new()).expect("run");
    let quiver_engine::PullState::Done(summary) = tx.pull(q, -1, &mut Vec::new()).expect("pull")
    else {
        panic!("one statement, one pull");
    };
    let commit = summary.commit.expect("auto-commit");
    db.durable(commit.ticket.expect("a log is installed"))
        .await
        .expect("durable");
    db.visible(&commit.bookmark).await.expect("visible");
    assert_eq!(db.writes_refused(), None);
}

#[test]
fn a_blocking_visibility_wait_wakes_on_the_advance() {
    let db = Database::open_in_memory(EngineConfig::default());
    db.execute("CREATE ()", Map::new()).expect("create");
    let committed = db.storage().last_committed();
    let far = Instant::now() + Duration::from_secs(5);
    assert_eq!(db.visible_blocking(&Bookmark::new(committed), far), Ok(()));

    db.storage().set_readers_follow_commits(false);
    db.execute("CREATE ()", Map::new()).expect("create");
    let pending = db.storage().last_committed();
    let storage = db.storage();
    let advancer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        storage.advance_visible(pending);
    });
    let started = Instant::now();
    let deadline = started + Duration::from_secs(30);
    assert_eq!(
        db.visible_blocking(&Bookmark::new(pending), deadline),
        Ok(())
    );
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(90), "{waited:?}");
    // Woken by the advance, not by the far deadline (nor by a poll's granularity).
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    advancer.join().expect("advancer");

    let started = Instant::now();
    let short = started + Duration::from_millis(20);
    assert!(matches!(
        db.visible_blocking(&Bookmark::new(pending + 10), short),
        Err(WaitError::BookmarkTimeout { .. })
    ));
    assert!(started.elapsed() >= Duration::from_millis(20));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_async_visibility_wait_wakes_on_the_advance() {
    let db = Database::open_in_memory(EngineConfig::default());
    db.storage().set_readers_follow_commits(false);
    db.execute("CREATE ()", Map::new()).expect("create");
    let pending = db.storage().last_committed();
    let storage = db.storage();
    let advancer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        storage.advance_visible(pending);
    });
    let started = Instant::now();
    tokio::time::timeout(Duration::from_secs(30), db.visible(&Bookmark::new(pending)))
        .await
        .expect("woken before the far timer")
        .expect("visible");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(45), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    advancer.join().expect("advancer");
}

#[test]
fn the_database_asks_the_installed_log() {
    let log = Arc::new(Recording::default());
    let storage = quiver_storage::Storage::new();
    storage.set_commit_log(Some(Arc::clone(&log) as Arc<dyn CommitLog>));
    let db = Database::with_storage(storage, EngineConfig::default());
    let result = db.execute("CREATE ()", Map::new()).expect("create");
    let commit = result.summary.commit.expect("commit").commit;
    assert_eq!(log.last.load(Ordering::SeqCst), commit);

    log.failing.store(true, Ordering::SeqCst);
    let failed = db
        .execute("CREATE ()", Map::new())
        .expect_err("not acknowledged");
    assert_eq!(
        failed.status_code(),
        "Neo.DatabaseError.Transaction.TransactionCommitFailed"
    );
    assert!(failed.to_string().contains("the disk is gone"), "{failed}");
    let error = db
        .durable_blocking(DurabilityTicket(commit))
        .expect_err("failing");
    assert_eq!(error.reason(), "the disk is gone");
    assert_eq!(
        error.to_string(),
        "the commit could not be made durable: the disk is gone"
    );

    assert_eq!(db.writes_refused(), None);
    log.refusing.store(true, Ordering::SeqCst);
    assert!(
        db.writes_refused()
            .is_some_and(|why| why.contains("File too large"))
    );
}

#[test]
fn call_in_transactions_batches_before_a_failure_survive_a_reopen() {
    let dir = tempfile::tempdir().expect("dir");
    let db = Database::open(dir.path(), Mode::Group).expect("open");
    let e = db
        .execute(
            "UNWIND [1, 2, 3, 4, 0, 6] AS i \
             CALL (i) { CREATE (:Batch {v: 12 / i}) } IN TRANSACTIONS OF 2 ROWS",
            Map::new(),
        )
        .expect_err("the third batch divides by zero");
    assert!(e.message().contains("/ by zero"), "{e}");
    drop(db);
    let db = Database::open(dir.path(), Mode::Group).expect("reopen");
    // The two finished batches, and nothing of the failed one.
    assert_eq!(count(&db, "Batch"), Value::Int(4));
}
