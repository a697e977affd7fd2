//! Entity counts by label and type, exact at any snapshot in O(recent commits).
//!
//! `count(n:Label)` and the planner read these instead of scanning. The current committed
//! totals are kept with a short history of per-commit changes; a reader at an older snapshot
//! subtracts the changes committed after it. History older than every live snapshot is trimmed
//! by garbage collection, so in a quiet store a count is one map lookup.

use std::collections::VecDeque;

use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CountKey {
    Nodes,
    Rels,
    Label(u32),
    Type(u32),
    /// Relationships of type `ty` whose start (`out`) or end (not `out`) carries `label`:
    /// Neo4j's `(:L)-[:T]->()` and `()-[:T]->(:L)` counts.
    LabelType {
        label: u32,
        ty: u32,
        out: bool,
    },
    /// Relationships of a type from a node to itself.
    SelfLoops(u32),
}

/// The label and type counts a relationship of `ty` between nodes labelled `start` and `end`
/// changes by `delta` when it is added (1) or removed (-1), handed to `add`.
pub(crate) fn rel_counts(
    (start, end): (&[u32], &[u32]),
    ty: u32,
    self_loop: bool,
    delta: i64,
    mut add: impl FnMut(CountKey, i64),
) {
    for (labels, out) in [(start, true), (end, false)] {
        for &label in labels {
            add(CountKey::LabelType { label, ty, out }, delta);
        }
    }
    if self_loop {
        add(CountKey::SelfLoops(ty), delta);
    }
}

/// The label and type counts adding (`delta` 1) or removing (-1) `label` changes on a node
/// whose relationships are `node`'s: one per relationship at each end, by type.
pub(crate) fn label_counts(
    node: &crate::graph::NodeRec,
    label: u32,
    delta: i64,
    mut add: impl FnMut(CountKey, i64),
) {
    for out in [true, false] {
        let mut run: Option<(u32, i64)> = None;
        for entry in node.adj(out).iter() {
            match &mut run {
                Some((ty, n)) if *ty == entry.ty() => *n += 1,
                _ => {
                    if let Some((ty, n)) = run {
                        add(CountKey::LabelType { label, ty, out }, n * delta);
                    }
                    run = Some((entry.ty(), 1));
                }
            }
        }
        if let Some((ty, n)) = run {
            add(CountKey::LabelType { label, ty, out }, n * delta);
        }
    }
}

#[derive(Default)]
struct CountState {
    current: FxHashMap<CountKey, i64>,
    history: VecDeque<(u64, Vec<(CountKey, i64)>)>,
}

#[derive(Default)]
pub(crate) struct Counts {
    state: Mutex<CountState>,
}

impl Counts {
    pub(crate) fn publish(&self, commit: u64, changes: Vec<(CountKey, i64)>) {
        if changes.is_empty() {
            return;
        }
        let mut s = self.state.lock();
        for (k, d) in &changes {
            *s.current.entry(*k).or_insert(0) += d;
        }
        s.history.push_back((commit, changes));
    }

    pub(crate) fn get(&self, key: CountKey, snapshot: u64) -> i64 {
        let s = self.state.lock();
        let mut n = s.current.get(&key).copied().unwrap_or(0);
        for (ts, changes) in s.history.iter().rev() {
            if *ts <= snapshot {
                break;
            }
            n -= changes
                .iter()
                .filter(|(k, _)| *k == key)
                .map(|(_, d)| d)
                .sum::<i64>();
        }
        n
    }

    pub(crate) fn trim(&self, oldest: u64) {
        let mut s = self.state.lock();
        while s.history.front().is_some_and(|(ts, _)| *ts <= oldest) {
            s.history.pop_front();
        }
    }

    pub(crate) fn history_len(&self) -> usize {
        self.state.lock().history.len()
    }
}

/// A transaction's own count changes, by command, so a read at command `c` counts only the
/// changes made before it.
#[derive(Default)]
pub(crate) struct OwnCounts {
    by_key: FxHashMap<CountKey, SmallVec<[(u32, i64); 2]>>,
}

impl OwnCounts {
    pub(crate) fn add(&mut self, key: CountKey, command: u32, delta: i64) {
        let v = self.by_key.entry(key).or_default();
        match v.last_mut() {
            Some((c, d)) if *c == command => *d += delta,
            _ => v.push((command, delta)),
        }
    }

    pub(crate) fn before(&self, key: CountKey, command: u32) -> i64 {
        self.by_key.get(&key).map_or(0, |v| {
            v.iter().filter(|(c, _)| *c < command).map(|(_, d)| d).sum()
        })
    }

    pub(crate) fn totals(&self) -> Vec<(CountKey, i64)> {
        self.by_key
            .iter()
            .map(|(k, v)| (*k, v.iter().map(|(_, d)| d).sum::<i64>()))
            .filter(|(_, d)| *d != 0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_at_snapshots() {
        let c = Counts::default();
        c.publish(1, vec![(CountKey::Nodes, 3)]);
        c.publish(2, vec![(CountKey::Nodes, -1), (CountKey::Label(0), 1)]);
        assert_eq!(c.get(CountKey::Nodes, 0), 0);
        assert_eq!(c.get(CountKey::Nodes, 1), 3);
        assert_eq!(c.get(CountKey::Nodes, 2), 2);
        c.trim(2);
        assert_eq!(c.history_len(), 0);
        assert_eq!(c.get(CountKey::Label(0), 2), 1);

        let mut own = OwnCounts::default();
        own.add(CountKey::Nodes, 0, 1);
        own.add(CountKey::Nodes, 0, 1);
        own.add(CountKey::Nodes, 2, -1);
        assert_eq!(own.before(CountKey::Nodes, 0), 0);
        assert_eq!(own.before(CountKey::Nodes, 1), 2);
        assert_eq!(own.before(CountKey::Nodes, 3), 1);
        assert_eq!(own.totals(), vec![(CountKey::Nodes, 1)]);
    }
}
