//! A cluster member's commit log: the store's commits, proposed to the Raft log.
//!
//! A commit's redo record is one Raft entry (or part of one: records queued while an entry is
//! in flight travel together in the next, group commit without a second fsync). The commit path
//! hands the record to [`ReplicatedLog::append`] under the store's commit lock, which only
//! queues it; one task takes records in commit order and proposes them with `client_write`, so
//! nothing waits under the lock. A ticket is acknowledged once its entry is committed by a
//! majority and applied here: the state machine has published its commit to readers by then.
//!
//! Only the leader commits. On any other member, and on a leader that has not yet applied its
//! predecessors' entries (its first entry of the term), [`CommitLog::not_leader`] names the
//! refusal: the engine sees leadership only there, and the servers turn a write into
//! `Neo.ClientError.Cluster.NotALeader` before it does any work; drivers then refresh their
//! routing table and retry on the leader.
//!
//! # When a write of the leader's own fails
//!
//! A proposal refused before it was appended (leadership lost, no lease) or lost with a
//! leader change leaves its commit, and every commit queued behind it, in the store's memory
//! but not in the cluster's history. The log then ends a *generation*: every ticket of it past
//! the last acknowledged commit fails, new writes are refused, and the member discards the
//! tail ([`StateMachine::discard_tail`], a rebuild from the snapshot and the log)
//! before it takes writes again, so no later commit builds on a lost one. Commit numbers after
//! the rebuild repeat the lost ones, which is why a ticket names its generation beside its
//! commit: a waiter for a lost commit can never be answered by a later commit of the same
//! number.
//!
//! # The store is replaced whole
//!
//! Installing a snapshot or discarding a tail gives the member a new `Storage`; the database
//! reaches its store through the state machine's one handle ([`StorageApplier`], the engine's
//! `StoreHandle`), never a copy taken at open, and a transaction begun on the old store cannot
//! commit there (its log is retired). Replacing the `Arc` behind one handle was chosen over clearing a store in place:
//! the store's arenas, token tables and indexes are append-only by design, and a transaction
//! reading the old store keeps a consistent snapshot until it ends.

use std::collections::{BTreeMap, VecDeque};

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, Weak};
use std::time::{Duration, Instant};
use tracing::Instrument as _;

use openraft::ServerState;
use openraft::async_runtime::watch::WatchReceiver;
use parking_lot::Mutex;
use quiver_storage::{
    AcknowledgeWait, AppendError, CommitLog, DurabilityTicket, LogError, RedoRecord,
};
use tokio::sync::{Notify, mpsc};

use crate::error::ClusterError;
use crate::state_machine::{Applier, StateMachine, StorageApplier};
use crate::types::{NodeId, Raft, Redo};

/// Bits of a ticket that hold the commit number; the generation sits above them. 2^40 commits
/// per generation is far beyond any store's life.
const COMMIT_BITS: u32 = 40;
const COMMIT_MASK: u64 = (1 << COMMIT_BITS) - 1;
/// Bytes of records sent as one entry at most (a burst past it goes in the next entry).
const ENTRY_BYTES_MAX: usize = 1 << 20;
/// Ended generations remembered for late waiters.
const GENERATIONS_KEPT: usize = 64;
/// A plain commit wait (a read horizon) rechecks the generation this often while the commit is
/// not visible: the store it waits on may be replaced.
const HORIZON_RECHECK_MS: u64 = 50;
/// Longest wait for the store to publish a commit whose record was queued. The committer
/// publishes a few instructions after queueing, under the commit lock, so this passes only if
/// the store was replaced meanwhile; the record is then not proposed and its generation ends.
const PUBLISH_WAIT_MAX: Duration = Duration::from_secs(5);

fn ticket(generation: u64, commit: u64) -> DurabilityTicket {
    DurabilityTicket((generation << COMMIT_BITS) | (commit & COMMIT_MASK))
}

fn split(ticket: DurabilityTicket) -> (u64, u64) {
    (ticket.0 >> COMMIT_BITS, ticket.0 & COMMIT_MASK)
}

/// What the log knows of its tickets' fate.
#[derive(Debug)]
struct Fate {
    /// Starts at 1: a ticket with generation 0 is a plain commit number (a read horizon).
    generation: u64,
    /// The newest of this generation's commits a majority acknowledged.
    acked: u64,
    /// Ended generations: the last commit acknowledged in each and why the rest failed.
    ended: BTreeMap<u64, (u64, String)>,
    /// Set from a failure until the tail is discarded: new writes are refused meanwhile.
    recovering: Option<String>,
}

/// The leader as this member last saw it, for refusals and routing.
#[derive(Clone, Debug, Default)]
struct Leadership {
    /// This member leads and has applied its first entry of the term.
    ready: bool,
    leader: Option<NodeId>,
    leader_bolt: Option<String>,
}

/// The commit log of a cluster member (see the module docs).
pub struct ReplicatedLog {
    /// This member's id.
    id: NodeId,
    queue: mpsc::UnboundedSender<Queued>,
    fate: Mutex<Fate>,
    settled: Notify,
    leadership: Mutex<Leadership>,
    /// Set by [`crate::Member::hand_over`]: the member is stopping and takes no new writes.
    pub(crate) stepping_down: AtomicBool,
    /// The store handle, for read-horizon waits.
    pub(crate) applier: OnceLock<Weak<StorageApplier>>,
    /// The runtime the member runs on: blocking waits are driven on the caller's thread while
    /// this runtime drives their timers and wakes them.
    runtime: tokio::runtime::Handle,
    /// Told how long each entry took from its proposal to its commit by a majority (see
    /// [`crate::Member::observe_appends`]).
    pub(crate) append_observer: OnceLock<AppendObserver>,
}

/// What [`crate::Member::observe_appends`] installs.
pub(crate) type AppendObserver = Box<dyn Fn(Duration) + Send + Sync>;

impl std::fmt::Debug for ReplicatedLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplicatedLog")
            .field("fate", &*self.fate.lock())
            .finish_non_exhaustive()
    }
}

/// What a wait for a ticket finds now.
enum Found {
    Acked,
    Failed(String),
    Pending,
}

impl ReplicatedLog {
    /// Called on the runtime the member runs on.
    pub(crate) fn new(id: NodeId) -> (Arc<ReplicatedLog>, mpsc::UnboundedReceiver<Queued>) {
        let (queue, rx) = mpsc::unbounded_channel();
        let log = Arc::new(ReplicatedLog {
            id,
            queue,
            fate: Mutex::new(Fate {
                generation: 1,
                acked: 0,
                ended: BTreeMap::new(),
                recovering: None,
            }),
            settled: Notify::new(),
            leadership: Mutex::new(Leadership::default()),
            stepping_down: AtomicBool::new(false),
            applier: OnceLock::new(),
            runtime: tokio::runtime::Handle::current(),
            append_observer: OnceLock::new(),
        });
        (log, rx)
    }

    /// Why this member takes no write now, in the words a client is shown; `None` on a leader
    /// ready to commit. Drivers answer it by finding the leader and retrying.
    fn refusal(&self) -> Option<String> {
        if self.stepping_down.load(Ordering::Acquire) {
            return Some("this member is stopping and has handed leadership over".to_string());
        }
        if let Some(reason) = &self.fate.lock().recovering {
            return Some(reason.clone());
        }
        let l = self.leadership.lock();
        if l.ready {
            return None;
        }
        Some(match (l.leader, &l.leader_bolt) {
            (Some(id), _) if id == self.id => {
                "this member was just elected and is still applying its predecessors' \
                 entries; retry"
                    .to_string()
            }
            (Some(id), Some(bolt)) => {
                format!("this member is not the leader; the leader is member {id} (bolt {bolt})")
            }
            _ => "this member is not the leader, and no leader is known now (an election \
                  is under way); retry"
                .to_string(),
        })
    }

    fn found(&self, ticket: DurabilityTicket) -> Found {
        let (generation, commit) = split(ticket);
        let fate = self.fate.lock();
        if generation == 0 {
            // A read horizon: a commit of the current store, visible once applied.
            let visible = self
                .applier
                .get()
                .and_then(Weak::upgrade)
                .map_or(0, |a| a.storage().visible_watermark());
            return if commit <= visible.max(fate.acked) {
                Found::Acked
            } else {
                Found::Pending
            };
        }
        if generation == fate.generation {
            return if commit <= fate.acked {
                Found::Acked
            } else {
                Found::Pending
            };
        }
        match fate.ended.get(&generation) {
            Some((acked, _)) if commit <= *acked => Found::Acked,
            Some((_, reason)) => Found::Failed(reason.clone()),
            None => Found::Failed(
                "the commit's outcome is no longer known (too many leader changes since)"
                    .to_string(),
            ),
        }
    }

    /// Settles a batch that a majority acknowledged.
    fn acknowledged(&self, generation: u64, commit: u64) {
        let mut fate = self.fate.lock();
        if fate.generation == generation {
            fate.acked = fate.acked.max(commit);
        }
        drop(fate);
        self.settled.notify_waiters();
    }

    /// Ends the generation after a failed proposal: its unacknowledged tickets fail with
    /// `reason`, and writes are refused until [`ReplicatedLog::recovered`].
    fn fail_generation(&self, reason: &str) -> u64 {
        let mut fate = self.fate.lock();
        let generation = fate.generation;
        let acked = fate.acked;
        fate.ended.insert(generation, (acked, reason.to_string()));
        while fate.ended.len() > GENERATIONS_KEPT {
            fate.ended.pop_first();
        }
        fate.generation += 1;
        fate.recovering = Some(format!(
            "this member's last write failed ({reason}); it is discarding the uncommitted \
             tail before it takes writes again; retry"
        ));
        drop(fate);
        self.settled.notify_waiters();
        generation
    }

    /// The tail is gone: the store's last commit is the acknowledged point of the new
    /// generation, and writes are taken again.
    pub(crate) fn recovered(&self, last_commit: u64) {
        let mut fate = self.fate.lock();
        fate.acked = last_commit;
        fate.recovering = None;
        drop(fate);
        self.settled.notify_waiters();
    }

    /// Blocking callers (the query threads, outside the runtime) drive the async wait on
    /// their own thread; the member's runtime drives its timers and wakes it. Nothing is built
    /// per wait.
    fn wait_blocking(&self, ticket: DurabilityTicket) -> Result<(), LogError> {
        use tokio::runtime::{Handle, RuntimeFlavor};
        match Handle::try_current().map(|h| h.runtime_flavor()) {
            Err(_) => self.runtime.block_on(self.wait_for(ticket)),
            // A worker of a multi-threaded runtime hands its other tasks on before it blocks.
            Ok(RuntimeFlavor::MultiThread) => {
                tokio::task::block_in_place(|| self.runtime.block_on(self.wait_for(ticket)))
            }
            Ok(_) => Err(LogError::Failed(
                "a blocking wait for a replicated commit cannot run on a single-threaded \
                 runtime; use the asynchronous wait"
                    .to_string(),
            )),
        }
    }

    async fn wait_for(&self, ticket: DurabilityTicket) -> Result<(), LogError> {
        loop {
            let notified = self.settled.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            match self.found(ticket) {
                Found::Acked => return Ok(()),
                Found::Failed(reason) => return Err(LogError::Failed(reason)),
                Found::Pending => {}
            }
            if split(ticket).0 == 0 {
                // Visibility advances without this log's notice (replicated commits).
                let _ =
                    tokio::time::timeout(Duration::from_millis(HORIZON_RECHECK_MS), notified).await;
            } else {
                notified.await;
            }
        }
    }
}

impl CommitLog for ReplicatedLog {
    fn append(&self, record: &RedoRecord) -> Result<DurabilityTicket, AppendError> {
        if let Some(reason) = self.refusal() {
            return Err(AppendError::Refused(reason));
        }
        // The refusal and the generation are read, and the record queued, under one lock: a
        // record queued after a failure ended its generation would build on the lost tail.
        let fate = self.fate.lock();
        if let Some(reason) = &fate.recovering {
            return Err(AppendError::Refused(reason.clone()));
        }
        let generation = fate.generation;
        // The span of the commit that queues it (disabled when that is not traced): its Raft
        // round is traced below it.
        self.queue
            .send((
                generation,
                record.commit,
                record.encode(),
                quiver_telemetry::current_traced(),
            ))
            .map_err(|_| AppendError::Closed("the cluster member is stopping"))?;
        drop(fate);
        Ok(ticket(generation, record.commit))
    }

    fn wait(&self, ticket: DurabilityTicket) -> Result<(), LogError> {
        match self.found(ticket) {
            Found::Acked => Ok(()),
            Found::Failed(reason) => Err(LogError::Failed(reason)),
            Found::Pending => self.wait_blocking(ticket),
        }
    }

    fn wait_async(self: Arc<Self>, ticket: DurabilityTicket) -> AcknowledgeWait {
        Box::pin(async move { self.wait_for(ticket).await })
    }

    fn writes_refused(&self) -> Option<String> {
        self.refusal()
    }

    fn not_leader(&self) -> Option<String> {
        self.refusal()
    }
}

/// A queued record: its generation, its commit, its bytes, and the span of the commit that
/// queued it.
type Queued = (u64, u64, Vec<u8>, tracing::Span);

/// The span of one Raft round (an entry of `commits` commits proposed, replicated to a
/// majority and applied): a child of the first traced commit it carries, linked from the
/// others; disabled when none of its commits is traced.
fn round_span(traced: &[tracing::Span], commits: usize, bytes: usize) -> tracing::Span {
    let Some(first) = traced.first() else {
        return tracing::Span::none();
    };
    let span = tracing::info_span!(
        target: quiver_telemetry::TARGET,
        parent: first,
        "raft replicate",
        raft.commits = commits,
        raft.entry.bytes = bytes,
        raft.log.index = tracing::field::Empty,
    );
    for other in &traced[1..] {
        span.follows_from(other);
    }
    span
}

/// Proposes queued records in commit order, one entry in flight at a time; records queued
/// meanwhile go together in the next entry.
pub(crate) async fn propose(
    log: Arc<ReplicatedLog>,
    raft: Raft,
    mut queue: mpsc::UnboundedReceiver<Queued>,
) {
    let mut pending: VecDeque<Queued> = VecDeque::new();
    loop {
        if pending.is_empty() {
            match queue.recv().await {
                Some(item) => pending.push_back(item),
                None => return,
            }
        }
        while let Ok(item) = queue.try_recv() {
            pending.push_back(item);
        }
        let current = log.fate.lock().generation;
        // Records of an ended generation already failed.
        pending.retain(|(g, _, _, _)| *g == current);
        let mut bytes = Vec::new();
        let mut last = None;
        let mut traced = Vec::new();
        let mut commits = 0;
        while let Some((_, commit, record, span)) = pending.front() {
            if !bytes.is_empty() && bytes.len() + record.len() > ENTRY_BYTES_MAX {
                break;
            }
            bytes.extend_from_slice(record);
            last = Some(*commit);
            commits += 1;
            if !span.is_disabled() {
                traced.push(span.clone());
            }
            pending.pop_front();
        }
        let Some(last) = last else { continue };
        let written = if published(&log, last).await {
            let proposed = Instant::now();
            let round = round_span(&traced, commits, bytes.len());
            let written = raft
                .client_write(Redo(bytes))
                .instrument(round.clone())
                .await
                .map_err(|e| ClusterError::from(e).to_string());
            if let Ok(response) = &written {
                round.record("raft.log.index", response.log_id.index);
            }
            if written.is_ok()
                && let Some(observe) = log.append_observer.get()
            {
                observe(proposed.elapsed());
            }
            written
        } else {
            Err(format!(
                "commit {last} was not published by the store within {} ms",
                PUBLISH_WAIT_MAX.as_millis()
            ))
        };
        match written {
            Ok(_) => log.acknowledged(current, last),
            Err(error) => {
                tracing::warn!(%error, commit = last, "a replicated write failed; discarding the tail");
                log.fail_generation(&error);
                pending.clear();
                while queue.try_recv().is_ok() {}
                discard_tail(&log, &raft).await;
            }
        }
    }
}

/// Waits until the store has published `commit` (its last committed is at least it). A record
/// is queued under the commit lock just before the commit is published; proposed earlier, Raft
/// could commit and apply it before the store had published it, and the state machine, finding
/// the record newer than the store, would replay it over the transaction's own changes. Once
/// published, the state machine finds it held and only makes it visible. `false` if the store
/// never published it (it was replaced meanwhile).
async fn published(log: &ReplicatedLog, commit: u64) -> bool {
    let Some(applier) = log.applier.get().and_then(Weak::upgrade) else {
        return true;
    };
    let deadline = Instant::now() + PUBLISH_WAIT_MAX;
    while Applier::last_commit(&*applier) < commit {
        if Instant::now() >= deadline {
            return false;
        }
        tokio::task::yield_now().await;
    }
    true
}

/// Rebuilds the store without its unreplicated tail, retrying while the state machine is
/// busy; then takes writes again.
async fn discard_tail(log: &ReplicatedLog, raft: &Raft) {
    loop {
        let done = raft
            .with_state_machine(|sm: &mut StateMachine| Box::pin(async move { sm.discard_tail() }))
            .await;
        match done {
            Ok(Ok(())) => break,
            Ok(Err(error)) => {
                tracing::error!(%error, "discarding the unreplicated tail failed; retrying");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            // Raft stopped: the member is going away, no write will be taken again.
            Err(_) => return,
        }
    }
    let last = log
        .applier
        .get()
        .and_then(Weak::upgrade)
        .map_or(0, |a| Applier::last_commit(&*a));
    log.recovered(last);
}

/// Follows Raft's metrics: who leads, and whether this member may commit.
pub(crate) async fn follow_leadership(log: Arc<ReplicatedLog>, raft: Raft, id: NodeId) {
    let mut rx = raft.metrics();
    loop {
        {
            let m = rx.borrow_watched().clone();
            let leader = m.current_leader;
            let ready = m.state == ServerState::Leader
                && m.last_applied
                    .is_some_and(|l| l.leader_id.term == m.current_term);
            let leader_bolt = leader.and_then(|l| {
                m.membership_config
                    .membership()
                    .get_node(&l)
                    .map(|n| n.bolt_addr.clone())
            });
            let mut l = log.leadership.lock();
            *l = Leadership {
                ready: ready && leader == Some(id),
                leader,
                leader_bolt,
            };
        }
        if rx.changed().await.is_err() {
            log.leadership.lock().ready = false;
            return;
        }
    }
}
