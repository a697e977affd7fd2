//! The member handle: start a member, write through it, read its state, change the membership,
//! hand leadership over, stop.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use openraft::async_runtime::watch::WatchReceiver;
use openraft::{Config, ServerState, SnapshotPolicy};
use quiver_durability::DirLock;
use quiver_storage::RedoRecord;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use crate::error::{ClusterError, RecordError};
use crate::log_store::{LogStats, LogStore, SEGMENT_BYTES_MAX_DEFAULT};
use crate::members::MemberChanges;
use crate::network::{
    Listening, Network, NetworkSwitch, Refusals, SNAPSHOT_CHUNK_BYTES_DEFAULT, serve,
};
use crate::state_machine::{Applier, StateMachine, StorageApplier};
use crate::transport::PeerTls;
use crate::types::{Node, NodeId, Raft, Redo};

/// How a member is started. Every timing is on by default and named with its unit.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    pub id: NodeId,
    /// This member's addresses; the Raft listener binds `node.raft_addr` unless a listener is
    /// handed to [`Cluster::start_on`].
    pub node: Node,
    /// The members a new cluster starts with (this one included). Only the lowest id
    /// initializes the cluster, and only when it has no Raft state yet; the others wait to be
    /// contacted. Empty for a member that will be added to a running cluster.
    pub initial_members: BTreeMap<NodeId, Node>,
    /// Holds `raft/` (the log, the vote) and `snapshots/`.
    pub data_dir: PathBuf,
    /// The leader's heartbeat period.
    pub heartbeat_interval_ms: u64,
    /// A follower campaigns once it has heard no leader for `election_timeout_max_ms` (the
    /// lease it granted the leader) plus a random time in this range: between 1.5 and 2 times
    /// the maximum when the maximum is twice the minimum. Keep the minimum at ten appends'
    /// latency or more, or slow disks cause needless elections.
    pub election_timeout_min_ms: u64,
    pub election_timeout_max_ms: u64,
    /// A peer that does not accept a connection within this is unreachable for now.
    pub connect_timeout_ms: u64,
    /// A snapshot is built after this many entries since the last one, and the log behind it
    /// purged (keeping `logs_kept_after_snapshot` entries for slightly lagging followers).
    pub snapshot_every_entries: u64,
    pub logs_kept_after_snapshot: u64,
    /// Log segments are closed past this size (a purge removes whole segments).
    pub log_segment_bytes_max: u64,
    /// A snapshot streams to a member in chunks of this many bytes, each acknowledged within
    /// `snapshot_chunk_timeout_ms`; the last is answered once the member loaded the whole
    /// snapshot, within `snapshot_install_timeout_ms` (a large store takes a while).
    pub snapshot_chunk_bytes: usize,
    pub snapshot_chunk_timeout_ms: u64,
    pub snapshot_install_timeout_ms: u64,
    /// A member being added is promoted to voter once it caught up; past this it stays a
    /// learner and the addition fails (adding it again resumes).
    pub member_catch_up_timeout_ms: u64,
    /// Cluster TLS (see [`crate::transport`]): with it, members speak mutual TLS and each
    /// request's sender must be the member its certificate names; `None` speaks plain TCP.
    pub tls: Option<Arc<PeerTls>>,
}

impl ClusterConfig {
    pub fn new(id: NodeId, node: Node, data_dir: impl Into<PathBuf>) -> ClusterConfig {
        ClusterConfig {
            id,
            node,
            initial_members: BTreeMap::new(),
            data_dir: data_dir.into(),
            heartbeat_interval_ms: 60,
            election_timeout_min_ms: 300,
            election_timeout_max_ms: 600,
            connect_timeout_ms: 500,
            snapshot_every_entries: 10_000,
            logs_kept_after_snapshot: 1000,
            log_segment_bytes_max: SEGMENT_BYTES_MAX_DEFAULT,
            snapshot_chunk_bytes: SNAPSHOT_CHUNK_BYTES_DEFAULT,
            snapshot_chunk_timeout_ms: 10_000,
            snapshot_install_timeout_ms: 600_000,
            member_catch_up_timeout_ms: 120_000,
            tls: None,
        }
    }

    /// Sets the election timing from one figure: followers campaign once their leader has been
    /// silent for 1.5–2 × `ms`, and the leader's heartbeats go every tenth of it.
    pub fn set_election_timeout(&mut self, ms: u64) {
        self.election_timeout_max_ms = ms;
        self.election_timeout_min_ms = ms / 2;
        self.heartbeat_interval_ms = (ms / 10).max(1);
    }

    fn raft_config(&self) -> Result<Config, ClusterError> {
        Config {
            cluster_name: "quiver".to_string(),
            heartbeat_interval: self.heartbeat_interval_ms,
            election_timeout_min: self.election_timeout_min_ms,
            election_timeout_max: self.election_timeout_max_ms,
            snapshot_policy: SnapshotPolicy::LogsSinceLast(self.snapshot_every_entries),
            max_in_snapshot_log_to_keep: self.logs_kept_after_snapshot,
            install_snapshot_timeout: self.snapshot_chunk_timeout_ms,
            ..Config::default()
        }
        .validate()
        .map_err(ClusterError::Config)
    }
}

/// A member's role, from Raft's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Leader,
    Follower,
    Candidate,
    Learner,
    Shutdown,
}

impl From<ServerState> for Role {
    fn from(s: ServerState) -> Role {
        match s {
            ServerState::Leader => Role::Leader,
            ServerState::Follower => Role::Follower,
            ServerState::Candidate => Role::Candidate,
            ServerState::Learner => Role::Learner,
            ServerState::Shutdown => Role::Shutdown,
        }
    }
}

/// A member's state as its metrics last showed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub id: NodeId,
    pub role: Role,
    pub term: u64,
    pub leader: Option<NodeId>,
    pub last_log_index: u64,
    /// The newest index this member knows committed (stored by a majority).
    pub commit_index: u64,
    /// The newest index applied to the store: what its readers see.
    pub applied_index: u64,
    /// The term of the leader that wrote the newest applied entry. A new leader's store holds
    /// every earlier term's committed entries once this equals `term` (its first entry of the
    /// term, a blank, is applied): only then may it commit transactions of its own.
    pub applied_term: u64,
    /// The newest snapshot's last index, and the newest index purged from the log.
    pub snapshot_index: Option<u64>,
    pub purged_index: Option<u64>,
    pub voters: BTreeSet<NodeId>,
    /// Every member of the membership (voters and learners) with its addresses.
    pub members: BTreeMap<NodeId, Node>,
    /// On the leader: how many entries each other member is behind its log (`None` while its
    /// position is unknown). Empty elsewhere.
    pub lag: BTreeMap<NodeId, Option<u64>>,
    /// Snapshots this member streamed whole to another, and received and installed, since it
    /// started.
    pub snapshots_sent: u64,
    pub snapshots_installed: u64,
    /// Snapshots this member built of its store, and builds that failed, since it started.
    pub snapshots_built: u64,
    pub snapshot_failures: u64,
    /// What its Raft log wrote and fsynced since it started.
    pub log: LogStats,
    /// Connections the Raft listener closed without applying what they carried, by reason
    /// (see [`crate::network::Refusal`]), since this member started.
    pub refused: BTreeMap<&'static str, u64>,
}

impl Status {
    /// On the leader: the voter to hand leadership to, the one least behind its log.
    pub fn handover_target(&self) -> Option<NodeId> {
        self.lag
            .iter()
            .filter(|(id, _)| self.voters.contains(id))
            .filter_map(|(id, lag)| lag.map(|l| (l, *id)))
            .min()
            .map(|(_, id)| id)
    }
}

/// What a committed write answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// The entry's Raft index: a bookmark any member can wait for.
    pub index: u64,
    /// The commit number the record carried.
    pub commit: u64,
}

/// Checks that `redo` holds one or more whole redo records with consecutive commit numbers,
/// before it becomes an entry every member must apply.
fn check_records(redo: &[u8]) -> Result<(), ClusterError> {
    if redo.is_empty() {
        return Err(RecordError::Empty.into());
    }
    let mut at = 0;
    let mut prev: Option<u64> = None;
    while at < redo.len() {
        let (record, used) = RedoRecord::decode(&redo[at..])
            .map_err(|source| RecordError::Undecodable { at, source })?;
        if let Some(previous) = prev
            && record.commit != previous + 1
        {
            return Err(RecordError::OutOfOrder {
                commit: record.commit,
                previous,
            }
            .into());
        }
        prev = Some(record.commit);
        at += used;
    }
    Ok(())
}

/// How often a member checks that the membership names its own addresses.
const ANNOUNCE_INTERVAL_MS: u64 = 500;

/// Keeps this member's addresses in the membership: the member that initialized the cluster
/// knew only the others' Raft addresses, and a restarted member may listen elsewhere. While
/// the membership's entry for this member differs from `node`, it asks the leader (itself,
/// or over the Raft listener) to set it.
async fn keep_announced(
    raft: Raft,
    (id, node): (NodeId, Node),
    switch: NetworkSwitch,
    tls: Option<Arc<PeerTls>>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        let (leader, leader_addr, known) = {
            let m = raft.metrics().borrow_watched().clone();
            let membership = m.membership_config.membership();
            let leader_addr = m
                .current_leader
                .and_then(|l| membership.get_node(&l))
                .map(|n| n.raft_addr.clone());
            (
                m.current_leader,
                leader_addr,
                membership.get_node(&id).cloned(),
            )
        };
        if known.is_some_and(|k| k != node) && !switch.is_isolated() {
            let outcome = match (leader, leader_addr) {
                (Some(l), _) if l == id => crate::network::set_node(&raft, id, node.clone()).await,
                (Some(l), Some(addr)) => crate::network::announce(
                    tls.as_deref(),
                    (l, &addr),
                    id,
                    &node,
                    Duration::from_millis(ANNOUNCE_INTERVAL_MS * 4),
                )
                .await
                .map_err(|e| e.to_string()),
                _ => Ok(()),
            };
            if let Err(error) = outcome {
                tracing::debug!(member = id, %error, "announcing this member's addresses failed; retrying");
            }
        }
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(ANNOUNCE_INTERVAL_MS)) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}

/// A running member.
pub struct Cluster {
    id: NodeId,
    raft: Raft,
    applier: Arc<dyn Applier>,
    storage: Option<Arc<StorageApplier>>,
    switch: NetworkSwitch,
    log: LogStore,
    shutdown: watch::Sender<bool>,
    server: JoinHandle<()>,
    /// Keeps this member's addresses in the membership (see [`keep_announced`]).
    announcer: JoinHandle<()>,
    local_addr: SocketAddr,
    rebuilds: Arc<AtomicU64>,
    snapshots_sent: Arc<AtomicU64>,
    snapshots_installed: Arc<AtomicU64>,
    /// Snapshots built here, and builds that failed.
    snapshots_built: (Arc<AtomicU64>, Arc<AtomicU64>),
    /// Refusals on the Raft listener (see [`Status::refused`]).
    refusals: Arc<Refusals>,
    /// Cluster TLS, when on.
    tls: Option<Arc<PeerTls>>,
    /// How long a leader stopping gracefully waits for its successor.
    handover_timeout: Duration,
    /// Membership changes, one at a time.
    changes: MemberChanges,
    /// Held until the member is dropped.
    _lock: DirLock,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster")
            .field("id", &self.id)
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

impl Cluster {
    /// Starts a member over the crate's own store, binding `config.node.raft_addr`.
    pub async fn start(config: ClusterConfig) -> Result<Cluster, ClusterError> {
        let listener = TcpListener::bind(&config.node.raft_addr)
            .await
            .map_err(|source| ClusterError::Listen {
                addr: config.node.raft_addr.clone(),
                source,
            })?;
        Cluster::start_on(config, listener, None).await
    }

    /// Starts a member on a bound listener, over `applier` or (for `None`) the crate's own
    /// store.
    pub async fn start_on(
        config: ClusterConfig,
        listener: TcpListener,
        applier: Option<Arc<dyn Applier>>,
    ) -> Result<Cluster, ClusterError> {
        let raft_config = Arc::new(config.raft_config()?);
        let local_addr = listener
            .local_addr()
            .map_err(|source| ClusterError::Listen {
                addr: config.node.raft_addr.clone(),
                source,
            })?;
        let (applier, storage): (Arc<dyn Applier>, _) = match applier {
            Some(a) => (a, None),
            None => {
                let s = StorageApplier::new();
                (s.clone(), Some(s))
            }
        };
        std::fs::create_dir_all(&config.data_dir).map_err(|e| {
            ClusterError::Lock(quiver_durability::Error::Io {
                path: config.data_dir.clone(),
                source: e,
            })
        })?;
        // Two members on one directory would interleave their logs: the second one stops here.
        let lock = DirLock::acquire(&config.data_dir).map_err(ClusterError::Lock)?;
        let log = LogStore::open(config.data_dir.join("raft"), config.log_segment_bytes_max)?;
        let snapshots = config.data_dir.join("snapshots");
        let sm = StateMachine::open(config.id, &snapshots, applier.clone(), log.clone())?;
        let rebuilds = sm.rebuild_counter();
        let snapshots_installed = sm.install_counter();
        let snapshots_built = sm.build_counters();
        let snapshots_sent = Arc::new(AtomicU64::new(0));
        let removed = sm.removed_members();
        let switch = NetworkSwitch::default();
        let network = Network {
            id: config.id,
            switch: switch.clone(),
            connect_timeout: Duration::from_millis(config.connect_timeout_ms),
            snapshot_chunk_bytes: config.snapshot_chunk_bytes,
            snapshot_install_timeout: Duration::from_millis(config.snapshot_install_timeout_ms),
            snapshots_sent: Arc::clone(&snapshots_sent),
            tls: config.tls.clone(),
        };
        let raft = Raft::new(config.id, raft_config, network, log.clone(), sm)
            .await
            .map_err(ClusterError::raft)?;
        let (shutdown, shutdown_rx) = watch::channel(false);
        let refusals = Arc::new(Refusals::default());
        let server = tokio::spawn(serve(
            listener,
            Listening {
                raft: raft.clone(),
                switch: switch.clone(),
                snapshots,
                tls: config.tls.clone(),
                refusals: Arc::clone(&refusals),
            },
            shutdown_rx,
        ));
        let catch_up_timeout = Duration::from_millis(config.member_catch_up_timeout_ms);
        let changes = MemberChanges::new(raft.clone(), removed, catch_up_timeout);
        let lowest = config.initial_members.keys().next().copied();
        let initialized = raft.is_initialized().await.map_err(ClusterError::raft)?;
        if lowest == Some(config.id) && !initialized {
            raft.initialize(config.initial_members.clone())
                .await
                .map_err(ClusterError::raft)?;
            tracing::info!(member = config.id, members = ?config.initial_members.keys(), "cluster initialized");
        }
        let announcer = tokio::spawn(keep_announced(
            raft.clone(),
            (config.id, config.node.clone()),
            switch.clone(),
            config.tls.clone(),
            shutdown.subscribe(),
        ));
        Ok(Cluster {
            id: config.id,
            announcer,
            raft,
            applier,
            storage,
            switch,
            log,
            shutdown,
            server,
            local_addr,
            rebuilds,
            snapshots_sent,
            snapshots_installed,
            snapshots_built,
            refusals,
            tls: config.tls.clone(),
            handover_timeout: Duration::from_millis(config.election_timeout_max_ms * 2),
            changes,
            _lock: lock,
        })
    }

    pub fn id(&self) -> NodeId {
        self.id
    }

    /// The address the Raft listener is bound to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Cluster TLS, when on: [`PeerTls::replace`] puts new certificates in use.
    pub fn raft_tls(&self) -> Option<&Arc<PeerTls>> {
        self.tls.as_ref()
    }

    /// The openraft handle, for what this type does not wrap.
    pub fn raft(&self) -> &Raft {
        &self.raft
    }

    pub fn applier(&self) -> &Arc<dyn Applier> {
        &self.applier
    }

    /// The crate's own store, when the member was started without an applier.
    pub fn store(&self) -> Option<&Arc<StorageApplier>> {
        self.storage.as_ref()
    }

    /// This member's partition switch (see [`NetworkSwitch`]).
    pub fn switch(&self) -> &NetworkSwitch {
        &self.switch
    }

    /// How many times this member rebuilt its store to discard an unreplicated tail.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds.load(Ordering::Relaxed)
    }

    /// The log store, for inspection.
    pub fn log(&self) -> &LogStore {
        &self.log
    }

    /// Replicates one commit's redo record and returns once a majority stored it and this
    /// member applied it.
    ///
    /// Entries are appended in the order calls reach Raft, and the state machine expects commit
    /// numbers in log order: the engine must hand records over in commit order (from its commit
    /// path, under the commit lock, without waiting there). A write that fails with
    /// [`ClusterError::NotLeader`] or [`ClusterError::LeaseNotHeld`] was not appended; one that
    /// fails with [`ClusterError::Discarded`] or times out may still commit.
    pub async fn client_write(&self, redo: Vec<u8>) -> Result<Written, ClusterError> {
        check_records(&redo)?;
        let resp = self.raft.client_write(Redo(redo)).await?;
        Ok(Written {
            index: resp.log_id.index,
            commit: resp.data.commit,
        })
    }

    pub fn status(&self) -> Status {
        let m = self.raft.metrics().borrow_watched().clone();
        let last = m.last_log_index.unwrap_or(0);
        let lag = m
            .replication
            .as_ref()
            .map(|r| {
                r.iter()
                    .filter(|(id, _)| **id != self.id)
                    .map(|(id, matched)| (*id, matched.map(|l| last.saturating_sub(l.index))))
                    .collect()
            })
            .unwrap_or_default();
        Status {
            id: self.id,
            role: m.state.into(),
            term: m.current_term,
            leader: m.current_leader,
            last_log_index: last,
            commit_index: m.local_committed.map_or(0, |l| l.index),
            applied_index: m.last_applied.map_or(0, |l| l.index),
            applied_term: m.last_applied.map_or(0, |l| l.leader_id.term),
            snapshot_index: m.snapshot.map(|l| l.index),
            purged_index: m.purged.map(|l| l.index),
            voters: m.membership_config.membership().voter_ids().collect(),
            members: m
                .membership_config
                .membership()
                .nodes()
                .map(|(id, node)| (*id, node.clone()))
                .collect(),
            lag,
            snapshots_sent: self.snapshots_sent.load(Ordering::Relaxed),
            snapshots_installed: self.snapshots_installed.load(Ordering::Relaxed),
            snapshots_built: self.snapshots_built.0.load(Ordering::Relaxed),
            snapshot_failures: self.snapshots_built.1.load(Ordering::Relaxed),
            log: self.log.stats(),
            refused: self.refusals.counts(),
        }
    }

    /// Waits until `pred` holds for this member's status.
    pub async fn wait_until(
        &self,
        timeout: Duration,
        what: &str,
        pred: impl Fn(&Status) -> bool,
    ) -> Result<Status, ClusterError> {
        let deadline = tokio::time::Instant::now() + timeout;
        let mut rx = self.raft.metrics();
        loop {
            let status = self.status();
            if pred(&status) {
                return Ok(status);
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(ClusterError::Stopped),
                Err(_) => return Err(ClusterError::Timeout(timeout, what.to_string())),
            }
        }
    }

    /// Waits until this member has applied `index` (a bookmark): its readers then see it.
    pub async fn wait_applied(&self, index: u64, timeout: Duration) -> Result<(), ClusterError> {
        self.wait_until(timeout, &format!("applied index {index}"), |s| {
            s.applied_index >= index
        })
        .await
        .map(|_| ())
    }

    /// Discards what the store holds beyond the applied entry (commits a leader made in memory
    /// whose entries were refused or lost), rebuilding it from the snapshot and the log; does
    /// nothing when the store holds no such tail. The engine calls it after a write of its own
    /// failed, before it accepts writes again, so no later commit builds on a lost one.
    pub async fn discard_tail(&self) -> Result<(), ClusterError> {
        self.raft
            .with_state_machine(|sm: &mut StateMachine| Box::pin(async move { sm.discard_tail() }))
            .await
            .map_err(ClusterError::raft)?
            .map_err(ClusterError::Apply)
    }

    /// The membership changes handle (see [`MemberChanges`]): clones share its one-at-a-time
    /// rule.
    pub fn member_changes(&self) -> &MemberChanges {
        &self.changes
    }

    /// How long an added member may take to catch up (`member_catch_up_timeout_ms`).
    pub fn catch_up_timeout(&self) -> Duration {
        self.changes.catch_up_timeout()
    }

    /// Adds a member on the leader: it first catches up as a learner, then becomes a voter
    /// (see [`MemberChanges::add`]).
    pub async fn add_member(&self, id: NodeId, node: Node) -> Result<(), ClusterError> {
        self.changes.add(id, &node.raft_addr).await
    }

    /// Removes a member from the membership, on the leader. Its id is never reused.
    pub async fn remove_member(&self, id: NodeId) -> Result<(), ClusterError> {
        self.changes.remove(id).await
    }

    /// Asks the leader (this member) to hand leadership to `to`; returns once `to` leads.
    pub async fn transfer_leadership(
        &self,
        to: NodeId,
        timeout: Duration,
    ) -> Result<(), ClusterError> {
        self.raft
            .trigger()
            .transfer_leader(to)
            .await
            .map_err(ClusterError::raft)?;
        self.wait_until(timeout, &format!("member {to} to lead"), |s| {
            s.leader == Some(to)
        })
        .await
        .map(|_| ())
    }

    /// Stops the member gracefully: a leader first hands leadership to its most up-to-date
    /// voter (waiting at most `handover_timeout`), so the cluster does not sit through an
    /// election timeout without a leader; then it stops as [`Cluster::stop`] does.
    pub async fn shutdown(self) -> Result<(), ClusterError> {
        let status = self.status();
        if status.role == Role::Leader
            && let Some(to) = status.handover_target()
            && let Err(e) = self.transfer_leadership(to, self.handover_timeout).await
        {
            tracing::warn!(member = self.id, to, error = %e, "leadership handover at shutdown failed");
        }
        self.stop().await
    }

    /// Stops the member at once: no more RPCs in or out, Raft stopped, the listener closed. To
    /// the others it is as if it crashed (its disk state is intact), so a leader stopped this way
    /// leaves them to elect another after their election timeout.
    pub async fn stop(self) -> Result<(), ClusterError> {
        self.switch.isolate();
        let _ = self.shutdown.send(true);
        let result = self.raft.shutdown().await.map_err(ClusterError::raft);
        let _ = self.server.await;
        self.announcer.abort();
        result
    }
}
