//! Planning procedure calls and administration commands (indexes, constraints, SHOW,
//! TERMINATE).

use std::sync::Arc;

use quiver_cypher::ast::{self, SchemaCommand, ShowDatabases, ShowFilter, ShowKind};
use quiver_cypher::{Detail, Span, Status};
use quiver_value::Value;

use super::clauses::{Planner, QueryPlan, Result};
use super::projection::ProjectionClause;
use super::scope::Scope;
use crate::ir::{Command, Expr, Op, PlanNode, SchemaArgs, VectorIndexCommand};
use crate::metadata::show::{Databases, ShowTable};
use crate::security::show::PrivilegesOf;

impl Planner<'_> {
    /// `CALL name(args) [YIELD ...]`. Returns the plan and, for a standalone call, its columns.
    pub(super) fn plan_procedure(
        &mut self,
        input: Arc<PlanNode>,
        scope: &mut Scope,
        c: &ast::CallProcedure,
        standalone: bool,
        span: Span,
    ) -> Result<(Arc<PlanNode>, Vec<Arc<str>>, Vec<usize>)> {
        let name = c.name.qualified();
        let Some(procedure) = self.procedures.get(&name) else {
            return Err(self.err(
                Status::ProcedureError,
                Detail::ProcedureNotFound,
                format!("There is no procedure with the name `{name}` registered for this database instance."),
                span,
            ));
        };
        let signature = procedure.signature().clone();
        let args = match &c.args {
            Some(args) => {
                // The analysis has checked the count against the same catalog.
                let mut out = Vec::with_capacity(signature.inputs.len());
                for a in args {
                    out.push(self.expr(a, scope)?);
                }
                // Inputs left out take their defaults.
                for field in signature.inputs.iter().skip(args.len()) {
                    out.push(Expr::Const(field.default.clone().unwrap_or(Value::Null)));
                }
                out
            }
            // Implicit arguments come from parameters of the same names.
            None => signature
                .inputs
                .iter()
                .map(|f| Expr::Param(self.param(&f.name)))
                .collect(),
        };
        let mut yields: Vec<(usize, usize)> = Vec::new();
        let mut columns: Vec<Arc<str>> = Vec::new();
        let mut slots: Vec<usize> = Vec::new();
        let mut filter = None;
        let bind_all = matches!(c.yields, Some(ast::ProcedureYield::All))
            || (c.yields.is_none() && standalone);
        if bind_all {
            for (i, f) in signature.outputs.iter().enumerate() {
                let slot = self.slot();
                scope.bind(&f.name, slot);
                yields.push((i, slot));
                columns.push(Arc::from(f.name.as_str()));
                slots.push(slot);
            }
        } else if let Some(ast::ProcedureYield::Items { items, filter: f }) = &c.yields {
            for item in items {
                let Some(i) = signature
                    .outputs
                    .iter()
                    .position(|o| o.name == item.field.name)
                else {
                    return Err(self.err(
                        Status::SyntaxError,
                        Detail::UndefinedVariable,
                        format!("Unknown procedure output: `{}`", item.field.name),
                        item.field.span,
                    ));
                };
                // The analysis has checked that the name is new.
                let var = item.variable();
                let slot = self.slot();
                yields.push((i, slot));
                columns.push(Arc::from(var.name.as_str()));
                slots.push(slot);
            }
            for (name, slot) in columns.iter().zip(&slots) {
                scope.bind(name, *slot);
            }
            filter = f.as_ref();
        }
        let est = input.est_rows * 10.0;
        let mut plan = self.node(
            Op::ProcedureCall {
                input,
                procedure,
                args: args.into(),
                yields: yields.into(),
            },
            est,
            scope,
        );
        if let Some(f) = filter {
            let predicate = self.expr(f, scope)?;
            plan = self.node(
                Op::Filter {
                    input: plan,
                    predicate: predicate.into(),
                },
                est * 0.5,
                scope,
            );
        }
        Ok((plan, columns, slots))
    }

    pub(super) fn schema_command(&mut self, cmd: &SchemaCommand) -> Result<Command> {
        Ok(match cmd {
            SchemaCommand::CreateIndex(ix) => {
                let ast::IndexTarget::Properties { entity, properties } = &ix.target else {
                    return Err(self.unsupported("token lookup indexes", cmd_span(cmd)));
                };
                if ix.kind == ast::IndexKind::Vector {
                    return self.vector_index(ix, entity, properties);
                }
                let kind = match ix.kind {
                    ast::IndexKind::Range => quiver_storage::IndexKind::Range,
                    ast::IndexKind::Text => quiver_storage::IndexKind::Text,
                    ast::IndexKind::Point => quiver_storage::IndexKind::Point,
                    ast::IndexKind::Lookup | ast::IndexKind::Vector => {
                        return Err(self.unsupported("token lookup indexes", cmd_span(cmd)));
                    }
                };
                if kind != quiver_storage::IndexKind::Range && properties.len() != 1 {
                    // Neo4j's text and point indexes are over one property.
                    return Err(
                        self.unsupported("composite text and point indexes", entity.label.span)
                    );
                }
                let args = self.schema_args(ix.name.as_ref(), ix.options.as_ref())?;
                self.index_command(args, entity, properties, kind, ix.if_not_exists)?
            }
            SchemaCommand::CreateConstraint(c) => {
                let kind = match c.kind {
                    ast::ConstraintKind::Unique => quiver_storage::IndexKind::Unique,
                    ast::ConstraintKind::Key => quiver_storage::IndexKind::Key,
                    ast::ConstraintKind::NotNull | ast::ConstraintKind::Typed => {
                        return self.property_constraint(c);
                    }
                };
                let args = self.schema_args(c.name.as_ref(), c.options.as_ref())?;
                self.index_command(args, &c.entity, &c.properties, kind, c.if_not_exists)?
            }
            SchemaCommand::DropIndex { name, if_exists } => Command::Drop {
                name: self.schema_name(name),
                constraint: false,
                if_exists: *if_exists,
            },
            SchemaCommand::DropConstraint { name, if_exists } => Command::Drop {
                name: self.schema_name(name),
                constraint: true,
                if_exists: *if_exists,
            },
            SchemaCommand::CreateFulltextIndex(ix) => self.fulltext_command(ix)?,
        })
    }

    /// A schema command's name as the plan carries it: a parameter is registered (so a
    /// missing one fails before the command runs, as every parameter does) and read when the
    /// command runs.
    pub(super) fn schema_name(&mut self, name: &ast::SchemaName) -> crate::ir::SchemaName {
        match name {
            ast::SchemaName::Literal(ident) => crate::ir::SchemaName::Given(ident.name.clone()),
            ast::SchemaName::Parameter(ident) => crate::ir::SchemaName::Param {
                index: self.param(&ident.name),
                name: Arc::from(ident.name.as_str()),
            },
        }
    }

    /// A schema command's name and `OPTIONS` as expressions the command evaluates when it
    /// runs; any expression may stand in the options' map (parameters, function calls).
    fn schema_args(
        &mut self,
        name: Option<&ast::SchemaName>,
        options: Option<&ast::Expr>,
    ) -> Result<SchemaArgs> {
        Ok(SchemaArgs {
            name: name.map(|n| self.schema_name(n)),
            options: match options {
                Some(o) => Some(self.expr(o, &Scope::default())?),
                None => None,
            },
        })
    }

    /// A property index or a uniqueness or key constraint over `properties` (in order, none
    /// twice) of the entity's label or type.
    fn index_command(
        &mut self,
        args: SchemaArgs,
        entity: &ast::SchemaEntity,
        properties: &[ast::Ident],
        kind: quiver_storage::IndexKind,
        if_not_exists: bool,
    ) -> Result<Command> {
        for (i, p) in properties.iter().enumerate() {
            if properties[..i].iter().any(|q| q.name == p.name) {
                return Err(self.err(
                    Status::SyntaxError,
                    Detail::InvalidArgumentValue,
                    format!(
                        "Invalid input: the property `{}` is named twice in the schema command",
                        p.name
                    ),
                    p.span,
                ));
            }
        }
        let label = if entity.relationship {
            self.tokens.rel_type(&entity.label.name)
        } else {
            self.tokens.label(&entity.label.name)
        };
        Ok(Command::CreateIndex {
            args,
            relationship: entity.relationship,
            label,
            keys: properties
                .iter()
                .map(|p| self.tokens.key(&p.name))
                .collect(),
            kind,
            if_not_exists,
        })
    }

    /// `CREATE FULLTEXT INDEX`: the definition with Neo4j's default name shape and the
    /// default analyzer; the name and options the statement gives replace them when it runs
    /// (`exec::command`).
    fn fulltext_command(&mut self, ix: &ast::CreateFulltextIndex) -> Result<Command> {
        let tokens: Vec<Arc<str>> = ix
            .tokens
            .iter()
            .map(|t| Arc::from(t.name.as_str()))
            .collect();
        let keys: Vec<Arc<str>> = ix
            .properties
            .iter()
            .map(|p| Arc::from(p.name.as_str()))
            .collect();
        let name = format!("fulltext_{}_{}", tokens.join("_"), keys.join("_"));
        Ok(Command::CreateFulltextIndex {
            args: self.schema_args(ix.name.as_ref(), ix.options.as_ref())?,
            spec: quiver_storage::FulltextSpec {
                name,
                entity: if ix.relationship {
                    quiver_storage::FulltextEntity::Relationship
                } else {
                    quiver_storage::FulltextEntity::Node
                },
                tokens,
                keys,
                analyzer: quiver_storage::DEFAULT_ANALYZER.to_string(),
                eventually_consistent: false,
            },
            if_not_exists: ix.if_not_exists,
        })
    }

    /// `CREATE VECTOR INDEX ... FOR (n:Label) ON (n.p)` or `FOR ()-[r:TYPE]-() ON (r.p)`.
    fn vector_index(
        &mut self,
        ix: &ast::CreateIndex,
        entity: &ast::SchemaEntity,
        properties: &[ast::Ident],
    ) -> Result<Command> {
        if properties.len() != 1 {
            return Err(self.unsupported(
                "vector indexes over more than one property",
                entity.label.span,
            ));
        }
        Ok(Command::CreateVectorIndex(VectorIndexCommand {
            args: self.schema_args(ix.name.as_ref(), ix.options.as_ref())?,
            relationship: entity.relationship,
            token: if entity.relationship {
                self.tokens.rel_type(&entity.label.name)
            } else {
                self.tokens.label(&entity.label.name)
            },
            key: self.tokens.key(&properties[0].name),
            with_keys: ix
                .with_properties
                .iter()
                .map(|p| self.tokens.key(&p.name))
                .collect(),
            if_not_exists: ix.if_not_exists,
        }))
    }

    fn unsupported(&self, what: &str, span: Span) -> quiver_cypher::Error {
        self.err(
            Status::SyntaxError,
            Detail::UnsupportedFeature,
            format!("Quiver does not support {what}"),
            span,
        )
    }

    pub(super) fn show_command(&mut self, cmd: &ast::ShowCommand) -> Result<Command> {
        Ok(match &cmd.kind {
            ShowKind::Indexes(kind) => Command::ShowIndexes {
                constraints: false,
                vector_only: *kind == ast::ShowIndexType::Vector,
            },
            ShowKind::Constraints(_) => Command::ShowIndexes {
                constraints: true,
                vector_only: false,
            },
            ShowKind::Transactions(ids) => {
                let mut out = Vec::with_capacity(ids.len());
                for e in ids {
                    out.push(self.expr(e, &Scope::default())?);
                }
                Command::ShowTransactions(out)
            }
            ShowKind::Procedures => Command::Show(ShowTable::Procedures),
            ShowKind::Functions => Command::Show(ShowTable::Functions),
            ShowKind::Databases(which) => Command::Show(ShowTable::Databases(match which {
                ShowDatabases::All => Databases::All,
                ShowDatabases::Named(name) => Databases::Named(name.name.clone()),
                ShowDatabases::Default => Databases::Default,
                ShowDatabases::Home => Databases::Home,
            })),
            ShowKind::Settings(names) => {
                let mut out = Vec::with_capacity(names.len());
                for e in names {
                    out.push(self.expr(e, &Scope::default())?);
                }
                Command::Show(ShowTable::Settings(out))
            }
            ShowKind::Aliases(name) => Command::Show(ShowTable::Aliases(match name {
                None => None,
                Some(ast::AdminName::Literal(name)) => Some(name.name.clone()),
                Some(ast::AdminName::Parameter(name)) => {
                    return Err(self.unsupported("a parameter naming the alias to show", name.span));
                }
            })),
            ShowKind::CurrentUser => Command::Show(ShowTable::CurrentUser),
            ShowKind::Servers => Command::Show(ShowTable::Servers),
            ShowKind::Users => Command::Show(ShowTable::Users),
            ShowKind::Roles {
                with_users,
                populated,
            } => Command::Show(ShowTable::Roles {
                with_users: *with_users,
                populated: *populated,
            }),
            ShowKind::Privileges(privileges) => {
                let names = |names: &[quiver_cypher::ast::Ident]| {
                    names.iter().map(|n| n.name.clone()).collect()
                };
                let of = match &privileges.scope {
                    quiver_cypher::ast::PrivilegeScope::All => PrivilegesOf::All,
                    quiver_cypher::ast::PrivilegeScope::Roles(r) => PrivilegesOf::Roles(names(r)),
                    quiver_cypher::ast::PrivilegeScope::Users(u) => PrivilegesOf::Users(names(u)),
                };
                let commands = match (privileges.as_commands, privileges.as_revoke) {
                    (_, true) => crate::security::show::Commands::Revoke,
                    (true, false) => crate::security::show::Commands::Grant,
                    (false, false) => crate::security::show::Commands::No,
                };
                Command::Show(ShowTable::Privileges { of, commands })
            }
        })
    }

    /// A `SHOW` command with its filter. Commands with default columns show only those
    /// unless a `YIELD` names others (`WHERE` may still test every column).
    pub(super) fn show_plan(&mut self, cmd: &ast::ShowCommand) -> Result<QueryPlan> {
        let command = self.show_command(cmd)?;
        let defaults = match &command {
            Command::Show(table) => Some(table.default_columns()),
            Command::ShowIndexes {
                constraints: false, ..
            } => Some(INDEX_DEFAULT_COLUMNS),
            Command::ShowIndexes {
                constraints: true, ..
            } => Some(CONSTRAINT_DEFAULT_COLUMNS),
            Command::ShowTransactions(_) => {
                Some(crate::metadata::show::TRANSACTION_DEFAULT_COLUMNS)
            }
            _ => None,
        };
        let mut plan = self.command_plan(command);
        // `SHOW FULLTEXT INDEXES` is `SHOW INDEXES WHERE type IN ['FULLTEXT']`, and
        // `SHOW NODE KEY CONSTRAINTS` is `SHOW CONSTRAINTS WHERE type IN ['NODE_KEY']`.
        let types = match &cmd.kind {
            ShowKind::Indexes(kind) => index_type_keyword(*kind).map(|k| vec![k]),
            ShowKind::Constraints(kind) => constraint_type_names(*kind),
            _ => None,
        };
        if let Some(types) = types {
            let names = types
                .into_iter()
                .map(|t| {
                    ast::Expr::new(
                        ast::ExprKind::Literal(ast::Literal::String(t.to_string())),
                        Span::default(),
                    )
                })
                .collect();
            let test = ast::Expr::new(
                ast::ExprKind::Binary {
                    op: ast::BinaryOp::In,
                    left: Box::new(ast::Expr::new(
                        ast::ExprKind::Variable(ast::Ident::new("type")),
                        Span::default(),
                    )),
                    right: Box::new(ast::Expr::new(ast::ExprKind::List(names), Span::default())),
                },
                Span::default(),
            );
            plan = self.show_filter(plan, Some(&ShowFilter::Where(test)))?;
        }
        let mut plan = self.show_filter(plan, cmd.filter.as_ref())?;
        if let Some(defaults) = defaults
            && !matches!(cmd.filter, Some(ShowFilter::Yield { .. }))
        {
            let (columns, slots) = plan
                .columns
                .iter()
                .zip(&plan.out_slots)
                .filter(|(c, _)| defaults.contains(&&***c))
                .map(|(c, s)| (c.clone(), *s))
                .unzip();
            plan.columns = columns;
            plan.out_slots = slots;
        }
        Ok(plan)
    }

    /// Applies a SHOW command's `WHERE` or `YIELD ... RETURN ...` to its rows.
    pub(super) fn show_filter(
        &mut self,
        mut plan: QueryPlan,
        filter: Option<&ShowFilter>,
    ) -> Result<QueryPlan> {
        let Some(filter) = filter else {
            return Ok(plan);
        };
        let mut scope = Scope::default();
        for (c, s) in plan.columns.iter().zip(&plan.out_slots) {
            scope.bind(c, *s);
        }
        match filter {
            ShowFilter::Where(e) => {
                let predicate = self.expr(e, &scope)?;
                plan.root = self.node(
                    Op::Filter {
                        input: plan.root,
                        predicate: predicate.into(),
                    },
                    1.0,
                    &scope,
                );
            }
            ShowFilter::Yield {
                projection,
                filter,
                returns,
            } => {
                let (root, cols, slots) = self.projection(
                    plan.root,
                    &mut scope,
                    &ProjectionClause {
                        projection,
                        filter: filter.as_ref(),
                        targets: None,
                        span: Span::default(),
                    },
                )?;
                plan.root = root;
                // `YIELD *` lists the command's columns in the command's order (a `*`
                // projection would sort them by name).
                let (cols, slots) = if projection.star && projection.items.is_empty() {
                    in_command_order(&plan.columns, cols, slots)
                } else {
                    (cols, slots)
                };
                plan.columns = cols;
                plan.out_slots = slots;
                if let Some(r) = returns {
                    let (root, cols, slots) = self.projection(
                        plan.root,
                        &mut scope,
                        &ProjectionClause {
                            projection: &r.projection,
                            filter: None,
                            targets: None,
                            span: Span::default(),
                        },
                    )?;
                    plan.root = root;
                    plan.columns = cols;
                    plan.out_slots = slots;
                }
            }
        }
        Ok(plan)
    }
}

fn cmd_span(_: &SchemaCommand) -> Span {
    Span::default()
}

/// The columns `SHOW INDEXES` returns unless a `YIELD` names others, as in Neo4j (`options`,
/// `trackedSince`, `failureMessage`, `createStatement` and Quiver's `memoryBytes` only by name
/// or `YIELD *`).
const INDEX_DEFAULT_COLUMNS: &[&str] = &[
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
];

/// `columns` (with their `slots`) put in the order of `order`, the command's own.
fn in_command_order(
    order: &[Arc<str>],
    columns: Vec<Arc<str>>,
    slots: Vec<usize>,
) -> (Vec<Arc<str>>, Vec<usize>) {
    let mut pairs: Vec<_> = columns.into_iter().zip(slots).collect();
    pairs.sort_by_key(|(c, _)| order.iter().position(|o| o == c).unwrap_or(usize::MAX));
    pairs.into_iter().unzip()
}

/// The columns `SHOW CONSTRAINTS` returns unless a `YIELD` names others (`options` and
/// `createStatement` only by name or `YIELD *`).
const CONSTRAINT_DEFAULT_COLUMNS: &[&str] = &[
    "id",
    "name",
    "type",
    "entityType",
    "labelsOrTypes",
    "properties",
    "ownedIndex",
    "propertyType",
];

/// The `type` column's value that `SHOW <kind> INDEXES` keeps; `None` keeps every row.
/// The `type` column values `SHOW ... CONSTRAINTS` keeps for the kind and entity named before
/// `CONSTRAINTS`, as Neo4j spells them; `None` keeps every constraint.
fn constraint_type_names(kind: ast::ShowConstraintType) -> Option<Vec<&'static str>> {
    use ast::ConstraintKind as K;
    let (node, relationship) = match kind.kind? {
        K::Unique => ("UNIQUENESS", "RELATIONSHIP_UNIQUENESS"),
        K::Key => ("NODE_KEY", "RELATIONSHIP_KEY"),
        K::NotNull => ("NODE_PROPERTY_EXISTENCE", "RELATIONSHIP_PROPERTY_EXISTENCE"),
        K::Typed => ("NODE_PROPERTY_TYPE", "RELATIONSHIP_PROPERTY_TYPE"),
    };
    Some(match kind.relationship {
        None => vec![node, relationship],
        Some(false) => vec![node],
        Some(true) => vec![relationship],
    })
}

fn index_type_keyword(kind: ast::ShowIndexType) -> Option<&'static str> {
    match kind {
        ast::ShowIndexType::All => None,
        ast::ShowIndexType::Range => Some("RANGE"),
        ast::ShowIndexType::Text => Some("TEXT"),
        ast::ShowIndexType::Point => Some("POINT"),
        ast::ShowIndexType::Lookup => Some("LOOKUP"),
        ast::ShowIndexType::Fulltext => Some("FULLTEXT"),
        ast::ShowIndexType::Vector => Some("VECTOR"),
    }
}
