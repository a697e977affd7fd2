//! Threads writing and reading at once: snapshot readers must always see a consistent graph,
//! conflicting writers must fail fast and succeed on retry, and nothing may deadlock.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use quiver_storage::*;
use quiver_value::Value;

/// The accounts of the transfer test and the names its threads use.
#[derive(Clone)]
struct Bank {
    db: Arc<Storage>,
    acct: LabelId,
    bal: PropKeyId,
    moved: RelTypeId,
    ids: Arc<Vec<NodeId>>,
}

impl Bank {
    /// Sixteen accounts of balance 100 each.
    fn open() -> Bank {
        let db = Storage::new();
        let acct = db.get_or_create_label("Account").unwrap();
        let bal = db.get_or_create_property_key("balance").unwrap();
        let moved = db.get_or_create_rel_type("MOVED").unwrap();
        let n_accounts = 16u64;
        let w = db.begin_write();
        let ids: Vec<NodeId> = (0..n_accounts)
            .map(|_| w.create_node(&[acct], &[(bal, Value::Int(100))]).unwrap())
            .collect();
        w.commit().unwrap();
        Bank {
            db,
            acct,
            bal,
            moved,
            ids: Arc::new(ids),
        }
    }

    /// A reader that checks the total in fresh snapshots until `stop`; returns how many checks.
    fn spawn_auditor(&self, stop: &Arc<AtomicBool>) -> thread::JoinHandle<u64> {
        let (bank, stop) = (self.clone(), stop.clone());
        let Bank {
            db,
            acct,
            bal,
            moved,
            ..
        } = bank;
        thread::spawn(move || {
            let mut checks = 0;
            while !stop.load(Ordering::Relaxed) || checks == 0 {
                let r = db.begin_read();
                let mut total = 0;
                let mut n = 0;
                for id in r.scan_label(acct).unwrap() {
                    total += r
                        .node_property(id.unwrap(), bal)
                        .unwrap()
                        .unwrap()
                        .as_int()
                        .unwrap();
                    n += 1;
                }
                assert_eq!((n, total), (16, 1600));
                // Every transfer left one relationship: counts agree with a scan.
                let rels = r.scan_rels(&[moved]).unwrap().count() as u64;
                assert_eq!(r.count_rels_of_type(moved).unwrap(), rels);
                checks += 1;
            }
            checks
        })
    }

    /// A writer that makes 300 transfers between random accounts, retrying conflicts; returns
    /// how many conflicts it met.
    fn spawn_transferrer(&self, t: u64) -> thread::JoinHandle<u64> {
        let Bank {
            db,
            bal,
            moved,
            ids,
            ..
        } = self.clone();
        thread::spawn(move || {
            let mut conflicts = 0;
            let mut seed = t * 7919 + 1;
            let mut done = 0;
            while done < 300 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let a = ids[(seed >> 33) as usize % ids.len()];
                let b = ids[(seed >> 17) as usize % ids.len()];
                if a == b {
                    continue;
                }
                let tx = db.begin_write();
                let step = || -> Result<()> {
                    let va = tx
                        .node_property(a, bal)?
                        .and_then(|v| v.as_int())
                        .unwrap_or(0);
                    let vb = tx
                        .node_property(b, bal)?
                        .and_then(|v| v.as_int())
                        .unwrap_or(0);
                    tx.set_node_property(a, bal, Value::Int(va - 1))?;
                    tx.set_node_property(b, bal, Value::Int(vb + 1))?;
                    tx.create_relationship(a, b, moved, &[])?;
                    Ok(())
                };
                match step() {
                    Ok(()) => {
                        tx.commit().unwrap();
                        done += 1;
                    }
                    Err(e) => {
                        assert!(e.is_retryable(), "{e:?}");
                        tx.rollback().unwrap();
                        conflicts += 1;
                    }
                }
            }
            conflicts
        })
    }
}

/// Garbage collection until `stop` (at least one pass); returns how many passes it made.
fn spawn_collector(db: &Arc<Storage>, stop: &Arc<AtomicBool>) -> thread::JoinHandle<u64> {
    let (db, stop) = (db.clone(), stop.clone());
    thread::spawn(move || {
        let mut passes = 0u64;
        // At least one pass whenever the scheduler starts this thread: the writers may all
        // finish before it first runs.
        while !stop.load(Ordering::Relaxed) || passes == 0 {
            db.gc();
            passes += 1;
            thread::yield_now();
        }
        passes
    })
}

/// Transfers between accounts keep the total constant; every snapshot must see that total.
#[test]
fn transfers_keep_the_total_under_concurrency() {
    let bank = Bank::open();
    let db = bank.db.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2).map(|_| bank.spawn_auditor(&stop)).collect();
    // Garbage collection racing readers and writers must never free what a snapshot needs.
    let collector = spawn_collector(&db, &stop);
    let writers: Vec<_> = (0..3u64).map(|t| bank.spawn_transferrer(t)).collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
    assert!(collector.join().unwrap() > 0);
    let r = db.begin_read();
    assert_eq!(r.count_rels().unwrap(), 900);
    drop(r);
    db.gc();
    assert_eq!(db.stats().live_deltas, 0);
}

/// Creating and detach-deleting around shared hubs from several threads: no deadlock, and the
/// final graph is consistent in both directions.
#[test]
fn relationship_churn_stays_consistent() {
    let db = Storage::new();
    let t = db.get_or_create_rel_type("T").unwrap();
    let w = db.begin_write();
    let hubs: Vec<NodeId> = (0..4).map(|_| w.create_node(&[], &[]).unwrap()).collect();
    w.commit().unwrap();
    let hubs = Arc::new(hubs);
    let handles: Vec<_> = (0..3u64)
        .map(|k| {
            let (db, hubs) = (db.clone(), hubs.clone());
            thread::spawn(move || {
                for i in 0..200u64 {
                    let tx = db.begin_write();
                    let res = (|| -> Result<()> {
                        let n = tx.create_node(&[], &[])?;
                        let h1 = hubs[((i + k) % 4) as usize];
                        let h2 = hubs[((i * 3 + k) % 4) as usize];
                        tx.create_relationship(n, h1, t, &[])?;
                        tx.create_relationship(h2, n, t, &[])?;
                        if i % 3 == 0 {
                            tx.detach_delete_node(n)?;
                        }
                        Ok(())
                    })();
                    match res {
                        Ok(()) => {
                            tx.commit().unwrap();
                        }
                        Err(e) => {
                            assert!(e.is_retryable(), "{e:?}");
                            tx.rollback().unwrap();
                        }
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let r = db.begin_read();
    let mut out_total = 0;
    let mut in_total = 0;
    for n in r.scan_nodes().unwrap() {
        let n = n.unwrap();
        for (rel, other) in r.expand(n, Direction::Out, &[]).unwrap() {
            let (s, e, _) = r.rel_endpoints(rel).unwrap();
            assert_eq!((s, e), (n, other));
            out_total += 1;
        }
        in_total += r.degree(n, Direction::In, &[]).unwrap();
    }
    assert_eq!(out_total, in_total);
    assert_eq!(out_total as u64, r.count_rels().unwrap());
}
