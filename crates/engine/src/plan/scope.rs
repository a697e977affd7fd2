//! Variables in scope while planning: each name maps to the slot that holds its value.

use std::sync::Arc;

/// What a variable is known to hold, for type-conflict checks and path building.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Node,
    Rel,
    /// The relationships of a variable-length pattern.
    RelList,
    Path,
    /// A value known not to be a graph entity (a literal, list or map).
    Value,
    Any,
}

#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub name: Arc<str>,
    pub slot: usize,
    pub kind: Kind,
}

/// The variables visible at some point of a query, in the order they were introduced.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scope {
    pub vars: Vec<Var>,
}

impl Scope {
    /// The innermost variable of that name.
    pub fn get(&self, name: &str) -> Option<&Var> {
        self.vars.iter().rev().find(|v| &*v.name == name)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Adds a variable, shadowing any earlier one of the same name.
    pub fn bind(&mut self, name: &str, slot: usize, kind: Kind) {
        self.vars.push(Var {
            name: Arc::from(name),
            slot,
            kind,
        });
    }

    /// Slots of every visible variable (each once).
    pub fn slots(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::with_capacity(self.vars.len());
        for v in &self.vars {
            if !out.contains(&v.slot) {
                out.push(v.slot);
            }
        }
        out
    }

    /// Visible names, innermost binding of each, in introduction order.
    pub fn names(&self) -> Vec<Arc<str>> {
        let mut out: Vec<Arc<str>> = Vec::new();
        for v in &self.vars {
            if !out.contains(&v.name) {
                out.push(v.name.clone());
            }
        }
        out
    }
}
