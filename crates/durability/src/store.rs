//! [`Durability`]: opens a data directory, recovers it, and keeps the store durable while it
//! runs: the log writer thread, background snapshots, and a clean close.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use quiver_storage::{CommitInfo, Storage};

use crate::backup::{self, Piece};
use crate::disk::{Disk, RealDisk};
use crate::error::{Error, Result};
use crate::frame::{SEGMENT_HEADER_BYTES, read_frame, read_segment_header};
use crate::layout;
use crate::lockfile::DirLock;
use crate::log::{DurableWait, LogCore};
use crate::mode::{Mode, Options};
use crate::recovery::{self, RecoveryReport};
use crate::snapshot::{self, SnapshotInfo};
use crate::stats::DurabilityStats;

/// How often the snapshot thread looks at its triggers (an atomic read or two).
const SNAPSHOT_CHECK_INTERVAL: Duration = Duration::from_millis(100);
/// How often a database with nothing logged since its last snapshot looks again.
const SNAPSHOT_IDLE_CHECK_INTERVAL: Duration = Duration::from_secs(2);

struct SnapshotState {
    /// The commit of the newest snapshot on disk (0: none).
    commit: u64,
    at: Instant,
}

struct StoreState {
    dir: PathBuf,
    disk: Arc<dyn Disk>,
    storage: Arc<Storage>,
    log: Arc<LogCore>,
    options: Options,
    recovery: RecoveryReport,
    /// Held while a snapshot is written: one at a time.
    snapshots: Mutex<SnapshotState>,
    /// Where the last read of the log for change data capture stopped (see
    /// [`ReadPosition`]): a reader polling the log's tail reads only what is new.
    read_position: Mutex<Option<ReadPosition>>,
    stop: Mutex<bool>,
    stop_cv: Condvar,
}

impl StoreState {
    fn take_snapshot(&self) -> Result<Option<SnapshotInfo>> {
        let mut state = self.snapshots.lock();
        if let Some(f) = self.log.fault() {
            return Err(Error::Faulted(f));
        }
        let stats = &self.log.stats;
        let bytes_before = stats.log_bytes_since_snapshot.load(Ordering::Relaxed);
        // Records after the snapshot then start a fresh segment, and the current one can go.
        self.log.request_roll();
        let written = snapshot::write(
            &*self.disk,
            &self.dir,
            &self.storage,
            state.commit,
            self.options.snapshot_block_ops_max,
            |commit| self.log.wait_blocking(commit, true),
        );
        let info = match written {
            Ok(Some(info)) => info,
            Ok(None) => return Ok(None),
            Err(e) => {
                stats.snapshot_failures.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(error = %e, "snapshot failed");
                return Err(e);
            }
        };
        stats.snapshots.fetch_add(1, Ordering::Relaxed);
        stats
            .snapshot_last_micros
            .store(info.duration.as_micros() as u64, Ordering::Relaxed);
        stats
            .snapshot_last_bytes
            .store(info.bytes, Ordering::Relaxed);
        stats
            .snapshot_last_commit
            .store(info.commit, Ordering::Relaxed);
        stats
            .log_bytes_since_snapshot
            .fetch_sub(bytes_before, Ordering::Relaxed);
        state.commit = info.commit;
        state.at = Instant::now();
        if let Some(archive) = &self.options.log_archive_dir {
            let copied = layout::archive_closed(&*self.disk, &self.dir, archive)?;
            if copied > 0 {
                tracing::info!(copied, archive = %archive.display(), "log segments archived");
            }
        }
        let removed = layout::remove_covered(
            &*self.disk,
            &self.dir,
            info.commit,
            &self.options.log_retention,
        )?;
        stats
            .segments_removed
            .fetch_add(removed as u64, Ordering::Relaxed);
        tracing::info!(
            commit = info.commit,
            nodes = info.nodes,
            relationships = info.relationships,
            bytes = info.bytes,
            duration_ms = info.duration.as_millis() as u64,
            segments_removed = removed,
            "snapshot written"
        );
        Ok(Some(info))
    }

    fn snapshot_due(&self) -> bool {
        if self.log.fault().is_some() {
            return false;
        }
        let bytes = self
            .log
            .stats
            .log_bytes_since_snapshot
            .load(Ordering::Relaxed);
        if bytes >= self.options.snapshot_log_bytes {
            return true;
        }
        let state = self.snapshots.lock();
        self.options.snapshot_interval.is_some_and(|every| {
            state.at.elapsed() >= every && self.storage.visible_watermark() > state.commit
        })
    }

    fn run_snapshots(&self) {
        loop {
            {
                // Nothing logged since the last snapshot: nothing can come due soon, so an
                // idle database checks rarely (a thousand idle databases cost no core).
                let idle = self
                    .log
                    .stats
                    .log_bytes_since_snapshot
                    .load(Ordering::Relaxed)
                    == 0;
                let mut stop = self.stop.lock();
                if !*stop {
                    let wait = if idle {
                        SNAPSHOT_IDLE_CHECK_INTERVAL
                    } else {
                        SNAPSHOT_CHECK_INTERVAL
                    };
                    self.stop_cv.wait_for(&mut stop, wait);
                }
                if *stop {
                    return;
                }
            }
            if self.snapshot_due() {
                // Failures are counted and logged; the log stays intact, so the next
                // trigger simply tries again.
                let _ = self.take_snapshot();
            }
        }
    }
}

/// The log as change data capture reads it: the segments on disk, up to the newest durable
/// commit (a change is reported only once it can no longer be lost).
impl quiver_storage::History for StoreState {
    fn span(&self) -> std::result::Result<Option<(u64, u64)>, String> {
        // Not under the snapshots' lock (a snapshot may hold it for as long as it writes): a
        // segment removed right after the listing only makes `read_after` say so.
        let listing = layout::list(&*self.disk, &self.dir).map_err(|e| e.to_string())?;
        let durable = self.log.durable();
        Ok(listing
            .segments
            .first()
            .map(|(base, _)| (*base, durable))
            .filter(|(base, durable)| base <= &(durable + 1)))
    }

    fn read_after(
        &self,
        after: u64,
        each: &mut dyn FnMut(u64, &[u8]) -> bool,
    ) -> std::result::Result<(), String> {
        let durable = self.log.durable();
        if after >= durable {
            return Ok(());
        }
        // No snapshot removes a segment while it is read.
        let _snapshots = self.snapshots.lock();
        let listing = layout::list(&*self.disk, &self.dir).map_err(|e| e.to_string())?;
        let segments = segments_after(&listing, after).map_err(|e| e.to_string())?;
        let known = self.read_position.lock().clone();
        let mut open = true;
        for (i, (_, segment)) in segments.iter().enumerate() {
            let newest = i + 1 == segments.len();
            // Where the last read stopped, when it was in this segment at or before `after`.
            let from = known
                .as_ref()
                .filter(|_| i == 0)
                .and_then(|p| p.start_for(segment, after));
            let (reached, marks) = read_segment_from(
                &*self.disk,
                segment,
                newest,
                from,
                after,
                durable,
                &mut |c, body| {
                    open = open && each(c, body);
                    Ok(())
                },
            )
            .map_err(|e| e.to_string())?;
            if marks.iter().any(Option::is_some) {
                *self.read_position.lock() = Some(ReadPosition {
                    segment: segment.clone(),
                    marks,
                });
            }
            if reached || !open {
                break;
            }
        }
        Ok(())
    }
}

/// A durable store: the handle that keeps a recovered [`Storage`] backed by its data
/// directory.
///
/// ```no_run
/// use quiver_durability::{Durability, Mode, Options};
///
/// let (db, durability) = Durability::open("data", Mode::Group, Options::default())?;
/// let person = db.get_or_create_label("Person")?;
/// let tx = db.begin_write();
/// tx.create_node(&[person], &[])?;
/// let info = tx.commit()?;
/// durability.wait(&info)?; // on disk now: safe to tell the client
/// durability.close()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Durability {
    shared: Arc<StoreState>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    closed: AtomicBool,
    lock: Mutex<Option<DirLock>>,
}

impl std::fmt::Debug for Durability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Durability")
            .field("dir", &self.shared.dir)
            .field("mode", &self.shared.log.mode())
            .field("durable", &self.shared.log.durable())
            .finish_non_exhaustive()
    }
}

impl Durability {
    /// Locks `dir` (creating it if needed), recovers it, and returns the store with this
    /// handle running its log writer and snapshots.
    pub fn open(
        dir: impl AsRef<Path>,
        mode: Mode,
        options: Options,
    ) -> Result<(Arc<Storage>, Durability)> {
        Self::open_on(dir, mode, options, Arc::new(RealDisk))
    }

    /// [`Durability::open`] over another [`Disk`] (fault injection).
    pub fn open_on(
        dir: impl AsRef<Path>,
        mode: Mode,
        options: Options,
        disk: Arc<dyn Disk>,
    ) -> Result<(Arc<Storage>, Durability)> {
        let dir = dir.as_ref().to_path_buf();
        options.validate()?;
        disk.create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let lock = DirLock::acquire(&dir)?;
        // Pieces a killed backup left behind.
        let scratch = dir.join(layout::BACKUP_SCRATCH_DIR);
        if scratch.exists() {
            std::fs::remove_dir_all(&scratch).map_err(|e| Error::io(&scratch, e))?;
        }
        let (storage, report) = recovery::recover(&*disk, &dir, true, options.record_bytes_max)?;
        let last = storage.last_committed();
        let log = LogCore::new(mode, &options, disk.clone(), dir.clone(), &storage, last);
        log.stats
            .log_bytes_since_snapshot
            .store(report.log_bytes_replayed, Ordering::Relaxed);
        // Everything recovered is on disk, so readers may see all of it from the start.
        storage.set_readers_follow_commits(!mode.is_durable());
        storage.advance_visible(last);
        storage.set_commit_log(Some(log.clone()));
        let shared = Arc::new(StoreState {
            dir,
            disk,
            storage: storage.clone(),
            log: log.clone(),
            snapshots: Mutex::new(SnapshotState {
                commit: report.snapshot_commit,
                at: Instant::now(),
            }),
            read_position: Mutex::new(None),
            options,
            recovery: report,
            stop: Mutex::new(false),
            stop_cv: Condvar::new(),
        });
        let weak = Arc::downgrade(&shared);
        let history: std::sync::Weak<dyn quiver_storage::History> = weak;
        storage.set_history(history);
        let mut threads = Vec::new();
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new()
                .name(name.to_string())
                .spawn(f)
                .map_err(|e| Error::io(&shared.dir, e))
        };
        let writer = log.clone();
        threads.push(spawn(
            "quiver-log-writer",
            Box::new(move || writer.run_writer()),
        )?);
        if shared.options.snapshot_background {
            let s = shared.clone();
            threads.push(spawn(
                "quiver-snapshots",
                Box::new(move || s.run_snapshots()),
            )?);
        }
        let handle = Durability {
            shared,
            threads: Mutex::new(threads),
            closed: AtomicBool::new(false),
            lock: Mutex::new(Some(lock)),
        };
        Ok((storage, handle))
    }

    /// Recovers `dir` into a fresh store without changing a byte of it (no torn tail is cut,
    /// nothing is removed): for checking a directory, and for the crash tests' verifier.
    /// Takes the directory lock while it reads, so it refuses a directory in use.
    pub fn inspect(dir: impl AsRef<Path>) -> Result<(Arc<Storage>, RecoveryReport)> {
        Self::inspect_on(dir, &RealDisk)
    }

    pub fn inspect_on(
        dir: impl AsRef<Path>,
        disk: &dyn Disk,
    ) -> Result<(Arc<Storage>, RecoveryReport)> {
        let dir = dir.as_ref();
        let _lock = DirLock::acquire(dir)?;
        recovery::recover(disk, dir, false, quiver_storage::RECORD_BYTES_MAX)
    }

    pub fn mode(&self) -> Mode {
        self.shared.log.mode()
    }

    pub fn storage(&self) -> &Arc<Storage> {
        &self.shared.storage
    }

    pub fn dir(&self) -> &Path {
        &self.shared.dir
    }

    /// Blocks until what `info` reports may be acknowledged: its commit (or, for a write
    /// transaction that changed nothing, its snapshot) is durable. Returns at once in
    /// buffered mode. Holds no lock while it waits, and may itself run the sync.
    pub fn wait(&self, info: &CommitInfo) -> Result<()> {
        self.wait_for(info.commit)
    }

    /// Blocks until commit `commit` is durable (see [`Durability::wait`]). Also what a write
    /// transaction's results must wait for before they leave the server: they were read at
    /// its snapshot, which may be newer than the disk.
    pub fn wait_for(&self, commit: u64) -> Result<()> {
        self.shared.log.wait_blocking(commit, false)
    }

    /// Writes and syncs everything committed so far, in any mode (buffered mode's way to
    /// make sure; the other modes are always at most one batch behind).
    pub fn sync(&self) -> Result<()> {
        let log = &self.shared.log;
        log.wait_blocking(log.appended(), true)
    }

    /// A future resolving once `commit` is durable: for async callers, which must not block
    /// their executor. The sync itself runs on the log writer thread.
    pub fn durable(&self, commit: u64) -> DurableWait {
        self.shared.log.wait_async(commit)
    }

    /// The newest commit known to be on disk.
    pub fn durable_watermark(&self) -> u64 {
        self.shared.log.durable()
    }

    /// The disk fault that stopped writes, if one happened. Reads go on regardless.
    pub fn fault(&self) -> Option<String> {
        self.shared.log.fault().map(|f| f.to_string())
    }

    /// Writes a snapshot now (unless nothing changed since the last) and removes the log
    /// segments it covers.
    pub fn snapshot(&self) -> Result<Option<SnapshotInfo>> {
        self.shared.take_snapshot()
    }

    pub fn recovery(&self) -> &RecoveryReport {
        &self.shared.recovery
    }

    /// Writes a full backup piece into `dir` (created if needed): a snapshot of the store as
    /// of one commit, read while writers go on, durable in the log before it is handed out.
    /// Its last commit's time comes from the log; when the log no longer holds that commit,
    /// the piece carries a time no earlier than it (the newest commit time when the snapshot
    /// ended, or the clock then), which a restore to a time treats as the piece's time.
    pub fn backup_full(&self, dir: &Path) -> Result<Piece> {
        let s = &self.shared;
        s.disk.create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        if let Some(f) = s.log.fault() {
            return Err(Error::Faulted(f));
        }
        let written = yielding(dir, || {
            snapshot::write(
                &*s.disk,
                dir,
                &s.storage,
                0,
                s.options.snapshot_block_ops_max,
                |commit| s.log.wait_blocking(commit, true),
            )
        })?;
        let bound = backup::now_micros().max(s.storage.last_commit_time().unwrap_or(0));
        match written {
            Some(info) => {
                let time = self.commit_time(info.commit)?.unwrap_or(bound);
                backup::full_piece(&info.path, info.commit, Some(time))
            }
            None => {
                // Nothing committed yet: the chain starts from an empty store.
                let path = dir.join("empty.qsnap");
                std::fs::File::create(&path).map_err(|e| Error::io(&path, e))?;
                backup::full_piece(&path, 0, None)
            }
        }
    }

    /// Writes an incremental backup piece into `dir` (created if needed): a log segment of
    /// the commits after `after` up to the newest durable one. `None` when nothing was
    /// committed since `after`. Fails with [`Error::LogGone`] when the log no longer holds
    /// the commit right after `after`, and refuses an `after` this store never reached.
    /// `after_time` is the chain's time for `after`: when the log still holds that commit
    /// with another time, the chain is another database's (or this one's before it was
    /// restored to an earlier point) and is refused.
    pub fn backup_since(
        &self,
        after: u64,
        after_time: Option<i64>,
        dir: &Path,
    ) -> Result<Option<Piece>> {
        let s = &self.shared;
        let durable = s.log.durable();
        if let (Some(chain), Some(here)) = (after_time, self.commit_time(after)?)
            && chain != here
        {
            return Err(Error::Backup {
                path: s.dir.clone(),
                reason: format!(
                    "commit {after} of this database was committed at {here} (Unix \
                     microseconds), the backup chain's at {chain}: the chain is another \
                     database's history (take a full backup)"
                ),
            });
        }
        if after > durable {
            return Err(Error::Backup {
                path: s.dir.clone(),
                reason: format!(
                    "the backup chain ends at commit {after}, past this database's last \
                     durable commit {durable}: it is another database's chain (take a full \
                     backup)"
                ),
            });
        }
        if after == durable {
            return Ok(None);
        }
        s.disk.create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        // No snapshot removes a segment while it is read.
        let _snapshots = s.snapshots.lock();
        let listing = layout::list(&*s.disk, &s.dir)?;
        let segments = segments_after(&listing, after)?;
        let path = dir.join("incremental.qlog");
        let piece = backup::write_incremental(&path, after, |emit| {
            for (i, (_, segment)) in segments.iter().enumerate() {
                let newest = i + 1 == segments.len();
                if read_segment(&*s.disk, segment, newest, after, durable, emit)? {
                    break;
                }
            }
            Ok(())
        })?;
        if piece.last_commit < durable {
            return Err(Error::Backup {
                path: s.dir.clone(),
                reason: format!(
                    "the log could not be read past commit {} although {durable} is durable",
                    piece.last_commit
                ),
            });
        }
        Ok(Some(piece))
    }

    /// The time of `commit` as the log on disk holds it; `None` when no segment holds it
    /// (a snapshot made it redundant) or it was logged before commit times were.
    fn commit_time(&self, commit: u64) -> Result<Option<i64>> {
        let s = &self.shared;
        let _snapshots = s.snapshots.lock();
        let listing = layout::list(&*s.disk, &s.dir)?;
        if commit == 0 {
            return Ok(None);
        }
        let Some((_, path)) = listing.segments.iter().rev().find(|(b, _)| *b <= commit) else {
            return Ok(None);
        };
        let mut time = None;
        let found = read_segment(&*s.disk, path, true, commit - 1, commit, &mut |c, body| {
            if c == commit {
                time = quiver_storage::RedoRecordRef::decode(body)
                    .ok()
                    .and_then(|(record, _)| record.commit_time());
            }
            Ok(())
        })?;
        Ok(if found { time } else { None })
    }

    pub fn stats(&self) -> DurabilityStats {
        let log = &self.shared.log;
        DurabilityStats::collect(
            &log.stats,
            log.mode(),
            log.appended(),
            log.durable(),
            &self.shared.recovery,
            self.fault(),
        )
    }

    /// Stops the background threads, flushes the log, writes the closing snapshot (when
    /// configured and no fault happened) and releases the directory. Commits after this fail.
    pub fn close(self) -> Result<()> {
        self.close_inner()
    }

    /// [`Durability::close`] through a shared handle (the handle's owner may be shared):
    /// the same work, done once; later calls return `Ok`.
    pub fn shutdown(&self) -> Result<()> {
        self.close_inner()
    }

    fn close_inner(&self) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let shared = &self.shared;
        {
            *shared.stop.lock() = true;
        }
        shared.stop_cv.notify_all();
        shared.log.close();
        for t in self.threads.lock().drain(..) {
            let _ = t.join();
        }
        let mut result = match shared.log.fault() {
            Some(f) => Err(Error::Faulted(f)),
            None => Ok(()),
        };
        if result.is_ok() && shared.options.snapshot_on_close {
            result = shared.take_snapshot().map(|_| ());
        }
        self.lock.lock().take();
        result
    }
}

/// How much a backup's snapshot thread lowers its scheduling priority (its nice value): on
/// a machine whose cores the writers keep busy, it gets about a tenth of a core's share
/// against each of them, so the writers keep their throughput and the backup takes longer.
const BACKUP_NICE: i32 = 10;

/// Runs `work` on a thread of its own whose priority is lowered by [`BACKUP_NICE`], and
/// waits for it: an online backup yields the CPU to the writers it runs beside. The thread
/// ends with the work, so no thread is left at the lower priority; where its priority cannot
/// be lowered, the work runs as it would have. A thread that cannot be started fails the
/// backup (naming `dir`, where it was going).
fn yielding<T: Send>(dir: &Path, work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("quiver-backup".to_owned())
            .spawn_scoped(scope, || {
                let _ = rustix::process::setpriority_process(
                    Some(rustix::thread::gettid()),
                    BACKUP_NICE,
                );
                work()
            })
            .map_err(|e| Error::io(dir, e))?;
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// The segments that hold the commits after `after`, oldest first (the first may hold
/// earlier ones too); [`Error::LogGone`] when the log no longer holds the commit right after
/// `after`.
fn segments_after(listing: &layout::Listing, after: u64) -> Result<&[(u64, PathBuf)]> {
    let Some(start) = listing
        .segments
        .iter()
        .rposition(|(base, _)| *base <= after + 1)
    else {
        return Err(Error::LogGone {
            after,
            oldest: listing.segments.first().map(|(base, _)| *base),
        });
    };
    Ok(&listing.segments[start..])
}

/// Hands `emit` the frames of the segment at `path` with commits in `after + 1..=until`, in
/// order; returns whether `until` was reached. A damaged frame before `until` is an error,
/// except at the end of the newest segment, which the log writer may be appending to.
fn read_segment(
    disk: &dyn Disk,
    path: &Path,
    newest: bool,
    after: u64,
    until: u64,
    emit: &mut dyn FnMut(u64, &[u8]) -> Result<()>,
) -> Result<bool> {
    read_segment_from(disk, path, newest, None, after, until, emit).map(|(reached, _)| reached)
}

/// Where a reader of the log stopped in `segment`: for each mark `(commit, offset)`, the
/// frames from byte `offset` on hold the commits after `commit`. The marks are the ends of
/// the last two frames read, so a reader that resumes at the last commit it read (a change
/// data capture cursor reads its own commit again, to check it) starts near the tail instead
/// of at the segment's start.
#[derive(Clone, Debug)]
struct ReadPosition {
    segment: PathBuf,
    marks: [Option<(u64, u64)>; 2],
}

impl ReadPosition {
    /// The furthest mark at or before `after`.
    fn start_for(&self, segment: &Path, after: u64) -> Option<(u64, u64)> {
        if self.segment != segment {
            return None;
        }
        self.marks
            .iter()
            .flatten()
            .filter(|(commit, _)| *commit <= after)
            .max_by_key(|(commit, _)| *commit)
            .copied()
    }
}

/// [`read_segment`] from a known position in the segment (`None`: its start, header
/// checked); also returns the marks after the last two frames it read (see
/// [`ReadPosition`]).
fn read_segment_from(
    disk: &dyn Disk,
    path: &Path,
    newest: bool,
    from: Option<(u64, u64)>,
    after: u64,
    until: u64,
    emit: &mut dyn FnMut(u64, &[u8]) -> Result<()>,
) -> Result<(bool, [Option<(u64, u64)>; 2])> {
    let (bytes, base, mut at) = match from {
        Some((_, offset)) => (
            disk.read_from(path, offset)
                .map_err(|e| Error::io(path, e))?,
            offset,
            0,
        ),
        None => {
            let bytes = disk.read(path).map_err(|e| Error::io(path, e))?;
            read_segment_header(&bytes).map_err(|reason| Error::corrupt(path, 0, reason))?;
            (bytes, 0, SEGMENT_HEADER_BYTES)
        }
    };
    let mut marks = [None, from];
    while at < bytes.len() {
        let frame = match read_frame(&bytes, at, quiver_storage::RECORD_BYTES_MAX) {
            Ok(frame) => frame,
            Err(_) if newest => return Ok((false, marks)),
            Err(e) => return Err(Error::corrupt(path, base + at as u64, e.reason())),
        };
        if frame.commit > until {
            return Ok((true, marks));
        }
        if frame.commit > after {
            emit(frame.commit, frame.body)?;
        }
        marks = [marks[1], Some((frame.commit, base + frame.next as u64))];
        if frame.commit == until {
            return Ok((true, marks));
        }
        at = frame.next;
    }
    Ok((false, marks))
}

impl Drop for Durability {
    fn drop(&mut self) {
        let _ = self.close_inner();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own_priority() -> i32 {
        rustix::process::getpriority_process(Some(rustix::thread::gettid())).expect("priority")
    }

    #[test]
    fn a_backups_snapshot_runs_on_a_thread_of_its_own_that_yields_the_cpu() {
        let caller = own_priority();
        let (name, priority) = yielding(Path::new("backup"), || {
            Ok((
                std::thread::current().name().map(str::to_owned),
                own_priority(),
            ))
        })
        .expect("ran");
        assert_eq!(name.as_deref(), Some("quiver-backup"));
        // Lowering one's own priority needs no privilege; nice values stop at 19.
        assert_eq!(priority, (caller + BACKUP_NICE).min(19));
        assert_eq!(
            own_priority(),
            caller,
            "the caller's priority is left alone"
        );
    }

    /// The commits `read_after(after)` hands over, in order.
    fn read_after(history: &dyn quiver_storage::History, after: u64) -> Vec<u64> {
        let mut seen = Vec::new();
        history
            .read_after(after, &mut |commit, _| {
                seen.push(commit);
                true
            })
            .expect("read");
        seen
    }

    #[test]
    fn reads_of_the_log_from_any_commit_in_any_order_see_exactly_the_commits_after_it() {
        let dir = tempfile::tempdir().expect("dir");
        let options = Options {
            segment_bytes_max: 4096,
            snapshot_background: false,
            ..Options::default()
        };
        let disk = Arc::new(Counting::default());
        let (db, d) =
            Durability::open_on(dir.path(), Mode::Group, options, disk.clone()).expect("open");
        let label = db.get_or_create_label("L").expect("label");
        let key = db.get_or_create_property_key("k").expect("key");
        let mut last = 0;
        for n in 0..200 {
            let tx = db.begin_write();
            tx.create_node(&[label], &[(key, quiver_value::Value::Int(n))])
                .expect("node");
            let info = tx.commit().expect("commit");
            d.wait(&info).expect("durable");
            last = info.commit;
        }
        let history = db
            .history()
            .expect("the log is installed as the store's history");
        // Forward as a poller goes, back again, across segments, and past the end.
        for after in [0, 10, 11, 57, 20, 150, 149, 199, 5, last, last - 1] {
            let expected: Vec<u64> = (after + 1..=last).collect();
            assert_eq!(read_after(&*history, after), expected, "after {after}");
        }
        // A poller resumes at the last commit it read: only the tail is read again.
        let whole_reads = disk.whole.load(Ordering::Relaxed);
        for _ in 0..3 {
            assert_eq!(read_after(&*history, last - 1), vec![last]);
        }
        assert_eq!(
            disk.whole.load(Ordering::Relaxed),
            whole_reads,
            "a poll at the tail reads no segment from its start"
        );
        drop(history);
        d.close().expect("close");
    }

    /// The real disk, counting the whole-file reads of log segments.
    #[derive(Debug, Default)]
    struct Counting {
        whole: std::sync::atomic::AtomicU64,
    }

    impl Disk for Counting {
        fn create_dir_all(&self, dir: &Path) -> std::io::Result<()> {
            RealDisk.create_dir_all(dir)
        }
        fn list(&self, dir: &Path) -> std::io::Result<Vec<String>> {
            RealDisk.list(dir)
        }
        fn create(&self, path: &Path) -> std::io::Result<Box<dyn crate::DiskFile>> {
            RealDisk.create(path)
        }
        fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
            self.whole.fetch_add(1, Ordering::Relaxed);
            RealDisk.read(path)
        }
        fn read_from(&self, path: &Path, offset: u64) -> std::io::Result<Vec<u8>> {
            RealDisk.read_from(path, offset)
        }
        fn open_read(&self, path: &Path) -> std::io::Result<Box<dyn std::io::Read + Send>> {
            RealDisk.open_read(path)
        }
        fn len(&self, path: &Path) -> std::io::Result<u64> {
            RealDisk.len(path)
        }
        fn truncate(&self, path: &Path, len: u64) -> std::io::Result<()> {
            RealDisk.truncate(path, len)
        }
        fn rename(&self, from: &Path, to: &Path) -> std::io::Result<()> {
            RealDisk.rename(from, to)
        }
        fn remove(&self, path: &Path) -> std::io::Result<()> {
            RealDisk.remove(path)
        }
        fn sync_dir(&self, dir: &Path) -> std::io::Result<()> {
            RealDisk.sync_dir(dir)
        }
        fn modified(&self, path: &Path) -> std::io::Result<Option<std::time::SystemTime>> {
            RealDisk.modified(path)
        }
    }

    #[test]
    fn a_panic_in_the_backups_thread_reaches_the_caller() {
        let outcome = std::panic::catch_unwind(|| {
            yielding(Path::new("backup"), || -> Result<u8> {
                panic!("snapshot failed")
            })
        });
        assert!(outcome.is_err());
    }
}
