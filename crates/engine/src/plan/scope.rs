//! Variables in scope while planning: each name maps to the slot that holds its value.
//!
//! Which variables are visible after a clause, and what they hold, is the semantic analysis's
//! record ([`quiver_cypher::Analysis::scope_after`]); the planner adds only the slots, and
//! settles its scope on the record after every clause.

use std::sync::Arc;

use quiver_cypher::semantic::ScopeVar;
pub(crate) use quiver_cypher::semantic::VarKind as Kind;

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

    /// Adds a variable, shadowing any earlier one of the same name; its kind is
    /// [`Kind::Any`] until the scope is settled on the analysis's record.
    pub fn bind(&mut self, name: &str, slot: usize) {
        self.vars.push(Var {
            name: Arc::from(name),
            slot,
            kind: Kind::Any,
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

    /// Settles the scope on the analysis's record of the scope after a clause: a variable the
    /// record does not list is no longer visible, and every kind is the record's.
    pub fn settle(&mut self, recorded: &[ScopeVar]) {
        self.vars
            .retain_mut(|v| match recorded.iter().find(|r| *r.name == *v.name) {
                Some(r) => {
                    v.kind = r.kind;
                    true
                }
                None => false,
            });
    }
}
