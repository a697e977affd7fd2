//! Seek candidates: what WHERE conjuncts and property maps offer each new node of a pattern
//! as a start (a lookup by id, or an index seek for equality, IN, a range or a prefix).
//! Which of them is used is the cost model's choice.

use std::collections::HashMap;
use std::sync::Arc;

use quiver_cypher::ast::{self, BinaryOp, ExprKind};

use super::super::clauses::{Planner, Result};
use super::super::expr::visit;
use super::super::scope::Scope;
use super::graph::{Pred, QueryGraph};
use crate::ir::Expr;
use crate::tokens::Token;

/// The seeks and id lookups offered for one node.
#[derive(Default)]
pub(super) struct SeekSet {
    pub by_id: Option<(Expr, bool)>,
    pub eq: Vec<(Arc<Token>, Expr)>,
    pub within: Vec<(Arc<Token>, Expr)>,
    pub prefix: Vec<(Arc<Token>, Expr)>,
    /// (key, bound, inclusive)
    pub lower: Vec<(Arc<Token>, Expr, bool)>,
    pub upper: Vec<(Arc<Token>, Expr, bool)>,
}

/// Seek candidates of a pattern's nodes: named ones by name, anonymous ones by slot.
#[derive(Default)]
pub(super) struct Candidates {
    pub named: HashMap<String, SeekSet>,
    pub anon: HashMap<usize, SeekSet>,
}

impl Candidates {
    pub fn of(&self, name: Option<&str>, slot: usize) -> Option<&SeekSet> {
        match name {
            Some(name) => self.named.get(name),
            None => self.anon.get(&slot),
        }
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

impl Planner<'_> {
    /// WHERE's conjuncts become predicates of the graph; each may also offer a seek.
    pub(super) fn where_predicates(
        &mut self,
        g: &mut QueryGraph<'_>,
        filter: Option<&ast::Expr>,
        outer: &Scope,
        scope: &Scope,
    ) -> Result<Candidates> {
        let mut seeks = Candidates::default();
        if let Some(f) = filter {
            for c in f.conjuncts() {
                self.seek_candidates(c, outer, g, &mut seeks.named)?;
                let compiled = self.expr(c, scope)?;
                g.preds.push(Pred::new(compiled));
            }
        }
        Ok(seeks)
    }

    /// Property-map equalities offer seeks too, for named and anonymous nodes.
    pub(super) fn map_seeks(
        &mut self,
        g: &QueryGraph<'_>,
        outer: &Scope,
        seeks: &mut Candidates,
    ) -> Result<()> {
        for (slot, props, is_rel) in &g.prop_maps {
            if *is_rel {
                continue;
            }
            let Some(ni) = g.nodes.iter().position(|n| n.slot == *slot) else {
                continue;
            };
            let Some(name) = g.nodes[ni].name.clone() else {
                continue;
            };
            for (key, value) in self.map_equalities(props, outer)? {
                seeks
                    .named
                    .entry(name.to_string())
                    .or_default()
                    .eq
                    .push((key, value));
            }
        }
        for (slot, props, is_rel) in &g.prop_maps {
            if *is_rel || g.nodes.iter().any(|n| n.slot == *slot && n.name.is_some()) {
                continue;
            }
            for (key, value) in self.map_equalities(props, outer)? {
                seeks.anon.entry(*slot).or_default().eq.push((key, value));
            }
        }
        Ok(())
    }

    /// The entries of a literal property map whose values the outer scope can compute.
    fn map_equalities(
        &mut self,
        props: &ast::Expr,
        outer: &Scope,
    ) -> Result<Vec<(Arc<Token>, Expr)>> {
        let mut out = Vec::new();
        if let ExprKind::Map(entries) = &props.kind {
            for entry in entries {
                if independent(&entry.value, outer) {
                    let value = self.expr(&entry.value, outer)?;
                    let key = self.tokens.key(&entry.key.name);
                    out.push((key, value));
                }
            }
        }
        Ok(out)
    }

    /// Records seeks and id lookups a WHERE conjunct offers for new pattern nodes.
    fn seek_candidates(
        &mut self,
        c: &ast::Expr,
        outer: &Scope,
        g: &QueryGraph<'_>,
        seeks: &mut HashMap<String, SeekSet>,
    ) -> Result<()> {
        let ExprKind::Binary { op, left, right } = &c.kind else {
            return Ok(());
        };
        let new_node = |name: &str| g.node_index.get(name).is_some_and(|i| !g.nodes[*i].bound);
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
}
