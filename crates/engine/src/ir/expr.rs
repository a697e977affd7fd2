//! Compiled expressions: what the planner makes of the AST's expressions and the evaluator
//! runs over a row.
//!
//! Variables are resolved to row slots, parameters to indexes, function names to handles and
//! names of labels, types and keys to [`Token`]s, so evaluation does no name lookups.

use std::sync::Arc;

use quiver_value::{Function, Value};

use super::plan::PlanNode;
use crate::tokens::Token;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Pow,
    In,
    StartsWith,
    EndsWith,
    Contains,
    Regex,
    Xor,
}

/// An operator of an [`Expr::Chain`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChainOp {
    /// Short-circuits like [`Expr::And`]: once the value so far is `false`, the rest of the
    /// `AND`s are not evaluated.
    And,
    /// Short-circuits like [`Expr::Or`] on `true`.
    Or,
    Binary(BinOp),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Quantifier {
    All,
    Any,
    None,
    Single,
}

/// What a subquery expression computes from the rows of its plan.
#[derive(Clone, Debug)]
pub(crate) enum SubKind {
    /// `EXISTS { }` and pattern predicates: whether there is a row.
    Exists,
    /// `COUNT { }`: how many rows.
    Count,
    /// `COLLECT { }` and pattern comprehensions: a list of one expression per row.
    Collect(Expr),
}

#[derive(Clone, Debug)]
pub(crate) enum MapProjItem {
    /// `.key`
    Property(Arc<str>, Arc<Token>),
    /// `.*`
    All,
    /// `key: value` (also `variable`)
    Entry(Arc<str>, Expr),
}

/// A compiled expression.
#[derive(Clone, Debug)]
pub(crate) enum Expr {
    Const(Value),
    Param(usize),
    Slot(usize),
    Property(Box<Expr>, Arc<Token>),
    Index(Box<Expr>, Box<Expr>),
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `n:A:B` on nodes, `r:T` on relationships.
    HasLabels(Box<Expr>, Vec<Arc<Token>>),
    /// `n:A|!B`, `r:%`: a label expression other than a plain conjunction.
    LabelTest(Box<Expr>, Arc<LabelPred>),
    /// `(n:$(expr))` and `(n:$any(expr))`: the node has every label (with `true`: at least
    /// one of the labels) the expression names, a String or a List of them.
    DynamicLabels(Box<Expr>, Box<Expr>, bool),
    /// `x IS [NOT] :: TYPE` (`true` when negated).
    TypeTest(Box<Expr>, Arc<quiver_cypher::ast::CypherType>, bool),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// Operators applied left to right, `((first op1 e1) op2 e2) ...`: a long `AND` or `+`
    /// chain is a flat list, evaluated in a loop rather than by recursion.
    Chain(Box<Expr>, Vec<(ChainOp, Expr)>),
    /// `=~` against a pattern known when planning.
    RegexConst(Box<Expr>, Arc<regex::Regex>),
    IsNull(Box<Expr>, bool),
    List(Vec<Expr>),
    Map(Vec<(Arc<str>, Expr)>),
    Call(Function, Vec<Expr>),
    Graph(GraphFn, Vec<Expr>),
    Scalar(ScalarFn, Vec<Expr>),
    /// A function of the namespaced library (`apoc.coll.sum`, ...).
    Library(&'static crate::apoc::functions::LibraryFn, Vec<Expr>),
    Case {
        operand: Option<Box<Expr>>,
        branches: Vec<(Expr, Expr)>,
        default: Option<Box<Expr>>,
    },
    ListComp {
        slot: usize,
        list: Box<Expr>,
        filter: Option<Box<Expr>>,
        map: Option<Box<Expr>>,
    },
    Quantified {
        quantifier: Quantifier,
        slot: usize,
        list: Box<Expr>,
        predicate: Box<Expr>,
    },
    Reduce {
        acc: usize,
        init: Box<Expr>,
        slot: usize,
        list: Box<Expr>,
        expr: Box<Expr>,
    },
    MapProjection(Box<Expr>, Vec<MapProjItem>),
    /// A named path built from its pattern's slots.
    Path(Vec<PathPart>),
    /// Every entry of a map (a pattern's `$props` or `{..}`) equals the entity's property.
    PropsMatch(Box<Expr>, Box<Expr>),
    Subquery(Arc<PlanNode>, Box<SubKind>),
}

/// A label expression with its names resolved to tokens.
#[derive(Clone, Debug)]
pub(crate) enum LabelPred {
    Name(Arc<Token>),
    /// `%`
    Any,
    Not(Box<LabelPred>),
    And(Vec<LabelPred>),
    Or(Vec<LabelPred>),
}

impl Expr {
    /// Whether this is a test of the entity at `slot` alone that no value can make fail:
    /// comparisons and string tests of its properties with constants and parameters, null
    /// tests, and `AND`, `OR` and `NOT` of those (each gives true, false or null). Such a test
    /// may be asked of entities a query would never reach without changing its outcome.
    pub(crate) fn is_infallible_test_of(&self, slot: usize) -> bool {
        let operand = |e: &Expr| match e {
            Expr::Const(_) | Expr::Param(_) => true,
            Expr::Property(base, _) => matches!(**base, Expr::Slot(s) if s == slot),
            _ => false,
        };
        match self {
            Expr::Const(v) => matches!(v, Value::Bool(_) | Value::Null),
            Expr::Binary(
                BinOp::Eq
                | BinOp::Ne
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::StartsWith
                | BinOp::EndsWith
                | BinOp::Contains,
                a,
                b,
            ) => operand(a) && operand(b),
            Expr::IsNull(e, _) => operand(e),
            Expr::Not(e) => e.is_infallible_test_of(slot),
            Expr::And(a, b) | Expr::Or(a, b) => {
                a.is_infallible_test_of(slot) && b.is_infallible_test_of(slot)
            }
            Expr::Chain(first, rest) => {
                first.is_infallible_test_of(slot)
                    && rest.iter().all(|(op, e)| {
                        matches!(op, ChainOp::And | ChainOp::Or) && e.is_infallible_test_of(slot)
                    })
            }
            _ => false,
        }
    }

    /// The conjunction of `predicates` (`None` for none), flat however many there are.
    pub(crate) fn all(predicates: Vec<Expr>) -> Option<Expr> {
        let mut items = predicates.into_iter();
        let first = items.next()?;
        let rest: Vec<(ChainOp, Expr)> = items.map(|e| (ChainOp::And, e)).collect();
        Some(match rest.len() {
            0 => first,
            1 => {
                let (_, second) = rest.into_iter().next()?;
                Expr::And(Box::new(first), Box::new(second))
            }
            _ => Expr::Chain(Box::new(first), rest),
        })
    }
}

/// A function that reads the graph (the evaluator answers it from the transaction's view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GraphFn {
    Id,
    ElementId,
    Labels,
    Type,
    Keys,
    Properties,
    StartNode,
    EndNode,
    Nodes,
    Relationships,
    Length,
    /// `exists(n.prop)`: the argument is a property access, true when it is not null.
    Exists,
}

impl GraphFn {
    /// Resolves a graph function by its (case-insensitive) name.
    pub fn lookup(name: &str) -> Option<GraphFn> {
        const ALL: [(&str, GraphFn); 12] = [
            ("id", GraphFn::Id),
            ("elementid", GraphFn::ElementId),
            ("labels", GraphFn::Labels),
            ("type", GraphFn::Type),
            ("keys", GraphFn::Keys),
            ("properties", GraphFn::Properties),
            ("startnode", GraphFn::StartNode),
            ("endnode", GraphFn::EndNode),
            ("nodes", GraphFn::Nodes),
            ("relationships", GraphFn::Relationships),
            ("length", GraphFn::Length),
            ("exists", GraphFn::Exists),
        ];
        ALL.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
    }

    pub fn name(self) -> &'static str {
        match self {
            GraphFn::Id => "id",
            GraphFn::ElementId => "elementId",
            GraphFn::Labels => "labels",
            GraphFn::Type => "type",
            GraphFn::Keys => "keys",
            GraphFn::Properties => "properties",
            GraphFn::StartNode => "startNode",
            GraphFn::EndNode => "endNode",
            GraphFn::Nodes => "nodes",
            GraphFn::Relationships => "relationships",
            GraphFn::Length => "length",
            GraphFn::Exists => "exists",
        }
    }
}

/// A pure function the engine implements itself (the value crate's library has the rest):
/// those whose names or semantics belong to the engine's type model (`valueType`) or need a
/// dependency the value crate does not carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScalarFn {
    ValueType,
    Normalize,
    VectorCosine,
    VectorEuclidean,
    /// `vector_distance(a, b, metric)`: the distance of two vectors by a metric.
    VectorDistance,
    /// `vector_norm(v, metric)`: a vector's distance from the origin.
    VectorNorm,
    /// `linenumber()`: the line of the row `LOAD CSV` handed on last (null outside one).
    LineNumber,
    /// `file()`: the path of the file `LOAD CSV` is reading (null outside one).
    File,
}

impl ScalarFn {
    /// Resolves a (case-insensitive, dotted) name.
    pub fn lookup(qualified: &str) -> Option<ScalarFn> {
        const ALL: [(&str, ScalarFn); 8] = [
            ("linenumber", ScalarFn::LineNumber),
            ("file", ScalarFn::File),
            ("valuetype", ScalarFn::ValueType),
            ("normalize", ScalarFn::Normalize),
            ("vector.similarity.cosine", ScalarFn::VectorCosine),
            ("vector.similarity.euclidean", ScalarFn::VectorEuclidean),
            ("vector_distance", ScalarFn::VectorDistance),
            ("vector_norm", ScalarFn::VectorNorm),
        ];
        ALL.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(qualified))
            .map(|(_, f)| *f)
    }

    pub fn name(self) -> &'static str {
        match self {
            ScalarFn::ValueType => "valueType",
            ScalarFn::Normalize => "normalize",
            ScalarFn::VectorCosine => "vector.similarity.cosine",
            ScalarFn::VectorEuclidean => "vector.similarity.euclidean",
            ScalarFn::VectorDistance => "vector_distance",
            ScalarFn::VectorNorm => "vector_norm",
            ScalarFn::LineNumber => "linenumber",
            ScalarFn::File => "file",
        }
    }

    /// Fewest and most arguments.
    pub fn arity(self) -> (usize, usize) {
        match self {
            ScalarFn::ValueType => (1, 1),
            ScalarFn::Normalize => (1, 2),
            ScalarFn::VectorCosine | ScalarFn::VectorEuclidean | ScalarFn::VectorNorm => (2, 2),
            ScalarFn::VectorDistance => (3, 3),
            ScalarFn::LineNumber | ScalarFn::File => (0, 0),
        }
    }
}

/// One element of a path pattern, in pattern order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathPart {
    Node(usize),
    Rel(usize),
    /// A variable-length relationship: a list of relationships in pattern order.
    RelList(usize),
}

/// An aggregate function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AggKind {
    CountStar,
    Count,
    Sum,
    Avg,
    Min,
    Max,
    Collect,
    StDev,
    StDevP,
    PercentileCont,
    PercentileDisc,
}

impl AggKind {
    /// Resolves an aggregate function by its (case-insensitive) name.
    pub fn lookup(name: &str) -> Option<AggKind> {
        const ALL: [(&str, AggKind); 10] = [
            ("count", AggKind::Count),
            ("sum", AggKind::Sum),
            ("avg", AggKind::Avg),
            ("min", AggKind::Min),
            ("max", AggKind::Max),
            ("collect", AggKind::Collect),
            ("stdev", AggKind::StDev),
            ("stdevp", AggKind::StDevP),
            ("percentilecont", AggKind::PercentileCont),
            ("percentiledisc", AggKind::PercentileDisc),
        ];
        ALL.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, k)| *k)
    }

    pub fn name(self) -> &'static str {
        match self {
            AggKind::CountStar | AggKind::Count => "count",
            AggKind::Sum => "sum",
            AggKind::Avg => "avg",
            AggKind::Min => "min",
            AggKind::Max => "max",
            AggKind::Collect => "collect",
            AggKind::StDev => "stDev",
            AggKind::StDevP => "stDevP",
            AggKind::PercentileCont => "percentileCont",
            AggKind::PercentileDisc => "percentileDisc",
        }
    }

    /// How many arguments the aggregate takes.
    pub fn arity(self) -> usize {
        match self {
            AggKind::CountStar => 0,
            AggKind::PercentileCont | AggKind::PercentileDisc => 2,
            _ => 1,
        }
    }
}

/// One aggregate of an aggregation: what to compute and where the result goes.
#[derive(Debug)]
pub(crate) struct AggSpec {
    pub kind: AggKind,
    pub distinct: bool,
    pub arg: Option<Expr>,
    /// The percentile of `percentileCont`/`percentileDisc`.
    pub param: Option<Expr>,
    pub out: usize,
}
