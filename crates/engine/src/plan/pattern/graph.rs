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

use super::super::clauses::{Planner, Result};
use super::super::scope::Scope;
use super::super::writes::PartSlots;
use crate::ir::{BinOp, Expr, PathPart};
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
        let mut path_parts = Vec::new();
        let mut prev: Option<usize> = None;
        let chain = &part.chain;
        for (ni, np) in chain.nodes().enumerate() {
            let idx = self.graph_node(g, b, np, preset.and_then(|p| p.nodes.get(ni).copied()));
            if let Some(props) = &np.properties {
                g.prop_maps.push((g.nodes[idx].slot, props, false));
            }
            if let Some(expr) = &np.label_expr {
                let slot = g.nodes[idx].slot;
                let test = Expr::LabelTest(
                    Box::new(Expr::Slot(slot)),
                    self.label_pred(expr, false).into(),
                );
                g.preds.push(Pred::with_deps(test, vec![slot]));
            }
            if let Some(pred) = &np.predicate {
                let compiled = self.expr(pred, b.scope)?;
                g.preds.push(Pred::new(compiled));
            }
            if let Some(left) = prev {
                let rp = &chain.steps[ni - 1].relationship;
                let preset = preset.and_then(|p| p.rels.get(ni - 1).copied());
                let part_rel = self.graph_rel(g, b, part, rp, (left, idx), preset)?;
                path_parts.push(part_rel);
            }
            path_parts.push(PathPart::Node(g.nodes[idx].slot));
            prev = Some(idx);
        }
        if let Some(ps) = path_slot {
            g.paths.push((ps, path_parts));
        }
        Ok(())
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
        if let Some(expr) = &rp.type_expr {
            // `[:!A]`, `[:%]`, `[:A&B]`: every type is expanded and this filters them; on a
            // variable-length step it joins the filter each relationship must pass.
            let pred = Arc::new(self.label_pred(expr, true));
            if length.is_some() {
                let (scratch, previous) = match rel_filter.take() {
                    Some((scratch, previous)) => (scratch, Some(previous)),
                    None => (self.slot(), None),
                };
                let test = Expr::LabelTest(Box::new(Expr::Slot(scratch)), pred);
                let filter = match previous {
                    Some(previous) => Expr::And(Box::new(previous), Box::new(test)),
                    None => test,
                };
                rel_filter = Some((scratch, filter));
            } else {
                let test = Expr::LabelTest(Box::new(Expr::Slot(slot)), pred);
                g.preds.push(Pred::with_deps(test, vec![slot]));
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
        });
        Ok(if length.is_some() {
            PathPart::RelList(slot)
        } else {
            PathPart::Rel(slot)
        })
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
