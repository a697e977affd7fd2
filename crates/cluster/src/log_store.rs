//! The Raft log on disk: segment files of checksummed entries, the vote, the committed id and
//! the purge point.
//!
//! ```text
//! <data>/raft/
//!   log-<first index, 20 digits>.qlog   segments, framed exactly like the commit log's
//!                                       (quiver_durability's segment header and frames; a
//!                                       frame's "commit" field holds the entry's index)
//!   vote                                the vote, JSON, replaced atomically and fsynced
//!   committed                           the newest committed log id, in two alternating
//!                                       checksummed slots (see the `committed` module)
//!   purged                              the newest purged log id, JSON, like the vote
//!
//! entry body (inside one frame)
//! offset  size  field
//! 0       8     term, u64 LE
//! 8       8     leader node id, u64 LE
//! 16      1     kind: 0 blank, 1 redo, 2 membership
//! 17      ...   redo: the record bytes as they are; membership: JSON
//! ```
//!
//! An entry body is at least [`ENTRY_HEADER_BYTES`] long, which is exactly the framing's
//! smallest body, so the commit log's frames fit unchanged.
//!
//! Every entry since the last purge is also held in memory, indexed: reads never touch the
//! disk, and the log's memory is bounded by the snapshot policy (the log is purged behind each
//! snapshot).
//!
//! Writes follow Raft's rule that they are serialized: openraft calls one method at a time.
//! `append` writes the entries to the file and returns (they are readable at once); the
//! flusher thread fsyncs and only then reports them flushed, so appends that arrive while a
//! sync is running share the next one (group commit). Votes, the committed id, truncation and
//! purge are made durable before their call returns, on tokio's blocking pool.
//!
//! The log counts what it writes and syncs ([`LogStats`], through [`LogStore::stats`]): relaxed
//! atomic adds once per write or sync, nothing per read.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::ops::{Bound, RangeBounds};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use openraft::storage::{IOFlushed, LogState, RaftLogStorage};
use openraft::{EntryPayload, OptionalSend, RaftLogReader};
use parking_lot::{Condvar, Mutex};
use quiver_durability::{
    FrameError, SEGMENT_HEADER_BYTES, parse_segment_name, put_frame, put_segment_header,
    read_frame, read_segment_header, segment_name,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::committed::CommittedFile;
use crate::types::{Entry, LeaderId, LogId, Redo, TypeConfig, Vote};

/// Bytes of an entry body before its payload: term, leader node id, kind.
pub const ENTRY_HEADER_BYTES: usize = 17;
const _: () = assert!(ENTRY_HEADER_BYTES == quiver_durability::FRAME_BODY_BYTES_MIN);

const KIND_BLANK: u8 = 0;
const KIND_REDO: u8 = 1;
const KIND_MEMBERSHIP: u8 = 2;

/// The largest entry body read back: one redo record at its limit plus the entry header.
/// A length beyond it is damage, not an entry.
pub const ENTRY_BYTES_MAX: usize = quiver_storage::RECORD_BYTES_MAX + ENTRY_HEADER_BYTES;

/// A segment that has grown past this is closed and the next entry starts a new one, so a purge
/// can delete whole files.
pub const SEGMENT_BYTES_MAX_DEFAULT: u64 = 64 << 20;

/// What the log fsyncs, as its metrics label it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Synced {
    /// Segment files and the log directory: appended entries (once per group commit), a
    /// closed or new segment, a truncation, a torn tail cut at open.
    Segment,
    /// The committed id, at nearly every commit.
    Committed,
    /// The vote, at every election this member takes part in.
    Vote,
    /// The purge point, behind every snapshot.
    Purged,
}

impl Synced {
    pub const ALL: [Synced; 4] = [
        Synced::Segment,
        Synced::Committed,
        Synced::Vote,
        Synced::Purged,
    ];

    /// The label value: the file's name in the log directory (`segment` for the segments).
    pub fn name(self) -> &'static str {
        match self {
            Synced::Segment => "segment",
            Synced::Committed => "committed",
            Synced::Vote => "vote",
            Synced::Purged => "purged",
        }
    }
}

/// The log's counters since it was opened, at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogStats {
    /// Completed fsyncs, indexed by [`Synced`], and the microseconds they took.
    pub fsyncs: [u64; Synced::ALL.len()],
    pub fsync_micros: [u64; Synced::ALL.len()],
    /// Bytes written to segments: entries' frames and segment headers.
    pub bytes_written: u64,
    /// Entries written to segments (an entry rewritten after a truncation counts again).
    pub entries_appended: u64,
}

/// The atomics behind [`LogStats`], shared by the log and its flusher.
#[derive(Debug, Default)]
pub(crate) struct LogCounters {
    fsyncs: [AtomicU64; Synced::ALL.len()],
    fsync_micros: [AtomicU64; Synced::ALL.len()],
    bytes_written: AtomicU64,
    entries_appended: AtomicU64,
}

impl LogCounters {
    /// Runs `sync`, an fsync of `what`, and counts it with its time once it completed.
    pub(crate) fn sync(
        &self,
        what: Synced,
        sync: impl FnOnce() -> io::Result<()>,
    ) -> io::Result<()> {
        let started = Instant::now();
        sync()?;
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        self.fsyncs[what as usize].fetch_add(1, Ordering::Relaxed);
        self.fsync_micros[what as usize].fetch_add(micros, Ordering::Relaxed);
        Ok(())
    }

    fn written(&self, bytes: usize, entries: usize) {
        self.bytes_written
            .fetch_add(bytes as u64, Ordering::Relaxed);
        self.entries_appended
            .fetch_add(entries as u64, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self) -> LogStats {
        let load = |counters: &[AtomicU64; Synced::ALL.len()]| {
            counters.each_ref().map(|c| c.load(Ordering::Relaxed))
        };
        LogStats {
            fsyncs: load(&self.fsyncs),
            fsync_micros: load(&self.fsync_micros),
            bytes_written: self.bytes_written.load(Ordering::Relaxed),
            entries_appended: self.entries_appended.load(Ordering::Relaxed),
        }
    }
}

const VOTE_FILE: &str = "vote";
const PURGED_FILE: &str = "purged";
const TEMP_SUFFIX: &str = ".tmp";

/// Encodes an entry's frame body.
pub fn encode_entry(entry: &Entry, out: &mut Vec<u8>) {
    let leader = entry.log_id.leader_id;
    out.extend_from_slice(&leader.term.to_le_bytes());
    out.extend_from_slice(&leader.node_id.to_le_bytes());
    match &entry.payload {
        EntryPayload::Blank => out.push(KIND_BLANK),
        EntryPayload::Normal(redo) => {
            out.push(KIND_REDO);
            out.extend_from_slice(&redo.0);
        }
        EntryPayload::Membership(m) => {
            out.push(KIND_MEMBERSHIP);
            // A membership of plain ids and strings always serializes.
            let json = serde_json::to_vec(m).unwrap_or_default();
            out.extend_from_slice(&json);
        }
    }
}

/// Decodes an entry's frame body; `index` comes from the frame.
pub fn decode_entry(index: u64, body: &[u8]) -> Result<Entry, &'static str> {
    let header = body
        .get(..ENTRY_HEADER_BYTES)
        .ok_or("entry shorter than its header")?;
    let mut term = [0u8; 8];
    term.copy_from_slice(&header[..8]);
    let mut node = [0u8; 8];
    node.copy_from_slice(&header[8..16]);
    let leader = LeaderId {
        term: u64::from_le_bytes(term),
        node_id: u64::from_le_bytes(node),
    };
    let payload = &body[ENTRY_HEADER_BYTES..];
    let payload = match header[16] {
        KIND_BLANK if payload.is_empty() => EntryPayload::Blank,
        KIND_REDO => EntryPayload::Normal(Redo(payload.to_vec())),
        KIND_MEMBERSHIP => EntryPayload::Membership(
            serde_json::from_slice(payload).map_err(|_| "undecodable membership entry")?,
        ),
        _ => return Err("unknown entry kind"),
    };
    Ok(Entry {
        log_id: LogId::new(leader, index),
        payload,
    })
}

/// Why the log directory could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path} at byte {offset}: {reason}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
}

impl LogError {
    pub(crate) fn io(path: &Path, source: io::Error) -> LogError {
        LogError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    fn corrupt(path: &Path, offset: u64, reason: impl Into<String>) -> LogError {
        LogError::Corrupt {
            path: path.to_path_buf(),
            offset,
            reason: reason.into(),
        }
    }
}

impl From<LogError> for io::Error {
    fn from(e: LogError) -> io::Error {
        match e {
            LogError::Io { source, .. } => source,
            e @ LogError::Corrupt { .. } => io::Error::new(io::ErrorKind::InvalidData, e),
        }
    }
}

/// Where an entry lives on disk.
#[derive(Clone, Copy, Debug)]
struct Place {
    segment: u64,
    offset: u64,
}

/// A segment file (keyed by its first index).
struct Segment {
    path: PathBuf,
    /// The index the segment's next frame must carry: frames within a segment are consecutive.
    /// After a snapshot install the log resumes far past the newest segment's last entry, in a
    /// new segment.
    next: u64,
    len: u64,
}

struct LogInner {
    dir: PathBuf,
    segment_bytes_max: u64,
    /// Every entry after the purge point, with where it lives.
    entries: BTreeMap<u64, (Entry, Place)>,
    segments: BTreeMap<u64, Segment>,
    /// The newest segment, open for appending.
    active: Option<Arc<File>>,
    vote: Option<Vote>,
    committed: Option<LogId>,
    purged: Option<LogId>,
    /// The torn tail cut at open, if any: (file, offset, bytes cut).
    torn_tail: Option<(PathBuf, u64, u64)>,
    counters: Arc<LogCounters>,
}

/// Fsyncs appended entries off openraft's task and reports them flushed: one sync covers
/// every append that arrived while the previous one ran.
struct Flusher {
    queue: Mutex<FlushQueue>,
    wake: Condvar,
    /// Batches synced: below the count of appends when group commit shares syncs.
    batches: AtomicU64,
    counters: Arc<LogCounters>,
}

#[derive(Default)]
struct FlushQueue {
    waiting: Vec<(Arc<File>, IOFlushed<TypeConfig>)>,
    stop: bool,
}

impl Flusher {
    fn start(counters: Arc<LogCounters>) -> io::Result<Arc<Flusher>> {
        let flusher = Arc::new(Flusher {
            queue: Mutex::new(FlushQueue::default()),
            wake: Condvar::new(),
            batches: AtomicU64::new(0),
            counters,
        });
        let f = flusher.clone();
        std::thread::Builder::new()
            .name("raft-log-flush".into())
            .spawn(move || f.run())?;
        Ok(flusher)
    }

    fn run(&self) {
        loop {
            let batch = {
                let mut q = self.queue.lock();
                while q.waiting.is_empty() && !q.stop {
                    self.wake.wait(&mut q);
                }
                if q.waiting.is_empty() {
                    return;
                }
                std::mem::take(&mut q.waiting)
            };
            // Files in a batch are in append order; sync each distinct one once.
            let mut result: Result<(), io::ErrorKind> = Ok(());
            let mut synced: Vec<*const File> = Vec::new();
            for (file, _) in &batch {
                let ptr = Arc::as_ptr(file);
                if synced.contains(&ptr) {
                    continue;
                }
                synced.push(ptr);
                if let Err(e) = self.counters.sync(Synced::Segment, || file.sync_data()) {
                    tracing::error!(error = %e, "raft log fsync failed");
                    result = Err(e.kind());
                }
            }
            self.batches.fetch_add(1, Ordering::Relaxed);
            for (_, callback) in batch {
                callback.io_completed(result.map_err(io::Error::from));
            }
        }
    }

    fn push(&self, file: Arc<File>, callback: IOFlushed<TypeConfig>) {
        self.queue.lock().waiting.push((file, callback));
        self.wake.notify_one();
    }

    fn stop(&self) {
        self.queue.lock().stop = true;
        self.wake.notify_one();
    }
}

struct Shared {
    inner: Mutex<LogInner>,
    /// Apart from `inner` so that its sync holds up no reader.
    committed_file: Mutex<CommittedFile>,
    flusher: Arc<Flusher>,
    /// Set when a truncation removed entries; the state machine takes it to learn that a tail
    /// it may hold in memory is gone (see the crate docs on a deposed leader).
    truncated: AtomicBool,
}

impl Drop for Shared {
    fn drop(&mut self) {
        self.flusher.stop();
    }
}

/// The Raft log store; cheap to clone (clones share one log), and its own log reader.
#[derive(Clone)]
pub struct LogStore {
    shared: Arc<Shared>,
}

impl Debug for LogStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.shared.inner.lock();
        f.debug_struct("LogStore")
            .field("dir", &inner.dir)
            .field("entries", &inner.entries.len())
            .finish_non_exhaustive()
    }
}

/// Replaces the file `name` in `dir` with `value` as JSON: written aside, fsynced, renamed
/// over it, the directory fsynced (both syncs counted under `what`).
fn write_atomic<T: Serialize>(
    dir: &Path,
    name: &str,
    value: &T,
    (counters, what): (&LogCounters, Synced),
) -> Result<(), LogError> {
    let path = dir.join(name);
    let tmp = dir.join(format!("{name}{TEMP_SUFFIX}"));
    let bytes = serde_json::to_vec(value).map_err(|e| LogError::io(&path, io::Error::other(e)))?;
    (|| {
        let mut f = File::create(&tmp)?;
        f.write_all(&bytes)?;
        counters.sync(what, || f.sync_all())?;
        fs::rename(&tmp, &path)?;
        counters.sync(what, || sync_dir(dir))
    })()
    .map_err(|e| LogError::io(&path, e))
}

fn read_json<T: DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<T>, LogError> {
    let path = dir.join(name);
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| LogError::corrupt(&path, 0, e.to_string())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LogError::io(&path, e)),
    }
}

pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

impl LogStore {
    /// Opens (creating if need be) the log in `dir`, cutting a torn tail off the newest
    /// segment. Damage anywhere else is refused, naming the file and offset.
    pub fn open(dir: impl AsRef<Path>, segment_bytes_max: u64) -> Result<LogStore, LogError> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir).map_err(|e| LogError::io(&dir, e))?;
        let (committed_file, committed) = CommittedFile::open(&dir)?;
        let counters = Arc::new(LogCounters::default());
        let mut inner = LogInner {
            dir: dir.clone(),
            segment_bytes_max: segment_bytes_max.max(SEGMENT_HEADER_BYTES as u64 + 1),
            entries: BTreeMap::new(),
            segments: BTreeMap::new(),
            active: None,
            vote: read_json(&dir, VOTE_FILE)?,
            committed,
            purged: read_json(&dir, PURGED_FILE)?,
            torn_tail: None,
            counters: Arc::clone(&counters),
        };
        inner.load_segments()?;
        Ok(LogStore {
            shared: Arc::new(Shared {
                inner: Mutex::new(inner),
                committed_file: Mutex::new(committed_file),
                flusher: Flusher::start(Arc::clone(&counters))
                    .map_err(|e| LogError::io(&dir, e))?,
                truncated: AtomicBool::new(false),
            }),
        })
    }

    /// Whether a truncation removed entries since the last call.
    pub(crate) fn take_truncated(&self) -> bool {
        self.shared.truncated.swap(false, Ordering::AcqRel)
    }

    /// The torn tail cut when the log was opened: file, offset and bytes cut.
    pub fn torn_tail(&self) -> Option<(PathBuf, u64, u64)> {
        self.shared.inner.lock().torn_tail.clone()
    }

    /// The entries with indexes in `range` that the log holds.
    pub(crate) fn entries(&self, range: impl RangeBounds<u64>) -> Vec<Entry> {
        let inner = self.shared.inner.lock();
        inner
            .entries
            .range((range.start_bound().cloned(), range.end_bound().cloned()))
            .map(|(_, (e, _))| e.clone())
            .collect()
    }

    /// Synced batches of appends so far (each covers every append that arrived meanwhile).
    pub fn flush_batches(&self) -> u64 {
        self.shared.flusher.batches.load(Ordering::Relaxed)
    }

    /// What the log wrote and synced since it was opened (atomic loads, no lock).
    pub fn stats(&self) -> LogStats {
        self.shared.flusher.counters.stats()
    }

    /// The number of segment files, for tests and metrics.
    pub fn segment_count(&self) -> usize {
        self.shared.inner.lock().segments.len()
    }
}

impl LogInner {
    fn load_segments(&mut self) -> Result<(), LogError> {
        let mut found = Vec::new();
        for dirent in fs::read_dir(&self.dir).map_err(|e| LogError::io(&self.dir, e))? {
            let dirent = dirent.map_err(|e| LogError::io(&self.dir, e))?;
            let name = dirent.file_name();
            let Some(name) = name.to_str() else { continue };
            if name.ends_with(TEMP_SUFFIX) {
                let _ = fs::remove_file(dirent.path());
            } else if let Some(base) = parse_segment_name(name) {
                found.push((base, dirent.path()));
            }
        }
        found.sort_unstable();
        let n = found.len();
        let mut prev: Option<u64> = None;
        for (i, (base, path)) in found.into_iter().enumerate() {
            let last = i + 1 == n;
            let bytes = fs::read(&path).map_err(|e| LogError::io(&path, e))?;
            match read_segment_header(&bytes) {
                Ok(b) if b == base => {}
                Ok(_) => {
                    return Err(LogError::corrupt(
                        &path,
                        16,
                        "base index does not match the file name",
                    ));
                }
                Err(reason) if last && bytes.len() < SEGMENT_HEADER_BYTES * 2 => {
                    // A crash while the segment was being created: it never held an entry.
                    tracing::warn!(file = %path.display(), reason, "unfinished raft log segment removed");
                    fs::remove_file(&path).map_err(|e| LogError::io(&path, e))?;
                    continue;
                }
                Err(reason) => return Err(LogError::corrupt(&path, 0, reason)),
            }
            if let Some(p) = prev
                && base != p + 1
            {
                // Segments follow one another, except past a gap the purge point covers.
                if self.purged.is_none_or(|purged| purged.index < p) {
                    return Err(LogError::corrupt(
                        &path,
                        16,
                        format!("segment starts at {base} where {} was expected", p + 1),
                    ));
                }
                prev = None;
            }
            let mut at = SEGMENT_HEADER_BYTES;
            while at < bytes.len() {
                let frame = match read_frame(&bytes, at, ENTRY_BYTES_MAX) {
                    Ok(f) => f,
                    Err(e) if last => {
                        self.cut_tail(&path, at as u64, bytes.len() as u64, e)?;
                        break;
                    }
                    Err(e) => return Err(LogError::corrupt(&path, at as u64, e.reason())),
                };
                let index = frame.commit;
                let expected = prev.map_or(base, |p| p + 1);
                if index != expected || index < base {
                    return Err(LogError::corrupt(
                        &path,
                        at as u64,
                        format!("entry {index} where {expected} was expected"),
                    ));
                }
                let entry = decode_entry(index, frame.body)
                    .map_err(|reason| LogError::corrupt(&path, at as u64, reason))?;
                prev = Some(index);
                if self.purged.is_none_or(|p| index > p.index) {
                    let place = Place {
                        segment: base,
                        offset: at as u64,
                    };
                    self.entries.insert(index, (entry, place));
                }
                at = frame.next;
            }
            let len = fs::metadata(&path)
                .map_err(|e| LogError::io(&path, e))?
                .len();
            let next = prev.filter(|p| *p >= base).map_or(base, |p| p + 1);
            self.segments.insert(base, Segment { path, next, len });
        }
        Ok(())
    }

    fn cut_tail(&mut self, path: &Path, at: u64, len: u64, e: FrameError) -> Result<(), LogError> {
        tracing::warn!(
            file = %path.display(),
            offset = at,
            bytes_cut = len - at,
            reason = e.reason(),
            "torn entry at the end of the raft log cut off"
        );
        let f = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| LogError::io(path, e))?;
        f.set_len(at).map_err(|e| LogError::io(path, e))?;
        self.counters
            .sync(Synced::Segment, || f.sync_all())
            .map_err(|e| LogError::io(path, e))?;
        self.torn_tail = Some((path.to_path_buf(), at, len - at));
        Ok(())
    }

    fn last_log_id(&self) -> Option<LogId> {
        self.entries
            .last_key_value()
            .map(|(_, (e, _))| e.log_id)
            .or(self.purged)
    }

    /// The segment the next entry goes to, opening a new one when there is none or the newest
    /// is full. A segment closed mid-batch is synced here, so the flusher only ever needs to
    /// sync the newest.
    fn segment_for(&mut self, index: u64) -> Result<(u64, Arc<File>), LogError> {
        let header_bytes = SEGMENT_HEADER_BYTES as u64;
        if let Some((&base, seg)) = self.segments.last_key_value() {
            let usable = seg.len < self.segment_bytes_max && seg.next == index;
            if usable {
                if let Some(file) = &self.active {
                    return Ok((base, file.clone()));
                }
                let path = seg.path.clone();
                let file = OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .map_err(|e| LogError::io(&path, e))?;
                let file = Arc::new(file);
                self.active = Some(file.clone());
                return Ok((base, file));
            }
            if seg.len <= header_bytes {
                // An empty segment left by a truncation names the wrong first index.
                let path = seg.path.clone();
                fs::remove_file(&path).map_err(|e| LogError::io(&path, e))?;
                self.segments.remove(&base);
            } else if let Some(old) = self.active.take() {
                self.counters
                    .sync(Synced::Segment, || old.sync_data())
                    .map_err(|e| LogError::io(&seg.path, e))?;
            }
        }
        self.active = None;
        let path = self.dir.join(segment_name(index));
        let mut header = Vec::with_capacity(SEGMENT_HEADER_BYTES);
        put_segment_header(&mut header, index);
        let file = (|| {
            let mut f = OpenOptions::new()
                .create(true)
                .truncate(true)
                .write(true)
                .open(&path)?;
            f.write_all(&header)?;
            self.counters.sync(Synced::Segment, || f.sync_all())?;
            self.counters
                .sync(Synced::Segment, || sync_dir(&self.dir))?;
            OpenOptions::new().append(true).open(&path)
        })()
        .map_err(|e| LogError::io(&path, e))?;
        self.counters.written(header.len(), 0);
        let file = Arc::new(file);
        self.segments.insert(
            index,
            Segment {
                path,
                next: index,
                len: header_bytes,
            },
        );
        self.active = Some(file.clone());
        Ok((index, file))
    }

    /// Writes entries (no sync); returns the file the caller must sync before reporting them.
    fn append(&mut self, entries: Vec<Entry>) -> Result<Option<Arc<File>>, LogError> {
        let mut buf = Vec::new();
        let mut pending: Vec<(Entry, u64)> = Vec::new();
        let mut body = Vec::new();
        let mut current: Option<(u64, Arc<File>)> = None;
        let mut last_file = None;
        for entry in entries {
            let index = entry.log_id.index;
            let full = current.as_ref().is_none_or(|(base, _)| {
                self.segments
                    .get(base)
                    .is_none_or(|s| s.len + buf.len() as u64 >= self.segment_bytes_max)
            });
            if full {
                self.flush_buf(&mut current, &mut buf, &mut pending)?;
                let (base, file) = self.segment_for(index)?;
                last_file = Some(file.clone());
                current = Some((base, file));
            }
            let base = current.as_ref().map_or(0, |(b, _)| *b);
            let seg_len = self.segments.get(&base).map_or(0, |s| s.len);
            body.clear();
            encode_entry(&entry, &mut body);
            let offset = seg_len + buf.len() as u64;
            put_frame(&mut buf, index, &body);
            pending.push((entry, offset));
        }
        self.flush_buf(&mut current, &mut buf, &mut pending)?;
        Ok(last_file)
    }

    fn flush_buf(
        &mut self,
        current: &mut Option<(u64, Arc<File>)>,
        buf: &mut Vec<u8>,
        pending: &mut Vec<(Entry, u64)>,
    ) -> Result<(), LogError> {
        let Some((base, file)) = current.take() else {
            return Ok(());
        };
        if buf.is_empty() {
            return Ok(());
        }
        let seg = self.segments.get_mut(&base).expect("the current segment");
        (&*file)
            .write_all(buf)
            .map_err(|e| LogError::io(&seg.path, e))?;
        seg.len += buf.len() as u64;
        self.counters.written(buf.len(), pending.len());
        if let Some((last, _)) = pending.last() {
            seg.next = last.log_id.index + 1;
        }
        buf.clear();
        for (entry, offset) in pending.drain(..) {
            let place = Place {
                segment: base,
                offset,
            };
            self.entries.insert(entry.log_id.index, (entry, place));
        }
        Ok(())
    }

    /// Removes every entry after `last` (all of them for `None`), on disk first.
    fn truncate_after(&mut self, last: Option<u64>) -> Result<bool, LogError> {
        let from = last.map_or(0, |l| l + 1);
        let Some((first_index, first_place)) = self
            .entries
            .range(from..)
            .next()
            .map(|(i, (_, p))| (*i, *p))
        else {
            return Ok(false);
        };
        let cut_segment = first_place.segment;
        let later: Vec<u64> = self
            .segments
            .range(cut_segment + 1..)
            .map(|(b, _)| *b)
            .collect();
        for base in later {
            if let Some(seg) = self.segments.remove(&base) {
                fs::remove_file(&seg.path).map_err(|e| LogError::io(&seg.path, e))?;
            }
        }
        if let Some(seg) = self.segments.get_mut(&cut_segment) {
            let f = OpenOptions::new()
                .write(true)
                .open(&seg.path)
                .map_err(|e| LogError::io(&seg.path, e))?;
            f.set_len(first_place.offset)
                .map_err(|e| LogError::io(&seg.path, e))?;
            self.counters
                .sync(Synced::Segment, || f.sync_all())
                .map_err(|e| LogError::io(&seg.path, e))?;
            seg.len = first_place.offset;
            seg.next = first_index;
        }
        self.counters
            .sync(Synced::Segment, || sync_dir(&self.dir))
            .map_err(|e| LogError::io(&self.dir, e))?;
        // The append handle may be for a removed file; reopen on the next append.
        self.active = None;
        self.entries.split_off(&from);
        Ok(true)
    }

    /// Forgets every entry up to `log_id`: the purge point is made durable first, then whole
    /// segments it covers are removed.
    fn purge(&mut self, log_id: LogId) -> Result<(), LogError> {
        let counted = (&*self.counters, Synced::Purged);
        write_atomic(&self.dir, PURGED_FILE, &log_id, counted)?;
        self.purged = Some(log_id);
        let keep = self.entries.split_off(&(log_id.index + 1));
        self.entries = keep;
        // A segment is covered when every index it holds is at most the purge point: the
        // next segment starts by then, or (the newest) its own next index is past no more.
        let bases: Vec<u64> = self.segments.keys().copied().collect();
        for (i, base) in bases.iter().enumerate() {
            let end = match bases.get(i + 1) {
                Some(next_base) => *next_base,
                None => self.segments[base].next,
            };
            if end <= log_id.index + 1
                && let Some(seg) = self.segments.remove(base)
            {
                fs::remove_file(&seg.path).map_err(|e| LogError::io(&seg.path, e))?;
                if bases.get(i + 1).is_none() {
                    self.active = None;
                }
            }
        }
        Ok(())
    }
}

impl RaftLogReader<TypeConfig> for LogStore {
    async fn try_get_log_entries<RB: RangeBounds<u64> + Clone + Debug + OptionalSend>(
        &mut self,
        range: RB,
    ) -> Result<Vec<Entry>, io::Error> {
        let start = match range.start_bound() {
            Bound::Included(s) => Bound::Included(*s),
            Bound::Excluded(s) => Bound::Excluded(*s),
            Bound::Unbounded => Bound::Unbounded,
        };
        let end = match range.end_bound() {
            Bound::Included(s) => Bound::Included(*s),
            Bound::Excluded(s) => Bound::Excluded(*s),
            Bound::Unbounded => Bound::Unbounded,
        };
        Ok(self.entries((start, end)))
    }

    async fn read_vote(&mut self) -> Result<Option<Vote>, io::Error> {
        Ok(self.shared.inner.lock().vote)
    }
}

impl RaftLogStorage<TypeConfig> for LogStore {
    type LogReader = LogStore;

    async fn get_log_state(&mut self) -> Result<LogState<TypeConfig>, io::Error> {
        let inner = self.shared.inner.lock();
        Ok(LogState {
            last_purged_log_id: inner.purged,
            last_log_id: inner.last_log_id(),
        })
    }

    async fn get_log_reader(&mut self) -> LogStore {
        self.clone()
    }

    async fn save_vote(&mut self, vote: &Vote) -> Result<(), io::Error> {
        let shared = self.shared.clone();
        let vote = *vote;
        off_runtime(move || {
            let dir = shared.inner.lock().dir.clone();
            let counted = (&*shared.flusher.counters, Synced::Vote);
            write_atomic(&dir, VOTE_FILE, &vote, counted)?;
            shared.inner.lock().vote = Some(vote);
            Ok(())
        })
        .await
    }

    async fn save_committed(&mut self, committed: Option<LogId>) -> Result<(), io::Error> {
        if self.shared.inner.lock().committed == committed {
            return Ok(());
        }
        let shared = self.shared.clone();
        off_runtime(move || {
            let counters = &shared.flusher.counters;
            shared.committed_file.lock().save(committed, counters)?;
            shared.inner.lock().committed = committed;
            Ok(())
        })
        .await
    }

    async fn read_committed(&mut self) -> Result<Option<LogId>, io::Error> {
        Ok(self.shared.inner.lock().committed)
    }

    async fn append<I>(
        &mut self,
        entries: I,
        callback: IOFlushed<TypeConfig>,
    ) -> Result<(), io::Error>
    where
        I: IntoIterator<Item = Entry> + OptionalSend,
        I::IntoIter: OptionalSend,
    {
        let entries: Vec<Entry> = entries.into_iter().collect();
        let file = self.shared.inner.lock().append(entries)?;
        match file {
            Some(file) => self.shared.flusher.push(file, callback),
            None => callback.io_completed(Ok(())),
        }
        Ok(())
    }

    async fn truncate_after(&mut self, last_log_id: Option<LogId>) -> Result<(), io::Error> {
        let shared = self.shared.clone();
        off_runtime(move || {
            let removed = shared
                .inner
                .lock()
                .truncate_after(last_log_id.map(|l| l.index))?;
            if removed {
                shared.truncated.store(true, Ordering::Release);
            }
            Ok(())
        })
        .await
    }

    async fn purge(&mut self, log_id: LogId) -> Result<(), io::Error> {
        let shared = self.shared.clone();
        off_runtime(move || shared.inner.lock().purge(log_id)).await
    }
}

/// Runs file work that syncs (votes, the committed id, truncation, purge) on tokio's blocking
/// pool, so a slow disk stalls no async worker.
async fn off_runtime<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, LogError> + Send + 'static,
) -> Result<T, io::Error> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(io::Error::from),
        Err(e) => Err(io::Error::other(e)),
    }
}

#[cfg(test)]
mod tests {
    use openraft::type_config::TypeConfigExt;

    use super::*;

    fn blank(term: u64, index: u64) -> Entry {
        Entry {
            log_id: LogId::new(LeaderId { term, node_id: 1 }, index),
            payload: EntryPayload::Blank,
        }
    }

    fn redo(term: u64, index: u64, n: usize) -> Entry {
        Entry {
            log_id: LogId::new(LeaderId { term, node_id: 2 }, index),
            payload: EntryPayload::Normal(Redo(vec![7; n])),
        }
    }

    #[test]
    fn entries_round_trip_through_their_body() {
        for e in [blank(3, 9), redo(4, 10, 0), redo(4, 11, 100)] {
            let mut body = Vec::new();
            encode_entry(&e, &mut body);
            assert!(body.len() >= ENTRY_HEADER_BYTES);
            let back = decode_entry(e.log_id.index, &body).unwrap();
            assert_eq!(back, e);
        }
        assert!(decode_entry(1, &[0; 5]).is_err());
        let mut bad = Vec::new();
        encode_entry(&blank(1, 1), &mut bad);
        bad[16] = 9;
        assert!(decode_entry(1, &bad).is_err());
    }

    fn append_sync(inner: &mut LogInner, entries: Vec<Entry>) {
        if let Some(f) = inner.append(entries).unwrap() {
            f.sync_data().unwrap();
        }
    }

    #[test]
    fn segments_rotate_truncate_and_purge() {
        let dir = tempfile::tempdir().unwrap();
        let store = LogStore::open(dir.path(), 200).unwrap();
        {
            let mut inner = store.shared.inner.lock();
            append_sync(&mut inner, (1..=10).map(|i| redo(1, i, 40)).collect());
            assert!(inner.segments.len() > 2, "small segments rotate");
            assert!(inner.truncate_after(Some(6)).unwrap());
            assert_eq!(inner.last_log_id().unwrap().index, 6);
            append_sync(&mut inner, vec![redo(2, 7, 5), redo(2, 8, 5)]);
            inner
                .purge(LogId::new(
                    LeaderId {
                        term: 1,
                        node_id: 2,
                    },
                    3,
                ))
                .unwrap();
        }
        drop(store);
        let store = LogStore::open(dir.path(), 200).unwrap();
        let entries = store.entries(..);
        let got: Vec<(u64, u64)> = entries
            .iter()
            .map(|e| (e.log_id.leader_id.term, e.log_id.index))
            .collect();
        assert_eq!(got, vec![(1, 4), (1, 5), (1, 6), (2, 7), (2, 8)]);
        assert_eq!(store.shared.inner.lock().purged.unwrap().index, 3);
    }

    #[test]
    fn the_log_resumes_past_a_purge_beyond_its_end() {
        // A follower that installs a snapshot newer than its whole log purges all of it and
        // goes on from the snapshot's index.
        let dir = tempfile::tempdir().unwrap();
        {
            let store = LogStore::open(dir.path(), 1 << 20).unwrap();
            let mut inner = store.shared.inner.lock();
            append_sync(&mut inner, (1..=5).map(|i| redo(1, i, 10)).collect());
            inner
                .purge(LogId::new(
                    LeaderId {
                        term: 2,
                        node_id: 2,
                    },
                    45,
                ))
                .unwrap();
            assert_eq!(inner.last_log_id().unwrap().index, 45);
            append_sync(&mut inner, (46..=48).map(|i| redo(2, i, 10)).collect());
        }
        let store = LogStore::open(dir.path(), 1 << 20).unwrap();
        let got: Vec<u64> = store.entries(..).iter().map(|e| e.log_id.index).collect();
        assert_eq!(got, vec![46, 47, 48]);
        assert_eq!(store.segment_count(), 1, "the purged segment is gone");
    }

    #[test]
    fn a_torn_tail_is_cut_on_open() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = LogStore::open(dir.path(), 1 << 20).unwrap();
            let mut inner = store.shared.inner.lock();
            append_sync(&mut inner, (1..=3).map(|i| redo(1, i, 30)).collect());
        }
        let path = dir.path().join(segment_name(1));
        let len = fs::metadata(&path).unwrap().len();
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 7).unwrap();
        drop(f);
        let store = LogStore::open(dir.path(), 1 << 20).unwrap();
        assert_eq!(store.entries(..).len(), 2);
        let (_, _, cut) = store.torn_tail().unwrap();
        assert!(cut > 0);
        // Appending after the cut continues the log at the cut.
        let mut inner = store.shared.inner.lock();
        append_sync(&mut inner, vec![redo(2, 3, 4)]);
        drop(inner);
        drop(store);
        let store = LogStore::open(dir.path(), 1 << 20).unwrap();
        assert_eq!(store.entries(..).len(), 3);
        assert!(store.torn_tail().is_none());
    }

    #[test]
    fn appends_waiting_together_share_one_sync() {
        let dir = tempfile::tempdir().unwrap();
        let store = LogStore::open(dir.path(), 1 << 20).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        {
            // Hold the queue as a running sync would: the appends pile up behind it.
            let mut queue = store.shared.flusher.queue.lock();
            let mut inner = store.shared.inner.lock();
            for i in 1..=5 {
                let file = inner.append(vec![redo(1, i, 10)]).unwrap().unwrap();
                let tx = tx.clone();
                let (otx, orx) = TypeConfig::oneshot();
                queue.waiting.push((file, IOFlushed::signal(otx)));
                std::thread::spawn(move || tx.send(orx.blocking_recv()).unwrap());
            }
        }
        store.shared.flusher.wake.notify_one();
        for _ in 0..5 {
            let r = rx.recv().unwrap();
            assert!(matches!(r, Ok(Ok(()))), "{r:?}");
        }
        assert_eq!(store.flush_batches(), 1);
    }

    #[tokio::test]
    async fn the_log_counts_what_it_writes_and_syncs() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = LogStore::open(dir.path(), 1 << 20).unwrap();
        assert_eq!(store.stats(), LogStats::default());
        let synced = |stats: &LogStats, what: Synced| stats.fsyncs[what as usize];
        let mut seen = store.stats();
        for i in 1..=3 {
            let (tx, rx) = TypeConfig::oneshot();
            store
                .append(vec![redo(1, i, 50)], IOFlushed::signal(tx))
                .await
                .unwrap();
            rx.await.unwrap().unwrap();
            // Reported flushed, so synced and counted: every figure rose.
            let now = store.stats();
            assert!(synced(&now, Synced::Segment) > synced(&seen, Synced::Segment));
            assert!(now.bytes_written > seen.bytes_written + 50);
            assert_eq!(now.entries_appended, i);
            seen = now;
        }
        let leader = LeaderId {
            term: 1,
            node_id: 2,
        };
        store.save_vote(&Vote::new(1, 2)).await.unwrap();
        store
            .save_committed(Some(LogId::new(leader, 2)))
            .await
            .unwrap();
        store.purge(LogId::new(leader, 1)).await.unwrap();
        let now = store.stats();
        // The vote and purge point are written aside and renamed: file and directory synced.
        assert_eq!(synced(&now, Synced::Vote), 2);
        assert_eq!(synced(&now, Synced::Committed), 1);
        assert_eq!(synced(&now, Synced::Purged), 2);
        assert_eq!(
            synced(&now, Synced::Segment),
            synced(&seen, Synced::Segment)
        );
        assert!(
            Synced::ALL
                .iter()
                .all(|&w| now.fsync_micros[w as usize] >= seen.fsync_micros[w as usize])
        );
    }

    #[test]
    fn damage_before_the_tail_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = LogStore::open(dir.path(), 150).unwrap();
            let mut inner = store.shared.inner.lock();
            append_sync(&mut inner, (1..=6).map(|i| redo(1, i, 40)).collect());
        }
        let path = dir.path().join(segment_name(1));
        let mut bytes = fs::read(&path).unwrap();
        let at = SEGMENT_HEADER_BYTES + 20;
        bytes[at] ^= 0xff;
        fs::write(&path, bytes).unwrap();
        let err = LogStore::open(dir.path(), 150).unwrap_err();
        assert!(matches!(err, LogError::Corrupt { .. }), "{err}");
    }
}
