//! Shared by the durability bench binaries: where data goes, how long to run, and the small
//! write every committer makes.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use quiver_storage::{CommitInfo, Storage};
use quiver_value::Value;

/// A fresh directory on the disk being measured: `QUIVER_BENCH_DIR` if set, else the target
/// directory (not `/tmp`, which may be a memory file system where a sync costs nothing).
pub fn bench_dir(name: &str) -> tempfile::TempDir {
    let base = std::env::var_os("QUIVER_BENCH_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from);
    std::fs::create_dir_all(&base).expect("bench directory");
    tempfile::Builder::new()
        .prefix(name)
        .tempdir_in(base)
        .expect("bench directory")
}

pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// How long each measured round runs (`QUIVER_BENCH_SECS`, default 5).
pub fn round() -> Duration {
    Duration::from_secs(env_u64("QUIVER_BENCH_SECS", 5))
}

/// One small write: a node with two properties.
pub fn small_commit(db: &Arc<Storage>, writer: i64, n: i64) -> quiver_storage::Result<CommitInfo> {
    let label = db.get_or_create_label("Event")?;
    let w = db.get_or_create_property_key("w")?;
    let k = db.get_or_create_property_key("n")?;
    let tx = db.begin_write();
    tx.create_node(&[label], &[(w, Value::Int(writer)), (k, Value::Int(n))])?;
    tx.commit()
}

pub fn per_sec(n: u64, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}
