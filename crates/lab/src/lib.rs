//! `quiver lab`: Quiver's load laboratory.

pub mod barrier;
pub mod classify;
pub mod client;
pub mod error;
pub mod latency;
pub mod seed;
pub mod workload;
