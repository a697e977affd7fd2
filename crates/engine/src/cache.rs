//! The plan cache: compiled plans keyed by query text, so that a repeated (parameterised) query
//! skips parsing and planning.
//!
//! Bounded by entries; when full, the least recently used eighth is evicted in one sweep so
//! that eviction costs O(1) amortised per insert.

use std::collections::HashMap;
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
}

pub(crate) struct PlanCache {
    entries: HashMap<Box<str>, Entry>,
    capacity: usize,
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
    pub fn new(capacity: usize) -> Self {
        PlanCache {
            entries: HashMap::new(),
            capacity,
            clock: 0,
            hits: 0,
            misses: 0,
        }
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
        if self.capacity == 0 {
            return;
        }
        if self.entries.len() >= self.capacity && !self.entries.contains_key(text) {
            let mut ages: Vec<u64> = self.entries.values().map(|e| e.used).collect();
            ages.sort_unstable();
            let cut = ages
                .get((self.capacity / 8).max(1) - 1)
                .copied()
                .unwrap_or(u64::MAX);
            self.entries.retain(|_, e| e.used > cut);
        }
        self.clock += 1;
        self.entries.insert(
            Box::from(text),
            Entry {
                plan,
                epoch,
                nodes,
                used: self.clock,
            },
        );
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
