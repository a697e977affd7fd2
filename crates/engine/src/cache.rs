//! The plan cache: compiled plans keyed by query text, so that a repeated (parameterised) query
//! skips parsing and planning.
//!
//! Bounded by entries and by bytes (each plan's size estimated once, when it is inserted); when
//! either bound is reached, the least recently used entries are evicted in one sweep (at least
//! an eighth of the entries, or enough to leave an eighth of the bytes free), so that eviction
//! costs O(1) amortised per insert. Plans that would crowd out many others are not cached: one
//! larger than a sixteenth of the byte limit never, and one whose text is long only on its
//! second sighting (a one-off generated query does not evict the hot ones).

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::plan::Compiled;

struct Entry {
    plan: Arc<Compiled>,
    /// The schema/procedure epoch the plan was made in.
    epoch: u64,
    /// Nodes in the store when planned: a plan made for a much smaller or larger graph is
    /// made again, since its choice of start points may no longer fit.
    nodes: u64,
    used: u64,
    /// The plan's estimated size ([`plan_bytes`]).
    bytes: usize,
}

/// A query text longer than this is cached only when it is seen a second time.
pub const ONE_OFF_TEXT_BYTES: usize = 16 * 1024;
/// A plan estimated above `bytes_max / LARGE_PLAN_SHARE` is never cached.
pub const LARGE_PLAN_SHARE: usize = 16;
/// Long texts remembered as seen once (by hash); the memory is forgotten whole past this.
const SEEN_ONCE_MAX: usize = 4096;

/// Estimated heap bytes a compiled plan holds, with its key: the plan's debug rendering names
/// every operator, expression and literal it holds once, so its length grows with the plan's
/// allocations; [`PLAN_BYTES_PER_DEBUG_BYTE`] converts one into the other (measured by the
/// engine's `plan_cache` test with a counting allocator). Computed without allocating.
pub(crate) fn plan_bytes(text: &str, plan: &Compiled) -> usize {
    struct Count(usize);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = std::fmt::write(&mut count, format_args!("{plan:?}"));
    std::mem::size_of::<Entry>() + text.len() * 2 + count.0 * PLAN_BYTES_PER_DEBUG_BYTE
}

/// Heap bytes per byte of a plan's debug rendering, rounded up with a margin from what the
/// `plan_cache` test measures: 3.6 to 4.1 for list and map literals, 2.0 to 2.8 for long
/// predicates and arithmetic (a 500 KiB query of literals holds about 6 MiB once planned).
pub const PLAN_BYTES_PER_DEBUG_BYTE: usize = 6;

pub(crate) struct PlanCache {
    entries: HashMap<Box<str>, Entry>,
    capacity: usize,
    bytes_max: usize,
    /// Estimated bytes of every entry.
    bytes: usize,
    seen_once: HashSet<u64>,
    clock: u64,
    pub hits: u64,
    pub misses: u64,
}

/// Whether two graph sizes differ enough to warrant planning again.
fn drifted(planned: u64, now: u64) -> bool {
    let (lo, hi) = if planned < now {
        (planned, now)
    } else {
        (now, planned)
    };
    hi - lo > 100 && hi > lo.saturating_mul(2)
}

impl PlanCache {
    pub fn new(capacity: usize, bytes_max: usize) -> Self {
        PlanCache {
            entries: HashMap::new(),
            capacity,
            bytes_max,
            bytes: 0,
            seen_once: HashSet::new(),
            clock: 0,
            hits: 0,
            misses: 0,
        }
    }

    /// Estimated bytes the cached plans hold.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn get(&mut self, text: &str, epoch: u64, nodes: u64) -> Option<Arc<Compiled>> {
        self.clock += 1;
        let clock = self.clock;
        let hit = match self.entries.get_mut(text) {
            Some(e) if e.epoch == epoch && !drifted(e.nodes, nodes) => {
                e.used = clock;
                Some(e.plan.clone())
            }
            _ => None,
        };
        if hit.is_some() {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
        hit
    }

    pub fn insert(&mut self, text: &str, epoch: u64, nodes: u64, plan: Arc<Compiled>) {
        if self.capacity == 0 || self.bytes_max == 0 {
            return;
        }
        let bytes = plan_bytes(text, &plan);
        if bytes > self.bytes_max / LARGE_PLAN_SHARE {
            return;
        }
        if text.len() > ONE_OFF_TEXT_BYTES && !self.entries.contains_key(text) {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            text.hash(&mut hasher);
            let hash = hasher.finish();
            if self.seen_once.len() >= SEEN_ONCE_MAX {
                self.seen_once.clear();
            }
            if self.seen_once.insert(hash) {
                return;
            }
            self.seen_once.remove(&hash);
        }
        if let Some(old) = self.entries.remove(text) {
            self.bytes -= old.bytes;
        }
        if self.entries.len() >= self.capacity || self.bytes + bytes > self.bytes_max {
            self.evict(bytes);
        }
        self.clock += 1;
        self.bytes += bytes;
        self.entries.insert(
            Box::from(text),
            Entry {
                plan,
                epoch,
                nodes,
                used: self.clock,
                bytes,
            },
        );
    }

    /// Evicts the least recently used entries: at least an eighth of the capacity, and enough
    /// that `incoming` bytes fit with an eighth of the byte limit to spare.
    fn evict(&mut self, incoming: usize) {
        let mut ages: Vec<(u64, usize)> =
            self.entries.values().map(|e| (e.used, e.bytes)).collect();
        ages.sort_unstable();
        let count_min = if self.entries.len() >= self.capacity {
            (self.capacity / 8).max(1)
        } else {
            0
        };
        let bytes_target = (self.bytes_max - self.bytes_max / 8).saturating_sub(incoming);
        let mut left = self.bytes;
        let mut cut = None;
        for (i, (used, bytes)) in ages.iter().enumerate() {
            if i >= count_min && left <= bytes_target {
                break;
            }
            left -= bytes;
            cut = Some(*used);
        }
        if let Some(cut) = cut {
            self.entries.retain(|_, e| e.used > cut);
            self.bytes = self.entries.values().map(|e| e.bytes).sum();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::drifted;

    #[test]
    fn small_changes_keep_plans() {
        assert!(!drifted(0, 50));
        assert!(!drifted(1000, 1500));
        assert!(drifted(1000, 2500));
        assert!(drifted(0, 1000));
    }
}
