//! The process the crash tests kill: writers committing through the durability layer as fast
//! as the mode allows, each printing a line for every commit it was told is done.
//!
//! ```text
//! quiver-crash-writer <dir> <buffered|group|sync> <writers> [flush_interval_ms]
//! stdout:  ready <last recovered commit> <recovery micros>
//!          ack <writer> <seq> <unix micros>        one per acknowledged commit
//! ```
//!
//! Each commit of writer `w` with sequence number `s` writes one transaction:
//! `(:Item {w, s})-[:HAS]->(:Part {w, s, i})` for `i` in 0..2, and sets `last = s` on the
//! writer's own `(:Writer {w})` node. The verifier checks that every transaction is all there
//! or not at all, and that each writer's items form the prefix `1..=last`. Small segments and
//! snapshot thresholds make kills land during segment rolls and snapshots too.

use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use quiver_durability::{Durability, Mode, Options};
use quiver_storage::{LabelId, PropKeyId, RelTypeId, Storage};
use quiver_value::Value;

const PARTS_PER_ITEM: i64 = 2;

#[derive(Clone, Copy)]
struct Tokens {
    writer: LabelId,
    item: LabelId,
    part: LabelId,
    w: PropKeyId,
    s: PropKeyId,
    i: PropKeyId,
    last: PropKeyId,
    has: RelTypeId,
}

fn tokens(db: &Storage) -> quiver_storage::Result<Tokens> {
    Ok(Tokens {
        writer: db.get_or_create_label("Writer")?,
        item: db.get_or_create_label("Item")?,
        part: db.get_or_create_label("Part")?,
        w: db.get_or_create_property_key("w")?,
        s: db.get_or_create_property_key("s")?,
        i: db.get_or_create_property_key("i")?,
        last: db.get_or_create_property_key("last")?,
        has: db.get_or_create_rel_type("HAS")?,
    })
}

fn int(v: Option<Value>) -> i64 {
    v.and_then(|v| v.as_int()).unwrap_or(0)
}

/// Each writer's node and its last committed sequence number, creating missing writers.
fn writer_nodes(
    db: &Arc<Storage>,
    d: &Durability,
    t: Tokens,
    writers: i64,
) -> Result<Vec<(quiver_storage::NodeId, i64)>, String> {
    let read = db.begin_read();
    let mut found = vec![None; writers as usize];
    for n in read.scan_label(t.writer).map_err(|e| e.to_string())? {
        let n = n.map_err(|e| e.to_string())?;
        let w = int(read.node_property(n, t.w).map_err(|e| e.to_string())?);
        let last = int(read.node_property(n, t.last).map_err(|e| e.to_string())?);
        if let Some(slot) = found.get_mut(w as usize) {
            *slot = Some((n, last));
        }
    }
    drop(read);
    if found.iter().any(Option::is_none) {
        let tx = db.begin_write();
        for (w, slot) in found.iter_mut().enumerate() {
            if slot.is_none() {
                let n = tx
                    .create_node(
                        &[t.writer],
                        &[(t.w, Value::Int(w as i64)), (t.last, Value::Int(0))],
                    )
                    .map_err(|e| e.to_string())?;
                *slot = Some((n, 0));
            }
        }
        let info = tx.commit().map_err(|e| e.to_string())?;
        d.wait(&info).map_err(|e| e.to_string())?;
    }
    Ok(found.into_iter().flatten().collect())
}

fn commit_one(
    db: &Arc<Storage>,
    t: Tokens,
    node: quiver_storage::NodeId,
    w: i64,
    s: i64,
) -> quiver_storage::Result<quiver_storage::CommitInfo> {
    let tx = db.begin_write();
    let key = [(t.w, Value::Int(w)), (t.s, Value::Int(s))];
    let item = tx.create_node(&[t.item], &key)?;
    for i in 0..PARTS_PER_ITEM {
        let part = tx.create_node(
            &[t.part],
            &[key[0].clone(), key[1].clone(), (t.i, Value::Int(i))],
        )?;
        tx.create_relationship(item, part, t.has, &[])?;
    }
    tx.set_node_property(node, t.last, Value::Int(s))?;
    tx.commit()
}

fn micros_now() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros())
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: quiver-crash-writer <dir> <buffered|group|sync> <writers> [flush_interval_ms]";
    let dir = args.get(1).ok_or(usage)?;
    let mode: Mode = args
        .get(2)
        .ok_or(usage)?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let writers: i64 = args
        .get(3)
        .ok_or(usage)?
        .parse()
        .map_err(|_| "writers must be a number".to_string())?;
    let flush_ms: u64 = args
        .get(4)
        .map_or(Ok(50), |a| a.parse())
        .map_err(|_| "bad interval".to_string())?;
    let options = Options {
        flush_interval: Duration::from_millis(flush_ms),
        segment_bytes_max: 32 << 10,
        snapshot_log_bytes: 128 << 10,
        snapshot_interval: None,
        snapshot_on_close: false,
        ..Options::default()
    };
    let (db, d) = Durability::open(dir, mode, options).map_err(|e| e.to_string())?;
    let d = Arc::new(d);
    let t = tokens(&db).map_err(|e| e.to_string())?;
    let nodes = writer_nodes(&db, &d, t, writers)?;
    let out = Arc::new(Mutex::new(std::io::stdout()));
    {
        let mut o = out.lock().map_err(|_| "stdout lock poisoned")?;
        writeln!(
            o,
            "ready {} {}",
            d.recovery().last_commit,
            d.recovery().duration.as_micros()
        )
        .and_then(|()| o.flush())
        .map_err(|e| e.to_string())?;
    }
    let handles: Vec<_> = nodes
        .into_iter()
        .enumerate()
        .map(|(w, (node, last))| {
            let (db, d, out) = (db.clone(), d.clone(), out.clone());
            std::thread::spawn(move || -> Result<(), String> {
                let w = w as i64;
                let mut s = last;
                loop {
                    s += 1;
                    let info = loop {
                        match commit_one(&db, t, node, w, s) {
                            Ok(info) => break info,
                            Err(e) if e.is_retryable() => {}
                            Err(e) => return Err(format!("writer {w} commit {s}: {e}")),
                        }
                    };
                    d.wait(&info)
                        .map_err(|e| format!("writer {w} wait {s}: {e}"))?;
                    let mut o = out.lock().map_err(|_| "stdout lock poisoned")?;
                    writeln!(o, "ack {w} {s} {}", micros_now())
                        .and_then(|()| o.flush())
                        .map_err(|e| e.to_string())?;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "writer panicked".to_string())??;
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quiver-crash-writer: {e}");
            ExitCode::from(2)
        }
    }
}
