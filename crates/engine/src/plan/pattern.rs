//! Planning graph patterns (MATCH, OPTIONAL MATCH, pattern predicates and comprehensions,
//! MERGE's match half).
//!
//! A pattern becomes a graph of node and relationship elements plus predicates (WHERE
//! conjuncts, labels, property maps). Each connected component starts at its cheapest node —
//! a bound variable, a lookup by id, an index seek, the smallest label, or all nodes — and
//! grows one relationship at a time from bound ends, preferring relationships whose both ends
//! are bound (they only filter). Predicates are applied as soon as every variable they read is
//! bound, and pattern predicates become semi-applies.

use std::collections::HashMap;
use std::sync::Arc;

use quiver_cypher::ast::{self, BinaryOp, ExprKind, PathSelector};
use quiver_cypher::{Detail, Span, Status};
use quiver_storage::{Direction, LabelId, PropKeyId, RelTypeId};

use super::clauses::{Planner, Result};
use super::expr::visit;
use super::scope::{Kind, Scope};
use crate::ir::{
    BinOp, ExpandSpec, Expr, Op, PathPart, PlanNode, Seek, ShortestSpec, SubKind, VarExpandSpec,
};
use crate::tokens::Token;

struct PNode {
    slot: usize,
    name: Option<Arc<str>>,
    bound: bool,
    labels: Vec<Arc<Token>>,
}

struct PRel {
    slot: usize,
    left: usize,
    right: usize,
    dir: ast::Direction,
    types: Vec<Arc<Token>>,
    length: Option<(u32, u32)>,
    /// A predicate on each relationship of a variable-length step (its property map).
    rel_filter: Option<(usize, Expr)>,
    shortest: Option<PathSelector>,
}

struct Pred {
    expr: Expr,
    deps: Vec<usize>,
    /// Evaluate after everything else (it reads the graph through a subquery).
    last: bool,
    done: bool,
}

/// A candidate index seek or id lookup on one node variable.
#[derive(Default)]
struct SeekSet {
    by_id: Option<(Expr, bool)>,
    /// (key, kind, expression)
    eq: Vec<(Arc<Token>, Expr)>,
    within: Vec<(Arc<Token>, Expr)>,
    prefix: Vec<(Arc<Token>, Expr)>,
    lower: Vec<(Arc<Token>, Expr, bool)>,
    upper: Vec<(Arc<Token>, Expr, bool)>,
}

/// Splits a predicate into its AND-ed parts.
pub(super) fn conjuncts<'e>(e: &'e ast::Expr, out: &mut Vec<&'e ast::Expr>) {
    match &e.kind {
        ExprKind::Binary {
            op: BinaryOp::And,
            left,
            right,
        } => {
            conjuncts(left, out);
            conjuncts(right, out);
        }
        ExprKind::Chain { first, rest } if rest.iter().all(|(op, _)| *op == BinaryOp::And) => {
            conjuncts(first, out);
            for (_, operand) in rest {
                conjuncts(operand, out);
            }
        }
        _ => out.push(e),
    }
}

/// Whether an expression reads only variables of `scope` (and parameters), with no graph
/// patterns: such an expression can drive a seek.
fn independent(e: &ast::Expr, scope: &Scope) -> bool {
    let mut ok = true;
    visit(e, &mut |x| match &x.kind {
        ExprKind::Variable(v) if !scope.contains(&v.name) => ok = false,
        ExprKind::Pattern(_)
        | ExprKind::Subquery(_)
        | ExprKind::PatternComprehension(_)
        | ExprKind::ListComprehension(_)
        | ExprKind::Quantified(_)
        | ExprKind::Reduce(_)
        | ExprKind::CountStar => ok = false,
        ExprKind::FunctionCall(c) if c.name.qualified().eq_ignore_ascii_case("rand") => ok = false,
        _ => {}
    });
    ok
}

/// `var.key` → (var, key).
fn property_of(e: &ast::Expr) -> Option<(&str, &str)> {
    if let ExprKind::Property { base, key } = &e.kind
        && let ExprKind::Variable(v) = &base.kind
    {
        return Some((&v.name, &key.name));
    }
    None
}

/// `id(var)` → var.
fn id_of(e: &ast::Expr) -> Option<&str> {
    if let ExprKind::FunctionCall(c) = &e.kind
        && c.name.namespace.is_empty()
        && c.name.name.name.eq_ignore_ascii_case("id")
        && c.args.len() == 1
        && !c.distinct
        && let Some(ExprKind::Variable(v)) = c.args.first().map(|a| &a.kind)
    {
        return Some(&v.name);
    }
    None
}

fn flip(op: BinaryOp) -> BinaryOp {
    match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        other => other,
    }
}

fn has_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(x, Expr::Subquery(..)) {
            found = true;
        }
    });
    found
}

impl Planner<'_> {
    pub fn once(&mut self, scope: &Scope) -> Arc<PlanNode> {
        self.node(Op::Once, 1.0, scope)
    }

    /// MATCH or OPTIONAL MATCH on top of `input`; binds the pattern's variables in `scope`.
    pub fn plan_match(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        m: &ast::Match,
    ) -> Result<Arc<PlanNode>> {
        if !m.optional {
            return self.pattern(input, scope, &m.pattern, m.filter.as_ref(), None);
        }
        let before = scope.clone();
        let once = self.once(&before);
        let inner = self.pattern(once, scope, &m.pattern, m.filter.as_ref(), None)?;
        let before_slots = before.slots();
        let null_slots: Vec<usize> = scope
            .slots()
            .into_iter()
            .filter(|s| !before_slots.contains(s))
            .collect();
        let est = input.est_rows.max(inner.est_rows);
        Ok(self.node(
            Op::Optional {
                input,
                inner,
                null_slots: null_slots.into(),
            },
            est,
            scope,
        ))
    }

    /// A pattern (with an optional filter) as a plan of its own, run once per outer row: for
    /// pattern predicates, pattern comprehensions and EXISTS/COUNT subqueries.
    pub fn pattern_subquery(
        &mut self,
        parts: &[ast::PatternPart],
        filter: Option<&ast::Expr>,
        scope: &Scope,
    ) -> Result<(Arc<PlanNode>, Scope)> {
        let mut inner = scope.clone();
        let once = self.once(scope);
        let plan = self.pattern(once, &mut inner, parts, filter, None)?;
        Ok((plan, inner))
    }

    /// A pattern used as a predicate may not introduce named variables.
    pub fn check_pattern_predicate(&self, part: &ast::PatternPart, scope: &Scope) -> Result<()> {
        let mut names: Vec<(&str, Span)> = Vec::new();
        for n in part.chain.nodes() {
            if let Some(v) = &n.variable {
                names.push((&v.name, v.span));
            }
        }
        for r in part.chain.relationships() {
            if let Some(v) = &r.variable {
                names.push((&v.name, v.span));
            }
        }
        for (name, span) in names {
            if !scope.contains(name) {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::UndefinedVariable,
                    format!(
                        "PatternExpressions are not allowed to introduce new variables: '{name}'."
                    ),
                    span,
                ));
            }
        }
        Ok(())
    }

    fn bind_path_var(
        &mut self,
        part: &ast::PatternPart,
        scope: &mut Scope,
        outer: &Scope,
    ) -> Result<Option<usize>> {
        let Some(p) = &part.path else {
            return Ok(None);
        };
        if let Some(v) = outer.get(&p.name) {
            let detail = if matches!(v.kind, Kind::Path | Kind::Any) {
                Detail::VariableAlreadyBound
            } else {
                Detail::VariableTypeConflict
            };
            return Err(self.err(
                Status::SyntaxError,
                detail,
                format!("Variable `{}` already declared", p.name),
                p.span,
            ));
        }
        if scope.contains(&p.name) {
            return Err(self.err(
                Status::SyntaxError,
                Detail::VariableAlreadyBound,
                format!("Variable `{}` already declared", p.name),
                p.span,
            ));
        }
        let slot = self.slot();
        scope.bind(&p.name, slot, Kind::Path);
        Ok(Some(slot))
    }

    /// Plans `parts` on top of `input`, binding their variables in `scope`. `preset` gives the
    /// slots of every element (MERGE needs them to create what it does not find).
    #[allow(clippy::too_many_lines)]
    pub fn pattern(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        parts: &[ast::PatternPart],
        filter: Option<&ast::Expr>,
        preset: Option<&[super::writes::PartSlots]>,
    ) -> Result<Arc<PlanNode>> {
        let outer = scope.clone();
        let mut nodes: Vec<PNode> = Vec::new();
        let mut rels: Vec<PRel> = Vec::new();
        let mut preds: Vec<Pred> = Vec::new();
        let mut node_index: HashMap<String, usize> = HashMap::new();
        let mut rel_names: Vec<String> = Vec::new();
        // (path slot, parts) for named paths.
        let mut paths: Vec<(usize, Vec<PathPart>)> = Vec::new();
        // Property maps to compile once every variable is in scope: (element slot, map).
        let mut prop_maps: Vec<(usize, &ast::Expr, bool)> = Vec::new();

        for (pi, part) in parts.iter().enumerate() {
            let preset_part = preset.and_then(|p| p.get(pi));
            let path_slot = self.bind_path_var(part, scope, &outer)?;
            let mut path_parts = Vec::new();
            let mut prev: Option<usize> = None;
            let chain = &part.chain;
            let node_patterns: Vec<&ast::NodePattern> = chain.nodes().collect();
            for (ni, np) in node_patterns.iter().enumerate() {
                let idx = self.pattern_node(
                    np,
                    scope,
                    &outer,
                    &mut nodes,
                    &mut node_index,
                    &rel_names,
                    preset_part.and_then(|p| p.nodes.get(ni).copied()),
                )?;
                if let Some(props) = &np.properties {
                    prop_maps.push((nodes[idx].slot, props, false));
                }
                if let Some(pred) = &np.predicate {
                    let compiled = self.expr(pred, scope)?;
                    let mut deps = Vec::new();
                    compiled.slots(&mut deps);
                    preds.push(Pred {
                        last: has_subquery(&compiled),
                        expr: compiled,
                        deps,
                        done: false,
                    });
                }
                if let Some(left) = prev {
                    let step = &chain.steps[ni - 1];
                    let rp = &step.relationship;
                    let slot = self.pattern_rel(
                        rp,
                        scope,
                        &outer,
                        &node_index,
                        &mut rel_names,
                        &mut preds,
                        preset_part.and_then(|p| p.rels.get(ni - 1).copied()),
                    )?;
                    let length = rp.length.map(|l| {
                        let min = l.min.map_or(1, |m| u32::try_from(m).unwrap_or(u32::MAX));
                        let max = l
                            .max
                            .map_or(u32::MAX, |m| u32::try_from(m).unwrap_or(u32::MAX));
                        (min, max)
                    });
                    let shortest = (part.selector != PathSelector::All).then_some(part.selector);
                    if shortest.is_some() && length.is_none() {
                        return Err(self.err(
                            Status::SyntaxError,
                            Detail::UnexpectedSyntax,
                            "shortestPath(...) requires a variable-length relationship",
                            rp.span,
                        ));
                    }
                    let types = rp
                        .types
                        .iter()
                        .map(|t| self.tokens.rel_type(&t.name))
                        .collect();
                    let mut rel_filter = None;
                    if let Some(props) = &rp.properties {
                        if length.is_some() {
                            let scratch = self.slot();
                            let m = self.expr(props, scope)?;
                            rel_filter = Some((
                                scratch,
                                Expr::PropsMatch(Box::new(Expr::Slot(scratch)), Box::new(m)),
                            ));
                        } else {
                            prop_maps.push((slot, props, true));
                        }
                    }
                    if let Some(pred) = &rp.predicate {
                        let compiled = self.expr(pred, scope)?;
                        let mut deps = Vec::new();
                        compiled.slots(&mut deps);
                        preds.push(Pred {
                            last: has_subquery(&compiled),
                            expr: compiled,
                            deps,
                            done: false,
                        });
                    }
                    path_parts.push(if length.is_some() {
                        PathPart::RelList(slot)
                    } else {
                        PathPart::Rel(slot)
                    });
                    rels.push(PRel {
                        slot,
                        left,
                        right: idx,
                        dir: rp.direction,
                        types,
                        length,
                        rel_filter,
                        shortest,
                    });
                }
                path_parts.push(PathPart::Node(nodes[idx].slot));
                prev = Some(idx);
            }
            if let Some(ps) = path_slot {
                paths.push((ps, path_parts));
            }
        }

        // Property maps and labels become predicates.
        for (slot, props, _) in &prop_maps {
            match &props.kind {
                ExprKind::Map(entries) => {
                    for entry in entries {
                        let value = self.expr(&entry.value, scope)?;
                        let key = self.tokens.key(&entry.key.name);
                        let mut deps = vec![*slot];
                        value.slots(&mut deps);
                        preds.push(Pred {
                            last: has_subquery(&value),
                            expr: Expr::Binary(
                                BinOp::Eq,
                                Box::new(Expr::Property(Box::new(Expr::Slot(*slot)), key)),
                                Box::new(value),
                            ),
                            deps,
                            done: false,
                        });
                    }
                }
                _ => {
                    let m = self.expr(props, scope)?;
                    let mut deps = vec![*slot];
                    m.slots(&mut deps);
                    preds.push(Pred {
                        last: false,
                        expr: Expr::PropsMatch(Box::new(Expr::Slot(*slot)), Box::new(m)),
                        deps,
                        done: false,
                    });
                }
            }
        }
        // One predicate per label, so that a label scan can retire the one it implies.
        let mut label_preds: Vec<(usize, Arc<Token>, usize)> = Vec::new();
        for (ni, n) in nodes.iter().enumerate() {
            for l in &n.labels {
                label_preds.push((ni, l.clone(), preds.len()));
                preds.push(Pred {
                    expr: Expr::HasLabels(Box::new(Expr::Slot(n.slot)), vec![l.clone()]),
                    deps: vec![n.slot],
                    last: false,
                    done: false,
                });
            }
        }

        // WHERE: conjuncts, and candidate seeks on the pattern's new nodes.
        let mut seeks: HashMap<String, SeekSet> = HashMap::new();
        if let Some(f) = filter {
            let mut parts = Vec::new();
            conjuncts(f, &mut parts);
            for c in parts {
                self.seek_candidates(c, &outer, &node_index, &nodes, &mut seeks)?;
                let compiled = self.expr(c, scope)?;
                let mut deps = Vec::new();
                compiled.slots(&mut deps);
                preds.push(Pred {
                    last: has_subquery(&compiled),
                    expr: compiled,
                    deps,
                    done: false,
                });
            }
        }
        // Property-map equalities also drive seeks.
        for (slot, props, is_rel) in &prop_maps {
            if *is_rel {
                continue;
            }
            let Some(ni) = nodes.iter().position(|n| n.slot == *slot) else {
                continue;
            };
            let Some(name) = nodes[ni].name.clone() else {
                continue;
            };
            if let ExprKind::Map(entries) = &props.kind {
                for entry in entries {
                    if independent(&entry.value, &outer) {
                        let value = self.expr(&entry.value, &outer)?;
                        let key = self.tokens.key(&entry.key.name);
                        seeks
                            .entry(name.to_string())
                            .or_default()
                            .eq
                            .push((key, value));
                    }
                }
            }
        }
        // Anonymous nodes with property maps: seeks keyed by slot.
        let mut anon_seeks: HashMap<usize, SeekSet> = HashMap::new();
        for (slot, props, is_rel) in &prop_maps {
            if *is_rel || nodes.iter().any(|n| n.slot == *slot && n.name.is_some()) {
                continue;
            }
            if let ExprKind::Map(entries) = &props.kind {
                for entry in entries {
                    if independent(&entry.value, &outer) {
                        let value = self.expr(&entry.value, &outer)?;
                        let key = self.tokens.key(&entry.key.name);
                        anon_seeks.entry(*slot).or_default().eq.push((key, value));
                    }
                }
            }
        }

        // Build.
        let mut bound_slots: Vec<usize> = outer.slots();
        let mut node_bound: Vec<bool> = nodes.iter().map(|n| n.bound).collect();
        let mut rel_done = vec![false; rels.len()];
        let mut plan = input;
        let mut est = plan.est_rows.max(1.0);
        let mut singles: Vec<usize> = Vec::new();
        let mut lists: Vec<usize> = Vec::new();
        let names = scope.clone();
        plan = self.place_preds(plan, &mut preds, &bound_slots, false, &names);

        // Components by union-find over non-shortest relationships.
        let mut comp: Vec<usize> = (0..nodes.len()).collect();
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
        for r in rels.iter().filter(|r| r.shortest.is_none()) {
            let (a, b) = (find(&mut comp, r.left), find(&mut comp, r.right));
            if a != b {
                comp[a] = b;
            }
        }
        let mut roots: Vec<usize> = Vec::new();
        for i in 0..nodes.len() {
            let r = find(&mut comp, i);
            if !roots.contains(&r) {
                roots.push(r);
            }
        }
        // Components with a bound node first: they extend the input without a product.
        roots.sort_by_key(|r| {
            let members: Vec<usize> = (0..nodes.len())
                .filter(|i| find(&mut comp.clone(), *i) == *r)
                .collect();
            usize::from(!members.iter().any(|m| node_bound[*m]))
        });

        for root in roots {
            let members: Vec<usize> = (0..nodes.len())
                .filter(|i| find(&mut comp, *i) == root)
                .collect();
            if !members.iter().any(|m| node_bound[*m]) {
                // Choose the cheapest start.
                let mut best: Option<(f64, usize, StartKind)> = None;
                for &m in &members {
                    let (cost, kind) = self.start_cost(&nodes[m], &seeks, &anon_seeks);
                    if best.as_ref().is_none_or(|(c, _, _)| cost < *c) {
                        best = Some((cost, m, kind));
                    }
                }
                let Some((cost, m, kind)) = best else {
                    continue;
                };
                let slot = nodes[m].slot;
                let op = match kind {
                    StartKind::ById(ids, many) => Op::NodeById {
                        input: plan,
                        slot,
                        ids: ids.into(),
                        many,
                    },
                    StartKind::Seek(label, key, seek) => Op::IndexSeek {
                        input: plan,
                        slot,
                        label,
                        key,
                        seek: seek.into(),
                    },
                    StartKind::Label(label) => {
                        for (ni, l, pi) in &label_preds {
                            if *ni == m && Arc::ptr_eq(l, &label) {
                                preds[*pi].done = true;
                            }
                        }
                        Op::LabelScan {
                            input: plan,
                            slot,
                            label,
                        }
                    }
                    StartKind::All => Op::AllNodes { input: plan, slot },
                };
                est *= cost.max(1.0);
                node_bound[m] = true;
                bound_slots.push(slot);
                plan = self.node(op, est, &names);
                plan = self.place_preds(plan, &mut preds, &bound_slots, false, &names);
            }
            loop {
                let mut pick: Option<(usize, u8)> = None;
                for (ri, r) in rels.iter().enumerate() {
                    if rel_done[ri]
                        || r.shortest.is_some()
                        || !(members.contains(&r.left) || members.contains(&r.right))
                    {
                        continue;
                    }
                    let (lb, rb) = (node_bound[r.left], node_bound[r.right]);
                    if !lb && !rb {
                        continue;
                    }
                    let rank = if lb && rb {
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
                let Some((ri, _)) = pick else {
                    break;
                };
                rel_done[ri] = true;
                let r = &rels[ri];
                let from_left = node_bound[r.left];
                let (from, to) = if from_left {
                    (r.left, r.right)
                } else {
                    (r.right, r.left)
                };
                let into = node_bound[to];
                let dir = match (r.dir, from_left) {
                    (ast::Direction::Both, _) => Direction::Both,
                    (ast::Direction::Outgoing, true) | (ast::Direction::Incoming, false) => {
                        Direction::Out
                    }
                    _ => Direction::In,
                };
                let degree = self.degree_estimate(&r.types);
                let op = match r.length {
                    None => {
                        let spec = ExpandSpec {
                            from: nodes[from].slot,
                            rel: r.slot,
                            to: nodes[to].slot,
                            dir,
                            types: r.types.clone(),
                            into,
                            exclude: singles.clone(),
                            exclude_lists: lists.clone(),
                        };
                        singles.push(r.slot);
                        est *= if into { 0.1 } else { degree };
                        Op::Expand {
                            input: plan,
                            spec: spec.into(),
                        }
                    }
                    Some((min, max)) => {
                        let spec = VarExpandSpec {
                            from: nodes[from].slot,
                            rels: r.slot,
                            to: nodes[to].slot,
                            dir,
                            types: r.types.clone(),
                            min,
                            max,
                            into,
                            reversed: !from_left,
                            exclude: singles.clone(),
                            exclude_lists: lists.clone(),
                            rel_filter: r.rel_filter.as_ref().map(|(s, e)| (*s, e.clone())),
                        };
                        lists.push(r.slot);
                        est *= degree.powi(2).max(1.0);
                        Op::VarExpand {
                            input: plan,
                            spec: spec.into(),
                        }
                    }
                };
                node_bound[to] = true;
                bound_slots.push(nodes[to].slot);
                bound_slots.push(r.slot);
                plan = self.node(op, est, &names);
                plan = self.place_preds(plan, &mut preds, &bound_slots, false, &names);
            }
        }

        // Shortest paths, between nodes bound by now.
        for (ri, r) in rels.iter().enumerate() {
            let Some(selector) = r.shortest else {
                continue;
            };
            rel_done[ri] = true;
            let Some((min, max)) = r.length else {
                continue;
            };
            let dir = match r.dir {
                ast::Direction::Both => Direction::Both,
                ast::Direction::Outgoing => Direction::Out,
                ast::Direction::Incoming => Direction::In,
            };
            let spec = ShortestSpec {
                from: nodes[r.left].slot,
                to: nodes[r.right].slot,
                rels: r.slot,
                dir,
                types: r.types.clone(),
                min,
                max,
                all: selector == PathSelector::AllShortest,
                rel_filter: r.rel_filter.as_ref().map(|(s, e)| (*s, e.clone())),
            };
            bound_slots.push(r.slot);
            plan = self.node(
                Op::ShortestPath {
                    input: plan,
                    spec: spec.into(),
                },
                est,
                &names,
            );
            plan = self.place_preds(plan, &mut preds, &bound_slots, false, &names);
        }

        if !paths.is_empty() {
            let items: Vec<(usize, Expr)> = paths
                .into_iter()
                .map(|(slot, parts)| {
                    bound_slots.push(slot);
                    (slot, Expr::Path(parts))
                })
                .collect();
            plan = self.node(
                Op::Project {
                    input: plan,
                    items: items.into(),
                },
                est,
                &names,
            );
        }
        plan = self.place_preds(plan, &mut preds, &bound_slots, false, &names);
        plan = self.place_preds(plan, &mut preds, &bound_slots, true, &names);
        Ok(plan)
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

    #[allow(clippy::too_many_arguments)]
    fn pattern_node(
        &mut self,
        np: &ast::NodePattern,
        scope: &mut Scope,
        outer: &Scope,
        nodes: &mut Vec<PNode>,
        node_index: &mut HashMap<String, usize>,
        rel_names: &[String],
        preset: Option<usize>,
    ) -> Result<usize> {
        let labels: Vec<Arc<Token>> = np
            .labels
            .iter()
            .map(|l| self.tokens.label(&l.name))
            .collect();
        let Some(var) = &np.variable else {
            let slot = preset.unwrap_or_else(|| self.slot());
            nodes.push(PNode {
                slot,
                name: None,
                bound: false,
                labels,
            });
            return Ok(nodes.len() - 1);
        };
        if let Some(&idx) = node_index.get(&var.name) {
            for l in labels {
                if !nodes[idx].labels.iter().any(|x| Arc::ptr_eq(x, &l)) {
                    nodes[idx].labels.push(l);
                }
            }
            return Ok(idx);
        }
        if rel_names.contains(&var.name) {
            return Err(self.type_conflict(&var.name, var.span));
        }
        if let Some(v) = outer.get(&var.name) {
            if !matches!(v.kind, Kind::Node | Kind::Any) {
                return Err(self.type_conflict(&var.name, var.span));
            }
            nodes.push(PNode {
                slot: v.slot,
                name: Some(v.name.clone()),
                bound: true,
                labels,
            });
        } else {
            if let Some(v) = scope.get(&var.name) {
                // A path variable of this same pattern.
                let _ = v;
                return Err(self.type_conflict(&var.name, var.span));
            }
            let slot = preset.unwrap_or_else(|| self.slot());
            scope.bind(&var.name, slot, Kind::Node);
            nodes.push(PNode {
                slot,
                name: Some(Arc::from(var.name.as_str())),
                bound: false,
                labels,
            });
        }
        node_index.insert(var.name.clone(), nodes.len() - 1);
        Ok(nodes.len() - 1)
    }

    #[allow(clippy::too_many_arguments)]
    fn pattern_rel(
        &mut self,
        rp: &ast::RelationshipPattern,
        scope: &mut Scope,
        outer: &Scope,
        node_index: &HashMap<String, usize>,
        rel_names: &mut Vec<String>,
        preds: &mut Vec<Pred>,
        preset: Option<usize>,
    ) -> Result<usize> {
        let kind = if rp.length.is_some() {
            Kind::RelList
        } else {
            Kind::Rel
        };
        let Some(var) = &rp.variable else {
            return Ok(preset.unwrap_or_else(|| self.slot()));
        };
        if rel_names.contains(&var.name) {
            return Err(self.err(
                Status::SyntaxError,
                Detail::RelationshipUniquenessViolation,
                format!(
                    "Cannot use the same relationship variable '{}' for multiple relationships",
                    var.name
                ),
                var.span,
            ));
        }
        if node_index.contains_key(&var.name) {
            return Err(self.type_conflict(&var.name, var.span));
        }
        rel_names.push(var.name.clone());
        let slot = preset.unwrap_or_else(|| self.slot());
        if let Some(v) = outer.get(&var.name) {
            if !(v.kind == kind || v.kind == Kind::Any) {
                return Err(self.type_conflict(&var.name, var.span));
            }
            // Bound before: match a fresh copy and require it to be the same relationship.
            preds.push(Pred {
                expr: Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Slot(slot)),
                    Box::new(Expr::Slot(v.slot)),
                ),
                deps: vec![slot, v.slot],
                last: false,
                done: false,
            });
            return Ok(slot);
        }
        if scope.contains(&var.name) {
            return Err(self.type_conflict(&var.name, var.span));
        }
        scope.bind(&var.name, slot, kind);
        Ok(slot)
    }

    fn type_conflict(&self, name: &str, span: Span) -> quiver_cypher::Error {
        self.err(
            Status::SyntaxError,
            Detail::VariableTypeConflict,
            format!("Type mismatch: variable `{name}` is already bound to another kind of value"),
            span,
        )
    }

    /// Records seeks and id lookups a WHERE conjunct offers for new pattern nodes.
    fn seek_candidates(
        &mut self,
        c: &ast::Expr,
        outer: &Scope,
        node_index: &HashMap<String, usize>,
        nodes: &[PNode],
        seeks: &mut HashMap<String, SeekSet>,
    ) -> Result<()> {
        let ExprKind::Binary { op, left, right } = &c.kind else {
            return Ok(());
        };
        let new_node = |name: &str| node_index.get(name).is_some_and(|i| !nodes[*i].bound);
        // id(n) = x, id(n) IN list
        for (a, b, op) in [(left, right, *op), (right, left, flip(*op))] {
            if let Some(var) = id_of(a)
                && new_node(var)
                && independent(b, outer)
            {
                match op {
                    BinaryOp::Eq => {
                        let e = self.expr(b, outer)?;
                        seeks.entry(var.to_owned()).or_default().by_id = Some((e, false));
                        return Ok(());
                    }
                    BinaryOp::In if std::ptr::eq(a, left) => {
                        let e = self.expr(b, outer)?;
                        seeks.entry(var.to_owned()).or_default().by_id = Some((e, true));
                        return Ok(());
                    }
                    _ => {}
                }
            }
        }
        for (a, b, op, flipped) in [(left, right, *op, false), (right, left, flip(*op), true)] {
            let Some((var, key)) = property_of(a) else {
                continue;
            };
            if !new_node(var) || !independent(b, outer) {
                continue;
            }
            let token = self.tokens.key(key);
            match op {
                BinaryOp::Eq => {
                    let e = self.expr(b, outer)?;
                    seeks.entry(var.to_owned()).or_default().eq.push((token, e));
                }
                BinaryOp::In if !flipped => {
                    let e = self.expr(b, outer)?;
                    seeks
                        .entry(var.to_owned())
                        .or_default()
                        .within
                        .push((token, e));
                }
                BinaryOp::StartsWith if !flipped => {
                    let e = self.expr(b, outer)?;
                    seeks
                        .entry(var.to_owned())
                        .or_default()
                        .prefix
                        .push((token, e));
                }
                BinaryOp::Gt | BinaryOp::Ge => {
                    let e = self.expr(b, outer)?;
                    seeks.entry(var.to_owned()).or_default().lower.push((
                        token,
                        e,
                        op == BinaryOp::Ge,
                    ));
                }
                BinaryOp::Lt | BinaryOp::Le => {
                    let e = self.expr(b, outer)?;
                    seeks.entry(var.to_owned()).or_default().upper.push((
                        token,
                        e,
                        op == BinaryOp::Le,
                    ));
                }
                _ => {}
            }
            return Ok(());
        }
        Ok(())
    }

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
    fn degree_estimate(&self, types: &[Arc<Token>]) -> f64 {
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

    fn start_cost(
        &mut self,
        n: &PNode,
        seeks: &HashMap<String, SeekSet>,
        anon: &HashMap<usize, SeekSet>,
    ) -> (f64, StartKind) {
        let set = match &n.name {
            Some(name) => seeks.get(&**name),
            None => anon.get(&n.slot),
        };
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
                for (key, e) in &set.eq {
                    if self.has_index(l, key) {
                        consider(
                            (count / 100.0).clamp(1.0, 10.0),
                            StartKind::Seek(l.clone(), key.clone(), Seek::Eq(e.clone())),
                            &mut best,
                        );
                    }
                }
                for (key, e) in &set.within {
                    if self.has_index(l, key) {
                        consider(
                            (count / 50.0).clamp(1.0, 20.0),
                            StartKind::Seek(l.clone(), key.clone(), Seek::In(e.clone())),
                            &mut best,
                        );
                    }
                }
                for (key, e) in &set.prefix {
                    if self.has_index(l, key) {
                        consider(
                            count / 10.0,
                            StartKind::Seek(l.clone(), key.clone(), Seek::Prefix(e.clone())),
                            &mut best,
                        );
                    }
                }
                for (key, e, inclusive) in &set.lower {
                    if self.has_index(l, key) {
                        let upper = set
                            .upper
                            .iter()
                            .find(|(k, _, _)| Arc::ptr_eq(k, key))
                            .map(|(_, e, i)| (e.clone(), *i));
                        consider(
                            count / 3.0,
                            StartKind::Seek(
                                l.clone(),
                                key.clone(),
                                Seek::Range {
                                    lower: Some((e.clone(), *inclusive)),
                                    upper,
                                },
                            ),
                            &mut best,
                        );
                    }
                }
                for (key, e, inclusive) in &set.upper {
                    if self.has_index(l, key)
                        && !set.lower.iter().any(|(k, _, _)| Arc::ptr_eq(k, key))
                    {
                        consider(
                            count / 3.0,
                            StartKind::Seek(
                                l.clone(),
                                key.clone(),
                                Seek::Range {
                                    lower: None,
                                    upper: Some((e.clone(), *inclusive)),
                                },
                            ),
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

enum StartKind {
    ById(Expr, bool),
    Seek(Arc<Token>, Arc<Token>, Seek),
    Label(Arc<Token>),
    All,
}
