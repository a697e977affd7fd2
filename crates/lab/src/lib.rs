//! `quiver lab`: Quiver's extreme-concurrency laboratory.
//!
//! Every performance claim Quiver makes comes from this instrument: it starts Quiver in process
//! (or drives any Bolt server with `--target`), fires verified work over Bolt from a lean client
//! whose own cost it measures, reads the server's own counters around every window, and tells a
//! server ceiling from a load generator running out.
//!
//! - [`run::main`] is `quiver lab`; [`args::LabArgs`] its flags.
//! - [`load`] runs one window (pooled or connection mode, the [`barrier`]); [`rung`] runs a
//!   rung's effect windows and its profiled probe window; [`ladder`] sweeps rungs, one child
//!   process each, beside peers.
//! - [`verify`] holds the rules every window must pass; [`classify`] says which side ran out.
//! - [`experiments`] hold connections idle, queries open, or handshakes unfinished, over Bolt
//!   or (with [`http_run`], seed 002's four experiments) HTTP.
//! - [`cluster`] starts a cluster of `quiver serve` members, restarts or kills them under
//!   routed writes, and checks every acknowledged write on every member.
//! - [`tls`] opens Bolt over TLS (`bolt+s`, `bolt+ssc`) and measures the TLS handshake rate.
//! - [`echo`] answers Quiver's own bytes without doing Quiver's work: the loopback ceiling.
//! - [`artifacts`] writes `metrics.json`, `host.json`, `bench.txt`, the flamegraph and
//!   `report.html`.

pub mod args;
pub mod artifacts;
pub mod barrier;
pub mod classify;
pub mod client;
pub mod cluster;
pub mod counters;
pub mod echo;
pub mod error;
pub mod experiments;
pub mod host;
pub mod http_run;
pub mod inproc;
pub mod ladder;
pub mod latency;
pub mod load;
pub mod procfs;
pub mod report;
pub mod run;
pub mod rung;
pub mod sampler;
pub mod seed;
pub mod snb;
pub mod target;
pub mod tls;
pub mod verify;
pub mod workload;

pub use args::LabArgs;
pub use error::LabError;
pub use run::main;
