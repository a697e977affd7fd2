//! The variables visible at a point of a query, and the local variables of the expression
//! being checked (comprehension and quantifier variables, `reduce` accumulators).

use std::collections::BTreeMap;

use super::types::Type;

/// Variables in scope between clauses. Ordered by name, which is the order `RETURN *` uses.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    vars: BTreeMap<String, Type>,
}

impl Scope {
    pub(crate) fn get(&self, name: &str) -> Option<&Type> {
        self.vars.get(name)
    }

    pub(crate) fn contains(&self, name: &str) -> bool {
        self.vars.contains_key(name)
    }

    pub(crate) fn insert(&mut self, name: &str, ty: Type) {
        self.vars.insert(name.to_string(), ty);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &Type)> {
        self.vars.iter()
    }
}

/// The scope plus the expression's local variables, innermost last.
pub(crate) struct Env<'s> {
    pub(crate) scope: &'s Scope,
    locals: Vec<(String, Type)>,
}

impl<'s> Env<'s> {
    pub(crate) fn new(scope: &'s Scope) -> Self {
        Env {
            scope,
            locals: Vec::new(),
        }
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<Type> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone())
            .or_else(|| self.scope.get(name).cloned())
    }

    pub(crate) fn is_local(&self, name: &str) -> bool {
        self.locals.iter().any(|(n, _)| n == name)
    }

    pub(crate) fn push(&mut self, name: &str, ty: Type) {
        self.locals.push((name.to_string(), ty));
    }

    pub(crate) fn pop(&mut self, count: usize) {
        let keep = self.locals.len().saturating_sub(count);
        self.locals.truncate(keep);
    }

    /// The scope a subquery inside this expression starts from: everything visible here.
    pub(crate) fn flattened(&self) -> Scope {
        let mut scope = self.scope.clone();
        for (name, ty) in &self.locals {
            scope.insert(name, ty.clone());
        }
        scope
    }
}
