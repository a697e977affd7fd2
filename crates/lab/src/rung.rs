//! A rung: `--repetitions` unprofiled effect windows, then (optionally) one profiled probe
//! window, each verified and recorded.
//!
//! Effect and probe are kept apart because profiling perturbs the very work it attributes:
//! the effect windows supply throughput and latency — the only numbers that may be quoted,
//! and the only records in `bench.txt` — while the probe window supplies attribution (the
//! flamegraph) and its throughput is never quoted.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::artifacts::flame::Profile;
use crate::classify::{ErrorCounts, Side};
use crate::client::Dialer;
use crate::counters::ServerCounters;
use crate::error::LabError;
use crate::latency::Percentiles;
use crate::load::{WindowOutcome, WindowSpec, run_window};
use crate::sampler::{Sample, Sampler};
use crate::target::{CpuSource, Target};
use crate::verify::{TxDelta, Verdict, WindowFacts, verify};

/// The version of `metrics.json`'s shape.
pub const SCHEMA: &str = "quiver.lab/v1";
/// The lab's client runtime threads are named so their CPU time can be told apart.
pub const CLIENT_THREAD_PREFIX: &str = "lab-client";

/// CPU time spent by each side over a window.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct CpuUse {
    pub client_s: Option<f64>,
    pub server_s: Option<f64>,
    pub client_us_per_unit: Option<f64>,
    pub server_us_per_unit: Option<f64>,
    /// Client CPU over client plus server CPU: how much of the machine the instrument took.
    pub client_share: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WindowRecord {
    /// `effect` (quotable) or `probe` (profiled: attribution only).
    pub kind: String,
    pub index: usize,
    pub conn_offered: u64,
    pub conn_established: u64,
    pub conn_failed: u64,
    pub pool_opened: u64,
    pub queries_ok: u64,
    pub units_owed: u64,
    pub units_failed: u64,
    pub units_lost: u64,
    pub reads_ok: u64,
    pub writes_ok: u64,
    pub records_ok: u64,
    pub rows_bad: u64,
    pub throughput_qps: f64,
    pub reads_qps: f64,
    pub writes_qps: f64,
    pub connect_elapsed_ns: u64,
    pub elapsed_ns: u64,
    pub latency: Percentiles,
    pub read_latency: Percentiles,
    pub write_latency: Percentiles,
    pub errors: ErrorCounts,
    pub errors_client_side: u64,
    pub errors_server_side: u64,
    /// Sampled when the barrier opened (every connection live).
    pub at_peak: Sample,
    /// Maxima of the 25 ms sampler over the window.
    pub max: Sample,
    pub samples: u64,
    /// Deltas across the window (gauges as read at its end).
    pub counters: Option<ServerCounters>,
    pub counters_settled: Option<bool>,
    pub counter_delta: Option<i64>,
    pub cpu: CpuUse,
    pub verdict: Verdict,
    pub server_agent: Option<String>,
}

/// What one rung needs.
#[derive(Clone, Debug)]
pub struct RungSpec {
    pub window: WindowSpec,
    pub repetitions: usize,
    /// Where the probe window's flamegraph goes; `None`: no probe window.
    pub flamegraph: Option<PathBuf>,
    pub saturation: bool,
}

/// Every window of a rung.
#[derive(Clone, Debug, Serialize)]
pub struct RungWindows {
    pub effect: Vec<WindowRecord>,
    pub probe: Option<WindowRecord>,
    pub flamegraph_samples: Option<u64>,
}

impl RungWindows {
    pub fn passed(&self) -> bool {
        self.effect
            .iter()
            .chain(&self.probe)
            .all(|w| w.verdict.passed())
    }
}

pub async fn run_rung(
    target: &Target,
    dialer: &Arc<Dialer>,
    spec: &RungSpec,
) -> Result<RungWindows, LabError> {
    let mut effect = Vec::with_capacity(spec.repetitions);
    for index in 0..spec.repetitions {
        effect.push(measure(target, dialer, spec, "effect", index, None).await);
    }
    let (probe, flamegraph_samples) = match &spec.flamegraph {
        Some(_) => {
            let profile = Profile::start()?;
            let record = measure(target, dialer, spec, "probe", 0, Some(profile)).await;
            (Some(record.0), record.1)
        }
        None => (None, None),
    };
    Ok(RungWindows {
        effect: effect.into_iter().map(|(w, _)| w).collect(),
        probe,
        flamegraph_samples,
    })
}

async fn measure(
    target: &Target,
    dialer: &Arc<Dialer>,
    spec: &RungSpec,
    kind: &'static str,
    index: usize,
    profile: Option<Profile>,
) -> (WindowRecord, Option<u64>) {
    let workload = spec.window.plan.workload;
    let total_before = if workload.writes() {
        target.counter_total(dialer).await
    } else {
        None
    };
    let before = target.counters.read().await;
    let client_cpu = CpuSource::Threads(CLIENT_THREAD_PREFIX);
    let cpu_before = (client_cpu.read(), target.server_cpu.read());
    let sampler = Sampler::start(target.probe.clone());
    let outcome = run_window(&spec.window, dialer, &target.probe).await;
    let (max, samples) = sampler.stop();
    let cpu_after = (client_cpu.read(), target.server_cpu.read());
    let mut flamegraph_samples = None;
    if let (Some(profile), Some(path)) = (profile, &spec.flamegraph) {
        flamegraph_samples = profile.write_flamegraph(path).ok();
    }
    let settled = target.counters.settled_since(before).await;
    let total_after = if workload.writes() {
        target.counter_total(dialer).await
    } else {
        None
    };
    let counter_delta = total_before.zip(total_after).map(|(b, a)| a - b);
    let facts = WindowFacts {
        workload: Some(workload),
        saturation: spec.saturation,
        units_owed: outcome.units_owed,
        units_ok: outcome.units_ok,
        conn_failed: outcome.conn_failed,
        errors: outcome.errors.total(),
        units_failed: outcome.units_failed,
        writes_ok: outcome.writes_ok,
        rows_per_unit: rows_per_unit(spec),
        rows_ok: outcome.rows_ok,
        rows_bad: outcome.rows_bad,
        tx: settled.map(|(c, _)| TxDelta {
            opened: c.tx_opened,
            committed: c.tx_committed,
            rolled_back: c.tx_rolled_back,
            abandoned: c.tx_abandoned,
        }),
        counter_delta,
    };
    let mut verdict = verify(&facts);
    if let Some((c, _)) = &settled
        && c.panics > 0
    {
        verdict
            .violations
            .push(format!("{} connection tasks panicked", c.panics));
    }
    let cpu = cpu_use(cpu_before, cpu_after, outcome.units_ok);
    (
        record(
            kind,
            index,
            &outcome,
            Measured {
                max,
                samples,
                settled,
                counter_delta,
                cpu,
                verdict,
            },
        ),
        flamegraph_samples,
    )
}

fn rows_per_unit(spec: &RungSpec) -> u64 {
    spec.window
        .plan
        .units(
            crate::workload::Role::Uniform { index: 0 },
            quiver_bolt::Version::V5_8,
        )
        .first()
        .and_then(|u| {
            u.exchanges
                .iter()
                .flat_map(|e| &e.replies)
                .find_map(|r| match r {
                    crate::workload::Reply::Stream { rows, .. } => Some(*rows),
                    crate::workload::Reply::Summary => None,
                })
        })
        .unwrap_or(1)
}

type CpuPair = (Option<Duration>, Option<Duration>);

fn cpu_use(before: CpuPair, after: CpuPair, units: u64) -> CpuUse {
    let diff = |b: Option<Duration>, a: Option<Duration>| {
        b.zip(a).map(|(b, a)| a.saturating_sub(b).as_secs_f64())
    };
    let client = diff(before.0, after.0);
    let server = diff(before.1, after.1);
    let per = |s: Option<f64>| s.filter(|_| units > 0).map(|s| s * 1e6 / units as f64);
    CpuUse {
        client_s: client,
        server_s: server,
        client_us_per_unit: per(client),
        server_us_per_unit: per(server),
        client_share: client
            .zip(server)
            .filter(|(c, s)| c + s > 0.0)
            .map(|(c, s)| c / (c + s)),
    }
}

/// What a window measured around its load: the server's resources and counters, the CPU both
/// sides spent, and the verdict on all of it.
struct Measured {
    /// The largest resource sample and how many samples were taken.
    max: Sample,
    samples: u64,
    /// The server's counters over the window, and whether they settled.
    settled: Option<(ServerCounters, bool)>,
    /// How much the graph's counter moved (write workloads).
    counter_delta: Option<i64>,
    cpu: CpuUse,
    verdict: Verdict,
}

fn record(kind: &'static str, index: usize, o: &WindowOutcome, m: Measured) -> WindowRecord {
    let secs = o.elapsed.as_secs_f64();
    let rate = |n: u64| if secs > 0.0 { n as f64 / secs } else { 0.0 };
    WindowRecord {
        kind: kind.to_owned(),
        index,
        conn_offered: o.conn_offered,
        conn_established: o.conn_established,
        conn_failed: o.conn_failed,
        pool_opened: o.pool_opened,
        queries_ok: o.units_ok,
        units_owed: o.units_owed,
        units_failed: o.units_failed,
        units_lost: o.units_lost,
        reads_ok: o.reads_ok,
        writes_ok: o.writes_ok,
        records_ok: o.rows_ok,
        rows_bad: o.rows_bad,
        throughput_qps: o.throughput(),
        reads_qps: rate(o.reads_ok),
        writes_qps: rate(o.writes_ok),
        connect_elapsed_ns: o.connect_elapsed.as_nanos() as u64,
        elapsed_ns: o.elapsed.as_nanos() as u64,
        latency: o.latencies.percentiles(),
        read_latency: o.read_latencies.percentiles(),
        write_latency: o.write_latencies.percentiles(),
        errors: o.errors.clone(),
        errors_client_side: o.errors.by_side(Side::Client),
        errors_server_side: o.errors.by_side(Side::Server),
        at_peak: o.at_peak,
        max: m.max,
        samples: m.samples,
        counters: m.settled.map(|s| s.0),
        counters_settled: m.settled.map(|s| s.1),
        counter_delta: m.counter_delta,
        cpu: m.cpu,
        verdict: m.verdict,
        server_agent: o.server_agent.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_shares_are_fractions_of_both_sides() {
        let s = |ms| Some(Duration::from_millis(ms));
        let cpu = cpu_use((s(100), s(1000)), (s(350), s(1750)), 1000);
        assert_eq!(cpu.client_s, Some(0.25));
        assert_eq!(cpu.server_s, Some(0.75));
        assert_eq!(cpu.client_share, Some(0.25));
        assert_eq!(cpu.client_us_per_unit, Some(250.0));
        let unknown = cpu_use((s(1), None), (s(2), None), 10);
        assert_eq!(unknown.server_s, None);
        assert_eq!(unknown.client_share, None);
    }
}
