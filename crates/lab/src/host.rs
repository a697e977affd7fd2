//! The machine a run measured on, and whether it was idle.
//!
//! A run is called idle only when its pre-run load average was actually read and sat at or
//! below cores × 0.10. An unread load average is reported as "not certified idle", never as
//! idle: these machines are shared, and the caveat travels with the evidence.

use serde::{Deserialize, Serialize};

use crate::procfs;

/// Load per core under which a host counts as idle.
pub const IDLE_LOAD_PER_CORE: f64 = 0.10;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Host {
    pub cores: usize,
    pub cpu_model: Option<String>,
    pub mem_total_bytes: Option<u64>,
    pub kernel: Option<String>,
    pub loadavg_before: Option<[f64; 3]>,
    pub loadavg_after: Option<[f64; 3]>,
    pub fd_limit_soft: Option<u64>,
    pub fd_limit_hard: Option<u64>,
    pub somaxconn: Option<String>,
    pub ephemeral_ports: Option<String>,
    pub idle: bool,
    pub idle_note: String,
    /// How the client and server shared the machine: a caveat every reader needs.
    pub note: String,
}

impl Host {
    /// Reads the host before a run; call [`Host::finish`] after it.
    pub fn probe(note: &str) -> Host {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let loadavg_before = procfs::loadavg();
        let (idle, idle_note) = idle_verdict(cores, loadavg_before);
        let limits = procfs::fd_limits();
        Host {
            cores,
            cpu_model: procfs::cpu_model(),
            mem_total_bytes: procfs::mem_total_bytes(),
            kernel: procfs::sysctl("/proc/sys/kernel/osrelease"),
            loadavg_before,
            loadavg_after: None,
            fd_limit_soft: limits.map(|l| l.0),
            fd_limit_hard: limits.map(|l| l.1),
            somaxconn: procfs::sysctl("/proc/sys/net/core/somaxconn"),
            ephemeral_ports: procfs::sysctl("/proc/sys/net/ipv4/ip_local_port_range")
                .map(|r| r.split_whitespace().collect::<Vec<_>>().join("-")),
            idle,
            idle_note,
            note: note.to_owned(),
        }
    }

    pub fn finish(&mut self) {
        self.loadavg_after = procfs::loadavg();
    }
}

pub fn idle_verdict(cores: usize, loadavg: Option<[f64; 3]>) -> (bool, String) {
    let threshold = cores as f64 * IDLE_LOAD_PER_CORE;
    match loadavg {
        None => (
            false,
            "NOT CERTIFIED IDLE: the load average could not be read".to_owned(),
        ),
        Some([l1, ..]) if l1 <= threshold => (
            true,
            format!(
                "idle: pre-run loadavg1 {l1:.2} <= threshold {threshold:.2} ({cores} cores x {IDLE_LOAD_PER_CORE:.2})"
            ),
        ),
        Some([l1, ..]) => (
            false,
            format!(
                "NOT IDLE: pre-run loadavg1 {l1:.2} > threshold {threshold:.2} ({cores} cores x {IDLE_LOAD_PER_CORE:.2})"
            ),
        ),
    }
}

pub fn fmt_loadavg(l: Option<[f64; 3]>) -> String {
    l.map_or_else(
        || "unknown".to_owned(),
        |[a, b, c]| format!("{a:.2} {b:.2} {c:.2}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_only_when_read_and_low() {
        assert!(idle_verdict(10, Some([0.5, 1.0, 1.0])).0);
        let (idle, note) = idle_verdict(10, Some([3.94, 2.33, 2.09]));
        assert!(!idle);
        assert_eq!(
            note,
            "NOT IDLE: pre-run loadavg1 3.94 > threshold 1.00 (10 cores x 0.10)"
        );
        let (idle, note) = idle_verdict(2, None);
        assert!(!idle && note.starts_with("NOT CERTIFIED IDLE"));
    }
}
