//! Cluster membership: a member's Raft listener, its replicated store, its cluster TLS and the
//! wait of a member started with `--join`.

use std::sync::Arc;
use std::time::Duration;

use quiver_cluster::{ClusterConfig, Node as MemberAddrs, PeerTls, Role};
use quiver_engine::EngineConfig;
use quiver_server::config::{ClusterSettings, Config, StorageMode};
use quiver_server::metrics::Metrics;
use quiver_server::{Graph, Replica};

/// How often a member started with `--join` reports that it still waits to be added.
const JOIN_REPORT_INTERVAL: Duration = Duration::from_secs(10);

/// Starts this cluster member: its Raft listener, log and snapshots in the data directory
/// (the Raft log is the member's only log: no single-node commit log, no second fsync), and
/// its store, loaded from the newest snapshot and the log.
pub(crate) async fn open_member(
    config: &Config,
    cluster: &ClusterSettings,
    engine: EngineConfig,
    metrics: &Arc<Metrics>,
) -> Result<Arc<Graph>, String> {
    let StorageMode::Directory(dir) = &config.storage else {
        return Err("a cluster member needs a data directory".to_owned());
    };
    if config.bolt_listen.port() == 0 || config.http_listen.port() == 0 {
        // The addresses are advertised to the other members before the listeners are bound.
        return Err("a cluster member needs fixed Bolt and HTTP ports (not 0)".to_owned());
    }
    let listener = tokio::net::TcpListener::bind(cluster.raft_listen)
        .await
        .map_err(|error| format!("raft listener {}: {error}", cluster.raft_listen))?;
    let raft_bound = listener
        .local_addr()
        .map_err(|error| format!("raft listener {}: {error}", cluster.raft_listen))?;
    let addrs = MemberAddrs::new(
        cluster.advertise(raft_bound),
        cluster.advertise(config.bolt_listen),
        cluster.advertise(config.http_listen),
    );
    let mut member = ClusterConfig::new(cluster.node_id, addrs.clone(), dir);
    member.tls = cluster_tls(cluster)?;
    member.snapshot_every_entries = cluster.snapshot_entries;
    member.logs_kept_after_snapshot = cluster.logs_kept_after_snapshot();
    member.set_election_timeout(cluster.election_timeout_ms);
    member.initial_members = cluster
        .initial_members
        .iter()
        .map(|(id, raft)| {
            let known = if *id == cluster.node_id {
                addrs.clone()
            } else {
                // Their Bolt and HTTP addresses arrive once they announce themselves.
                MemberAddrs::new(raft.clone(), "", "")
            };
            (*id, known)
        })
        .collect();
    let replica = Replica::start(member, listener, engine)
        .await
        .map_err(|error| format!("cluster member {}: {error}", cluster.node_id))?;
    if let Some(join) = &cluster.join {
        tokio::spawn(report_join(
            Arc::clone(&replica),
            join.clone(),
            addrs.raft_addr.clone(),
        ));
    }
    tracing::info!(
        member = cluster.node_id,
        raft = %raft_bound,
        dir = %dir.display(),
        "cluster member started"
    );
    tokio::spawn(quiver_server::cluster::follow_metrics(
        Arc::clone(&replica),
        Arc::clone(metrics),
    ));
    // The Raft log's figures, read at each scrape.
    metrics.follow_member({
        let replica = Arc::downgrade(&replica);
        Box::new(move || replica.upgrade().map(|r| r.member().status()))
    });
    Ok(Arc::new(Graph::clustered(replica, cluster.reads_on_leader)))
}

/// The member's cluster TLS, when configured, re-read on SIGHUP like the listeners'.
fn cluster_tls(cluster: &ClusterSettings) -> Result<Option<Arc<PeerTls>>, String> {
    let Some(settings) = &cluster.tls else {
        if !cluster.raft_listen.ip().is_loopback() {
            tracing::warn!(raft = %cluster.raft_listen, "cluster TLS is off on a Raft listener beyond loopback");
        }
        return Ok(None);
    };
    let tls = quiver_server::tls::ClusterTls::load(cluster.node_id, settings)
        .map_err(|error| error.to_string())?;
    let peer = Arc::clone(tls.peer());
    #[cfg(unix)]
    {
        let hangup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
            .map_err(|error| format!("cannot install the SIGHUP handler: {error}"))?;
        tokio::spawn(crate::hangup::reload_tls_on_hangup(
            hangup,
            "cluster TLS",
            move || tls.reload(),
        ));
    }
    Ok(Some(peer))
}

/// A member started with `--join` initializes nothing: it waits for the leader to add it. Until
/// it is in a membership, it says so every little while, with whether the member it was told
/// to join answers on its Raft listener, so an operator sees what is missing.
async fn report_join(replica: Arc<Replica>, join: String, raft_addr: String) {
    let id = replica.member().id();
    loop {
        let status = replica.member().status();
        if status.role == Role::Shutdown {
            return;
        }
        if status.members.contains_key(&id) {
            tracing::info!(member = id, leader = ?status.leader, "added to the cluster");
            return;
        }
        let reachable = tokio::time::timeout(
            JOIN_REPORT_INTERVAL / 2,
            tokio::net::TcpStream::connect(&join),
        )
        .await
        .is_ok_and(|c| c.is_ok());
        tracing::info!(
            member = id,
            join = %join,
            reachable,
            "waiting to be added: on the leader, CALL dbms.cluster.addServer({id}, '{raft_addr}')"
        );
        tokio::time::sleep(JOIN_REPORT_INTERVAL).await;
    }
}
