//! The semantic pass: the compile-time checks Neo4j makes after parsing, and what the planner
//! needs to know about each projection.
//!
//! It walks the tree once, keeping the variables in scope (with their static [`Type`] where
//! the text tells it) through `WITH`, `RETURN`, `UNION` and subqueries, and fails on the first
//! error with the status and TCK detail Neo4j reports: undefined or re-declared variables,
//! misplaced or ambiguous aggregation, patterns that `CREATE`/`MERGE` cannot create, wrong
//! argument counts, type mismatches the text makes certain, and so on.

mod catalog;
mod clause;
mod expr;
mod pattern;
mod query;
mod scope;
mod types;
mod walk;

use std::collections::{HashMap, HashSet};

pub use catalog::{
    BuiltinFunctions, FunctionCatalog, FunctionSignature, ProcedureCatalog, ProcedureInput,
    ProcedureSignature, builtin_functions,
};
pub use types::Type;

use crate::ast::{Clause, Statement, StatementKind};
use crate::error::{Detail, Error, ErrorKind, Status};
use crate::span::Span;

/// What the analysis may consult.
#[derive(Clone, Copy)]
pub struct AnalyzeOptions<'a> {
    pub functions: &'a dyn FunctionCatalog,
    /// `None` leaves procedure calls unchecked: any name, any arguments, and the outputs are
    /// whatever `YIELD` names.
    pub procedures: Option<&'a dyn ProcedureCatalog>,
}

impl Default for AnalyzeOptions<'_> {
    fn default() -> Self {
        AnalyzeOptions {
            functions: &BuiltinFunctions,
            procedures: None,
        }
    }
}

/// What the planner needs beyond the tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// The statement's result columns, in order (empty when it returns nothing).
    pub columns: Vec<String>,
    /// Every parameter the statement reads, once, at its first use; a standalone procedure
    /// call without parentheses reads its inputs from the parameters of the same names.
    pub parameters: Vec<ParameterUse>,
    /// Whether the statement may write (contains an updating clause).
    pub writes: bool,
    /// Per `WITH`/`RETURN` clause, keyed by the clause's start offset.
    projections: HashMap<u32, ProjectionInfo>,
    /// Per clause of a query (subqueries and `FOREACH` bodies included), keyed by the clause's
    /// start offset: the variables visible after it.
    scopes: HashMap<u32, Vec<ScopeVar>>,
}

/// What a variable holds, as far as planning cares: which entity, or a value that is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarKind {
    Node,
    Relationship,
    Path,
    /// Known not to be a graph entity: a literal, list (of relationships too) or map.
    Value,
    /// Not known from the text (a parameter, a function's result, a procedure output).
    Any,
}

impl VarKind {
    /// The kind of a variable of static type `ty`.
    pub fn of(ty: &Type) -> VarKind {
        match ty {
            Type::Node => VarKind::Node,
            Type::Relationship => VarKind::Relationship,
            Type::Path => VarKind::Path,
            Type::Any | Type::Null => VarKind::Any,
            Type::Boolean
            | Type::Integer
            | Type::Float
            | Type::String
            | Type::List(_)
            | Type::Map => VarKind::Value,
        }
    }
}

/// A variable visible after a clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScopeVar {
    pub name: String,
    pub kind: VarKind,
    /// Whether the clause bound it (a new pattern element, an `UNWIND` or `YIELD` variable, a
    /// projected column, a subquery's column) rather than finding it bound before.
    pub introduced: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterUse {
    pub name: String,
    pub span: Span,
}

/// What a `WITH` or `RETURN` produces.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectionInfo {
    /// The columns in order: variables carried by `*` first (sorted by name), then the items.
    pub columns: Vec<ColumnInfo>,
    /// Whether any item aggregates; the items that do not are then the grouping keys.
    pub aggregating: bool,
    /// Per `ORDER BY` item: the column it sorts by when it is exactly a projected item (by
    /// expression or by name); `None` when it must be evaluated.
    pub order_by_columns: Vec<Option<usize>>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ColumnInfo {
    pub name: String,
    /// The index into `projection.items`, or `None` for a variable carried over by `*`.
    pub item: Option<usize>,
    /// Whether the item contains an aggregating function (outside nested subqueries).
    pub aggregate: bool,
    pub ty: Type,
}

impl ProjectionInfo {
    /// The indexes into `items` of the grouping keys (meaningful when `aggregating`).
    pub fn grouping_items(&self) -> impl Iterator<Item = usize> + '_ {
        self.columns
            .iter()
            .filter(|c| !c.aggregate)
            .filter_map(|c| c.item)
    }
}

impl Analysis {
    /// The projection information of a `WITH` or `RETURN` clause of the analysed statement.
    pub fn projection(&self, clause: &Clause) -> Option<&ProjectionInfo> {
        self.projection_at(clause.span)
    }

    /// The projection information of the `WITH` or `RETURN` clause spanning `clause_span`
    /// (`None` for projections the analysis does not see, such as `SHOW ... YIELD`).
    pub fn projection_at(&self, clause_span: Span) -> Option<&ProjectionInfo> {
        self.projections.get(&clause_span.start)
    }

    /// The variables visible after the clause spanning `clause_span`, ordered by name
    /// (`None` for clauses the analysis does not see, such as a `SHOW` command's).
    pub fn scope_after(&self, clause_span: Span) -> Option<&[ScopeVar]> {
        self.scopes.get(&clause_span.start).map(Vec::as_slice)
    }

    /// The kind of `name` after the clause spanning `clause_span`; [`VarKind::Any`] when the
    /// analysis does not know the variable there.
    pub fn kind_after(&self, clause_span: Span, name: &str) -> VarKind {
        self.scope_after(clause_span)
            .and_then(|vars| vars.iter().find(|v| v.name == name))
            .map_or(VarKind::Any, |v| v.kind)
    }

    /// Fails with `ParameterMissing` naming the first parameter `supplied` does not know.
    pub fn check_parameters(
        &self,
        supplied: impl Fn(&str) -> bool,
        query: &str,
    ) -> std::result::Result<(), Error> {
        match self.parameters.iter().find(|p| !supplied(&p.name)) {
            None => Ok(()),
            Some(missing) => Err(Error::new(
                ErrorKind {
                    status: Status::ParameterMissing,
                    detail: Detail::MissingParameter,
                },
                format!("Expected parameter(s): {}", missing.name),
                missing.span,
                query,
            )),
        }
    }
}

/// Analyses a parsed statement with the built-in functions and unchecked procedures.
/// `query` is the text it was parsed from, for error positions.
pub fn analyze(statement: &Statement, query: &str) -> std::result::Result<Analysis, Error> {
    analyze_with(statement, query, &AnalyzeOptions::default())
}

/// Analyses a parsed statement.
pub fn analyze_with(
    statement: &Statement,
    query: &str,
    options: &AnalyzeOptions<'_>,
) -> std::result::Result<Analysis, Error> {
    let mut analyzer = Analyzer {
        source: query,
        options: *options,
        analysis: Analysis::default(),
        aggregates: 0,
        seen_parameters: HashSet::new(),
    };
    match &statement.kind {
        StatementKind::Query(q) => {
            let columns = analyzer.top_level_query(q)?;
            analyzer.analysis.columns = columns;
        }
        StatementKind::Schema(_) => {}
        StatementKind::Show(show) => analyzer.show_command(show)?,
        StatementKind::TerminateTransactions(t) => analyzer.terminate(t)?,
        StatementKind::Admin(a) => analyzer.admin(a)?,
        StatementKind::Database(d) => analyzer.database(d)?,
    }
    Ok(analyzer.analysis)
}

/// Parses and analyses `query` with the default limits and catalogs.
pub fn compile_front(query: &str) -> std::result::Result<(Statement, Analysis), Error> {
    let statement = crate::parse(query)?;
    let analysis = analyze(&statement, query)?;
    Ok((statement, analysis))
}

pub(crate) type Result<T> = std::result::Result<T, Error>;

pub(crate) struct Analyzer<'a> {
    source: &'a str,
    options: AnalyzeOptions<'a>,
    analysis: Analysis,
    /// Aggregating calls seen so far; a walk compares before and after to learn whether an
    /// expression aggregates.
    aggregates: usize,
    seen_parameters: HashSet<String>,
}

impl Analyzer<'_> {
    fn error(&self, kind: ErrorKind, message: impl Into<String>, span: Span) -> Error {
        Error::new(kind, message, span, self.source)
    }

    fn syntax_error(&self, detail: Detail, message: impl Into<String>, span: Span) -> Error {
        self.error(ErrorKind::syntax(detail), message, span)
    }

    fn undefined(&self, name: &str, span: Span) -> Error {
        self.syntax_error(
            Detail::UndefinedVariable,
            format!("Variable `{name}` not defined"),
            span,
        )
    }

    fn already_bound(&self, name: &str, span: Span) -> Error {
        self.syntax_error(
            Detail::VariableAlreadyBound,
            format!("Variable `{name}` already declared"),
            span,
        )
    }

    fn type_mismatch(&self, expected: &str, found: &Type, span: Span) -> Error {
        self.syntax_error(
            Detail::InvalidArgumentType,
            format!("Type mismatch: expected {expected} but was {found}"),
            span,
        )
    }

    fn note_parameter(&mut self, name: &str, span: Span) {
        if self.seen_parameters.insert(name.to_string()) {
            self.analysis.parameters.push(ParameterUse {
                name: name.to_string(),
                span,
            });
        }
    }

    /// Records the scope after a clause; `before` is the scope it started from.
    fn record_scope(&mut self, clause_span: Span, before: &scope::Scope, after: &scope::Scope) {
        let vars = after
            .iter()
            .map(|(name, ty)| ScopeVar {
                name: name.clone(),
                kind: VarKind::of(ty),
                introduced: !before.contains(name),
            })
            .collect();
        self.analysis.scopes.insert(clause_span.start, vars);
    }

    fn record_projection(&mut self, clause_span: Span, info: ProjectionInfo) {
        self.analysis.projections.insert(clause_span.start, info);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_parameters_are_reported_at_first_use() {
        let query = "MATCH (n {id: $id}) WHERE n.x = $x OR n.y = $x RETURN n";
        let (_, analysis) = compile_front(query).unwrap();
        let names: Vec<&str> = analysis
            .parameters
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["id", "x"]);
        assert!(analysis.check_parameters(|_| true, query).is_ok());
        let error = analysis
            .check_parameters(|name| name == "id", query)
            .unwrap_err();
        assert_eq!(error.status_code(), quiver_status::Status::ParameterMissing);
        assert_eq!(error.detail(), Some("MissingParameter"));
        assert_eq!(error.position.column, 33);
    }
}
