//! Helpers shared by the integration tests: small options, a tiny graph workload, and a
//! minimal executor for the async wait.

#![allow(dead_code)]

use std::collections::BTreeSet;
use std::future::Future;
use std::path::Path;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use quiver_durability::{FRAME_HEADER_BYTES, Options, SEGMENT_HEADER_BYTES};
use quiver_storage::{CommitInfo, Storage};
use quiver_value::Value;

/// Fast intervals and no background snapshots, so each test decides when one happens.
pub fn options() -> Options {
    Options {
        flush_interval: Duration::from_millis(10),
        snapshot_background: false,
        snapshot_on_close: false,
        ..Options::default()
    }
}

/// Commits one `:Person {name}` node.
pub fn add_person(db: &Arc<Storage>, name: &str) -> quiver_storage::Result<CommitInfo> {
    let person = db.get_or_create_label("Person")?;
    let key = db.get_or_create_property_key("name")?;
    let tx = db.begin_write();
    tx.create_node(&[person], &[(key, Value::from(name))])?;
    tx.commit()
}

/// The names of every `:Person` a new reader sees.
pub fn names(db: &Arc<Storage>) -> BTreeSet<String> {
    let (Some(person), Some(key)) = (db.label_id("Person"), db.property_key_id("name")) else {
        return BTreeSet::new();
    };
    let tx = db.begin_read();
    tx.scan_label(person)
        .unwrap()
        .map(|n| match tx.node_property(n.unwrap(), key).unwrap() {
            Some(Value::String(s)) => s.to_string(),
            other => panic!("unexpected name {other:?}"),
        })
        .collect()
}

pub fn name_set(names: impl IntoIterator<Item = String>) -> BTreeSet<String> {
    names.into_iter().collect()
}

struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Drives a future on the current thread (enough for the durability future, which needs no
/// reactor).
pub fn block_on<F: Future>(f: F) -> F::Output {
    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park_timeout(Duration::from_millis(100));
    }
}

/// The byte offsets of the frames in a segment file, found by walking their lengths.
pub fn frame_offsets(path: &Path) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    let mut at = SEGMENT_HEADER_BYTES;
    let mut out = Vec::new();
    while at + FRAME_HEADER_BYTES <= bytes.len() {
        out.push(at);
        let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        at += FRAME_HEADER_BYTES + len;
    }
    out
}

/// The log segments in `dir`, oldest first.
pub fn segments(dir: &Path) -> Vec<std::path::PathBuf> {
    files_named(dir, quiver_durability::parse_segment_name)
}

/// The snapshots in `dir`, by name.
pub fn snapshots(dir: &Path) -> Vec<std::path::PathBuf> {
    files_named(dir, quiver_durability::parse_snapshot_name)
}

/// The files in `dir` whose names `parse` accepts, sorted by name.
fn files_named<T>(dir: &Path, parse: impl Fn(&str) -> Option<T>) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .and_then(&parse)
                .is_some()
        })
        .collect();
    out.sort();
    out
}

/// The error of a call expected to fail (the store is not `Debug`, so `unwrap_err` is out).
pub fn expect_err<T>(r: Result<T, quiver_durability::Error>) -> quiver_durability::Error {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

/// Inspects a directory that must recover.
pub fn inspect(dir: &Path) -> (Arc<Storage>, quiver_durability::RecoveryReport) {
    match quiver_durability::Durability::inspect(dir) {
        Ok(r) => r,
        Err(e) => panic!("inspect failed: {e}"),
    }
}
