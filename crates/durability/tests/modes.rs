//! The three modes end to end: what a committer waits for, what readers see, and that a
//! reopened directory holds every commit that was acknowledged.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::Duration;

use common::{add_person, block_on, expect_err, name_set, names, options};
use quiver_durability::{Durability, Error, Mode, Options};

fn round_trip(mode: Mode) {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), mode, options()).unwrap();
    assert_eq!(d.mode(), mode);
    let mut expected = Vec::new();
    for i in 0..5 {
        let name = format!("p{i}");
        let info = add_person(&db, &name).unwrap();
        d.wait(&info).unwrap();
        if mode.is_durable() {
            assert!(d.durable_watermark() >= info.commit);
        }
        expected.push(name);
        // A committer reads its own acknowledged write.
        assert_eq!(names(&db), name_set(expected.clone()));
    }
    d.close().unwrap();
    let (db, d) = Durability::open(tmp.path(), mode, options()).unwrap();
    assert_eq!(names(&db), name_set(expected));
    assert_eq!(d.recovery().records_replayed, 5);
    assert_eq!(d.recovery().last_commit, 5);
    // New commits continue the numbering.
    let info = add_person(&db, "next").unwrap();
    assert_eq!(info.commit, 6);
}

#[test]
fn buffered_round_trip() {
    round_trip(Mode::Buffered);
}

#[test]
fn group_round_trip() {
    round_trip(Mode::Group);
}

#[test]
fn sync_round_trip() {
    round_trip(Mode::Sync);
}

#[test]
fn buffered_acknowledges_at_once_and_syncs_in_the_background() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        flush_interval: Duration::from_millis(200),
        ..options()
    };
    let (db, d) = Durability::open(tmp.path(), Mode::Buffered, opts).unwrap();
    let info = add_person(&db, "a").unwrap();
    d.wait(&info).unwrap();
    // Readers follow commits in buffered mode, before the disk has it.
    assert_eq!(names(&db), name_set(["a".to_string()]));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while d.durable_watermark() < info.commit {
        assert!(
            std::time::Instant::now() < deadline,
            "background sync never ran"
        );
        thread::sleep(Duration::from_millis(5));
    }
    assert!(d.stats().fsyncs >= 1);
}

#[test]
fn group_readers_never_see_past_the_durable_watermark() {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    let d = Arc::new(d);
    let stop = Arc::new(AtomicBool::new(false));
    let checker = {
        let (db, d, stop) = (db.clone(), d.clone(), stop.clone());
        thread::spawn(move || {
            let mut checks = 0u64;
            // At least one check however late this thread first runs.
            while !stop.load(Ordering::Relaxed) || checks == 0 {
                let tx = db.begin_read();
                // Read the watermark after the snapshot: it only grows.
                assert!(tx.snapshot() <= d.durable_watermark());
                checks += 1;
            }
            checks
        })
    };
    let writers: Vec<_> = (0..8)
        .map(|w| {
            let (db, d) = (db.clone(), d.clone());
            thread::spawn(move || {
                for i in 0..10 {
                    let info = add_person(&db, &format!("w{w}-{i}")).unwrap();
                    d.wait(&info).unwrap();
                    assert!(names(&db).contains(&format!("w{w}-{i}")));
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    assert!(checker.join().unwrap() > 0);
    let stats = d.stats();
    assert_eq!(stats.commits_per_fsync.sum, 80);
    assert_eq!(stats.durable_commit, 80);
    // Eight committers at once share syncs.
    assert!(
        stats.commits_per_fsync.count < 80,
        "no batching: {:?}",
        stats.commits_per_fsync
    );
    assert!(stats.log_bytes_written > 0);
}

#[test]
fn async_wait_resolves_once_durable() {
    for mode in [Mode::Group, Mode::Sync, Mode::Buffered] {
        let tmp = tempfile::tempdir().unwrap();
        let (db, d) = Durability::open(tmp.path(), mode, options()).unwrap();
        for i in 0..3 {
            let info = add_person(&db, &format!("a{i}")).unwrap();
            block_on(d.durable(info.commit)).unwrap();
            if mode.is_durable() {
                assert!(d.durable_watermark() >= info.commit);
                assert!(db.visible_watermark() >= info.commit);
            }
        }
    }
}

#[test]
fn commits_after_close_fail_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    add_person(&db, "a").unwrap();
    d.close().unwrap();
    let err = add_person(&db, "b").unwrap_err();
    assert!(err.to_string().contains("closed"), "{err}");
    // Reads go on.
    assert_eq!(names(&db), name_set(["a".to_string()]));
}

#[test]
fn a_second_open_of_one_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (_db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    let err = expect_err(Durability::open(tmp.path(), Mode::Group, options()));
    assert!(matches!(err, Error::Locked { .. }), "{err}");
    assert!(err.to_string().contains("already in use"), "{err}");
    assert!(matches!(
        expect_err(Durability::inspect(tmp.path())),
        Error::Locked { .. }
    ));
    d.close().unwrap();
    let (_db, _d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
}

#[test]
fn invalid_options_are_refused_before_touching_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("never");
    let opts = Options {
        segment_bytes_max: 1,
        ..options()
    };
    let err = expect_err(Durability::open(&dir, Mode::Group, opts));
    assert!(matches!(err, Error::InvalidOption { .. }), "{err}");
    assert!(!dir.exists());
}

#[test]
fn waiting_on_a_write_transactions_snapshot_covers_what_it_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d) = Durability::open(tmp.path(), Mode::Group, options()).unwrap();
    let info = add_person(&db, "a").unwrap();
    // A write transaction reads the newest commit, durable or not; waiting for its snapshot
    // is what makes its results safe to return.
    let tx = db.begin_write();
    assert_eq!(tx.snapshot(), info.commit);
    d.wait_for(tx.snapshot()).unwrap();
    assert!(d.durable_watermark() >= info.commit);
    let unchanged = tx.commit().unwrap();
    assert!(!unchanged.changed);
    d.wait(&unchanged).unwrap();
}

#[test]
fn group_with_a_gather_window_acknowledges_every_commit() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        group_window: Duration::from_millis(2),
        ..options()
    };
    let (db, d) = Durability::open(tmp.path(), Mode::Group, opts.clone()).unwrap();
    let d = Arc::new(d);
    let writers: Vec<_> = (0..6)
        .map(|w| {
            let (db, d) = (db.clone(), d.clone());
            thread::spawn(move || {
                for i in 0..15 {
                    let info = add_person(&db, &format!("g{w}-{i}")).unwrap();
                    d.wait(&info).unwrap();
                    assert!(d.durable_watermark() >= info.commit);
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    assert_eq!(d.stats().commits_per_fsync.sum, 90);
    drop(d);
    let (db, _d) = Durability::open(tmp.path(), Mode::Group, opts).unwrap();
    assert_eq!(names(&db).len(), 90);
}
