//! Patterns: which variables they bind, the rules for binding each kind, and what `CREATE`
//! and `MERGE` can create.

use std::collections::HashSet;

use super::expr::Ctx;
use super::scope::{Env, Scope};
use super::types::Type;
use super::{Analyzer, Result};
use crate::ast::{
    Direction, Expr, ExprKind, Ident, LabelExpr, NodePattern, PathQuantifier, PathSelector,
    PatternChain, PatternPart, QuantifiedGroup, RelationshipPattern,
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
    if rel.length.is_some() || rel.quantifier.is_some() {
        Type::list_of(Type::Relationship)
    } else {
        Type::Relationship
    }
}

impl Analyzer<'_> {
    /// Binds the variables of a `MATCH` (or `EXISTS { pattern }`) pattern into `scope`, then
    /// checks its property maps and inline predicates.
    pub(crate) fn match_pattern(&mut self, parts: &[PatternPart], scope: &mut Scope) -> Result<()> {
        let before = scope.clone();
        let mut relationships = HashSet::new();
        let mut group_vars = HashSet::new();
        for part in parts {
            if matches!(
                part.selector,
                PathSelector::Shortest | PathSelector::AllShortest
            ) && part.chain.steps.len() != 1
            {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "shortestPath(...) requires a pattern containing a single relationship",
                    part.span,
                ));
            }
            if matches!(
                part.selector,
                PathSelector::Shortest | PathSelector::AllShortest
            ) && part.chain.is_quantified()
            {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "shortestPath(...) takes a variable-length relationship (*), not a \
                     quantifier: use SHORTEST 1 or ALL SHORTEST",
                    part.span,
                ));
            }
            self.check_part_shape(part)?;
            // Textual order decides which of two conflicting uses is reported.
            if let Some(variable) = &part.chain.start.variable {
                self.not_a_group_variable(variable, &group_vars)?;
                self.bind_node(variable, scope)?;
            }
            for step in &part.chain.steps {
                if let Some(group) = &step.group {
                    self.bind_group(group, &before, scope, &mut group_vars)?;
                } else if let Some(variable) = &step.relationship.variable {
                    self.not_a_group_variable(variable, &group_vars)?;
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
                    if step.relationship.quantifier.is_some() && before.contains(&variable.name) {
                        return Err(self.already_bound(&variable.name, variable.span));
                    }
                    self.bind_relationship(variable, relationship_type(&step.relationship), scope)?;
                }
                if let Some(variable) = &step.node.variable {
                    self.not_a_group_variable(variable, &group_vars)?;
                    self.bind_node(variable, scope)?;
                }
            }
            if let Some(path) = &part.path {
                self.bind_new(path, Type::Path, scope)?;
            }
        }
        for part in parts {
            self.pattern_properties(&part.chain, scope, PatternUse::Match)?;
            for group in part.chain.groups() {
                self.group_predicates(group, &before)?;
            }
            if let Some(predicate) = &part.predicate {
                self.predicate(predicate, &mut Env::new(scope))?;
            }
        }
        Ok(())
    }

    /// The rules of selectors, path modes, quantifiers and groups that need no scope.
    fn check_part_shape(&self, part: &PatternPart) -> Result<()> {
        let chain = &part.chain;
        if let PathSelector::Any(k) | PathSelector::ShortestK(k) | PathSelector::ShortestGroups(k) =
            part.selector
            && k == 0
        {
            return Err(self.syntax_error(
                Detail::InvalidArgumentValue,
                "The number of paths of a path selector must be greater than 0",
                part.span,
            ));
        }
        if (part.selector.is_gql() || part.mode.is_some()) && chain.steps.is_empty() {
            return Err(self.syntax_error(
                Detail::UnexpectedSyntax,
                "A path selector or path mode needs a pattern with at least one relationship",
                part.span,
            ));
        }
        for step in &chain.steps {
            let quantifier = match &step.group {
                Some(group) => Some((group.quantifier, group.span)),
                None => step
                    .relationship
                    .quantifier
                    .map(|q| (q, step.relationship.span)),
            };
            if let Some((quantifier, span)) = quantifier {
                self.check_quantifier(quantifier, span)?;
            }
            if step.relationship.quantifier.is_some() && step.relationship.length.is_some() {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "A variable-length relationship cannot be quantified",
                    step.relationship.span,
                ));
            }
            if step.group.is_none() && step.relationship.length.is_some() && chain.is_quantified() {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "Variable-length relationships (*) cannot be mixed with quantified path \
                     patterns in one path pattern",
                    step.relationship.span,
                ));
            }
            if let Some(group) = &step.group {
                self.check_group_shape(group)?;
            }
        }
        let fixed = chain.steps.iter().any(|s| match &s.group {
            Some(g) => g.quantifier.min > 0,
            None => s.relationship.quantifier.is_none_or(|q| q.min > 0),
        });
        if !chain.steps.is_empty() && !fixed && chain.steps.iter().all(|s| s.group.is_some()) {
            let anonymous_ends = chain.nodes().all(|n| n == &NodePattern::anonymous(n.span));
            if anonymous_ends {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "A path pattern must match at least one element: a quantified path \
                     pattern on its own needs a lower bound above 0",
                    chain.span,
                ));
            }
        }
        Ok(())
    }

    fn check_quantifier(&self, quantifier: PathQuantifier, span: Span) -> Result<()> {
        if let Some(max) = quantifier.max {
            if max == 0 {
                return Err(self.syntax_error(
                    Detail::InvalidArgumentValue,
                    "The upper bound of a quantifier must be greater than 0",
                    span,
                ));
            }
            if max < quantifier.min {
                return Err(self.syntax_error(
                    Detail::InvalidArgumentValue,
                    format!(
                        "The lower bound of a quantifier ({}) must not exceed its upper \
                         bound ({max})",
                        quantifier.min
                    ),
                    span,
                ));
            }
        }
        Ok(())
    }

    /// A group holds at least one relationship, no nested quantifier, no variable-length
    /// relationship.
    fn check_group_shape(&self, group: &QuantifiedGroup) -> Result<()> {
        if group.chain.steps.is_empty() {
            return Err(self.syntax_error(
                Detail::UnexpectedSyntax,
                "A quantified path pattern must contain at least one relationship",
                group.span,
            ));
        }
        for step in &group.chain.steps {
            if step.group.is_some() || step.relationship.quantifier.is_some() {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "Quantified path patterns cannot be nested",
                    step.relationship.span,
                ));
            }
            if step.relationship.length.is_some() {
                return Err(self.syntax_error(
                    Detail::UnexpectedSyntax,
                    "A variable-length relationship (*) cannot be used inside a quantified \
                     path pattern",
                    step.relationship.span,
                ));
            }
        }
        Ok(())
    }

    fn not_a_group_variable(&self, variable: &Ident, group_vars: &HashSet<String>) -> Result<()> {
        if group_vars.contains(&variable.name) {
            return Err(self.already_bound(&variable.name, variable.span));
        }
        Ok(())
    }

    /// A group's variables: new names, each a list outside the group.
    fn bind_group(
        &self,
        group: &QuantifiedGroup,
        before: &Scope,
        scope: &mut Scope,
        group_vars: &mut HashSet<String>,
    ) -> Result<()> {
        let mut inner = HashSet::new();
        let mut inner_nodes = HashSet::new();
        let mut bind = |this: &Self, variable: &Ident, ty: Type| -> Result<()> {
            if ty == Type::Node && inner_nodes.contains(&variable.name) {
                // The same node again in the iteration: `((a)-->(b)-->(a))`.
                return Ok(());
            }
            if ty == Type::Node {
                inner_nodes.insert(variable.name.clone());
            }
            if before.contains(&variable.name)
                || scope.contains(&variable.name)
                || !inner.insert(variable.name.clone())
            {
                return Err(this.already_bound(&variable.name, variable.span));
            }
            group_vars.insert(variable.name.clone());
            scope.insert(&variable.name, Type::list_of(ty));
            Ok(())
        };
        let chain = &group.chain;
        if let Some(v) = &chain.start.variable {
            bind(self, v, Type::Node)?;
        }
        for step in &chain.steps {
            if let Some(v) = &step.relationship.variable {
                bind(self, v, Type::Relationship)?;
            }
            if let Some(v) = &step.node.variable {
                bind(self, v, Type::Node)?;
            }
        }
        Ok(())
    }

    /// A group's property maps and predicates see its own variables as single elements and
    /// the variables bound before the clause, nothing else of the clause.
    fn group_predicates(&mut self, group: &QuantifiedGroup, before: &Scope) -> Result<()> {
        let mut scope = before.clone();
        let chain = &group.chain;
        for node in chain.nodes() {
            if let Some(v) = &node.variable {
                scope.insert(&v.name, Type::Node);
            }
        }
        for rel in chain.relationships() {
            if let Some(v) = &rel.variable {
                scope.insert(&v.name, Type::Relationship);
            }
        }
        self.pattern_properties(chain, &scope, PatternUse::Match)?;
        if let Some(predicate) = &group.predicate {
            self.predicate(predicate, &mut Env::new(&scope))?;
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
        if self.is_new_binding(variable, scope.get(&variable.name), &ty)? {
            scope.insert(&variable.name, ty);
        }
        Ok(())
    }

    /// Checks `variable`, written as a `ty`, against its earlier binding `existing`: true when
    /// there is none and it must be bound, false when it names that one, an error when the two
    /// types conflict.
    fn is_new_binding(&self, variable: &Ident, existing: Option<&Type>, ty: &Type) -> Result<bool> {
        match existing {
            None => Ok(true),
            Some(existing) if existing.may_be(ty) => Ok(false),
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

    /// The error for `what`, written in a pattern of the clause `usage` names, which does not
    /// allow it.
    fn not_allowed_in(&self, detail: Detail, what: &str, usage: PatternUse, span: Span) -> Error {
        self.syntax_error(
            detail,
            format!("{what} cannot be used in {}", usage.keyword()),
            span,
        )
    }

    /// Refuses `$any(...)` labels or types (`what`) of the element at `span` outside MATCH.
    fn any_only_in_match(
        &self,
        any: &[Expr],
        what: &str,
        span: Span,
        usage: PatternUse,
    ) -> Result<()> {
        if usage != PatternUse::Match && !any.is_empty() {
            return Err(self.not_allowed_in(
                Detail::UnexpectedSyntax,
                &format!("$any(...) {what}"),
                usage,
                span,
            ));
        }
        Ok(())
    }

    /// Checks that each dynamic label or relationship type is a string or a list of strings.
    fn dynamic_names<'e>(
        &mut self,
        names: impl Iterator<Item = &'e Expr>,
        env: &mut Env<'_>,
    ) -> Result<()> {
        for name in names {
            let ty = self.expr(name, env, Ctx::PLAIN)?;
            if ty.is_not(&Type::String) && ty.is_not(&Type::list_of(Type::String)) {
                return Err(self.type_mismatch("String or List<String>", &ty, name.span));
            }
        }
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
            self.any_only_in_match(&node.dynamic_any, "labels", node.span, usage)?;
            let in_expr = node.label_expr.iter().flat_map(LabelExpr::dynamic_exprs);
            let labels = node.dynamic_labels.iter().chain(&node.dynamic_any);
            self.dynamic_names(labels.chain(in_expr), &mut env)?;
            self.element_properties(
                node.properties.as_ref(),
                node.predicate.as_ref(),
                usage,
                &mut env,
            )?;
        }
        for rel in chain.relationships() {
            self.any_only_in_match(&rel.dynamic_any, "types", rel.span, usage)?;
            let in_expr = rel.type_expr.iter().flat_map(LabelExpr::dynamic_exprs);
            let types = rel.dynamic_types.iter().chain(&rel.dynamic_any);
            self.dynamic_names(types.chain(in_expr), &mut env)?;
            let (properties, predicate) = (rel.properties.as_ref(), rel.predicate.as_ref());
            if let (Some(_), Some(variable)) = (&rel.quantifier, &rel.variable) {
                // Inside the quantifier the variable is one relationship.
                let mut single = scope.clone();
                single.insert(&variable.name, Type::Relationship);
                let mut env = Env::new(&single);
                self.element_properties(properties, predicate, usage, &mut env)?;
            } else {
                self.element_properties(properties, predicate, usage, &mut env)?;
            }
        }
        Ok(())
    }

    /// Patterns inside expressions (pattern predicates and comprehensions) take no
    /// quantifiers: Neo4j allows them in `EXISTS { }`, `COUNT { }` and `COLLECT { }`.
    fn no_quantifier_in_expression(&self, chain: &PatternChain) -> Result<()> {
        if chain.is_quantified() {
            return Err(self.syntax_error(
                Detail::UnsupportedFeature,
                "Quantified path patterns in pattern expressions and comprehensions are not \
                 supported (use EXISTS { }, COUNT { } or COLLECT { })",
                chain.span,
            ));
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
        self.no_quantifier_in_expression(chain)?;
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
        self.no_quantifier_in_expression(chain)?;
        let mut pushed = 0;
        let mut declare = |env: &mut Env<'_>, variable: &Ident, ty: Type| -> Result<()> {
            if self.is_new_binding(variable, env.lookup(&variable.name).as_ref(), &ty)? {
                env.push(&variable.name, ty);
                pushed += 1;
            }
            Ok(())
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
            // The first of these forms the part is written in refuses it.
            let refused = [
                (part.selector != PathSelector::All, "shortestPath(...)"),
                (part.predicate.is_some(), "A parenthesised path pattern"),
                (
                    part.mode.is_some() || part.chain.is_quantified(),
                    "Quantified path patterns and path modes",
                ),
            ];
            if let Some((_, what)) = refused.iter().find(|(written, _)| *written) {
                return Err(self.not_allowed_in(Detail::UnexpectedSyntax, what, usage, part.span));
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
        let named = rel.types.len() + rel.dynamic_types.len() + rel.dynamic_any.len();
        if named != 1 || rel.type_expr.is_some() {
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
            return Err(self.not_allowed_in(
                Detail::CreatingVarLength,
                "Variable length relationships",
                usage,
                rel.span,
            ));
        }
        Ok(())
    }
}
