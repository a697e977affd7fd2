//! Disk faults through the storage seam: a failed write, a failed sync or a full disk stops
//! writes with a clear error, reads go on, no failed commit is acknowledged, and the log
//! still recovers with every acknowledged commit in it.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::thread;

use common::{add_person, inspect, names, options, segments, snapshots};
use quiver_durability::fault::{FaultPlan, FaultyDisk};
use quiver_durability::{Durability, Error, Mode, Options};

fn open_faulty(
    dir: &std::path::Path,
    mode: Mode,
    opts: Options,
) -> (Arc<quiver_storage::Storage>, Durability, Arc<FaultPlan>) {
    let plan = FaultPlan::new(".qlog");
    let (db, d) =
        Durability::open_on(dir, mode, opts, Arc::new(FaultyDisk::new(plan.clone()))).unwrap();
    (db, d, plan)
}

/// Commits `name` and reports whether it was acknowledged (committed and durable).
fn commit(db: &Arc<quiver_storage::Storage>, d: &Durability, name: &str) -> Result<(), String> {
    let info = add_person(db, name).map_err(|e| e.to_string())?;
    d.wait(&info).map_err(|e| e.to_string())
}

/// Reopens on the real disk: every acknowledged name must be there, nothing unknown may be.
fn check_recovered(
    dir: &std::path::Path,
    acked: &BTreeSet<String>,
    attempted: &BTreeSet<String>,
    torn: bool,
) {
    let (db, d) = Durability::open(dir, Mode::Group, options()).unwrap();
    assert_eq!(d.recovery().torn_tail.is_some(), torn, "{:?}", d.recovery());
    let got = names(&db);
    for a in acked {
        assert!(got.contains(a), "acknowledged {a} lost; recovered {got:?}");
    }
    for g in &got {
        assert!(attempted.contains(g), "{g} was never written");
    }
    // The recovered log takes new writes.
    commit(&db, &d, "after-restart").unwrap();
}

fn fault_scenario(mode: Mode, torn: bool, inject: impl Fn(&FaultPlan)) {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d, plan) = open_faulty(tmp.path(), mode, options());
    let mut acked = BTreeSet::new();
    let mut attempted = BTreeSet::new();
    for i in 0..3 {
        let name = format!("ok{i}");
        attempted.insert(name.clone());
        commit(&db, &d, &name).unwrap();
        acked.insert(name);
    }
    // Make sure the good commits are on disk before the fault (buffered acknowledges early).
    d.sync().unwrap();
    let synced = d.durable_watermark();
    inject(&plan);
    attempted.insert("doomed".to_string());
    let first = commit(&db, &d, "doomed");
    if mode.is_durable() {
        let err = first.unwrap_err();
        assert!(err.contains("disk fault"), "{err}");
    } else {
        // Buffered acknowledged it before the disk was involved; the fault shows on the
        // background flush.
        first.unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while d.fault().is_none() {
            assert!(std::time::Instant::now() < deadline, "fault never surfaced");
            thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    assert!(d.fault().is_some());
    assert_eq!(
        d.durable_watermark(),
        synced,
        "a failed sync must not advance the watermark"
    );
    // Every later write is refused at commit, with the cause in the message.
    let err = add_person(&db, "refused").unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("refused") && text.contains("disk fault"),
        "{text}"
    );
    // Reads continue, and show no failed commit in the durable modes.
    let seen = names(&db);
    for a in &acked {
        assert!(seen.contains(a));
    }
    if mode.is_durable() {
        assert!(!seen.contains("doomed"));
    }
    assert!(d.stats().fault.is_some());
    assert!(matches!(d.close(), Err(Error::Faulted(_))));
    check_recovered(tmp.path(), &acked, &attempted, torn);
}

#[test]
fn a_failed_fsync_stops_writes_in_every_mode() {
    for mode in [Mode::Sync, Mode::Group, Mode::Buffered] {
        fault_scenario(mode, false, |p| p.fail_syncs(true));
    }
}

#[test]
fn a_failed_write_stops_writes_in_every_mode() {
    for mode in [Mode::Sync, Mode::Group, Mode::Buffered] {
        fault_scenario(mode, false, |p| p.fail_writes(true));
    }
}

#[test]
fn a_full_disk_stops_writes_and_leaves_a_recoverable_log() {
    for mode in [Mode::Sync, Mode::Group, Mode::Buffered] {
        // Room for part of one record: the write is torn, then cut back.
        fault_scenario(mode, false, |p| p.set_space_bytes(20));
    }
}

#[test]
fn a_torn_write_that_cannot_be_cut_back_is_cut_by_recovery() {
    fault_scenario(Mode::Sync, true, |p| {
        p.set_space_bytes(30);
        p.fail_truncates(true);
    });
}

#[test]
fn concurrent_committers_never_hear_done_for_a_lost_commit() {
    for mode in [Mode::Group, Mode::Sync] {
        let tmp = tempfile::tempdir().unwrap();
        let (db, d, plan) = open_faulty(tmp.path(), mode, options());
        let d = Arc::new(d);
        let acked = Arc::new(Mutex::new(BTreeSet::new()));
        let attempted = Arc::new(Mutex::new(BTreeSet::new()));
        let writers: Vec<_> = (0..8)
            .map(|w| {
                let (db, d, acked, attempted, plan) = (
                    db.clone(),
                    d.clone(),
                    acked.clone(),
                    attempted.clone(),
                    plan.clone(),
                );
                thread::spawn(move || {
                    for i in 0..40 {
                        if w == 0 && i == 10 {
                            plan.fail_syncs(true);
                        }
                        let name = format!("w{w}-{i}");
                        attempted.lock().unwrap().insert(name.clone());
                        if commit(&db, &d, &name).is_ok() {
                            acked.lock().unwrap().insert(name);
                        }
                    }
                })
            })
            .collect();
        for w in writers {
            w.join().unwrap();
        }
        assert!(d.fault().is_some());
        let acked = acked.lock().unwrap().clone();
        let attempted = attempted.lock().unwrap().clone();
        assert!(acked.len() < attempted.len());
        // Readers saw exactly the durable prefix.
        let seen = names(&db);
        for a in &acked {
            assert!(seen.contains(a));
        }
        assert!(seen.len() as u64 <= d.durable_watermark());
        drop(d);
        check_recovered(tmp.path(), &acked, &attempted, false);
    }
}

#[test]
fn a_failed_snapshot_leaves_the_log_and_writes_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let plan = FaultPlan::new(".tmp");
    let opts = Options {
        snapshot_on_close: true,
        ..options()
    };
    let (db, d) = Durability::open_on(
        tmp.path(),
        Mode::Group,
        opts.clone(),
        Arc::new(FaultyDisk::new(plan.clone())),
    )
    .unwrap();
    commit(&db, &d, "a").unwrap();
    plan.fail_syncs(true);
    let err = d.snapshot().unwrap_err();
    assert!(err.to_string().contains("injected"), "{err}");
    assert_eq!(d.stats().snapshot_failures, 1);
    assert!(snapshots(tmp.path()).is_empty());
    let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // The log is untouched and writes go on.
    commit(&db, &d, "b").unwrap();
    assert!(d.fault().is_none());
    plan.fail_syncs(false);
    d.close().unwrap();
    assert_eq!(snapshots(tmp.path()).len(), 1);
    assert_eq!(segments(tmp.path()).len(), 1);
    let (db, _d) = Durability::open(tmp.path(), Mode::Group, opts).unwrap();
    assert_eq!(names(&db).len(), 2);
}

#[test]
fn a_fault_while_creating_a_segment_leaves_a_startable_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let opts = Options {
        segment_bytes_max: 4096,
        ..options()
    };
    let (db, d, plan) = open_faulty(tmp.path(), Mode::Sync, opts.clone());
    let pad = "q".repeat(1500);
    let mut acked = BTreeSet::new();
    let mut attempted = BTreeSet::new();
    for i in 0..3 {
        let name = format!("{i}{pad}");
        attempted.insert(name.clone());
        commit(&db, &d, &name).unwrap();
        acked.insert(name);
    }
    // The next batch needs a new segment; its header write fails halfway.
    plan.set_space_bytes(10);
    let name = format!("x{pad}");
    attempted.insert(name.clone());
    let err = commit(&db, &d, &name).unwrap_err();
    assert!(err.contains("disk fault"), "{err}");
    drop(d);
    // The half-created segment holds no record: inspection passes over it, recovery removes it.
    let (db, report) = inspect(tmp.path());
    assert_eq!(names(&db).len(), 3);
    assert!(report.torn_tail.is_some(), "{report:?}");
    check_recovered(tmp.path(), &acked, &attempted, true);
}

/// Drives a future on this thread, parked between polls (the log's futures need no runtime).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Unpark(thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        thread::park();
    }
}

#[test]
fn the_commit_log_seam_acknowledges_and_then_names_the_fault() {
    let tmp = tempfile::tempdir().unwrap();
    let (db, d, plan) = open_faulty(tmp.path(), Mode::Group, options());
    let log = db
        .commit_log()
        .expect("the durability layer installs its log");
    let info = add_person(&db, "kept").unwrap();
    let ticket = info.ticket.expect("a logged commit has a ticket");
    assert_eq!(ticket.0, info.commit);
    assert_eq!(log.wait(ticket), Ok(()));
    assert_eq!(block_on(Arc::clone(&log).wait_async(ticket)), Ok(()));
    assert!(d.durable_watermark() >= info.commit);
    assert!(db.visible_watermark() >= info.commit);
    assert_eq!(log.writes_refused(), None);

    plan.fail_syncs(true);
    let doomed = add_person(&db, "doomed").unwrap();
    let ticket = doomed.ticket.expect("appended before the disk failed");
    let Err(quiver_storage::LogError::Failed(reason)) = log.wait(ticket) else {
        panic!("a commit whose sync failed was acknowledged");
    };
    assert!(reason.contains("disk fault"), "{reason}");
    assert!(block_on(Arc::clone(&log).wait_async(ticket)).is_err());
    let refused = log.writes_refused().expect("writes are refused");
    assert!(refused.contains("disk fault"), "{refused}");
    assert!(db.visible_watermark() < doomed.commit);
    drop(d);
}
