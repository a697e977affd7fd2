//! Graph patterns: `p = (a:Person {name: $n})-[r:KNOWS*1..3]->(b)`.

use std::fmt;

use super::{Expr, Ident, Span};

/// One comma-separated part of a pattern, optionally named, wrapped in a shortest-path
/// function or prefixed by a GQL selector and path mode.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternPart {
    /// `p` in `p = (a)-->(b)`.
    pub path: Option<Ident>,
    pub selector: PathSelector,
    /// `WALK`, `TRAIL` or `ACYCLIC` before the pattern; `None` when not written.
    pub mode: Option<PathMode>,
    pub chain: PatternChain,
    /// `((a)-->(b) WHERE a.x < b.x)`: the WHERE of a part written as a parenthesised path
    /// pattern without a quantifier. Under a selector it filters paths before the selector
    /// chooses among them (the MATCH's own WHERE filters after), as in Neo4j.
    pub predicate: Option<Expr>,
    pub span: Span,
}

/// Which of the matching paths a part keeps, per pair of end nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PathSelector {
    /// Every matching path.
    #[default]
    All,
    /// `shortestPath(...)`
    Shortest,
    /// `allShortestPaths(...)`
    AllShortest,
    /// `ANY k` (`ANY` is `ANY 1`): any k paths.
    Any(u64),
    /// `SHORTEST k` (`ANY SHORTEST` is `SHORTEST 1`): the k shortest paths.
    ShortestK(u64),
    /// `ALL SHORTEST`: every path of the shortest length.
    AllShortestGql,
    /// `SHORTEST k GROUPS`: every path whose length is among the k shortest lengths.
    ShortestGroups(u64),
}

impl PathSelector {
    /// A GQL selector (`ANY`, `SHORTEST`, `ALL SHORTEST`), not a function nor none.
    pub fn is_gql(self) -> bool {
        !matches!(
            self,
            PathSelector::All | PathSelector::Shortest | PathSelector::AllShortest
        )
    }
}

/// A path mode: which repetitions a path may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathMode {
    /// Nodes and relationships may repeat (the match mode still keeps relationships apart).
    Walk,
    /// No relationship twice.
    Trail,
    /// No node twice.
    Acyclic,
}

impl PathMode {
    pub fn keyword(self) -> &'static str {
        match self {
            PathMode::Walk => "WALK",
            PathMode::Trail => "TRAIL",
            PathMode::Acyclic => "ACYCLIC",
        }
    }
}

/// How many times a quantified path pattern or relationship repeats: `{m,n}`, `{m,}`,
/// `{,n}`, `{n}`, `+` (`{1,}`) and `*` (`{0,}`). `max` is `None` when unbounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathQuantifier {
    pub min: u64,
    pub max: Option<u64>,
}

/// `((a)-[r]->(b) WHERE r.x > 1){1,3}`: a path pattern repeated; the variables inside are
/// group variables, lists outside it.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantifiedGroup {
    pub chain: PatternChain,
    pub predicate: Option<Expr>,
    pub quantifier: PathQuantifier,
    pub span: Span,
}

/// A node followed by any number of relationship-node steps.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternChain {
    pub start: NodePattern,
    pub steps: Vec<PatternStep>,
    pub span: Span,
}

/// A relationship and the node after it, or a quantified group and the node after it. Nodes
/// next to a group are juxtaposed: `(a) ((x)-->(y)){2} (b)` has `a` as the first iteration's
/// `x` and `b` as the last one's `y`; where no node is written next to a group (at either end
/// of the chain or between two groups) the parser puts an anonymous one, printed `()`.
#[derive(Clone, Debug, PartialEq)]
pub struct PatternStep {
    /// Unused (empty) when `group` is set.
    pub relationship: RelationshipPattern,
    pub group: Option<Box<QuantifiedGroup>>,
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
    /// `$(expr)` or `$all(expr)` (every name required), `$any(expr)` (one suffices): names
    /// given at run time, `expr` a String or a List of Strings, as one operand of the
    /// expression (`:$(x)|Person`, `:!$(x)`).
    Dynamic {
        expr: Box<Expr>,
        any: bool,
    },
}

/// The names of `items` when every one is a plain name, `None` otherwise.
fn plain_names(items: &[LabelExpr]) -> Option<Vec<Ident>> {
    items
        .iter()
        .map(|i| match i {
            LabelExpr::Name(name) => Some(name.clone()),
            _ => None,
        })
        .collect()
}

impl LabelExpr {
    /// The names of a plain conjunction (`A&B`, `A:B`), `None` for anything else.
    pub fn conjunction(&self) -> Option<Vec<Ident>> {
        match self {
            LabelExpr::Name(name) => Some(vec![name.clone()]),
            LabelExpr::And(items) => plain_names(items),
            _ => None,
        }
    }

    /// The names of a plain disjunction (`A|B`), `None` for anything else.
    pub fn disjunction(&self) -> Option<Vec<Ident>> {
        match self {
            LabelExpr::Name(name) => Some(vec![name.clone()]),
            LabelExpr::Or(items) => plain_names(items),
            _ => None,
        }
    }

    fn precedence(&self) -> u8 {
        match self {
            LabelExpr::Or(_) => 1,
            LabelExpr::And(_) => 2,
            LabelExpr::Not(_) => 3,
            LabelExpr::Name(_) | LabelExpr::Any | LabelExpr::Dynamic { .. } => 4,
        }
    }

    /// Whether a name is given at run time anywhere in the expression.
    pub fn has_dynamic(&self) -> bool {
        !self.dynamic_exprs().is_empty()
    }

    /// The expressions of the run-time names, left to right.
    pub fn dynamic_exprs(&self) -> Vec<&Expr> {
        let mut out = Vec::new();
        self.collect_dynamic(&mut out);
        out
    }

    fn collect_dynamic<'a>(&'a self, out: &mut Vec<&'a Expr>) {
        match self {
            LabelExpr::Name(_) | LabelExpr::Any => {}
            LabelExpr::Dynamic { expr, .. } => out.push(expr),
            LabelExpr::Not(inner) => inner.collect_dynamic(out),
            LabelExpr::And(items) | LabelExpr::Or(items) => {
                for item in items {
                    item.collect_dynamic(out);
                }
            }
        }
    }

    /// A conjunction of names and run-time names (`A&$(x)`, `A:$any(y)`) as its static names,
    /// the expressions whose names are all required and those of which one is; `None` for any
    /// other expression.
    pub fn dynamic_conjunction(&self) -> Option<(Vec<Ident>, Vec<Expr>, Vec<Expr>)> {
        let items = match self {
            LabelExpr::And(items) => items.as_slice(),
            other => std::slice::from_ref(other),
        };
        let (mut names, mut all, mut any) = (Vec::new(), Vec::new(), Vec::new());
        for item in items {
            match item {
                LabelExpr::Name(name) => names.push(name.clone()),
                LabelExpr::Dynamic { expr, any: false } => all.push((**expr).clone()),
                LabelExpr::Dynamic { expr, any: true } => any.push((**expr).clone()),
                _ => return None,
            }
        }
        Some((names, all, any))
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
            LabelExpr::Dynamic { expr, any: false } => write!(f, "$({expr})"),
            LabelExpr::Dynamic { expr, any: true } => write!(f, "$any({expr})"),
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
    /// `:$(expr)` (or `:$all(expr)`) labels named at run time, each a string or a list of
    /// strings, all required; static names written among them are string literals here.
    pub dynamic_labels: Vec<Expr>,
    /// `:$any(expr)` (MATCH only): the node has at least one of the labels each names.
    pub dynamic_any: Vec<Expr>,
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
    /// `:$(expr)` (or `:$all(expr)`) types named at run time, each a string or a list of
    /// strings, all of which the relationship must have: as it has one type, two different
    /// names match nothing. CREATE and MERGE take exactly one name.
    pub dynamic_types: Vec<Expr>,
    /// `:$any(expr)` (MATCH only): the relationship has one of the types each names.
    pub dynamic_any: Vec<Expr>,
    /// `Some` for a variable-length relationship (`*`, `*2`, `*1..3`, ...).
    pub length: Option<LengthRange>,
    /// `-[r:T]->{1,3}`: a quantified relationship, the short form of
    /// `(()-[r:T]->()){1,3}`.
    pub quantifier: Option<PathQuantifier>,
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

    /// Every relationship in order, outside quantified groups.
    pub fn relationships(&self) -> impl Iterator<Item = &RelationshipPattern> {
        self.steps
            .iter()
            .filter(|s| s.group.is_none())
            .map(|s| &s.relationship)
    }

    /// The quantified groups.
    pub fn groups(&self) -> impl Iterator<Item = &QuantifiedGroup> {
        self.steps.iter().filter_map(|s| s.group.as_deref())
    }

    /// Whether the chain has a quantified group or relationship.
    pub fn is_quantified(&self) -> bool {
        self.steps
            .iter()
            .any(|s| s.group.is_some() || s.relationship.quantifier.is_some())
    }
}

impl RelationshipPattern {
    /// An empty relationship pattern (the placeholder of a group step).
    pub fn empty(span: Span) -> RelationshipPattern {
        RelationshipPattern {
            variable: None,
            direction: Direction::Both,
            types: Vec::new(),
            type_expr: None,
            dynamic_types: Vec::new(),
            dynamic_any: Vec::new(),
            length: None,
            quantifier: None,
            properties: None,
            predicate: None,
            span,
        }
    }
}

impl NodePattern {
    /// `()`: the node the parser puts where a group has no node written beside it.
    pub fn anonymous(span: Span) -> NodePattern {
        NodePattern {
            variable: None,
            labels: Vec::new(),
            label_expr: None,
            dynamic_labels: Vec::new(),
            dynamic_any: Vec::new(),
            properties: None,
            predicate: None,
            span,
        }
    }
}

impl fmt::Display for PatternPart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path_inside = self.predicate.is_some();
        if let Some(path) = self.path.as_ref().filter(|_| !path_inside) {
            write!(f, "{} = ", path.as_variable())?;
        }
        match self.selector {
            PathSelector::All => {}
            PathSelector::Shortest => return write!(f, "shortestPath({})", self.chain),
            PathSelector::AllShortest => return write!(f, "allShortestPaths({})", self.chain),
            PathSelector::Any(k) => write!(f, "ANY {k} ")?,
            PathSelector::ShortestK(k) => write!(f, "SHORTEST {k} ")?,
            PathSelector::AllShortestGql => f.write_str("ALL SHORTEST ")?,
            PathSelector::ShortestGroups(k) => write!(f, "SHORTEST {k} GROUPS ")?,
        }
        if let Some(mode) = self.mode {
            write!(f, "{} ", mode.keyword())?;
        }
        match &self.predicate {
            Some(predicate) => {
                f.write_str("(")?;
                if let Some(path) = &self.path {
                    write!(f, "{} = ", path.as_variable())?;
                }
                write!(f, "{} WHERE {predicate})", self.chain)
            }
            None => write!(f, "{}", self.chain),
        }
    }
}

impl fmt::Display for PathQuantifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.max {
            Some(max) => write!(f, "{{{},{max}}}", self.min),
            None => write!(f, "{{{},}}", self.min),
        }
    }
}

impl fmt::Display for QuantifiedGroup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}", self.chain)?;
        if let Some(predicate) = &self.predicate {
            write!(f, " WHERE {predicate}")?;
        }
        write!(f, "){}", self.quantifier)
    }
}

impl fmt::Display for PatternChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.start)?;
        for step in &self.steps {
            match &step.group {
                Some(group) => write!(f, " {group} {}", step.node)?,
                None => write!(f, "{}{}", step.relationship, step.node)?,
            }
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
        if write_label_exprs(
            f,
            self.label_expr.as_ref(),
            &self.dynamic_labels,
            &self.dynamic_any,
        )? {
            empty = false;
        }
        write_tail(f, self.properties.as_ref(), self.predicate.as_ref(), empty)?;
        f.write_str(")")
    }
}

/// `:expr`, `:$(name)` for each dynamic name and `:$any(name)` for each of `any`: the label
/// expressions of a node or the type expressions of a relationship. Returns whether it wrote
/// anything.
fn write_label_exprs(
    f: &mut fmt::Formatter<'_>,
    expr: Option<&LabelExpr>,
    dynamic: &[Expr],
    any: &[Expr],
) -> Result<bool, fmt::Error> {
    if let Some(expr) = expr {
        write!(f, ":{expr}")?;
    }
    for name in dynamic {
        write!(f, ":$({name})")?;
    }
    for name in any {
        write!(f, ":$any({name})")?;
    }
    Ok(expr.is_some() || !dynamic.is_empty() || !any.is_empty())
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
            || !self.dynamic_types.is_empty()
            || !self.dynamic_any.is_empty()
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
            if write_label_exprs(
                f,
                self.type_expr.as_ref(),
                &self.dynamic_types,
                &self.dynamic_any,
            )? {
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
        })?;
        if let Some(quantifier) = &self.quantifier {
            write!(f, "{quantifier}")?;
        }
        Ok(())
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
