//! A three-member cluster of `quiver serve` processes on loopback: writes on the leader are
//! read on every member (bookmark-waited), a follower refuses writes with NotALeader, ROUTE
//! names the real roles, a killed leader is replaced with no acknowledged write lost, and a
//! restarted member rejoins and catches up; a member started with `--join` is added through
//! `dbms.cluster.addServer` (caught up from a snapshot), and a member is removed through
//! `DELETE /cluster/members/{id}` while the cluster keeps taking writes; a member is ready only
//! once it knows a leader.
//!
//! Every wait polls a condition against a deadline; none sleeps for a fixed time.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use quiver_bolt::Request;
use quiver_bolt::message::{AccessMode, RouteExtra, RunExtra};
use quiver_lab::client::ClientError;
use quiver_value::{Map, Value};

mod common;
use common::{client_runtime, connect, login};

/// How long the cluster may take to elect a leader, hand addresses round, or catch up.
const SETTLE: Duration = Duration::from_secs(20);
/// Between two looks at a polled condition.
const POLL: Duration = Duration::from_millis(50);

const NOT_A_LEADER: &str = "Neo.ClientError.Cluster.NotALeader";
const CALL_FAILED: &str = "Neo.ClientError.Procedure.ProcedureCallFailed";

/// One member's fixed addresses and its directory.
#[derive(Clone, Debug)]
struct MemberSpec {
    id: u64,
    raft: SocketAddr,
    bolt: SocketAddr,
    http: SocketAddr,
    dir: PathBuf,
}

/// Free loopback ports, taken by binding port 0 and letting go: the members bind them next.
fn free_ports(n: usize) -> Vec<SocketAddr> {
    let held: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind a free port"))
        .collect();
    held.iter()
        .map(|l| l.local_addr().expect("local addr"))
        .collect()
}

struct Member {
    child: Option<Child>,
}

impl Member {
    fn start(spec: &MemberSpec, members: &str) -> Member {
        Member::start_with(spec, &["--initial-members", members])
    }

    /// Starts a member with `how` naming its cluster (`--initial-members ...` or `--join ...`)
    /// and any further flags.
    fn start_with(spec: &MemberSpec, how: &[&str]) -> Member {
        let log = std::fs::File::create(spec.dir.with_extension(format!(
            "{}.log",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        )))
        .expect("log file");
        let mut command = common::quiver();
        command
            .arg("serve")
            .args(["--node-id", &spec.id.to_string()])
            .args(["--raft-listen", &spec.raft.to_string()])
            .args(how)
            .args(["--bolt-listen", &spec.bolt.to_string()])
            .args(["--http-listen", &spec.http.to_string()])
            .arg("--data-dir")
            .arg(&spec.dir)
            .args(["--bookmark-timeout-ms", "20000"]);
        let child = command
            .env("QUIVER_LOG", "info")
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn quiver serve");
        Member { child: Some(child) }
    }

    /// SIGKILL: no handover, no flush.
    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Member {
    fn drop(&mut self) {
        self.kill();
    }
}

/// GET `path` on an HTTP listener; the body, when the answer is 200.
fn http_get(addr: SocketAddr, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    let (head, body) = text.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_owned())
}

/// Sends `method path` with the header lines `headers` (each ending in CRLF) and `body`;
/// the status code and the body of the answer.
fn http_request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         {headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a response");
    let code = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("a status line");
    (code, body.to_owned())
}

/// Sends `method path` with a JSON `body`; the status code and the body.
fn http_send(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    http_request(
        addr,
        method,
        path,
        "Content-Type: application/json\r\n",
        body,
    )
}

/// `method path` with HTTP basic credentials (`user:password` in base64), no body; the status
/// code and the body.
fn http_send_as(addr: SocketAddr, method: &str, path: &str, basic: &str) -> (u16, String) {
    let authorization = format!("Authorization: Basic {basic}\r\n");
    http_request(addr, method, path, &authorization, "")
}

/// The value of one sample in a member's `/metrics` (the line that starts with `name `).
fn metric(member: &MemberSpec, name: &str) -> Option<f64> {
    let text = http_get(member.http, "/metrics")?;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

fn cluster_status(member: &MemberSpec) -> Option<serde_json::Value> {
    serde_json::from_str(&http_get(member.http, "/cluster/status")?).ok()
}

/// Polls `check` until it answers `Some`, or fails naming `what` at the deadline.
fn eventually<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + SETTLE;
    loop {
        if let Some(found) = check() {
            return found;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(POLL);
    }
}

/// The leader every member in `among` agrees on, once each knows every member's Bolt address.
fn agreed_leader(among: &[&MemberSpec]) -> u64 {
    eventually("a leader every member agrees on", || {
        let mut leader = None;
        for m in among {
            let s = cluster_status(m)?;
            let members = s["members"].as_array()?;
            if members
                .iter()
                .any(|m| m["bolt"].as_str().is_none_or(str::is_empty))
            {
                return None;
            }
            let l = s["leader"].as_u64()?;
            if leader.is_some_and(|x| x != l) {
                return None;
            }
            leader = Some(l);
        }
        let l = leader?;
        let s = cluster_status(among.iter().find(|m| m.id == l)?)?;
        // Ready once its first entry of the term is applied: then it takes writes.
        s["writes_refused"].is_null().then_some(l)
    })
}

fn run(query: &str, params: Map, bookmarks: Vec<String>, mode: AccessMode) -> Request {
    Request::Run {
        query: query.to_owned(),
        params,
        extra: RunExtra {
            bookmarks,
            mode,
            ..RunExtra::default()
        },
    }
}

fn pull() -> Request {
    Request::Pull { n: -1, qid: -1 }
}

/// An auto-commit write on `bolt`: the bookmark it returned, or the failure's code.
async fn write_item(bolt: SocketAddr, s: i64) -> Result<Result<String, String>, String> {
    let mut conn = connect(bolt).await?;
    let params: Map = [(Arc::from("s"), Value::Int(s))].into_iter().collect();
    let out = conn
        .exchange(&[
            run(
                "CREATE (:Item {s: $s})",
                params,
                Vec::new(),
                AccessMode::Write,
            ),
            pull(),
        ])
        .await
        .map_err(|e| e.to_string())?;
    conn.close().await;
    match (out.summaries.first(), out.summaries.get(1)) {
        (Some(Ok(_)), Some(Ok(meta))) => match meta.get("bookmark") {
            Some(Value::String(b)) => Ok(Ok(b.to_string())),
            other => Err(format!("no bookmark after a write: {other:?}")),
        },
        (Some(Err(ClientError::Failure { code, .. })), _)
        | (_, Some(Err(ClientError::Failure { code, .. }))) => Ok(Err(code.clone())),
        other => Err(format!("write {s}: {other:?}")),
    }
}

/// The items `bolt` serves to a read that presents `bookmark`, sorted.
async fn items(bolt: SocketAddr, bookmark: &str) -> Result<Vec<i64>, String> {
    let mut conn = connect(bolt).await?;
    let out = conn
        .exchange(&[
            run(
                "MATCH (i:Item) RETURN i.s ORDER BY i.s",
                Map::new(),
                vec![bookmark.to_owned()],
                AccessMode::Read,
            ),
            pull(),
        ])
        .await
        .map_err(|e| e.to_string())?;
    conn.close().await;
    if let Some(Err(e)) = out.summaries.iter().find(|s| s.is_err()) {
        return Err(format!("read at {bookmark}: {e}"));
    }
    Ok(out
        .records
        .iter()
        .filter_map(|r| r.first().and_then(Value::as_int))
        .collect())
}

/// The routing table `bolt` answers: addresses by role.
async fn route(bolt: SocketAddr) -> Result<BTreeMap<String, Vec<String>>, String> {
    let mut conn = connect(bolt).await?;
    let routing: Map = [(Arc::from("address"), Value::from(bolt.to_string()))]
        .into_iter()
        .collect();
    let out = conn
        .exchange(&[Request::Route {
            routing,
            bookmarks: Vec::new(),
            extra: RouteExtra::default(),
        }])
        .await
        .map_err(|e| e.to_string())?;
    conn.close().await;
    let Some(Ok(meta)) = out.summaries.first() else {
        return Err(format!("ROUTE failed: {:?}", out.summaries));
    };
    let Some(Value::Map(rt)) = meta.get("rt") else {
        return Err(format!("no routing table: {meta:?}"));
    };
    let mut roles = BTreeMap::new();
    for server in rt
        .get("servers")
        .and_then(Value::as_list)
        .unwrap_or_default()
    {
        let Value::Map(server) = server else { continue };
        let role = match server.get("role") {
            Some(Value::String(r)) => r.to_string(),
            _ => continue,
        };
        let mut addresses: Vec<String> = server
            .get("addresses")
            .and_then(Value::as_list)
            .unwrap_or_default()
            .iter()
            .filter_map(|a| match a {
                Value::String(a) => Some(a.to_string()),
                _ => None,
            })
            .collect();
        addresses.sort();
        roles.insert(role, addresses);
    }
    if let Some(ttl) = rt.get("ttl").and_then(Value::as_int) {
        roles.insert("ttl".to_owned(), vec![ttl.to_string()]);
    }
    Ok(roles)
}

fn specs(root: &Path) -> (Vec<MemberSpec>, String) {
    let ports = free_ports(9);
    let specs: Vec<MemberSpec> = (0..3)
        .map(|i| MemberSpec {
            id: i as u64 + 1,
            raft: ports[i * 3],
            bolt: ports[i * 3 + 1],
            http: ports[i * 3 + 2],
            dir: root.join(format!("member-{}", i + 1)),
        })
        .collect();
    let members = specs
        .iter()
        .map(|s| format!("{}={}", s.id, s.raft))
        .collect::<Vec<_>>()
        .join(",");
    (specs, members)
}

#[test]
fn a_member_is_ready_only_once_it_knows_a_leader() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let mut running = vec![Member::start(&specs[0], &members)];
    // Serving, but one member of three can elect no one: not ready, and it says why.
    let (code, body) = eventually("member 1 past its start", || {
        http_get(specs[0].http, "/health/live")?;
        let (code, body) = http_send(specs[0].http, "GET", "/health/ready", "");
        (code == 200 || body.contains("cluster")).then_some((code, body))
    });
    assert_eq!(code, 503, "{body}");
    assert!(body.contains("no leader"), "{body}");
    running.extend(specs[1..].iter().map(|s| Member::start(s, &members)));
    for spec in &specs {
        eventually("every member ready once a leader is elected", || {
            http_get(spec.http, "/health/ready")
        });
    }
}

#[test]
fn a_three_member_cluster_replicates_routes_fails_over_and_rejoins() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let mut running: Vec<Member> = specs.iter().map(|s| Member::start(s, &members)).collect();
    let all: Vec<&MemberSpec> = specs.iter().collect();
    let leader = agreed_leader(&all);
    let leader_spec = &specs[usize::try_from(leader - 1).expect("id")];
    let followers: Vec<&MemberSpec> = specs.iter().filter(|s| s.id != leader).collect();
    let rt = client_runtime();

    // A write on the leader is read on every member once its bookmark is applied there.
    let bookmark = rt
        .block_on(write_item(leader_spec.bolt, 1))
        .expect("write")
        .expect("the leader takes the write");
    for m in &specs {
        let got = rt.block_on(items(m.bolt, &bookmark)).expect("read");
        assert_eq!(got, vec![1], "member {} at {bookmark}", m.id);
    }

    // A follower refuses a write by name, so drivers refresh their routes and retry.
    let refused = rt
        .block_on(write_item(followers[0].bolt, 2))
        .expect("write on a follower");
    assert_eq!(refused, Err(NOT_A_LEADER.to_owned()));

    // ROUTE: the leader writes, the followers read, everyone routes; a short TTL.
    let roles = rt.block_on(route(followers[1].bolt)).expect("route");
    assert_eq!(roles["WRITE"], vec![leader_spec.bolt.to_string()]);
    let mut readers: Vec<String> = followers.iter().map(|f| f.bolt.to_string()).collect();
    readers.sort();
    assert_eq!(roles["READ"], readers);
    let mut routers: Vec<String> = specs.iter().map(|s| s.bolt.to_string()).collect();
    routers.sort();
    assert_eq!(roles["ROUTE"], routers);
    let ttl: i64 = roles["ttl"][0].parse().expect("ttl");
    assert!((10..=30).contains(&ttl), "ttl {ttl}");

    // More acknowledged writes, then the leader dies without a word.
    let mut acked = vec![1];
    let mut last_bookmark = bookmark;
    for s in 2..=20 {
        if let Ok(Ok(b)) = rt.block_on(write_item(leader_spec.bolt, s)) {
            acked.push(s);
            last_bookmark = b;
        }
    }
    assert_eq!(acked.len(), 20, "a healthy leader acknowledges every write");
    running[usize::try_from(leader - 1).expect("id")].kill();

    // The others elect a new leader, which takes writes and has lost none acknowledged.
    let new_leader = agreed_leader(&followers);
    assert_ne!(new_leader, leader);
    let new_spec = &specs[usize::try_from(new_leader - 1).expect("id")];
    let bookmark = eventually("the new leader to take a write", || {
        rt.block_on(write_item(new_spec.bolt, 21)).ok()?.ok()
    });
    acked.push(21);
    for m in &followers {
        let got = rt.block_on(items(m.bolt, &bookmark)).expect("read");
        assert_eq!(got, acked, "member {} after the failover", m.id);
    }
    let _ = last_bookmark;

    // The old leader restarts with the same flags, rejoins as a follower and catches up.
    running[usize::try_from(leader - 1).expect("id")] = Member::start(leader_spec, &members);
    let got = eventually("the restarted member to serve the newest write", || {
        rt.block_on(items(leader_spec.bolt, &bookmark)).ok()
    });
    assert_eq!(got, acked, "the restarted member");
    let status = eventually("the restarted member's status", || {
        cluster_status(leader_spec)
    });
    assert_eq!(status["leader"].as_u64(), Some(new_leader));
    assert_eq!(status["role"].as_str(), Some("FOLLOWER"));
}

/// SIGTERM, and the exit status once the member stopped.
fn terminate(member: &mut Member) -> Option<std::process::ExitStatus> {
    let mut child = member.child.take()?;
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().ok()?;
    child.wait().ok()
}

/// A leader stopped with SIGTERM hands leadership over before it stops: it exits cleanly, the
/// others agree on a new leader that takes writes, and it serves every acknowledged write.
#[test]
fn a_leader_stopped_gracefully_hands_over_and_loses_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let mut running: Vec<Member> = specs.iter().map(|s| Member::start(s, &members)).collect();
    let all: Vec<&MemberSpec> = specs.iter().collect();
    let leader = agreed_leader(&all);
    let index = usize::try_from(leader - 1).expect("id");
    let rt = client_runtime();
    let mut acked = Vec::new();
    for s in 1..=10 {
        rt.block_on(write_item(specs[index].bolt, s))
            .expect("write")
            .expect("the leader takes the write");
        acked.push(s);
    }
    let status = terminate(&mut running[index]).expect("the leader stopped");
    assert!(status.success(), "the leader exited with {status}");
    let others: Vec<&MemberSpec> = specs.iter().filter(|s| s.id != leader).collect();
    let new_leader = agreed_leader(&others);
    let new_spec = &specs[usize::try_from(new_leader - 1).expect("id")];
    let bookmark = eventually("the new leader to take a write", || {
        rt.block_on(write_item(new_spec.bolt, 11)).ok()?.ok()
    });
    acked.push(11);
    let got = rt.block_on(items(new_spec.bolt, &bookmark)).expect("read");
    assert_eq!(got, acked);
}

/// The longer variant: the leader is killed five times in a row, each time replaced, its
/// successor writing on, the killed member restarted; nothing acknowledged is ever lost.
#[test]
#[ignore = "long: five failovers"]
fn repeated_leader_kills_lose_no_acknowledged_write() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let mut running: Vec<Member> = specs.iter().map(|s| Member::start(s, &members)).collect();
    let rt = client_runtime();
    let mut acked = Vec::new();
    let mut next = 1;
    for _ in 0..5 {
        let all: Vec<&MemberSpec> = specs.iter().collect();
        let leader = agreed_leader(&all);
        let index = usize::try_from(leader - 1).expect("id");
        for _ in 0..20 {
            if let Ok(Ok(_)) = rt.block_on(write_item(specs[index].bolt, next)) {
                acked.push(next);
            }
            next += 1;
        }
        running[index].kill();
        let others: Vec<&MemberSpec> = specs.iter().filter(|s| s.id != leader).collect();
        let new_leader = agreed_leader(&others);
        let new_spec = &specs[usize::try_from(new_leader - 1).expect("id")];
        let bookmark = eventually("the new leader to take a write", || {
            rt.block_on(write_item(new_spec.bolt, next)).ok()?.ok()
        });
        acked.push(next);
        next += 1;
        let got = rt.block_on(items(new_spec.bolt, &bookmark)).expect("read");
        let missing: Vec<i64> = acked.iter().filter(|s| !got.contains(s)).copied().collect();
        assert!(missing.is_empty(), "acknowledged writes lost: {missing:?}");
        running[index] = Member::start(&specs[index], &members);
    }
}

/// Runs `query` (auto-commit, write mode) on `bolt`: `Ok(Ok(rows))`, or the failure's code
/// and message.
async fn call(
    bolt: SocketAddr,
    query: &str,
) -> Result<Result<Vec<Vec<Value>>, (String, String)>, String> {
    let mut conn = connect(bolt).await?;
    let out = conn
        .exchange(&[
            run(query, Map::new(), Vec::new(), AccessMode::Write),
            pull(),
        ])
        .await
        .map_err(|e| e.to_string())?;
    conn.close().await;
    match (out.summaries.first(), out.summaries.get(1)) {
        (Some(Ok(_)), Some(Ok(_))) => Ok(Ok(out.records.clone())),
        (Some(Err(ClientError::Failure { code, message, .. })), _)
        | (_, Some(Err(ClientError::Failure { code, message, .. }))) => {
            Ok(Err((code.clone(), message.clone())))
        }
        other => Err(format!("{query}: {other:?}")),
    }
}

/// A three-member cluster snapshots and purges its log as it takes writes; a fourth member
/// started with `--join` waits until an administrator adds it, catches up from a snapshot, and
/// serves a bookmarked read of everything; then a member is removed (its id refused ever
/// after) and the cluster keeps taking writes.
#[test]
fn a_member_is_added_from_a_snapshot_and_another_removed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let snapshot_every = ["--raft-snapshot-entries", "20"];
    let mut running: Vec<Member> = specs
        .iter()
        .map(|s| {
            let mut how = vec!["--initial-members", members.as_str()];
            how.extend(snapshot_every);
            Member::start_with(s, &how)
        })
        .collect();
    let all: Vec<&MemberSpec> = specs.iter().collect();
    let leader = agreed_leader(&all);
    let leader_spec = &specs[usize::try_from(leader - 1).expect("id")];
    let rt = client_runtime();
    let mut acked = Vec::new();
    for s in 1..=50 {
        rt.block_on(write_item(leader_spec.bolt, s))
            .expect("write")
            .expect("the leader takes the write");
        acked.push(s);
    }
    // The leader snapshotted, and purged the log behind the snapshot.
    eventually("the leader to snapshot", || {
        let s = cluster_status(leader_spec)?;
        (s["snapshot_index"].as_u64()? >= 20).then_some(())
    });

    // The new member: no initial members, it waits to be added.
    let ports = free_ports(3);
    let new = MemberSpec {
        id: 4,
        raft: ports[0],
        bolt: ports[1],
        http: ports[2],
        dir: tmp.path().join("member-4"),
    };
    let join = leader_spec.raft.to_string();
    let mut how = vec!["--join", join.as_str()];
    how.extend(snapshot_every);
    running.push(Member::start_with(&new, &how));
    let waiting = eventually("the new member to answer", || cluster_status(&new));
    assert!(
        waiting["members"].as_array().is_some_and(Vec::is_empty),
        "a joining member initializes nothing: {waiting}"
    );

    let add = format!("CALL dbms.cluster.addServer(4, '{}')", new.raft);
    let follower = specs.iter().find(|s| s.id != leader).expect("a follower");
    changes_are_refused_where_they_must_be(&rt, leader_spec, follower, &add);

    // Added on the leader: it returns once the member caught up and votes.
    let rows = rt
        .block_on(call(leader_spec.bolt, &add))
        .expect("call")
        .expect("the leader adds the member");
    assert_eq!(rows.len(), 1);
    let bookmark = rt
        .block_on(write_item(leader_spec.bolt, 51))
        .expect("write")
        .expect("the leader takes the write");
    acked.push(51);
    let got = rt
        .block_on(items(new.bolt, &bookmark))
        .expect("read on the new member");
    assert_eq!(got, acked, "the new member serves everything");
    let status = cluster_status(&new).expect("the new member's status");
    assert!(
        status["snapshot_index"].as_u64().is_some(),
        "the new member was caught up from a snapshot: {status}"
    );
    let leader_view = cluster_status(leader_spec).expect("the leader's status");
    let voters = leader_view["members"]
        .as_array()
        .expect("members")
        .iter()
        .filter(|m| m["voter"].as_bool() == Some(true))
        .count();
    assert_eq!(voters, 4, "{leader_view}");
    // The transfer is counted on both sides, and the leader's appends were timed.
    eventually("the snapshot transfer in the metrics", || {
        let sent = metric(leader_spec, "quiver_cluster_snapshots_sent_total")?;
        let installed = metric(&new, "quiver_cluster_snapshots_installed_total")?;
        let appends = metric(leader_spec, "quiver_cluster_append_latency_seconds_count")?;
        (sent >= 1.0 && installed >= 1.0 && appends >= 50.0).then_some(())
    });
    assert!(
        metric(leader_spec, "quiver_cluster_follower_lag").is_some(),
        "the leader reports its followers' lag"
    );

    let removed = specs.iter().find(|s| s.id != leader).expect("a follower");
    let other = specs
        .iter()
        .find(|s| s.id != leader && s.id != removed.id)
        .expect("another follower");
    remove_for_good(&rt, leader_spec, other, removed);
    running[usize::try_from(removed.id - 1).expect("id")].kill();
    let bookmark = rt
        .block_on(write_item(leader_spec.bolt, 52))
        .expect("write")
        .expect("the leader takes a write after the removal");
    acked.push(52);
    let got = rt.block_on(items(new.bolt, &bookmark)).expect("read");
    assert_eq!(got, acked);
}

/// A follower refuses the change `add` with NotALeader; the leader refuses bad arguments,
/// naming each.
fn changes_are_refused_where_they_must_be(
    rt: &tokio::runtime::Runtime,
    leader: &MemberSpec,
    follower: &MemberSpec,
    add: &str,
) {
    let refused = rt.block_on(call(follower.bolt, add)).expect("call");
    assert_eq!(refused.map_err(|e| e.0), Err(NOT_A_LEADER.to_owned()));
    for (bad, argument) in [
        ("CALL dbms.cluster.addServer(0, '127.0.0.1:1')", "id"),
        ("CALL dbms.cluster.addServer(5, 'nowhere')", "raftAddress"),
        ("CALL dbms.cluster.removeServer(-1)", "id"),
    ] {
        let (code, message) = rt
            .block_on(call(leader.bolt, bad))
            .expect("call")
            .expect_err(bad);
        assert_eq!(code, CALL_FAILED, "{bad}");
        assert!(
            message.contains(&format!("`{argument}`")),
            "{bad}: {message}"
        );
    }
}

/// Removes `removed` on the leader through the HTTP endpoint (refused on a follower and for a
/// malformed request); adding its id back is refused, by the procedure and over HTTP.
fn remove_for_good(
    rt: &tokio::runtime::Runtime,
    leader: &MemberSpec,
    follower: &MemberSpec,
    removed: &MemberSpec,
) {
    let path = format!("/cluster/members/{}", removed.id);
    let (status, body) = http_send(follower.http, "DELETE", &path, "");
    assert_eq!(status, 421, "{body}");
    assert!(body.contains(NOT_A_LEADER), "{body}");
    for (method, path, body) in [
        ("DELETE", "/cluster/members/zero", ""),
        ("POST", "/cluster/members", "{\"id\": 9}"),
        ("POST", "/cluster/members", "not json"),
    ] {
        let (status, answer) = http_send(leader.http, method, path, body);
        assert_eq!(status, 400, "{method} {path} {body}: {answer}");
    }
    let (status, body) = http_send(leader.http, "DELETE", &path, "");
    assert_eq!(status, 200, "the leader removes the member: {body}");
    let re_add = format!(
        "{{\"id\": {}, \"raftAddress\": \"{}\"}}",
        removed.id, removed.raft
    );
    let (status, body) = http_send(leader.http, "POST", "/cluster/members", &re_add);
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("never reused"), "{body}");
    let (code, message) = rt
        .block_on(call(
            leader.bolt,
            &format!(
                "CALL dbms.cluster.addServer({}, '{}')",
                removed.id, removed.raft
            ),
        ))
        .expect("call")
        .expect_err("a removed id is refused");
    assert_eq!(code, CALL_FAILED);
    assert!(message.contains("never reused"), "{message}");
}

/// Runs `query` as `user` on `bolt` and returns its one value, or the failure's code.
async fn as_user(
    bolt: SocketAddr,
    (user, password): (&str, &str),
    query: &str,
) -> Result<Option<Value>, String> {
    let mut conn = login(bolt, user, password).await?;
    let out = conn
        .query_scalar(query, Map::new())
        .await
        .map_err(|e| match e {
            ClientError::Failure { code, .. } => code,
            other => other.to_string(),
        });
    conn.close().await;
    out
}

const ROOT: (&str, &str) = ("root", "root-password");
const UNAUTHORIZED: &str = "Neo.ClientError.Security.Unauthorized";

#[test]
fn users_made_on_the_leader_log_in_on_every_member_and_a_dropped_one_nowhere() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let auth = format!("{}/{}", ROOT.0, ROOT.1);
    let flags = [
        "--initial-members",
        members.as_str(),
        "--auth",
        auth.as_str(),
    ];
    let mut running: Vec<Member> = specs
        .iter()
        .map(|s| Member::start_with(s, &flags))
        .collect();
    let all: Vec<&MemberSpec> = specs.iter().collect();
    let leader = agreed_leader(&all);
    let leader_spec = &specs[usize::try_from(leader - 1).expect("id")];
    let rt = client_runtime();
    for statement in [
        "CREATE (:Existing {x: 1})",
        "CREATE ROLE auditor AS COPY OF reader",
        "CREATE USER ann SET PASSWORD 'ann-password' CHANGE NOT REQUIRED",
        "GRANT ROLE auditor TO ann",
    ] {
        rt.block_on(as_user(leader_spec.bolt, ROOT, statement))
            .unwrap_or_else(|code| panic!("{statement}: {code}"));
    }
    let ann = ("ann", "ann-password");
    let reads = "MATCH (n:Existing) RETURN count(n) AS n";
    // Every member learns the user and the role from the log: ann logs in and reads there.
    for m in &specs {
        let read = eventually(&format!("ann to read on member {}", m.id), || {
            rt.block_on(as_user(m.bolt, ann, reads)).ok()
        });
        assert_eq!(read, Some(Value::Int(1)), "member {}", m.id);
        let role = rt
            .block_on(as_user(
                m.bolt,
                ROOT,
                "SHOW ROLES YIELD role WHERE role = 'auditor' RETURN count(*) AS n",
            ))
            .expect("show roles");
        assert_eq!(role, Some(Value::Int(1)), "the role on member {}", m.id);
    }
    // A follower restarted from its directory still knows them.
    let follower = specs.iter().find(|s| s.id != leader).expect("a follower");
    let index = usize::try_from(follower.id - 1).expect("id");
    running[index].kill();
    running[index] = Member::start_with(follower, &flags);
    let read = eventually("ann to read on the restarted follower", || {
        rt.block_on(as_user(follower.bolt, ann, reads)).ok()
    });
    assert_eq!(read, Some(Value::Int(1)));
    let leader = agreed_leader(&all);
    let leader_spec = &specs[usize::try_from(leader - 1).expect("id")];
    // The membership endpoints want an administrator: no credentials is 401, a reader 403.
    let (status, _) = http_send(leader_spec.http, "DELETE", "/cluster/members/3", "");
    assert_eq!(status, 401, "no credentials");
    let (status, body) = http_send_as(
        leader_spec.http,
        "DELETE",
        "/cluster/members/3",
        // base64 of ann:ann-password
        "YW5uOmFubi1wYXNzd29yZA==",
    );
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains("Neo.ClientError.Security.Forbidden"),
        "{body}"
    );
    // Dropped on the leader, ann logs in nowhere.

    rt.block_on(as_user(leader_spec.bolt, ROOT, "DROP USER ann"))
        .expect("drop user");
    for m in &specs {
        eventually(&format!("ann to be refused on member {}", m.id), || {
            let refused = rt.block_on(as_user(m.bolt, ann, reads)).err()?;
            (refused == UNAUTHORIZED).then_some(())
        });
    }
}

#[test]
fn the_initial_user_is_made_once_through_the_log_and_logs_in_on_every_member() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let flags = [
        "--initial-members",
        members.as_str(),
        "--initial-user",
        "boss/first-pass",
    ];
    let _running: Vec<Member> = specs
        .iter()
        .map(|s| Member::start_with(s, &flags))
        .collect();
    let all: Vec<&MemberSpec> = specs.iter().collect();
    let rt = client_runtime();
    // Every member starts as a follower: the first leader makes the user, the others learn it.
    for m in &specs {
        let expired = eventually(&format!("the initial user on member {}", m.id), || {
            rt.block_on(as_user(m.bolt, ("boss", "first-pass"), "RETURN 1"))
                .err()
                .filter(|code| code == "Neo.ClientError.Security.CredentialsExpired")
        });
        assert_eq!(expired, "Neo.ClientError.Security.CredentialsExpired");
    }
    let leader = agreed_leader(&all);
    let leader_spec = &specs[usize::try_from(leader - 1).expect("id")];
    rt.block_on(as_user(
        leader_spec.bolt,
        ("boss", "first-pass"),
        "ALTER CURRENT USER SET PASSWORD FROM 'first-pass' TO 'second-pass'",
    ))
    .expect("the password changed");
    for m in &specs {
        let users = eventually(&format!("the new password on member {}", m.id), || {
            rt.block_on(as_user(
                m.bolt,
                ("boss", "second-pass"),
                "SHOW USERS YIELD user, roles RETURN collect([user, 'admin' IN roles]) AS users",
            ))
            .ok()
        });
        assert_eq!(
            users,
            Some(Value::list(vec![Value::list(vec![
                Value::from("boss"),
                Value::Bool(true)
            ])])),
            "one user, an administrator, on member {}",
            m.id
        );
    }
}

/// Writes a cluster CA and a certificate and key for each of `ids` into `dir`, as an operator
/// would make them: each member's certificate names it as `member-<id>.quiver-cluster`.
/// Returns the CA's path.
fn cluster_certs(dir: &Path, ids: &[u64]) -> PathBuf {
    use rcgen::{
        BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    };
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate().expect("CA key");
    let ca_cert = ca.self_signed(&ca_key).expect("CA certificate");
    let ca_path = dir.join("cluster-ca.pem");
    std::fs::write(&ca_path, ca_cert.pem()).expect("write the CA");
    let issuer = Issuer::new(ca, ca_key);
    for id in ids {
        let mut params =
            CertificateParams::new(vec![format!("member-{id}.quiver-cluster")]).expect("params");
        params.extended_key_usages = vec![
            ExtendedKeyUsagePurpose::ServerAuth,
            ExtendedKeyUsagePurpose::ClientAuth,
        ];
        let key = KeyPair::generate().expect("member key");
        let cert = params.signed_by(&key, &issuer).expect("member certificate");
        std::fs::write(dir.join(format!("member-{id}.pem")), cert.pem()).expect("write");
        std::fs::write(dir.join(format!("member-{id}.key")), key.serialize_pem()).expect("write");
    }
    ca_path
}

/// Members speak mutual TLS: the cluster elects, replicates and routes as before; a plain
/// connection to a Raft listener is dropped and counted; a reader may not change the
/// membership through `dbms.cluster.removeServer` (as over HTTP), an administrator may, and the
/// audit log records the change with the client's address.
#[test]
fn a_tls_cluster_replicates_and_only_an_administrator_changes_its_membership() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (specs, members) = specs(tmp.path());
    let ca = cluster_certs(tmp.path(), &[1, 2, 3]);
    let auth = format!("{}/{}", ROOT.0, ROOT.1);
    let mut running = Vec::new();
    for s in &specs {
        let cert = tmp.path().join(format!("member-{}.pem", s.id));
        let key = tmp.path().join(format!("member-{}.key", s.id));
        let audit = tmp.path().join(format!("audit-{}.log", s.id));
        let flags: Vec<&str> = vec![
            "--initial-members",
            &members,
            "--auth",
            &auth,
            "--cluster-tls-cert",
            cert.to_str().expect("path"),
            "--cluster-tls-key",
            key.to_str().expect("path"),
            "--cluster-tls-ca",
            ca.to_str().expect("path"),
            "--audit-log",
            audit.to_str().expect("path"),
        ];
        running.push(Member::start_with(s, &flags));
    }
    let all: Vec<&MemberSpec> = specs.iter().collect();
    let leader = agreed_leader(&all);
    let leader_spec = &specs[usize::try_from(leader - 1).expect("id")];
    let rt = client_runtime();
    for statement in [
        "CREATE (:Item {s: 1})",
        "CREATE USER ann SET PASSWORD 'ann-password' CHANGE NOT REQUIRED",
        "GRANT ROLE reader TO ann",
    ] {
        rt.block_on(as_user(leader_spec.bolt, ROOT, statement))
            .unwrap_or_else(|code| panic!("{statement}: {code}"));
    }
    for m in &specs {
        let read = eventually(&format!("the item on member {}", m.id), || {
            rt.block_on(as_user(
                m.bolt,
                ("ann", "ann-password"),
                "MATCH (i:Item) RETURN count(i)",
            ))
            .ok()
            .filter(|n| *n == Some(Value::Int(1)))
        });
        assert_eq!(read, Some(Value::Int(1)));
    }

    // A plain connection to a TLS member's Raft listener: dropped, logged, counted.
    let follower = specs.iter().find(|s| s.id != leader).expect("a follower");
    let mut plain = TcpStream::connect(follower.raft).expect("connect");
    plain.write_all(b"QRFT\x01").expect("write");
    plain
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let mut byte = [0u8; 1];
    assert!(matches!(plain.read(&mut byte), Ok(0) | Err(_)), "answered");
    eventually("the refusal counted", || {
        metric(
            follower,
            "quiver_cluster_raft_refused_total{reason=\"plain_on_tls\"}",
        )
        .filter(|n| *n >= 1.0)
    });

    let victim = specs
        .iter()
        .rev()
        .find(|s| s.id != leader)
        .expect("a member to remove");
    let remove = format!("CALL dbms.cluster.removeServer({})", victim.id);
    let refused = rt.block_on(as_user(leader_spec.bolt, ("ann", "ann-password"), &remove));
    assert_eq!(
        refused,
        Err("Neo.ClientError.Security.Forbidden".to_owned()),
        "a reader removing member {}",
        victim.id
    );
    assert!(
        cluster_status(leader_spec).expect("status")["members"]
            .as_array()
            .expect("members")
            .iter()
            .any(|m| m["id"].as_u64() == Some(victim.id))
    );
    rt.block_on(as_user(leader_spec.bolt, ROOT, &remove))
        .expect("an administrator removes the member");

    let audit = std::fs::read_to_string(tmp.path().join(format!("audit-{leader}.log")))
        .expect("the leader's audit log");
    let changes: Vec<serde_json::Value> = audit
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "remove_server")
        .collect();
    assert_eq!(changes.len(), 1, "{audit}");
    assert_eq!(changes[0]["user"], "root");
    assert_eq!(changes[0]["client"], "127.0.0.1");
    assert_eq!(changes[0]["target"], victim.id.to_string());
    assert_eq!(changes[0]["outcome"], "done");
    drop(running);
}
