//! Latency distributions.
//!
//! Each connection task records into its own histogram (no shared state on the hot path) and
//! the window merges them at its end. An HDR histogram keeps three significant digits from a
//! nanosecond to a minute in a few tens of kilobytes, so a window of any length costs the same
//! memory, and p999 — the percentile a saturation run actually moves — stays exact to 0.1%.

use std::time::Duration;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// Longest latency recorded exactly; anything slower is recorded as this.
pub const LATENCY_NS_MAX: u64 = 60_000_000_000;
/// Significant decimal digits kept for every recorded value.
const SIGNIFICANT_DIGITS: u8 = 3;

/// One task's (or one window's) latencies.
#[derive(Clone, Debug)]
pub struct Latencies {
    histogram: Histogram<u64>,
}

/// The percentiles a report quotes, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub count: u64,
    pub p50_ns: u64,
    pub p95_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
    pub mean_ns: u64,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies::new()
    }
}

impl Latencies {
    pub fn new() -> Latencies {
        // The bounds are constants that satisfy the constructor's rules (low ≥ 1, high ≥ 2·low,
        // digits ≤ 5), so this cannot fail; fall back to an auto-resizing histogram regardless.
        let histogram = Histogram::new_with_bounds(1, LATENCY_NS_MAX, SIGNIFICANT_DIGITS)
            .or_else(|_| Histogram::new(SIGNIFICANT_DIGITS))
            .unwrap_or_else(|_| unreachable!("three significant digits are always valid"));
        Latencies { histogram }
    }

    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos())
            .unwrap_or(u64::MAX)
            .clamp(1, LATENCY_NS_MAX);
        self.histogram.saturating_record(ns);
    }

    pub fn merge(&mut self, other: &Latencies) {
        // Both sides share the same bounds, so `add` cannot fail; a failure would only drop
        // samples, which the count in the report would show.
        let _ = self.histogram.add(&other.histogram);
    }

    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    pub fn percentiles(&self) -> Percentiles {
        if self.histogram.is_empty() {
            return Percentiles::default();
        }
        let h = &self.histogram;
        Percentiles {
            count: h.len(),
            p50_ns: h.value_at_quantile(0.50),
            p95_ns: h.value_at_quantile(0.95),
            p99_ns: h.value_at_quantile(0.99),
            p999_ns: h.value_at_quantile(0.999),
            max_ns: h.max(),
            mean_ns: h.mean().round() as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact nearest-rank percentile of sorted samples: the smallest value with at least
    /// `q` of the samples at or below it.
    fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
        let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
        sorted[rank.min(sorted.len()) - 1]
    }

    fn within_tenth_of_a_percent(got: u64, exact: u64) -> bool {
        got.abs_diff(exact) as f64 <= exact as f64 * 0.001 + 1.0
    }

    #[test]
    fn empty_window_reports_zeros() {
        assert_eq!(Latencies::new().percentiles(), Percentiles::default());
    }

    #[test]
    fn percentiles_match_nearest_rank_within_precision() {
        // A skewed distribution: most fast, a long tail, a few outliers.
        let mut samples: Vec<u64> = Vec::new();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..100_000u64 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let base = 40_000 + state % 20_000;
            let tail = if i % 100 == 0 { state % 2_000_000 } else { 0 };
            let outlier = if i % 5_000 == 0 { 50_000_000 } else { 0 };
            samples.push(base + tail + outlier);
        }
        let mut latencies = Latencies::new();
        for &s in &samples {
            latencies.record(Duration::from_nanos(s));
        }
        samples.sort_unstable();
        let p = latencies.percentiles();
        assert_eq!(p.count, 100_000);
        for (got, q) in [
            (p.p50_ns, 0.50),
            (p.p95_ns, 0.95),
            (p.p99_ns, 0.99),
            (p.p999_ns, 0.999),
        ] {
            let exact = nearest_rank(&samples, q);
            assert!(
                within_tenth_of_a_percent(got, exact),
                "q={q}: {got} vs {exact}"
            );
        }
        assert!(within_tenth_of_a_percent(
            p.max_ns,
            *samples.last().unwrap()
        ));
        assert!(p.p50_ns <= p.p95_ns && p.p95_ns <= p.p99_ns && p.p99_ns <= p.p999_ns);
    }

    #[test]
    fn merging_equals_recording_into_one() {
        let mut a = Latencies::new();
        let mut b = Latencies::new();
        let mut whole = Latencies::new();
        for i in 1..=1000u64 {
            let d = Duration::from_micros(i);
            if i % 3 == 0 {
                a.record(d);
            } else {
                b.record(d);
            }
            whole.record(d);
        }
        a.merge(&b);
        assert_eq!(a.percentiles(), whole.percentiles());
        assert_eq!(nearest_rank(&(1..=1000).collect::<Vec<_>>(), 0.5), 500);
    }

    #[test]
    fn extremes_are_clamped_not_lost() {
        let mut l = Latencies::new();
        l.record(Duration::ZERO);
        l.record(Duration::from_secs(3600));
        let p = l.percentiles();
        assert_eq!(p.count, 2);
        assert!(p.max_ns >= LATENCY_NS_MAX - LATENCY_NS_MAX / 1000);
    }
}
