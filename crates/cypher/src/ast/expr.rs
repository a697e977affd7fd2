//! Expressions.

use std::fmt;

use super::{
    CypherType, Ident, LabelExpr, PatternChain, PatternPart, Query, Span, write_comma_separated,
};

/// Binding strength of operators, weakest first. The parser's Pratt loop and the printer's
/// parenthesisation both read these, so what prints is what parses.
pub(crate) mod prec {
    pub const OR: u8 = 1;
    pub const XOR: u8 = 2;
    pub const AND: u8 = 3;
    pub const NOT: u8 = 4;
    pub const COMPARISON: u8 = 5;
    /// `IN`, `STARTS WITH`, `ENDS WITH`, `CONTAINS`, `=~`, `IS [NOT] NULL`.
    pub const PREDICATE: u8 = 6;
    pub const ADDITIVE: u8 = 7;
    pub const MULTIPLICATIVE: u8 = 8;
    pub const POWER: u8 = 9;
    /// Prefix `-` and `+`.
    pub const UNARY: u8 = 10;
    /// `.key`, `[i]`, `[a..b]`, `:Label`.
    pub const POSTFIX: u8 = 11;
    pub const ATOM: u8 = 12;
}

/// An expression and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Literal(Literal),
    /// `$name` or `$0`; the name without the dollar.
    Parameter(String),
    Variable(Ident),
    /// `base.key`
    Property {
        base: Box<Expr>,
        key: Ident,
    },
    /// `base[index]`: list element or dynamic property/map lookup.
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `base[from..to]`, either bound optional.
    Slice {
        base: Box<Expr>,
        from: Option<Box<Expr>>,
        to: Option<Box<Expr>>,
    },
    /// `base:A:B`: true when the node has every label (or the relationship has the type).
    HasLabels {
        base: Box<Expr>,
        labels: Vec<Ident>,
    },
    /// `base:A|B`, `base:!A`, `base IS A|B`: a label expression that is not a plain
    /// conjunction (those are [`ExprKind::HasLabels`]).
    LabelTest {
        base: Box<Expr>,
        expr: LabelExpr,
    },
    /// `base:$(expr)`, `base:A:$all(expr)`, `base:$any(expr)`, `base IS $(expr)`: labels (or
    /// a relationship's type) named at run time, each expression a String or a List of them;
    /// static names written among them are string literals in `all`.
    DynamicLabels {
        base: Box<Expr>,
        all: Vec<Expr>,
        any: Vec<Expr>,
    },
    /// `operand IS [NOT] :: TYPE` (also `IS [NOT] TYPED TYPE`, `:: TYPE`).
    TypeTest {
        operand: Box<Expr>,
        ty: CypherType,
        negated: bool,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    /// One binary operator. Two or more operators of one precedence level in a row are a
    /// [`ExprKind::Chain`] instead; a `Binary` whose left operand is itself an operator of the
    /// same level therefore stands for explicit parentheses, `(a + b) + c`.
    Binary {
        op: BinaryOp,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    /// Two or more operators of one precedence level applied left to right:
    /// `a + b - c` is `(a + b) - c`, `a AND b AND c` is `(a AND b) AND c`. The parser builds a
    /// flat list for such chains, so that a filter of hundreds of `AND`ed conditions or a sum
    /// of hundreds of terms does not become a tree hundreds of levels deep (which would spend
    /// the nesting budget and stack in every pass over it). Every `op` of `rest` has the
    /// same precedence and none is a comparison (comparison chains mean `AND`).
    Chain {
        first: Box<Expr>,
        rest: Vec<(BinaryOp, Expr)>,
    },
    /// `operand IS NULL`, or `IS NOT NULL` when `negated`.
    IsNull {
        operand: Box<Expr>,
        negated: bool,
    },
    List(Vec<Expr>),
    Map(Vec<MapEntry>),
    FunctionCall(Box<FunctionCall>),
    /// `count(*)`
    CountStar,
    Case(Box<CaseExpr>),
    ListComprehension(Box<ListComprehension>),
    PatternComprehension(Box<PatternComprehension>),
    /// `all(...)`, `any(...)`, `none(...)`, `single(...)`
    Quantified(Box<Quantified>),
    Reduce(Box<Reduce>),
    MapProjection(Box<MapProjection>),
    /// A pattern used as a predicate, e.g. `WHERE (a)-[:KNOWS]->(b)`: true when it matches.
    Pattern(Box<PatternChain>),
    /// `EXISTS { }`, `COUNT { }`, `COLLECT { }`
    Subquery(Box<SubqueryExpr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Boolean(bool),
    Integer(i64),
    /// Always finite: the lexer refuses literals that overflow.
    Float(f64),
    String(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Not,
    /// `-x`
    Negate,
    /// `+x`
    Plus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Or,
    Xor,
    And,
    Eq,
    /// `<>`
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    /// `=~`
    RegexMatch,
    StartsWith,
    EndsWith,
    Contains,
    In,
    Add,
    Subtract,
    Multiply,
    Divide,
    Modulo,
    Power,
}

impl BinaryOp {
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Or => "OR",
            Xor => "XOR",
            And => "AND",
            Eq => "=",
            NotEq => "<>",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            RegexMatch => "=~",
            StartsWith => "STARTS WITH",
            EndsWith => "ENDS WITH",
            Contains => "CONTAINS",
            In => "IN",
            Add => "+",
            Subtract => "-",
            Multiply => "*",
            Divide => "/",
            Modulo => "%",
            Power => "^",
        }
    }

    pub(crate) fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Or => prec::OR,
            Xor => prec::XOR,
            And => prec::AND,
            Eq | NotEq | Lt | Le | Gt | Ge => prec::COMPARISON,
            RegexMatch | StartsWith | EndsWith | Contains | In => prec::PREDICATE,
            Add | Subtract => prec::ADDITIVE,
            Multiply | Divide | Modulo => prec::MULTIPLICATIVE,
            Power => prec::POWER,
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::NotEq
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
        )
    }

    pub fn is_boolean(self) -> bool {
        matches!(self, BinaryOp::Or | BinaryOp::Xor | BinaryOp::And)
    }

    pub fn is_arithmetic(self) -> bool {
        matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Subtract
                | BinaryOp::Multiply
                | BinaryOp::Divide
                | BinaryOp::Modulo
                | BinaryOp::Power
        )
    }
}

/// `key: value` in a map literal.
#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    pub key: Ident,
    pub value: Expr,
}

/// A function name, possibly namespaced: `date.truncate` has namespace `[date]`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionName {
    pub namespace: Vec<Ident>,
    pub name: Ident,
}

impl FunctionName {
    /// The dotted name as written (`date.truncate`); function names are case-insensitive, so
    /// compare with `eq_ignore_ascii_case`.
    pub fn qualified(&self) -> String {
        let mut out = String::new();
        for part in &self.namespace {
            out.push_str(&part.name);
            out.push('.');
        }
        out.push_str(&self.name.name);
        out
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionCall {
    pub name: FunctionName,
    /// `count(DISTINCT x)`
    pub distinct: bool,
    pub args: Vec<Expr>,
}

/// `CASE [operand] WHEN .. THEN .. [ELSE ..] END`
#[derive(Clone, Debug, PartialEq)]
pub struct CaseExpr {
    /// The simple form's `CASE x WHEN 1 ...`; `None` for the generic `CASE WHEN cond ...`.
    pub operand: Option<Expr>,
    pub branches: Vec<CaseBranch>,
    pub default: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CaseBranch {
    pub when: Expr,
    pub then: Expr,
}

/// `[x IN list WHERE filter | map]`
#[derive(Clone, Debug, PartialEq)]
pub struct ListComprehension {
    pub variable: Ident,
    pub list: Expr,
    pub filter: Option<Expr>,
    pub map: Option<Expr>,
}

/// `[p = (a)-->(b) WHERE filter | map]`
#[derive(Clone, Debug, PartialEq)]
pub struct PatternComprehension {
    pub path: Option<Ident>,
    pub pattern: PatternChain,
    pub filter: Option<Expr>,
    pub map: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    All,
    Any,
    None,
    Single,
}

impl Quantifier {
    pub fn name(self) -> &'static str {
        match self {
            Quantifier::All => "all",
            Quantifier::Any => "any",
            Quantifier::None => "none",
            Quantifier::Single => "single",
        }
    }
}

/// `all(x IN list WHERE predicate)` and its siblings.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantified {
    pub quantifier: Quantifier,
    pub variable: Ident,
    pub list: Expr,
    pub predicate: Expr,
}

/// `reduce(accumulator = init, variable IN list | expr)`
#[derive(Clone, Debug, PartialEq)]
pub struct Reduce {
    pub accumulator: Ident,
    pub init: Expr,
    pub variable: Ident,
    pub list: Expr,
    pub expr: Expr,
}

/// `base {.key, .*, name: expr, variable}`
#[derive(Clone, Debug, PartialEq)]
pub struct MapProjection {
    pub base: Ident,
    pub items: Vec<MapProjectionItem>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum MapProjectionItem {
    /// `.key`
    Property(Ident),
    /// `.*`
    AllProperties,
    /// `variable`: the key is the variable's name.
    Variable(Ident),
    /// `key: value`
    Entry { key: Ident, value: Expr },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubqueryKind {
    Exists,
    Count,
    Collect,
}

/// `EXISTS { ... }`, `COUNT { ... }` or `COLLECT { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct SubqueryExpr {
    pub kind: SubqueryKind,
    pub body: SubqueryBody,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SubqueryBody {
    /// The short form `{ (a)-->(b) WHERE ... }`.
    Pattern {
        pattern: Vec<PatternPart>,
        filter: Option<Expr>,
    },
    /// A full query; `EXISTS` and `COUNT` bodies may omit `RETURN`.
    Query(Query),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }

    /// How tightly this expression binds when printed (see [`prec`]).
    pub(crate) fn precedence(&self) -> u8 {
        match &self.kind {
            ExprKind::Binary { op, .. } => op.precedence(),
            ExprKind::Chain { rest, .. } => {
                rest.first().map_or(prec::ATOM, |(op, _)| op.precedence())
            }
            ExprKind::Unary {
                op: UnaryOp::Not, ..
            } => prec::NOT,
            ExprKind::Unary { .. } => prec::UNARY,
            ExprKind::IsNull { .. } => prec::PREDICATE,
            ExprKind::Property { .. }
            | ExprKind::Index { .. }
            | ExprKind::Slice { .. }
            | ExprKind::HasLabels { .. }
            | ExprKind::LabelTest { .. }
            | ExprKind::DynamicLabels { .. } => prec::POSTFIX,
            ExprKind::TypeTest { .. } => prec::PREDICATE,
            ExprKind::Literal(literal) if literal.is_negative_number() => prec::UNARY,
            // A pattern predicate next to an operator could read as a longer pattern
            // (`(a)-->(b) - -1`), so as an operand it is always parenthesised.
            ExprKind::Pattern(_) => 0,
            _ => prec::ATOM,
        }
    }

    /// Display adapter printing `self` in parentheses unless it binds at least `min`.
    fn at(&self, min: u8) -> AtPrecedence<'_> {
        AtPrecedence { expr: self, min }
    }

    /// The operands of the expression's top-level `AND`s, left to right (the expression
    /// itself when it has none): a predicate's conjuncts.
    pub fn conjuncts(&self) -> Vec<&Expr> {
        fn walk<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
            match &e.kind {
                ExprKind::Binary {
                    op: BinaryOp::And,
                    left,
                    right,
                } => {
                    walk(left, out);
                    walk(right, out);
                }
                ExprKind::Chain { first, rest }
                    if rest.iter().all(|(op, _)| *op == BinaryOp::And) =>
                {
                    walk(first, out);
                    for (_, operand) in rest {
                        walk(operand, out);
                    }
                }
                _ => out.push(e),
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// For a [`ExprKind::Chain`], the number `n` of its leading operators that spell `part`
    /// (as a `Binary` when `n` is 1, a shorter `Chain` otherwise), with `n` short of the whole
    /// chain. In the left-nested tree a chain stands for, those leading operators are a
    /// subexpression; passes that look for a known expression inside another (a projected
    /// grouping key inside `ORDER BY`) find it here.
    pub fn chain_prefix_len(&self, part: &Expr) -> Option<usize> {
        let ExprKind::Chain { first, rest } = &self.kind else {
            return None;
        };
        let n = match &part.kind {
            ExprKind::Binary { op, left, right } => {
                let (op1, e1) = rest.first()?;
                (op == op1 && **left == **first && **right == *e1).then_some(1)?
            }
            ExprKind::Chain {
                first: part_first,
                rest: part_rest,
            } => {
                let n = part_rest.len();
                (n < rest.len() && **part_first == **first && *part_rest == rest[..n])
                    .then_some(n)?
            }
            _ => return None,
        };
        (n < rest.len()).then_some(n)
    }

    /// Whether this expression, as the left operand of `op`, must print in parentheses.
    /// Operators associate to the left, but an operator node of `op`'s own level on the left
    /// is printed in parentheses: unparenthesised, `a + b + c` reads back as one
    /// [`ExprKind::Chain`]. Comparisons never chain (`a < b < c` means `a < b AND b < c`).
    fn needs_parentheses_left_of(&self, op: BinaryOp) -> bool {
        let p = op.precedence();
        let own = self.precedence();
        own < p
            || (own == p
                && (op.is_comparison()
                    || matches!(self.kind, ExprKind::Binary { .. } | ExprKind::Chain { .. })))
            || self.type_test_before(op)
    }

    /// Whether this is a type test that, printed bare before `op`, would read differently:
    /// a type ending in a bare word followed by `<` reads as a parameterised type
    /// (`x IS :: ANY < y` as `ANY<`), so such a test is parenthesised before `<`, `<=`, `<>`.
    fn type_test_before(&self, op: BinaryOp) -> bool {
        matches!(self.kind, ExprKind::TypeTest { .. }) && op.symbol().starts_with('<')
    }

    /// Whether the printed form starts with `variable IN`, which at the start of a list
    /// literal would read as a list comprehension. Any word may name a comprehension's
    /// variable, so `null`, `true` and `false` count as variables here.
    fn starts_with_variable_in(&self) -> bool {
        let word = |e: &Expr| {
            matches!(
                e.kind,
                ExprKind::Variable(_) | ExprKind::Literal(Literal::Null | Literal::Boolean(_))
            )
        };
        match &self.kind {
            ExprKind::Binary {
                op: BinaryOp::In,
                left,
                ..
            } if word(left) => true,
            ExprKind::Binary { op, left, .. } => {
                !left.needs_parentheses_left_of(*op) && left.starts_with_variable_in()
            }
            ExprKind::Chain { first, rest } => match rest.first() {
                Some((BinaryOp::In, _)) if word(first) => true,
                Some((op, _)) => {
                    first.precedence() > op.precedence() && first.starts_with_variable_in()
                }
                None => false,
            },
            ExprKind::IsNull { operand, .. } => {
                operand.precedence() >= prec::PREDICATE && operand.starts_with_variable_in()
            }
            _ => false,
        }
    }
}

impl Literal {
    fn is_negative_number(&self) -> bool {
        match self {
            Literal::Integer(v) => *v < 0,
            Literal::Float(v) => v.is_sign_negative(),
            _ => false,
        }
    }
}

struct AtPrecedence<'a> {
    expr: &'a Expr,
    min: u8,
}

impl fmt::Display for AtPrecedence<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.expr.precedence() < self.min {
            write!(f, "({})", self.expr)
        } else {
            write!(f, "{}", self.expr)
        }
    }
}

impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Null => f.write_str("null"),
            Literal::Boolean(true) => f.write_str("true"),
            Literal::Boolean(false) => f.write_str("false"),
            Literal::Integer(v) => write!(f, "{v}"),
            // Debug keeps a `.0` or an exponent, so the text reads back as a float.
            Literal::Float(v) => write!(f, "{v:?}"),
            Literal::String(s) => write_string(f, s),
        }
    }
}

/// A string literal in single quotes with every character that needs it escaped.
pub(crate) fn write_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    use fmt::Write;
    f.write_char('\'')?;
    for c in s.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if c.is_control() => write!(f, "\\u{:04X}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('\'')
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ExprKind::Literal(literal) => write!(f, "{literal}"),
            ExprKind::Parameter(name) => write_parameter(f, name),
            ExprKind::Variable(name) => write!(f, "{}", name.as_variable()),
            ExprKind::Property { base, key } => write!(f, "{}.{key}", base.at(prec::POSTFIX)),
            ExprKind::Index { base, index } => {
                write!(f, "{}[{index}]", base.at(prec::POSTFIX))
            }
            ExprKind::Slice { base, from, to } => {
                write_slice(f, base, from.as_deref(), to.as_deref())
            }
            ExprKind::HasLabels { base, labels } => write_has_labels(f, base, labels),
            ExprKind::DynamicLabels { base, all, any } => write_dynamic_labels(f, base, all, any),
            ExprKind::LabelTest { base, expr } => {
                write_label_base(f, base, is_label_test(base))?;
                // In parentheses: unparenthesised, a `|` would end a comprehension's filter.
                match expr {
                    LabelExpr::Name(_) | LabelExpr::Any => write!(f, ":{expr}"),
                    _ => write!(f, ":({expr})"),
                }
            }
            ExprKind::TypeTest {
                operand,
                ty,
                negated,
            } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{} IS {not}:: {ty}", operand.at(prec::PREDICATE + 1))
            }
            ExprKind::Unary { op, operand } => write_unary(f, *op, operand),
            ExprKind::Binary { op, left, right } => {
                if left.needs_parentheses_left_of(*op) {
                    write!(f, "({left})")?;
                } else {
                    write!(f, "{left}")?;
                }
                write!(f, " {} {}", op.symbol(), right.at(op.precedence() + 1))
            }
            ExprKind::Chain { first, rest } => {
                let p = self.precedence();
                let operands = std::iter::once(&**first).chain(rest.iter().map(|(_, e)| e));
                let ops = rest.iter().map(|(op, _)| Some(*op)).chain([None]);
                for (i, (operand, next)) in operands.zip(ops).enumerate() {
                    if i > 0 {
                        write!(f, " {} ", rest[i - 1].0.symbol())?;
                    }
                    if next.is_some_and(|op| operand.type_test_before(op)) {
                        write!(f, "({operand})")?;
                    } else {
                        write!(f, "{}", operand.at(p + 1))?;
                    }
                }
                Ok(())
            }
            ExprKind::IsNull { operand, negated } => {
                let not = if *negated { "NOT " } else { "" };
                write!(f, "{} IS {not}NULL", operand.at(prec::PREDICATE))
            }
            ExprKind::List(items) => write_list(f, items),
            ExprKind::Map(entries) => {
                f.write_str("{")?;
                write_comma_separated(f, entries)?;
                f.write_str("}")
            }
            ExprKind::FunctionCall(call) => write!(f, "{call}"),
            ExprKind::CountStar => f.write_str("count(*)"),
            ExprKind::Case(case) => write!(f, "{case}"),
            ExprKind::ListComprehension(c) => write!(f, "{c}"),
            ExprKind::PatternComprehension(c) => write!(f, "{c}"),
            ExprKind::Quantified(q) => write!(
                f,
                "{}({} IN {} WHERE {})",
                q.quantifier.name(),
                q.variable.as_variable(),
                q.list,
                q.predicate
            ),
            ExprKind::Reduce(r) => write!(
                f,
                "reduce({} = {}, {} IN {} | {})",
                r.accumulator.as_variable(),
                r.init,
                r.variable.as_variable(),
                r.list,
                r.expr
            ),
            ExprKind::MapProjection(p) => {
                write!(f, "{} {{", p.base.as_variable())?;
                write_comma_separated(f, &p.items)?;
                f.write_str("}")
            }
            ExprKind::Pattern(chain) => write!(f, "{chain}"),
            ExprKind::Subquery(subquery) => write!(f, "{subquery}"),
        }
    }
}

/// A parameter, quoted in backticks unless its name is a plain identifier.
pub(super) fn write_parameter(f: &mut fmt::Formatter<'_>, name: &str) -> fmt::Result {
    if !name.is_empty() && name.chars().all(crate::lexer::is_ident_continue) {
        write!(f, "${name}")
    } else {
        write!(f, "$`{}`", name.replace('`', "``"))
    }
}

/// `base[from..to]`, either bound left out when absent.
fn write_slice(
    f: &mut fmt::Formatter<'_>,
    base: &Expr,
    from: Option<&Expr>,
    to: Option<&Expr>,
) -> fmt::Result {
    write!(f, "{}[", base.at(prec::POSTFIX))?;
    if let Some(from) = from {
        write!(f, "{from}")?;
    }
    f.write_str("..")?;
    if let Some(to) = to {
        write!(f, "{to}")?;
    }
    f.write_str("]")
}

/// `base:$(a):$any(b)`.
fn write_dynamic_labels(
    f: &mut fmt::Formatter<'_>,
    base: &Expr,
    all: &[Expr],
    any: &[Expr],
) -> fmt::Result {
    let nested = is_label_test(base) || matches!(base.kind, ExprKind::DynamicLabels { .. });
    write_label_base(f, base, nested)?;
    for label in all {
        write!(f, ":$({label})")?;
    }
    for label in any {
        write!(f, ":$any({label})")?;
    }
    Ok(())
}

/// Whether `expr` is a label test (`x:A`, `x IS A`), which needs parentheses as the base of
/// another.
fn is_label_test(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        ExprKind::HasLabels { .. } | ExprKind::LabelTest { .. }
    )
}

/// The base of a label test, in parentheses when `nested` (a test on a test).
fn write_label_base(f: &mut fmt::Formatter<'_>, base: &Expr, nested: bool) -> fmt::Result {
    if nested {
        write!(f, "({base})")
    } else {
        write!(f, "{}", base.at(prec::POSTFIX))
    }
}

/// `base:A:B`.
fn write_has_labels(f: &mut fmt::Formatter<'_>, base: &Expr, labels: &[Ident]) -> fmt::Result {
    // `x:A:B` reads as one test; a test on a test needs parentheses.
    write_label_base(f, base, is_label_test(base))?;
    for label in labels {
        write!(f, ":{label}")?;
    }
    Ok(())
}

/// `[a, b]`; a first item that reads as `x IN ...` is parenthesised, or the list would read as
/// a list comprehension.
fn write_list(f: &mut fmt::Formatter<'_>, items: &[Expr]) -> fmt::Result {
    f.write_str("[")?;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        if i == 0 && item.starts_with_variable_in() {
            write!(f, "({item})")?;
        } else {
            write!(f, "{item}")?;
        }
    }
    f.write_str("]")
}

fn write_unary(f: &mut fmt::Formatter<'_>, op: UnaryOp, operand: &Expr) -> fmt::Result {
    match op {
        UnaryOp::Not => write!(f, "NOT {}", operand.at(prec::NOT)),
        UnaryOp::Negate | UnaryOp::Plus => {
            f.write_str(if op == UnaryOp::Negate { "-" } else { "+" })?;
            // `-(1)` keeps a negated literal from folding into a negative literal on reparse.
            let numeric = matches!(
                operand.kind,
                ExprKind::Literal(Literal::Integer(_) | Literal::Float(_))
            );
            if numeric && !operand_is_negative_literal(operand) && op == UnaryOp::Negate {
                return write!(f, "({operand})");
            }
            let text = operand.at(prec::UNARY).to_string();
            if text.starts_with('-') || text.starts_with('+') {
                f.write_str(" ")?;
            }
            f.write_str(&text)
        }
    }
}

fn operand_is_negative_literal(operand: &Expr) -> bool {
    matches!(&operand.kind, ExprKind::Literal(l) if l.is_negative_number())
}

impl fmt::Display for MapEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.key, self.value)
    }
}

/// Words that start special forms when followed by `(` (`NOT(x)`, `all(x IN l ...)`,
/// `reduce(a = ...)`), or that continue an expression, so that after `NOT`, `CASE` or
/// `DISTINCT` they end it (`DISTINCT end(x)`): as the first part of a function name they are
/// printed quoted, so the call reads back as a call.
const SPECIAL_FORM_WORDS: &[&str] = &[
    "all",
    "allshortestpaths",
    "and",
    "any",
    "as",
    "case",
    "contains",
    "else",
    "end",
    "ends",
    "false",
    "in",
    "is",
    "none",
    "not",
    "null",
    "or",
    "reduce",
    "shortestpath",
    "single",
    "starts",
    "then",
    "true",
    "when",
    "where",
    "xor",
];

impl fmt::Display for FunctionName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts = self.namespace.iter().chain(std::iter::once(&self.name));
        for (i, part) in parts.enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            let special = SPECIAL_FORM_WORDS
                .iter()
                .any(|w| w.eq_ignore_ascii_case(&part.name));
            if i == 0 && special {
                write!(f, "`{}`", part.name)?;
            } else {
                write!(f, "{part}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for FunctionCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        write_comma_separated(f, &self.args)?;
        f.write_str(")")
    }
}

impl fmt::Display for CaseExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CASE")?;
        if let Some(operand) = &self.operand {
            write!(f, " {operand}")?;
        }
        for branch in &self.branches {
            write!(f, " WHEN {} THEN {}", branch.when, branch.then)?;
        }
        if let Some(default) = &self.default {
            write!(f, " ELSE {default}")?;
        }
        f.write_str(" END")
    }
}

impl fmt::Display for ListComprehension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{} IN {}", self.variable.as_variable(), self.list)?;
        if let Some(filter) = &self.filter {
            write!(f, " WHERE {filter}")?;
        }
        if let Some(map) = &self.map {
            write!(f, " | {map}")?;
        }
        f.write_str("]")
    }
}

impl fmt::Display for PatternComprehension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        if let Some(path) = &self.path {
            write!(f, "{} = ", path.as_variable())?;
        }
        write!(f, "{}", self.pattern)?;
        if let Some(filter) = &self.filter {
            write!(f, " WHERE {filter}")?;
        }
        write!(f, " | {}]", self.map)
    }
}

impl fmt::Display for MapProjectionItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MapProjectionItem::Property(key) => write!(f, ".{key}"),
            MapProjectionItem::AllProperties => f.write_str(".*"),
            MapProjectionItem::Variable(name) => write!(f, "{}", name.as_variable()),
            MapProjectionItem::Entry { key, value } => write!(f, "{key}: {value}"),
        }
    }
}

impl fmt::Display for SubqueryExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.kind {
            SubqueryKind::Exists => "EXISTS { ",
            SubqueryKind::Count => "COUNT { ",
            SubqueryKind::Collect => "COLLECT { ",
        })?;
        match &self.body {
            SubqueryBody::Pattern { pattern, filter } => {
                write_comma_separated(f, pattern)?;
                if let Some(filter) = filter {
                    write!(f, " WHERE {filter}")?;
                }
            }
            SubqueryBody::Query(query) => write!(f, "{query}")?,
        }
        f.write_str(" }")
    }
}
