//! The Raft state machine: committed entries become commits of the store, Raft snapshots are
//! Quiver snapshots.
//!
//! The store sits behind the [`Applier`] trait, which the engine will implement; this crate's
//! own [`StorageApplier`] implements it over a `quiver_storage::Storage` handle.
//!
//! ```text
//! <data>/snapshots/
//!   raft-<last index, 20 digits>-<term>-<nanos>.meta    Raft's meta (last log id, membership)
//!                                                      and the data file's name, JSON; written
//!                                                      last, so its presence marks a complete
//!                                                      snapshot
//!   raft-<...>.qsnap                                   the Quiver snapshot (quiver_durability's
//!                                                      format), absent for an empty store
//!   incoming-*.tmp, building/                          transfers and builds in progress
//!   removed-members.json                               ids removed from the membership, JSON
//! ```
//!
//! # Removed members
//!
//! A removed member's id must never be given to another member: the others may still hold
//! votes and entries naming it. The membership only names the current members, so the state
//! machine remembers every id a membership entry it applies drops (comparing it with the one
//! before), in `removed-members.json`, written before the entry counts as applied. Every
//! member applies every membership entry of its log, so whichever member leads next knows
//! them too. A snapshot carries the set as of its last entry (in its `.meta` file and in the
//! transfer), so a member caught up from a snapshot knows the removals the snapshot covers as
//! well as those applied after it: the set a member holds only ever grows.
//!
//! The newest two snapshots are kept: one may still be streaming to a follower while the next
//! is built.

use std::collections::BTreeSet;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::{Stream, TryStreamExt};
use openraft::storage::{EntryResponder, RaftStateMachine};
use openraft::{EntryPayload, RaftSnapshotBuilder};
use parking_lot::RwLock;
use quiver_durability::RealDisk;
use quiver_storage::{
    AppendError, CommitLog, DurabilityTicket, RedoOp, RedoRecord, Storage, StoreHandle,
};
use serde::{Deserialize, Serialize};

use crate::log_store::{LogStore, sync_dir};
use crate::types::{
    Applied, Entry, LeaderId, LogId, Node, NodeId, SnapshotMeta, StoredMembership, TypeConfig,
};

/// Ops per block when the store is written as a snapshot (the durability layer's default).
const SNAPSHOT_BLOCK_OPS_MAX: usize = 4096;
const META_SUFFIX: &str = ".meta";
const DATA_SUFFIX: &str = ".qsnap";
const INCOMING_PREFIX: &str = "incoming-";
const TEMP_SUFFIX: &str = ".tmp";
const BUILDING_DIR: &str = "building";
/// Snapshots kept on disk: the newest, and the one before it (it may still be streaming).
const SNAPSHOTS_KEPT: usize = 2;
/// The file in the snapshots directory that lists removed member ids.
const REMOVED_FILE: &str = "removed-members.json";

/// Why a committed entry or a snapshot could not be applied to the store.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("undecodable redo record in entry {index}: {reason}")]
    Decode { index: u64, reason: String },
    #[error("entry {index} carries commit {found} where the store expects {expected}")]
    Gap {
        index: u64,
        expected: u64,
        found: u64,
    },
    #[error("replaying commit {commit}: {source}")]
    Storage {
        commit: u64,
        source: quiver_storage::Error,
    },
    #[error("snapshot: {0}")]
    Snapshot(#[from] quiver_durability::Error),
    #[error("snapshot file {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

impl From<ApplyError> for io::Error {
    fn from(e: ApplyError) -> io::Error {
        io::Error::other(e)
    }
}

/// The store a member's state machine drives. The engine implements it over its database; the
/// crate's own [`StorageApplier`] implements it over a bare `Storage`.
///
/// Commits are numbered by the store, one per redo record, in log order; Raft indexes also
/// count blank and membership entries, so the two numberings differ and the state machine keeps
/// both.
pub trait Applier: Send + Sync + 'static {
    /// The newest commit the store holds, whether applied through Raft or (on a leader)
    /// committed in memory by a transaction whose entry is not applied yet.
    fn last_commit(&self) -> u64;

    /// Replays a committed record the store does not hold; its commit is `last_commit() + 1`.
    fn apply(&self, record: &RedoRecord) -> Result<(), ApplyError>;

    /// Makes every commit up to `commit` visible to readers: the applied watermark. Readers on
    /// every member read there, so none sees a change a majority has not stored.
    fn publish(&self, commit: u64);

    /// Writes a Quiver snapshot of the published state into `dir`. Returns its file and
    /// commit, or `None` for a store that never committed anything.
    fn write_snapshot(&self, dir: &Path) -> Result<Option<(PathBuf, u64)>, ApplyError>;

    /// Replaces the store's whole contents with the snapshot in `file` (an empty store for
    /// `None`) and publishes it; returns its commit.
    fn reset(&self, file: Option<&Path>) -> Result<u64, ApplyError>;
}

/// The crate's own store handle: a `Storage` whose readers see only applied commits, replaced
/// whole when a snapshot is installed or the store is rebuilt.
pub struct StorageApplier {
    storage: RwLock<Arc<Storage>>,
    /// The commit log every store this applier makes commits to (the engine's replicated log),
    /// or none for a store only the state machine writes.
    log: Option<Arc<dyn CommitLog>>,
    /// The newest commit whose schema change the loaded snapshot may already hold (see
    /// `quiver_durability`'s snapshot format): such a schema record is absorbed at replay.
    schema_bound: AtomicU64,
}

impl std::fmt::Debug for StorageApplier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StorageApplier")
            .field("last_commit", &self.last_commit())
            .finish_non_exhaustive()
    }
}

fn fresh_storage(log: Option<&Arc<dyn CommitLog>>) -> Arc<Storage> {
    let storage = Storage::new();
    storage.set_readers_follow_commits(false);
    if let Some(log) = log {
        storage.set_commit_log(Some(Arc::clone(log)));
    }
    storage
}

/// The commit log a replaced store is left with: a transaction that began on it before the
/// replacement cannot commit there (its commit number would collide with the new store's).
struct Retired;

impl CommitLog for Retired {
    fn append(&self, _record: &RedoRecord) -> Result<DurabilityTicket, AppendError> {
        Err(AppendError::Refused(
            "the store was replaced while the transaction ran (a snapshot was installed or \
             an unreplicated tail discarded); retry it"
                .to_string(),
        ))
    }
}

impl StorageApplier {
    pub fn new() -> Arc<StorageApplier> {
        Self::build(None)
    }

    /// An applier whose stores commit to `log` (the engine's transactions write to them on a
    /// leader). A store it replaces is retired: its commits fail from then on.
    pub fn with_commit_log(log: Arc<dyn CommitLog>) -> Arc<StorageApplier> {
        Self::build(Some(log))
    }

    fn build(log: Option<Arc<dyn CommitLog>>) -> Arc<StorageApplier> {
        Arc::new(StorageApplier {
            storage: RwLock::new(fresh_storage(log.as_ref())),
            log,
            schema_bound: AtomicU64::new(0),
        })
    }

    /// The current store. A snapshot install or a rebuild replaces it: hold the handle for one
    /// unit of work, not for ever.
    pub fn storage(&self) -> Arc<Storage> {
        self.storage.read().clone()
    }
}

/// How often a visibility wait looks for a replaced store: a store replaced meanwhile never
/// publishes the awaited commit, its successor does.
const STORE_RECHECK_MS: u64 = 200;

/// The engine reaches a member's store through this handle, never through a copy of the
/// `Arc` taken at open (see [`crate::replicated`]).
impl StoreHandle for StorageApplier {
    fn storage(&self) -> Arc<Storage> {
        StorageApplier::storage(self)
    }

    fn visible_wait(self: Arc<Self>, commit: u64) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(async move {
            let recheck = Duration::from_millis(STORE_RECHECK_MS);
            while tokio::time::timeout(recheck, self.storage().visible_wait(commit))
                .await
                .is_err()
            {}
        })
    }

    fn wait_visible(&self, commit: u64, deadline: Instant) -> bool {
        let recheck = Duration::from_millis(STORE_RECHECK_MS);
        loop {
            let slice = deadline.min(Instant::now() + recheck);
            if self.storage().wait_visible(commit, slice) {
                return true;
            }
            if slice >= deadline {
                return false;
            }
        }
    }
}

impl Applier for StorageApplier {
    fn last_commit(&self) -> u64 {
        self.storage.read().last_committed()
    }

    fn apply(&self, record: &RedoRecord) -> Result<(), ApplyError> {
        let storage = self.storage();
        let commit = record.commit;
        match storage.apply_redo(record) {
            Ok(()) => Ok(()),
            Err(
                quiver_storage::Error::SchemaRuleExists { .. }
                | quiver_storage::Error::SchemaRuleNotFound { .. },
            ) if commit <= self.schema_bound.load(Ordering::Acquire)
                && record.changes_schema_only() =>
            {
                // The snapshot already holds this schema change; keep the commit number
                // and its time.
                let time = record
                    .commit_time()
                    .map(|micros| RedoOp::CommitTime { micros });
                storage
                    .apply_redo(&RedoRecord {
                        commit,
                        ops: time.into_iter().collect(),
                    })
                    .map_err(|source| ApplyError::Storage { commit, source })
            }
            Err(source) => Err(ApplyError::Storage { commit, source }),
        }
    }

    fn publish(&self, commit: u64) {
        self.storage.read().advance_visible(commit);
    }

    fn write_snapshot(&self, dir: &Path) -> Result<Option<(PathBuf, u64)>, ApplyError> {
        let storage = self.storage();
        // The log already holds every commit the snapshot covers, durably.
        let info = quiver_durability::write_snapshot(
            &RealDisk,
            dir,
            &storage,
            0,
            SNAPSHOT_BLOCK_OPS_MAX,
            |_| Ok(()),
        )?;
        Ok(info.map(|i| (i.path, i.commit)))
    }

    fn reset(&self, file: Option<&Path>) -> Result<u64, ApplyError> {
        let storage = fresh_storage(None);
        let mut schema_bound = 0;
        if let Some(path) = file {
            let loaded = quiver_durability::load_snapshot(&RealDisk, path, &storage)?;
            schema_bound = loaded.schema_bound;
            storage.gc();
        }
        let commit = storage.last_committed();
        storage.advance_visible(commit);
        self.schema_bound.store(schema_bound, Ordering::Release);
        // Loaded without the log (loading is no commit); installed before anyone can write.
        if let Some(log) = &self.log {
            storage.set_commit_log(Some(Arc::clone(log)));
        }
        let old = std::mem::replace(&mut *self.storage.write(), storage);
        if self.log.is_some() {
            old.set_commit_log(Some(Arc::new(Retired)));
        }
        Ok(commit)
    }
}

/// A Raft snapshot's data: the Quiver snapshot file, or none for an empty store, and the ids
/// removed from the membership up to its last entry (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotData {
    pub file: Option<PathBuf>,
    pub removed: BTreeSet<NodeId>,
}

/// A Raft snapshot with Quiver's data.
pub type Snapshot = openraft::Snapshot<LeaderId, NodeId, Node, SnapshotData>;

/// A snapshot on disk.
#[derive(Clone, Debug)]
struct Stored {
    meta: SnapshotMeta,
    file: Option<PathBuf>,
    removed: BTreeSet<NodeId>,
    meta_path: PathBuf,
}

/// The JSON in a `.meta` file.
#[derive(Serialize, Deserialize)]
struct MetaFile {
    last_log_id: Option<LogId>,
    last_membership: StoredMembership,
    /// The data file's name in the same directory.
    data: Option<String>,
    /// Ids removed from the membership up to `last_log_id`; absent in files written before
    /// snapshots carried them.
    #[serde(default)]
    removed: BTreeSet<NodeId>,
}

/// The state machine openraft drives.
pub struct StateMachine {
    id: NodeId,
    applier: Arc<dyn Applier>,
    log: LogStore,
    dir: PathBuf,
    last_applied: Option<LogId>,
    membership: StoredMembership,
    /// The commit of the newest applied record: what is published.
    applied_commit: u64,
    current: Option<Stored>,
    /// Rebuilds done to discard a tail (see the crate docs), for tests and metrics.
    rebuilds: Arc<AtomicU64>,
    /// Ids dropped from the membership (see the module docs), shared with the member handle.
    removed: Arc<RwLock<BTreeSet<NodeId>>>,
    /// Snapshots received from a leader and installed, for metrics.
    installed: Arc<AtomicU64>,
    /// Snapshots built here, and builds that failed, for metrics.
    built: Arc<AtomicU64>,
    build_failures: Arc<AtomicU64>,
}

impl std::fmt::Debug for StateMachine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateMachine")
            .field("id", &self.id)
            .field("last_applied", &self.last_applied)
            .field("applied_commit", &self.applied_commit)
            .finish_non_exhaustive()
    }
}

/// Writes `bytes` to a new file at `path` and fsyncs it.
fn write_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> ApplyError + '_ {
    move |source| ApplyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl StateMachine {
    /// Opens the snapshots in `dir` and loads the newest into the store; openraft then re-applies
    /// the log from there up to the persisted committed id.
    pub fn open(
        id: NodeId,
        dir: impl AsRef<Path>,
        applier: Arc<dyn Applier>,
        log: LogStore,
    ) -> Result<StateMachine, ApplyError> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        let mut sm = StateMachine {
            id,
            applier,
            log,
            dir,
            last_applied: None,
            membership: StoredMembership::default(),
            applied_commit: 0,
            current: None,
            rebuilds: Arc::new(AtomicU64::new(0)),
            removed: Arc::new(RwLock::new(BTreeSet::new())),
            installed: Arc::new(AtomicU64::new(0)),
            built: Arc::new(AtomicU64::new(0)),
            build_failures: Arc::new(AtomicU64::new(0)),
        };
        let removed_path = sm.dir.join(REMOVED_FILE);
        match std::fs::read(&removed_path) {
            Ok(bytes) => {
                let ids: BTreeSet<NodeId> =
                    serde_json::from_slice(&bytes).map_err(|e| ApplyError::Io {
                        path: removed_path.clone(),
                        source: io::Error::new(io::ErrorKind::InvalidData, e),
                    })?;
                *sm.removed.write() = ids;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&removed_path)(e)),
        }
        let _ = std::fs::remove_dir_all(sm.dir.join(BUILDING_DIR));
        let mut all = sm.list()?;
        for path in std::mem::take(&mut all.1) {
            let _ = std::fs::remove_file(path);
        }
        if let Some(newest) = all.0.pop() {
            sm.applied_commit = sm.applier.reset(newest.file.as_deref())?;
            sm.last_applied = newest.meta.last_log_id;
            sm.membership = newest.meta.last_membership.clone();
            sm.current = Some(newest);
        } else {
            sm.applied_commit = sm.applier.reset(None)?;
        }
        Ok(sm)
    }

    /// The count of snapshots received and installed.
    pub fn install_counter(&self) -> Arc<AtomicU64> {
        self.installed.clone()
    }

    /// The counts of snapshots built here and of builds that failed.
    pub fn build_counters(&self) -> (Arc<AtomicU64>, Arc<AtomicU64>) {
        (self.built.clone(), self.build_failures.clone())
    }

    /// The count of rebuilds that discarded an unreplicated tail.
    pub fn rebuild_counter(&self) -> Arc<AtomicU64> {
        self.rebuilds.clone()
    }

    /// The ids removed from the membership so far (see the module docs).
    pub fn removed_members(&self) -> Arc<RwLock<BTreeSet<NodeId>>> {
        self.removed.clone()
    }

    /// Records the ids `next` drops from the current membership, durably, before `next`
    /// takes its place.
    fn record_removals(&self, next: &crate::types::Membership) -> Result<(), ApplyError> {
        let dropped: Vec<NodeId> = self
            .membership
            .membership()
            .nodes()
            .map(|(id, _)| *id)
            .filter(|id| next.get_node(id).is_none())
            .collect();
        self.remember_removed(dropped)
    }

    /// Adds `ids` to the removed set, durably; nothing is written when none is new.
    fn remember_removed(&self, ids: impl IntoIterator<Item = NodeId>) -> Result<(), ApplyError> {
        let mut all = self.removed.read().clone();
        let before = all.len();
        all.extend(ids);
        if all.len() == before {
            return Ok(());
        }
        let ids = all;
        let path = self.dir.join(REMOVED_FILE);
        let temp = self.dir.join(format!("{REMOVED_FILE}{TEMP_SUFFIX}"));
        let bytes = serde_json::to_vec(&ids).map_err(|e| ApplyError::Io {
            path: path.clone(),
            source: io::Error::other(e),
        })?;
        write_synced(&temp, &bytes).map_err(io_err(&temp))?;
        std::fs::rename(&temp, &path).map_err(io_err(&path))?;
        sync_dir(&self.dir).map_err(io_err(&self.dir))?;
        *self.removed.write() = ids;
        Ok(())
    }

    /// Complete snapshots, oldest first, and leftovers to remove.
    fn list(&self) -> Result<(Vec<Stored>, Vec<PathBuf>), ApplyError> {
        let mut complete = Vec::new();
        let mut leftovers = Vec::new();
        for dirent in std::fs::read_dir(&self.dir).map_err(io_err(&self.dir))? {
            let dirent = dirent.map_err(io_err(&self.dir))?;
            let path = dirent.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if name.starts_with(INCOMING_PREFIX) || name.ends_with(TEMP_SUFFIX) {
                leftovers.push(path);
                continue;
            }
            if !name.ends_with(META_SUFFIX) {
                continue;
            }
            let bytes = std::fs::read(&path).map_err(io_err(&path))?;
            let Ok(m) = serde_json::from_slice::<MetaFile>(&bytes) else {
                tracing::warn!(file = %path.display(), "unreadable snapshot meta ignored");
                continue;
            };
            let file = m.data.map(|d| self.dir.join(d));
            if file.as_ref().is_some_and(|f| !f.exists()) {
                continue;
            }
            complete.push(Stored {
                meta: SnapshotMeta {
                    last_log_id: m.last_log_id,
                    last_membership: m.last_membership,
                },
                file,
                removed: m.removed,
                meta_path: path,
            });
        }
        complete.sort_by_key(|s| (s.meta.last_log_id, s.meta_path.clone()));
        Ok((complete, leftovers))
    }

    /// Puts a snapshot whose data file is `data` (anywhere) in place as the current one;
    /// `removed` is the removed set as of its last entry.
    fn store(
        &mut self,
        meta: &SnapshotMeta,
        data: Option<&Path>,
        removed: BTreeSet<NodeId>,
    ) -> Result<Stored, ApplyError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let (index, term) = meta
            .last_log_id
            .map_or((0, 0), |l| (l.index, l.leader_id.term));
        let stem = format!("raft-{index:020}-{term}-{nanos}");
        let file = match data {
            None => None,
            Some(src) => {
                let dst = self.dir.join(format!("{stem}{DATA_SUFFIX}"));
                if src.parent() == Some(self.dir.as_path())
                    || src.parent().and_then(Path::parent) == Some(self.dir.as_path())
                {
                    std::fs::rename(src, &dst).map_err(io_err(&dst))?;
                } else {
                    std::fs::copy(src, &dst).map_err(io_err(&dst))?;
                    std::fs::File::open(&dst)
                        .and_then(|f| f.sync_all())
                        .map_err(io_err(&dst))?;
                }
                Some(dst)
            }
        };
        let meta_path = self.dir.join(format!("{stem}{META_SUFFIX}"));
        let m = MetaFile {
            last_log_id: meta.last_log_id,
            last_membership: meta.last_membership.clone(),
            data: file
                .as_ref()
                .and_then(|f| f.file_name())
                .and_then(|n| n.to_str())
                .map(str::to_owned),
            removed: removed.clone(),
        };
        let tmp = self.dir.join(format!("{stem}{META_SUFFIX}{TEMP_SUFFIX}"));
        let bytes = serde_json::to_vec(&m).map_err(|e| io_err(&tmp)(io::Error::other(e)))?;
        (|| {
            std::fs::write(&tmp, &bytes)?;
            std::fs::File::open(&tmp)?.sync_all()?;
            std::fs::rename(&tmp, &meta_path)?;
            sync_dir(&self.dir)
        })()
        .map_err(io_err(&meta_path))?;
        let stored = Stored {
            meta: meta.clone(),
            file,
            removed,
            meta_path,
        };
        self.current = Some(stored.clone());
        self.remove_old();
        Ok(stored)
    }

    fn remove_old(&self) {
        let Ok((complete, _)) = self.list() else {
            return;
        };
        let n = complete.len().saturating_sub(SNAPSHOTS_KEPT);
        for old in &complete[..n] {
            let _ = std::fs::remove_file(&old.meta_path);
            if let Some(f) = &old.file {
                let _ = std::fs::remove_file(f);
            }
        }
    }

    /// Applies the redo records of one entry. A record this member's store already holds is one
    /// its own transaction committed in memory as leader: it is only published.
    fn apply_redo(&mut self, entry: &Entry, bytes: &[u8]) -> Result<u64, ApplyError> {
        let index = entry.log_id.index;
        let own = entry.log_id.leader_id.node_id == self.id;
        let mut at = 0;
        while at < bytes.len() {
            let (record, used) =
                RedoRecord::decode(&bytes[at..]).map_err(|e| ApplyError::Decode {
                    index,
                    reason: e.to_string(),
                })?;
            at += used;
            let mut held = self.applier.last_commit();
            if record.commit <= held && !own {
                // Another leader's record at a commit this store already holds: the store has
                // a tail that is not in the cluster's history. Discard it.
                blocking_section(|| self.rebuild())?;
                held = self.applier.last_commit();
            }
            if record.commit > held {
                if record.commit != held + 1 {
                    return Err(ApplyError::Gap {
                        index,
                        expected: held + 1,
                        found: record.commit,
                    });
                }
                self.applier.apply(&record)?;
            }
            self.applier.publish(record.commit);
            self.applied_commit = record.commit;
        }
        Ok(self.applied_commit)
    }

    /// Rebuilds the store when it holds commits past the applied one (see
    /// [`crate::Cluster::discard_tail`]).
    pub fn discard_tail(&mut self) -> Result<(), ApplyError> {
        if self.applier.last_commit() > self.applied_commit {
            blocking_section(|| self.rebuild())?;
        }
        Ok(())
    }

    /// Rebuilds the store from the current snapshot and the log up to the last applied entry,
    /// dropping whatever the store held beyond it.
    pub fn rebuild(&mut self) -> Result<(), ApplyError> {
        let file = self.current.as_ref().and_then(|s| s.file.clone());
        let from = self
            .current
            .as_ref()
            .and_then(|s| s.meta.last_log_id)
            .map_or(0, |l| l.index + 1);
        let upto = self.last_applied.map_or(0, |l| l.index);
        tracing::warn!(
            member = self.id,
            discarded_from = self.applied_commit + 1,
            discarded_to = self.applier.last_commit(),
            "discarding the store's unreplicated tail: rebuilding from the snapshot and the log"
        );
        self.applied_commit = self.applier.reset(file.as_deref())?;
        if upto >= from {
            for entry in self.log.entries(from..=upto) {
                if let EntryPayload::Normal(redo) = &entry.payload {
                    let mut at = 0;
                    while at < redo.0.len() {
                        let (record, used) =
                            RedoRecord::decode(&redo.0[at..]).map_err(|e| ApplyError::Decode {
                                index: entry.log_id.index,
                                reason: e.to_string(),
                            })?;
                        at += used;
                        if record.commit > self.applier.last_commit() {
                            self.applier.apply(&record)?;
                        }
                        self.applied_commit = record.commit;
                    }
                }
            }
        }
        self.applier.publish(self.applied_commit);
        self.rebuilds.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Builds a snapshot, counted as built or failed.
    fn build(&mut self) -> Result<Snapshot, ApplyError> {
        let snapshot = self.build_files();
        let counter = match snapshot {
            Ok(_) => &self.built,
            Err(_) => &self.build_failures,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        snapshot
    }

    /// Writes the published store and its meta as a snapshot, and hands it out.
    fn build_files(&mut self) -> Result<Snapshot, ApplyError> {
        let building = self.dir.join(BUILDING_DIR);
        let _ = std::fs::remove_dir_all(&building);
        std::fs::create_dir_all(&building).map_err(io_err(&building))?;
        let written = self.applier.write_snapshot(&building)?;
        if let Some((_, commit)) = &written {
            debug_assert_eq!(*commit, self.applied_commit);
        }
        let meta = SnapshotMeta {
            last_log_id: self.last_applied,
            last_membership: self.membership.clone(),
        };
        // The state machine applies one entry at a time, so the set is the one as of
        // `last_applied`, the snapshot's last entry.
        let removed = self.removed.read().clone();
        let stored = self.store(&meta, written.as_ref().map(|(p, _)| p.as_path()), removed)?;
        let _ = std::fs::remove_dir_all(&building);
        tracing::info!(
            member = self.id,
            last_log_id = ?meta.last_log_id,
            commit = self.applied_commit,
            "snapshot built"
        );
        Ok(openraft::Snapshot {
            meta,
            snapshot: SnapshotData {
                file: stored.file,
                removed: stored.removed,
            },
        })
    }
}

/// Runs file-heavy work (writing, loading or rebuilding the store) where it stalls no other
/// task: in place of the async worker on a multi-threaded runtime, inline on any other.
fn blocking_section<T>(work: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(work)
        }
        _ => work(),
    }
}

/// Hands out a snapshot the state machine built before returning the builder: the build holds
/// the state machine so that the snapshot and its meta agree (see the crate docs).
pub struct Built(Option<Snapshot>);

impl RaftSnapshotBuilder<TypeConfig> for Built {
    type SnapshotData = SnapshotData;

    async fn build_snapshot(&mut self) -> Result<Snapshot, io::Error> {
        self.0
            .take()
            .ok_or_else(|| io::Error::other("snapshot already handed out"))
    }
}

impl RaftStateMachine<TypeConfig> for StateMachine {
    type SnapshotData = SnapshotData;
    type SnapshotBuilder = Built;

    async fn applied_state(&mut self) -> Result<(Option<LogId>, StoredMembership), io::Error> {
        Ok((self.last_applied, self.membership.clone()))
    }

    async fn apply<Strm>(&mut self, mut entries: Strm) -> Result<(), io::Error>
    where
        Strm: Stream<Item = Result<EntryResponder<TypeConfig>, io::Error>> + Unpin + Send,
    {
        if self.log.take_truncated() && self.applier.last_commit() > self.applied_commit {
            // A truncation removed entries this store may hold in memory (a deposed leader's
            // unreplicated tail): start over from what is committed.
            blocking_section(|| self.rebuild())?;
        }
        while let Some((entry, responder)) = entries.try_next().await? {
            let commit = match &entry.payload {
                EntryPayload::Blank => 0,
                EntryPayload::Normal(redo) => self.apply_redo(&entry, &redo.0)?,
                EntryPayload::Membership(m) => {
                    blocking_section(|| self.record_removals(m))?;
                    self.membership = StoredMembership::new(Some(entry.log_id), m.clone());
                    0
                }
            };
            self.last_applied = Some(entry.log_id);
            if let Some(r) = responder {
                r.send(Applied { commit });
            }
        }
        Ok(())
    }

    async fn try_create_snapshot_builder(&mut self, _force: bool) -> Option<Built> {
        match blocking_section(|| self.build()) {
            Ok(s) => Some(Built(Some(s))),
            Err(e) => {
                tracing::error!(member = self.id, error = %e, "building a snapshot failed");
                None
            }
        }
    }

    async fn get_snapshot_builder(&mut self) -> Built {
        Built(blocking_section(|| self.build()).ok())
    }

    async fn install_snapshot(
        &mut self,
        meta: &SnapshotMeta,
        snapshot: SnapshotData,
    ) -> Result<(), io::Error> {
        blocking_section(|| {
            self.remember_removed(snapshot.removed.iter().copied())?;
            self.record_removals(meta.last_membership.membership())
        })?;
        let removed = self.removed.read().clone();
        let stored = blocking_section(|| self.store(meta, snapshot.file.as_deref(), removed))?;
        self.applied_commit = blocking_section(|| self.applier.reset(stored.file.as_deref()))?;
        self.last_applied = meta.last_log_id;
        self.membership = meta.last_membership.clone();
        self.installed.fetch_add(1, Ordering::Relaxed);
        tracing::info!(
            member = self.id,
            last_log_id = ?meta.last_log_id,
            commit = self.applied_commit,
            "snapshot installed"
        );
        Ok(())
    }

    async fn get_current_snapshot(&mut self) -> Result<Option<Snapshot>, io::Error> {
        Ok(self.current.as_ref().map(|s| openraft::Snapshot {
            meta: s.meta.clone(),
            snapshot: SnapshotData {
                file: s.file.clone(),
                removed: s.removed.clone(),
            },
        }))
    }
}

/// The directory name incoming snapshot transfers are written to before they are installed.
pub(crate) fn incoming_path(dir: &Path, tag: &str) -> PathBuf {
    dir.join(format!("{INCOMING_PREFIX}{tag}{TEMP_SUFFIX}"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use openraft::storage::{IOFlushed, RaftLogStorage, RaftStateMachine};
    use parking_lot::Mutex;
    use quiver_storage::{CommitLog, DurabilityTicket, RedoRecord, Storage};
    use quiver_value::Value;

    use super::*;
    use crate::types::{Payload, Redo};

    #[derive(Default)]
    struct Capture(Mutex<Option<Vec<u8>>>);

    impl CommitLog for Capture {
        fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, AppendError> {
            *self.0.lock() = Some(record.encode());
            Ok(DurabilityTicket(record.commit))
        }
    }

    /// Commits one named node in memory, as a leader's transaction does; returns its record.
    fn commit_item(storage: &Arc<Storage>, name: &str) -> Vec<u8> {
        let capture = Arc::new(Capture::default());
        storage.set_commit_log(Some(capture.clone()));
        let label = storage.get_or_create_label("Item").unwrap();
        let key = storage.get_or_create_property_key("name").unwrap();
        let tx = storage.begin_write();
        tx.create_node(&[label], &[(key, Value::from(name))])
            .unwrap();
        tx.commit().unwrap();
        storage.set_commit_log(None);
        let bytes = capture.0.lock().take();
        bytes.unwrap()
    }

    fn names(applier: &StorageApplier) -> Vec<String> {
        let storage = applier.storage();
        let tx = storage.begin_read();
        tx.export()
            .unwrap()
            .map(|op| format!("{:?}", op.unwrap()))
            .filter(|op| op.starts_with("CreateNode"))
            .collect()
    }

    fn entry(term: u64, node_id: NodeId, index: u64, payload: Payload) -> Entry {
        Entry {
            log_id: LogId::new(LeaderId { term, node_id }, index),
            payload,
        }
    }

    struct Member {
        _dir: tempfile::TempDir,
        log: LogStore,
        applier: Arc<StorageApplier>,
        sm: StateMachine,
    }

    fn member(id: NodeId) -> Member {
        let dir = tempfile::tempdir().unwrap();
        let log = LogStore::open(dir.path().join("raft"), 1 << 20).unwrap();
        let applier = StorageApplier::new();
        let sm = StateMachine::open(
            id,
            dir.path().join("snapshots"),
            applier.clone(),
            log.clone(),
        )
        .unwrap();
        Member {
            _dir: dir,
            log,
            applier,
            sm,
        }
    }

    impl Member {
        async fn append(&mut self, e: &Entry) {
            self.log
                .append(vec![e.clone()], IOFlushed::noop())
                .await
                .unwrap();
        }

        async fn apply(&mut self, e: &Entry) {
            let items = vec![Ok((e.clone(), None))];
            self.sm
                .apply(futures_util::stream::iter(items))
                .await
                .unwrap();
        }
    }

    #[tokio::test]
    async fn a_leader_publishes_its_own_records_without_replaying_them() {
        let mut m = member(1);
        let storage = m.applier.storage();
        let rec = commit_item(&storage, "a");
        assert_eq!(
            storage.visible_watermark(),
            0,
            "not visible before it is applied"
        );
        let e = entry(1, 1, 1, Payload::Normal(Redo(rec)));
        m.append(&e).await;
        m.apply(&e).await;
        assert_eq!(storage.last_committed(), 1, "applied once, not twice");
        assert_eq!(storage.visible_watermark(), 1);
        assert_eq!(m.sm.rebuilds.load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn a_tail_that_never_reached_the_log_is_discarded() {
        let mut m = member(1);
        let rec1 = commit_item(&m.applier.storage(), "agreed");
        let e1 = entry(1, 1, 1, Payload::Normal(Redo(rec1.clone())));
        m.append(&e1).await;
        m.apply(&e1).await;
        // A commit in memory whose write was refused before it was appended.
        commit_item(&m.applier.storage(), "lost");
        // Another leader's commit 2, built on the agreed state.
        let other = StorageApplier::new();
        other.apply(&RedoRecord::decode(&rec1).unwrap().0).unwrap();
        let rec2 = commit_item(&other.storage(), "won");
        let e2 = entry(2, 2, 2, Payload::Normal(Redo(rec2)));
        m.append(&e2).await;
        m.apply(&e2).await;
        let got = names(&m.applier);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().any(|n| n.contains("won")) && !got.iter().any(|n| n.contains("lost")));
        assert_eq!(m.applier.last_commit(), 2);
        assert_eq!(m.sm.rebuilds.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_replaced_store_keeps_the_log_and_the_old_one_refuses_commits() {
        let capture: Arc<dyn CommitLog> = Arc::new(Capture::default());
        let applier = StorageApplier::with_commit_log(Arc::clone(&capture));
        let old = applier.storage();
        let label = old.get_or_create_label("Item").unwrap();
        let begun = old.begin_write();
        begun.create_node(&[label], &[]).unwrap();
        applier.reset(None).unwrap();
        let new = applier.storage();
        assert!(!Arc::ptr_eq(&old, &new));
        assert!(new.commit_log().is_some_and(|l| Arc::ptr_eq(&l, &capture)));
        assert!(
            begun.commit().is_err(),
            "a transaction begun on the replaced store must not commit"
        );
        let tx = new.begin_write();
        let label = new.get_or_create_label("Item").unwrap();
        tx.create_node(&[label], &[]).unwrap();
        tx.commit().unwrap();
        assert_eq!(new.last_committed(), 1);
    }

    #[tokio::test]
    async fn a_truncated_tail_is_discarded_before_the_next_apply() {
        let mut m = member(1);
        let rec1 = commit_item(&m.applier.storage(), "agreed");
        let e1 = entry(1, 1, 1, Payload::Normal(Redo(rec1)));
        m.append(&e1).await;
        m.apply(&e1).await;
        // Appended but never committed: a newer leader's log overwrites it.
        let lost = commit_item(&m.applier.storage(), "lost");
        m.append(&entry(1, 1, 2, Payload::Normal(Redo(lost)))).await;
        m.log.truncate_after(Some(e1.log_id)).await.unwrap();
        let blank = entry(2, 2, 2, Payload::Blank);
        m.append(&blank).await;
        m.apply(&blank).await;
        assert_eq!(m.applier.last_commit(), 1, "the store dropped its tail");
        assert_eq!(names(&m.applier).len(), 1);
        assert_eq!(m.sm.rebuilds.load(Ordering::Relaxed), 1);
    }
}
