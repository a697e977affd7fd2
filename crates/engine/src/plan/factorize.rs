//! Factorized counting: `count(*)` over a chain of single-hop expansions, answered per node
//! (a sum over middle nodes of in-degree × out-degree for two hops, path counts per node
//! hop by hop for longer chains) instead of one row per path; grouped by keys that read one
//! node of the chain, the counts are taken per node there (the paths reaching it times the
//! paths leaving it) and summed per key.
//!
//! The rule reads the row-at-a-time plan the pattern planner made and rewrites it only when
//! it can prove the count equal: nothing but the count and keys on one node leave the
//! aggregation (`count(x.p)` becomes a filter `x.p IS NOT NULL` on `x`), the pattern is
//! one simple path of fresh nodes (no `Expand(Into)`, no named paths, no OPTIONAL MATCH,
//! nothing before it; a variable-length hop of at most [`VARIABLE_HOPS_MAX`] relationships
//! with nothing asked of them), and every filter reads one node of the chain alone.
//! Relationship uniqueness is kept exactly: two hops whose relationships must differ are
//! corrected per middle node by the pairs that share one (self-loops, or both hops walking the
//! same relationship back and forth), so two such hops are grouped only at their middle node.
//! Longer chains, and chains with a variable-length hop, are taken when no two of their
//! relationships can be one: their types cannot meet, or each way they could meet would make
//! one node of two chain nodes whose labels no node carries together, which the count checks
//! against the data when it runs (the row-at-a-time plan counts when it finds such a node).

use std::sync::Arc;

use quiver_storage::Direction;

use crate::ir::{
    AggKind, AggSpec, ChainCountSpec, ChainGroup, ChainHop, ChainNode, Expr, Op, PlanNode,
};
use crate::security::Subject;

/// The longest variable-length hop counted per node: each length is a walk of its own, and
/// the ways relationships could repeat grow with the product of the lengths.
pub(crate) const VARIABLE_HOPS_MAX: u32 = 3;

/// Whether counts may be answered without visiting the rows they count (the count store and
/// factorized counts). Such answers count everything the transaction sees, so they are only
/// allowed to a subject who may traverse every node and relationship: one from whom some
/// labels or types are hidden must count the rows they can see, row by row.
pub(crate) fn fast_counts_allowed(subject: &Subject) -> bool {
    match subject {
        Subject::Unrestricted => true,
        Subject::User(user) => user
            .permissions
            .abilities
            .contains(crate::security::privilege::READ_GRAPH),
    }
}

/// The chain count replacing `Aggregate(count(*))` over `input`, with the argument leaf it
/// starts from; `None` when the rewrite cannot be proven equal. Grouping keys are taken when
/// they all read one node of the chain (its properties, or the node itself): the paths are
/// then counted per node there, with no row per path either.
pub(super) fn chain_count(
    input: &Arc<PlanNode>,
    keys: &[(usize, Expr)],
    aggs: &[AggSpec],
) -> Option<(Arc<PlanNode>, ChainCountSpec)> {
    let [agg] = aggs else {
        return None;
    };
    if agg.distinct {
        return None;
    }
    let (leaf, start, expands, mut filters) = pipeline(input)?;
    let chain = Chain::of(start, &expands)?;
    let counted = match (agg.kind, &agg.arg) {
        (AggKind::CountStar, _) => None,
        // `count(x)` counts rows where `x` is not null: every row, when `x` is the chain's own.
        (AggKind::Count, Some(Expr::Slot(s))) if chain.binds(*s) => None,
        // `count(x.p)` counts the paths whose node `x` has `p`.
        (AggKind::Count, Some(arg @ Expr::Property(x, _))) if matches!(**x, Expr::Slot(s) if chain.nodes.contains(&s)) => {
            Some(Expr::IsNull(Box::new(arg.clone()), true))
        }
        _ => return None,
    };
    let group = if keys.is_empty() {
        None
    } else {
        Some(chain.group(keys)?)
    };
    // Without keys, a path not counted is as good as filtered out.
    let counted = match counted {
        Some(predicate) if group.is_none() => {
            filters.push(predicate);
            None
        }
        counted => counted,
    };
    let spec = chain.spec(filters, agg.out, group, counted)?;
    Some((leaf, spec))
}

/// One expansion as the plan made it: from a bound node to a fresh one, over `min..=max`
/// relationships.
struct Step {
    from: usize,
    to: usize,
    hop: Hop,
}

/// One hop of the chain, seen from the node before it.
#[derive(Clone)]
struct Hop {
    /// The relationship (or relationship-list) slot.
    rel: usize,
    dir: Direction,
    types: Vec<Arc<crate::tokens::Token>>,
    /// The relationship and relationship-list slots its relationships must differ from.
    exclude: Vec<usize>,
    min: u32,
    max: u32,
}

/// The plan under the aggregation, bottom-up: the argument leaf, the start node's slot, the
/// expansions in the order they run, and every filter (the start's label among them).
type Pipeline = (Arc<PlanNode>, usize, Vec<Step>, Vec<Expr>);

fn pipeline(input: &Arc<PlanNode>) -> Option<Pipeline> {
    let mut expands = Vec::new();
    let mut filters = Vec::new();
    let mut at = input;
    loop {
        match &at.op {
            Op::Filter { input, predicate } => {
                filters.push((**predicate).clone());
                at = input;
            }
            Op::Expand { input, spec } => {
                if spec.into {
                    return None;
                }
                expands.push(Step {
                    from: spec.from,
                    to: spec.to,
                    hop: Hop {
                        rel: spec.rel,
                        dir: spec.dir,
                        types: spec.types.clone(),
                        exclude: [&spec.exclude[..], &spec.exclude_lists[..]].concat(),
                        min: 1,
                        max: 1,
                    },
                });
                at = input;
            }
            Op::VarExpand { input, spec } => {
                let counted = 1 <= spec.min && spec.min <= spec.max;
                if spec.into || spec.rel_filter.is_some() || !counted {
                    return None;
                }
                if spec.max > VARIABLE_HOPS_MAX {
                    return None;
                }
                expands.push(Step {
                    from: spec.from,
                    to: spec.to,
                    hop: Hop {
                        rel: spec.rels,
                        dir: spec.dir,
                        types: spec.types.clone(),
                        exclude: [&spec.exclude[..], &spec.exclude_lists[..]].concat(),
                        min: spec.min,
                        max: spec.max,
                    },
                });
                at = input;
            }
            Op::AllNodes { input, slot } if matches!(input.op, Op::Once) => {
                expands.reverse();
                return Some((input.clone(), *slot, expands, filters));
            }
            Op::LabelScan { input, slot, label } if matches!(input.op, Op::Once) => {
                filters.push(Expr::HasLabels(
                    Box::new(Expr::Slot(*slot)),
                    vec![label.clone()],
                ));
                expands.reverse();
                return Some((input.clone(), *slot, expands, filters));
            }
            _ => return None,
        }
    }
}

/// The expansions laid out as one path: node slots in order, and each hop as seen walking
/// the path from its first node.
struct Chain {
    nodes: Vec<usize>,
    hops: Vec<Hop>,
}

impl Chain {
    /// The path the expansions form, or `None` when they branch or there are none. Each
    /// expansion binds a fresh node from a bound one, so the steps form a tree; a tree whose
    /// nodes have at most two hops each is a path.
    fn of(start: usize, steps: &[Step]) -> Option<Chain> {
        if steps.is_empty() {
            return None;
        }
        let mut bound = vec![start];
        for s in steps {
            if !bound.contains(&s.from) || bound.contains(&s.to) {
                return None;
            }
            bound.push(s.to);
        }
        let hops_of = |n: usize| {
            steps
                .iter()
                .enumerate()
                .filter(move |(_, s)| s.from == n || s.to == n)
                .map(|(i, _)| i)
        };
        if bound.iter().any(|n| hops_of(*n).count() > 2) {
            return None;
        }
        let first = *bound.iter().find(|n| hops_of(**n).count() == 1)?;
        let mut chain = Chain {
            nodes: vec![first],
            hops: Vec::new(),
        };
        let mut used = vec![false; steps.len()];
        let mut at = first;
        while let Some(i) = hops_of(at).find(|i| !used[*i]) {
            used[i] = true;
            let s = &steps[i];
            let mut hop = s.hop.clone();
            let next = if s.from == at {
                s.to
            } else {
                hop.dir = reversed(hop.dir);
                s.from
            };
            chain.hops.push(hop);
            chain.nodes.push(next);
            at = next;
        }
        (chain.hops.len() == steps.len()).then_some(chain)
    }

    fn binds(&self, slot: usize) -> bool {
        self.nodes.contains(&slot) || self.hops.iter().any(|h| h.rel == slot)
    }

    /// Whether hops `i` and `j` must use different relationships (either side may carry the
    /// exclusion, as the plan may have walked the path in either order), and may: their
    /// types can name one relationship's type. A variable-length hop's own relationships
    /// always differ.
    fn may_meet(&self, i: usize, j: usize) -> bool {
        let (a, b) = (&self.hops[i], &self.hops[j]);
        let distinct = i == j || a.exclude.contains(&b.rel) || b.exclude.contains(&a.rel);
        distinct && overlap(&a.types, &b.types)
    }

    /// The grouping of `keys`, when there are some and they all read one node of the chain.
    fn group(&self, keys: &[(usize, Expr)]) -> Option<ChainGroup> {
        let (_, first) = keys.first()?;
        let slot = only_slot(first)?;
        let at = self.nodes.iter().position(|n| *n == slot)?;
        if keys.iter().any(|(_, k)| only_slot(k) != Some(slot)) {
            return None;
        }
        Some(ChainGroup {
            at,
            keys: keys.to_vec(),
        })
    }

    /// The spec, with each filter attached to the one node it reads; `None` when a filter
    /// reads anything else, when hops that must differ could meet on one relationship where
    /// no exact correction is known (chains over two hops), or when the paths are grouped at
    /// an end of two hops that could meet (the correction is known per middle node only).
    fn spec(
        self,
        filters: Vec<Expr>,
        out: usize,
        group: Option<ChainGroup>,
        counted: Option<Expr>,
    ) -> Option<ChainCountSpec> {
        let mut predicates: Vec<Vec<Expr>> = vec![Vec::new(); self.nodes.len()];
        for f in filters {
            let slot = only_slot(&f)?;
            let at = self.nodes.iter().position(|n| *n == slot)?;
            predicates[at].push(f);
        }
        let k = self.hops.len();
        let single = self.hops.iter().all(|h| h.max == 1);
        // Two single hops counted in total or at their middle are corrected exactly where
        // they meet; anything else is counted only where the data shows they cannot.
        let at_middle = group.as_ref().is_none_or(|g| g.at == 1);
        let corrected = single && k == 2 && at_middle;
        let nodes: Vec<ChainNode> = self
            .nodes
            .iter()
            .zip(predicates)
            .map(|(slot, p)| ChainNode::new(*slot, Expr::all(p)))
            .collect();
        let meetings = if corrected {
            Vec::new()
        } else {
            self.meetings(&nodes)?
        };
        let hops: Vec<ChainHop> = (0..k)
            .map(|i| ChainHop {
                dir: self.hops[i].dir,
                types: self.hops[i].types.clone(),
                distinct_from_previous: corrected && i > 0 && self.may_meet(i - 1, i),
                min: self.hops[i].min,
                max: self.hops[i].max,
            })
            .collect();
        let counted = match counted {
            Some(predicate) => {
                let slot = only_slot(&predicate)?;
                Some((self.nodes.iter().position(|n| *n == slot)?, predicate))
            }
            None => None,
        };
        Some(ChainCountSpec {
            nodes,
            hops,
            out,
            group,
            counted,
            meetings,
        })
    }

    /// Every way two relationships of a path that must differ could be one, over every
    /// length of the variable-length hops, as the pairs of labelled chain nodes it would make
    /// one node; `None` when one would make no such pair (nothing in the data could rule it
    /// out). Walked as single relationships, a path is a sequence of positions: the chain's
    /// nodes and the unnamed nodes inside variable-length hops. One relationship walked twice
    /// makes the positions at its ends one node each time (in the same or the opposite
    /// order, as the two walks' directions allow), and positions made one are one node.
    fn meetings(&self, nodes: &[ChainNode]) -> Option<Vec<Vec<(usize, usize)>>> {
        let labelled = |at: usize| nodes[at].required_label().is_some();
        let mut found: Vec<Vec<(usize, usize)>> = Vec::new();
        for lengths in self.lengths() {
            // Per relationship walked: its hop, and its two positions; positions are
            // numbered along the path, the chain nodes' noted in `named`.
            let mut walked = Vec::new();
            let mut named = vec![Some(0)];
            for (h, len) in lengths.iter().enumerate() {
                for step in 0..*len {
                    let at = named.len() - 1;
                    walked.push((h, at, at + 1));
                    named.push((step + 1 == *len).then_some(h + 1));
                }
            }
            for (x, &(hx, ax, bx)) in walked.iter().enumerate() {
                for &(hy, ay, by) in &walked[x + 1..] {
                    if !self.may_meet(hx, hy) {
                        continue;
                    }
                    let (dx, dy) = (self.hops[hx].dir, self.hops[hy].dir);
                    let mut ways = Vec::new();
                    if dx == dy || dx == Direction::Both || dy == Direction::Both {
                        ways.push([(ax, ay), (bx, by)]);
                    }
                    if dx != dy || dx == Direction::Both {
                        ways.push([(ax, by), (bx, ay)]);
                    }
                    for way in ways {
                        let pairs = made_one(&way, &named, &labelled);
                        if pairs.is_empty() {
                            return None;
                        }
                        if !found.contains(&pairs) {
                            found.push(pairs);
                        }
                    }
                }
            }
        }
        Some(found)
    }

    /// Every combination of the hops' lengths.
    fn lengths(&self) -> Vec<Vec<usize>> {
        let mut all: Vec<Vec<usize>> = vec![Vec::new()];
        for hop in &self.hops {
            all = all
                .into_iter()
                .flat_map(|prefix| {
                    (hop.min..=hop.max).map(move |len| {
                        let mut next = prefix.clone();
                        next.push(len as usize);
                        next
                    })
                })
                .collect();
        }
        all
    }
}

/// The pairs of labelled chain nodes that `equal` (pairs of positions made one node) makes
/// one node, through any chain of equalities; `named[p]` is the chain node at position `p`.
fn made_one(
    equal: &[(usize, usize)],
    named: &[Option<usize>],
    labelled: &dyn Fn(usize) -> bool,
) -> Vec<(usize, usize)> {
    let positions = named.len();
    let mut class: Vec<usize> = (0..positions).collect();
    let root = |class: &Vec<usize>, mut p: usize| {
        while class[p] != p {
            p = class[p];
        }
        p
    };
    for &(a, b) in equal {
        let (ra, rb) = (root(&class, a), root(&class, b));
        class[ra] = rb;
    }
    let mut pairs = Vec::new();
    for p in 0..positions {
        for q in p + 1..positions {
            if let (Some(a), Some(b)) = (named[p], named[q])
                && a != b
                && labelled(a)
                && labelled(b)
                && root(&class, p) == root(&class, q)
            {
                pairs.push((a, b));
            }
        }
    }
    pairs
}

fn reversed(dir: Direction) -> Direction {
    match dir {
        Direction::Out => Direction::In,
        Direction::In => Direction::Out,
        Direction::Both => Direction::Both,
    }
}

/// Whether two hops' types may name one relationship type (no types: any type).
fn overlap(a: &[Arc<crate::tokens::Token>], b: &[Arc<crate::tokens::Token>]) -> bool {
    a.is_empty() || b.is_empty() || a.iter().any(|x| b.iter().any(|y| x.name == y.name))
}

/// The one slot a predicate reads, when it reads exactly one and is built only of pieces that
/// depend on nothing but that slot's node and the parameters (no functions, which may be
/// non-deterministic or read other entities, no subqueries).
fn only_slot(e: &Expr) -> Option<usize> {
    let mut slot = None;
    local(e, &mut slot).then_some(())?;
    slot
}

fn local(e: &Expr, slot: &mut Option<usize>) -> bool {
    match e {
        Expr::Const(_) | Expr::Param(_) => true,
        Expr::Slot(s) => *slot.get_or_insert(*s) == *s,
        Expr::Property(x, _)
        | Expr::HasLabels(x, _)
        | Expr::LabelTest(x, _)
        | Expr::TypeTest(x, _, _)
        | Expr::Not(x)
        | Expr::Neg(x)
        | Expr::Plus(x)
        | Expr::RegexConst(x, _)
        | Expr::IsNull(x, _) => local(x, slot),
        Expr::And(a, b)
        | Expr::Or(a, b)
        | Expr::Binary(_, a, b)
        | Expr::Index(a, b)
        | Expr::PropsMatch(a, b) => local(a, slot) && local(b, slot),
        Expr::Chain(first, rest) => {
            local(first, slot) && all_local(rest.iter().map(|(_, x)| x), slot)
        }
        Expr::List(items) => all_local(items, slot),
        Expr::Map(entries) => all_local(entries.iter().map(|(_, x)| x), slot),
        _ => false,
    }
}

fn all_local<'e>(es: impl IntoIterator<Item = &'e Expr>, slot: &mut Option<usize>) -> bool {
    es.into_iter().all(|x| local(x, slot))
}
