//! Planning updating clauses: CREATE, MERGE, SET, REMOVE, DELETE and FOREACH.

use std::sync::Arc;

use quiver_cypher::ast::{self, ExprKind};

use super::clauses::{Planner, Result};
use super::scope::Scope;
use crate::ir::{CreateStep, Expr, MergeSpec, Op, PathPart, PlanNode, Props, SetOp};
use crate::tokens::Token;

/// Slots of every element of one pattern part, in pattern order.
pub(crate) struct PartSlots {
    pub nodes: Vec<usize>,
    pub rels: Vec<usize>,
}

impl Planner<'_> {
    fn props(&mut self, props: Option<&ast::Expr>, scope: &Scope) -> Result<Props> {
        let Some(p) = props else {
            return Ok(Props::None);
        };
        Ok(match &p.kind {
            ExprKind::Map(entries) => {
                let mut out: Vec<(Arc<crate::tokens::Token>, Expr)> =
                    Vec::with_capacity(entries.len());
                for e in entries {
                    let v = self.expr(&e.value, scope)?;
                    let key = self.tokens.key(&e.key.name);
                    out.retain(|(k, _)| !Arc::ptr_eq(k, &key));
                    out.push((key, v));
                }
                Props::Map(out)
            }
            _ => Props::Expr(self.expr(p, scope)?),
        })
    }

    /// The type of a relationship CREATE or MERGE makes: the analysis has checked that it has
    /// exactly one, and a fixed length.
    fn rel_type_of(&mut self, rp: &ast::RelationshipPattern) -> Arc<crate::tokens::Token> {
        let name = rp.types.first().map_or("", |t| t.name.as_str());
        self.tokens.rel_type(name)
    }

    /// The `$(expr)` type of a relationship to create, if it has one (the semantic analysis
    /// allowed one type, static or dynamic).
    fn dynamic_rel_type(
        &mut self,
        rp: &ast::RelationshipPattern,
        scope: &Scope,
    ) -> Result<Option<Expr>> {
        rp.dynamic_types
            .first()
            .map(|e| self.expr(e, scope))
            .transpose()
    }

    /// CREATE. The semantic analysis has checked the pattern: no shortest paths, inline
    /// WHERE or re-declared variables, a bound node only as a relationship's end, one type
    /// and a direction for every relationship.
    pub(super) fn plan_create(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        parts: &[ast::PatternPart],
    ) -> Result<Arc<PlanNode>> {
        let mut steps = Vec::new();
        let mut paths: Vec<(usize, Vec<PathPart>)> = Vec::new();
        for part in parts {
            let mut node_slots = Vec::new();
            for np in part.chain.nodes() {
                node_slots.push(self.create_node(np, scope, &mut steps)?);
            }
            let mut path = vec![PathPart::Node(node_slots[0])];
            for (i, step) in part.chain.steps.iter().enumerate() {
                let rp = &step.relationship;
                let ty = self.rel_type_of(rp);
                let slot = self.slot();
                let ends = (node_slots[i], node_slots[i + 1]);
                steps.push(self.create_rel(rp, slot, ty, ends, scope)?);
                if let Some(v) = &rp.variable {
                    scope.bind(&v.name, slot);
                }
                path.push(PathPart::Rel(slot));
                path.push(PathPart::Node(node_slots[i + 1]));
            }
            if let Some(p) = &part.path {
                let slot = self.slot();
                scope.bind(&p.name, slot);
                paths.push((slot, path));
            }
        }
        let est = input.est_rows;
        let mut plan = self.node(
            Op::Create {
                input,
                steps: steps.into(),
            },
            est,
            scope,
        );
        if !paths.is_empty() {
            let items = paths
                .into_iter()
                .map(|(s, parts)| (s, Expr::Path(parts)))
                .collect();
            plan = self.node(Op::Project { input: plan, items }, est, scope);
        }
        Ok(plan)
    }

    /// A node of a CREATE pattern: a bound variable is reused as is, anything else created.
    fn create_node(
        &mut self,
        np: &ast::NodePattern,
        scope: &mut Scope,
        steps: &mut Vec<CreateStep>,
    ) -> Result<usize> {
        if let Some(v) = &np.variable
            && let Some(var) = scope.get(&v.name)
        {
            return Ok(var.slot);
        }
        let labels = np
            .labels
            .iter()
            .map(|l| self.tokens.label(&l.name))
            .collect();
        let dynamic = self.exprs(&np.dynamic_labels, scope)?;
        let props = self.props(np.properties.as_ref(), scope)?;
        let slot = self.slot();
        if let Some(v) = &np.variable {
            scope.bind(&v.name, slot);
        }
        steps.push(CreateStep::Node {
            slot,
            labels,
            dynamic,
            props,
        });
        Ok(slot)
    }

    pub(super) fn plan_merge(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        m: &ast::Merge,
    ) -> Result<Arc<PlanNode>> {
        let part = &m.pattern;
        let (slots, fresh, rel_types) = self.merge_slots(part, scope);
        // The match half.
        let mut inner = scope.clone();
        let once = self.once(scope);
        let matcher = self.pattern(
            once,
            &mut inner,
            std::slice::from_ref(part),
            None,
            Some(std::slice::from_ref(&slots)),
        )?;
        let (steps, path) = self.merge_creates(part, &slots, &fresh, &rel_types, scope)?;
        *scope = inner;
        let path = match &part.path {
            Some(p) => scope.get(&p.name).map(|v| (v.slot, Expr::Path(path))),
            None => None,
        };
        let mut on_match = Vec::new();
        let mut on_create = Vec::new();
        for action in &m.actions {
            let ops = self.set_ops(scope, &action.items)?;
            match action.on {
                ast::MergeOn::Match => on_match.extend(ops),
                ast::MergeOn::Create => on_create.extend(ops),
            }
        }
        let est = input.est_rows;
        Ok(self.node(
            Op::Merge {
                input,
                matcher,
                spec: Arc::new(MergeSpec {
                    create: steps,
                    on_match,
                    on_create,
                    path,
                }),
            },
            est,
            scope,
        ))
    }

    /// The slots of a MERGE pattern's elements: a bound node keeps its slot, every other
    /// element gets a fresh one (`fresh` says which nodes MERGE may create), and the single
    /// type of every relationship. The semantic analysis has checked the pattern as for
    /// CREATE, and that its property maps are literal maps.
    fn merge_slots(
        &mut self,
        part: &ast::PatternPart,
        scope: &Scope,
    ) -> (PartSlots, Vec<bool>, Vec<Arc<Token>>) {
        let mut slots = PartSlots {
            nodes: Vec::new(),
            rels: Vec::new(),
        };
        let mut fresh: Vec<bool> = Vec::new();
        let mut seen: Vec<(String, usize)> = Vec::new();
        for np in part.chain.nodes() {
            let named = np.variable.as_ref();
            if let Some(v) = named {
                if let Some(var) = scope.get(&v.name) {
                    slots.nodes.push(var.slot);
                    fresh.push(false);
                    continue;
                }
                if let Some((_, s)) = seen.iter().find(|(n, _)| *n == v.name) {
                    slots.nodes.push(*s);
                    fresh.push(false);
                    continue;
                }
            }
            let s = self.slot();
            if let Some(v) = named {
                seen.push((v.name.clone(), s));
            }
            slots.nodes.push(s);
            fresh.push(true);
        }
        let mut rel_types = Vec::new();
        for step in &part.chain.steps {
            let rp = &step.relationship;
            rel_types.push(self.rel_type_of(rp));
            slots.rels.push(self.slot());
        }
        (slots, fresh, rel_types)
    }

    /// The create half of a MERGE, into the slots the match half binds: its fresh nodes, all
    /// its relationships, and the path they make.
    fn merge_creates(
        &mut self,
        part: &ast::PatternPart,
        slots: &PartSlots,
        fresh: &[bool],
        rel_types: &[Arc<Token>],
        scope: &Scope,
    ) -> Result<(Vec<CreateStep>, Vec<PathPart>)> {
        let mut steps = Vec::new();
        let nodes: Vec<&ast::NodePattern> = part.chain.nodes().collect();
        for (i, np) in nodes.iter().enumerate() {
            if !fresh[i] {
                continue;
            }
            let labels = np
                .labels
                .iter()
                .map(|l| self.tokens.label(&l.name))
                .collect();
            let props = self.props(np.properties.as_ref(), scope)?;
            // `$(expr)` labels: the match half tested them, the create half sets them.
            let dynamic = self.exprs(&np.dynamic_labels, scope)?;
            steps.push(CreateStep::Node {
                slot: slots.nodes[i],
                labels,
                dynamic,
                props,
            });
        }
        let mut path = vec![PathPart::Node(slots.nodes[0])];
        for (i, step) in part.chain.steps.iter().enumerate() {
            // `$(expr)` types: the match half tested them, the create half names the type.
            let ends = (slots.nodes[i], slots.nodes[i + 1]);
            steps.push(self.create_rel(
                &step.relationship,
                slots.rels[i],
                rel_types[i].clone(),
                ends,
                scope,
            )?);
            path.push(PathPart::Rel(slots.rels[i]));
            path.push(PathPart::Node(slots.nodes[i + 1]));
        }
        Ok((steps, path))
    }

    /// The step creating relationship `rp` into `slot` between the nodes left and right of it
    /// in the pattern, of type `ty` unless its `$(expr)` type names another: CREATE's and
    /// MERGE's alike.
    fn create_rel(
        &mut self,
        rp: &ast::RelationshipPattern,
        slot: usize,
        ty: Arc<Token>,
        (left, right): (usize, usize),
        scope: &Scope,
    ) -> Result<CreateStep> {
        let (from, to) = match rp.direction {
            ast::Direction::Incoming => (right, left),
            _ => (left, right),
        };
        let props = self.props(rp.properties.as_ref(), scope)?;
        let dynamic = self.dynamic_rel_type(rp, scope)?;
        Ok(CreateStep::Rel {
            slot,
            from,
            to,
            ty,
            dynamic,
            props,
        })
    }

    /// The dynamic labels (or any expressions) `exprs`, compiled in order.
    fn exprs(&mut self, exprs: &[ast::Expr], scope: &Scope) -> Result<Vec<Expr>> {
        exprs.iter().map(|e| self.expr(e, scope)).collect()
    }

    /// The tokens of the labels SET or REMOVE names.
    fn labels(&mut self, labels: &[ast::Ident]) -> Vec<std::sync::Arc<crate::tokens::Token>> {
        labels.iter().map(|l| self.tokens.label(&l.name)).collect()
    }

    /// A variable SET or REMOVE changes, compiled as any other reference to it.
    fn variable(&mut self, v: &ast::Ident, scope: &Scope) -> Result<Expr> {
        let reference = ast::Expr::new(ExprKind::Variable(v.clone()), v.span);
        self.expr(&reference, scope)
    }

    fn set_ops(&mut self, scope: &Scope, items: &[ast::SetItem]) -> Result<Vec<SetOp>> {
        let mut ops = Vec::with_capacity(items.len());
        for item in items {
            ops.push(match item {
                ast::SetItem::Property { entity, key, value } => SetOp::Prop {
                    entity: self.expr(entity, scope)?,
                    key: self.tokens.key(&key.name),
                    value: self.expr(value, scope)?,
                },
                ast::SetItem::DynamicProperty { entity, key, value } => SetOp::DynamicProp {
                    entity: self.expr(entity, scope)?,
                    key: self.expr(key, scope)?,
                    value: self.expr(value, scope)?,
                },
                ast::SetItem::Replace { variable, value } => SetOp::Replace {
                    entity: self.variable(variable, scope)?,
                    value: self.expr(value, scope)?,
                },
                ast::SetItem::Merge { variable, value } => SetOp::Merge {
                    entity: self.variable(variable, scope)?,
                    value: self.expr(value, scope)?,
                },
                ast::SetItem::Labels { variable, labels } => SetOp::AddLabels {
                    entity: self.variable(variable, scope)?,
                    labels: self.labels(labels),
                },
                ast::SetItem::DynamicLabels { variable, labels } => SetOp::AddDynamicLabels {
                    entity: self.variable(variable, scope)?,
                    labels: self.exprs(labels, scope)?,
                },
            });
        }
        Ok(ops)
    }

    pub(super) fn plan_set(
        &mut self,
        input: Arc<PlanNode>,
        scope: &Scope,
        items: &[ast::SetItem],
    ) -> Result<Arc<PlanNode>> {
        let ops = self.set_ops(scope, items)?;
        Ok(self.set_node(input, ops, scope))
    }

    /// The operator applying `ops` (SET's or REMOVE's) to each row of `input`.
    fn set_node(&mut self, input: Arc<PlanNode>, ops: Vec<SetOp>, scope: &Scope) -> Arc<PlanNode> {
        let est = input.est_rows;
        self.node(
            Op::Set {
                input,
                ops: ops.into(),
            },
            est,
            scope,
        )
    }

    pub(super) fn plan_remove(
        &mut self,
        input: Arc<PlanNode>,
        scope: &Scope,
        items: &[ast::RemoveItem],
    ) -> Result<Arc<PlanNode>> {
        let mut ops = Vec::with_capacity(items.len());
        for item in items {
            ops.push(match item {
                ast::RemoveItem::Property { entity, key } => SetOp::RemoveProp {
                    entity: self.expr(entity, scope)?,
                    key: self.tokens.key(&key.name),
                },
                ast::RemoveItem::DynamicProperty { entity, key } => SetOp::RemoveDynamicProp {
                    entity: self.expr(entity, scope)?,
                    key: self.expr(key, scope)?,
                },
                ast::RemoveItem::Labels { variable, labels } => SetOp::RemoveLabels {
                    entity: self.variable(variable, scope)?,
                    labels: self.labels(labels),
                },
                ast::RemoveItem::DynamicLabels { variable, labels } => SetOp::RemoveDynamicLabels {
                    entity: self.variable(variable, scope)?,
                    labels: self.exprs(labels, scope)?,
                },
            });
        }
        Ok(self.set_node(input, ops, scope))
    }

    pub(super) fn plan_delete(
        &mut self,
        input: Arc<PlanNode>,
        scope: &Scope,
        d: &ast::Delete,
    ) -> Result<Arc<PlanNode>> {
        let mut exprs = Vec::with_capacity(d.exprs.len());
        for e in &d.exprs {
            exprs.push(self.expr(e, scope)?);
        }
        let est = input.est_rows;
        Ok(self.node(
            Op::Delete {
                input,
                exprs: exprs.into(),
                detach: d.detach,
            },
            est,
            scope,
        ))
    }

    pub(super) fn plan_foreach(
        &mut self,
        input: Arc<PlanNode>,
        scope: &Scope,
        f: &ast::Foreach,
    ) -> Result<Arc<PlanNode>> {
        let list = self.expr(&f.list, scope)?;
        // The analysis has checked that the variable is new and that every clause updates.
        let slot = self.slot();
        let mut inner_scope = scope.clone();
        inner_scope.bind(&f.variable.name, slot);
        let mut inner = self.once(&inner_scope);
        for clause in &f.clauses {
            inner = self.update(inner, &mut inner_scope, clause)?;
        }
        let est = input.est_rows;
        Ok(self.node(
            Op::Foreach {
                input,
                slot,
                list: list.into(),
                inner,
            },
            est,
            scope,
        ))
    }
}
