//! What a cluster member's server answers about the cluster: the routing table drivers ask
//! for with ROUTE, `/cluster/status`, `dbms.cluster.overview()`, and the cluster metrics.

use std::sync::Arc;
use std::time::Duration;

use quiver_engine::cluster::{Role, Status as MemberStatus};
use quiver_engine::{
    Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Replica, Result,
};
use quiver_value::Value;

use crate::metrics::Metrics;

/// How long drivers may cache a cluster's routing table: short enough that a driver learns of
/// a new leader soon after an election even without a NotALeader to prompt it, long enough
/// that routing requests stay rare.
pub const CLUSTER_ROUTING_TTL_SECONDS: i64 = 15;

/// How often the cluster metrics are read from Raft's.
const METRICS_INTERVAL_MS: u64 = 1000;

/// A member's view of its cluster, as the server answers it.
#[derive(Debug)]
pub struct ClusterView {
    replica: Arc<Replica>,
    /// List the leader among the readers too.
    reads_on_leader: bool,
}

/// Bolt addresses by role, for a routing table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Routes {
    pub writers: Vec<String>,
    pub readers: Vec<String>,
    pub routers: Vec<String>,
}

impl ClusterView {
    pub fn new(replica: Arc<Replica>, reads_on_leader: bool) -> ClusterView {
        ClusterView {
            replica,
            reads_on_leader,
        }
    }

    pub fn replica(&self) -> &Arc<Replica> {
        &self.replica
    }

    /// The routing table: the leader writes (none during an election), the followers read
    /// (with the leader when configured, or when it is alone), every member routes. Members
    /// whose Bolt address is not known yet are left out.
    pub fn routes(&self) -> Routes {
        let status = self.replica.status();
        let leader = status.leader;
        let mut routes = Routes::default();
        for (id, node) in &status.members {
            if node.bolt_addr.is_empty() {
                continue;
            }
            let addr = node.bolt_addr.clone();
            routes.routers.push(addr.clone());
            if Some(*id) == leader {
                routes.writers.push(addr.clone());
                if self.reads_on_leader || status.members.len() == 1 {
                    routes.readers.push(addr);
                }
            } else {
                routes.readers.push(addr);
            }
        }
        routes
    }

    /// `/cluster/status`: this member, and every member as it sees them.
    pub fn status_json(&self) -> serde_json::Value {
        let s = self.replica.status();
        let members: Vec<serde_json::Value> = s
            .members
            .iter()
            .map(|(id, node)| {
                serde_json::json!({
                    "id": id,
                    "role": member_role(&s, *id),
                    "raft": node.raft_addr,
                    "bolt": node.bolt_addr,
                    "http": node.http_addr,
                    "voter": s.voters.contains(id),
                    "lag": s.lag.get(id).copied().flatten(),
                })
            })
            .collect();
        serde_json::json!({
            "id": s.id,
            "role": role_name(s.role),
            "term": s.term,
            "leader": s.leader,
            "last_log_index": s.last_log_index,
            "commit_index": s.commit_index,
            "applied_index": s.applied_index,
            "applied_lag": s.commit_index.saturating_sub(s.applied_index),
            "snapshot_index": s.snapshot_index,
            "writes_refused": self.replica.not_leader(),
            "members": members,
        })
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Leader => "LEADER",
        Role::Follower => "FOLLOWER",
        Role::Candidate => "CANDIDATE",
        Role::Learner => "LEARNER",
        Role::Shutdown => "SHUTDOWN",
    }
}

/// A member's role as `status` (another member's view) shows it.
fn member_role(status: &MemberStatus, id: u64) -> &'static str {
    if id == status.id {
        role_name(status.role)
    } else if Some(id) == status.leader {
        "LEADER"
    } else if status.voters.contains(&id) {
        "FOLLOWER"
    } else {
        "LEARNER"
    }
}

/// `dbms.cluster.overview()` (also what `SHOW SERVERS` reads): one row per member with its
/// addresses, role, and this member's view of its lag.
pub struct Overview {
    view: Arc<ClusterView>,
    signature: ProcedureSignature,
}

impl Overview {
    pub fn new(view: Arc<ClusterView>) -> Overview {
        Overview {
            view,
            signature: ProcedureSignature {
                name: "dbms.cluster.overview".to_owned(),
                inputs: Vec::new(),
                outputs: vec![
                    Field::new("id", FieldType::String),
                    Field::new("addresses", FieldType::List(Box::new(FieldType::String))),
                    Field::new("role", FieldType::String),
                    Field::new("term", FieldType::Integer),
                    Field::new("commitIndex", FieldType::Integer),
                    Field::new("appliedIndex", FieldType::Integer),
                    Field::new("lag", FieldType::Any),
                ],
                writes: false,
            },
        }
    }
}

impl std::fmt::Debug for Overview {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overview").finish_non_exhaustive()
    }
}

fn int(n: u64) -> Value {
    Value::Int(i64::try_from(n).unwrap_or(i64::MAX))
}

impl Procedure for Overview {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, _: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        let s = self.view.replica.status();
        Ok(s.members
            .iter()
            .map(|(id, node)| {
                let own = *id == s.id;
                vec![
                    Value::from(id.to_string()),
                    Value::from(vec![
                        Value::from(format!("bolt://{}", node.bolt_addr)),
                        Value::from(format!("http://{}", node.http_addr)),
                        Value::from(format!("raft://{}", node.raft_addr)),
                    ]),
                    Value::from(member_role(&s, *id)),
                    int(s.term),
                    if own {
                        int(s.commit_index)
                    } else {
                        Value::Null
                    },
                    if own {
                        int(s.applied_index)
                    } else {
                        Value::Null
                    },
                    match s.lag.get(id).copied().flatten() {
                        Some(lag) => int(lag),
                        None if own => int(s.commit_index.saturating_sub(s.applied_index)),
                        None => Value::Null,
                    },
                ]
            })
            .collect())
    }
}

/// Keeps the cluster metrics current until the member stops: leader changes and elections
/// counted as Raft's metrics show them, the term, whether this member leads, and how far its
/// applied index trails its commit index.
pub async fn follow_metrics(replica: Arc<Replica>, metrics: Arc<Metrics>) {
    let mut last_leader = None;
    let mut last_term = None;
    loop {
        let s = replica.status();
        if s.role == Role::Shutdown {
            return;
        }
        if last_term.is_some_and(|t| t != s.term) {
            metrics.cluster.elections.inc();
        }
        if s.leader.is_some() && last_leader.is_some() && s.leader != last_leader {
            metrics.cluster.leader_changes.inc();
        }
        last_term = Some(s.term);
        if s.leader.is_some() {
            last_leader = s.leader;
        }
        metrics
            .cluster
            .term
            .set(i64::try_from(s.term).unwrap_or(i64::MAX));
        metrics
            .cluster
            .is_leader
            .set(i64::from(s.role == Role::Leader));
        metrics
            .cluster
            .applied_lag
            .set(i64::try_from(s.commit_index.saturating_sub(s.applied_index)).unwrap_or(i64::MAX));
        tokio::time::sleep(Duration::from_millis(METRICS_INTERVAL_MS)).await;
    }
}
