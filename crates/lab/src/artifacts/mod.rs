//! Everything a run leaves behind with `--artifact-dir`:
//!
//! ```text
//! <dir>/
//!   metrics.json     the machine-readable record (schema-versioned: config, host, effect
//!                    windows, the probe window kept apart)
//!   host.json        cores, load average, descriptor ceiling, idle verdict, caveat
//!   bench.txt        one benchstat line per effect window (never the probe)
//!   flamegraph.svg   CPU attribution over the probe window
//!   report.html      charts (inline SVG, nothing fetched)
//! ```
//! A ladder writes one such directory per rung plus `ladder.json`, the sweep's own
//! `host.json`, every rung's `bench.txt` concatenated, and one `report.html` for the sweep.

pub mod flame;
pub mod html;

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::error::LabError;
use crate::report::RunRecord;

pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), LabError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| LabError::artifact(path, std::io::Error::other(e)))?;
    write_text(path, &text)
}

pub fn write_text(path: &Path, text: &str) -> Result<(), LabError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| LabError::artifact(parent, e))?;
    }
    std::fs::write(path, text).map_err(|e| LabError::artifact(path, e))
}

/// A benchmark name component: letters, digits and `-_=.` only.
pub fn bench_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '=' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// One line per effect window, in Go's benchmark format so `benchstat bench.txt` compares
/// rungs (and needs six or more repetitions for a confidence interval).
pub fn bench_lines(record: &RunRecord) -> String {
    let mut out = String::new();
    let name = record
        .label
        .split('/')
        .map(bench_safe)
        .collect::<Vec<_>>()
        .join("/");
    for w in &record.effect {
        if w.queries_ok == 0 {
            continue;
        }
        let ns_per_op = w.elapsed_ns as f64 / w.queries_ok as f64;
        let _ = writeln!(
            out,
            "BenchmarkLab/{name}-{cores}\t{n}\t{ns_per_op:.0} ns/op\t{qps:.0} queries/s\t{p50} p50-ns\t{p99} p99-ns\t{p999} p999-ns",
            cores = record.host.cores,
            n = w.queries_ok,
            qps = w.throughput_qps,
            p50 = w.latency.p50_ns,
            p99 = w.latency.p99_ns,
            p999 = w.latency.p999_ns,
        );
    }
    out
}

/// Writes a single run's artefacts (the flamegraph is written by the probe window itself).
pub fn write_run(dir: &Path, record: &RunRecord) -> Result<(), LabError> {
    write_json(&dir.join("metrics.json"), record)?;
    write_json(&dir.join("host.json"), &record.host)?;
    write_text(&dir.join("bench.txt"), &bench_lines(record))?;
    write_text(&dir.join("report.html"), &html::run_page(record))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_benchstat_safe() {
        assert_eq!(bench_safe("quiver (in process)"), "quiver__in_process_");
        assert_eq!(bench_safe("conn=64"), "conn=64");
    }
}
