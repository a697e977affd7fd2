//! Patterns: which variables they bind, the rules for binding each kind, and what `CREATE`
//! and `MERGE` can create.

use std::collections::HashSet;

use super::expr::Ctx;
use super::scope::{Env, Scope};
use super::types::Type;
use super::{Analyzer, Result};
use crate::ast::{
    Direction, Expr, ExprKind, Ident, NodePattern, PathSelector, PatternChain, PatternPart,
    RelationshipPattern,
};
use crate::error::{Detail, Error};
use crate::span::Span;

/// Which clause a pattern belongs to: the rules differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PatternUse {
    Match,
    Create,
    Merge,
}

impl PatternUse {
    fn keyword(self) -> &'static str {
        match self {
            PatternUse::Match => "MATCH",
            PatternUse::Create => "CREATE",
            PatternUse::Merge => "MERGE",
        }
    }
}

fn relationship_type(rel: &RelationshipPattern) -> Type {
    if rel.length.is_some() {
        Type::list_of(Type::Relationship)
    } else {
        Type::Relationship
    }
}

impl Analyzer<'_> {
    /// Binds the variables of a `MATCH` (or `EXISTS { pattern }`) pattern into `scope`, then
    /// checks its property maps and inline predicates.
    pub(crate) fn match_pattern(&mut self, parts: &[PatternPart], scope: &mut Scope) -> Result<()> {
        let mut relationships = HashSet::new();
        for part in parts {
            if part.selector != PathSelector::All && part.chain.steps.len() != 1 {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "shortestPath(...) requires a pattern containing a single relationship",
                    part.span,
                ));
            }
            // Textual order decides which of two conflicting uses is reported.
            if let Some(variable) = &part.chain.start.variable {
                self.bind_node(variable, scope)?;
            }
            for step in &part.chain.steps {
                if let Some(variable) = &step.relationship.variable {
                    if !relationships.insert(variable.name.clone()) {
                        return Err(self.syntax_error(
                            Detail::RelationshipUniquenessViolation,
                            format!(
                                "Cannot use the same relationship variable '{}' for multiple \
                                 relationships",
                                variable.name
                            ),
                            variable.span,
                        ));
                    }
                    self.bind_relationship(variable, relationship_type(&step.relationship), scope)?;
                }
                if let Some(variable) = &step.node.variable {
                    self.bind_node(variable, scope)?;
                }
            }
            if let Some(path) = &part.path {
                self.bind_new(path, Type::Path, scope)?;
            }
        }
        for part in parts {
            self.pattern_properties(&part.chain, scope, PatternUse::Match)?;
        }
        Ok(())
    }

    fn type_conflict(&self, name: &str, had: &str, wanted: &str, span: Span) -> Error {
        self.syntax_error(
            Detail::VariableTypeConflict,
            format!(
                "Type mismatch: `{name}` defined with conflicting type {had} (expected {wanted})"
            ),
            span,
        )
    }

    /// A node variable: new, or a reference to something that may be a node.
    fn bind_node(&self, variable: &Ident, scope: &mut Scope) -> Result<()> {
        match scope.get(&variable.name) {
            None => {
                scope.insert(&variable.name, Type::Node);
                Ok(())
            }
            Some(ty) if ty.may_be(&Type::Node) => Ok(()),
            Some(ty) => {
                Err(self.type_conflict(&variable.name, &ty.to_string(), "Node", variable.span))
            }
        }
    }

    /// A relationship variable: new, or a reference to a relationship bound earlier.
    fn bind_relationship(&self, variable: &Ident, ty: Type, scope: &mut Scope) -> Result<()> {
        match scope.get(&variable.name) {
            None => {
                scope.insert(&variable.name, ty);
                Ok(())
            }
            Some(existing) if existing.may_be(&ty) => Ok(()),
            Some(existing) => Err(self.type_conflict(
                &variable.name,
                &existing.to_string(),
                &ty.to_string(),
                variable.span,
            )),
        }
    }

    /// A variable that must not exist yet (paths, `UNWIND`, `YIELD`, ...).
    pub(crate) fn bind_new(&self, variable: &Ident, ty: Type, scope: &mut Scope) -> Result<()> {
        if scope.contains(&variable.name) {
            return Err(self.already_bound(&variable.name, variable.span));
        }
        scope.insert(&variable.name, ty);
        Ok(())
    }

    /// Checks the property maps and inline predicates of a chain whose variables are bound.
    fn pattern_properties(
        &mut self,
        chain: &PatternChain,
        scope: &Scope,
        usage: PatternUse,
    ) -> Result<()> {
        let mut env = Env::new(scope);
        for node in chain.nodes() {
            for label in &node.dynamic_labels {
                let ty = self.expr(label, &mut env, Ctx::PLAIN)?;
                if ty.is_not(&Type::String) && ty.is_not(&Type::list_of(Type::String)) {
                    return Err(self.type_mismatch("String or List<String>", &ty, label.span));
                }
            }
            self.element_properties(
                node.properties.as_ref(),
                node.predicate.as_ref(),
                usage,
                &mut env,
            )?;
        }
        for rel in chain.relationships() {
            self.element_properties(
                rel.properties.as_ref(),
                rel.predicate.as_ref(),
                usage,
                &mut env,
            )?;
        }
        Ok(())
    }

    fn element_properties(
        &mut self,
        properties: Option<&Expr>,
        predicate: Option<&Expr>,
        usage: PatternUse,
        env: &mut Env<'_>,
    ) -> Result<()> {
        if let Some(properties) = properties {
            if matches!(properties.kind, ExprKind::Parameter(_)) && usage != PatternUse::Create {
                return Err(self.syntax_error(
                    Detail::InvalidParameterUse,
                    format!(
                        "Parameter maps cannot be used in {} patterns (use a literal map \
                         instead, e.g. {{id: $param.id}})",
                        usage.keyword()
                    ),
                    properties.span,
                ));
            }
            self.expr(properties, env, Ctx::PLAIN)?;
        }
        if let Some(predicate) = predicate {
            if usage != PatternUse::Match {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    format!("WHERE is not allowed inside a {} pattern", usage.keyword()),
                    predicate.span,
                ));
            }
            self.predicate(predicate, env)?;
        }
        Ok(())
    }

    /// A pattern used as a predicate: every variable it names must already be bound.
    pub(crate) fn pattern_predicate(
        &mut self,
        chain: &PatternChain,
        env: &mut Env<'_>,
    ) -> Result<()> {
        let check = |this: &Self, variable: &Ident, wanted: &Type| -> Result<()> {
            match env.lookup(&variable.name) {
                None => Err(this.undefined(&variable.name, variable.span)),
                Some(ty) if ty.may_be(wanted) => Ok(()),
                Some(ty) => Err(this.type_conflict(
                    &variable.name,
                    &ty.to_string(),
                    &wanted.to_string(),
                    variable.span,
                )),
            }
        };
        for node in chain.nodes() {
            if let Some(variable) = &node.variable {
                check(self, variable, &Type::Node)?;
            }
        }
        for rel in chain.relationships() {
            if let Some(variable) = &rel.variable {
                check(self, variable, &relationship_type(rel))?;
            }
        }
        self.pattern_expressions(chain, env)
    }

    /// The property maps and inline predicates of a chain inside an expression.
    pub(crate) fn pattern_expressions(
        &mut self,
        chain: &PatternChain,
        env: &mut Env<'_>,
    ) -> Result<()> {
        for node in chain.nodes() {
            self.local_element(node.properties.as_ref(), node.predicate.as_ref(), env)?;
        }
        for rel in chain.relationships() {
            self.local_element(rel.properties.as_ref(), rel.predicate.as_ref(), env)?;
        }
        Ok(())
    }

    fn local_element(
        &mut self,
        properties: Option<&Expr>,
        predicate: Option<&Expr>,
        env: &mut Env<'_>,
    ) -> Result<()> {
        if let Some(properties) = properties {
            self.expr(properties, env, Ctx::PLAIN)?;
        }
        if let Some(predicate) = predicate {
            self.predicate(predicate, env)?;
        }
        Ok(())
    }

    /// The variables a pattern comprehension introduces, pushed as locals; returns how many.
    pub(crate) fn declare_local_pattern(
        &self,
        chain: &PatternChain,
        path: Option<&Ident>,
        env: &mut Env<'_>,
    ) -> Result<usize> {
        let mut pushed = 0;
        let mut declare = |env: &mut Env<'_>, variable: &Ident, ty: Type| -> Result<()> {
            match env.lookup(&variable.name) {
                None => {
                    env.push(&variable.name, ty);
                    pushed += 1;
                    Ok(())
                }
                Some(existing) if existing.may_be(&ty) => Ok(()),
                Some(existing) => Err(self.type_conflict(
                    &variable.name,
                    &existing.to_string(),
                    &ty.to_string(),
                    variable.span,
                )),
            }
        };
        if let Some(v) = &chain.start.variable {
            declare(env, v, Type::Node)?;
        }
        for step in &chain.steps {
            if let Some(v) = &step.relationship.variable {
                declare(env, v, relationship_type(&step.relationship))?;
            }
            if let Some(v) = &step.node.variable {
                declare(env, v, Type::Node)?;
            }
        }
        if let Some(path) = path {
            if env.lookup(&path.name).is_some() && !env.is_local(&path.name) {
                return Err(self.already_bound(&path.name, path.span));
            }
            env.push(&path.name, Type::Path);
            pushed += 1;
        }
        Ok(pushed)
    }

    /// `EXISTS { (a)-->(b) WHERE ... }` and its `COUNT`/`COLLECT` siblings' short form.
    pub(crate) fn subquery_pattern(
        &mut self,
        pattern: &[PatternPart],
        filter: Option<&Expr>,
        mut scope: Scope,
    ) -> Result<()> {
        self.match_pattern(pattern, &mut scope)?;
        if let Some(filter) = filter {
            self.predicate(filter, &mut Env::new(&scope))?;
        }
        Ok(())
    }

    /// Binds the variables of a `CREATE` pattern or a `MERGE` part into `scope`.
    pub(crate) fn create_pattern(
        &mut self,
        parts: &[PatternPart],
        scope: &mut Scope,
        usage: PatternUse,
    ) -> Result<()> {
        for part in parts {
            if part.selector != PathSelector::All {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    format!("shortestPath(...) cannot be used in {}", usage.keyword()),
                    part.span,
                ));
            }
            let lone_node = part.chain.steps.is_empty();
            self.create_node(&part.chain.start, lone_node, scope)?;
            for step in &part.chain.steps {
                self.create_relationship(&step.relationship, scope, usage)?;
                self.create_node(&step.node, false, scope)?;
            }
            self.pattern_properties(&part.chain, scope, usage)?;
            if let Some(path) = &part.path {
                self.bind_new(path, Type::Path, scope)?;
            }
        }
        Ok(())
    }

    /// A node in `CREATE`/`MERGE`: new, or a bound node used only as a relationship's end.
    fn create_node(&self, node: &NodePattern, lone: bool, scope: &mut Scope) -> Result<()> {
        if node.label_expr.is_some() {
            // Only `&` (or `:`) names labels a write can set; `|`, `!` and `%` do not.
            return Err(self.syntax_error(
                Detail::UnexpectedSyntax,
                "Label expressions in CREATE and MERGE may only use ':' and '&'",
                node.span,
            ));
        }
        let Some(variable) = &node.variable else {
            return Ok(());
        };
        let Some(existing) = scope.get(&variable.name) else {
            scope.insert(&variable.name, Type::Node);
            return Ok(());
        };
        if existing.is_not(&Type::Node) {
            return Err(self.type_conflict(
                &variable.name,
                &existing.to_string(),
                "Node",
                variable.span,
            ));
        }
        if lone
            || !node.labels.is_empty()
            || !node.dynamic_labels.is_empty()
            || node.properties.is_some()
        {
            return Err(self.already_bound(&variable.name, variable.span));
        }
        Ok(())
    }

    fn create_relationship(
        &self,
        rel: &RelationshipPattern,
        scope: &mut Scope,
        usage: PatternUse,
    ) -> Result<()> {
        if let Some(variable) = &rel.variable {
            self.bind_new(variable, Type::Relationship, scope)?;
        }
        if rel.types.len() != 1 || rel.type_expr.is_some() {
            return Err(self.syntax_error(
                Detail::NoSingleRelationshipType,
                format!(
                    "A single relationship type must be specified for {}",
                    usage.keyword()
                ),
                rel.span,
            ));
        }
        if usage == PatternUse::Create && rel.direction == Direction::Both {
            return Err(self.syntax_error(
                Detail::RequiresDirectedRelationship,
                "Only directed relationships are supported in CREATE",
                rel.span,
            ));
        }
        if rel.length.is_some() {
            return Err(self.syntax_error(
                Detail::CreatingVarLength,
                format!(
                    "Variable length relationships cannot be used in {}",
                    usage.keyword()
                ),
                rel.span,
            ));
        }
        Ok(())
    }
}
