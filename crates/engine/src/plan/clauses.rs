//! The planner's driver: statements, unions, clause sequences and subqueries.
//!
//! Clauses are planned in order on top of each other. Where Cypher's clause-at-a-time
//! semantics would differ from streaming, an Eager barrier goes between them: before a write
//! that follows graph reads (so the reads are not affected by the writes) and before a read
//! that follows writes (so it sees all of them).

use crate::security::Required;
use std::sync::Arc;

use quiver_cypher::ast::{self, ClauseKind, ExprKind, StatementKind};
use quiver_cypher::semantic::Analysis;
use quiver_cypher::{Detail, ErrorKind, Span, Status};
use quiver_storage::Transaction as StorageTx;
use quiver_value::Value;

use super::projection::ProjectionClause;
use super::scope::Scope;
use crate::ir::{
    BatchFailure, Command, Compiled, Expr, LoadCsvSpec, Op, PlanNode, SubKind, TransactionBatches,
};
use crate::procedures::Procedures;
use crate::summary::QueryType;
use crate::tokens::Tokens;

pub(crate) type Result<T, E = quiver_cypher::Error> = std::result::Result<T, E>;

/// State of one compilation.
pub(crate) struct Planner<'a> {
    pub source: &'a str,
    /// The semantic analysis of the statement: what it already checked and derived (the
    /// columns of every WITH and RETURN) the planner takes from it.
    pub analysis: &'a Analysis,
    /// A transaction to read statistics (counts, indexes) from.
    pub stats: &'a StorageTx,
    pub procedures: &'a Procedures,
    pub slots: usize,
    pub params: Vec<Arc<str>>,
    pub tokens: Tokens,
    next_id: usize,
    pub writes: bool,
    pub reads: bool,
    /// The database planned for: what `USE` may name.
    pub database: &'a crate::state::DatabaseState,
}

/// The columns a query returns, and their slots.
#[derive(Default)]
struct Outputs {
    columns: Vec<Arc<str>>,
    out_slots: Vec<usize>,
    /// Whether the query ends in RETURN (or yields rows otherwise).
    returns: bool,
}

/// A planned query: its plan and, when it returns rows, the columns.
pub(crate) struct QueryPlan {
    pub root: Arc<PlanNode>,
    pub columns: Vec<Arc<str>>,
    pub out_slots: Vec<usize>,
    /// Whether the query ends in RETURN (or yields rows otherwise).
    pub returns: bool,
}

/// Compiles a parsed statement.
pub(crate) fn compile(
    stmt: &ast::Statement,
    analysis: &Analysis,
    source: &str,
    stats: &StorageTx,
    procedures: &Procedures,
    database: &crate::state::DatabaseState,
) -> std::result::Result<Compiled, crate::Error> {
    let mut p = Planner {
        database,
        source,
        analysis,
        stats,
        procedures,
        slots: 0,
        params: Vec::new(),
        tokens: Tokens::default(),
        next_id: 0,
        writes: false,
        reads: false,
    };
    if let Some(graph) = &stmt.graph {
        p.check_command_use(graph, &stmt.kind, stmt.span)?;
    }
    let (plan, query_type) = match &stmt.kind {
        StatementKind::Query(q) => {
            let mut plan = p.query(q, &Scope::default(), true)?;
            plan.root = p.index_rewrites(plan.root);
            let ty = match (p.reads, p.writes) {
                (_, false) => QueryType::Read,
                (false, true) => QueryType::Write,
                (true, true) => QueryType::ReadWrite,
            };
            (plan, ty)
        }
        StatementKind::Schema(cmd) => {
            let command = p.schema_command(cmd)?;
            (p.command_plan(command), QueryType::Schema)
        }
        StatementKind::Show(cmd) => (p.show_plan(cmd)?, QueryType::Read),
        StatementKind::TerminateTransactions(t) => {
            let mut ids = Vec::with_capacity(t.ids.len());
            for e in &t.ids {
                ids.push(p.expr(e, &Scope::default())?);
            }
            let plan = p.command_plan(Command::TerminateTransactions(ids));
            (p.show_filter(plan, t.filter.as_ref())?, QueryType::Write)
        }
        StatementKind::Admin(command) => {
            let (passwords, names) =
                p.command_inputs(command.expressions(), command.name_parameters())?;
            let plan = p.command_plan(Command::Admin {
                command: command.clone(),
                passwords,
                names,
            });
            (plan, QueryType::Write)
        }
        StatementKind::Database(command) => {
            let (values, names) =
                p.command_inputs(command.expressions(), command.name_parameters())?;
            let plan = p.command_plan(Command::Database {
                command: command.clone(),
                values,
                names,
            });
            (plan, QueryType::Write)
        }
    };
    let writes = plan.root.subtree_writes();
    // Writing clauses are checked per element written; a writing procedure needs every write.
    let required = required(stmt, plan.root.subtree_writes_by_procedure());
    // A printed administration command hides its passwords.
    let redacted = matches!(stmt.kind, StatementKind::Admin(_)).then(|| stmt.to_string());
    Ok(Compiled {
        root: plan.root,
        columns: plan.columns,
        out_slots: plan.out_slots,
        slots: p.slots,
        params: p.params,
        query_type,
        explain: stmt.mode == ast::QueryMode::Explain,
        profile: stmt.mode == ast::QueryMode::Profile,
        writes,
        notifications: Vec::new(),
        required,
        redacted,
    })
}

/// What a statement needs of its user (see [`crate::security::privilege`]): a query the
/// database's access (what it reads is narrowed to what the user may see as it runs), and
/// every write when a procedure of it
/// writes (creating names and each element a clause writes are checked as they happen); schema commands index or constraint management; user, role and
/// privilege commands their management; other users' privileges, the settings and the servers
/// the DBMS privileges.
fn required(stmt: &ast::Statement, procedure_writes: bool) -> Required {
    use crate::security::privilege::{Abilities, Ability, WRITE_GRAPH};
    use ast::{AdminCommand, PrivilegeScope, SchemaCommand, ShowKind};
    let dbms = |ability, what| Required::of(Abilities::of(&[ability]), what);
    match &stmt.kind {
        StatementKind::Query(_) => {
            // What the user may not find or read is hidden as the query runs, not refused:
            // reading needs no privilege of its own (see `crate::security::visibility`).
            let mut needs = Abilities::of(&[Ability::Access]);
            if procedure_writes {
                needs = needs.with(WRITE_GRAPH);
            }
            Required::of(needs, "Running a query")
        }
        StatementKind::TerminateTransactions(_) => Required::NOTHING,
        StatementKind::Schema(
            SchemaCommand::CreateConstraint(_) | SchemaCommand::DropConstraint { .. },
        ) => Required::on_database(
            &[Ability::ConstraintManagement],
            "Constraint management (CREATE and DROP of a constraint)",
        ),
        StatementKind::Schema(_) => Required::on_database(
            &[Ability::IndexManagement],
            "Index management (CREATE and DROP of an index)",
        ),
        StatementKind::Show(show) => match &show.kind {
            ShowKind::Users => dbms(Ability::UserManagement, "SHOW USERS"),
            ShowKind::Roles { .. } => dbms(Ability::RoleManagement, "SHOW ROLES"),
            ShowKind::Privileges(p) if p.scope == PrivilegeScope::Users(Vec::new()) => {
                Required::NOTHING
            }
            ShowKind::Privileges(_) => dbms(Ability::PrivilegeManagement, "SHOW PRIVILEGES"),
            ShowKind::Settings(_) => dbms(Ability::ShowSettings, "SHOW SETTINGS"),
            ShowKind::Servers => dbms(Ability::ShowServers, "SHOW SERVERS"),
            ShowKind::Indexes(_) => Required::on_database(&[Ability::ShowIndex], "SHOW INDEXES"),
            ShowKind::Constraints(_) => {
                Required::on_database(&[Ability::ShowConstraint], "SHOW CONSTRAINTS")
            }
            _ => Required::NOTHING,
        },
        StatementKind::Admin(AdminCommand::AlterCurrentUser { .. }) => Required {
            password_change: true,
            ..Required::NOTHING
        },
        StatementKind::Admin(
            AdminCommand::CreateUser(_)
            | AdminCommand::AlterUser(_)
            | AdminCommand::DropUser { .. },
        ) => dbms(
            Ability::UserManagement,
            "User management (CREATE, ALTER and DROP of users)",
        ),
        StatementKind::Admin(AdminCommand::Privilege(_)) => dbms(
            Ability::PrivilegeManagement,
            "Privilege management (GRANT, DENY and REVOKE of privileges)",
        ),
        StatementKind::Admin(_) => dbms(
            Ability::RoleManagement,
            "Role management (CREATE and DROP of roles, GRANT and REVOKE of roles)",
        ),
        StatementKind::Database(ast::DatabaseCommand::Start { .. }) => {
            dbms(Ability::StartDatabase, "START DATABASE")
        }
        StatementKind::Database(ast::DatabaseCommand::Stop { .. }) => {
            dbms(Ability::StopDatabase, "STOP DATABASE")
        }
        StatementKind::Database(_) => dbms(
            Ability::DatabaseManagement,
            "Database management (CREATE, ALTER and DROP of databases and aliases)",
        ),
    }
}

/// Whether a clause reads the graph (patterns, subqueries, procedures).
fn clause_reads(c: &ast::Clause) -> bool {
    match &c.kind {
        ClauseKind::Match(_)
        | ClauseKind::Merge(_)
        | ClauseKind::CallSubquery(_)
        | ClauseKind::CallProcedure(_) => true,
        ClauseKind::With(w) => {
            projection_reads(&w.projection) || w.filter.as_ref().is_some_and(expr_reads)
        }
        ClauseKind::Return(r) => projection_reads(&r.projection),
        ClauseKind::Unwind(u) => expr_reads(&u.expr),
        _ => false,
    }
}

fn projection_reads(p: &ast::Projection) -> bool {
    p.items.iter().any(|i| expr_reads(&i.expr)) || p.order_by.iter().any(|s| expr_reads(&s.expr))
}

fn expr_reads(e: &ast::Expr) -> bool {
    let mut found = false;
    super::expr::visit(e, &mut |x| {
        if matches!(
            x.kind,
            ExprKind::Pattern(_) | ExprKind::Subquery(_) | ExprKind::PatternComprehension(_)
        ) {
            found = true;
        }
    });
    found
}

impl Planner<'_> {
    pub fn err(
        &self,
        status: Status,
        detail: Detail,
        message: impl Into<String>,
        span: Span,
    ) -> quiver_cypher::Error {
        quiver_cypher::Error::new(ErrorKind { status, detail }, message, span, self.source)
    }

    pub fn undefined(&self, name: &str, span: Span) -> quiver_cypher::Error {
        self.err(
            Status::SyntaxError,
            Detail::UndefinedVariable,
            format!("Variable `{name}` not defined"),
            span,
        )
    }

    pub fn slot(&mut self) -> usize {
        self.slots += 1;
        self.slots - 1
    }

    pub fn param(&mut self, name: &str) -> usize {
        if let Some(i) = self.params.iter().position(|p| &**p == name) {
            return i;
        }
        self.params.push(Arc::from(name));
        self.params.len() - 1
    }

    pub fn node(&mut self, op: Op, est_rows: f64, scope: &Scope) -> Arc<PlanNode> {
        self.next_id += 1;
        Arc::new(PlanNode {
            id: self.next_id - 1,
            op,
            est_rows,
            vars: scope.names(),
        })
    }

    pub(super) fn command_plan(&mut self, command: Command) -> QueryPlan {
        let names = command.columns();
        let out: Vec<usize> = names.iter().map(|_| self.slot()).collect();
        let root = self.node(
            Op::Command {
                command: command.into(),
                out: out.clone().into(),
            },
            1.0,
            &Scope::default(),
        );
        QueryPlan {
            root,
            columns: names.iter().map(|n| Arc::from(*n)).collect(),
            out_slots: out,
            returns: !names.is_empty(),
        }
    }

    /// Plans a query (with its unions) on an argument scope. `top` is false inside
    /// subqueries.
    pub(super) fn query(&mut self, q: &ast::Query, arg: &Scope, top: bool) -> Result<QueryPlan> {
        if q.unions.is_empty() {
            return self.single(&q.first, arg, None, top);
        }
        // The semantic analysis has checked that the branches agree on ALL and on their
        // columns.
        let all = q.unions[0].all;
        let first = self.single(&q.first, arg, None, top)?;
        let mut branches = vec![first.root];
        for u in &q.unions {
            let part = self.single(&u.query, arg, Some(&first.out_slots), top)?;
            branches.push(part.root);
        }
        let est = branches.iter().map(|b| b.est_rows).sum();
        let mut scope = Scope::default();
        for (c, s) in first.columns.iter().zip(&first.out_slots) {
            scope.bind(c, *s);
        }
        let mut root = self.node(Op::Union { branches }, est, &scope);
        if !all {
            root = self.node(
                Op::Distinct {
                    input: root,
                    slots: first.out_slots.clone().into(),
                },
                est,
                &scope,
            );
        }
        Ok(QueryPlan {
            root,
            columns: first.columns,
            out_slots: first.out_slots,
            returns: true,
        })
    }

    fn eager(&mut self, plan: Arc<PlanNode>, scope: &Scope) -> Arc<PlanNode> {
        let est = plan.est_rows;
        self.node(
            Op::Eager {
                input: plan,
                keep: scope.slots().into(),
            },
            est,
            scope,
        )
    }

    /// Plans one single query: its clauses in order, with an Eager barrier where a clause
    /// would otherwise see (or hide from an earlier one) the effects of another. The semantic
    /// analysis has checked the order of the clauses (RETURN last, a proper ending).
    pub(super) fn single(
        &mut self,
        q: &ast::SingleQuery,
        arg: &Scope,
        targets: Option<&[usize]>,
        top: bool,
    ) -> Result<QueryPlan> {
        let mut scope = arg.clone();
        let mut plan = self.once(arg);
        let mut out = Outputs::default();
        let mut pending_reads = false;
        let mut pending_writes = false;
        let standalone = top && q.clauses.len() == 1;
        for clause in &q.clauses {
            let reads = clause_reads(clause);
            let updates = clause.kind.is_update()
                || matches!(&clause.kind, ClauseKind::CallSubquery(c) if c.query.parts().any(|p| p.clauses.iter().any(|c| c.kind.is_update())));
            if reads {
                self.reads = true;
            }
            if (updates && pending_reads) || (reads && pending_writes) {
                plan = self.eager(plan, &scope);
                pending_reads = false;
                pending_writes = false;
            }
            plan = self.step(plan, &mut scope, clause, targets, standalone, &mut out)?;
            if reads {
                pending_reads = true;
            }
            if updates {
                pending_writes = true;
            }
        }
        Ok(QueryPlan {
            root: plan,
            columns: out.columns,
            out_slots: out.out_slots,
            returns: out.returns,
        })
    }

    /// One clause on top of `plan`, then the scope settled on the analysis's record of the
    /// scope after it: the planner gives the variables their slots, the analysis says which
    /// are visible and what they hold.
    fn step(
        &mut self,
        plan: Arc<PlanNode>,
        scope: &mut Scope,
        clause: &ast::Clause,
        targets: Option<&[usize]>,
        standalone: bool,
        out: &mut Outputs,
    ) -> Result<Arc<PlanNode>> {
        let plan = self.clause(plan, scope, clause, targets, standalone, out)?;
        if let Some(recorded) = self.analysis.scope_after(clause.span) {
            scope.settle(recorded);
        }
        Ok(plan)
    }

    /// An updating clause of a `FOREACH` body (the analysis has checked that every clause
    /// there updates), planned as any other.
    pub(super) fn update(
        &mut self,
        plan: Arc<PlanNode>,
        scope: &mut Scope,
        clause: &ast::Clause,
    ) -> Result<Arc<PlanNode>> {
        self.step(plan, scope, clause, None, false, &mut Outputs::default())
    }

    /// One clause on top of `plan`; a RETURN (or a standalone procedure call) records the
    /// query's columns in `out`.
    fn clause(
        &mut self,
        plan: Arc<PlanNode>,
        scope: &mut Scope,
        clause: &ast::Clause,
        targets: Option<&[usize]>,
        standalone: bool,
        out: &mut Outputs,
    ) -> Result<Arc<PlanNode>> {
        // The clauses that change the graph make the query a writing one.
        if clause.kind.is_update() {
            self.writes = true;
        }
        Ok(match &clause.kind {
            ClauseKind::Match(m) => self.plan_match(plan, scope, m)?,
            ClauseKind::Unwind(u) => {
                let list = self.expr(&u.expr, scope)?;
                let slot = self.slot();
                scope.bind(&u.variable.name, slot);
                let est = plan.est_rows * 10.0;
                self.node(
                    Op::Unwind {
                        input: plan,
                        list: list.into(),
                        slot,
                    },
                    est,
                    scope,
                )
            }
            ClauseKind::With(w) => {
                let (p, _, _) = self.projection(
                    plan,
                    scope,
                    &ProjectionClause {
                        projection: &w.projection,
                        filter: w.filter.as_ref(),
                        targets: None,
                        span: clause.span,
                    },
                )?;
                p
            }
            ClauseKind::Return(r) => {
                let (p, cols, slots) = self.projection(
                    plan,
                    scope,
                    &ProjectionClause {
                        projection: &r.projection,
                        filter: None,
                        targets,
                        span: clause.span,
                    },
                )?;
                out.columns = cols;
                out.out_slots = slots;
                out.returns = true;
                p
            }
            ClauseKind::Create(c) => self.plan_create(plan, scope, &c.pattern)?,
            ClauseKind::Merge(m) => self.plan_merge(plan, scope, m)?,
            ClauseKind::Set(s) => self.plan_set(plan, scope, &s.items)?,
            ClauseKind::Remove(r) => self.plan_remove(plan, scope, &r.items)?,
            ClauseKind::Delete(d) => self.plan_delete(plan, scope, d)?,
            ClauseKind::Foreach(f) => self.plan_foreach(plan, scope, f)?,
            ClauseKind::CallSubquery(c) => self.plan_call_subquery(plan, scope, c)?,
            ClauseKind::CallProcedure(c) => {
                let (p, cols, slots) =
                    self.plan_procedure(plan, scope, c, standalone, clause.span)?;
                if standalone {
                    out.returns = !cols.is_empty();
                    out.columns = cols;
                    out.out_slots = slots;
                }
                p
            }
            ClauseKind::LoadCsv(l) => self.plan_load_csv(plan, scope, l, clause.span)?,
            ClauseKind::Finish => plan,
            ClauseKind::Use(u) => {
                self.check_use(u, clause.span)?;
                plan
            }
        })
    }

    /// `LOAD CSV`: one operator reading the file per input row.
    fn plan_load_csv(
        &mut self,
        plan: Arc<PlanNode>,
        scope: &mut Scope,
        l: &ast::LoadCsv,
        span: Span,
    ) -> Result<Arc<PlanNode>> {
        let url = self.expr(&l.url, scope)?;
        let terminator = match l.field_terminator.as_deref() {
            None => b',',
            Some(t) if t.len() == 1 => t.as_bytes()[0],
            Some(t) => {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::InvalidArgumentValue,
                    format!(
                        "Invalid input: FIELDTERMINATOR must be a single-byte (ASCII) character, got '{t}'"
                    ),
                    span,
                ));
            }
        };
        let slot = self.slot();
        scope.bind(&l.variable.name, slot);
        let est = plan.est_rows * 1000.0;
        Ok(self.node(
            Op::LoadCsv {
                input: plan,
                spec: Arc::new(LoadCsvSpec {
                    url,
                    slot,
                    headers: l.with_headers,
                    terminator,
                }),
            },
            est,
            scope,
        ))
    }

    /// An administration command's expressions, planned, and its name parameters with
    /// their indexes (bound when the command runs, so that its plan serves any name).
    fn command_inputs(
        &mut self,
        expressions: Vec<&ast::Expr>,
        names: Vec<String>,
    ) -> Result<(Vec<Expr>, Vec<(Arc<str>, usize)>)> {
        let mut planned = Vec::with_capacity(expressions.len());
        for e in expressions {
            planned.push(self.expr(e, &Scope::default())?);
        }
        let names = names
            .into_iter()
            .map(|name| {
                let index = self.param(&name);
                (Arc::from(name), index)
            })
            .collect();
        Ok((planned, names))
    }

    /// `USE`: the database the query runs on, by its name or an alias (names compare
    /// case-insensitively, as Neo4j's do). A server routes a query that begins with `USE`
    /// to the database it names before it begins a transaction; here, another database of
    /// the server fails (a transaction is on one database), and a name the server does not
    /// have fails as Neo4j fails for a database it does not have.
    /// `USE name` before a command: an administration or database command (which the server
    /// runs where it was sent) needs only a database by that name; any other command runs on
    /// the database `USE` names, which must be this one.
    fn check_command_use(&self, u: &ast::UseGraph, kind: &StatementKind, span: Span) -> Result<()> {
        if !matches!(kind, StatementKind::Admin(_) | StatementKind::Database(_)) {
            return self.check_use(u, span);
        }
        let name = u.qualified();
        let own = self.database.names().name;
        let known = match self.database.catalog() {
            Some(catalog) => catalog.resolve(&crate::catalog::key(&name)).is_some(),
            None => name.eq_ignore_ascii_case(&own) || name.eq_ignore_ascii_case("system"),
        };
        if known {
            Ok(())
        } else {
            Err(self.err(
                Status::DatabaseNotFound,
                Detail::GraphNotFound,
                format!("Database {name} not found"),
                span,
            ))
        }
    }

    fn check_use(&self, u: &ast::UseGraph, span: Span) -> Result<()> {
        let name = u.qualified();
        let own = self.database.names().name;
        let served_by = match self.database.catalog() {
            Some(catalog) => catalog.resolve(&crate::catalog::key(&name)),
            None => name.eq_ignore_ascii_case(&own).then(|| own.to_string()),
        };
        match served_by {
            Some(database) if *database == *own => Ok(()),
            Some(_) => Err(self.err(
                Status::SemanticError,
                Detail::GraphNotFound,
                format!(
                    "USE {name} names another database than the one this transaction is on \
                     ({own}): run the query in a transaction of its own on {name}"
                ),
                span,
            )),
            None => Err(self.err(
                Status::DatabaseNotFound,
                Detail::GraphNotFound,
                format!("Database {name} not found"),
                span,
            )),
        }
    }

    /// `CALL { ... }`: runs the inner query per row; its RETURN columns join the row.
    ///
    /// `IN TRANSACTIONS` runs it for batches of rows, each batch in a transaction of its own
    /// that commits before the next (see [`crate::exec`]'s `transactions`).
    fn plan_call_subquery(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        c: &ast::CallSubquery,
    ) -> Result<Arc<PlanNode>> {
        let arg = match &c.scope {
            Some(ast::ImportScope::All) => scope.clone(),
            Some(ast::ImportScope::Variables(vars)) => {
                let mut s = Scope::default();
                // The analysis has checked that every imported variable is defined.
                for var in vars.iter().filter_map(|v| scope.get(&v.name)) {
                    s.vars.push(var.clone());
                }
                s
            }
            None => importing_scope(&c.query, scope),
        };
        let inner = self.query(&c.query, &arg, false)?;
        if let Some(tx) = &c.in_transactions {
            let rows = match &tx.batch_rows {
                Some(e) => self.expr(e, scope)?,
                None => Expr::Const(Value::Null),
            };
            let concurrency = match &tx.concurrency {
                Some(Some(e)) => Some(self.expr(e, scope)?),
                Some(None) => Some(Expr::Const(Value::Null)),
                None => None,
            };
            let retry = match &tx.retry {
                Some(Some(e)) => Some(self.expr(e, scope)?),
                Some(None) => Some(Expr::Const(Value::Null)),
                None => None,
            };
            let returned = inner.returns.then(|| Arc::from(inner.out_slots.clone()));
            for (col, slot) in inner.columns.iter().zip(&inner.out_slots) {
                scope.bind(col, *slot);
            }
            let status = tx.report_status.as_ref().map(|v| {
                let slot = self.slot();
                scope.bind(&v.name, slot);
                slot
            });
            let on_error = match tx.on_error {
                None | Some(ast::OnError::Fail) => BatchFailure::Fail,
                Some(ast::OnError::Continue) => BatchFailure::Continue,
                Some(ast::OnError::Break) => BatchFailure::Break,
            };
            let est = input.est_rows * inner.root.est_rows.max(1.0);
            return Ok(self.node(
                Op::Transactions {
                    input,
                    inner: inner.root,
                    batch: Arc::new(TransactionBatches {
                        rows,
                        concurrency,
                        retry,
                        on_error,
                        status,
                        returned,
                    }),
                },
                est,
                scope,
            ));
        }
        if !inner.returns {
            let est = input.est_rows;
            return Ok(self.node(
                Op::UnitApply {
                    input,
                    inner: inner.root,
                },
                est,
                scope,
            ));
        }
        // The analysis has checked that no returned column shadows an outer variable.
        for (col, slot) in inner.columns.iter().zip(&inner.out_slots) {
            scope.bind(col, *slot);
        }
        let est = input.est_rows * inner.root.est_rows.max(1.0);
        Ok(self.node(
            Op::Apply {
                input,
                inner: inner.root,
            },
            est,
            scope,
        ))
    }

    /// `EXISTS { }`, `COUNT { }`, `COLLECT { }`.
    pub(super) fn subquery_expr(&mut self, s: &ast::SubqueryExpr, scope: &Scope) -> Result<Expr> {
        let (plan, collect) = match &s.body {
            ast::SubqueryBody::Pattern { pattern, filter } => {
                let (plan, _) = self.pattern_subquery(pattern, filter.as_ref(), scope)?;
                (plan, None)
            }
            ast::SubqueryBody::Query(q) => {
                let inner = self.query(q, scope, false)?;
                (inner.root, inner.out_slots.first().copied())
            }
        };
        let kind = match s.kind {
            ast::SubqueryKind::Exists => SubKind::Exists,
            ast::SubqueryKind::Count => SubKind::Count,
            // The analysis has checked that a COLLECT returns exactly one column.
            ast::SubqueryKind::Collect => {
                SubKind::Collect(collect.map_or(Expr::Const(Value::Null), Expr::Slot))
            }
        };
        Ok(Expr::Subquery(plan, Box::new(kind)))
    }
}

/// The variables an old-style `CALL { WITH a, b ... }` imports: those its leading WITH names.
fn importing_scope(q: &ast::Query, outer: &Scope) -> Scope {
    let mut s = Scope::default();
    for part in q.parts() {
        if let Some(ast::Clause {
            kind: ClauseKind::With(w),
            ..
        }) = part.clauses.first()
        {
            if w.projection.star {
                return outer.clone();
            }
            for item in &w.projection.items {
                if let ExprKind::Variable(v) = &item.expr.kind
                    && let Some(var) = outer.get(&v.name)
                    && s.get(&v.name).is_none()
                {
                    s.vars.push(var.clone());
                }
            }
        }
    }
    s
}
