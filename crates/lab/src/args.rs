//! `quiver lab`'s flags.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use serde::Serialize;

use crate::workload::Workload;

/// What the lab does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Fire verified queries and measure (the default).
    Load,
    /// Hold N authenticated connections that do nothing.
    Idle,
    /// Hold N queries open mid-stream.
    Slow,
    /// Dribble the handshake on N connections and watch the server reclaim them.
    Slowloris,
    /// Serve canned Bolt replies: the request/response ceiling of loopback.
    Echo,
    /// N clients open and close connections for --duration-ms (TCP, TLS over bolt+s, the
    /// Bolt handshake, HELLO, GOODBYE): the opening rate
    Handshakes,
}

/// What each connection of `--protocol http --mode idle` does before it is held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum IdleAfter {
    /// Nothing: it connects and stays silent (the server's header deadline closes it, after
    /// 10 s by default)
    Nothing,
    /// GET /health/live, answered
    Probe,
    /// The count query through the transactional endpoint, answered
    #[default]
    Commit,
}

impl IdleAfter {
    pub fn name(self) -> &'static str {
        match self {
            IdleAfter::Nothing => "nothing",
            IdleAfter::Probe => "probe",
            IdleAfter::Commit => "commit",
        }
    }
}

/// The protocol the experiments speak.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Bolt, the lab's own client.
    #[default]
    Bolt,
    /// HTTP/1.1 to the transactional endpoint (seed 002's four experiments: `load` is its
    /// throughput mode).
    Http,
}

/// Flags of `quiver lab`. With none, it starts an in-process server over the seeded social
/// graph, fires the count query over Bolt, verifies every answer, shuts the server down
/// cleanly, and prints the report.
#[derive(Args, Clone, Debug, Serialize)]
pub struct LabArgs {
    /// What to do
    #[arg(long, value_enum, default_value_t = Mode::Load)]
    pub mode: Mode,
    /// What load, idle, slow and slowloris speak; with http, --target is http://[user:password@]host:port
    #[arg(long, value_enum, default_value_t = Protocol::Bolt)]
    pub protocol: Protocol,

    // ---- the graph ----
    /// :Person nodes in the seeded graph
    #[arg(long, default_value_t = 2000)]
    pub nodes: usize,
    /// Fewest :KNOWS out-edges per person
    #[arg(long, default_value_t = 5)]
    pub knows_min: usize,
    /// Most :KNOWS out-edges per person
    #[arg(long, default_value_t = 8)]
    pub knows_max: usize,
    /// Seed of the graph generator: the same seed gives the same graph everywhere
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// :Counter nodes for the write shapes (connection i writes slot i mod this)
    #[arg(long, default_value_t = 1024)]
    pub write_slots: usize,

    // ---- the load ----
    /// What each connection sends
    #[arg(long, value_enum, default_value_t = Workload::Count)]
    pub workload: Workload,
    /// Units of work per window (queries, or whole transactions), split over the connections
    #[arg(long, default_value_t = 2000)]
    pub queries: u64,
    /// Run each window for this long instead of a fixed number of units
    #[arg(long, value_name = "MS")]
    pub duration_ms: Option<u64>,
    /// Rows per reply under --workload records
    #[arg(long, default_value_t = 1)]
    pub rows: u64,
    /// Pooled mode: concurrent sessions. Connection mode: sessions per connection, in turn
    #[arg(long, default_value_t = 4)]
    pub sessions: usize,
    /// Exactly this many sockets, held at a barrier until all have resolved (0: pooled mode)
    #[arg(long, default_value_t = 0)]
    pub connections: usize,
    /// Pooled mode: most connections the pool opens
    #[arg(long, default_value_t = 100)]
    pub pool_max: usize,
    /// --workload mixed: writing connections
    #[arg(long, default_value_t = 32)]
    pub writers: usize,
    /// --workload mixed: reading connections
    #[arg(long, default_value_t = 0)]
    pub readers: usize,
    /// Unprofiled windows whose numbers may be quoted
    #[arg(long, default_value_t = 1)]
    pub repetitions: usize,

    // ---- the server ----
    /// In-process server: Bolt connections admitted at once [default: 8 in pooled mode, the
    /// connection count in connection mode]; fewer than --connections makes a saturation run
    #[arg(long)]
    pub max_connections: Option<u32>,
    /// Drive a running server instead of an in-process one: bolt://[user:password@]host:port
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// A separate Quiver's HTTP address, to read its counters from GET /stats
    #[arg(long, value_name = "ADDR")]
    pub target_http: Option<String>,
    /// The target server's process id, to read its memory, descriptors and CPU time
    #[arg(long, value_name = "PID")]
    pub target_pid: Option<u32>,
    /// Seed the target over the wire when it holds no :Person nodes (with --cluster: through the leader, before the load, so that restarts are timed at that size)
    #[arg(long)]
    pub seed_target: bool,
    /// In-process server: worker threads [default: the host's cores]
    #[arg(long)]
    pub server_threads: Option<usize>,
    /// In-process server: handshake and authentication deadline
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub handshake_timeout_ms: u64,

    // ---- the client ----
    /// Client worker threads [default: the host's cores]
    #[arg(long)]
    pub client_threads: Option<usize>,
    /// Loopback source addresses to rotate over (127.0.0.1 … 127.0.0.N), so N connections
    /// can exceed one address's ephemeral ports
    #[arg(long, default_value_t = 1)]
    pub source_addrs: usize,
    /// Dial, handshake and authentication must finish within this
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub connect_timeout_ms: u64,
    /// One unit must finish within this
    #[arg(long, value_name = "MS", default_value_t = 30_000)]
    pub request_timeout_ms: u64,
    /// Open with the manifest v1 handshake instead of version slots
    #[arg(long)]
    pub manifest: bool,
    /// bolt+s:// targets: trust server certificates that chain to a certificate in this PEM file
    #[arg(long, value_name = "FILE")]
    pub tls_ca: Option<PathBuf>,
    /// TLS targets: resume earlier TLS sessions instead of a full handshake per connection
    #[arg(long)]
    pub tls_resume: bool,
    /// --peer-serve: serve Bolt with this certificate chain (PEM) as well, and add the same
    /// server over TLS as one more target (with --tls-key)
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// --peer-serve: the key of --tls-cert (PEM)
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    // ---- the sweep ----
    /// Sweep the connection ladder (one child process per rung) plus a saturation rung
    #[arg(long)]
    pub ladder: bool,
    /// The ladder's connection counts
    #[arg(long, value_delimiter = ',', default_value = "1,8,64,256,1024")]
    pub rungs: Vec<usize>,
    /// Saturation rung: connections offered
    #[arg(long, default_value_t = 256)]
    pub saturation_connections: usize,
    /// Saturation rung: connections the server admits
    #[arg(long, default_value_t = 128)]
    pub saturation_max: u32,
    /// Skip the saturation rung
    #[arg(long)]
    pub no_saturation: bool,
    /// Also run each rung against this Bolt server, same client, same work: NAME=bolt://…
    #[arg(long, value_name = "NAME=URL")]
    pub peer: Vec<String>,
    /// Also run each rung against the echo server (started as a child process)
    #[arg(long)]
    pub peer_echo: bool,
    /// Also run each rung against a separate `quiver serve --in-memory` (started as a child)
    #[arg(long)]
    pub peer_serve: bool,
    /// Also run redis-benchmark at each rung against this RESP port (FalkorDB's RESP face)
    #[arg(long, value_name = "PORT")]
    pub resp_port: Option<u16>,
    /// The `quiver` binary the ladder runs its rungs with [default: this executable]
    #[arg(long, value_name = "PATH")]
    pub exe: Option<PathBuf>,

    // ---- artefacts ----
    /// Write metrics.json, host.json, bench.txt, a flamegraph of the probe window and report.html
    #[arg(long, value_name = "DIR")]
    pub artifact_dir: Option<PathBuf>,
    /// Run the profiled probe window (on by default with --artifact-dir)
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub profile: Option<bool>,
    /// Sample open descriptors every 25 ms (reads a directory of N entries each time)
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub fd_sampling: bool,
    /// The rung's label in artefacts (set by the ladder for its children)
    #[arg(long)]
    pub label: Option<String>,

    // ---- connection experiments ----
    /// idle/slow/slowloris: how long to hold
    #[arg(long, value_name = "MS", default_value_t = 3_000)]
    pub hold_ms: u64,
    /// --protocol http --mode idle: what each connection does before it is held
    #[arg(long, value_enum, default_value_t = IdleAfter::Commit)]
    pub idle_after: IdleAfter,
    /// slowloris: one handshake byte every this often
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub drip_ms: u64,

    // ---- cluster experiments ----
    /// Start this many `quiver serve` members on loopback as one cluster (with
    /// --rolling-restart or --kill-leader)
    #[arg(long, value_name = "N")]
    pub cluster: Option<usize>,
    /// Cluster: restart every member in turn with SIGTERM under routed write load
    #[arg(long)]
    pub rolling_restart: bool,
    /// Cluster: kill -9 the current leader under routed write load, --rounds times
    #[arg(long)]
    pub kill_leader: bool,
    /// Cluster --kill-leader: leaders killed, one after another
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Cluster: the members speak mutual TLS to one another, with a CA and member
    /// certificates made for the run
    #[arg(long)]
    pub cluster_tls: bool,
    /// Cluster: each connection writes one item every this often
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub write_interval_ms: u64,
    /// Cluster: load before the first disruption, between two, and after the last
    #[arg(long, value_name = "MS", default_value_t = 3_000)]
    pub settle_ms: u64,

    // ---- ldbc-snb ----
    /// --workload ldbc-snb: the scale factor's shape (0.1, 1, 3, 10)
    #[arg(long, default_value = "0.1")]
    pub scale_factor: String,
    /// --workload ldbc-snb: this many people instead of the scale factor's (smaller runs and
    /// tests)
    #[arg(long, value_name = "N")]
    pub snb_persons: Option<usize>,
    /// --workload ldbc-snb: where the generated data, the loaded database and each run's copy
    /// of it live [default: ./quiver-snb-sf<SCALE_FACTOR>, or ./quiver-snb-p<N> with --snb-persons]
    #[arg(long, value_name = "DIR")]
    pub snb_dir: Option<PathBuf>,
    /// --workload ldbc-snb: wall time per simulated time (0.001 runs a simulated day in 86.4 s)
    #[arg(long, default_value_t = 0.001)]
    pub tcr: f64,
    /// --workload ldbc-snb: updates between two complex reads of each kind, IC1 to IC14
    /// [default: the SF1 configuration's]
    #[arg(long, value_delimiter = ',', num_args = 14)]
    pub frequencies: Option<Vec<u32>>,
    /// --workload ldbc-snb: complex reads only, without the short-read walks after them
    #[arg(long)]
    pub no_short_reads: bool,
    /// --workload ldbc-snb: after the run, kill -9 the server, restart it and look for every
    /// acknowledged update
    #[arg(long)]
    pub crash_check: bool,
    /// --workload ldbc-snb: instead of the timed mix, run every curated read once, in turn,
    /// and write each one's parameters and rows to this file as JSON lines
    #[arg(long, value_name = "FILE")]
    pub snb_answers: Option<PathBuf>,

    // ---- echo ----
    /// echo: where to listen
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: String,
}

impl LabArgs {
    /// Every flag at its default (what `quiver lab` with no flags runs).
    pub fn defaults() -> LabArgs {
        LabArgs::parse_from(std::iter::empty::<&str>())
            .unwrap_or_else(|e| unreachable!("the defaults parse: {e}"))
    }

    /// Parses `quiver lab`'s arguments (without the program and subcommand names).
    pub fn parse_from<I, T>(args: I) -> Result<LabArgs, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{CommandFactory, FromArgMatches};
        #[derive(clap::Parser)]
        struct Wrapper {
            #[command(flatten)]
            args: LabArgs,
        }
        let argv = std::iter::once(std::ffi::OsString::from("lab"))
            .chain(args.into_iter().map(Into::into));
        let matches = Wrapper::command().try_get_matches_from(argv)?;
        Wrapper::from_arg_matches(&matches).map(|w| w.args)
    }

    pub fn profile_enabled(&self) -> bool {
        self.profile.unwrap_or(self.artifact_dir.is_some())
    }

    /// The admission limit of the in-process server.
    pub fn effective_max_connections(&self) -> u32 {
        self.max_connections.unwrap_or(if self.connections == 0 {
            if self.workload == Workload::Mixed {
                (self.writers + self.readers).max(8) as u32
            } else {
                8
            }
        } else {
            self.connections as u32
        })
    }

    /// Offered connections in connection mode (mixed: writers + readers).
    pub fn offered(&self) -> usize {
        if self.workload == Workload::Mixed {
            self.writers + self.readers
        } else {
            self.connections
        }
    }

    /// A saturation run: more offered than admitted (in-process only; a target's own limit
    /// is its business).
    pub fn expects_rejections(&self) -> bool {
        self.target.is_none()
            && self.offered() > 0
            && self.offered() > self.effective_max_connections() as usize
    }

    /// Rows each successful unit carries.
    pub fn rows_per_unit(&self) -> u64 {
        if self.workload == Workload::Records {
            self.rows.min(self.nodes as u64)
        } else {
            1
        }
    }

    /// Checks the flags against each other and against the lab's limits.
    pub fn validate(&self) -> Result<(), String> {
        if self.nodes == 0 {
            return Err("--nodes must be at least 1".into());
        }
        if self.knows_min > self.knows_max {
            return Err("--knows-min must not exceed --knows-max".into());
        }
        if self.nodes > NODES_MAX {
            return Err(format!("--nodes is limited to {NODES_MAX}"));
        }
        if self.knows_max > KNOWS_MAX {
            return Err(format!("--knows-max is limited to {KNOWS_MAX}"));
        }
        if self.write_slots == 0 || self.write_slots > WRITE_SLOTS_MAX {
            return Err(format!("--write-slots must be 1..={WRITE_SLOTS_MAX}"));
        }
        if self.queries > QUERIES_MAX {
            return Err(format!("--queries is limited to {QUERIES_MAX}"));
        }
        if self
            .duration_ms
            .is_some_and(|d| d == 0 || d > DURATION_MS_MAX)
        {
            return Err(format!("--duration-ms must be 1..={DURATION_MS_MAX}"));
        }
        if self.offered() > CONNECTIONS_MAX || self.rungs.iter().any(|&r| r > CONNECTIONS_MAX) {
            return Err(format!("connections are limited to {CONNECTIONS_MAX}"));
        }
        if self.sessions == 0 || self.sessions > SESSIONS_MAX {
            return Err(format!("--sessions must be 1..={SESSIONS_MAX}"));
        }
        if self.repetitions == 0 || self.repetitions > REPETITIONS_MAX {
            return Err(format!("--repetitions must be 1..={REPETITIONS_MAX}"));
        }
        if self.workload == Workload::Records && (self.rows == 0 || self.rows > ROWS_MAX) {
            return Err(format!("--rows must be 1..={ROWS_MAX}"));
        }
        if self.workload == Workload::Records && self.rows > self.nodes as u64 {
            return Err("--rows must not exceed --nodes".into());
        }
        if self.workload == Workload::Mixed && self.writers + self.readers == 0 {
            return Err("--workload mixed needs --writers or --readers".into());
        }
        if self.source_addrs == 0 || self.source_addrs > crate::client::SOURCE_ADDRS_MAX {
            return Err(format!(
                "--source-addrs must be 1..={}",
                crate::client::SOURCE_ADDRS_MAX
            ));
        }
        if self.hold_ms > DURATION_MS_MAX {
            return Err(format!("--hold-ms is limited to {DURATION_MS_MAX}"));
        }
        if self.drip_ms == 0 {
            return Err("--drip-ms must be at least 1".into());
        }
        if self.ladder && self.mode != Mode::Load {
            return Err("--ladder sweeps --mode load only".into());
        }
        if self.max_connections == Some(0) {
            return Err("--max-connections must be at least 1".into());
        }
        if self.workload == Workload::LdbcSnb {
            if self.ladder || self.cluster.is_some() || self.protocol != Protocol::Bolt {
                return Err(
                    "--workload ldbc-snb runs on its own: not with --ladder, --cluster or HTTP"
                        .into(),
                );
            }
            if self.mode != Mode::Load {
                return Err("--workload ldbc-snb is a --mode load workload".into());
            }
            if !(self.tcr.is_finite() && self.tcr > 0.0) {
                return Err("--tcr must be a positive number".into());
            }
            if self.snb_persons.is_some_and(|n| n < 10) {
                return Err("--snb-persons must be at least 10".into());
            }
            if self.crash_check && self.target.is_some() {
                return Err("--crash-check kills the server the lab starts, not a --target".into());
            }
        }
        self.validate_cluster()?;
        for peer in &self.peer {
            crate::target::parse_peer(peer)?;
        }
        // An HTTP target (http://[user:password@]host:port) is read by the HTTP run itself.
        if let Some(t) = self
            .target
            .as_ref()
            .filter(|_| self.protocol == Protocol::Bolt)
        {
            crate::target::parse_url(t)
                .and_then(|url| crate::tls::trust_of(&url.scheme, self.tls_ca.as_deref()))
                .map_err(|e| e.to_string())?;
        }
        if self.tls_cert.is_some() && !self.peer_serve {
            return Err("--tls-cert and --tls-key are for --peer-serve".into());
        }
        if self.mode == Mode::Handshakes && self.connections == 0 {
            return Err("--mode handshakes needs --connections N".into());
        }
        Ok(())
    }
}

impl LabArgs {
    /// The cluster flags agree with each other and stay within the lab's limits.
    fn validate_cluster(&self) -> Result<(), String> {
        let Some(members) = self.cluster else {
            if self.rolling_restart || self.kill_leader || self.cluster_tls {
                return Err(
                    "--rolling-restart, --kill-leader and --cluster-tls need --cluster N".into(),
                );
            }
            return Ok(());
        };
        if !(CLUSTER_MEMBERS_MIN..=CLUSTER_MEMBERS_MAX).contains(&members) {
            return Err(format!(
                "--cluster must be {CLUSTER_MEMBERS_MIN}..={CLUSTER_MEMBERS_MAX}"
            ));
        }
        if self.rolling_restart == self.kill_leader {
            return Err(
                "--cluster needs exactly one of --rolling-restart and --kill-leader".into(),
            );
        }
        if self.ladder || self.target.is_some() {
            return Err("--cluster starts its own members: no --ladder, no --target".into());
        }
        if self.connections == 0 {
            return Err("--cluster needs --connections N".into());
        }
        if self.rounds == 0 || self.rounds > ROUNDS_MAX {
            return Err(format!("--rounds must be 1..={ROUNDS_MAX}"));
        }
        if self.write_interval_ms == 0 || self.write_interval_ms > DURATION_MS_MAX {
            return Err(format!("--write-interval-ms must be 1..={DURATION_MS_MAX}"));
        }
        if self.settle_ms > DURATION_MS_MAX {
            return Err(format!("--settle-ms is limited to {DURATION_MS_MAX}"));
        }
        Ok(())
    }
}

/// Bounds on every size flag: the lab is an instrument, not a stress weapon.
pub const NODES_MAX: usize = 10_000_000;
pub const KNOWS_MAX: usize = 1_000;
pub const WRITE_SLOTS_MAX: usize = 1_000_000;
pub const QUERIES_MAX: u64 = 100_000_000;
pub const DURATION_MS_MAX: u64 = 3_600_000;
pub const CONNECTIONS_MAX: usize = 100_000;
pub const SESSIONS_MAX: usize = 10_000;
pub const REPETITIONS_MAX: usize = 100;
pub const ROWS_MAX: u64 = 1_000_000;
/// A majority must survive one member down: three members at least; seven is plenty on one host.
pub const CLUSTER_MEMBERS_MIN: usize = 3;
pub const CLUSTER_MEMBERS_MAX: usize = 7;
pub const ROUNDS_MAX: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_seeded_default_run() {
        let a = LabArgs::defaults();
        assert_eq!(a.mode, Mode::Load);
        assert_eq!(
            (a.nodes, a.knows_min, a.knows_max, a.seed),
            (2000, 5, 8, 42)
        );
        assert_eq!((a.queries, a.sessions, a.connections), (2000, 4, 0));
        assert_eq!(a.effective_max_connections(), 8);
        assert!(!a.expects_rejections());
        assert!(!a.profile_enabled());
        assert!(a.validate().is_ok());
        assert_eq!(a.rungs, vec![1, 8, 64, 256, 1024]);
    }

    #[test]
    fn saturation_is_offered_over_admitted() {
        let a = LabArgs::parse_from(["--connections", "256", "--max-connections", "128"]).unwrap();
        assert!(a.expects_rejections());
        let a = LabArgs::parse_from(["--connections", "64"]).unwrap();
        assert_eq!(a.effective_max_connections(), 64);
        assert!(!a.expects_rejections());
    }

    #[test]
    fn an_http_target_is_taken_with_the_http_protocol() {
        let a = LabArgs::parse_from([
            "--protocol",
            "http",
            "--mode",
            "idle",
            "--idle-after",
            "nothing",
            "--target",
            "http://neo4j:secret@127.0.0.1:7474",
        ])
        .unwrap();
        assert!(a.validate().is_ok(), "{:?}", a.validate());
        assert_eq!(a.idle_after, IdleAfter::Nothing);
    }

    #[test]
    fn nonsense_is_refused() {
        for bad in [
            vec!["--nodes", "0"],
            vec!["--knows-min", "9"],
            vec!["--sessions", "0"],
            vec!["--workload", "records", "--rows", "3000"],
            vec!["--workload", "mixed", "--writers", "0"],
            vec!["--workload", "ldbc-snb", "--ladder"],
            vec!["--workload", "ldbc-snb", "--tcr", "0"],
            vec!["--target", "http://x"],
            vec!["--peer", "nameless"],
            vec!["--source-addrs", "300"],
            vec!["--rolling-restart"],
            vec!["--cluster", "3", "--connections", "5"],
            vec!["--cluster", "2", "--rolling-restart", "--connections", "5"],
            vec![
                "--cluster",
                "3",
                "--rolling-restart",
                "--kill-leader",
                "--connections",
                "5",
            ],
            vec!["--cluster", "3", "--rolling-restart"],
        ] {
            let a = LabArgs::parse_from(bad.clone()).unwrap();
            assert!(a.validate().is_err(), "{bad:?}");
        }
        assert!(LabArgs::parse_from(["--workload", "nonsense"]).is_err());
    }
}
