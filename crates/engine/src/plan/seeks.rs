//! Seeks the pattern planner does not choose itself, found in the finished plan: a
//! relationship property index in place of a scan and an expansion
//! (`DirectedRelationshipIndexSeek` / `UndirectedRelationshipIndexSeek`), and a composite
//! node index in place of a label scan or a single-key seek (`NodeIndexSeek` over several
//! keys, when every key has an equality, or every key but the last, which may have a range,
//! IN or a prefix, as Neo4j uses them).
//!
//! Seeks through text and point indexes are found here too, node and relationship alike: a
//! text index for `CONTAINS` and `ENDS WITH` (and for `STARTS WITH`, or equality and IN on
//! string literals, where no range index serves them: a text index holds strings only, so
//! `n.p = $x` through it would miss an integer `$x`), a point index for `point.distance(n.p,
//! c) < r` and `point.withinBBox(n.p, lower, upper)`.
//!
//! The filter that offered the seek stays above it with every predicate it had: the seek
//! narrows the candidates and the filter keeps Cypher's exact semantics. A rewrite is taken
//! when its estimate is below the plan's (see [`Planner::seek_estimate`]).

use std::sync::Arc;

use quiver_storage::{IndexInfo, IndexKind, IndexState, LabelId, RelTypeId};
use quiver_value::Value;

use super::clauses::Planner;
use crate::ir::{BinOp, ChainOp, Expr, IndexSeekSpec, Op, PlanNode, Seek, SeekTarget};
use crate::tokens::Token;

/// What one conjunct of a filter says about one property of the entity in a slot.
enum Offer {
    Eq(Expr),
    In(Expr),
    Prefix(Expr),
    Lower(Expr, bool),
    Upper(Expr, bool),
    Contains(Expr),
    EndsWith(Expr),
    /// `point.distance(key, center) < radius` (`<=` when inclusive).
    Distance(Expr, Expr, bool),
    /// `point.withinBBox(key, lower, upper)`.
    BBox(Expr, Expr),
}

/// Shares of the entities a text or point seek is taken to return. A range index keeps
/// priority where both serve: a text seek for equality, IN or a prefix counts as a little
/// less selective than the range seek for the same predicate.
const TEXT_EQ_SHARE: f64 = 0.011;
const TEXT_IN_SHARE: f64 = 0.021;
const TEXT_PREFIX_SHARE: f64 = 0.11;
const TEXT_SUBSTRING_SHARE: f64 = 0.1;
const POINT_SHARE: f64 = 0.05;

/// Whether a seek argument is a string known when planning (a constant, or a list of them).
fn string_const(e: &Expr) -> bool {
    matches!(e, Expr::Const(Value::String(_)))
}

fn string_list_const(e: &Expr) -> bool {
    match e {
        Expr::Const(Value::List(items)) => items.iter().all(|v| matches!(v, Value::String(_))),
        Expr::List(items) => items.iter().all(string_const),
        _ => false,
    }
}

/// The offers of a filter's conjuncts, by property key name.
#[derive(Default)]
struct Offers {
    by_key: Vec<(Arc<str>, Offer)>,
}

impl Offers {
    fn eq(&self, key: &str) -> Option<&Expr> {
        self.by_key.iter().find_map(|(k, o)| match o {
            Offer::Eq(e) if &**k == key => Some(e),
            _ => None,
        })
    }

    /// The best seek on `key` (equality, IN, prefix, range) and how selective it is taken to
    /// be: the share of the entities it is estimated to return.
    fn last(&self, key: &str) -> Option<(Seek, f64)> {
        if let Some(e) = self.eq(key) {
            return Some((Seek::Eq(e.clone()), 0.01));
        }
        let mut lower = None;
        let mut upper = None;
        for (k, o) in &self.by_key {
            if &**k != key {
                continue;
            }
            match o {
                Offer::In(e) => return Some((Seek::In(e.clone()), 0.02)),
                Offer::Prefix(e) => return Some((Seek::Prefix(e.clone()), 0.1)),
                Offer::Lower(e, i) if lower.is_none() => lower = Some((e.clone(), *i)),
                Offer::Upper(e, i) if upper.is_none() => upper = Some((e.clone(), *i)),
                _ => {}
            }
        }
        (lower.is_some() || upper.is_some()).then(|| (Seek::Range { lower, upper }, 0.33))
    }

    /// The best seek a text index on `key` serves: `CONTAINS`, `ENDS WITH`, `STARTS WITH`,
    /// and equality or IN only on strings known when planning.
    fn text(&self, key: &str) -> Option<(Seek, f64)> {
        let mut best: Option<(Seek, f64)> = None;
        for (k, o) in &self.by_key {
            if &**k != key {
                continue;
            }
            let offered = match o {
                Offer::Eq(e) if string_const(e) => (Seek::Eq(e.clone()), TEXT_EQ_SHARE),
                Offer::In(e) if string_list_const(e) => (Seek::In(e.clone()), TEXT_IN_SHARE),
                Offer::Prefix(e) => (Seek::Prefix(e.clone()), TEXT_PREFIX_SHARE),
                Offer::Contains(e) => (Seek::Contains(e.clone()), TEXT_SUBSTRING_SHARE),
                Offer::EndsWith(e) => (Seek::EndsWith(e.clone()), TEXT_SUBSTRING_SHARE),
                _ => continue,
            };
            if best.as_ref().is_none_or(|b| offered.1 < b.1) {
                best = Some(offered);
            }
        }
        best
    }

    /// The seek a point index on `key` serves: a distance or a bounding box.
    fn point(&self, key: &str) -> Option<(Seek, f64)> {
        self.by_key.iter().find_map(|(k, o)| match o {
            Offer::Distance(center, radius, inclusive) if &**k == key => Some((
                Seek::Distance {
                    center: center.clone(),
                    radius: radius.clone(),
                    inclusive: *inclusive,
                },
                POINT_SHARE,
            )),
            Offer::BBox(lower, upper) if &**k == key => Some((
                Seek::BBox {
                    lower: lower.clone(),
                    upper: upper.clone(),
                },
                POINT_SHARE,
            )),
            _ => None,
        })
    }
}

/// Splits a predicate into its AND-ed parts.
fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::And(a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        Expr::Chain(first, rest) if rest.iter().all(|(op, _)| *op == ChainOp::And) => {
            conjuncts(first, out);
            for (_, operand) in rest {
                conjuncts(operand, out);
            }
        }
        _ => out.push(e),
    }
}

/// Whether an expression can be computed before the seek: it reads none of `bound_here`
/// and holds no subquery (whose plan may read them).
fn independent(e: &Expr, bound_here: &[usize]) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match x {
        Expr::Slot(s) if bound_here.contains(s) => ok = false,
        Expr::Subquery(..) => ok = false,
        _ => {}
    });
    ok
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// The property key when `e` is `slot.key`.
fn key_of_slot(e: &Expr, slot: usize) -> Option<&Arc<str>> {
    match e {
        Expr::Property(base, key) if matches!(&**base, Expr::Slot(s) if *s == slot) => {
            Some(&key.name)
        }
        _ => None,
    }
}

/// The arguments when `e` calls one of the built-in functions `names` (lower case, as the
/// registry spells them).
fn calls<'e>(e: &'e Expr, names: &[&str]) -> Option<&'e [Expr]> {
    match e {
        Expr::Call(f, args) if names.contains(&f.name) => Some(args),
        _ => None,
    }
}

/// A spatial offer of one conjunct: `point.distance(slot.key, c) < r` or `<= r` (either
/// argument order, also `r > point.distance(..)`), or `point.withinBBox(slot.key, lo, hi)`.
fn spatial_offer(c: &Expr, slot: usize, bound_here: &[usize]) -> Option<(Arc<str>, Offer)> {
    const DISTANCE: &[&str] = &["point.distance", "distance"];
    if let Some(args) = calls(c, &["point.withinbbox"]) {
        let [p, lower, upper] = args else {
            return None;
        };
        let key = key_of_slot(p, slot)?;
        if !independent(lower, bound_here) || !independent(upper, bound_here) {
            return None;
        }
        return Some((key.clone(), Offer::BBox(lower.clone(), upper.clone())));
    }
    let Expr::Binary(op, left, right) = c else {
        return None;
    };
    let (call, radius, inclusive) = match op {
        BinOp::Lt | BinOp::Le => (left, right, *op == BinOp::Le),
        BinOp::Gt | BinOp::Ge => (right, left, *op == BinOp::Ge),
        _ => return None,
    };
    let [a, b] = calls(call, DISTANCE)? else {
        return None;
    };
    if !independent(radius, bound_here) {
        return None;
    }
    let (key, center) = match (key_of_slot(a, slot), key_of_slot(b, slot)) {
        (Some(k), _) if independent(b, bound_here) => (k, b),
        (_, Some(k)) if independent(a, bound_here) => (k, a),
        _ => return None,
    };
    Some((
        key.clone(),
        Offer::Distance(center.clone(), (**radius).clone(), inclusive),
    ))
}

/// The offers a filter's predicate makes about the properties of the entity in `slot`.
fn offers(predicate: &Expr, slot: usize, bound_here: &[usize]) -> Offers {
    let mut parts = Vec::new();
    conjuncts(predicate, &mut parts);
    let mut out = Offers::default();
    for c in parts {
        if let Some(offer) = spatial_offer(c, slot, bound_here) {
            out.by_key.push(offer);
            continue;
        }
        let Expr::Binary(op, left, right) = c else {
            continue;
        };
        for (a, b, op, flipped) in [(left, right, *op, false), (right, left, flip(*op), true)] {
            let Expr::Property(base, key) = &**a else {
                continue;
            };
            if !matches!(&**base, Expr::Slot(s) if *s == slot) || !independent(b, bound_here) {
                continue;
            }
            let b = (**b).clone();
            let offer = match op {
                BinOp::Eq => Offer::Eq(b),
                BinOp::In if !flipped => Offer::In(b),
                BinOp::StartsWith if !flipped => Offer::Prefix(b),
                BinOp::Contains if !flipped => Offer::Contains(b),
                BinOp::EndsWith if !flipped => Offer::EndsWith(b),
                BinOp::Gt | BinOp::Ge => Offer::Lower(b, op == BinOp::Ge),
                BinOp::Lt | BinOp::Le => Offer::Upper(b, op == BinOp::Le),
                _ => continue,
            };
            out.by_key.push((key.name.clone(), offer));
            break;
        }
    }
    out
}

/// A seek an index can serve from a filter's offers, and its selectivity.
struct Chosen {
    info: IndexInfo,
    prefix: Vec<Expr>,
    seek: Seek,
    share: f64,
}

/// The most selective seek among `indexes` (online indexes over the entity's label or type)
/// that the offers serve. A range index (or constraint) serves equality, IN, a prefix or a
/// range; a composite one a seek with an equality on each key but the last, which the offers
/// must also cover (with `composite_only`, single-key range indexes are left to the pattern
/// planner). A text or point index serves what [`Offers::text`] and [`Offers::point`] say.
fn choose(indexes: Vec<IndexInfo>, offers: &Offers, composite_only: bool) -> Option<Chosen> {
    let mut best: Option<Chosen> = None;
    for info in indexes {
        let Some((last, leading)) = info.keys.split_last() else {
            continue;
        };
        let offered = match info.kind {
            IndexKind::Text if leading.is_empty() => offers.text(last).map(|s| (Vec::new(), s)),
            IndexKind::Point if leading.is_empty() => offers.point(last).map(|s| (Vec::new(), s)),
            IndexKind::Text | IndexKind::Point => None,
            _ if composite_only && leading.is_empty() => None,
            _ => leading
                .iter()
                .map(|k| offers.eq(k).cloned())
                .collect::<Option<Vec<_>>>()
                .and_then(|prefix| offers.last(last).map(|s| (prefix, s))),
        };
        let Some((prefix, (seek, share))) = offered else {
            continue;
        };
        // Every equality on a leading key narrows the seek further.
        let share = share * 0.01f64.powi(prefix.len() as i32);
        if best.as_ref().is_none_or(|b| share < b.share) {
            best = Some(Chosen {
                info,
                prefix,
                seek,
                share,
            });
        }
    }
    best
}

impl Planner<'_> {
    /// Applies the index rewrites to a finished query plan.
    pub(super) fn index_rewrites(&mut self, mut root: Arc<PlanNode>) -> Arc<PlanNode> {
        if self.stats.storage().indexes().is_empty() {
            return root;
        }
        self.rewrite(&mut root);
        root
    }

    fn rewrite(&mut self, node: &mut Arc<PlanNode>) {
        if let Some(new) = self.rel_seek(node).or_else(|| self.composite_seek(node)) {
            *node = new;
        }
        // A shared subtree is left as it is.
        let Some(n) = Arc::get_mut(node) else {
            return;
        };
        for child in n.op.children_mut() {
            self.rewrite(child);
        }
    }

    /// The online property indexes (range, text and point, and constraints) over `token`'s
    /// keys.
    fn seek_indexes(&self, relationship: bool, token: &Token) -> Vec<IndexInfo> {
        self.stats
            .storage()
            .indexes()
            .into_iter()
            .filter(|ix| {
                ix.relationship == relationship
                    && *ix.label == *token.name
                    && ix.state == IndexState::Online
            })
            .collect()
    }

    fn type_count(&self, ty: &Token) -> f64 {
        ty.rel_type(self.stats.storage()).map_or(0.0, |t| {
            self.stats.count_rels_of_type(RelTypeId(t.0)).unwrap_or(0) as f64
        })
    }

    fn label_rows(&self, label: &Token) -> f64 {
        label.label(self.stats.storage()).map_or(0.0, |l| {
            self.stats.count_label(LabelId(l.0)).unwrap_or(0) as f64
        })
    }

    /// `Filter(Expand(AllNodes | NodeByLabelScan))` over one relationship type whose
    /// predicate a relationship index can serve → `Filter(RelationshipIndexSeek)`, when the
    /// seek is estimated to read fewer entities than the scan and the expansion.
    fn rel_seek(&mut self, node: &Arc<PlanNode>) -> Option<Arc<PlanNode>> {
        let Op::Filter {
            input: expand,
            predicate,
        } = &node.op
        else {
            return None;
        };
        let Op::Expand { input: start, spec } = &expand.op else {
            return None;
        };
        if spec.into || spec.types.len() != 1 {
            return None;
        }
        let (x, label) = match &start.op {
            Op::AllNodes { input, slot } if *slot == spec.from => (input, None),
            Op::LabelScan { input, slot, label } if *slot == spec.from => {
                (input, Some(label.clone()))
            }
            _ => return None,
        };
        let ty = &spec.types[0];
        let from = spec.from;
        let bound_here = [spec.from, spec.rel, spec.to];
        let offers = offers(predicate, spec.rel, &bound_here);
        if offers.by_key.is_empty() {
            return None;
        }
        let chosen = choose(self.seek_indexes(true, ty), &offers, false)?;
        let rels = self.type_count(ty);
        let seek_rows = (rels * chosen.share).max(1.0);
        let scan_rows = match &label {
            Some(l) => self.label_rows(l) + expand.est_rows,
            None => start.est_rows + expand.est_rows,
        };
        if seek_rows >= scan_rows {
            return None;
        }
        let target = SeekTarget::Rel {
            rel: spec.rel,
            from: spec.from,
            to: spec.to,
            dir: spec.dir,
            exclude: spec.exclude.clone(),
            exclude_lists: spec.exclude_lists.clone(),
        };
        let seek = self.index_seek(x, target, ty, chosen, seek_rows, expand);
        // The start's label, which the scan checked, is now a filter.
        let predicate = match label {
            Some(l) => Expr::And(
                Box::new(Expr::HasLabels(Box::new(Expr::Slot(from)), vec![l])),
                Box::new((**predicate).clone()),
            ),
            None => (**predicate).clone(),
        };
        Some(Self::rewritten(
            Op::Filter {
                input: seek,
                predicate: predicate.into(),
            },
            node.est_rows.min(seek_rows),
            node,
        ))
    }

    /// `Filter(NodeByLabelScan | NodeIndexSeek)` whose predicate a composite node index, a
    /// text index or a point index serves better → `Filter(NodeIndexSeek)` (or the text or
    /// point index's operator) over that index.
    fn composite_seek(&mut self, node: &Arc<PlanNode>) -> Option<Arc<PlanNode>> {
        let Op::Filter {
            input: start,
            predicate,
        } = &node.op
        else {
            return None;
        };
        let (x, slot, label, current_share) = match &start.op {
            Op::LabelScan { input, slot, label } => (input, *slot, label, 1.0),
            Op::IndexSeek {
                input,
                slot,
                label,
                seek,
                ..
            } => {
                let share = match &**seek {
                    Seek::Eq(_) => 0.01,
                    Seek::In(_) => 0.02,
                    Seek::Prefix(_) => 0.1,
                    Seek::Range { .. } => 0.33,
                    Seek::Contains(_) | Seek::EndsWith(_) => TEXT_SUBSTRING_SHARE,
                    Seek::Distance { .. } | Seek::BBox { .. } => POINT_SHARE,
                };
                (input, *slot, label, share)
            }
            _ => return None,
        };
        let offers = offers(predicate, slot, &[slot]);
        if offers.by_key.is_empty() {
            return None;
        }
        let chosen = choose(self.seek_indexes(false, label), &offers, true)?;
        if chosen.share >= current_share {
            return None;
        }
        let rows = (self.label_rows(label) * chosen.share).max(1.0);
        let seek = self.index_seek(x, SeekTarget::Node { slot }, label, chosen, rows, start);
        Some(Self::rewritten(
            Op::Filter {
                input: seek,
                predicate: predicate.clone(),
            },
            node.est_rows.min(rows),
            node,
        ))
    }

    /// The schema index seek `chosen` describes, over `input` for `target` under `token`,
    /// taking the place of `replaced`: the one way a filter's seek becomes an operator.
    fn index_seek(
        &mut self,
        input: &Arc<PlanNode>,
        target: SeekTarget,
        token: &Arc<Token>,
        chosen: Chosen,
        rows: f64,
        replaced: &PlanNode,
    ) -> Arc<PlanNode> {
        let keys = chosen
            .info
            .keys
            .iter()
            .map(|k| self.tokens.key(k))
            .collect();
        let spec = IndexSeekSpec {
            target,
            token: token.clone(),
            keys,
            prefix: chosen.prefix,
            seek: chosen.seek,
            kind: chosen.info.kind,
        };
        Self::rewritten(
            Op::SchemaIndexSeek {
                input: input.clone(),
                spec: spec.into(),
            },
            rows,
            replaced,
        )
    }

    /// A new operator taking the place of `replaced` (its id, so PROFILE figures stay
    /// within the plan's ids, and the variables in scope after it).
    fn rewritten(op: Op, est_rows: f64, replaced: &PlanNode) -> Arc<PlanNode> {
        Arc::new(PlanNode {
            id: replaced.id,
            op,
            est_rows,
            vars: replaced.vars.clone(),
        })
    }
}
