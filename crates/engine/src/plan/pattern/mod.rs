//! Planning graph patterns (MATCH, OPTIONAL MATCH, pattern predicates and comprehensions,
//! MERGE's match half), in four steps:
//!
//! - [`graph`]: the query graph, built once: node and relationship elements plus predicates
//!   (WHERE conjuncts, labels, property maps);
//! - [`seek`]: the starts each new node is offered (lookup by id, index seeks);
//! - [`cost`]: the estimated rows of each start, from label and type counts and indexes;
//! - [`emit`]: the operators: each connected component starts at its cheapest node and grows
//!   one relationship at a time from bound ends; predicates are applied as soon as every
//!   variable they read is bound, and pattern predicates become semi-applies.

mod cost;
mod emit;
mod graph;
mod seek;

use std::sync::Arc;

use quiver_cypher::ast;

use super::clauses::{Planner, Result};
use super::scope::Scope;
use super::writes::PartSlots;
use crate::ir::{Op, PlanNode};
use emit::{Emit, components};
use graph::Binding;

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

    /// Plans `parts` on top of `input`, binding their variables in `scope`. `preset` gives the
    /// slots of every element (MERGE needs them to create what it does not find).
    pub fn pattern(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        parts: &[ast::PatternPart],
        filter: Option<&ast::Expr>,
        preset: Option<&[PartSlots]>,
    ) -> Result<Arc<PlanNode>> {
        let outer = scope.clone();
        let mut g = self.query_graph(
            &mut Binding {
                scope,
                outer: &outer,
            },
            parts,
            preset,
        )?;
        let mut seeks = self.where_predicates(&mut g, filter, &outer, scope)?;
        self.map_seeks(&g, &outer, &mut seeks)?;

        let mut e = Emit::new(input, &outer, &g, scope.clone());
        self.emit_ready(&mut g, &mut e, false);
        for members in components(&g, &e.node_bound) {
            if !members.iter().any(|m| e.node_bound[*m]) {
                self.emit_start(&mut g, &mut e, &members, &seeks);
            }
            self.emit_expansions(&mut g, &mut e, &members);
        }
        self.emit_shortest(&mut g, &mut e);
        self.emit_paths(&mut g, &mut e);
        self.emit_ready(&mut g, &mut e, false);
        self.emit_ready(&mut g, &mut e, true);
        Ok(e.plan)
    }
}
