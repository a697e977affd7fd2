//! The engine's intermediate representation: compiled expressions and plan trees.
//!
//! The planner produces it, the executor instantiates cursors from it and the evaluator runs
//! its expressions. It holds data and the small helpers that only read that data; it depends
//! on none of `plan`, `exec` or `eval`, so those three depend on it and not on each other's
//! types.

mod expr;
mod plan;

use quiver_value::Value;

pub(crate) use expr::{
    AggKind, AggSpec, BinOp, ChainOp, Expr, GraphFn, LabelPred, MapProjItem, PathPart, Quantifier,
    ScalarFn, SubKind,
};
pub(crate) use plan::{
    BatchFailure, ChainCountSpec, ChainGroup, ChainHop, ChainNode, Command, Compiled, CreateStep,
    ExpandSpec, IndexSeekSpec, LoadCsvSpec, MergeSpec, Op, PathSearchSpec, PathStep, PathVar,
    PlanNode, Props, SchemaArgs, SchemaName, Seek, SeekTarget, Selection, SetOp, ShortestSpec,
    SortKey, TransactionBatches, VarExpandSpec, VectorIndexCommand,
};

/// A row of slots; every variable of a query owns one slot for the whole query.
pub(crate) type Row = Vec<Value>;
