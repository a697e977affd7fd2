//! The cost model: estimated rows of each way to start a pattern, from the store's counts per
//! label and per relationship type and from which (label, key) pairs are indexed.

use std::sync::Arc;

use quiver_storage::{LabelId, PropKeyId, RelTypeId};

use super::super::clauses::Planner;
use super::graph::PNode;
use super::seek::Candidates;
use crate::ir::{Expr, Seek};
use crate::tokens::Token;

/// Where a pattern's component starts.
pub(super) enum StartKind {
    ById(Expr, bool),
    Seek(Arc<Token>, Arc<Token>, Seek),
    Label(Arc<Token>),
    All,
}

impl Planner<'_> {
    fn label_count(&self, label: &Token) -> f64 {
        match label.label(self.stats.storage()) {
            Some(l) => self.stats.count_label(LabelId(l.0)).unwrap_or(0) as f64,
            None => 0.0,
        }
    }

    fn has_index(&self, label: &Token, key: &Token) -> bool {
        match (
            label.label(self.stats.storage()),
            key.key(self.stats.storage()),
        ) {
            (Some(l), Some(k)) => self.stats.has_index(l, PropKeyId(k.0)),
            _ => false,
        }
    }

    /// Average relationships per node for the given types.
    pub(super) fn degree_estimate(&self, types: &[Arc<Token>]) -> f64 {
        let nodes = self.stats.count_nodes().unwrap_or(0).max(1) as f64;
        let rels = if types.is_empty() {
            self.stats.count_rels().unwrap_or(0) as f64
        } else {
            types
                .iter()
                .filter_map(|t| t.rel_type(self.stats.storage()))
                .map(|t| self.stats.count_rels_of_type(RelTypeId(t.0)).unwrap_or(0) as f64)
                .sum()
        };
        (rels / nodes).max(1.0)
    }

    /// The cheapest way to start at node `n`, and its estimated rows: a lookup by id, an
    /// index seek (equality, IN, prefix, range, cheapest first), its smallest label, or all
    /// nodes.
    pub(super) fn start_cost(&mut self, n: &PNode, seeks: &Candidates) -> (f64, StartKind) {
        let set = seeks.of(n.name.as_deref(), n.slot);
        let all = self.stats.count_nodes().unwrap_or(0) as f64 + 1.0;
        let mut best = (all, StartKind::All);
        if let Some(set) = set {
            if let Some((e, many)) = &set.by_id {
                return (1.0, StartKind::ById(e.clone(), *many));
            }
            for l in &n.labels {
                let count = self.label_count(l);
                let consider = |cost: f64, kind: StartKind, best: &mut (f64, StartKind)| {
                    if cost < best.0 {
                        *best = (cost, kind);
                    }
                };
                // Equality, `IN` and prefix seeks, each at its cost.
                let point_seeks = set
                    .eq
                    .iter()
                    .map(|(key, e)| (key, (count / 100.0).clamp(1.0, 10.0), Seek::Eq(e.clone())))
                    .chain(set.within.iter().map(|(key, e)| {
                        (key, (count / 50.0).clamp(1.0, 20.0), Seek::In(e.clone()))
                    }))
                    .chain(
                        set.prefix
                            .iter()
                            .map(|(key, e)| (key, count / 10.0, Seek::Prefix(e.clone()))),
                    );
                // Ranges: from each lower bound (with the upper bound on its key, if any), then
                // from each upper bound alone.
                let upper_of = |key: &Arc<Token>| {
                    set.upper
                        .iter()
                        .find(|(k, _, _)| Arc::ptr_eq(k, key))
                        .map(|(_, e, i)| (e.clone(), *i))
                };
                let has_lower =
                    |key: &Arc<Token>| set.lower.iter().any(|(k, _, _)| Arc::ptr_eq(k, key));
                let range_seeks = set
                    .lower
                    .iter()
                    .map(|(key, e, inclusive)| (key, Some((e.clone(), *inclusive)), upper_of(key)))
                    .chain(
                        set.upper
                            .iter()
                            .filter(|(key, _, _)| !has_lower(key))
                            .map(|(key, e, inclusive)| (key, None, Some((e.clone(), *inclusive)))),
                    )
                    .map(|(key, lower, upper)| (key, count / 3.0, Seek::Range { lower, upper }));
                for (key, cost, seek) in point_seeks.chain(range_seeks) {
                    if self.has_index(l, key) {
                        consider(
                            cost,
                            StartKind::Seek(l.clone(), key.clone(), seek),
                            &mut best,
                        );
                    }
                }
            }
        }
        for l in &n.labels {
            let count = self.label_count(l);
            if count < best.0 {
                best = (count, StartKind::Label(l.clone()));
            }
        }
        best
    }
}
