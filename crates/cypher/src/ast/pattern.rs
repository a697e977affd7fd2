//! Graph patterns: `p = (a:Person {name: $n})-[r:KNOWS*1..3]->(b)`.

use std::fmt;

use super::{Expr, Ident, Span};

/// One comma-separated part of a pattern, optionally named and wrapped in a shortest-path
/// selector.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternPart {
    /// `p` in `p = (a)-->(b)`.
    pub path: Option<Ident>,
    pub selector: PathSelector,
    pub chain: PatternChain,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PathSelector {
    /// Every matching path.
    #[default]
    All,
    /// `shortestPath(...)`
    Shortest,
    /// `allShortestPaths(...)`
    AllShortest,
}

/// A node followed by any number of relationship-node steps.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternChain {
    pub start: NodePattern,
    pub steps: Vec<PatternStep>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PatternStep {
    pub relationship: RelationshipPattern,
    pub node: NodePattern,
}

/// A label expression (Neo4j 5): `A`, `A&B`, `A|B`, `!A`, `%` (any label), in parentheses
/// as needed. On a relationship it tests the type: `%` is any type, `A&B` matches none.
/// `!` binds tightest, then `&`, then `|`.
#[derive(Clone, Debug, PartialEq)]
pub enum LabelExpr {
    Name(Ident),
    /// `%`: has at least one label (a relationship always has its type).
    Any,
    Not(Box<LabelExpr>),
    /// Two or more, all required.
    And(Vec<LabelExpr>),
    /// Two or more, any one suffices.
    Or(Vec<LabelExpr>),
}

impl LabelExpr {
    /// The names of a plain conjunction (`A&B`, `A:B`), `None` for anything else.
    pub fn conjunction(&self) -> Option<Vec<Ident>> {
        match self {
            LabelExpr::Name(name) => Some(vec![name.clone()]),
            LabelExpr::And(items) => items
                .iter()
                .map(|i| match i {
                    LabelExpr::Name(name) => Some(name.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// The names of a plain disjunction (`A|B`), `None` for anything else.
    pub fn disjunction(&self) -> Option<Vec<Ident>> {
        match self {
            LabelExpr::Name(name) => Some(vec![name.clone()]),
            LabelExpr::Or(items) => items
                .iter()
                .map(|i| match i {
                    LabelExpr::Name(name) => Some(name.clone()),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            LabelExpr::Or(_) => 1,
            LabelExpr::And(_) => 2,
            LabelExpr::Not(_) => 3,
            LabelExpr::Name(_) | LabelExpr::Any => 4,
        }
    }

    fn write_at(&self, f: &mut fmt::Formatter<'_>, min: u8) -> fmt::Result {
        if self.precedence() < min {
            write!(f, "({self})")
        } else {
            write!(f, "{self}")
        }
    }
}

impl fmt::Display for LabelExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabelExpr::Name(name) => write!(f, "{name}"),
            LabelExpr::Any => f.write_str("%"),
            LabelExpr::Not(inner) => {
                f.write_str("!")?;
                inner.write_at(f, 3)
            }
            LabelExpr::And(items) | LabelExpr::Or(items) => {
                let (sep, min) = if matches!(self, LabelExpr::And(_)) {
                    ("&", 3)
                } else {
                    ("|", 2)
                };
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(sep)?;
                    }
                    item.write_at(f, min)?;
                }
                Ok(())
            }
        }
    }
}

/// `(variable:Label1:Label2 {properties} WHERE predicate)`
#[derive(Clone, Debug, PartialEq)]
pub struct NodePattern {
    pub variable: Option<Ident>,
    /// All of these labels are required.
    pub labels: Vec<Ident>,
    /// A label expression that is not a plain conjunction (`:A|B`, `:!A`, `:%`); `labels` is
    /// then empty. Plain conjunctions stay in `labels`, which the planner seeks by.
    pub label_expr: Option<LabelExpr>,
    /// `:$(expr)` labels named at run time (CREATE only), each a string or a list of strings;
    /// static names written among them are string literals here.
    pub dynamic_labels: Vec<Expr>,
    /// A map literal (`ExprKind::Map`) or a parameter (`ExprKind::Parameter`).
    pub properties: Option<Expr>,
    /// Neo4j 5's inline `WHERE`.
    pub predicate: Option<Expr>,
    pub span: Span,
}

/// `-[variable:TYPE1|TYPE2*min..max {properties} WHERE predicate]->`
#[derive(Clone, Debug, PartialEq)]
pub struct RelationshipPattern {
    pub variable: Option<Ident>,
    pub direction: Direction,
    /// Any one of these types matches; empty means any type.
    pub types: Vec<Ident>,
    /// A type expression that is not a plain disjunction (`:!A`, `:%`, `:A&B`); `types` is
    /// then empty.
    pub type_expr: Option<LabelExpr>,
    /// `Some` for a variable-length relationship (`*`, `*2`, `*1..3`, ...).
    pub length: Option<LengthRange>,
    /// A map literal (`ExprKind::Map`) or a parameter (`ExprKind::Parameter`).
    pub properties: Option<Expr>,
    pub predicate: Option<Expr>,
    pub span: Span,
}

/// The direction as written, from the left node to the right node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// `-->`
    Outgoing,
    /// `<--`
    Incoming,
    /// `--` (also `<-->`)
    Both,
}

/// Bounds of a variable-length relationship; `None` means unbounded (the minimum then
/// defaults to 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LengthRange {
    pub min: Option<u64>,
    pub max: Option<u64>,
}

impl PatternChain {
    /// Every node in order.
    pub fn nodes(&self) -> impl Iterator<Item = &NodePattern> {
        std::iter::once(&self.start).chain(self.steps.iter().map(|s| &s.node))
    }

    /// Every relationship in order.
    pub fn relationships(&self) -> impl Iterator<Item = &RelationshipPattern> {
        self.steps.iter().map(|s| &s.relationship)
    }
}

impl fmt::Display for PatternPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.path {
            write!(f, "{} = ", path.as_variable())?;
        }
        match self.selector {
            PathSelector::All => write!(f, "{}", self.chain),
            PathSelector::Shortest => write!(f, "shortestPath({})", self.chain),
            PathSelector::AllShortest => write!(f, "allShortestPaths({})", self.chain),
        }
    }
}

impl fmt::Display for PatternChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.start)?;
        for step in &self.steps {
            write!(f, "{}{}", step.relationship, step.node)?;
        }
        Ok(())
    }
}

impl fmt::Display for NodePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        let mut empty = true;
        if let Some(variable) = &self.variable {
            write!(f, "{}", variable.as_variable())?;
            empty = false;
        }
        for label in &self.labels {
            write!(f, ":{label}")?;
            empty = false;
        }
        if let Some(expr) = &self.label_expr {
            write!(f, ":{expr}")?;
            empty = false;
        }
        for label in &self.dynamic_labels {
            write!(f, ":$({label})")?;
            empty = false;
        }
        write_tail(f, self.properties.as_ref(), self.predicate.as_ref(), empty)?;
        f.write_str(")")
    }
}

/// ` {props} WHERE pred`, without a leading space when nothing precedes it.
fn write_tail(
    f: &mut fmt::Formatter<'_>,
    properties: Option<&Expr>,
    predicate: Option<&Expr>,
    mut empty: bool,
) -> fmt::Result {
    if let Some(properties) = properties {
        if !empty {
            f.write_str(" ")?;
        }
        write!(f, "{properties}")?;
        empty = false;
    }
    if let Some(predicate) = predicate {
        if !empty {
            f.write_str(" ")?;
        }
        write!(f, "WHERE {predicate}")?;
    }
    Ok(())
}

impl fmt::Display for RelationshipPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.direction == Direction::Incoming {
            "<-"
        } else {
            "-"
        })?;
        let has_detail = self.variable.is_some()
            || !self.types.is_empty()
            || self.type_expr.is_some()
            || self.length.is_some()
            || self.properties.is_some()
            || self.predicate.is_some();
        if has_detail {
            f.write_str("[")?;
            let mut empty = true;
            if let Some(variable) = &self.variable {
                write!(f, "{}", variable.as_variable())?;
                empty = false;
            }
            for (i, ty) in self.types.iter().enumerate() {
                f.write_str(if i == 0 { ":" } else { "|" })?;
                write!(f, "{ty}")?;
                empty = false;
            }
            if let Some(expr) = &self.type_expr {
                write!(f, ":{expr}")?;
                empty = false;
            }
            if let Some(length) = &self.length {
                write!(f, "{length}")?;
                empty = false;
            }
            write_tail(f, self.properties.as_ref(), self.predicate.as_ref(), empty)?;
            f.write_str("]")?;
        }
        f.write_str(if self.direction == Direction::Outgoing {
            "->"
        } else {
            "-"
        })
    }
}

impl fmt::Display for LengthRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("*")?;
        match (self.min, self.max) {
            (None, None) => Ok(()),
            (Some(min), Some(max)) if min == max => write!(f, "{min}"),
            (min, max) => {
                if let Some(min) = min {
                    write!(f, "{min}")?;
                }
                f.write_str("..")?;
                if let Some(max) = max {
                    write!(f, "{max}")?;
                }
                Ok(())
            }
        }
    }
}
