//! Whether a request's first production step runs on the connection's task or on the blocking
//! pool.
//!
//! Handing a step to the pool and back costs two thread wake-ups, which for a lookup or a
//! one-node create is more than the query itself (profiles of the seed's `ab` bodies put the
//! kernel's share near half of the server's time, most of it those wake-ups). Running a long
//! step on the connection's task instead would stall every connection on that runtime worker.
//! So the API remembers, per request (path and body), whether its last first step was quick: a
//! request known to be quick runs inline, anything else on the pool, where it is measured
//! again. A quick request that turns slow can stall its worker once, for one step (a chunk of
//! output), before it is marked slow.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Entries in the table (a power of two). A request that loses its entry to another runs on
/// the pool once more.
const ENTRIES: usize = 4096;

/// The low bits of an entry hold the verdict, the rest the key's tag.
const VERDICT_BITS: u64 = 0b11;
const QUICK: u64 = 1;
const SLOW: u64 = 2;

/// Identifies a request (endpoint path and body) in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestKey(u64);

impl RequestKey {
    pub fn of(path: &str, body: &[u8]) -> RequestKey {
        let mut hasher = rustc_hash::FxBuildHasher.build_hasher();
        hasher.write(path.as_bytes());
        hasher.write_u8(0);
        hasher.write(body);
        RequestKey(hasher.finish())
    }
}

/// The memory of recent first steps. Lock-free: a relaxed load per decision and at most a
/// store per measurement.
pub struct Placement {
    /// Steps shorter than this count as quick; `None` runs every step on the pool.
    budget: Option<Duration>,
    entries: Box<[AtomicU64]>,
}

impl Placement {
    pub fn new(budget: Option<Duration>) -> Placement {
        Placement {
            budget,
            entries: (0..ENTRIES).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    fn slot(&self, key: RequestKey) -> &AtomicU64 {
        // ENTRIES is a power of two: the mask keeps the index in range.
        #[allow(clippy::cast_possible_truncation)]
        let index = (key.0 as usize) & (ENTRIES - 1);
        &self.entries[index]
    }

    /// Whether the request's first step may run on the connection's task.
    pub fn inline(&self, key: RequestKey) -> bool {
        if self.budget.is_none() {
            return false;
        }
        let entry = self.slot(key).load(Ordering::Relaxed);
        entry & !VERDICT_BITS == key.0 & !VERDICT_BITS && entry & VERDICT_BITS == QUICK
    }

    /// Records how long the request's first step took.
    pub fn record(&self, key: RequestKey, elapsed: Duration) {
        let Some(budget) = self.budget else { return };
        let verdict = if elapsed < budget { QUICK } else { SLOW };
        let entry = (key.0 & !VERDICT_BITS) | verdict;
        let slot = self.slot(key);
        if slot.load(Ordering::Relaxed) != entry {
            slot.store(entry, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_run_inline_only_after_a_quick_run() {
        let placement = Placement::new(Some(Duration::from_micros(500)));
        let key = RequestKey::of("/db/neo4j/tx/commit", b"{\"statements\":[]}");
        assert!(!placement.inline(key));
        placement.record(key, Duration::from_micros(40));
        assert!(placement.inline(key));
        let other = RequestKey::of("/db/neo4j/tx/commit", b"{\"statements\":[ ]}");
        assert!(!placement.inline(other));
        placement.record(key, Duration::from_millis(3));
        assert!(!placement.inline(key));
    }

    #[test]
    fn without_a_budget_everything_runs_on_the_pool() {
        let placement = Placement::new(None);
        let key = RequestKey::of("/", b"");
        placement.record(key, Duration::ZERO);
        assert!(!placement.inline(key));
    }
}
