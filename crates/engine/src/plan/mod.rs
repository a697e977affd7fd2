//! The planner: turns a parsed and analysed statement into an IR plan (see [`crate::ir`]).
//!
//! Start points are chosen by estimated cardinality (label counts, index selectivity), filters
//! are pushed down to where their variables are bound, and EXPLAIN/PROFILE descriptions are
//! rendered from the finished tree.

mod calls;
mod clauses;
mod constraints;
mod explain;
mod expr;
mod factorize;
mod pattern;
mod projection;
mod scope;
mod seeks;
mod writes;

pub(crate) use crate::ir::Compiled;
pub(crate) use clauses::compile;
pub(crate) use explain::describe_query;
pub(crate) use factorize::fast_counts_allowed;

#[cfg(test)]
mod tests;
