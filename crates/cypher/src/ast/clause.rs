//! Clauses: the steps of a single query.

use std::fmt;

use super::{
    Expr, ExprKind, FunctionName, Ident, IndexKind, PatternPart, Query, Span, write_comma_separated,
};

/// A clause and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Clause {
    pub kind: ClauseKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ClauseKind {
    Match(Match),
    Unwind(Unwind),
    With(With),
    Return(Return),
    Create(Create),
    Merge(Merge),
    Set(SetClause),
    Remove(Remove),
    Delete(Delete),
    Foreach(Foreach),
    /// `CALL { ... }` and `CALL (x, y) { ... }`
    CallSubquery(CallSubquery),
    /// `CALL db.labels() YIELD label`
    CallProcedure(CallProcedure),
    /// `FINISH`: ends a query without returning rows.
    Finish,
    /// `USE graph`: which database the (sub)query reads; first in its single query.
    Use(UseGraph),
    /// `LOAD CSV [WITH HEADERS] FROM url AS row [FIELDTERMINATOR ',']`
    LoadCsv(LoadCsv),
}

/// `LOAD CSV [WITH HEADERS] FROM url AS variable [FIELDTERMINATOR 'c']`: binds `variable` to
/// each row of the file, a list of strings or, with headers, a map from column name to string.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadCsv {
    pub with_headers: bool,
    pub url: Expr,
    pub variable: Ident,
    /// The field separator, the value of the string literal written (`'\t'` is a tab); `None`:
    /// a comma. The analysis checks it is one character.
    pub field_terminator: Option<String>,
}

/// The graph a `USE` clause names: a database name or alias, dotted for a composite's
/// constituent (`USE composite.part`).
#[derive(Clone, Debug, PartialEq)]
pub struct UseGraph {
    pub name: Vec<Ident>,
}

impl UseGraph {
    /// The dotted name as written (names compare case-insensitively).
    pub fn qualified(&self) -> String {
        let parts: Vec<&str> = self.name.iter().map(|p| p.name.as_str()).collect();
        parts.join(".")
    }
}

impl fmt::Display for UseGraph {
    /// `USE name`, each part quoted where it must be.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("USE ")?;
        for (i, part) in self.name.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{}", part.as_variable())?;
        }
        Ok(())
    }
}

impl ClauseKind {
    /// The clause's keyword(s), for messages.
    pub fn name(&self) -> &'static str {
        match self {
            ClauseKind::Match(m) if m.optional => "OPTIONAL MATCH",
            ClauseKind::Match(_) => "MATCH",
            ClauseKind::Unwind(_) => "UNWIND",
            ClauseKind::With(_) => "WITH",
            ClauseKind::Return(_) => "RETURN",
            ClauseKind::Create(_) => "CREATE",
            ClauseKind::Merge(_) => "MERGE",
            ClauseKind::Set(_) => "SET",
            ClauseKind::Remove(_) => "REMOVE",
            ClauseKind::Delete(d) if d.detach => "DETACH DELETE",
            ClauseKind::Delete(_) => "DELETE",
            ClauseKind::Foreach(_) => "FOREACH",
            ClauseKind::CallSubquery(_) | ClauseKind::CallProcedure(_) => "CALL",
            ClauseKind::Finish => "FINISH",
            ClauseKind::Use(_) => "USE",
            ClauseKind::LoadCsv(_) => "LOAD CSV",
        }
    }

    /// Whether the clause writes to the graph (directly; a `CALL` subquery may too, inside).
    pub fn is_update(&self) -> bool {
        matches!(
            self,
            ClauseKind::Create(_)
                | ClauseKind::Merge(_)
                | ClauseKind::Set(_)
                | ClauseKind::Remove(_)
                | ClauseKind::Delete(_)
                | ClauseKind::Foreach(_)
        )
    }
}

/// `[OPTIONAL] MATCH pattern [USING ...] [WHERE filter]`
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    pub optional: bool,
    pub pattern: Vec<PatternPart>,
    pub hints: Vec<Hint>,
    pub filter: Option<Expr>,
}

/// Planner hints after a `MATCH` pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// `USING [RANGE|TEXT|POINT] INDEX [SEEK] n:Label(prop, ...)`
    Index {
        kind: Option<IndexKind>,
        seek: bool,
        variable: Ident,
        label: Ident,
        properties: Vec<Ident>,
    },
    /// `USING SCAN n:Label`
    Scan { variable: Ident, label: Ident },
    /// `USING JOIN ON a, b`
    Join { variables: Vec<Ident> },
}

/// `UNWIND expr AS variable`
#[derive(Clone, Debug, PartialEq)]
pub struct Unwind {
    pub expr: Expr,
    pub variable: Ident,
}

/// `WITH projection [WHERE filter]`
#[derive(Clone, Debug, PartialEq)]
pub struct With {
    pub projection: Projection,
    pub filter: Option<Expr>,
}

/// `RETURN projection`
#[derive(Clone, Debug, PartialEq)]
pub struct Return {
    pub projection: Projection,
}

/// The body shared by `WITH` and `RETURN`.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    pub distinct: bool,
    /// `*`: every variable in scope, before the explicit items.
    pub star: bool,
    pub items: Vec<ProjectionItem>,
    pub order_by: Vec<SortItem>,
    pub skip: Option<Expr>,
    pub limit: Option<Expr>,
}

/// `expr [AS alias]`
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectionItem {
    pub expr: Expr,
    pub alias: Option<Ident>,
    /// For an unaliased item, the expression's text exactly as written (empty when aliased).
    /// Neo4j names an unaliased column by it (`count(*)`, `x = d`), so an unaliased item prints
    /// this text rather than the canonical form of `expr`; whoever builds an item by hand sets
    /// it to `expr.to_string()`.
    pub text: String,
    pub span: Span,
}

impl ProjectionItem {
    /// The column (or variable) this item produces: the alias, else a bare variable's name,
    /// else the text as written.
    pub fn name(&self) -> &str {
        if let Some(alias) = &self.alias {
            return &alias.name;
        }
        if let ExprKind::Variable(variable) = &self.expr.kind {
            return &variable.name;
        }
        &self.text
    }
}

/// `expr [ASC|DESC]`
#[derive(Clone, Debug, PartialEq)]
pub struct SortItem {
    pub expr: Expr,
    pub descending: bool,
}

/// `CREATE pattern`
#[derive(Clone, Debug, PartialEq)]
pub struct Create {
    pub pattern: Vec<PatternPart>,
}

/// `MERGE pattern [ON CREATE SET ...] [ON MATCH SET ...]`
#[derive(Clone, Debug, PartialEq)]
pub struct Merge {
    pub pattern: PatternPart,
    pub actions: Vec<MergeAction>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MergeAction {
    pub on: MergeOn,
    pub items: Vec<SetItem>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MergeOn {
    Create,
    Match,
}

/// `SET item, ...`
#[derive(Clone, Debug, PartialEq)]
pub struct SetClause {
    pub items: Vec<SetItem>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SetItem {
    /// `entity.key = value`
    Property {
        entity: Expr,
        key: Ident,
        value: Expr,
    },
    /// `entity[key] = value`: a property whose key is named at run time (a String).
    DynamicProperty {
        entity: Expr,
        key: Expr,
        value: Expr,
    },
    /// `variable = map`: replaces every property.
    Replace { variable: Ident, value: Expr },
    /// `variable += map`: adds and overwrites properties.
    Merge { variable: Ident, value: Expr },
    /// `variable:Label:...`
    Labels { variable: Ident, labels: Vec<Ident> },
    /// `variable:$(expr)...` (or `variable IS $(expr)`): labels named at run time, each
    /// expression a string or a list of strings; static names among them are string literals.
    DynamicLabels { variable: Ident, labels: Vec<Expr> },
}

/// `REMOVE item, ...`
#[derive(Clone, Debug, PartialEq)]
pub struct Remove {
    pub items: Vec<RemoveItem>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum RemoveItem {
    /// `entity.key`
    Property { entity: Expr, key: Ident },
    /// `entity[key]`: a property whose key is named at run time (a String).
    DynamicProperty { entity: Expr, key: Expr },
    /// `variable:Label:...`
    Labels { variable: Ident, labels: Vec<Ident> },
    /// `variable:$(expr)...` (or `variable IS $(expr)`): labels named at run time, each
    /// expression a string or a list of strings; static names among them are string literals.
    DynamicLabels { variable: Ident, labels: Vec<Expr> },
}

/// `[DETACH] DELETE expr, ...`
#[derive(Clone, Debug, PartialEq)]
pub struct Delete {
    pub detach: bool,
    pub exprs: Vec<Expr>,
}

/// `FOREACH (variable IN list | clauses)`
#[derive(Clone, Debug, PartialEq)]
pub struct Foreach {
    pub variable: Ident,
    pub list: Expr,
    pub clauses: Vec<Clause>,
}

/// `CALL [(scope)] { query } [IN TRANSACTIONS ...]`
#[derive(Clone, Debug, PartialEq)]
pub struct CallSubquery {
    /// `None` for the `CALL { WITH x ... }` form, which imports through its first `WITH`.
    pub scope: Option<ImportScope>,
    pub query: Query,
    pub in_transactions: Option<InTransactions>,
}

/// What a scoped subquery `CALL (...) { }` imports.
#[derive(Clone, Debug, PartialEq)]
pub enum ImportScope {
    /// `CALL (*)`
    All,
    /// `CALL (a, b)`; empty for `CALL ()`.
    Variables(Vec<Ident>),
}

/// `IN [[n] CONCURRENT] TRANSACTIONS [OF rows ROWS] [ON ERROR ...] [REPORT STATUS AS variable]`
#[derive(Clone, Debug, PartialEq)]
pub struct InTransactions {
    /// `IN [n] CONCURRENT TRANSACTIONS`: `Some(None)` when no `n` is given.
    pub concurrency: Option<Option<Expr>>,
    pub batch_rows: Option<Expr>,
    /// What a failed batch does to the rest; with `retry`, what it does once retrying has
    /// not made it succeed (the `THEN` action, `FAIL` when not written).
    pub on_error: Option<OnError>,
    /// `ON ERROR RETRY [FOR seconds SECONDS]`: `Some(None)` when no duration is given.
    pub retry: Option<Option<Expr>>,
    pub report_status: Option<Ident>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnError {
    Continue,
    Break,
    Fail,
}

/// `CALL name[(args)] [YIELD ...]`
#[derive(Clone, Debug, PartialEq)]
pub struct CallProcedure {
    pub name: FunctionName,
    /// `None` when called without parentheses: a standalone call then takes its arguments
    /// from the parameters of the same names.
    pub args: Option<Vec<Expr>>,
    pub yields: Option<ProcedureYield>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ProcedureYield {
    /// `YIELD *` (standalone calls only)
    All,
    /// `YIELD a, b AS c [WHERE filter]`
    Items {
        items: Vec<YieldItem>,
        filter: Option<Expr>,
    },
}

/// `field [AS alias]`
#[derive(Clone, Debug, PartialEq)]
pub struct YieldItem {
    pub field: Ident,
    pub alias: Option<Ident>,
}

impl YieldItem {
    /// The variable the item binds.
    pub fn variable(&self) -> &Ident {
        self.alias.as_ref().unwrap_or(&self.field)
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ClauseKind::Match(m) => write!(f, "{m}"),
            ClauseKind::Unwind(u) => write!(f, "UNWIND {} AS {}", u.expr, u.variable.as_variable()),
            ClauseKind::With(w) => {
                write!(f, "WITH {}", w.projection)?;
                if let Some(filter) = &w.filter {
                    write!(f, " WHERE {filter}")?;
                }
                Ok(())
            }
            ClauseKind::Return(r) => write!(f, "RETURN {}", r.projection),
            ClauseKind::Create(c) => {
                f.write_str("CREATE ")?;
                write_comma_separated(f, &c.pattern)
            }
            ClauseKind::Merge(m) => {
                write!(f, "MERGE {}", m.pattern)?;
                for action in &m.actions {
                    write!(f, " {action}")?;
                }
                Ok(())
            }
            ClauseKind::Set(s) => {
                f.write_str("SET ")?;
                write_comma_separated(f, &s.items)
            }
            ClauseKind::Remove(r) => {
                f.write_str("REMOVE ")?;
                write_comma_separated(f, &r.items)
            }
            ClauseKind::Delete(d) => {
                f.write_str(if d.detach {
                    "DETACH DELETE "
                } else {
                    "DELETE "
                })?;
                write_comma_separated(f, &d.exprs)
            }
            ClauseKind::Foreach(fe) => {
                write!(f, "FOREACH ({} IN {} |", fe.variable.as_variable(), fe.list)?;
                for clause in &fe.clauses {
                    write!(f, " {clause}")?;
                }
                f.write_str(")")
            }
            ClauseKind::CallSubquery(c) => write!(f, "{c}"),
            ClauseKind::CallProcedure(c) => write!(f, "{c}"),
            ClauseKind::Finish => f.write_str("FINISH"),
            ClauseKind::Use(u) => write!(f, "{u}"),
            ClauseKind::LoadCsv(l) => {
                f.write_str(if l.with_headers {
                    "LOAD CSV WITH HEADERS FROM "
                } else {
                    "LOAD CSV FROM "
                })?;
                write!(f, "{} AS {}", l.url, l.variable.as_variable())?;
                if let Some(t) = &l.field_terminator {
                    f.write_str(" FIELDTERMINATOR ")?;
                    super::expr::write_string(f, t)?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.optional {
            "OPTIONAL MATCH "
        } else {
            "MATCH "
        })?;
        write_comma_separated(f, &self.pattern)?;
        for hint in &self.hints {
            write!(f, " {hint}")?;
        }
        if let Some(filter) = &self.filter {
            write!(f, " WHERE {filter}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Hint::Index {
                kind,
                seek,
                variable,
                label,
                properties,
            } => {
                f.write_str("USING ")?;
                if let Some(kind) = kind {
                    write!(f, "{} ", kind.keyword())?;
                }
                f.write_str("INDEX ")?;
                if *seek {
                    f.write_str("SEEK ")?;
                }
                write!(f, "{}:{label}(", variable.as_variable())?;
                write_comma_separated(f, properties)?;
                f.write_str(")")
            }
            Hint::Scan { variable, label } => {
                write!(f, "USING SCAN {}:{label}", variable.as_variable())
            }
            Hint::Join { variables } => {
                f.write_str("USING JOIN ON ")?;
                for (i, v) in variables.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", v.as_variable())?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Projection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.distinct {
            f.write_str("DISTINCT ")?;
        }
        if self.star {
            f.write_str("*")?;
            if !self.items.is_empty() {
                f.write_str(", ")?;
            }
        }
        write_comma_separated(f, &self.items)?;
        if !self.order_by.is_empty() {
            f.write_str(" ORDER BY ")?;
            write_comma_separated(f, &self.order_by)?;
        }
        if let Some(skip) = &self.skip {
            write!(f, " SKIP {skip}")?;
        }
        if let Some(limit) = &self.limit {
            write!(f, " LIMIT {limit}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ProjectionItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.alias {
            Some(alias) => write!(f, "{} AS {}", self.expr, alias.as_variable()),
            None if self.text.is_empty() => write!(f, "{}", self.expr),
            None => f.write_str(&self.text),
        }
    }
}

impl fmt::Display for SortItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.expr)?;
        if self.descending {
            f.write_str(" DESC")?;
        }
        Ok(())
    }
}

impl fmt::Display for MergeAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.on {
            MergeOn::Create => "ON CREATE SET ",
            MergeOn::Match => "ON MATCH SET ",
        })?;
        write_comma_separated(f, &self.items)
    }
}

impl fmt::Display for SetItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetItem::Property { entity, key, value } => {
                write_property_target(f, entity, key)?;
                write!(f, " = {value}")
            }
            SetItem::DynamicProperty { entity, key, value } => {
                write_index_target(f, entity, key)?;
                write!(f, " = {value}")
            }
            SetItem::Replace { variable, value } => {
                write!(f, "{} = {value}", variable.as_variable())
            }
            SetItem::Merge { variable, value } => {
                write!(f, "{} += {value}", variable.as_variable())
            }
            SetItem::Labels { variable, labels } => write_labels(f, variable, labels),
            SetItem::DynamicLabels { variable, labels } => {
                write_dynamic_labels(f, variable, labels)
            }
        }
    }
}

impl fmt::Display for RemoveItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RemoveItem::Property { entity, key } => write_property_target(f, entity, key),
            RemoveItem::DynamicProperty { entity, key } => write_index_target(f, entity, key),
            RemoveItem::Labels { variable, labels } => write_labels(f, variable, labels),
            RemoveItem::DynamicLabels { variable, labels } => {
                write_dynamic_labels(f, variable, labels)
            }
        }
    }
}

/// `entity.key` where the entity binds like a postfix expression's base.
fn write_property_target(f: &mut fmt::Formatter<'_>, entity: &Expr, key: &Ident) -> fmt::Result {
    let property = Expr::new(
        ExprKind::Property {
            base: Box::new(entity.clone()),
            key: key.clone(),
        },
        entity.span,
    );
    write!(f, "{property}")
}

/// `entity[key]` where the entity binds like a postfix expression's base.
fn write_index_target(f: &mut fmt::Formatter<'_>, entity: &Expr, key: &Expr) -> fmt::Result {
    let index = Expr::new(
        ExprKind::Index {
            base: Box::new(entity.clone()),
            index: Box::new(key.clone()),
        },
        entity.span,
    );
    write!(f, "{index}")
}

fn write_labels(f: &mut fmt::Formatter<'_>, variable: &Ident, labels: &[Ident]) -> fmt::Result {
    write!(f, "{}", variable.as_variable())?;
    for label in labels {
        write!(f, ":{label}")?;
    }
    Ok(())
}

/// `variable:$(expr):$(expr)`.
fn write_dynamic_labels(
    f: &mut fmt::Formatter<'_>,
    variable: &Ident,
    labels: &[Expr],
) -> fmt::Result {
    write!(f, "{}", variable.as_variable())?;
    for label in labels {
        write!(f, ":$({label})")?;
    }
    Ok(())
}

impl fmt::Display for CallSubquery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CALL ")?;
        match &self.scope {
            None => {}
            Some(ImportScope::All) => f.write_str("(*) ")?,
            Some(ImportScope::Variables(variables)) => {
                f.write_str("(")?;
                for (i, v) in variables.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", v.as_variable())?;
                }
                f.write_str(") ")?;
            }
        }
        write!(f, "{{ {} }}", self.query)?;
        if let Some(tx) = &self.in_transactions {
            match &tx.concurrency {
                None => f.write_str(" IN TRANSACTIONS")?,
                Some(None) => f.write_str(" IN CONCURRENT TRANSACTIONS")?,
                Some(Some(n)) => write!(f, " IN {n} CONCURRENT TRANSACTIONS")?,
            }
            if let Some(rows) = &tx.batch_rows {
                write!(f, " OF {rows} ROWS")?;
            }
            let action = |on_error| match on_error {
                OnError::Continue => "CONTINUE",
                OnError::Break => "BREAK",
                OnError::Fail => "FAIL",
            };
            match (&tx.retry, tx.on_error) {
                (Some(seconds), then) => {
                    f.write_str(" ON ERROR RETRY")?;
                    if let Some(seconds) = seconds {
                        write!(f, " FOR {seconds} SECONDS")?;
                    }
                    if let Some(then) = then {
                        write!(f, " THEN {}", action(then))?;
                    }
                }
                (None, Some(on_error)) => write!(f, " ON ERROR {}", action(on_error))?,
                (None, None) => {}
            }
            if let Some(status) = &tx.report_status {
                write!(f, " REPORT STATUS AS {}", status.as_variable())?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for CallProcedure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CALL {}", self.name)?;
        if let Some(args) = &self.args {
            f.write_str("(")?;
            write_comma_separated(f, args)?;
            f.write_str(")")?;
        }
        match &self.yields {
            None => Ok(()),
            Some(ProcedureYield::All) => f.write_str(" YIELD *"),
            Some(ProcedureYield::Items { items, filter }) => {
                f.write_str(" YIELD ")?;
                write_comma_separated(f, items)?;
                if let Some(filter) = filter {
                    write!(f, " WHERE {filter}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for YieldItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.field.as_variable())?;
        if let Some(alias) = &self.alias {
            write!(f, " AS {}", alias.as_variable())?;
        }
        Ok(())
    }
}
