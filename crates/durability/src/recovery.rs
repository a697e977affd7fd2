//! Recovery: the newest valid snapshot, then every later log record, in commit order.
//!
//! The log is trusted only as far as its checksums and commit numbers agree. Damage at the
//! very end of the newest segment is what a crash mid-write leaves (a torn tail): it is cut
//! off and reported. Damage anywhere else, or a gap in the commit numbers, means the files
//! are not what Quiver wrote, and recovery refuses to start rather than silently lose the
//! commits after it; the error names the file and the byte offset.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_storage::{RedoOp, RedoRecord, RedoRecordRef, ReplaySplit, ReplayStopped, Storage};

use crate::disk::Disk;
use crate::error::{Error, Result};
use crate::frame::{SEGMENT_HEADER_BYTES, find_later_frame, read_frame, read_segment_header};
use crate::layout::{self, Listing};
use crate::snapshot;

/// Records replayed as one run (see `Storage::apply_redo_run_unobserved`): the more a run
/// holds, the denser its sweep over the nodes it changes, each visited once for all its work
/// in the run; the decoded records (their ops' vectors) take a few tens of MiB.
const RUN_RECORDS_MAX: usize = 65_536;

/// Most threads a run of records is replayed on: past this the memory system, not the
/// cores, bounds the random visits to nodes a replay makes.
const REPLAY_THREADS_MAX: usize = 8;

/// The cut made at a torn tail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    pub path: PathBuf,
    /// Where the damaged record began: the file's new length.
    pub offset: u64,
    pub bytes_cut: u64,
    pub reason: String,
}

/// What recovery did, for the log and for metrics.
#[derive(Clone, Debug, Default)]
pub struct RecoveryReport {
    pub snapshot: Option<PathBuf>,
    pub snapshot_commit: u64,
    pub snapshot_ops: u64,
    /// The loaded snapshot's size and what it held.
    pub snapshot_bytes: u64,
    pub snapshot_nodes: u64,
    pub snapshot_relationships: u64,
    /// Time spent reading and applying the snapshot (the rest of `duration` is the log).
    pub snapshot_load: Duration,
    /// Newer snapshots that failed their checks and were passed over.
    pub snapshots_rejected: Vec<String>,
    pub segments_read: usize,
    pub log_bytes_read: u64,
    /// Log bytes holding records newer than the snapshot.
    pub log_bytes_replayed: u64,
    pub records_replayed: u64,
    /// Records the snapshot already covered.
    pub records_skipped: u64,
    /// Schema records whose change the snapshot already held (see `snapshot`).
    pub schema_records_absorbed: u64,
    pub torn_tail: Option<TornTail>,
    /// Leftovers removed: unfinished snapshots and segments with no intact record.
    pub removed: Vec<PathBuf>,
    pub last_commit: u64,
    pub duration: Duration,
}

impl std::fmt::Display for RecoveryReport {
    /// One readable line: what was loaded and replayed, how long each phase took, and what
    /// was cut or passed over.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.snapshot {
            Some(path) => write!(
                f,
                "snapshot {} (commit {}, {:.1} MiB) loaded in {:.1} s",
                path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into()
                ),
                self.snapshot_commit,
                snapshot::mib(self.snapshot_bytes),
                self.snapshot_load.as_secs_f64()
            )?,
            None => f.write_str("no snapshot")?,
        }
        write!(
            f,
            "; {} log records ({:.1} MiB) replayed in {:.1} s; at commit {}, {:.1} s in all",
            self.records_replayed,
            snapshot::mib(self.log_bytes_replayed),
            self.duration
                .saturating_sub(self.snapshot_load)
                .as_secs_f64(),
            self.last_commit,
            self.duration.as_secs_f64()
        )?;
        if let Some(t) = &self.torn_tail {
            write!(
                f,
                "; torn tail of {} bytes cut from {} at byte {} ({})",
                t.bytes_cut,
                t.path.display(),
                t.offset,
                t.reason
            )?;
        }
        if !self.snapshots_rejected.is_empty() {
            write!(f, "; {} snapshots rejected", self.snapshots_rejected.len())?;
        }
        if !self.removed.is_empty() {
            write!(f, "; {} leftover files removed", self.removed.len())?;
        }
        Ok(())
    }
}

/// Rebuilds the store from `dir`. With `write`, leftovers are removed, a torn tail is cut and
/// the newest segment is synced (its bytes may so far live only in the page cache of a
/// process that was killed); without, the directory is left exactly as found.
pub(crate) fn recover(
    disk: &dyn Disk,
    dir: &Path,
    write: bool,
    record_bytes_max: usize,
) -> Result<(Arc<Storage>, RecoveryReport)> {
    let started = Instant::now();
    let mut report = RecoveryReport::default();
    let listing = layout::list(disk, dir)?;
    if write {
        for tmp in &listing.temps {
            disk.remove(tmp).map_err(|e| Error::io(tmp, e))?;
            report.removed.push(tmp.clone());
        }
    }
    let (storage, loaded, rejected) = load_newest_snapshot(disk, &listing, &mut report);
    report.snapshot_load = started.elapsed();
    if let Some(path) = &report.snapshot {
        tracing::info!(
            "snapshot loaded: {} ({:.1} MiB, {} nodes, {} relationships, commit {}) in {:.1} s, {:.0} MiB/s",
            path.display(),
            snapshot::mib(report.snapshot_bytes),
            report.snapshot_nodes,
            report.snapshot_relationships,
            report.snapshot_commit,
            report.snapshot_load.as_secs_f64(),
            snapshot::mib(report.snapshot_bytes) / report.snapshot_load.as_secs_f64().max(1e-9),
        );
    }
    let replay_started = Instant::now();
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .clamp(1, REPLAY_THREADS_MAX);
    let result = Replay {
        disk,
        next: storage.last_committed() + 1,
        storage: &storage,
        threads,
        write,
        record_bytes_max,
        snapshot_commit: loaded.commit,
        schema_bound: loaded.schema_bound,
        report: &mut report,
        started: replay_started,
        last_progress: replay_started,
    }
    .run(&listing);
    if let Err(e) = result {
        // A gap right after a rejected snapshot is that snapshot's fault: name it instead.
        return Err(match (e, rejected) {
            (Error::Corrupt { reason, .. }, Some(first)) if reason.contains("missing") => first,
            (e, _) => e,
        });
    }
    if write {
        disk.sync_dir(dir).map_err(|e| Error::io(dir, e))?;
    }
    storage.gc();
    report.last_commit = storage.last_committed();
    report.duration = started.elapsed();
    if report.records_replayed > 0 {
        let secs = replay_started.elapsed().as_secs_f64();
        tracing::info!(
            "log replayed: {} records ({:.1} MiB) up to commit {} in {:.1} s, {:.0} records/s",
            report.records_replayed,
            snapshot::mib(report.log_bytes_replayed),
            report.last_commit,
            secs,
            report.records_replayed as f64 / secs.max(1e-9),
        );
    }
    tracing::info!("recovered {}: {report}", dir.display());
    Ok((storage, report))
}

/// Loads the newest snapshot that passes its checks into a fresh store. Returns the error of
/// the first (newest) rejected snapshot, if any.
fn load_newest_snapshot(
    disk: &dyn Disk,
    listing: &Listing,
    report: &mut RecoveryReport,
) -> (Arc<Storage>, snapshot::Loaded, Option<Error>) {
    let mut first_error = None;
    for (commit, path) in listing.snapshots.iter().rev() {
        let storage = Storage::new();
        match snapshot::load(disk, path, &storage) {
            Ok(loaded) if loaded.commit == *commit => {
                report.snapshot = Some(path.clone());
                report.snapshot_commit = loaded.commit;
                report.snapshot_ops = loaded.ops;
                report.snapshot_bytes = loaded.bytes;
                report.snapshot_nodes = loaded.nodes;
                report.snapshot_relationships = loaded.relationships;
                return (storage, loaded, first_error);
            }
            Ok(_) => {
                let e = Error::corrupt(path, 16, "commit does not match the file name");
                report.snapshots_rejected.push(e.to_string());
                first_error.get_or_insert(e);
            }
            Err(e) => {
                tracing::warn!(error = %e, "snapshot rejected");
                report.snapshots_rejected.push(e.to_string());
                first_error.get_or_insert(e);
            }
        }
    }
    (Storage::new(), snapshot::Loaded::default(), first_error)
}

/// Records decoded and not yet replayed, with their frames' offsets in the segment.
#[derive(Default)]
struct Run<'b> {
    records: Vec<RedoRecordRef<'b>>,
    offsets: Vec<u64>,
}

struct Replay<'a> {
    disk: &'a dyn Disk,
    storage: &'a Arc<Storage>,
    /// Threads a run of records is replayed on.
    threads: usize,
    /// The commit the next record must carry: records are replayed in runs, so the store's
    /// own last commit lags behind the records read.
    next: u64,
    write: bool,
    record_bytes_max: usize,
    snapshot_commit: u64,
    schema_bound: u64,
    report: &'a mut RecoveryReport,
    started: Instant,
    /// When progress was last logged.
    last_progress: Instant,
}

impl Replay<'_> {
    fn run(&mut self, listing: &Listing) -> Result<()> {
        let n = listing.segments.len();
        for (i, (base, path)) in listing.segments.iter().enumerate() {
            let last = i + 1 == n;
            // Every record of a segment precedes the next segment's base.
            let covered = listing
                .segments
                .get(i + 1)
                .is_some_and(|(next, _)| *next <= self.snapshot_commit + 1);
            if covered {
                continue;
            }
            self.segment(*base, path, last)?;
        }
        Ok(())
    }

    fn next_commit(&self) -> u64 {
        self.next
    }

    fn segment(&mut self, base: u64, path: &Path, last: bool) -> Result<()> {
        let bytes = self.disk.read(path).map_err(|e| Error::io(path, e))?;
        self.report.segments_read += 1;
        self.report.log_bytes_read += bytes.len() as u64;
        match read_segment_header(&bytes) {
            Ok(b) if b == base => {}
            Ok(_) => {
                return Err(Error::corrupt(
                    path,
                    16,
                    "base commit does not match the file name",
                ));
            }
            Err(reason) => {
                let later = find_later_frame(&bytes, 0, self.next_commit(), self.record_bytes_max);
                if !last || later.is_some() {
                    return Err(Error::corrupt(path, 0, reason));
                }
                // A crash while the segment was being created: it never held a record.
                return self.remove_empty(path, bytes.len() as u64, Some(reason));
            }
        }
        let mut at = SEGMENT_HEADER_BYTES;
        let mut prev: Option<u64> = None;
        let mut replayed_from = None;
        let mut run = Run::default();
        while at < bytes.len() {
            let frame = match read_frame(&bytes, at, self.record_bytes_max) {
                Ok(f) => f,
                Err(fe) => {
                    // Everything before the damage is replayed first (a torn tail keeps it).
                    self.replay_run(&mut run, path)?;
                    let later =
                        find_later_frame(&bytes, at, self.next_commit(), self.record_bytes_max);
                    if !last {
                        return Err(Error::corrupt(path, at as u64, fe.reason()));
                    }
                    if let Some(good) = later {
                        return Err(Error::corrupt(
                            path,
                            at as u64,
                            format!(
                                "{}, with an intact record at byte {good} after it: not a torn tail",
                                fe.reason()
                            ),
                        ));
                    }
                    return self.cut_tail(path, at, bytes.len(), fe.reason(), prev.is_none());
                }
            };
            let commit = frame.commit;
            let expected = prev.map_or(base, |p| p + 1);
            if commit != expected {
                return Err(Error::corrupt(
                    path,
                    at as u64,
                    format!("commit {commit} where {expected} was expected"),
                ));
            }
            prev = Some(commit);
            if commit <= self.snapshot_commit {
                self.report.records_skipped += 1;
                at = frame.next;
                continue;
            }
            if commit != self.next_commit() {
                return Err(Error::corrupt(
                    path,
                    at as u64,
                    format!(
                        "the log is missing commits {} to {}",
                        self.next_commit(),
                        commit - 1
                    ),
                ));
            }
            let (record, used) = RedoRecordRef::decode(frame.body)
                .map_err(|e| Error::corrupt(path, at as u64, format!("undecodable record: {e}")))?;
            if used != frame.body.len() || record.commit != commit {
                return Err(Error::corrupt(
                    path,
                    at as u64,
                    "record does not match its frame",
                ));
            }
            self.queue(&mut run, record, at as u64, path)?;
            replayed_from.get_or_insert(at);
            at = frame.next;
        }
        self.replay_run(&mut run, path)?;
        if let Some(from) = replayed_from {
            self.report.log_bytes_replayed += (bytes.len() - from) as u64;
        }
        if prev.is_none() && last {
            return self.remove_empty(path, bytes.len() as u64, None);
        }
        if last && self.write {
            // Recovered records count as durable from now on: make sure they are.
            self.disk
                .truncate(path, bytes.len() as u64)
                .map_err(|e| Error::io(path, e))?;
        }
        Ok(())
    }

    /// Adds a checked record (its frame at `offset`) to `run`, replaying the run once full.
    fn queue<'b>(
        &mut self,
        run: &mut Run<'b>,
        record: RedoRecordRef<'b>,
        offset: u64,
        path: &Path,
    ) -> Result<()> {
        self.next = record.commit + 1;
        run.records.push(record);
        run.offsets.push(offset);
        if run.records.len() >= RUN_RECORDS_MAX {
            self.replay_run(run, path)?;
        }
        Ok(())
    }

    /// Replays a run of decoded records (each with its frame's offset) and empties it. A
    /// schema record the snapshot already holds is absorbed and the run goes on after it.
    fn replay_run(&mut self, run: &mut Run<'_>, path: &Path) -> Result<()> {
        let Run { records, offsets } = run;
        let mut from = 0;
        while from < records.len() {
            let rest = records.get(from..).unwrap_or_default();
            let Err(ReplayStopped { record, error }) = self
                .storage
                .apply_redo_run_unobserved(rest, ReplaySplit::threads(self.threads))
            else {
                self.replayed(rest.len() as u64, records.last(), path);
                break;
            };
            // Every record before the one that stopped is applied.
            self.replayed(record as u64, None, path);
            let at = from + record;
            let Some(stopped) = records.get(at) else {
                return Err(Error::corrupt(path, 0, "a replay stopped past its run"));
            };
            let offset = offsets.get(at).copied().unwrap_or(0);
            self.absorb(stopped, error, path, offset)?;
            from = at + 1;
        }
        records.clear();
        offsets.clear();
        Ok(())
    }

    /// Counts `n` records replayed, logging progress now and then.
    fn replayed(&mut self, n: u64, last: Option<&RedoRecordRef<'_>>, path: &Path) {
        self.report.records_replayed += n;
        if self.last_progress.elapsed() >= snapshot::PROGRESS_INTERVAL {
            self.last_progress = Instant::now();
            let secs = self.started.elapsed().as_secs_f64();
            tracing::info!(
                "log replay: {} records replayed, at commit {} in {}, {:.0} records/s",
                self.report.records_replayed,
                last.map_or(0, |r| r.commit),
                path.display(),
                self.report.records_replayed as f64 / secs.max(1e-9),
            );
        }
    }

    /// A record the replay stopped at with `source`: absorbed when it is a schema change the
    /// snapshot already holds, else the error that ends recovery.
    fn absorb(
        &mut self,
        record: &RedoRecordRef<'_>,
        source: quiver_storage::Error,
        path: &Path,
        offset: u64,
    ) -> Result<()> {
        let commit = record.commit;
        let replay_error = |source| Error::Replay {
            path: path.to_path_buf(),
            offset,
            commit,
            source,
        };
        match source {
            quiver_storage::Error::SchemaRuleExists { .. }
            | quiver_storage::Error::SchemaRuleNotFound { .. }
                if commit <= self.schema_bound && record.changes_schema_only() =>
            {
                // The snapshot already holds this schema change; keep the commit number
                // and its time.
                let time = record
                    .commit_time()
                    .map(|micros| RedoOp::CommitTime { micros });
                self.storage
                    .apply_redo(&RedoRecord {
                        commit,
                        ops: time.into_iter().collect(),
                    })
                    .map_err(replay_error)?;
                self.report.schema_records_absorbed += 1;
                Ok(())
            }
            source => Err(replay_error(source)),
        }
    }

    fn cut_tail(
        &mut self,
        path: &Path,
        at: usize,
        len: usize,
        reason: &str,
        empty: bool,
    ) -> Result<()> {
        tracing::warn!(
            file = %path.display(),
            offset = at,
            bytes_cut = len - at,
            reason,
            "torn record at the end of the log cut off"
        );
        self.report.torn_tail = Some(TornTail {
            path: path.to_path_buf(),
            offset: at as u64,
            bytes_cut: (len - at) as u64,
            reason: reason.to_string(),
        });
        if empty {
            return self.remove_empty(path, len as u64, None);
        }
        if self.write {
            self.disk
                .truncate(path, at as u64)
                .map_err(|e| Error::io(path, e))?;
        }
        Ok(())
    }

    /// Removes a newest segment that holds no intact record, so the log writer can start a
    /// segment of that name afresh. `torn_header` says why its header is unusable, if it is.
    fn remove_empty(&mut self, path: &Path, len: u64, torn_header: Option<&str>) -> Result<()> {
        if let Some(reason) = torn_header {
            tracing::warn!(file = %path.display(), reason, "torn log segment header");
            self.report.torn_tail = Some(TornTail {
                path: path.to_path_buf(),
                offset: 0,
                bytes_cut: len,
                reason: reason.to_string(),
            });
        }
        if self.write {
            self.disk.remove(path).map_err(|e| Error::io(path, e))?;
            self.report.removed.push(path.to_path_buf());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::RealDisk;
    use quiver_storage::RedoOp;

    fn create_index(commit: u64) -> RedoRecord {
        RedoRecord {
            commit,
            ops: vec![RedoOp::CreateIndex {
                name: "i".into(),
                label: "L".into(),
                key: "k".into(),
            }],
        }
    }

    fn replay<'a>(
        storage: &'a Arc<Storage>,
        report: &'a mut RecoveryReport,
        snapshot_commit: u64,
        schema_bound: u64,
    ) -> Replay<'a> {
        Replay {
            disk: &RealDisk,
            storage,
            threads: 2,
            next: storage.last_committed() + 1,
            write: false,
            record_bytes_max: 1 << 20,
            snapshot_commit,
            schema_bound,
            report,
            started: Instant::now(),
            last_progress: Instant::now(),
        }
    }

    #[test]
    fn a_schema_change_the_snapshot_already_holds_is_absorbed_within_the_bound() {
        // The snapshot (commit 1) already shows the index that commit 2 created.
        let storage = Storage::new();
        storage.apply_redo(&create_index(1)).unwrap();
        let mut report = RecoveryReport::default();
        let mut r = replay(&storage, &mut report, 1, 2);
        let bytes = create_index(2).encode();
        let record = RedoRecordRef::decode(&bytes).unwrap().0;
        let mut run = Run {
            records: vec![record],
            offsets: vec![32],
        };
        r.replay_run(&mut run, Path::new("seg")).unwrap();
        assert_eq!(storage.last_committed(), 2, "the commit number is kept");
        assert_eq!(report.schema_records_absorbed, 1);
    }

    #[test]
    fn a_conflicting_schema_record_beyond_the_bound_is_a_replay_error() {
        let storage = Storage::new();
        storage.apply_redo(&create_index(1)).unwrap();
        let mut report = RecoveryReport::default();
        let mut r = replay(&storage, &mut report, 1, 1);
        let bytes = create_index(2).encode();
        let record = RedoRecordRef::decode(&bytes).unwrap().0;
        let mut run = Run {
            records: vec![record],
            offsets: vec![32],
        };
        let err = r.replay_run(&mut run, Path::new("seg")).unwrap_err();
        assert!(
            matches!(
                err,
                Error::Replay {
                    commit: 2,
                    offset: 32,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(storage.last_committed(), 1);
    }
}
