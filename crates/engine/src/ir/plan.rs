//! Plans: the operator trees the planner builds and the executor instantiates.
//!
//! A [`PlanNode`] tree is immutable and shared: the plan cache keeps it, and every run builds
//! fresh cursors from it. Variables are slots, names are tokens, parameters are indexes, so
//! nothing in a plan depends on one run's parameters.
//!
//! What an operator reads on every row (expressions, slot lists, specs) sits behind an `Arc`,
//! so a cursor takes its own handle on it once, when the cursor tree is built, and never looks
//! at the plan node again.

use std::sync::Arc;

use quiver_storage::{Direction, IndexKind};

use super::expr::{AggSpec, ChainOp, Expr};
use crate::procedures::Procedure;
use crate::summary::{Notification, QueryType};
use crate::tokens::Token;

/// One operator of a plan, with what EXPLAIN shows about it.
#[derive(Debug)]
pub(crate) struct PlanNode {
    /// Position in the plan, for PROFILE figures.
    pub id: usize,
    pub op: Op,
    pub est_rows: f64,
    /// Variables in scope after this operator, for EXPLAIN.
    pub vars: Vec<Arc<str>>,
}

/// What an index seek looks for; bounds are expressions evaluated per input row.
#[derive(Debug)]
pub(crate) enum Seek {
    Eq(Expr),
    In(Expr),
    Range {
        lower: Option<(Expr, bool)>,
        upper: Option<(Expr, bool)>,
    },
    Prefix(Expr),
    /// `key CONTAINS part`, through a text index.
    Contains(Expr),
    /// `key ENDS WITH suffix`, through a text index.
    EndsWith(Expr),
    /// `point.distance(key, center) < radius` (`<=` when `inclusive`), through a point index.
    Distance {
        center: Expr,
        radius: Expr,
        inclusive: bool,
    },
    /// `point.withinBBox(key, lower, upper)`, through a point index.
    BBox {
        lower: Expr,
        upper: Expr,
    },
}

/// What a seek through a node or relationship property index binds.
#[derive(Debug)]
pub(crate) enum SeekTarget {
    /// The nodes of a label, into `slot`.
    Node { slot: usize },
    /// The relationships of a type into `rel`, with their ends into `from` and `to`: `Out`
    /// binds each relationship's start to `from`, `In` its end, and `Both` each one both
    /// ways (a loop once), as `Expand` walks them.
    Rel {
        rel: usize,
        from: usize,
        to: usize,
        dir: Direction,
        /// Relationship slots bound earlier in the same pattern (relationship uniqueness).
        exclude: Vec<usize>,
        exclude_lists: Vec<usize>,
    },
}

/// A seek through an index over `keys` (in index order) of the nodes of label `token` or
/// the relationships of type `token`: equal to `prefix` on every key but the last, and
/// `seek` on the last.
#[derive(Debug)]
pub(crate) struct IndexSeekSpec {
    pub target: SeekTarget,
    pub token: Arc<Token>,
    pub keys: Vec<Arc<Token>>,
    pub prefix: Vec<Expr>,
    pub seek: Seek,
    /// The kind of index the plan was made for (EXPLAIN names the operator after it).
    pub kind: IndexKind,
}

#[derive(Debug)]
pub(crate) struct ExpandSpec {
    pub from: usize,
    pub rel: usize,
    pub to: usize,
    pub dir: Direction,
    pub types: Vec<Arc<Token>>,
    /// Both ends are bound: keep only relationships that reach `to`.
    pub into: bool,
    /// Relationship slots bound earlier in the same pattern (relationship uniqueness).
    pub exclude: Vec<usize>,
    /// Relationship-list slots (variable-length) bound earlier in the same pattern.
    pub exclude_lists: Vec<usize>,
}

/// A count of the paths of a chain of single-hop expansions, computed per node instead of per
/// path (see `exec::factorized`). The chain is in path order: `hops[i]` joins `nodes[i]` to
/// `nodes[i + 1]`.
#[derive(Debug)]
pub(crate) struct ChainCountSpec {
    pub nodes: Vec<ChainNode>,
    pub hops: Vec<ChainHop>,
    /// Receives the count.
    pub out: usize,
    /// The grouping keys, when the paths are counted per group rather than in total.
    pub group: Option<ChainGroup>,
    /// With grouping keys, a predicate on one chain node (index into `nodes`) that a path
    /// must satisfy to be counted (`count(x.p)`: `x.p IS NOT NULL`), while every path still
    /// makes its group appear, with 0 if none satisfies it. Without keys it is a filter.
    pub counted: Option<(usize, Expr)>,
    /// The ways two of the paths' relationships that must differ could be one relationship,
    /// each as the pairs of chain nodes (indices into `nodes`) it would make one node. The
    /// count is exact only when none can happen: each must have a pair whose required labels
    /// no node carries together, checked against the data when the count runs; otherwise the
    /// row-at-a-time plan counts instead.
    pub meetings: Vec<Vec<(usize, usize)>>,
}

/// Grouping keys of a counted chain that all read one of its nodes: the paths are counted
/// per node there, and the nodes' counts summed per key.
#[derive(Debug)]
pub(crate) struct ChainGroup {
    /// The chain node (index into `nodes`) the keys read.
    pub at: usize,
    /// (output slot, key): each key reads only that node's slot.
    pub keys: Vec<(usize, Expr)>,
}

/// One node of a counted chain: the slot its predicate reads it from, and the predicate.
#[derive(Debug)]
pub(crate) struct ChainNode {
    pub slot: usize,
    /// Labels and property filters on this node alone; `None`: any node.
    pub predicate: Option<Expr>,
    /// What is left of `predicate` to ask of a node known to carry its required label
    /// ([`ChainNode::required_label`]) when that label is not all it asks.
    pub after_label: Option<Expr>,
}

impl ChainNode {
    /// The node at `slot` with `predicate`, and what is left of it past its required label.
    pub(crate) fn new(slot: usize, predicate: Option<Expr>) -> ChainNode {
        let mut node = ChainNode {
            slot,
            predicate,
            after_label: None,
        };
        if let (Some((_, false)), Some(predicate)) = (node.required_label(), &node.predicate) {
            let mut dropped = false;
            let rest: Vec<Expr> = conjuncts(predicate)
                .into_iter()
                .filter(|c| {
                    let label = !dropped && node.label_of(c).is_some();
                    dropped |= label;
                    !label
                })
                .cloned()
                .collect();
            node.after_label = Expr::all(rest);
        }
        node
    }

    /// The label `conjunct` requires of the node, when it is a single-label test of it.
    fn label_of(&self, conjunct: &Expr) -> Option<Arc<Token>> {
        match conjunct {
            Expr::HasLabels(x, labels) if matches!(**x, Expr::Slot(s) if s == self.slot) => {
                match labels.as_slice() {
                    [label] => Some(label.clone()),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A label the predicate requires of the node (a conjunct `slot:Label`), and whether that
    /// is all it requires.
    pub(crate) fn required_label(&self) -> Option<(Arc<Token>, bool)> {
        let predicate = self.predicate.as_ref()?;
        if let Some(label) = self.label_of(predicate) {
            return Some((label, true));
        }
        let label = conjuncts(predicate)
            .into_iter()
            .find_map(|c| self.label_of(c))?;
        Some((label, false))
    }
}

/// The conjuncts of `predicate` (itself alone when it is no conjunction).
fn conjuncts(predicate: &Expr) -> Vec<&Expr> {
    match predicate {
        Expr::And(a, b) => vec![a, b],
        Expr::Chain(first, rest) if rest.iter().all(|(op, _)| matches!(op, ChainOp::And)) => {
            std::iter::once(&**first)
                .chain(rest.iter().map(|(_, e)| e))
                .collect()
        }
        _ => vec![predicate],
    }
}

/// One hop of a counted chain, seen from the node before it.
#[derive(Debug)]
pub(crate) struct ChainHop {
    pub dir: Direction,
    pub types: Vec<Arc<Token>>,
    /// The hop may not reuse the previous hop's relationship (relationship uniqueness in
    /// one pattern): the paths where it does are subtracted.
    pub distinct_from_previous: bool,
    /// The hop's length in relationships, `1..=1` but for a variable-length hop, whose inner
    /// nodes carry no predicate.
    pub min: u32,
    pub max: u32,
}

#[derive(Debug)]
pub(crate) struct VarExpandSpec {
    pub from: usize,
    /// Receives the list of relationships, in pattern order.
    pub rels: usize,
    pub to: usize,
    pub dir: Direction,
    pub types: Vec<Arc<Token>>,
    pub min: u32,
    pub max: u32,
    pub into: bool,
    /// The expansion walks from the pattern's right end: reverse the list before binding.
    pub reversed: bool,
    pub exclude: Vec<usize>,
    pub exclude_lists: Vec<usize>,
    /// A predicate every relationship on the path must satisfy, reading it from `slot`.
    pub rel_filter: Option<(usize, Expr)>,
}

#[derive(Debug)]
pub(crate) struct ShortestSpec {
    pub from: usize,
    pub to: usize,
    /// `to` is bound: search for it (else every node reached is an end, bound into `to`).
    pub into: bool,
    pub rels: usize,
    pub dir: Direction,
    pub types: Vec<Arc<Token>>,
    pub min: u32,
    pub max: u32,
    pub all: bool,
    pub rel_filter: Option<(usize, Expr)>,
    /// GQL's selectors (`SHORTEST 1`, `ALL SHORTEST` over one quantified relationship): a
    /// path from a node back to itself is a cycle of at least `min` (1) hops, and
    /// relationships bound elsewhere in the pattern are not used. `shortestPath` has neither.
    pub gql: bool,
    /// The search runs from the pattern's right end: the relationships are written reversed.
    pub reversed: bool,
    pub exclude: Vec<usize>,
    pub exclude_lists: Vec<usize>,
}

/// One instruction of a path program: a stretch of pattern (quantified groups, and for a
/// selector or path mode the whole path) as a linear automaton the path search walks.
#[derive(Debug)]
pub(crate) enum PathStep {
    /// Tests the node the search stands on; binds it to `var`.
    Node {
        var: usize,
        checks: Vec<Expr>,
        /// The checks read other variables of the program: restore them first.
        restore: bool,
    },
    /// Walks one relationship to its other node; binds it to `var`.
    Hop {
        var: usize,
        dir: Direction,
        types: Vec<Arc<Token>>,
        checks: Vec<Expr>,
        restore: bool,
    },
    /// Starts a group's iterations (its body follows); `exit` is the step after its `Leave`.
    Enter { min: u32, exit: usize },
    /// Ends one iteration: its `checks` (the group's WHERE) must hold; then either another
    /// iteration from `body` (fewer than `max` so far) or on (at least `min`).
    Leave {
        min: u32,
        max: u32,
        body: usize,
        checks: Vec<Expr>,
    },
}

/// A variable of a path program.
#[derive(Debug)]
pub(crate) struct PathVar {
    /// Where the element is written while the search runs (its predicates read it there).
    pub scratch: usize,
    /// Where the match writes it: the element, or for a group variable the list of them.
    pub out: Option<usize>,
    pub group: bool,
    pub rel: bool,
    /// The search remembers its bindings (it is written out or read by another's check).
    pub keep: bool,
}

/// Which paths a search keeps, per end node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    All,
    Any(u64),
    Shortest(u64),
    AllShortest,
    ShortestGroups(u64),
}

#[derive(Debug)]
pub(crate) struct PathSearchSpec {
    pub from: usize,
    pub to: usize,
    /// Both ends are bound: keep only paths that end at `to`.
    pub into: bool,
    pub steps: Vec<PathStep>,
    pub vars: Vec<PathVar>,
    /// Receives every relationship of the stretch, in pattern order.
    pub rels: usize,
    /// The program runs from the pattern's right end: lists are reversed when written.
    pub reversed: bool,
    /// No node twice on the stretch (`ACYCLIC`).
    pub acyclic: bool,
    pub selection: Selection,
    pub exclude: Vec<usize>,
    pub exclude_lists: Vec<usize>,
    /// A parenthesised path pattern's WHERE, tested on each whole path (bound into the row,
    /// the named path first built into its slot when it has one) before the selector
    /// counts it.
    pub filter: Option<Expr>,
    pub filter_path: Option<(usize, Expr)>,
}

#[derive(Debug)]
pub(crate) struct SortKey {
    pub expr: Expr,
    pub descending: bool,
}

/// Property values of a created entity.
#[derive(Debug)]
pub(crate) enum Props {
    None,
    Map(Vec<(Arc<Token>, Expr)>),
    /// A parameter or other expression that evaluates to a map.
    Expr(Expr),
}

#[derive(Debug)]
pub(crate) enum CreateStep {
    Node {
        slot: usize,
        labels: Vec<Arc<Token>>,
        /// `CREATE (n:$(expr))`: labels named at run time.
        dynamic: Vec<Expr>,
        props: Props,
    },
    Rel {
        slot: usize,
        from: usize,
        to: usize,
        ty: Arc<Token>,
        /// `CREATE ()-[:$(expr)]->()`: the type named at run time (then `ty` is unused).
        dynamic: Option<Expr>,
        props: Props,
    },
}

#[derive(Debug)]
pub(crate) enum SetOp {
    Prop {
        entity: Expr,
        key: Arc<Token>,
        value: Expr,
    },
    /// `n[key] = value`: the key named at run time.
    DynamicProp {
        entity: Expr,
        key: Expr,
        value: Expr,
    },
    /// `REMOVE n[key]`
    RemoveDynamicProp {
        entity: Expr,
        key: Expr,
    },
    /// `n = map` (or `n = m`: copy an entity's properties).
    Replace {
        entity: Expr,
        value: Expr,
    },
    /// `n += map`
    Merge {
        entity: Expr,
        value: Expr,
    },
    AddLabels {
        entity: Expr,
        labels: Vec<Arc<Token>>,
    },
    RemoveProp {
        entity: Expr,
        key: Arc<Token>,
    },
    RemoveLabels {
        entity: Expr,
        labels: Vec<Arc<Token>>,
    },
    /// `SET n:$(expr)`: each expression a label name or a list of them.
    AddDynamicLabels {
        entity: Expr,
        labels: Vec<Expr>,
    },
    /// `REMOVE n:$(expr)`
    RemoveDynamicLabels {
        entity: Expr,
        labels: Vec<Expr>,
    },
}

/// What MERGE does besides matching: the entities to create when nothing matched and the
/// updates of either branch.
#[derive(Debug)]
pub(crate) struct MergeSpec {
    pub create: Vec<CreateStep>,
    pub on_match: Vec<SetOp>,
    pub on_create: Vec<SetOp>,
    /// Named path of the pattern, rebuilt after a create.
    pub path: Option<(usize, Expr)>,
}

/// The name a schema command gives or drops, as planned: written in the statement, or the
/// parameter holding it, read when the command runs. Plans are cached by text without the
/// parameters' values, so a name given by a parameter cannot be known before then.
#[derive(Debug, Clone)]
pub(crate) enum SchemaName {
    Given(String),
    /// `$name`: the parameter's slot, and its name for the error a non-String value raises.
    Param {
        index: usize,
        name: Arc<str>,
    },
}

/// What an index or constraint command names and configures, planned as expressions and
/// evaluated when the command runs (`exec::command::resolve`, the one place that reads them
/// against the parameters), so the literal and the parameterised forms build the same
/// definition and one cached plan serves any values.
#[derive(Debug, Clone, Default)]
pub(crate) struct SchemaArgs {
    /// `None` when the statement names nothing: the definition's default name is used.
    pub name: Option<SchemaName>,
    /// The `OPTIONS` map, any expression inside it.
    pub options: Option<Expr>,
}

/// `CREATE VECTOR INDEX`, planned.
#[derive(Debug)]
pub(crate) struct VectorIndexCommand {
    pub args: SchemaArgs,
    pub relationship: bool,
    /// The label, or the relationship type.
    pub token: Arc<Token>,
    pub key: Arc<Token>,
    /// The keys a search may filter on inside the index (`WITH [n.a, n.b]`).
    pub with_keys: Vec<Arc<Token>>,
    pub if_not_exists: bool,
}

/// Schema and administration commands: run once when the query starts.
#[derive(Debug)]
pub(crate) enum Command {
    /// `CREATE [RANGE|TEXT|POINT] INDEX` over properties, or a uniqueness or key constraint
    /// (`kind` says which). Their options are evaluated and otherwise taken as given.
    CreateIndex {
        args: SchemaArgs,
        relationship: bool,
        /// The label, or the relationship type.
        label: Arc<Token>,
        keys: Vec<Arc<Token>>,
        kind: quiver_storage::IndexKind,
        if_not_exists: bool,
    },
    /// `CREATE VECTOR INDEX`: the configuration is read from the options when it runs.
    CreateVectorIndex(VectorIndexCommand),
    Drop {
        name: SchemaName,
        constraint: bool,
        if_exists: bool,
    },
    /// `CREATE FULLTEXT INDEX`: `spec` holds the default name, analyzer and consistency,
    /// which the resolved name and options replace when the command runs.
    CreateFulltextIndex {
        args: SchemaArgs,
        spec: quiver_storage::FulltextSpec,
        if_not_exists: bool,
    },
    /// `CREATE CONSTRAINT ... IS NOT NULL` or `... IS :: type`; `spec` holds the default
    /// name, which a given one replaces when the command runs (no options are taken).
    CreatePropertyConstraint {
        name: Option<SchemaName>,
        spec: quiver_storage::PropertyConstraintSpec,
        if_not_exists: bool,
    },
    ShowIndexes {
        constraints: bool,
        /// `SHOW VECTOR INDEXES` lists vector indexes only.
        vector_only: bool,
    },
    /// `SHOW TRANSACTIONS [ids]`: every running transaction, or those named (each
    /// expression a String or a list of Strings).
    ShowTransactions(Vec<Expr>),
    TerminateTransactions(Vec<Expr>),
    /// `SHOW DATABASES`, `PROCEDURES`, `FUNCTIONS`, `SETTINGS`, `CURRENT USER`, `USERS`,
    /// `ROLES`, `PRIVILEGES`.
    Show(crate::metadata::show::ShowTable),
    /// User and role administration; `passwords` are the command's password expressions in
    /// `AdminCommand::expressions`' order, `names` the parameters naming users or roles with
    /// their indexes, bound when the command runs so its plan serves any name.
    Admin {
        command: quiver_cypher::ast::AdminCommand,
        passwords: Vec<Expr>,
        names: Vec<(Arc<str>, usize)>,
    },
    /// Database management (see [`crate::catalog`]); `values` are the command's expressions in
    /// `DatabaseCommand::expressions`' order, `names` its name parameters with their indexes.
    Database {
        command: quiver_cypher::ast::DatabaseCommand,
        values: Vec<Expr>,
        names: Vec<(Arc<str>, usize)>,
    },
}

impl Command {
    /// Whether the command changes the schema or ends transactions: `SHOW` commands only
    /// read, so they run in read transactions (tools send them with read routing).
    pub fn writes(&self) -> bool {
        matches!(
            self,
            Command::CreateIndex { .. }
                | Command::CreateVectorIndex(_)
                | Command::CreateFulltextIndex { .. }
                | Command::CreatePropertyConstraint { .. }
                | Command::Drop { .. }
                | Command::TerminateTransactions(_)
        )
    }

    /// Column names of the command's result.
    pub fn columns(&self) -> &'static [&'static str] {
        match self {
            Command::CreateIndex { .. }
            | Command::CreateVectorIndex(_)
            | Command::Drop { .. }
            | Command::CreateFulltextIndex { .. }
            | Command::CreatePropertyConstraint { .. }
            | Command::Admin { .. } => &[],
            Command::Database { command, .. } if command.waits() => crate::catalog::WAIT_COLUMNS,
            Command::Database { .. } => &[],
            Command::ShowIndexes {
                constraints: true, ..
            } => &[
                "id",
                "name",
                "type",
                "entityType",
                "labelsOrTypes",
                "properties",
                "ownedIndex",
                "propertyType",
                "options",
                "createStatement",
            ],
            Command::ShowIndexes {
                constraints: false, ..
            } => &[
                "id",
                "name",
                "state",
                "populationPercent",
                "type",
                "entityType",
                "labelsOrTypes",
                "properties",
                "indexProvider",
                "owningConstraint",
                "lastRead",
                "readCount",
                "trackedSince",
                "options",
                "failureMessage",
                "createStatement",
                "memoryBytes",
            ],
            Command::ShowTransactions(_) => crate::metadata::show::TRANSACTION_COLUMNS,
            Command::TerminateTransactions(_) => &["transactionId", "message"],
            Command::Show(table) => table.columns(),
        }
    }
}

#[derive(Debug)]
pub(crate) enum Op {
    /// One row: the argument (empty at the top of a query, the outer row in a subquery).
    Once,
    AllNodes {
        input: Arc<PlanNode>,
        slot: usize,
    },
    LabelScan {
        input: Arc<PlanNode>,
        slot: usize,
        label: Arc<Token>,
    },
    IndexSeek {
        input: Arc<PlanNode>,
        slot: usize,
        label: Arc<Token>,
        key: Arc<Token>,
        seek: Arc<Seek>,
    },
    /// A seek through a relationship index or a composite node index (a single-key node
    /// seek is `IndexSeek`).
    SchemaIndexSeek {
        input: Arc<PlanNode>,
        spec: Arc<IndexSeekSpec>,
    },
    NodeById {
        input: Arc<PlanNode>,
        slot: usize,
        /// An id or a list of ids.
        ids: Arc<Expr>,
        many: bool,
    },
    /// `count(n)` / `count(n:L)` answered from the store's counts.
    NodeCount {
        input: Arc<PlanNode>,
        slot: usize,
        label: Option<Arc<Token>>,
    },
    /// `count(r)` of `()-[r:T]->()` answered from the store's counts.
    RelCount {
        input: Arc<PlanNode>,
        slot: usize,
        ty: Option<Arc<Token>>,
    },
    /// `count(*)` over a chain of expansions, computed per node (`FactorizedCount`). The
    /// row-at-a-time plan it replaced runs instead when fast counts are not allowed.
    ChainCount {
        input: Arc<PlanNode>,
        spec: Arc<ChainCountSpec>,
        fallback: Arc<PlanNode>,
    },
    Expand {
        input: Arc<PlanNode>,
        spec: Arc<ExpandSpec>,
    },
    VarExpand {
        input: Arc<PlanNode>,
        spec: Arc<VarExpandSpec>,
    },
    ShortestPath {
        input: Arc<PlanNode>,
        spec: Arc<ShortestSpec>,
    },
    /// Quantified path patterns, path selectors and path modes (`exec/pathsearch.rs`).
    PathSearch {
        input: Arc<PlanNode>,
        spec: Arc<PathSearchSpec>,
    },
    Filter {
        input: Arc<PlanNode>,
        predicate: Arc<Expr>,
    },
    Project {
        input: Arc<PlanNode>,
        items: Arc<[(usize, Expr)]>,
    },
    Aggregate {
        input: Arc<PlanNode>,
        keys: Arc<[(usize, Expr)]>,
        aggs: Arc<[AggSpec]>,
    },
    Distinct {
        input: Arc<PlanNode>,
        slots: Arc<[usize]>,
    },
    Sort {
        input: Arc<PlanNode>,
        keys: Arc<[SortKey]>,
        keep: Arc<[usize]>,
    },
    Top {
        input: Arc<PlanNode>,
        keys: Arc<[SortKey]>,
        keep: Arc<[usize]>,
        skip: Option<Arc<Expr>>,
        limit: Arc<Expr>,
    },
    Skip {
        input: Arc<PlanNode>,
        count: Arc<Expr>,
    },
    Limit {
        input: Arc<PlanNode>,
        count: Arc<Expr>,
        /// Writes happen below: after the limit, keep pulling (and dropping) rows so every
        /// update takes place, as Cypher requires.
        drain: bool,
    },
    Unwind {
        input: Arc<PlanNode>,
        list: Arc<Expr>,
        slot: usize,
    },
    /// `LOAD CSV`: for each input row, the rows of the file its URL names.
    LoadCsv {
        input: Arc<PlanNode>,
        spec: Arc<LoadCsvSpec>,
    },
    Optional {
        input: Arc<PlanNode>,
        inner: Arc<PlanNode>,
        null_slots: Arc<[usize]>,
    },
    SemiApply {
        input: Arc<PlanNode>,
        inner: Arc<PlanNode>,
        negated: bool,
    },
    Apply {
        input: Arc<PlanNode>,
        inner: Arc<PlanNode>,
    },
    /// Runs `inner` to completion for each row, then passes the row on once.
    UnitApply {
        input: Arc<PlanNode>,
        inner: Arc<PlanNode>,
    },
    /// `CALL { } IN TRANSACTIONS`: runs `inner` for batches of input rows, each batch in a
    /// write transaction of its own that commits before the next begins.
    Transactions {
        input: Arc<PlanNode>,
        inner: Arc<PlanNode>,
        batch: Arc<TransactionBatches>,
    },
    Foreach {
        input: Arc<PlanNode>,
        slot: usize,
        list: Arc<Expr>,
        inner: Arc<PlanNode>,
    },
    Union {
        branches: Vec<Arc<PlanNode>>,
    },
    Eager {
        input: Arc<PlanNode>,
        keep: Arc<[usize]>,
    },
    Create {
        input: Arc<PlanNode>,
        steps: Arc<[CreateStep]>,
    },
    Merge {
        input: Arc<PlanNode>,
        matcher: Arc<PlanNode>,
        spec: Arc<MergeSpec>,
    },
    Set {
        input: Arc<PlanNode>,
        ops: Arc<[SetOp]>,
    },
    Delete {
        input: Arc<PlanNode>,
        exprs: Arc<[Expr]>,
        detach: bool,
    },
    ProcedureCall {
        input: Arc<PlanNode>,
        procedure: Arc<dyn Procedure>,
        args: Arc<[Expr]>,
        /// (output column, slot)
        yields: Arc<[(usize, usize)]>,
    },
    Command {
        command: Arc<Command>,
        out: Arc<[usize]>,
    },
}

/// Which fields of each operator are its children, inputs first: one list for
/// [`Op::children`] and [`Op::children_mut`], which differ only in how a `Union`'s branches
/// are iterated (the bindings are shared or mutable references as `$op` is).
macro_rules! op_children {
    ($op:expr, $iter:ident) => {
        match $op {
            Op::Once | Op::Command { .. } => Vec::new(),
            Op::Union { branches } => branches.$iter().collect(),
            Op::Optional { input, inner, .. }
            | Op::SemiApply { input, inner, .. }
            | Op::Apply { input, inner }
            | Op::UnitApply { input, inner }
            | Op::Transactions { input, inner, .. }
            | Op::Foreach { input, inner, .. } => vec![input, inner],
            Op::Merge { input, matcher, .. } => vec![input, matcher],
            Op::AllNodes { input, .. }
            | Op::LabelScan { input, .. }
            | Op::IndexSeek { input, .. }
            | Op::SchemaIndexSeek { input, .. }
            | Op::NodeById { input, .. }
            | Op::NodeCount { input, .. }
            | Op::RelCount { input, .. }
            | Op::ChainCount { input, .. }
            | Op::Expand { input, .. }
            | Op::VarExpand { input, .. }
            | Op::ShortestPath { input, .. }
            | Op::PathSearch { input, .. }
            | Op::Filter { input, .. }
            | Op::Project { input, .. }
            | Op::Aggregate { input, .. }
            | Op::Distinct { input, .. }
            | Op::Sort { input, .. }
            | Op::Top { input, .. }
            | Op::Skip { input, .. }
            | Op::Limit { input, .. }
            | Op::Unwind { input, .. }
            | Op::LoadCsv { input, .. }
            | Op::Eager { input, .. }
            | Op::Create { input, .. }
            | Op::Set { input, .. }
            | Op::Delete { input, .. }
            | Op::ProcedureCall { input, .. } => vec![input],
        }
    };
}

impl Op {
    /// The operator's children, inputs first.
    pub fn children(&self) -> Vec<&Arc<PlanNode>> {
        op_children!(self, iter)
    }

    /// The operator's children, mutably (for rewrites of a finished plan).
    pub fn children_mut(&mut self) -> Vec<&mut Arc<PlanNode>> {
        op_children!(self, iter_mut)
    }

    /// Whether this operator changes the graph.
    pub fn writes(&self) -> bool {
        matches!(
            self,
            Op::Create { .. } | Op::Merge { .. } | Op::Set { .. } | Op::Delete { .. }
        ) || matches!(self, Op::ProcedureCall { procedure, .. } if procedure.signature().writes)
            || matches!(self, Op::Command { command, .. } if command.writes())
    }
}

impl PlanNode {
    /// Whether this operator or any below it writes.
    pub fn subtree_writes(&self) -> bool {
        self.op.writes() || self.op.children().iter().any(|c| c.subtree_writes())
    }

    /// Whether some procedure in the tree writes the graph: such a write is not checked per
    /// element as the writing clauses' are, so the statement needs every write privilege.
    pub fn subtree_writes_by_procedure(&self) -> bool {
        matches!(&self.op, Op::ProcedureCall { procedure, .. } if procedure.signature().writes)
            || self
                .op
                .children()
                .iter()
                .any(|c| c.subtree_writes_by_procedure())
    }

    /// One more than the largest operator id in the tree: ids run below it, with gaps where
    /// a rewrite replaced operators.
    pub fn id_bound(&self) -> usize {
        self.op
            .children()
            .iter()
            .map(|c| c.id_bound())
            .fold(self.id + 1, usize::max)
    }
}

/// What `LOAD CSV` reads and where it puts each row.
#[derive(Debug)]
pub(crate) struct LoadCsvSpec {
    pub url: Expr,
    /// The row variable's slot.
    pub slot: usize,
    /// `WITH HEADERS`: the first record names the columns and each row is a map.
    pub headers: bool,
    /// `FIELDTERMINATOR`: one byte (a comma by default).
    pub terminator: u8,
}

/// How `CALL { } IN TRANSACTIONS` batches its rows and what it does when a batch fails.
#[derive(Debug)]
pub(crate) struct TransactionBatches {
    /// `OF n ROWS`: evaluated once, before the first batch (1000 when absent, as in Neo4j).
    pub rows: Expr,
    /// `IN [n] CONCURRENT TRANSACTIONS`: how many batches run at once (null: as many as
    /// the machine has cores); `None`: one after another.
    pub concurrency: Option<Expr>,
    /// `ON ERROR RETRY [FOR s SECONDS]`: how long a batch that failed retryably is tried
    /// again (null: 30 seconds) before `on_error` applies.
    pub retry: Option<Expr>,
    pub on_error: BatchFailure,
    /// `REPORT STATUS AS s`: the slot of `s`.
    pub status: Option<usize>,
    /// The slots the subquery's RETURN columns fill, set to null for a failed batch's rows;
    /// `None` for a unit subquery, which passes each input row on once.
    pub returned: Option<Arc<[usize]>>,
}

/// `ON ERROR`: what a failed batch (rolled back) does to the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BatchFailure {
    /// The query fails; the batches before stay committed.
    Fail,
    /// The next batch runs; the failed batch's rows pass on with null returned columns.
    Continue,
    /// No further batch runs; every later row passes on as not started.
    Break,
}

/// A compiled query: the plan and what running it needs to know.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub root: Arc<PlanNode>,
    pub columns: Vec<Arc<str>>,
    pub out_slots: Vec<usize>,
    pub slots: usize,
    /// Parameter names in index order.
    pub params: Vec<Arc<str>>,
    pub query_type: QueryType,
    pub explain: bool,
    pub profile: bool,
    pub writes: bool,
    pub notifications: Vec<Notification>,
    /// What the statement needs of its user (checked before it runs).
    pub required: crate::security::Required,
    /// The text `SHOW TRANSACTIONS` shows instead of the query's, when that holds a password.
    pub redacted: Option<String>,
}

impl Compiled {
    /// Whether the query has a `CALL { } IN TRANSACTIONS`, whose batches commit on their own:
    /// such a query runs only in an auto-commit transaction, and is never begun again.
    pub fn commits_batches(&self) -> bool {
        fn walk(node: &PlanNode) -> bool {
            matches!(node.op, Op::Transactions { .. })
                || node.op.children().into_iter().any(|c| walk(c))
        }
        walk(&self.root)
    }
}
