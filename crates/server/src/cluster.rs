//! What a cluster member's server answers about the cluster: the routing table drivers ask
//! for with ROUTE, `/cluster/status`, `dbms.cluster.overview()`, and the cluster metrics; and
//! the membership changes an administrator makes: `dbms.cluster.addServer(id, raftAddress)`
//! and `dbms.cluster.removeServer(id)` (also `POST /cluster/members` and
//! `DELETE /cluster/members/{id}`).
//!
//! The procedures take Neo4j's `dbms.cluster.*` namespace; Neo4j's own commands for this
//! (`ENABLE SERVER`, `DEALLOCATE DATABASES FROM SERVER`, `DROP SERVER`) assume servers that
//! host databases separately, which Quiver's one-database members do not, so one call each
//! adds or removes a member. They change the membership, not the graph: they run in a read
//! transaction, and on a member that does not lead they fail with
//! `Neo.ClientError.Cluster.NotALeader` (drivers route them like writes when asked to).

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use quiver_cluster::{ClusterError, Role, Status as MemberStatus};
use quiver_engine::{
    Database, Error, Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Result,
    ServerHealth, ServerInfo,
};
use quiver_status::Status;
use quiver_value::Value;

use crate::audit::AuditLog;
use crate::metrics::Metrics;
use crate::replica::Replica;

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
    /// Where membership changes are recorded (`--audit-log`), once the server set it.
    audit: std::sync::OnceLock<Arc<AuditLog>>,
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
            audit: std::sync::OnceLock::new(),
        }
    }

    /// Records membership changes in `audit` from now on.
    pub fn set_audit_log(&self, audit: Arc<AuditLog>) {
        let _ = self.audit.set(audit);
    }

    /// Records a membership change asked for by `user` from `client`: `event` is `add_server`
    /// or `remove_server`, `outcome` `done` or why it was refused.
    fn audit_change(
        &self,
        (user, client): (&str, Option<IpAddr>),
        event: &str,
        (id, raft_address): (u64, &str),
        outcome: &str,
    ) {
        if let Some(audit) = self.audit.get() {
            audit.record(
                user,
                client,
                event,
                &[
                    ("target", &id.to_string()),
                    ("raft_address", raft_address),
                    ("outcome", outcome),
                ],
            );
        }
    }

    pub fn replica(&self) -> &Arc<Replica> {
        &self.replica
    }

    /// Why this member should not take traffic yet, if it should not: it knows no leader (an
    /// election, no majority, or a joining member not yet added), or it has not applied all
    /// the cluster committed that it knows of (catching up after a restart). Readiness probes
    /// answer 503 with the reason, so a rolling restart moves on only once the member serves
    /// what the cluster holds.
    pub fn not_serving(&self) -> Option<&'static str> {
        let status = self.replica.member().status();
        if status.leader.is_none() {
            Some("no leader")
        } else if status.applied_index < status.commit_index {
            Some("catching up")
        } else {
            None
        }
    }

    /// The routing table: the leader writes (none during an election), the followers read
    /// (with the leader when configured, or when it is alone), every member routes. Members
    /// whose Bolt address is not known yet are left out.
    pub fn routes(&self) -> Routes {
        let status = self.replica.member().status();
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

    /// `SHOW SERVERS`: every member at its Bolt and HTTP addresses, speaking `version`. This
    /// member hears from the leader, and a leader from every member whose position it knows;
    /// a follower does not hear from the other followers, so their health is unknown to it.
    pub fn servers(&self, version: &str) -> Vec<ServerInfo> {
        let s = self.replica.member().status();
        let known = |addr: &str| (!addr.is_empty()).then(|| addr.to_owned());
        s.members
            .iter()
            .map(|(id, node)| ServerInfo {
                id: id.to_string(),
                address: known(&node.bolt_addr),
                http_address: known(&node.http_addr),
                https_address: None,
                health: match s.lag.get(id) {
                    _ if *id == s.id || Some(*id) == s.leader => ServerHealth::Available,
                    Some(Some(_)) => ServerHealth::Available,
                    Some(None) => ServerHealth::Unavailable,
                    None => ServerHealth::Unknown,
                },
                version: version.to_owned(),
            })
            .collect()
    }

    /// `/cluster/status`: this member, and every member as it sees them.
    pub fn status_json(&self) -> serde_json::Value {
        let s = self.replica.member().status();
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
            "writes_refused": self.replica.member().not_leader(),
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
        let s = self.view.replica.member().status();
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
/// counted as Raft's metrics show them, the term, whether this member leads, how far its
/// applied index trails its commit index, how far its furthest follower trails it, snapshot
/// transfers both ways, connections its Raft listener refused; and installs the observer of its
/// append latency.
pub async fn follow_metrics(replica: Arc<Replica>, metrics: Arc<Metrics>) {
    let latency = metrics.cluster.append_latency.clone();
    replica
        .member()
        .observe_appends(move |elapsed| latency.observe(elapsed));
    let mut last_leader = None;
    let mut last_term = None;
    let (mut sent, mut installed) = (0, 0);
    let mut refused = std::collections::BTreeMap::new();
    loop {
        let s = replica.member().status();
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
        let furthest = s.lag.values().flatten().copied().max().unwrap_or(0);
        metrics
            .cluster
            .follower_lag
            .set(i64::try_from(furthest).unwrap_or(i64::MAX));
        metrics
            .cluster
            .snapshots_sent
            .inc_by(s.snapshots_sent.saturating_sub(sent));
        metrics
            .cluster
            .snapshots_installed
            .inc_by(s.snapshots_installed.saturating_sub(installed));
        (sent, installed) = (s.snapshots_sent, s.snapshots_installed);
        for (reason, count) in &s.refused {
            let seen = refused.entry(*reason).or_insert(0);
            metrics
                .cluster
                .raft_refused
                .get_or_create(&[("reason", *reason)])
                .inc_by(count.saturating_sub(*seen));
            *seen = *count;
        }
        tokio::time::sleep(Duration::from_millis(METRICS_INTERVAL_MS)).await;
    }
}

/// Registers the cluster procedures on a member's database: the overview, and the membership
/// changes, which run on `runtime` (the member's Raft runs there). Changing the membership
/// needs the admin role, as over HTTP, and each change is audited.
pub fn register(db: &Database, view: &Arc<ClusterView>, runtime: tokio::runtime::Handle) {
    db.register_procedure(Arc::new(Overview::new(Arc::clone(view))));
    db.register_procedure(Arc::new(AddServer::new(Arc::clone(view), runtime.clone())));
    db.register_procedure(Arc::new(RemoveServer::new(Arc::clone(view), runtime)));
}

/// Why a membership change was refused, as a client sees it: NotALeader where another member
/// must be asked, `Procedure.ProcedureCallFailed` for the rest (the message names what to fix).
pub fn change_error(error: &ClusterError) -> Error {
    let code = match error {
        ClusterError::NotLeader { .. } | ClusterError::LeaseNotHeld => Status::NotALeader,
        _ => Status::ProcedureCallFailed,
    };
    Error::Runtime {
        code,
        detail: None,
        message: format!("membership change refused: {error}"),
    }
}

fn argument_error(procedure: &str, message: String) -> Error {
    Error::Runtime {
        code: Status::ProcedureCallFailed,
        detail: None,
        message: format!("{procedure}: {message}"),
    }
}

/// A member id argument: a positive integer.
pub fn member_id(procedure: &str, argument: &str, value: &Value) -> Result<u64> {
    match value {
        Value::Int(n) if *n > 0 => Ok(u64::try_from(*n).unwrap_or_default()),
        Value::Int(n) => Err(argument_error(
            procedure,
            format!("argument `{argument}` must be a member id of 1 or more, not {n}"),
        )),
        other => Err(argument_error(
            procedure,
            format!("argument `{argument}` must be an integer member id, not {other:?}"),
        )),
    }
}

/// A Raft address argument: `HOST:PORT`.
pub fn raft_address(procedure: &str, argument: &str, value: &Value) -> Result<String> {
    let Value::String(text) = value else {
        return Err(argument_error(
            procedure,
            format!("argument `{argument}` must be a string HOST:PORT, not {value:?}"),
        ));
    };
    let text = text.trim();
    let well_formed = text
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0));
    if !well_formed {
        return Err(argument_error(
            procedure,
            format!(
                "argument `{argument}` must be the new member's Raft address HOST:PORT, not `{text}`"
            ),
        ));
    }
    Ok(text.to_owned())
}

/// Runs `change` on the member's runtime and waits for it here: a procedure is called from
/// synchronous code, on a query pool thread or a runtime worker (which is let go meanwhile).
fn run_change<F>(runtime: &tokio::runtime::Handle, change: F) -> Result<(), ClusterError>
where
    F: Future<Output = Result<(), ClusterError>> + Send + 'static,
{
    let (tx, rx) = std::sync::mpsc::channel();
    runtime.spawn(async move {
        let _ = tx.send(change.await);
    });
    let wait = move || rx.recv().unwrap_or_else(|_| Err(ClusterError::Stopped));
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
        _ => wait(),
    }
}

/// What a user without the admin role is told they may not do.
pub const MEMBERSHIP_CHANGE: &str = "Changing the cluster's membership";

/// A membership change's outcome, for the audit log.
fn outcome(changed: &std::result::Result<(), ClusterError>) -> String {
    match changed {
        Ok(()) => "done".to_owned(),
        Err(error) => format!("refused: {error}"),
    }
}

/// `dbms.cluster.addServer(id, raftAddress)`: adds a member started with `--join`; returns
/// once it caught up and votes.
pub struct AddServer {
    view: Arc<ClusterView>,
    runtime: tokio::runtime::Handle,
    signature: ProcedureSignature,
}

impl AddServer {
    pub fn new(view: Arc<ClusterView>, runtime: tokio::runtime::Handle) -> AddServer {
        AddServer {
            view,
            runtime,
            signature: ProcedureSignature {
                name: "dbms.cluster.addServer".to_owned(),
                inputs: vec![
                    Field::new("id", FieldType::Integer),
                    Field::new("raftAddress", FieldType::String),
                ],
                outputs: vec![
                    Field::new("id", FieldType::Integer),
                    Field::new("raftAddress", FieldType::String),
                    Field::new("role", FieldType::String),
                ],
                writes: false,
            },
        }
    }
}

impl std::fmt::Debug for AddServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddServer").finish_non_exhaustive()
    }
}

impl Procedure for AddServer {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        let name = &self.signature.name;
        ctx.require_admin(MEMBERSHIP_CHANGE)?;
        let id = member_id(name, "id", args.first().unwrap_or(&Value::Null))?;
        let addr = raft_address(name, "raftAddress", args.get(1).unwrap_or(&Value::Null))?;
        let replica = Arc::clone(self.view.replica());
        let raft_addr = addr.clone();
        let changed = run_change(&self.runtime, async move {
            replica.member().add_member(id, &raft_addr).await
        });
        let (user, client) = ctx.who_calls();
        self.view.audit_change(
            (&user, client.map(|c| c.ip())),
            "add_server",
            (id, &addr),
            &outcome(&changed),
        );
        changed.map_err(|e| change_error(&e))?;
        Ok(vec![vec![
            int(id),
            Value::from(addr),
            Value::from("FOLLOWER"),
        ]])
    }
}

/// `dbms.cluster.removeServer(id)`: removes a member for good (its id is never reused).
pub struct RemoveServer {
    view: Arc<ClusterView>,
    runtime: tokio::runtime::Handle,
    signature: ProcedureSignature,
}

impl RemoveServer {
    pub fn new(view: Arc<ClusterView>, runtime: tokio::runtime::Handle) -> RemoveServer {
        RemoveServer {
            view,
            runtime,
            signature: ProcedureSignature {
                name: "dbms.cluster.removeServer".to_owned(),
                inputs: vec![Field::new("id", FieldType::Integer)],
                outputs: vec![
                    Field::new("id", FieldType::Integer),
                    Field::new("role", FieldType::String),
                ],
                writes: false,
            },
        }
    }
}

impl std::fmt::Debug for RemoveServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoveServer").finish_non_exhaustive()
    }
}

impl Procedure for RemoveServer {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        ctx.require_admin(MEMBERSHIP_CHANGE)?;
        let id = member_id(
            &self.signature.name,
            "id",
            args.first().unwrap_or(&Value::Null),
        )?;
        let replica = Arc::clone(self.view.replica());
        let changed = run_change(&self.runtime, async move {
            replica.member().remove_member(id).await
        });
        let (user, client) = ctx.who_calls();
        self.view.audit_change(
            (&user, client.map(|c| c.ip())),
            "remove_server",
            (id, ""),
            &outcome(&changed),
        );
        changed.map_err(|e| change_error(&e))?;
        Ok(vec![vec![int(id), Value::from("REMOVED")]])
    }
}

/// A membership change asked for over HTTP, parsed: `POST /cluster/members` with
/// `{"id": 4, "raftAddress": "127.0.0.1:7004"}` adds, `DELETE /cluster/members/4` removes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemberChange {
    Add { id: u64, raft_address: String },
    Remove { id: u64 },
}

/// What the HTTP endpoint answers: a status and a JSON body, either the change made or a
/// Neo4j-style error.
pub struct ChangeAnswer {
    pub http: http::StatusCode,
    pub body: serde_json::Value,
}

fn change_refused(http: http::StatusCode, code: Status, message: String) -> ChangeAnswer {
    ChangeAnswer {
        http,
        body: serde_json::json!({ "errors": [{ "code": code.code(), "message": message }] }),
    }
}

impl MemberChange {
    /// Reads a change from the method, the path under `/cluster/members` and the body; the
    /// error names what is wrong with the request.
    pub fn parse(method: &http::Method, tail: &str, body: &[u8]) -> Result<MemberChange, String> {
        const PROCEDURE: &str = "/cluster/members";
        match (method, tail.trim_matches('/')) {
            (&http::Method::POST, "") => {
                let request: serde_json::Value = serde_json::from_slice(body)
                    .map_err(|e| format!("the body must be a JSON object: {e}"))?;
                let id = match request.get("id") {
                    Some(serde_json::Value::Number(n)) => Value::Int(n.as_i64().unwrap_or(-1)),
                    _ => Value::Null,
                };
                let address = match request.get("raftAddress") {
                    Some(serde_json::Value::String(s)) => Value::from(s.as_str()),
                    _ => Value::Null,
                };
                Ok(MemberChange::Add {
                    id: member_id(PROCEDURE, "id", &id).map_err(|e| e.to_string())?,
                    raft_address: raft_address(PROCEDURE, "raftAddress", &address)
                        .map_err(|e| e.to_string())?,
                })
            }
            (&http::Method::DELETE, id) if !id.is_empty() && !id.contains('/') => {
                let id = id.parse::<i64>().map_or(Value::Null, Value::Int);
                Ok(MemberChange::Remove {
                    id: member_id(PROCEDURE, "id", &id).map_err(|e| e.to_string())?,
                })
            }
            _ => Err(
                "POST /cluster/members adds a member ({\"id\": N, \"raftAddress\": \"HOST:PORT\"}); \
                 DELETE /cluster/members/N removes one"
                    .to_owned(),
            ),
        }
    }

    /// Makes the change on this member (the leader) for `who` (a user at an address, audited)
    /// and answers as the procedures do, with
    /// HTTP statuses: 409 for an id that exists or was removed, 421 on a member that does not
    /// lead (the body's code is NotALeader, so a client asks the leader), 503 when the change
    /// could not be made now.
    pub async fn apply(self, view: &ClusterView, who: (&str, IpAddr)) -> ChangeAnswer {
        let (result, done) = match self {
            MemberChange::Add { id, raft_address } => {
                let result = view.replica().member().add_member(id, &raft_address).await;
                view.audit_change(
                    (who.0, Some(who.1)),
                    "add_server",
                    (id, &raft_address),
                    &outcome(&result),
                );
                let done = serde_json::json!({ "id": id, "raftAddress": raft_address, "role": "FOLLOWER" });
                (result, done)
            }
            MemberChange::Remove { id } => {
                let result = view.replica().member().remove_member(id).await;
                view.audit_change(
                    (who.0, Some(who.1)),
                    "remove_server",
                    (id, ""),
                    &outcome(&result),
                );
                (result, serde_json::json!({ "id": id, "role": "REMOVED" }))
            }
        };
        let Err(error) = result else {
            return ChangeAnswer {
                http: http::StatusCode::OK,
                body: done,
            };
        };
        let http = match &error {
            ClusterError::NotLeader { .. } | ClusterError::LeaseNotHeld => {
                http::StatusCode::MISDIRECTED_REQUEST
            }
            ClusterError::MemberExists { .. } | ClusterError::MemberRemoved { .. } => {
                http::StatusCode::CONFLICT
            }
            _ => http::StatusCode::SERVICE_UNAVAILABLE,
        };
        let refused = change_error(&error);
        change_refused(http, refused.status_code(), refused.to_string())
    }
}

/// A request the endpoint could not read: 400 with the reason.
pub fn bad_change(reason: String) -> ChangeAnswer {
    change_refused(
        http::StatusCode::BAD_REQUEST,
        Status::RequestInvalid,
        reason,
    )
}
