//! Members on 127.0.0.1 replicate commits: a majority stores every acknowledged write, every
//! member applies it, and no acknowledged write is lost when the leader goes away, a member
//! falls behind the log, a cut-off leader's unacknowledged tail is overwritten, or a member
//! restarts; and every member counts what its log writes and fsyncs.
//!
//! Writes go through the leader's store the way the engine's will: a transaction commits in
//! memory and its redo record is handed to `client_write`. Waits are on conditions with
//! deadlines; the latencies and election times printed are measurements, never asserted.

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use openraft::RaftLogReader;
use quiver_cluster::log_store::{LogStats, Synced};
use quiver_cluster::{Cluster, ClusterConfig, ClusterError, Node, NodeId, Role};
use tempfile::TempDir;
use tokio::net::TcpListener;

use support::{WAIT, bind_members, commit_item, dump};

/// The scenarios start several members each; on a small machine they run one at a time so
/// that their elections do not starve one another.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn items(member: &Cluster) -> usize {
    dump(member)
        .iter()
        .filter(|op| op.starts_with("CreateNode"))
        .count()
}

struct Harness {
    nodes: BTreeMap<NodeId, Node>,
    dirs: BTreeMap<NodeId, TempDir>,
    members: BTreeMap<NodeId, Cluster>,
}

fn config(
    id: NodeId,
    node: &Node,
    dir: &TempDir,
    members: &BTreeMap<NodeId, Node>,
) -> ClusterConfig {
    let mut c = ClusterConfig::new(id, node.clone(), dir.path());
    c.initial_members = members.clone();
    c.heartbeat_interval_ms = 100;
    c.election_timeout_min_ms = 600;
    c.election_timeout_max_ms = 1200;
    c.snapshot_every_entries = 1_000_000;
    c.logs_kept_after_snapshot = 0;
    c.log_segment_bytes_max = 4096;
    // Small chunks, so that even these small snapshots stream in many.
    c.snapshot_chunk_bytes = 256;
    c
}

impl Harness {
    async fn start(n: u64) -> Harness {
        let (listeners, nodes) = bind_members(n).await;
        let mut h = Harness {
            nodes,
            dirs: BTreeMap::new(),
            members: BTreeMap::new(),
        };
        for (id, l) in listeners {
            let dir = tempfile::tempdir().unwrap();
            let c = config(id, &h.nodes[&id], &dir, &h.nodes);
            let m = Cluster::start_on(c, l, None).await.unwrap();
            h.dirs.insert(id, dir);
            h.members.insert(id, m);
        }
        h
    }

    /// Starts member `id` again on its data directory and address.
    async fn restart(&mut self, id: NodeId) {
        let dir = &self.dirs[&id];
        let c = config(id, &self.nodes[&id], dir, &self.nodes);
        let deadline = Instant::now() + WAIT;
        let listener = loop {
            match TcpListener::bind(&self.nodes[&id].raft_addr).await {
                Ok(l) => break l,
                Err(e) if Instant::now() < deadline => {
                    eprintln!("rebinding member {id}: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("rebinding member {id}: {e}"),
            }
        };
        let m = Cluster::start_on(c, listener, None).await.unwrap();
        self.members.insert(id, m);
    }

    /// Starts member `id` empty, with no initial members, waiting to be added; its address is
    /// returned for the addition.
    async fn start_joining(&mut self, id: NodeId) -> Node {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let node = Node::new(
            l.local_addr().unwrap().to_string(),
            "127.0.0.1:0",
            "127.0.0.1:0",
        );
        let dir = tempfile::tempdir().unwrap();
        let c = config(id, &node, &dir, &BTreeMap::new());
        let m = Cluster::start_on(c, l, None).await.unwrap();
        self.nodes.insert(id, node.clone());
        self.dirs.insert(id, dir);
        self.members.insert(id, m);
        node
    }

    /// Has `leader` snapshot through `last` and purge its log up to there, so a member behind
    /// it can only be caught up from the snapshot.
    async fn snapshot_and_purge(&self, leader: NodeId, last: u64) {
        let raft = self.members[&leader].raft().clone();
        raft.trigger().snapshot().await.unwrap();
        self.members[&leader]
            .wait_until(WAIT, "snapshot", |s| s.snapshot_index >= Some(last))
            .await
            .unwrap();
        raft.trigger().purge_log(last).await.unwrap();
        self.members[&leader]
            .wait_until(WAIT, "purge", |s| s.purged_index >= Some(last))
            .await
            .unwrap();
    }

    /// Stops member `id` gracefully (a leader hands over first).
    async fn stop(&mut self, id: NodeId) {
        let m = self.members.remove(&id).unwrap();
        m.shutdown().await.unwrap();
    }

    /// Stops member `id` at once, as a crash would (its network is cut first).
    async fn kill(&mut self, id: NodeId) {
        let m = self.members.remove(&id).unwrap();
        m.stop().await.unwrap();
    }

    /// Waits until the members in `among` agree on one leader, also among them; returns it.
    async fn leader(&self, among: &[NodeId]) -> NodeId {
        let deadline = Instant::now() + WAIT;
        loop {
            let leaders: Vec<Option<NodeId>> = among
                .iter()
                .map(|id| self.members[id].status().leader)
                .collect();
            if let Some(Some(l)) = leaders.first()
                && among.contains(l)
                && leaders.iter().all(|x| *x == Some(*l))
                && self.members[l].status().role == Role::Leader
            {
                return *l;
            }
            assert!(Instant::now() < deadline, "no agreed leader: {leaders:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Commits an item on the leader's store and replicates it; returns the entry's index.
    /// A leader just elected refuses writes until a majority grants it a lease: the write is
    /// retried then, as a client would (nothing was appended).
    async fn write(&self, leader: NodeId, name: &str) -> u64 {
        let m = &self.members[&leader];
        let redo = commit_item(&m.store().unwrap().storage(), name);
        let deadline = Instant::now() + WAIT;
        loop {
            match m.client_write(redo.clone()).await {
                Ok(w) => return w.index,
                Err(ClusterError::LeaseNotHeld) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => {
                    for m in self.members.values() {
                        eprintln!("{:?}", m.status());
                    }
                    panic!("write on {leader}: {e}");
                }
            }
        }
    }

    async fn wait_all_applied(&self, index: u64) {
        for m in self.members.values() {
            m.wait_applied(index, WAIT).await.unwrap();
        }
    }

    /// Stops every member at once (no handovers: the cluster is going away).
    async fn shutdown(self) {
        for (_, m) in self.members {
            m.stop().await.unwrap();
        }
    }
}

fn report(what: &str, samples: &mut [Duration]) {
    samples.sort();
    let n = samples.len();
    if n == 0 {
        return;
    }
    println!(
        "{what}: n={n} p50={:?} p90={:?} max={:?}",
        samples[n / 2],
        samples[n * 9 / 10],
        samples[n - 1]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_members_elect_replicate_and_hand_over() {
    let _serial = SERIAL.lock().await;
    let started = Instant::now();
    let h = Harness::start(3).await;
    let all = [1, 2, 3];
    let leader = h.leader(&all).await;
    println!("first election: {:?}", started.elapsed());
    assert_eq!(
        leader, 1,
        "only the lowest id initializes, and it leads first"
    );

    let mut latencies = Vec::new();
    let mut last = 0;
    for i in 0..30 {
        let t = Instant::now();
        last = h.write(leader, &format!("item-{i}")).await;
        latencies.push(t.elapsed());
    }
    report(
        "append latency (commit on a majority, applied on the leader)",
        &mut latencies,
    );
    h.wait_all_applied(last).await;
    let reference = dump(&h.members[&leader]);
    assert_eq!(items(&h.members[&leader]), 30);
    for m in h.members.values() {
        assert_eq!(dump(m), reference, "member {} differs", m.id());
        // Readers see exactly the applied commits.
        let storage = m.store().unwrap().storage();
        assert_eq!(storage.visible_watermark(), storage.last_committed());
    }
    let status = h.members[&leader].status();
    assert_eq!(status.voters, [1, 2, 3].into());
    assert_eq!(status.lag.len(), 2, "the leader reports both followers");

    // Bytes that are not redo records are refused before they become an entry.
    let err = h.members[&leader]
        .client_write(vec![1, 2, 3])
        .await
        .unwrap_err();
    assert!(matches!(err, ClusterError::InvalidRecord(_)), "{err}");

    // A follower refuses writes and names the leader.
    let follower = &h.members[&2];
    let redo = commit_item(&quiver_storage::Storage::new(), "refused");
    let err = follower.client_write(redo).await.unwrap_err();
    assert!(
        matches!(
            err,
            ClusterError::NotLeader {
                leader: Some(1),
                ..
            }
        ),
        "{err}"
    );

    // Leadership moves on request, and the new leader takes writes.
    let t = Instant::now();
    h.members[&leader]
        .transfer_leadership(3, WAIT)
        .await
        .unwrap();
    let new = h.leader(&all).await;
    println!("leader transfer: {:?}", t.elapsed());
    assert_eq!(new, 3);
    let index = h.write(3, "after-transfer").await;
    h.wait_all_applied(index).await;
    for m in h.members.values() {
        assert_eq!(items(m), 31);
    }

    // A leader stopping gracefully hands over first: the others have a leader at once.
    let mut h = h;
    let t = Instant::now();
    h.stop(3).await;
    let successor = h.leader(&[1, 2]).await;
    println!("leader stop with handover: {:?}", t.elapsed());
    let index = h.write(successor, "after-handover").await;
    h.wait_all_applied(index).await;
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leader_loss_elects_a_new_leader_and_loses_nothing() {
    let _serial = SERIAL.lock().await;
    let mut h = Harness::start(3).await;
    let old = h.leader(&[1, 2, 3]).await;
    let mut last = 0;
    for i in 0..10 {
        last = h.write(old, &format!("before-{i}")).await;
    }
    h.wait_all_applied(last).await;
    let t = Instant::now();
    h.kill(old).await;
    let rest: Vec<NodeId> = [1, 2, 3].into_iter().filter(|id| *id != old).collect();
    let new = h.leader(&rest).await;
    println!("election after leader loss: {:?}", t.elapsed());
    assert_ne!(new, old);
    for i in 0..10 {
        last = h.write(new, &format!("after-{i}")).await;
    }
    h.wait_all_applied(last).await;
    let reference = dump(&h.members[&new]);
    for m in h.members.values() {
        assert_eq!(items(m), 20, "member {}", m.id());
        assert_eq!(dump(m), reference);
    }
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_member_counts_what_its_log_writes_and_syncs() {
    let _serial = SERIAL.lock().await;
    let h = Harness::start(3).await;
    let leader = h.leader(&[1, 2, 3]).await;
    let before: BTreeMap<NodeId, LogStats> = h
        .members
        .iter()
        .map(|(id, m)| (*id, m.status().log))
        .collect();
    let mut last = 0;
    for i in 0..5 {
        last = h.write(leader, &format!("counted-{i}")).await;
    }
    h.wait_all_applied(last).await;
    let segment = Synced::Segment as usize;
    for (id, m) in &h.members {
        let seen = &before[id];
        // A member applies only entries its log holds, so they are written; the sync of a
        // follower the majority did not wait for may end a little later.
        let deadline = Instant::now() + WAIT;
        let now = loop {
            let now = m.status().log;
            if now.fsyncs[segment] > seen.fsyncs[segment] || Instant::now() >= deadline {
                break now;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let role = if *id == leader { "leader" } else { "follower" };
        assert!(
            now.fsyncs[segment] > seen.fsyncs[segment],
            "{role} {id}: {now:?}"
        );
        assert!(
            now.entries_appended >= seen.entries_appended + 5,
            "{role} {id}: {now:?}"
        );
        assert!(
            now.bytes_written > seen.bytes_written,
            "{role} {id}: {now:?}"
        );
        for what in Synced::ALL.map(|w| w as usize) {
            assert!(
                now.fsyncs[what] >= seen.fsyncs[what],
                "{role} {id}: {now:?}"
            );
            assert!(now.fsync_micros[what] >= seen.fsync_micros[what]);
        }
    }
    h.snapshot_and_purge(leader, last).await;
    let status = h.members[&leader].status();
    assert!(status.snapshots_built >= 1, "{status:?}");
    assert_eq!(status.snapshot_failures, 0);
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lagging_follower_is_caught_up_by_snapshot() {
    let _serial = SERIAL.lock().await;
    let mut h = Harness::start(3).await;
    let leader = h.leader(&[1, 2, 3]).await;
    let lagging = if leader == 3 { 2 } else { 3 };
    let mut last = h.write(leader, "first").await;
    h.wait_all_applied(last).await;
    h.stop(lagging).await;
    for i in 0..40 {
        last = h.write(leader, &format!("while-away-{i}")).await;
    }
    h.snapshot_and_purge(leader, last).await;
    let raft = h.members[&leader].raft().clone();
    let snapshot = raft.get_snapshot().await.unwrap().unwrap();
    let bytes = std::fs::metadata(snapshot.snapshot.file.unwrap())
        .unwrap()
        .len();
    assert!(
        bytes > 4 * 256,
        "the snapshot streams in several chunks ({bytes} bytes)"
    );
    let t = Instant::now();
    h.restart(lagging).await;
    h.members[&lagging].wait_applied(last, WAIT).await.unwrap();
    println!("catch-up by snapshot: {:?}", t.elapsed());
    let installed = h.members[&lagging].status().snapshot_index;
    assert!(
        installed >= Some(last),
        "the follower was caught up by a snapshot: {installed:?}"
    );
    assert_eq!(items(&h.members[&lagging]), 41);
    assert_eq!(dump(&h.members[&lagging]), dump(&h.members[&leader]));
    // It keeps up through the log afterwards, and its log (resumed past the snapshot) opens
    // again after a restart.
    let index = h.write(leader, "after").await;
    h.wait_all_applied(index).await;
    assert_eq!(dump(&h.members[&lagging]), dump(&h.members[&leader]));
    h.stop(lagging).await;
    h.restart(lagging).await;
    let index = h.write(leader, "after-restart").await;
    h.wait_all_applied(index).await;
    assert_eq!(dump(&h.members[&lagging]), dump(&h.members[&leader]));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deposed_leaders_unacknowledged_tail_is_discarded() {
    let _serial = SERIAL.lock().await;
    let h = Harness::start(3).await;
    let old = h.leader(&[1, 2, 3]).await;
    let mut last = 0;
    for i in 0..3 {
        last = h.write(old, &format!("agreed-{i}")).await;
    }
    h.wait_all_applied(last).await;

    h.members[&old].switch().isolate();
    // The cut-off leader commits in memory and proposes; no majority acknowledges.
    for i in 0..2 {
        let m = &h.members[&old];
        let redo = commit_item(&m.store().unwrap().storage(), &format!("lost-{i}"));
        let r = tokio::time::timeout(Duration::from_millis(500), m.client_write(redo)).await;
        assert!(
            !matches!(r, Ok(Ok(_))),
            "an isolated leader acknowledged a write"
        );
    }
    assert_eq!(
        items(&h.members[&old]),
        3,
        "unacknowledged commits are not visible"
    );
    assert_eq!(
        h.members[&old].store().unwrap().storage().last_committed(),
        5
    );

    let rest: Vec<NodeId> = [1, 2, 3].into_iter().filter(|id| *id != old).collect();
    let new = h.leader(&rest).await;
    for i in 0..2 {
        last = h.write(new, &format!("won-{i}")).await;
    }
    h.members[&old].switch().heal();
    h.wait_all_applied(last).await;
    h.leader(&[1, 2, 3]).await;

    let reference = dump(&h.members[&new]);
    assert!(reference.iter().all(|op| !op.contains("lost-")));
    for m in h.members.values() {
        assert_eq!(dump(m), reference, "member {} differs", m.id());
        assert_eq!(items(m), 5);
    }
    // The old leader's log holds the new leader's entries where its own tail was.
    let mut old_log = h.members[&old].log().clone();
    let mut new_log = h.members[&new].log().clone();
    assert_eq!(
        old_log.try_get_log_entries(1..=last).await.unwrap(),
        new_log.try_get_log_entries(1..=last).await.unwrap()
    );
    let old_store = h.members[&old].store().unwrap().storage();
    assert_eq!(
        old_store.last_committed(),
        5,
        "the old tail is gone from memory too"
    );
    assert!(h.members[&old].rebuilds() >= 1);
    // And the old leader follows on.
    let index = h.write(new, "later").await;
    h.wait_all_applied(index).await;
    assert_eq!(dump(&h.members[&old]), dump(&h.members[&new]));
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_member_rejoins_with_its_log() {
    let _serial = SERIAL.lock().await;
    let mut h = Harness::start(3).await;
    let leader = h.leader(&[1, 2, 3]).await;
    let member = if leader == 2 { 3 } else { 2 };
    let mut last = 0;
    for i in 0..8 {
        last = h.write(leader, &format!("kept-{i}")).await;
    }
    h.wait_all_applied(last).await;
    // A second member on the same directory is refused while the first runs.
    let dir = &h.dirs[&member];
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let c = config(member, &h.nodes[&member], dir, &h.nodes);
    let err = Cluster::start_on(c, l, None).await.unwrap_err();
    assert!(matches!(err, ClusterError::Lock(_)), "{err}");
    let before = h.members[&member].status();
    h.stop(member).await;
    h.restart(member).await;
    let after = h.members[&member].status();
    assert!(
        after.last_log_index >= before.last_log_index,
        "the log survived the restart: {} then {}",
        before.last_log_index,
        after.last_log_index
    );
    // The committed id was persisted, so the store is back before any leader contact.
    h.members[&member].wait_applied(last, WAIT).await.unwrap();
    assert_eq!(items(&h.members[&member]), 8);
    for i in 0..3 {
        last = h.write(leader, &format!("later-{i}")).await;
    }
    h.wait_all_applied(last).await;
    assert_eq!(dump(&h.members[&member]), dump(&h.members[&leader]));

    // The whole cluster restarts: nobody initializes again, a leader is elected from the
    // logs, and every store comes back.
    for id in [1, 2, 3] {
        h.kill(id).await;
    }
    for id in [1, 2, 3] {
        h.restart(id).await;
    }
    let leader = h.leader(&[1, 2, 3]).await;
    let index = h.write(leader, "after-full-restart").await;
    assert!(index > last);
    h.wait_all_applied(index).await;
    let reference = dump(&h.members[&leader]);
    for m in h.members.values() {
        assert_eq!(items(m), 12, "member {}", m.id());
        assert_eq!(dump(m), reference);
    }
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_are_added_and_removed() {
    let _serial = SERIAL.lock().await;
    let mut h = Harness::start(3).await;
    let leader = h.leader(&[1, 2, 3]).await;
    let mut last = 0;
    for i in 0..5 {
        last = h.write(leader, &format!("item-{i}")).await;
    }
    // A fourth member starts empty, with no initial members, and is added.
    let node = h.start_joining(4).await;
    h.members[&leader].add_member(4, node).await.unwrap();
    h.members[&4].wait_applied(last, WAIT).await.unwrap();
    assert_eq!(h.members[&leader].status().voters, [1, 2, 3, 4].into());
    assert_eq!(items(&h.members[&4]), 5);
    // A second addition of a voter is refused, naming it.
    let err = h.members[&leader]
        .add_member(4, h.nodes[&4].clone())
        .await
        .unwrap_err();
    assert!(matches!(err, ClusterError::MemberExists { id: 4 }), "{err}");
    // A follower refuses membership changes and names the leader.
    let follower = [1, 2, 3].into_iter().find(|id| *id != leader).unwrap();
    let err = h.members[&follower].remove_member(4).await.unwrap_err();
    assert!(matches!(err, ClusterError::NotLeader { .. }), "{err}");
    h.members[&leader].remove_member(4).await.unwrap();
    assert_eq!(h.members[&leader].status().voters, [1, 2, 3].into());
    // A removed id is never given again, whichever member leads next.
    let err = h.members[&leader]
        .add_member(4, h.nodes[&4].clone())
        .await
        .unwrap_err();
    assert!(
        matches!(err, ClusterError::MemberRemoved { id: 4 }),
        "{err}"
    );
    last = h.write(leader, "after-removal").await;
    for id in [1, 2, 3] {
        h.members[&id].wait_applied(last, WAIT).await.unwrap();
        // Each member applied the removal (the entry before), and recorded it.
        let removed = h.members[&id].member_changes().removed();
        assert!(removed.contains(&4), "member {id}: {removed:?}");
    }
    // A member that never saw the removal entry (the log holding it is purged, so it is caught
    // up from a snapshot) learns the removal from the snapshot.
    h.snapshot_and_purge(leader, last).await;
    let node = h.start_joining(5).await;
    h.members[&leader].add_member(5, node).await.unwrap();
    h.members[&5].wait_applied(last, WAIT).await.unwrap();
    assert!(
        h.members[&5].status().snapshot_index >= Some(last),
        "member 5 was caught up from a snapshot"
    );
    let removed = h.members[&5].member_changes().removed();
    assert!(removed.contains(&4), "member 5: {removed:?}");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_off_follower_leaves_the_majority_committing_and_catches_up_when_healed() {
    let _serial = SERIAL.lock().await;
    let h = Harness::start(3).await;
    let leader = h.leader(&[1, 2, 3]).await;
    let cut = [1, 2, 3].into_iter().find(|id| *id != leader).unwrap();
    let mut last = h.write(leader, "before").await;
    h.wait_all_applied(last).await;

    h.members[&cut].switch().isolate();
    // The leader and the remaining follower are a majority: writes go on being acknowledged.
    for i in 0..10 {
        last = h.write(leader, &format!("during-{i}")).await;
    }
    let majority: Vec<NodeId> = [1, 2, 3].into_iter().filter(|id| *id != cut).collect();
    for id in &majority {
        h.members[id].wait_applied(last, WAIT).await.unwrap();
    }
    assert_eq!(
        h.leader(&majority).await,
        leader,
        "the majority kept its leader"
    );
    assert!(
        h.members[&cut].status().applied_index < last,
        "the cut-off follower saw none of it"
    );
    assert_eq!(items(&h.members[&cut]), 1);

    h.members[&cut].switch().heal();
    h.members[&cut].wait_applied(last, WAIT).await.unwrap();
    let index = h.write(h.leader(&[1, 2, 3]).await, "after").await;
    h.wait_all_applied(index).await;
    let reference = dump(&h.members[&leader]);
    for m in h.members.values() {
        assert_eq!(items(m), 12, "member {}", m.id());
        assert_eq!(dump(m), reference, "member {} differs", m.id());
    }
    h.shutdown().await;
}
