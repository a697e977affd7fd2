//! `quiver lab`: Quiver's load laboratory.

pub mod barrier;
pub mod classify;
pub mod client;
pub mod counters;
pub mod echo;
pub mod error;
pub mod host;
pub mod latency;
pub mod load;
pub mod procfs;
pub mod sampler;
pub mod seed;
pub mod verify;
pub mod workload;
