//! Membership changes of a running cluster: adding a member (as a learner that catches up,
//! then as a voter) and removing one.
//!
//! The rules, and why:
//!
//! - Only the leader changes the membership; elsewhere a change fails with
//!   [`ClusterError::NotLeader`] naming the leader, before anything is proposed.
//! - One change at a time per member: a second one while the first runs is refused with
//!   [`ClusterError::ChangeInProgress`] rather than queued, since an addition can wait minutes
//!   for a snapshot to stream and a caller should learn that at once.
//! - A removed id is never given again ([`ClusterError::MemberRemoved`]): the others may hold
//!   votes and entries naming it (the state machine records removals durably).
//! - A new member is a learner until it has the leader's log as it was when it was added,
//!   so a slow catch-up (a snapshot install) never costs the cluster its quorum; only then is
//!   it promoted. A catch-up that outlasts its deadline leaves it a learner: adding it again
//!   resumes the wait and promotes it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use openraft::async_runtime::watch::WatchReceiver;
use openraft::error::{ChangeMembershipError, ClientWriteError, RaftError};
use openraft::{ChangeMembers, ServerState};
use parking_lot::RwLock;

use crate::error::ClusterError;
use crate::types::{Node, NodeId, Raft, TypeConfig};

/// How long a membership entry waits for an earlier one (an address announcement, say) to
/// commit before the change gives up: openraft takes one membership entry at a time.
const IN_PROGRESS_RETRY_MS: u64 = 50;

/// Changes the membership, on the leader, one change at a time (see the module docs). Clones
/// share the serialization and the record of removed ids.
#[derive(Clone)]
pub struct MemberChanges {
    raft: Raft,
    removed: Arc<RwLock<BTreeSet<NodeId>>>,
    serial: Arc<tokio::sync::Mutex<()>>,
    /// How long an added member may take to catch up, and a change to wait for an earlier
    /// membership entry.
    catch_up_timeout: Duration,
}

impl std::fmt::Debug for MemberChanges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemberChanges")
            .field("removed", &*self.removed.read())
            .finish_non_exhaustive()
    }
}

/// What the leader's metrics say of the membership.
struct Known {
    voters: BTreeSet<NodeId>,
    nodes: BTreeMap<NodeId, Node>,
}

impl MemberChanges {
    pub(crate) fn new(
        raft: Raft,
        removed: Arc<RwLock<BTreeSet<NodeId>>>,
        catch_up_timeout: Duration,
    ) -> MemberChanges {
        MemberChanges {
            raft,
            removed,
            serial: Arc::new(tokio::sync::Mutex::new(())),
            catch_up_timeout,
        }
    }

    /// How long an added member may take to catch up (`member_catch_up_timeout_ms`).
    pub fn catch_up_timeout(&self) -> Duration {
        self.catch_up_timeout
    }

    /// The ids removed from this cluster, as far as this member knows.
    pub fn removed(&self) -> BTreeSet<NodeId> {
        self.removed.read().clone()
    }

    /// Fails unless this member leads; returns the membership it knows.
    fn leading(&self) -> Result<Known, ClusterError> {
        let m = self.raft.metrics().borrow_watched().clone();
        if m.state != ServerState::Leader {
            let node = m
                .current_leader
                .and_then(|l| m.membership_config.membership().get_node(&l).cloned());
            return Err(ClusterError::NotLeader {
                leader: m.current_leader,
                node,
            });
        }
        let membership = m.membership_config.membership();
        Ok(Known {
            voters: membership.voter_ids().collect(),
            nodes: membership
                .nodes()
                .map(|(id, node)| (*id, node.clone()))
                .collect(),
        })
    }

    /// Adds member `id`, reachable for Raft at `raft_addr`: a learner first, caught up to the
    /// leader's log as it stands now (from a snapshot when the log behind it was purged), then
    /// a voter. Its Bolt and HTTP addresses arrive when it announces itself. Waits at most
    /// the catch-up timeout for the catch-up.
    pub async fn add(&self, id: NodeId, raft_addr: &str) -> Result<(), ClusterError> {
        let _serial = self
            .serial
            .try_lock()
            .map_err(|_| ClusterError::ChangeInProgress)?;
        let known = self.leading()?;
        if id == 0 {
            return Err(ClusterError::InvalidMember(
                "member id 0 is reserved; ids start at 1".to_owned(),
            ));
        }
        if self.removed.read().contains(&id) {
            return Err(ClusterError::MemberRemoved { id });
        }
        if known.voters.contains(&id) {
            return Err(ClusterError::MemberExists { id });
        }
        let deadline = tokio::time::Instant::now() + self.catch_up_timeout;
        match known.nodes.get(&id) {
            // A learner from an earlier call: resume its catch-up, keep the addresses it
            // announced.
            Some(node) if node.raft_addr == raft_addr => {}
            Some(node) => {
                return Err(ClusterError::InvalidMember(format!(
                    "member {id} is a learner at raft address {}, not {raft_addr}",
                    node.raft_addr
                )));
            }
            None => {
                if let Some((other, _)) = known.nodes.iter().find(|(_, n)| n.raft_addr == raft_addr)
                {
                    return Err(ClusterError::InvalidMember(format!(
                        "raft address {raft_addr} is member {other}'s"
                    )));
                }
                let node = Node::new(raft_addr, "", "");
                retry_in_progress(deadline, || self.raft.add_learner(id, node.clone(), false))
                    .await?;
                tracing::info!(member = id, raft = raft_addr, "learner added");
            }
        }
        let target = self
            .raft
            .metrics()
            .borrow_watched()
            .last_log_index
            .unwrap_or(0);
        self.wait_caught_up(id, target, deadline, self.catch_up_timeout)
            .await?;
        retry_in_progress(deadline, || {
            self.raft
                .change_membership(ChangeMembers::AddVoterIds(BTreeSet::from([id])), false)
        })
        .await?;
        tracing::info!(member = id, "member promoted to voter");
        Ok(())
    }

    /// Waits until the leader has replicated its log up to `target` to learner `id`.
    async fn wait_caught_up(
        &self,
        id: NodeId,
        target: u64,
        deadline: tokio::time::Instant,
        timeout: Duration,
    ) -> Result<(), ClusterError> {
        let mut rx = self.raft.metrics();
        loop {
            let m = rx.borrow_watched().clone();
            if m.state != ServerState::Leader {
                return Err(ClusterError::NotLeader {
                    leader: m.current_leader,
                    node: None,
                });
            }
            let matched = m
                .replication
                .as_ref()
                .and_then(|r| r.get(&id).copied().flatten())
                .map(|l| l.index);
            if matched.is_some_and(|i| i >= target) {
                return Ok(());
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => return Err(ClusterError::Stopped),
                Err(_) => {
                    return Err(ClusterError::Timeout(
                        timeout,
                        format!(
                            "member {id} to catch up (it stays a learner; add it again to \
                             resume and promote it)"
                        ),
                    ));
                }
            }
        }
    }

    /// Removes member `id` (voter or learner) from the membership, for good: its id is never
    /// given again. Removing the leader itself is allowed: it steps down once the change
    /// commits, and the others elect a successor.
    pub async fn remove(&self, id: NodeId) -> Result<(), ClusterError> {
        let _serial = self
            .serial
            .try_lock()
            .map_err(|_| ClusterError::ChangeInProgress)?;
        let known = self.leading()?;
        if !known.nodes.contains_key(&id) {
            return Err(if self.removed.read().contains(&id) {
                ClusterError::MemberRemoved { id }
            } else {
                ClusterError::NoSuchMember { id }
            });
        }
        if known.voters.len() == 1 && known.voters.contains(&id) {
            return Err(ClusterError::InvalidMember(format!(
                "member {id} is the only voter; a cluster cannot remove its last voter"
            )));
        }
        let deadline = tokio::time::Instant::now() + self.catch_up_timeout;
        let change = if known.voters.contains(&id) {
            ChangeMembers::RemoveVoters(BTreeSet::from([id]))
        } else {
            ChangeMembers::RemoveNodes(BTreeSet::from([id]))
        };
        retry_in_progress(deadline, || {
            self.raft.change_membership(change.clone(), false)
        })
        .await?;
        tracing::info!(member = id, "member removed");
        Ok(())
    }
}

/// Runs a membership change, again while another membership entry is still committing, until
/// `deadline`.
async fn retry_in_progress<F, Fut, T>(
    deadline: tokio::time::Instant,
    mut change: F,
) -> Result<T, ClusterError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RaftError<TypeConfig, ClientWriteError<TypeConfig>>>>,
{
    loop {
        match change().await {
            Err(RaftError::APIError(ClientWriteError::ChangeMembershipError(
                ChangeMembershipError::InProgress(_),
            ))) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(IN_PROGRESS_RETRY_MS)).await;
            }
            other => return other.map_err(ClusterError::from),
        }
    }
}
