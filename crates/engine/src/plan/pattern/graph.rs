//! The query graph of a pattern, built once: node and relationship elements, the predicates
//! on them (inline `WHERE`s, property maps, labels, re-bound relationships) and named paths.
//!
//! Variables were checked by the semantic analysis (conflicting kinds, a relationship
//! variable used twice, re-declared paths), so building only binds: a name the outer scope
//! holds is a bound element, any other name is new.

use std::collections::HashMap;
use std::sync::Arc;

use quiver_cypher::ast::{self, ExprKind, PathSelector};
use quiver_cypher::{Detail, Status};
use quiver_value::Value;

use super::super::clauses::{Planner, Result};
use super::super::scope::Scope;
use super::super::writes::PartSlots;
use crate::ir::{BinOp, Expr, GraphFn, PathPart, PathStep, PathVar, Selection};
use crate::tokens::Token;

pub(super) struct PNode {
    pub slot: usize,
    pub name: Option<Arc<str>>,
    pub bound: bool,
    pub labels: Vec<Arc<Token>>,
}

pub(super) struct PRel {
    pub slot: usize,
    pub left: usize,
    pub right: usize,
    pub dir: ast::Direction,
    pub types: Vec<Arc<Token>>,
    pub length: Option<(u32, u32)>,
    /// A predicate on each relationship of a variable-length step (its property map).
    pub rel_filter: Option<(usize, Expr)>,
    pub shortest: Option<PathSelector>,
    /// A quantified group, or a whole path under a selector or path mode, searched by a
    /// path program; `slot` then receives every relationship of the stretch.
    pub search: Option<SearchPlan>,
}

impl PRel {
    /// The stretch between nodes `left` and `right` that the path program `search` finds,
    /// its relationships into `slot`.
    fn searched(slot: usize, (left, right): (usize, usize), search: SearchPlan) -> PRel {
        PRel {
            slot,
            left,
            right,
            dir: ast::Direction::Both,
            types: Vec::new(),
            length: None,
            rel_filter: None,
            shortest: None,
            search: Some(search),
        }
    }
}

/// One element of a path program before it is laid out (in either direction).
pub(super) enum Item {
    Node {
        var: usize,
        checks: Vec<Expr>,
    },
    Hop {
        var: usize,
        dir: ast::Direction,
        types: Vec<Arc<Token>>,
        checks: Vec<Expr>,
    },
    Group {
        min: u32,
        max: u32,
        body: Vec<Item>,
        checks: Vec<Expr>,
    },
}

/// A named path: its slot and its elements.
pub(super) type NamedPath = (usize, Vec<PathPart>);

/// A stretch of pattern the path search matches.
pub(super) struct SearchPlan {
    pub items: Vec<Item>,
    pub vars: Vec<PathVar>,
    pub selection: Selection,
    pub acyclic: bool,
    /// The WHERE of a parenthesised path pattern: each whole path passes it before the
    /// selector counts it, with the named path (its slot and elements) built first.
    pub filter: Option<(Expr, Option<NamedPath>)>,
    /// The same search as a visited-set breadth-first search, where that is exact.
    pub fast: Option<FastShortest>,
}

/// `SHORTEST 1`, `ANY` or `ALL SHORTEST` over one quantified relationship with a minimum of
/// 0 or 1 whose tests read only the relationship and what was bound before the pattern: the
/// search `shortestPath` uses (`exec/shortest.rs`) finds exactly the paths the selector
/// keeps, without the product of graph and program.
pub(super) struct FastShortest {
    pub dir: ast::Direction,
    pub types: Vec<Arc<Token>>,
    pub min: u32,
    pub max: u32,
    pub all: bool,
    /// The tests of each relationship, reading it from the slot.
    pub rel_filter: Option<(usize, Expr)>,
}

impl SearchPlan {
    /// The program, from the left end or (`reversed`) from the right one, with each
    /// variable told whether the search must remember it.
    pub fn program(&self, reversed: bool) -> (Vec<PathStep>, Vec<PathVar>) {
        let scratch: Vec<usize> = self.vars.iter().map(|v| v.scratch).collect();
        let mut steps = Vec::new();
        let mut read = vec![false; self.vars.len()];
        lay_out(&self.items, reversed, &scratch, &mut read, &mut steps);
        let vars = self
            .vars
            .iter()
            .zip(read)
            .map(|(v, read)| PathVar {
                scratch: v.scratch,
                out: v.out,
                group: v.group,
                rel: v.rel,
                keep: v.out.is_some() || read,
            })
            .collect();
        (steps, vars)
    }
}

fn check_reads(checks: &[Expr], own: Option<usize>, scratch: &[usize], read: &mut [bool]) -> bool {
    let mut slots = Vec::new();
    for c in checks {
        c.slots(&mut slots);
    }
    let mut restore = false;
    for (i, s) in scratch.iter().enumerate() {
        if Some(i) != own && slots.contains(s) {
            read[i] = true;
            restore = true;
        }
    }
    restore
}

fn lay_out(
    items: &[Item],
    reversed: bool,
    scratch: &[usize],
    read: &mut [bool],
    out: &mut Vec<PathStep>,
) {
    let order: Box<dyn Iterator<Item = &Item>> = if reversed {
        Box::new(items.iter().rev())
    } else {
        Box::new(items.iter())
    };
    for item in order {
        match item {
            Item::Node { var, checks } => out.push(PathStep::Node {
                var: *var,
                checks: checks.clone(),
                restore: check_reads(checks, Some(*var), scratch, read),
            }),
            Item::Hop {
                var,
                dir,
                types,
                checks,
            } => {
                let dir = match (dir, reversed) {
                    (ast::Direction::Both, _) => quiver_storage::Direction::Both,
                    (ast::Direction::Outgoing, false) | (ast::Direction::Incoming, true) => {
                        quiver_storage::Direction::Out
                    }
                    _ => quiver_storage::Direction::In,
                };
                out.push(PathStep::Hop {
                    var: *var,
                    dir,
                    types: types.clone(),
                    checks: checks.clone(),
                    restore: check_reads(checks, Some(*var), scratch, read),
                });
            }
            Item::Group {
                min,
                max,
                body,
                checks,
            } => {
                let enter = out.len();
                out.push(PathStep::Enter { min: *min, exit: 0 });
                lay_out(body, reversed, scratch, read, out);
                check_reads(checks, None, scratch, read);
                out.push(PathStep::Leave {
                    min: *min,
                    max: *max,
                    body: enter + 1,
                    checks: checks.clone(),
                });
                let exit = out.len();
                out[enter] = PathStep::Enter { min: *min, exit };
            }
        }
    }
}

/// The WHERE of a part written as a parenthesised path pattern, unless there is none (the
/// parser reads `((a)-->(b))` as `((a)-->(b) WHERE true)`).
fn part_filter(part: &ast::PatternPart) -> Option<&ast::Expr> {
    part.predicate
        .as_ref()
        .filter(|p| !matches!(p.kind, ExprKind::Literal(ast::Literal::Boolean(true))))
}

/// The relationship of a group that is one relationship between two nodes with nothing to
/// test (no labels, properties or WHERE on them, different names, and no WHERE of the group),
/// whose own tests read no node of the group: such a group is a quantified relationship.
fn one_free_relationship(group: &ast::QuantifiedGroup) -> Option<&ast::RelationshipPattern> {
    let chain = &group.chain;
    let [step] = chain.steps.as_slice() else {
        return None;
    };
    let rp = &step.relationship;
    let free = |np: &ast::NodePattern| {
        np.labels.is_empty()
            && np.label_expr.is_none()
            && np.dynamic_labels.is_empty()
            && np.dynamic_any.is_empty()
            && np.properties.is_none()
            && np.predicate.is_none()
    };
    let named = chain.start.variable.is_some() || step.node.variable.is_some();
    let same_name = matches!(
        (&chain.start.variable, &step.node.variable),
        (Some(x), Some(y)) if x.name == y.name
    );
    let tests_read_nodes = named
        && (rp.predicate.is_some()
            || rp.properties.is_some()
            || !rp.dynamic_types.is_empty()
            || !rp.dynamic_any.is_empty());
    (group.predicate.is_none()
        && step.group.is_none()
        && rp.quantifier.is_none()
        && rp.length.is_none()
        && free(&chain.start)
        && free(&step.node)
        && !same_name
        && !tests_read_nodes)
        .then_some(rp)
}

/// The fast form of a searched part, when it has one (see [`FastShortest`]).
fn fast_shortest(
    part: &ast::PatternPart,
    items: &[Item],
    vars: &[PathVar],
    outer: &Scope,
) -> Option<FastShortest> {
    let all = match part.selector {
        PathSelector::ShortestK(1) | PathSelector::Any(1) => false,
        PathSelector::AllShortestGql => true,
        _ => return None,
    };
    if part_filter(part).is_some()
        || part.mode == Some(ast::PathMode::Acyclic)
        || part.chain.steps.len() != 1
        || part.chain.steps[0].group.is_some()
    {
        return None;
    }
    let [
        Item::Group {
            min,
            max,
            body,
            checks: group_checks,
        },
    ] = items
    else {
        return None;
    };
    if *min > 1 || !group_checks.is_empty() {
        return None;
    }
    let [
        Item::Hop {
            var,
            dir,
            types,
            checks,
        },
    ] = body.as_slice()
    else {
        return None;
    };
    // Undirected, the shortest way back to the start may need a node the search reached
    // sooner by another way: the visited set would miss that cycle.
    if *dir == ast::Direction::Both && *min >= 1 {
        return None;
    }
    let scratch = vars.get(*var)?.scratch;
    let outer_slots = outer.slots();
    let mut slots = Vec::new();
    for check in checks {
        check.slots(&mut slots);
    }
    if slots
        .iter()
        .any(|s| *s != scratch && !outer_slots.contains(s))
    {
        return None;
    }
    let filter = checks
        .iter()
        .cloned()
        .reduce(|a, c| Expr::And(Box::new(a), Box::new(c)));
    Some(FastShortest {
        dir: *dir,
        types: types.clone(),
        min: *min,
        max: *max,
        all,
        rel_filter: filter.map(|f| (scratch, f)),
    })
}

fn bound(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

pub(super) struct Pred {
    pub expr: Expr,
    pub deps: Vec<usize>,
    /// Evaluate after everything else (it reads the graph through a subquery).
    pub last: bool,
    pub done: bool,
}

impl Pred {
    /// A predicate reading the slots it mentions.
    pub fn new(expr: Expr) -> Pred {
        let mut deps = Vec::new();
        expr.slots(&mut deps);
        Pred::with_deps(expr, deps)
    }

    pub fn with_deps(expr: Expr, deps: Vec<usize>) -> Pred {
        Pred {
            last: has_subquery(&expr),
            expr,
            deps,
            done: false,
        }
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

/// A property map of a pattern element: `(element slot, map, is a relationship)`.
pub(super) type PropMap<'a> = (usize, &'a ast::Expr, bool);

pub(super) struct QueryGraph<'a> {
    pub nodes: Vec<PNode>,
    pub rels: Vec<PRel>,
    pub preds: Vec<Pred>,
    pub node_index: HashMap<String, usize>,
    /// (path slot, parts) for named paths.
    pub paths: Vec<(usize, Vec<PathPart>)>,
    /// Values computed once the pattern is matched, beside the named paths: the node lists
    /// of a group planned as a variable-length expand.
    pub derived: Vec<(usize, Expr)>,
    /// Property maps, compiled once every variable is in scope.
    pub prop_maps: Vec<PropMap<'a>>,
    /// One predicate per (node, label), so that a label scan can retire the one it implies:
    /// `(node, label, predicate index)`.
    pub label_preds: Vec<(usize, Arc<Token>, usize)>,
}

/// What building one element needs besides the graph.
pub(super) struct Binding<'s> {
    pub scope: &'s mut Scope,
    pub outer: &'s Scope,
}

impl Planner<'_> {
    /// Builds the query graph of `parts`, binding their new variables in `b.scope`.
    /// `preset` gives the slots of every element (MERGE needs them to create what it does not
    /// find).
    pub(super) fn query_graph<'a>(
        &mut self,
        b: &mut Binding<'_>,
        parts: &'a [ast::PatternPart],
        preset: Option<&[PartSlots]>,
    ) -> Result<QueryGraph<'a>> {
        let mut g = QueryGraph {
            nodes: Vec::new(),
            rels: Vec::new(),
            preds: Vec::new(),
            node_index: HashMap::new(),
            paths: Vec::new(),
            derived: Vec::new(),
            prop_maps: Vec::new(),
            label_preds: Vec::new(),
        };
        for (pi, part) in parts.iter().enumerate() {
            self.graph_part(&mut g, b, part, preset.and_then(|p| p.get(pi)))?;
        }
        self.element_predicates(&mut g, b.scope)?;
        Ok(g)
    }

    /// One comma-separated part: its chain of nodes and relationships, and its path name.
    fn graph_part<'a>(
        &mut self,
        g: &mut QueryGraph<'a>,
        b: &mut Binding<'_>,
        part: &'a ast::PatternPart,
        preset: Option<&PartSlots>,
    ) -> Result<()> {
        let path_slot = part.path.as_ref().map(|p| {
            let slot = self.slot();
            b.scope.bind(&p.name, slot);
            slot
        });
        if part.selector.is_gql() || part.mode == Some(ast::PathMode::Acyclic) {
            let parts = self.graph_search_part(g, b, part)?;
            if let Some(predicate) = part_filter(part) {
                // A pre-filter: the search tests each whole path before selecting.
                let filter = self.expr(predicate, b.scope)?;
                let path = path_slot.map(|ps| (ps, parts.clone()));
                if let Some(search) = g.rels.last_mut().and_then(|r| r.search.as_mut()) {
                    search.filter = Some((filter, path));
                }
            }
            if let Some(ps) = path_slot {
                g.paths.push((ps, parts));
            }
            return Ok(());
        }
        let mut path_parts = Vec::new();
        let mut prev: Option<usize> = None;
        let chain = &part.chain;
        for (ni, np) in chain.nodes().enumerate() {
            let idx = self.graph_node(g, b, np, preset.and_then(|p| p.nodes.get(ni).copied()));
            self.node_predicates(g, b, np, idx)?;
            if let Some(left) = prev {
                let step = &chain.steps[ni - 1];
                let part_rel = match &step.group {
                    Some(group) => self.graph_group(g, b, group, (left, idx))?,
                    None => {
                        let preset = preset.and_then(|p| p.rels.get(ni - 1).copied());
                        self.graph_rel(g, b, part, &step.relationship, (left, idx), preset)?
                    }
                };
                path_parts.push(part_rel);
            }
            path_parts.push(PathPart::Node(g.nodes[idx].slot));
            prev = Some(idx);
        }
        if let Some(ps) = path_slot {
            g.paths.push((ps, path_parts));
        }
        if let Some(predicate) = part_filter(part) {
            // Without a selector, a parenthesised path pattern's WHERE is one more predicate.
            let compiled = self.expr(predicate, b.scope)?;
            g.preds.push(Pred::new(compiled));
        }
        Ok(())
    }

    /// A node's label expression and inline WHERE as predicates of the pattern.
    fn node_predicates<'a>(
        &mut self,
        g: &mut QueryGraph<'a>,
        b: &mut Binding<'_>,
        np: &'a ast::NodePattern,
        idx: usize,
    ) -> Result<()> {
        if let Some(props) = &np.properties {
            g.prop_maps.push((g.nodes[idx].slot, props, false));
        }
        if let Some(expr) = &np.label_expr {
            let slot = g.nodes[idx].slot;
            if expr.has_dynamic() {
                // Run-time names may read other variables: the predicate finds its own.
                let test = self.pattern_label_test(Expr::Slot(slot), expr, false, b.scope)?;
                g.preds.push(Pred::new(test));
            } else {
                let test = Expr::LabelTest(
                    Box::new(Expr::Slot(slot)),
                    self.label_pred(expr, false).into(),
                );
                g.preds.push(Pred::with_deps(test, vec![slot]));
            }
        }
        if let Some(pred) = &np.predicate {
            let compiled = self.expr(pred, b.scope)?;
            g.preds.push(Pred::new(compiled));
        }
        let slot = g.nodes[idx].slot;
        for test in self.dynamic_label_tests(np, slot, b.scope)? {
            g.preds.push(Pred::new(test));
        }
        Ok(())
    }

    /// `:$(expr)` and `:$any(expr)` as tests of the node in `slot`.
    fn dynamic_label_tests(
        &mut self,
        np: &ast::NodePattern,
        slot: usize,
        scope: &Scope,
    ) -> Result<Vec<Expr>> {
        let mut tests = Vec::new();
        self.push_dynamic_tests(&np.dynamic_labels, &np.dynamic_any, slot, scope, &mut tests)?;
        Ok(tests)
    }

    /// Names given at run time as tests of the entity in `slot`: each of `all` (`:$(expr)`,
    /// every name must hold) and `any` (`:$any(expr)`, one must) pushed onto `tests`. A node's
    /// labels and a relationship's type are tested by the same expression.
    fn push_dynamic_tests(
        &mut self,
        all: &[ast::Expr],
        any: &[ast::Expr],
        slot: usize,
        scope: &Scope,
        tests: &mut Vec<Expr>,
    ) -> Result<()> {
        for (exprs, any) in [(all, false), (any, true)] {
            for e in exprs {
                let names = self.expr(e, scope)?;
                tests.push(Expr::DynamicLabels(
                    Box::new(Expr::Slot(slot)),
                    Box::new(names),
                    any,
                ));
            }
        }
        Ok(())
    }

    /// A quantified group between nodes `ends`, searched by a path program (or, when it is
    /// one relationship between free nodes, the variable-length expand it equals).
    fn graph_group(
        &mut self,
        g: &mut QueryGraph<'_>,
        b: &mut Binding<'_>,
        group: &ast::QuantifiedGroup,
        (left, right): (usize, usize),
    ) -> Result<PathPart> {
        if let Some(rp) = one_free_relationship(group) {
            return self.graph_group_as_expand(g, b, group, rp, (left, right));
        }
        let mut vars = Vec::new();
        let item = self.group_item(b, group, &mut vars)?;
        let slot = self.slot();
        g.rels.push(PRel::searched(
            slot,
            (left, right),
            SearchPlan {
                items: vec![item],
                vars,
                selection: Selection::All,
                acyclic: false,
                filter: None,
                fast: None,
            },
        ));
        Ok(PathPart::RelList(slot))
    }

    /// A group as one item: its variables are lists outside it (bound in `b.scope`) and
    /// single elements inside, where its predicates see them and what was bound before the
    /// pattern.
    fn group_item(
        &mut self,
        b: &mut Binding<'_>,
        group: &ast::QuantifiedGroup,
        vars: &mut Vec<PathVar>,
    ) -> Result<Item> {
        let mut inner = b.outer.clone();
        let mut names: HashMap<String, usize> = HashMap::new();
        // A node named twice in one iteration: (the second's variable, the first's).
        let mut same: Vec<(usize, usize)> = Vec::new();
        let mut var_of = |this: &mut Self, variable: Option<&ast::Ident>, rel: bool| {
            if let Some(v) = variable
                && let Some(&first) = names.get(&v.name)
            {
                // A variable of its own, tested equal to the first at the end of each
                // iteration, where both are bound whichever end the search starts from.
                vars.push(PathVar {
                    scratch: this.slot(),
                    out: None,
                    group: true,
                    rel,
                    keep: false,
                });
                same.push((vars.len() - 1, first));
                return vars.len() - 1;
            }
            let scratch = this.slot();
            let out = variable.map(|v| {
                let out = this.slot();
                b.scope.bind(&v.name, out);
                inner.bind(&v.name, scratch);
                names.insert(v.name.clone(), vars.len());
                out
            });
            vars.push(PathVar {
                scratch,
                out,
                group: true,
                rel,
                keep: false,
            });
            vars.len() - 1
        };
        let chain = &group.chain;
        let mut plan = Vec::new();
        let first = var_of(self, chain.start.variable.as_ref(), false);
        plan.push((first, None));
        for step in &chain.steps {
            let r = var_of(self, step.relationship.variable.as_ref(), true);
            let n = var_of(self, step.node.variable.as_ref(), false);
            plan.push((r, Some(&step.relationship)));
            plan.push((n, None));
        }
        let mut body = Vec::new();
        let mut nodes = chain.nodes();
        for (var, rel) in plan {
            let scratch = vars[var].scratch;
            match rel {
                Some(rp) => body.push(self.hop_item(rp, var, scratch, &inner)?),
                None => {
                    let np = nodes.next().unwrap_or(&chain.start);
                    let checks = self.node_checks(np, scratch, &inner)?;
                    body.push(Item::Node { var, checks });
                }
            }
        }
        let mut checks = match &group.predicate {
            Some(p) => vec![self.expr(p, &inner)?],
            None => Vec::new(),
        };
        for (second, first) in same {
            checks.push(Expr::Binary(
                BinOp::Eq,
                Box::new(Expr::Slot(vars[second].scratch)),
                Box::new(Expr::Slot(vars[first].scratch)),
            ));
        }
        Ok(Item::Group {
            min: bound(group.quantifier.min),
            max: group.quantifier.max.map_or(u32::MAX, bound),
            body,
            checks,
        })
    }

    /// A node's labels, property map and inline WHERE, read from `slot`.
    fn node_checks(
        &mut self,
        np: &ast::NodePattern,
        slot: usize,
        scope: &Scope,
    ) -> Result<Vec<Expr>> {
        let mut checks = Vec::new();
        if !np.labels.is_empty() {
            let labels = np
                .labels
                .iter()
                .map(|l| self.tokens.label(&l.name))
                .collect();
            checks.push(Expr::HasLabels(Box::new(Expr::Slot(slot)), labels));
        }
        if let Some(expr) = &np.label_expr {
            checks.push(self.pattern_label_test(Expr::Slot(slot), expr, false, scope)?);
        }
        self.element_checks(
            np.properties.as_ref(),
            np.predicate.as_ref(),
            slot,
            scope,
            &mut checks,
        )?;
        checks.extend(self.dynamic_label_tests(np, slot, scope)?);
        Ok(checks)
    }

    fn element_checks(
        &mut self,
        properties: Option<&ast::Expr>,
        predicate: Option<&ast::Expr>,
        slot: usize,
        scope: &Scope,
        checks: &mut Vec<Expr>,
    ) -> Result<()> {
        if let Some(props) = properties {
            let m = self.expr(props, scope)?;
            checks.push(Expr::PropsMatch(Box::new(Expr::Slot(slot)), Box::new(m)));
        }
        if let Some(pred) = predicate {
            checks.push(self.expr(pred, scope)?);
        }
        Ok(())
    }

    /// One relationship of a program: its types, and its type expression, property map and
    /// inline WHERE as checks.
    fn hop_item(
        &mut self,
        rp: &ast::RelationshipPattern,
        var: usize,
        slot: usize,
        scope: &Scope,
    ) -> Result<Item> {
        let (types, checks) = self.hop_parts(rp, slot, scope)?;
        Ok(Item::Hop {
            var,
            dir: rp.direction,
            types,
            checks,
        })
    }

    fn hop_parts(
        &mut self,
        rp: &ast::RelationshipPattern,
        slot: usize,
        scope: &Scope,
    ) -> Result<(Vec<Arc<Token>>, Vec<Expr>)> {
        let types = rp
            .types
            .iter()
            .map(|t| self.tokens.rel_type(&t.name))
            .collect();
        let mut checks = self.rel_type_tests(rp, slot, scope)?;
        self.element_checks(
            rp.properties.as_ref(),
            rp.predicate.as_ref(),
            slot,
            scope,
            &mut checks,
        )?;
        Ok((types, checks))
    }

    /// The tests of a relationship's type that its type list cannot express, on the
    /// relationship in `slot`: a type expression (`:!A`, `:%`, `:A&B`) and types named at run
    /// time (`:$(expr)`, `:$any(expr)`).
    fn rel_type_tests(
        &mut self,
        rp: &ast::RelationshipPattern,
        slot: usize,
        scope: &Scope,
    ) -> Result<Vec<Expr>> {
        let mut tests = Vec::new();
        if let Some(expr) = &rp.type_expr {
            tests.push(self.pattern_label_test(Expr::Slot(slot), expr, true, scope)?);
        }
        self.push_dynamic_tests(&rp.dynamic_types, &rp.dynamic_any, slot, scope, &mut tests)?;
        Ok(tests)
    }

    /// A node between the ends of a searched part: matched inside the search, its name bound
    /// to the node it matched.
    fn middle_node_item(
        &mut self,
        b: &mut Binding<'_>,
        np: &ast::NodePattern,
        vars: &mut Vec<PathVar>,
    ) -> Result<Item> {
        let scratch = self.slot();
        if let Some(v) = &np.variable {
            if b.scope.contains(&v.name) {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::UnsupportedFeature,
                    format!(
                        "A node variable between the ends of a path under a selector or \
                         path mode that is bound elsewhere (`{}`) is not supported",
                        v.name
                    ),
                    v.span,
                ));
            }
            b.scope.bind(&v.name, scratch);
        }
        vars.push(PathVar {
            scratch,
            out: np.variable.as_ref().map(|_| scratch),
            group: false,
            rel: false,
            keep: false,
        });
        let checks = self.node_checks(np, scratch, b.scope)?;
        Ok(Item::Node {
            var: vars.len() - 1,
            checks,
        })
    }

    /// A part under a selector or a path mode: its end nodes join the query graph, and
    /// everything between them is one program the search matches as a whole. Returns the
    /// elements of its named path.
    fn graph_search_part<'a>(
        &mut self,
        g: &mut QueryGraph<'a>,
        b: &mut Binding<'_>,
        part: &'a ast::PatternPart,
    ) -> Result<Vec<PathPart>> {
        let chain = &part.chain;
        let left = self.graph_node(g, b, &chain.start, None);
        let mut vars: Vec<PathVar> = Vec::new();
        let mut items = Vec::new();
        let last = chain.steps.len().saturating_sub(1);
        let outer = b.outer.clone();
        for (i, step) in chain.steps.iter().enumerate() {
            if let Some(group) = &step.group {
                items.push(self.group_item(b, group, &mut vars)?);
            } else {
                let rp = &step.relationship;
                let single = rp.quantifier.is_none();
                let scratch = self.slot();
                let out = rp.variable.as_ref().map(|v| {
                    let out = if single { scratch } else { self.slot() };
                    b.scope.bind(&v.name, out);
                    out
                });
                vars.push(PathVar {
                    scratch,
                    out,
                    group: !single,
                    rel: true,
                    keep: false,
                });
                let mut scope = outer.clone();
                if let Some(v) = &rp.variable {
                    scope.bind(&v.name, scratch);
                }
                let hop = self.hop_item(rp, vars.len() - 1, scratch, &scope)?;
                items.push(match rp.quantifier {
                    None => hop,
                    Some(q) => Item::Group {
                        min: bound(q.min),
                        max: q.max.map_or(u32::MAX, bound),
                        body: vec![hop],
                        checks: Vec::new(),
                    },
                });
            }
            if i == last {
                break;
            }
            items.push(self.middle_node_item(b, &step.node, &mut vars)?);
        }
        let end = chain.steps.last().map_or(&chain.start, |s| &s.node);
        let right = self.graph_node(g, b, end, None);
        self.node_predicates(g, b, &chain.start, left)?;
        self.node_predicates(g, b, end, right)?;
        let selection = match part.selector {
            PathSelector::Any(k) => Selection::Any(k),
            PathSelector::ShortestK(k) => Selection::Shortest(k),
            PathSelector::AllShortestGql => Selection::AllShortest,
            PathSelector::ShortestGroups(k) => Selection::ShortestGroups(k),
            _ => Selection::All,
        };
        let slot = self.slot();
        let fast = fast_shortest(part, &items, &vars, b.outer);
        if fast.is_some()
            && let Some(v) = &chain.steps[0].relationship.variable
        {
            // The fast search writes the relationship list where the name reads it.
            b.scope.bind(&v.name, slot);
        }
        g.rels.push(PRel::searched(
            slot,
            (left, right),
            SearchPlan {
                items,
                vars,
                selection,
                acyclic: part.mode == Some(ast::PathMode::Acyclic),
                filter: None,
                fast,
            },
        ));
        Ok(vec![
            PathPart::Node(g.nodes[left].slot),
            PathPart::RelList(slot),
            PathPart::Node(g.nodes[right].slot),
        ])
    }

    /// The relationship between nodes `ends`; returns its element of the named path.
    fn graph_rel<'a>(
        &mut self,
        g: &mut QueryGraph<'a>,
        b: &mut Binding<'_>,
        part: &ast::PatternPart,
        rp: &'a ast::RelationshipPattern,
        (left, right): (usize, usize),
        preset: Option<usize>,
    ) -> Result<PathPart> {
        if let Some(q) = rp.quantifier {
            return self.graph_quantified_rel(g, b, rp, q, (left, right));
        }
        let slot = self.bind_rel(g, b, rp, preset);
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
                let m = self.expr(props, b.scope)?;
                rel_filter = Some((
                    scratch,
                    Expr::PropsMatch(Box::new(Expr::Slot(scratch)), Box::new(m)),
                ));
            } else {
                g.prop_maps.push((slot, props, true));
            }
        }
        // `[:!A]`, `[:%]`, `[:A&B]`, `[:$(expr)]`: every type is expanded and these filter
        // them; on a variable-length step they join the filter each relationship must pass.
        if length.is_some() {
            let (scratch, previous) = match rel_filter.take() {
                Some((scratch, previous)) => (scratch, Some(previous)),
                None => (self.slot(), None),
            };
            let filter = self.rel_type_tests(rp, scratch, b.scope)?.into_iter().fold(
                previous,
                |acc, test| {
                    Some(match acc {
                        Some(acc) => Expr::And(Box::new(acc), Box::new(test)),
                        None => test,
                    })
                },
            );
            rel_filter = filter.map(|f| (scratch, f));
        } else {
            for test in self.rel_type_tests(rp, slot, b.scope)? {
                let mut deps = vec![slot];
                test.slots(&mut deps);
                g.preds.push(Pred::with_deps(test, deps));
            }
        }
        if let Some(pred) = &rp.predicate {
            let compiled = self.expr(pred, b.scope)?;
            g.preds.push(Pred::new(compiled));
        }
        g.rels.push(PRel {
            slot,
            left,
            right,
            dir: rp.direction,
            types,
            length,
            rel_filter,
            shortest,
            search: None,
        });
        Ok(if length.is_some() {
            PathPart::RelList(slot)
        } else {
            PathPart::Rel(slot)
        })
    }

    /// `((x)-[r:T]->(y)){1,4}` as `-[r:T]->{1,4}`: the same relationships in the same
    /// order, a walk of a stack of relationship ids instead of the path search's states. `x`
    /// and `y`, when named, are the path's nodes but its last, and but its first.
    fn graph_group_as_expand(
        &mut self,
        g: &mut QueryGraph<'_>,
        b: &mut Binding<'_>,
        group: &ast::QuantifiedGroup,
        rp: &ast::RelationshipPattern,
        (left, right): (usize, usize),
    ) -> Result<PathPart> {
        let part = self.graph_quantified_rel(g, b, rp, group.quantifier, (left, right))?;
        let PathPart::RelList(rels) = part else {
            return Ok(part);
        };
        let nodes = Expr::Graph(
            GraphFn::Nodes,
            vec![Expr::Path(vec![
                PathPart::Node(g.nodes[left].slot),
                PathPart::RelList(rels),
                PathPart::Node(g.nodes[right].slot),
            ])],
        );
        let ends = [
            (&group.chain.start, None, Some(-1)),
            (&group.chain.steps[0].node, Some(1), None),
        ];
        for (np, from, to) in ends {
            let Some(v) = &np.variable else {
                continue;
            };
            let index = |i: Option<i64>| i.map(|i| Box::new(Expr::Const(Value::Int(i))));
            let slot = self.slot();
            b.scope.bind(&v.name, slot);
            g.derived.push((
                slot,
                Expr::Slice(Box::new(nodes.clone()), index(from), index(to)),
            ));
        }
        Ok(part)
    }

    /// `-[r:T WHERE r.x > 1]->{1,3}`: a variable-length step whose relationships each pass the
    /// relationship's type expression, property map and WHERE, which see `r` as one
    /// relationship.
    fn graph_quantified_rel(
        &mut self,
        g: &mut QueryGraph<'_>,
        b: &mut Binding<'_>,
        rp: &ast::RelationshipPattern,
        q: ast::PathQuantifier,
        (left, right): (usize, usize),
    ) -> Result<PathPart> {
        let slot = self.slot();
        let scratch = self.slot();
        let mut scope = b.outer.clone();
        if let Some(v) = &rp.variable {
            scope.bind(&v.name, scratch);
        }
        let (types, checks) = self.hop_parts(rp, scratch, &scope)?;
        if let Some(v) = &rp.variable {
            b.scope.bind(&v.name, slot);
        }
        g.rels.push(PRel {
            slot,
            left,
            right,
            dir: rp.direction,
            types,
            length: Some((bound(q.min), q.max.map_or(u32::MAX, bound))),
            rel_filter: Expr::all(checks).map(|f| (scratch, f)),
            shortest: None,
            search: None,
        });
        Ok(PathPart::RelList(slot))
    }

    /// A node element: the same element for a name seen before in this pattern, a bound
    /// element for a name of the outer scope, a new one otherwise.
    fn graph_node(
        &mut self,
        g: &mut QueryGraph<'_>,
        b: &mut Binding<'_>,
        np: &ast::NodePattern,
        preset: Option<usize>,
    ) -> usize {
        let labels: Vec<Arc<Token>> = np
            .labels
            .iter()
            .map(|l| self.tokens.label(&l.name))
            .collect();
        let Some(var) = &np.variable else {
            let slot = preset.unwrap_or_else(|| self.slot());
            g.nodes.push(PNode {
                slot,
                name: None,
                bound: false,
                labels,
            });
            return g.nodes.len() - 1;
        };
        if let Some(&idx) = g.node_index.get(&var.name) {
            for l in labels {
                if !g.nodes[idx].labels.iter().any(|x| Arc::ptr_eq(x, &l)) {
                    g.nodes[idx].labels.push(l);
                }
            }
            return idx;
        }
        if let Some(v) = b.outer.get(&var.name) {
            g.nodes.push(PNode {
                slot: v.slot,
                name: Some(v.name.clone()),
                bound: true,
                labels,
            });
        } else {
            let slot = preset.unwrap_or_else(|| self.slot());
            b.scope.bind(&var.name, slot);
            g.nodes.push(PNode {
                slot,
                name: Some(Arc::from(var.name.as_str())),
                bound: false,
                labels,
            });
        }
        g.node_index.insert(var.name.clone(), g.nodes.len() - 1);
        g.nodes.len() - 1
    }

    /// A relationship's slot. A name the outer scope binds is matched afresh and required to
    /// be the same relationship.
    fn bind_rel(
        &mut self,
        g: &mut QueryGraph<'_>,
        b: &mut Binding<'_>,
        rp: &ast::RelationshipPattern,
        preset: Option<usize>,
    ) -> usize {
        let slot = preset.unwrap_or_else(|| self.slot());
        let Some(var) = &rp.variable else {
            return slot;
        };
        if let Some(v) = b.outer.get(&var.name) {
            g.preds.push(Pred::with_deps(
                Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Slot(slot)),
                    Box::new(Expr::Slot(v.slot)),
                ),
                vec![slot, v.slot],
            ));
            return slot;
        }
        b.scope.bind(&var.name, slot);
        slot
    }

    /// Property maps and labels become predicates (a map's entries one by one, so that seeks
    /// and filters can use them separately).
    fn element_predicates(&mut self, g: &mut QueryGraph<'_>, scope: &Scope) -> Result<()> {
        for (slot, props, _) in g.prop_maps.clone() {
            if let ExprKind::Map(entries) = &props.kind {
                for entry in entries {
                    let value = self.expr(&entry.value, scope)?;
                    let key = self.tokens.key(&entry.key.name);
                    let mut deps = vec![slot];
                    value.slots(&mut deps);
                    g.preds.push(Pred::with_deps(
                        Expr::Binary(
                            BinOp::Eq,
                            Box::new(Expr::Property(Box::new(Expr::Slot(slot)), key)),
                            Box::new(value),
                        ),
                        deps,
                    ));
                }
            } else {
                let m = self.expr(props, scope)?;
                let mut deps = vec![slot];
                m.slots(&mut deps);
                g.preds.push(Pred {
                    last: false,
                    expr: Expr::PropsMatch(Box::new(Expr::Slot(slot)), Box::new(m)),
                    deps,
                    done: false,
                });
            }
        }
        for (ni, n) in g.nodes.iter().enumerate() {
            for l in &n.labels {
                g.label_preds.push((ni, l.clone(), g.preds.len()));
                g.preds.push(Pred {
                    expr: Expr::HasLabels(Box::new(Expr::Slot(n.slot)), vec![l.clone()]),
                    deps: vec![n.slot],
                    last: false,
                    done: false,
                });
            }
        }
        Ok(())
    }
}
