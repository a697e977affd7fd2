//! Cluster settings: who this member is, where its Raft listener is, whom it starts with.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;

use serde::Deserialize;

/// The members a new cluster starts with: `ID=HOST:PORT` (their Raft addresses), comma
/// separated, as `--initial-members 1=127.0.0.1:7001,2=127.0.0.1:7002,3=127.0.0.1:7003`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub struct Members(pub BTreeMap<u64, String>);

impl FromStr for Members {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut members = BTreeMap::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (id, addr) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}` is not ID=HOST:PORT"))?;
            let id: u64 = id
                .trim()
                .parse()
                .map_err(|_| format!("`{id}` in `{part}` is not a member id (a number)"))?;
            if id == 0 {
                return Err("member id 0 is reserved; ids start at 1".to_owned());
            }
            let addr = addr.trim();
            if addr
                .rsplit_once(':')
                .is_none_or(|(host, port)| host.is_empty() || port.parse::<u16>().is_err())
            {
                return Err(format!("`{addr}` in `{part}` is not HOST:PORT"));
            }
            if members.insert(id, addr.to_owned()).is_some() {
                return Err(format!("member {id} is named twice"));
            }
        }
        if members.is_empty() {
            return Err("no member named".to_owned());
        }
        Ok(Members(members))
    }
}

impl TryFrom<String> for Members {
    type Error = String;

    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl fmt::Display for Members {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (id, addr) in &self.0 {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{id}={addr}")?;
        }
        Ok(())
    }
}

/// A validated cluster configuration: present when `--node-id` is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterSettings {
    pub node_id: u64,
    /// Where the Raft listener binds.
    pub raft_listen: SocketAddr,
    /// The members a new cluster starts with (this one included); ignored once the member has
    /// Raft state of its own (a restart rejoins with what its log says).
    pub initial_members: BTreeMap<u64, String>,
    /// A running cluster's member (its Raft address) this one joins: set instead of
    /// `initial_members` for a member an administrator adds (`dbms.cluster.addServer`). Such a
    /// member initializes nothing; it waits, reporting whether the address answers, until the
    /// leader contacts it. Ignored once it has Raft state (a restart rejoins from its log).
    pub join: Option<String>,
    /// A snapshot every this many Raft entries, the log behind it purged but for a tenth of
    /// that (at most 1000 entries) kept for slightly lagging followers.
    pub snapshot_entries: u64,
    /// Followers elect a new leader once theirs has been silent for 1.5–2 times this; the
    /// leader's heartbeats go every tenth of it.
    pub election_timeout_ms: u64,
    /// The host other members and clients reach this one at, where a listen address is a
    /// wildcard (0.0.0.0 or ::). `None`: the listen addresses are advertised as they are.
    pub advertised_address: Option<String>,
    /// Whether the leader is also listed among the readers of the routing table (it always
    /// is when it is the only member).
    pub reads_on_leader: bool,
    /// Mutual TLS between members; `None`: plain TCP, allowed on loopback or when
    /// `--allow-plain-cluster-network` says so.
    pub tls: Option<ClusterTlsSettings>,
}

/// Where a member's cluster TLS files are: its certificate (naming it as
/// `member-<id>.quiver-cluster`) and key, and the cluster CA. Read at start and on SIGHUP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterTlsSettings {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca: PathBuf,
}

impl ClusterSettings {
    /// Entries kept in the log behind a snapshot: a tenth of the snapshot interval, at most
    /// 1000 (the interval's default keeps 1000).
    pub fn logs_kept_after_snapshot(&self) -> u64 {
        (self.snapshot_entries / 10).min(1000)
    }

    /// The address others are told to reach a listener bound at `bound` on: the advertised
    /// host in place of a wildcard IP (or always, when one is given).
    pub fn advertise(&self, bound: SocketAddr) -> String {
        match &self.advertised_address {
            Some(host) if host.contains(':') && !host.starts_with('[') => {
                format!("[{host}]:{}", bound.port())
            }
            Some(host) => format!("{host}:{}", bound.port()),
            None => bound.to_string(),
        }
    }
}
