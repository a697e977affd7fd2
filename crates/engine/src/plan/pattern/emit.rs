//! Emission: the operators a query graph becomes. Each connected component starts at its
//! cheapest node (unless one of its nodes is bound already) and grows one relationship at a
//! time from bound ends, preferring relationships whose both ends are bound (they only
//! filter), then fixed-length ones; shortest paths come last, between nodes bound by then.
//! Every predicate is applied as soon as the slots it reads are bound.

use std::sync::Arc;

use quiver_cypher::ast::{self, PathSelector};
use quiver_storage::Direction;

use super::super::clauses::Planner;
use super::super::scope::Scope;
use super::cost::StartKind;
use super::graph::{FastShortest, Pred, QueryGraph};
use super::seek::Candidates;
use crate::ir::{
    ExpandSpec, Expr, Op, PathSearchSpec, PlanNode, ShortestSpec, SubKind, VarExpandSpec,
};

/// The plan under construction and what it has bound so far.
pub(super) struct Emit {
    pub plan: Arc<PlanNode>,
    pub est: f64,
    pub bound_slots: Vec<usize>,
    pub node_bound: Vec<bool>,
    pub rel_done: Vec<bool>,
    /// Relationship slots bound so far (relationship uniqueness).
    pub singles: Vec<usize>,
    /// Relationship-list slots bound so far.
    pub lists: Vec<usize>,
    /// The variables EXPLAIN shows on every operator of the pattern.
    pub names: Scope,
}

impl Emit {
    pub fn new(input: Arc<PlanNode>, outer: &Scope, g: &QueryGraph<'_>, names: Scope) -> Emit {
        Emit {
            est: input.est_rows.max(1.0),
            plan: input,
            bound_slots: outer.slots(),
            node_bound: g.nodes.iter().map(|n| n.bound).collect(),
            rel_done: vec![false; g.rels.len()],
            singles: Vec::new(),
            lists: Vec::new(),
            names,
        }
    }
}

/// The connected components over non-shortest relationships, as lists of node indexes;
/// components with a bound node first, since they extend the input without a product.
pub(super) fn components(g: &QueryGraph<'_>, node_bound: &[bool]) -> Vec<Vec<usize>> {
    fn find(c: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while c[r] != r {
            r = c[r];
        }
        let mut y = x;
        while c[y] != r {
            let next = c[y];
            c[y] = r;
            y = next;
        }
        r
    }
    let n = g.nodes.len();
    let mut comp: Vec<usize> = (0..n).collect();
    for r in g.rels.iter().filter(|r| r.shortest.is_none()) {
        let (a, b) = (find(&mut comp, r.left), find(&mut comp, r.right));
        if a != b {
            comp[a] = b;
        }
    }
    let mut roots: Vec<usize> = Vec::new();
    for i in 0..n {
        let r = find(&mut comp, i);
        if !roots.contains(&r) {
            roots.push(r);
        }
    }
    let mut members: Vec<Vec<usize>> = roots
        .iter()
        .map(|root| (0..n).filter(|i| find(&mut comp, *i) == *root).collect())
        .collect();
    members.sort_by_key(|m: &Vec<usize>| usize::from(!m.iter().any(|i| node_bound[*i])));
    members
}

impl Planner<'_> {
    /// Applies the predicates whose slots are bound now.
    pub(super) fn emit_ready(&mut self, g: &mut QueryGraph<'_>, e: &mut Emit, all: bool) {
        let plan = e.plan.clone();
        e.plan = self.place_preds(plan, &mut g.preds, &e.bound_slots, all, &e.names);
    }

    /// Starts an unbound component at its cheapest node.
    pub(super) fn emit_start(
        &mut self,
        g: &mut QueryGraph<'_>,
        e: &mut Emit,
        members: &[usize],
        seeks: &Candidates,
    ) {
        let mut best: Option<(f64, usize, StartKind)> = None;
        for &m in members {
            let (cost, kind) = self.start_cost(&g.nodes[m], seeks);
            if best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
                best = Some((cost, m, kind));
            }
        }
        let Some((cost, m, kind)) = best else {
            return;
        };
        let slot = g.nodes[m].slot;
        let input = e.plan.clone();
        let op = match kind {
            StartKind::ById(ids, many) => Op::NodeById {
                input,
                slot,
                ids: ids.into(),
                many,
            },
            StartKind::Seek(label, key, seek) => Op::IndexSeek {
                input,
                slot,
                label,
                key,
                seek: seek.into(),
            },
            StartKind::Label(label) => {
                for (ni, l, pi) in &g.label_preds {
                    if *ni == m && Arc::ptr_eq(l, &label) {
                        g.preds[*pi].done = true;
                    }
                }
                Op::LabelScan { input, slot, label }
            }
            StartKind::All => Op::AllNodes { input, slot },
        };
        e.est *= cost.max(1.0);
        e.node_bound[m] = true;
        e.bound_slots.push(slot);
        e.plan = self.node(op, e.est, &e.names);
        self.emit_ready(g, e, false);
    }

    /// Expands the component from its bound nodes until none of its relationships is left.
    pub(super) fn emit_expansions(
        &mut self,
        g: &mut QueryGraph<'_>,
        e: &mut Emit,
        members: &[usize],
    ) {
        while let Some(ri) = next_rel(g, e, members) {
            e.rel_done[ri] = true;
            let op = self.expand_op(g, e, ri);
            e.plan = self.node(op, e.est, &e.names);
            self.emit_ready(g, e, false);
        }
    }

    /// The operator walking relationship `ri` from its bound end (both bound: into).
    fn expand_op(&mut self, g: &QueryGraph<'_>, e: &mut Emit, ri: usize) -> Op {
        let r = &g.rels[ri];
        let from_left = e.node_bound[r.left];
        let (from, to) = if from_left {
            (r.left, r.right)
        } else {
            (r.right, r.left)
        };
        let into = e.node_bound[to];
        let dir = match (r.dir, from_left) {
            (ast::Direction::Both, _) => Direction::Both,
            (ast::Direction::Outgoing, true) | (ast::Direction::Incoming, false) => Direction::Out,
            _ => Direction::In,
        };
        let degree = self.degree_estimate(&r.types);
        let input = e.plan.clone();
        if let Some(fast) = r.search.as_ref().and_then(|s| s.fast.as_ref()) {
            e.est *= degree.max(1.0);
            return fast_search_op(g, e, ri, fast, (from, to, into));
        }
        if let Some(search) = &r.search {
            let (steps, vars) = search.program(!from_left);
            let spec = PathSearchSpec {
                from: g.nodes[from].slot,
                to: g.nodes[to].slot,
                into,
                steps,
                vars,
                rels: r.slot,
                reversed: !from_left,
                acyclic: search.acyclic,
                selection: search.selection,
                exclude: e.singles.clone(),
                exclude_lists: e.lists.clone(),
                filter: search.filter.as_ref().map(|(f, _)| f.clone()),
                filter_path: search
                    .filter
                    .as_ref()
                    .and_then(|(_, p)| p.clone())
                    .map(|(slot, parts)| (slot, Expr::Path(parts))),
            };
            e.lists.push(r.slot);
            e.est *= degree.powi(2).max(1.0);
            e.node_bound[to] = true;
            e.bound_slots.push(g.nodes[to].slot);
            e.bound_slots.push(r.slot);
            for v in &spec.vars {
                e.bound_slots.extend(v.out);
            }
            return Op::PathSearch {
                input,
                spec: spec.into(),
            };
        }
        let op = match r.length {
            None => {
                let spec = ExpandSpec {
                    from: g.nodes[from].slot,
                    rel: r.slot,
                    to: g.nodes[to].slot,
                    dir,
                    types: r.types.clone(),
                    into,
                    exclude: e.singles.clone(),
                    exclude_lists: e.lists.clone(),
                };
                e.singles.push(r.slot);
                e.est *= if into { 0.1 } else { degree };
                Op::Expand {
                    input,
                    spec: spec.into(),
                }
            }
            Some((min, max)) => {
                let spec = VarExpandSpec {
                    from: g.nodes[from].slot,
                    rels: r.slot,
                    to: g.nodes[to].slot,
                    dir,
                    types: r.types.clone(),
                    min,
                    max,
                    into,
                    reversed: !from_left,
                    exclude: e.singles.clone(),
                    exclude_lists: e.lists.clone(),
                    rel_filter: r.rel_filter.as_ref().map(|(s, x)| (*s, x.clone())),
                };
                e.lists.push(r.slot);
                e.est *= degree.powi(2).max(1.0);
                Op::VarExpand {
                    input,
                    spec: spec.into(),
                }
            }
        };
        e.node_bound[to] = true;
        e.bound_slots.push(g.nodes[to].slot);
        e.bound_slots.push(r.slot);
        op
    }

    /// Shortest paths, between nodes bound by now.
    pub(super) fn emit_shortest(&mut self, g: &mut QueryGraph<'_>, e: &mut Emit) {
        for ri in 0..g.rels.len() {
            let r = &g.rels[ri];
            let Some(selector) = r.shortest else {
                continue;
            };
            e.rel_done[ri] = true;
            let Some((min, max)) = r.length else {
                continue;
            };
            let dir = match r.dir {
                ast::Direction::Both => Direction::Both,
                ast::Direction::Outgoing => Direction::Out,
                ast::Direction::Incoming => Direction::In,
            };
            let spec = ShortestSpec {
                from: g.nodes[r.left].slot,
                to: g.nodes[r.right].slot,
                into: true,
                gql: false,
                reversed: false,
                exclude: Vec::new(),
                exclude_lists: Vec::new(),
                rels: r.slot,
                dir,
                types: r.types.clone(),
                min,
                max,
                all: selector == PathSelector::AllShortest,
                rel_filter: r.rel_filter.as_ref().map(|(s, x)| (*s, x.clone())),
            };
            e.bound_slots.push(r.slot);
            let input = e.plan.clone();
            e.plan = self.node(
                Op::ShortestPath {
                    input,
                    spec: spec.into(),
                },
                e.est,
                &e.names,
            );
            self.emit_ready(g, e, false);
        }
    }

    /// Named paths, built from their elements' slots.
    pub(super) fn emit_paths(&mut self, g: &mut QueryGraph<'_>, e: &mut Emit) {
        if g.paths.is_empty() && g.derived.is_empty() {
            return;
        }
        let items: Vec<(usize, Expr)> = std::mem::take(&mut g.paths)
            .into_iter()
            .map(|(slot, parts)| (slot, Expr::Path(parts)))
            .chain(std::mem::take(&mut g.derived))
            .inspect(|(slot, _)| e.bound_slots.push(*slot))
            .collect();
        let input = e.plan.clone();
        e.plan = self.node(
            Op::Project {
                input,
                items: items.into(),
            },
            e.est,
            &e.names,
        );
    }

    /// Wraps `plan` in filters (and semi-applies) for every pending predicate whose slots are
    /// all bound; with `all`, places every pending predicate.
    fn place_preds(
        &mut self,
        mut plan: Arc<PlanNode>,
        preds: &mut [Pred],
        bound: &[usize],
        all: bool,
        names: &Scope,
    ) -> Arc<PlanNode> {
        let mut simple: Vec<Expr> = Vec::new();
        let mut semis: Vec<Expr> = Vec::new();
        for p in preds.iter_mut() {
            if p.done {
                continue;
            }
            // Subquery predicates read variables their slots do not show: they go last.
            let ready = !p.last && p.deps.iter().all(|d| bound.contains(d));
            if !(all || ready) {
                continue;
            }
            p.done = true;
            let e = std::mem::replace(&mut p.expr, Expr::Const(quiver_value::Value::Null));
            if p.last {
                semis.push(e);
            } else {
                simple.push(e);
            }
        }
        let est = plan.est_rows;
        if let Some(predicate) = Expr::all(simple) {
            plan = self.node(
                Op::Filter {
                    input: plan,
                    predicate: predicate.into(),
                },
                est * 0.5,
                names,
            );
        }
        for e in semis {
            plan = match e {
                Expr::Subquery(inner, kind) if matches!(*kind, SubKind::Exists) => self.node(
                    Op::SemiApply {
                        input: plan,
                        inner,
                        negated: false,
                    },
                    est * 0.5,
                    names,
                ),
                Expr::Not(x) if matches!(&*x, Expr::Subquery(_, k) if matches!(**k, SubKind::Exists)) => {
                    match *x {
                        Expr::Subquery(inner, _) => self.node(
                            Op::SemiApply {
                                input: plan,
                                inner,
                                negated: true,
                            },
                            est * 0.5,
                            names,
                        ),
                        other => self.node(
                            Op::Filter {
                                input: plan,
                                predicate: Expr::Not(Box::new(other)).into(),
                            },
                            est * 0.5,
                            names,
                        ),
                    }
                }
                other => self.node(
                    Op::Filter {
                        input: plan,
                        predicate: other.into(),
                    },
                    est * 0.5,
                    names,
                ),
            };
        }
        plan
    }
}

/// The visited-set search of a selector over one quantified relationship (see
/// [`FastShortest`]), from node `from` of relationship `ri` to `to` (`into`: bound).
fn fast_search_op(
    g: &QueryGraph<'_>,
    e: &mut Emit,
    ri: usize,
    fast: &FastShortest,
    (from, to, into): (usize, usize, bool),
) -> Op {
    let r = &g.rels[ri];
    let from_left = from == r.left;
    let dir = match (fast.dir, from_left) {
        (ast::Direction::Both, _) => Direction::Both,
        (ast::Direction::Outgoing, true) | (ast::Direction::Incoming, false) => Direction::Out,
        _ => Direction::In,
    };
    let spec = ShortestSpec {
        from: g.nodes[from].slot,
        to: g.nodes[to].slot,
        into,
        rels: r.slot,
        dir,
        types: fast.types.clone(),
        min: fast.min,
        max: fast.max,
        all: fast.all,
        rel_filter: fast.rel_filter.clone(),
        gql: true,
        reversed: !from_left,
        exclude: e.singles.clone(),
        exclude_lists: e.lists.clone(),
    };
    e.lists.push(r.slot);
    e.node_bound[to] = true;
    e.bound_slots.push(g.nodes[to].slot);
    e.bound_slots.push(r.slot);
    Op::ShortestPath {
        input: e.plan.clone(),
        spec: spec.into(),
    }
}

/// The next relationship of the component to expand: one with a bound end, both ends bound
/// first, then fixed-length before variable-length; `None` when the component is done.
fn next_rel(g: &QueryGraph<'_>, e: &Emit, members: &[usize]) -> Option<usize> {
    let mut pick: Option<(usize, u8)> = None;
    for (ri, r) in g.rels.iter().enumerate() {
        if e.rel_done[ri]
            || r.shortest.is_some()
            || !(members.contains(&r.left) || members.contains(&r.right))
        {
            continue;
        }
        let (lb, rb) = (e.node_bound[r.left], e.node_bound[r.right]);
        if !lb && !rb {
            continue;
        }
        let rank = if r.search.is_some() {
            3
        } else if lb && rb {
            0
        } else if r.length.is_none() {
            1
        } else {
            2
        };
        if pick.is_none_or(|(_, best)| rank < best) {
            pick = Some((ri, rank));
        }
    }
    pick.map(|(ri, _)| ri)
}
