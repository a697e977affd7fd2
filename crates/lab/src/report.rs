//! The text report and `metrics.json`'s record.
//!
//! Deterministic facts come first — the configuration, the seeded graph, the answers every
//! response was verified against, the number of units that succeeded — and are reproducible
//! for a fixed `--seed`. Everything that varies per run and per machine follows as
//! `# `-prefixed telemetry and is never pinned by a test.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::args::LabArgs;
use crate::counters::ServerCounters;
use crate::host::{Host, fmt_loadavg};
use crate::rung::{RungWindows, SCHEMA, WindowRecord};
use crate::workload::Workload;

/// The configuration a run was made with, as recorded.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunConfig {
    pub mode: String,
    pub nodes: usize,
    pub knows: [usize; 2],
    pub queries: u64,
    pub duration_ms: Option<u64>,
    pub sessions: usize,
    pub seed: u64,
    pub connections: usize,
    pub max_connections: u32,
    pub expect_rejections: bool,
    pub repetitions: usize,
    pub workload: Workload,
    pub rows_per_query: u64,
    pub writers: usize,
    pub readers: usize,
    pub write_slots: usize,
    pub target: String,
    pub source_addrs: usize,
    pub client_threads: usize,
    pub server_threads: Option<usize>,
}

impl RunConfig {
    pub fn new(
        args: &LabArgs,
        target: &str,
        client_threads: usize,
        server_threads: Option<usize>,
    ) -> RunConfig {
        RunConfig {
            mode: "load".to_owned(),
            nodes: args.nodes,
            knows: [args.knows_min, args.knows_max],
            queries: args.queries,
            duration_ms: args.duration_ms,
            sessions: args.sessions,
            seed: args.seed,
            connections: args.offered(),
            max_connections: args.effective_max_connections(),
            expect_rejections: args.expects_rejections(),
            repetitions: args.repetitions,
            workload: args.workload,
            rows_per_query: args.rows_per_unit(),
            writers: args.writers,
            readers: args.readers,
            write_slots: args.write_slots,
            target: target.to_owned(),
            source_addrs: args.source_addrs,
            client_threads,
            server_threads,
        }
    }
}

/// The seeded graph's facts.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Facts {
    pub nodes_person: usize,
    pub edges_knows: usize,
    pub nodes_counter: usize,
}

/// How the in-process server stopped.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct ShutdownRecord {
    pub clean: bool,
    pub forced: bool,
    pub tasks_left: usize,
    pub elapsed_ns: u64,
}

/// One rung's whole record: `metrics.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunRecord {
    pub schema: String,
    pub label: String,
    pub target: String,
    pub config: RunConfig,
    pub host: Host,
    pub facts: Facts,
    /// Unprofiled windows: the only numbers that may be quoted.
    pub effect: Vec<WindowRecord>,
    /// The profiled window: attribution only, never quoted.
    pub probe: Option<WindowRecord>,
    pub flamegraph: Option<String>,
    pub flamegraph_samples: Option<u64>,
    /// The server's counters over the whole run.
    pub counters_total: Option<ServerCounters>,
    pub shutdown: Option<ShutdownRecord>,
    pub passed: bool,
}

impl RunRecord {
    pub fn new(
        label: String,
        config: RunConfig,
        host: Host,
        facts: Facts,
        windows: RungWindows,
        flamegraph: Option<String>,
    ) -> RunRecord {
        let passed = windows.passed();
        RunRecord {
            schema: SCHEMA.to_owned(),
            label,
            target: config.target.clone(),
            config,
            host,
            facts,
            effect: windows.effect,
            probe: windows.probe,
            flamegraph,
            flamegraph_samples: windows.flamegraph_samples,
            counters_total: None,
            shutdown: None,
            passed,
        }
    }

    /// The effect window the text report shows: median throughput.
    pub fn median(&self) -> Option<&WindowRecord> {
        let mut order: Vec<&WindowRecord> = self.effect.iter().collect();
        order.sort_by(|a, b| a.throughput_qps.total_cmp(&b.throughput_qps));
        order.get(order.len() / 2).copied()
    }
}

/// `1.661ms`, `54us`, `31ms`, `2.5s`.
pub fn fmt_ns(ns: u64) -> String {
    fn trimmed(v: f64) -> String {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
    match ns {
        0..1_000 => format!("{ns}ns"),
        1_000..1_000_000 => format!("{}us", (ns as f64 / 1e3).round() as u64),
        1_000_000..1_000_000_000 => format!("{}ms", trimmed(ns as f64 / 1e6)),
        _ => format!("{}s", trimmed(ns as f64 / 1e9)),
    }
}

/// `3.84 MiB`.
pub fn fmt_bytes(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    if bytes as f64 >= MIB {
        format!("{:.2} MiB", bytes as f64 / MIB)
    } else {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    }
}

fn opt(v: Option<u64>) -> String {
    v.map_or_else(|| "unknown".to_owned(), |v| v.to_string())
}

/// The report printed on standard output.
pub fn render(record: &RunRecord) -> String {
    let mut out = String::with_capacity(4096);
    let c = &record.config;
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    let explicit = c.workload.explicit();
    line(format!("config.nodes={}", c.nodes));
    line(format!("config.knows=[{},{}]", c.knows[0], c.knows[1]));
    line(format!("config.queries={}", c.queries));
    line(format!("config.sessions={}", c.sessions));
    line(format!("config.seed={}", c.seed));
    line(format!("config.connections={}", c.connections));
    line(format!("config.max_connections={}", c.max_connections));
    line(format!("config.repetitions={}", c.repetitions));
    line(format!("config.workload={}", c.workload.name()));
    line(format!("config.rows_per_query={}", c.rows_per_query));
    if c.workload == Workload::Mixed {
        line(format!("config.writers={}", c.writers));
        line(format!("config.readers={}", c.readers));
    }
    if let Some(d) = c.duration_ms {
        line(format!("config.duration_ms={d}"));
    }
    if c.target != crate::run::IN_PROCESS {
        line(format!("config.target={}", c.target));
    }
    line(format!("nodes.person={}", record.facts.nodes_person));
    line(format!("edges.knows={}", record.facts.edges_knows));
    let m = record.median();
    let ok = m.map_or(0, |w| w.queries_ok);
    // Facts verified in every window: printed only if every window passed.
    let verified = record.passed;
    match c.workload {
        Workload::Count | Workload::Txread if verified => {
            line(format!("q.count_person={}", record.facts.nodes_person));
        }
        Workload::Return1 if verified => {
            line("q.return1=1".to_owned());
        }
        Workload::Records if verified => {
            line(format!("records.ok={}", m.map_or(0, |w| w.records_ok)));
        }
        Workload::Txwrite | Workload::Mixed => {
            line(format!("nodes.counter={}", record.facts.nodes_counter));
            if let Some(d) = m.and_then(|w| w.counter_delta) {
                line(format!("write.committed_delta={d}"));
            }
        }
        _ => {}
    }
    if c.duration_ms.is_some() {
        line(format!("# queries.ok={ok}"));
    } else {
        line(format!("queries.ok={ok}"));
    }
    if let Some(w) = m {
        telemetry(&mut line, record, w, explicit);
    }
    out
}

fn telemetry(line: &mut impl FnMut(String), record: &RunRecord, w: &WindowRecord, explicit: bool) {
    load_telemetry(line, record, w);
    conn_telemetry(line, w, explicit);
    resource_telemetry(line, record, w);
    host_telemetry(line, record);
    verdict_telemetry(line, record, w);
}

/// `load.*`: how long the window took, its throughput and latencies.
fn load_telemetry(line: &mut impl FnMut(String), record: &RunRecord, w: &WindowRecord) {
    let c = &record.config;
    line(format!(
        "# load.connect_elapsed={}",
        fmt_ns(w.connect_elapsed_ns)
    ));
    line(format!("# load.elapsed={}", fmt_ns(w.elapsed_ns)));
    line(format!(
        "# load.throughput={:.0} queries/s",
        w.throughput_qps
    ));
    if record.effect.len() > 1 {
        let all: Vec<String> = record
            .effect
            .iter()
            .map(|e| format!("{:.0}", e.throughput_qps))
            .collect();
        line(format!("# load.throughput_windows={}", all.join(" ")));
    }
    let p = &w.latency;
    line(format!("# load.latency_p50={}", fmt_ns(p.p50_ns)));
    line(format!("# load.latency_p95={}", fmt_ns(p.p95_ns)));
    line(format!("# load.latency_p99={}", fmt_ns(p.p99_ns)));
    line(format!("# load.latency_p999={}", fmt_ns(p.p999_ns)));
    if c.workload == Workload::Mixed {
        line(format!(
            "# load.writes={} ({:.0}/s, p99 {}) reads={} ({:.0}/s, p99 {})",
            w.writes_ok,
            w.writes_qps,
            fmt_ns(w.write_latency.p99_ns),
            w.reads_ok,
            w.reads_qps,
            fmt_ns(w.read_latency.p99_ns)
        ));
    }
}

/// `conn.*` and the server's counters: connections, errors, and (for explicit transactions) transactions.
fn conn_telemetry(line: &mut impl FnMut(String), w: &WindowRecord, explicit: bool) {
    line(format!("# conn.offered={}", w.conn_offered));
    line(format!("# conn.established={}", w.conn_established));
    line(format!("# conn.failed={}", w.conn_failed));
    if w.pool_opened > 0 {
        line(format!("# conn.pool_opened={}", w.pool_opened));
    }
    line(format!("# conn.errors={}", w.errors.summary()));
    line(format!(
        "# conn.errors_by_side=client:{} server:{}",
        w.errors_client_side, w.errors_server_side
    ));
    match &w.counters {
        Some(counters) => {
            for (k, v) in counters.lines("counters.bolt.server") {
                line(format!("# {k}={v}"));
            }
            if explicit {
                for (k, v) in counters.tx_lines("counters.bolt.server") {
                    line(format!("# {k}={v}"));
                }
            }
            line(format!(
                "# counters_settled={}",
                w.counters_settled.unwrap_or(false)
            ));
        }
        None => line("# counters=unavailable (the target exposes none)".to_owned()),
    }
}

/// `runtime.*`, `mem.*` and `cpu.*`: what the server held and what both sides spent.
fn resource_telemetry(line: &mut impl FnMut(String), record: &RunRecord, w: &WindowRecord) {
    let c = &record.config;
    line(format!("# runtime.tasks_peak={}", opt(w.at_peak.tasks)));
    line(format!("# runtime.tasks_max={}", opt(w.max.tasks)));
    line(format!("# runtime.threads_max={}", opt(w.max.threads)));
    line(format!(
        "# runtime.open_fds_peak={}",
        opt(w.at_peak.open_fds)
    ));
    line(format!("# runtime.open_fds_max={}", opt(w.max.open_fds)));
    line(format!(
        "# mem.rss_max={}",
        w.max
            .rss_bytes
            .map_or_else(|| "unknown".to_owned(), fmt_bytes)
    ));
    line(format!(
        "# load.workload={} rows={} records_ok={}",
        c.workload.name(),
        c.rows_per_query,
        w.records_ok
    ));
    let secs = |s: Option<f64>| s.map_or_else(|| "unknown".to_owned(), |s| format!("{s:.2}s"));
    let us = |s: Option<f64>| s.map_or_else(String::new, |s| format!(" ({s:.1} us/query)"));
    line(format!(
        "# cpu.client={}{}",
        secs(w.cpu.client_s),
        us(w.cpu.client_us_per_unit)
    ));
    line(format!(
        "# cpu.server={}{}",
        secs(w.cpu.server_s),
        us(w.cpu.server_us_per_unit)
    ));
    if let Some(share) = w.cpu.client_share {
        line(format!("# cpu.client_share={:.0}%", share * 100.0));
    }
}

/// `host.*`: the machine the window ran on.
fn host_telemetry(line: &mut impl FnMut(String), record: &RunRecord) {
    let c = &record.config;
    let h = &record.host;
    line(format!("# host.cores={}", h.cores));
    line(format!(
        "# host.client_threads={} host.server_threads={}",
        c.client_threads,
        c.server_threads
            .map_or_else(|| "n/a".to_owned(), |t| t.to_string())
    ));
    line(format!(
        "# host.loadavg_before={}",
        fmt_loadavg(h.loadavg_before)
    ));
    line(format!(
        "# host.loadavg_after={}",
        fmt_loadavg(h.loadavg_after)
    ));
    line(format!("# host.fd_limit_soft={}", opt(h.fd_limit_soft)));
    line(format!("# host.idle={} ({})", h.idle, h.idle_note));
}

/// `verify*`, the probe, the run's totals and how the server shut down.
fn verdict_telemetry(line: &mut impl FnMut(String), record: &RunRecord, w: &WindowRecord) {
    let v = &w.verdict;
    let mut verdict = if record.passed {
        "passed".to_owned()
    } else {
        "FAILED".to_owned()
    };
    let _ = write!(verdict, " checked=[{}]", v.checked.join(", "));
    if !v.unverified.is_empty() {
        let _ = write!(verdict, " unverified=[{}]", v.unverified.join("; "));
    }
    line(format!("# verify={verdict}"));
    for window in record.effect.iter().chain(&record.probe) {
        for violation in &window.verdict.violations {
            line(format!(
                "# verify.violation {} {}: {violation}",
                window.kind, window.index
            ));
        }
    }
    if let Some(probe) = &record.probe {
        line(format!(
            "# probe.throughput={:.0} queries/s (profiled: attribution only, not quotable)",
            probe.throughput_qps
        ));
    }
    if let Some(total) = &record.counters_total {
        for (k, v) in total.lines("counters.total.bolt.server") {
            if k.ends_with("conn.accepted")
                || k.ends_with("conn.rejected")
                || k.ends_with("conn.closed")
            {
                line(format!("# {k}={v}"));
            }
        }
    }
    match &record.shutdown {
        Some(s) if s.clean => line("# server shut down cleanly".to_owned()),
        Some(s) => line(format!(
            "# server shutdown NOT clean: forced={} tasks_left={}",
            s.forced, s.tasks_left
        )),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_like_the_seed() {
        assert_eq!(fmt_ns(383_000), "383us");
        assert_eq!(fmt_ns(54_400), "54us");
        assert_eq!(fmt_ns(1_661_000), "1.661ms");
        assert_eq!(fmt_ns(31_000_000), "31ms");
        assert_eq!(fmt_ns(2_500_000_000), "2.5s");
        assert_eq!(fmt_ns(999), "999ns");
        assert_eq!(fmt_bytes(4_026_531), "3.84 MiB");
    }
}
