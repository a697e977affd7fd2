//! Counters for the metrics registry: plain atomics bumped on the log's slow path (once per
//! batch, never per read), copied out as a [`DurabilityStats`] value.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::mode::Mode;
use crate::recovery::RecoveryReport;

/// Upper bounds (inclusive) of the commits-per-fsync buckets; one more bucket holds the rest.
pub const BATCH_BUCKET_BOUNDS: [u64; 11] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024];
const BUCKETS: usize = BATCH_BUCKET_BOUNDS.len() + 1;

#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub fsyncs: AtomicU64,
    pub fsync_micros: AtomicU64,
    batches: [AtomicU64; BUCKETS],
    pub commits_synced: AtomicU64,
    pub log_bytes: AtomicU64,
    pub log_bytes_since_snapshot: AtomicU64,
    pub segments_created: AtomicU64,
    pub segments_removed: AtomicU64,
    pub snapshots: AtomicU64,
    pub snapshot_failures: AtomicU64,
    pub snapshot_last_micros: AtomicU64,
    pub snapshot_last_bytes: AtomicU64,
    pub snapshot_last_commit: AtomicU64,
}

impl Counters {
    pub fn sync_done(&self, elapsed: Duration) {
        self.fsyncs.fetch_add(1, Ordering::Relaxed);
        self.fsync_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    pub fn batch_done(&self, commits: u64, bytes: u64) {
        let bucket = BATCH_BUCKET_BOUNDS
            .iter()
            .position(|&b| commits <= b)
            .unwrap_or(BUCKETS - 1);
        if let Some(b) = self.batches.get(bucket) {
            b.fetch_add(1, Ordering::Relaxed);
        }
        self.commits_synced.fetch_add(commits, Ordering::Relaxed);
        self.log_bytes.fetch_add(bytes, Ordering::Relaxed);
        self.log_bytes_since_snapshot
            .fetch_add(bytes, Ordering::Relaxed);
    }

    fn histogram(&self) -> BatchHistogram {
        let mut buckets = [0; BUCKETS];
        for (out, b) in buckets.iter_mut().zip(&self.batches) {
            *out = b.load(Ordering::Relaxed);
        }
        BatchHistogram {
            buckets,
            count: buckets.iter().sum(),
            sum: self.commits_synced.load(Ordering::Relaxed),
        }
    }
}

/// Commits per synced batch. `buckets[i]` counts batches of at most `BATCH_BUCKET_BOUNDS[i]`
/// commits (and more than the bound before it); the last bucket counts larger batches.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchHistogram {
    pub buckets: [u64; BUCKETS],
    /// Batches synced.
    pub count: u64,
    /// Commits in those batches.
    pub sum: u64,
}

impl BatchHistogram {
    /// Mean commits per batch (0 before the first).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }
}

/// A copy of the durability counters at one moment.
#[derive(Clone, Debug, Default)]
pub struct DurabilityStats {
    pub mode: Mode,
    /// The newest commit handed to the log.
    pub appended_commit: u64,
    /// The newest commit known to be on disk.
    pub durable_commit: u64,
    /// `fsync`/`fdatasync` calls on log segments that completed.
    pub fsyncs: u64,
    pub fsync_micros_total: u64,
    pub commits_per_fsync: BatchHistogram,
    /// Log bytes written since the store was opened.
    pub log_bytes_written: u64,
    /// Log bytes written since the last snapshot (what the next recovery would replay).
    pub log_bytes_since_snapshot: u64,
    pub segments_created: u64,
    pub segments_removed: u64,
    pub snapshots_taken: u64,
    pub snapshot_failures: u64,
    pub snapshot_last_duration_micros: u64,
    pub snapshot_last_bytes: u64,
    pub snapshot_last_commit: u64,
    /// What recovery did when the store was opened.
    pub recovery: RecoveryReport,
    /// The disk fault that stopped writes, if any.
    pub fault: Option<String>,
}

impl DurabilityStats {
    pub(crate) fn collect(
        c: &Counters,
        mode: Mode,
        appended: u64,
        durable: u64,
        recovery: &RecoveryReport,
        fault: Option<String>,
    ) -> Self {
        let r = |a: &AtomicU64| a.load(Ordering::Relaxed);
        DurabilityStats {
            mode,
            appended_commit: appended,
            durable_commit: durable,
            fsyncs: r(&c.fsyncs),
            fsync_micros_total: r(&c.fsync_micros),
            commits_per_fsync: c.histogram(),
            log_bytes_written: r(&c.log_bytes),
            log_bytes_since_snapshot: r(&c.log_bytes_since_snapshot),
            segments_created: r(&c.segments_created),
            segments_removed: r(&c.segments_removed),
            snapshots_taken: r(&c.snapshots),
            snapshot_failures: r(&c.snapshot_failures),
            snapshot_last_duration_micros: r(&c.snapshot_last_micros),
            snapshot_last_bytes: r(&c.snapshot_last_bytes),
            snapshot_last_commit: r(&c.snapshot_last_commit),
            recovery: recovery.clone(),
            fault,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_land_in_their_buckets() {
        let c = Counters::default();
        for n in [1, 2, 3, 1024, 5000] {
            c.batch_done(n, 10);
        }
        let h = c.histogram();
        assert_eq!(h.buckets[0], 1);
        assert_eq!(h.buckets[1], 1);
        assert_eq!(h.buckets[2], 1);
        assert_eq!(h.buckets[10], 1);
        assert_eq!(h.buckets[11], 1);
        assert_eq!((h.count, h.sum), (5, 1 + 2 + 3 + 1024 + 5000));
        assert!((h.mean() - 1206.0).abs() < 1e-9);
        assert_eq!(c.log_bytes.load(Ordering::Relaxed), 50);
    }
}
