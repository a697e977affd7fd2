//! Procedure calls and schema/administration commands.

use std::sync::Arc;

use quiver_storage::{IndexInfo, IndexKind, IndexSpec, IndexState, PropKeyId};
use quiver_value::Value;

use super::{BoxCursor, Cursor, Cx};
use crate::error::{Error, Result, code};
use crate::eval::row_bytes;
use crate::ir::{Command, Expr, Row, SchemaArgs, SchemaName, VectorIndexCommand};
use crate::metadata::show as metadata;
use crate::procedures::{Procedure, ProcedureContext};

pub(crate) struct ProcedureCall {
    procedure: Arc<dyn Procedure>,
    args: Arc<[Expr]>,
    /// (output column, slot)
    yields: Arc<[(usize, usize)]>,
    input: BoxCursor,
    rows: std::vec::IntoIter<Vec<Value>>,
    /// Bytes counted for `rows`: given back when they are all handed on or the cursor runs
    /// again.
    held: usize,
}

/// Counts a result a procedure or command returned whole, held until its last row is handed
/// on: its bytes are added to `held`.
fn hold(rows: &[Vec<Value>], held: &mut usize, cx: &mut Cx, what: &'static str) -> Result<()> {
    let bytes = rows.iter().map(|r| row_bytes(r)).sum::<usize>();
    *held += bytes;
    cx.reserve(bytes, what)
}

impl ProcedureCall {
    pub fn new(
        procedure: Arc<dyn Procedure>,
        args: Arc<[Expr]>,
        yields: Arc<[(usize, usize)]>,
        input: BoxCursor,
    ) -> Self {
        ProcedureCall {
            procedure,
            args,
            yields,
            input,
            rows: Vec::new().into_iter(),
            held: 0,
        }
    }
}

impl Cursor for ProcedureCall {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let (procedure, args, yields) = (&self.procedure, &self.args, &self.yields);
        let signature = procedure.signature();
        loop {
            if let Some(values) = self.rows.next() {
                for (column, slot) in yields.iter() {
                    row[*slot] = values.get(*column).cloned().unwrap_or(Value::Null);
                }
                return Ok(true);
            }
            cx.release(std::mem::take(&mut self.held));
            if !self.input.next(cx, row)? {
                return Ok(false);
            }
            cx.tick()?;
            // `EXECUTE PROCEDURE` privileges: checked before the procedure does anything.
            cx.subject.require_procedure(&signature.name)?;
            let mut values = Vec::with_capacity(args.len());
            for (a, field) in args.iter().zip(&signature.inputs) {
                let v = a.eval(row, cx)?;
                // Integers widen to floats where a FLOAT is declared, as in Neo4j.
                let v = match (&field.ty, v) {
                    (crate::procedures::FieldType::Float, Value::Int(i)) => Value::Float(i as f64),
                    (_, v) => v,
                };
                if !v.is_null() && !field.ty.accepts(&v) {
                    return Err(Error::runtime(
                        code::TYPE_ERROR,
                        Some("InvalidArgumentType"),
                        format!(
                            "Procedure {} expects argument '{}' of type {}, got {}",
                            signature.name,
                            field.name,
                            field.ty.name(),
                            v.value_type()
                        ),
                    ));
                }
                values.push(v);
            }
            // Arguments the call left out take their declared defaults.
            for field in signature.inputs.iter().skip(values.len()) {
                values.push(field.default.clone().unwrap_or(Value::Null));
            }
            let (storage, tx, shared) = (cx.storage.clone(), cx.tx.clone(), cx.shared.clone());
            let tx_id = cx.tx_id;
            let result = procedure.call(
                &ProcedureContext {
                    storage: &storage,
                    tx: &tx,
                    shared: &shared,
                    tx_id,
                    query: Some(std::cell::RefCell::new(cx)),
                },
                &values,
            )?;
            hold(&result, &mut self.held, cx, "a procedure's result")?;
            if signature.writes {
                cx.advance()?;
            }
            if signature.outputs.is_empty() {
                // A void procedure passes its input row on unchanged.
                return Ok(true);
            }
            self.rows = result.into_iter();
        }
    }

    fn reset(&mut self) {
        // What `held` counts is given back on the next call, which has the context.
        self.rows = Vec::new().into_iter();
        self.input.reset();
    }
}

pub(crate) struct CommandCursor {
    command: Arc<Command>,
    /// The slots of the result's columns.
    out: Arc<[usize]>,
    rows: Option<std::vec::IntoIter<Vec<Value>>>,
    /// Bytes counted for `rows`, given back with the last row or when the cursor runs again.
    held: usize,
}

impl CommandCursor {
    pub fn new(command: Arc<Command>, out: Arc<[usize]>) -> Self {
        CommandCursor {
            command,
            out,
            rows: None,
            held: 0,
        }
    }
}

fn run(command: &Command, row: &mut Row, cx: &mut Cx) -> Result<Vec<Vec<Value>>> {
    match command {
        Command::CreateIndex {
            args,
            relationship,
            label,
            keys,
            kind,
            if_not_exists,
        } => {
            // Range, text and point indexes and uniqueness and key constraints take their
            // options as given (evaluated, so a failing expression still fails).
            let (name, _options) = resolve(args, row, cx)?;
            let spec = IndexSpec {
                relationship: *relationship,
                token: cx.token_id(label)?,
                keys: keys
                    .iter()
                    .map(|k| cx.token_id(k))
                    .collect::<Result<Vec<_>>>()?,
                kind: *kind,
            };
            create_index(name.as_deref(), spec, *if_not_exists, cx)
        }
        Command::CreateVectorIndex(ix) => {
            let (name, options) = resolve(&ix.args, row, cx)?;
            create_vector_index(name.as_deref(), ix, &options, cx)
        }
        Command::Drop {
            name,
            constraint,
            if_exists,
        } => {
            let name = name_of(name, cx)?;
            drop_schema_rule(&name, *constraint, *if_exists, cx)
        }
        Command::ShowIndexes {
            constraints,
            vector_only,
        } => {
            let mut rows = if *vector_only {
                Vec::new()
            } else {
                show_indexes(*constraints, cx)
            };
            if !*constraints {
                rows.extend(show_vector_indexes(rows.len(), cx));
            }
            Ok(rows)
        }
        Command::CreateFulltextIndex {
            args,
            spec,
            if_not_exists,
        } => {
            let (name, options) = resolve(args, row, cx)?;
            let mut spec = spec.clone();
            if let Some(name) = name {
                spec.name = name;
            }
            crate::search::fulltext::read_index_options(&options, &mut spec)?;
            create_fulltext_index(spec, *if_not_exists, cx)
        }
        Command::CreatePropertyConstraint {
            name,
            spec,
            if_not_exists,
        } => {
            let mut spec = spec.clone();
            if let Some(name) = name {
                spec.name = name_of(name, cx)?;
            }
            create_property_constraint(spec, *if_not_exists, cx)
        }
        Command::ShowTransactions(ids) => show_transactions(ids, row, cx),
        Command::Show(table) => table.rows(row, cx),
        Command::Admin {
            command,
            passwords,
            names,
        } => {
            let command = crate::security::commands::bind_names(command, names, cx)?;
            crate::security::commands::run(&command, passwords, row, cx)
        }
        Command::Database {
            command,
            values,
            names,
        } => crate::catalog::run(command, values, names, row, cx),
        Command::TerminateTransactions(ids) => terminate_transactions(ids, row, cx),
    }
}

/// `TERMINATE TRANSACTIONS ids`: each one the user may manage is ended and audited; one
/// that is not there, or is another user's without the admin role, is "not found".
fn terminate_transactions(ids: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Vec<Vec<Value>>> {
    let mut out = Vec::new();
    let databases = server_databases(cx);
    for id in transaction_ids(ids, row, cx)? {
        // Another user's transaction is not there for a user without the admin
        // role: it is neither ended nor shown to exist. The id names its database.
        let found = databases
            .iter()
            .find_map(|db| db.tx_owner(&id).map(|owner| (db, owner)));
        let allowed = found
            .as_ref()
            .is_some_and(|(_, o)| cx.subject.may_manage_transaction_of(o.0.as_deref()));
        let (running, owner) = found.unzip();
        let message = if allowed && running.is_some_and(|db| db.terminate(&id)) {
            let who = match &*cx.subject {
                crate::security::Subject::User(user) => user.name.to_string(),
                crate::security::Subject::Unrestricted => String::new(),
            };
            cx.shared.audit([crate::security::AuditEvent {
                user: who,
                action: "terminate_transaction",
                target: id.clone(),
                detail: owner
                    .and_then(|o| o.0)
                    .map_or_else(String::new, |o| format!("owner={o}")),
                client: cx.shared.tx_client(cx.tx_id),
            }]);
            "Transaction terminated."
        } else {
            "Transaction not found."
        };
        out.push(vec![Value::from(id.as_str()), Value::from(message)]);
    }
    Ok(out)
}

/// A schema command's name and `OPTIONS` read against the parameters: the one place where
/// a written name and a `$name`, literal options and computed ones, become the values the
/// definition takes, so both forms build the same definition. No options read as null.
fn resolve(args: &SchemaArgs, row: &mut Row, cx: &mut Cx) -> Result<(Option<String>, Value)> {
    let name = match &args.name {
        Some(name) => Some(name_of(name, cx)?),
        None => None,
    };
    let options = match &args.options {
        Some(options) => options.eval(row, cx)?,
        None => Value::Null,
    };
    Ok((name, options))
}

/// The name a schema command gives or drops. A parameter must hold a String: anything else
/// (null too) fails as a type error naming the parameter, since no rule could be named by it.
fn name_of(name: &SchemaName, cx: &Cx) -> Result<String> {
    match name {
        SchemaName::Given(name) => Ok(name.clone()),
        SchemaName::Param { index, name } => match cx.params.get(*index) {
            Some(Value::String(s)) => Ok(s.to_string()),
            other => {
                let held = other.map_or("nothing", |v| v.value_type().name());
                Err(Error::runtime(
                    code::TYPE_ERROR,
                    Some("InvalidArgumentType"),
                    format!(
                        "The parameter ${name} names an index or constraint, so it must be a \
                         String, but it holds {held}"
                    ),
                ))
            }
        },
    }
}

/// `CREATE INDEX` or `CREATE CONSTRAINT ... IS [NODE | RELATIONSHIP] UNIQUE | KEY`. Like every
/// schema command here, a refusal under `IF NOT EXISTS` does nothing where Neo4j's does: the
/// store decides it with the refusal (`quiver_storage::Error::schema_rule_present`).
fn create_index(
    name: Option<&str>,
    spec: IndexSpec,
    if_not_exists: bool,
    cx: &mut Cx,
) -> Result<Vec<Vec<Value>>> {
    let constraint = spec.kind.is_constraint();
    match cx.tx.create_schema_index(spec, name) {
        Ok(()) => {
            if constraint {
                cx.counters.constraints_added += 1;
            } else {
                cx.counters.indexes_added += 1;
            }
        }
        Err(e) if if_not_exists && e.schema_rule_present() => {}
        Err(e) => return Err(e.into()),
    }
    cx.shared.schema_changed();
    Ok(Vec::new())
}

/// `CREATE FULLTEXT INDEX`.
fn create_fulltext_index(
    spec: quiver_storage::FulltextSpec,
    if_not_exists: bool,
    cx: &mut Cx,
) -> Result<Vec<Vec<Value>>> {
    match cx.tx.create_fulltext_index(spec) {
        Ok(()) => cx.counters.indexes_added += 1,
        Err(e) if if_not_exists && e.schema_rule_present() => {}
        Err(e) => return Err(e.into()),
    }
    cx.shared.schema_changed();
    Ok(Vec::new())
}

/// `CREATE CONSTRAINT ... IS NOT NULL` or `... IS :: type` (checked against the data at
/// commit).
fn create_property_constraint(
    spec: quiver_storage::PropertyConstraintSpec,
    if_not_exists: bool,
    cx: &mut Cx,
) -> Result<Vec<Vec<Value>>> {
    match cx.tx.create_property_constraint(spec) {
        Ok(()) => cx.counters.constraints_added += 1,
        Err(e) if if_not_exists && e.schema_rule_present() => {}
        Err(e) => return Err(e.into()),
    }
    cx.shared.schema_changed();
    Ok(Vec::new())
}

/// A property existence or type constraint's `SHOW CONSTRAINTS` row.
fn property_constraint_row(id: usize, spec: &quiver_storage::PropertyConstraintSpec) -> Vec<Value> {
    vec![
        Value::Int(id as i64),
        Value::from(spec.name.as_str()),
        Value::from(spec.kind_name()),
        Value::from(if spec.relationship {
            "RELATIONSHIP"
        } else {
            "NODE"
        }),
        Value::from(vec![Value::String(spec.token.clone())]),
        Value::from(vec![Value::String(spec.key.clone())]),
        Value::Null,
        spec.types
            .as_ref()
            .map_or(Value::Null, |t| Value::from(t.to_string().as_str())),
        // No backing index, so no index options (Neo4j shows null too).
        Value::Null,
        Value::from(spec.create_statement().as_str()),
    ]
}

/// `DROP INDEX` or `DROP CONSTRAINT`; a missing constraint fails as `ConstraintDropFailed`.
fn drop_schema_rule(
    name: &str,
    constraint: bool,
    if_exists: bool,
    cx: &mut Cx,
) -> Result<Vec<Vec<Value>>> {
    let result = if constraint {
        cx.tx.drop_constraint(name)
    } else {
        cx.tx.drop_index(name)
    };
    match result {
        Ok(()) => {
            if constraint {
                cx.counters.constraints_removed += 1;
            } else {
                cx.counters.indexes_removed += 1;
            }
        }
        Err(quiver_storage::Error::SchemaRuleNotFound { .. }) if if_exists => {}
        Err(e @ quiver_storage::Error::SchemaRuleNotFound { .. }) if constraint => {
            return Err(Error::runtime(
                quiver_status::Status::ConstraintDropFailed,
                None,
                e.to_string(),
            ));
        }
        Err(e) => return Err(e.into()),
    }
    cx.shared.schema_changed();
    Ok(Vec::new())
}

/// The rows of `SHOW INDEXES` or `SHOW CONSTRAINTS`, in Neo4j's columns (every column; the
/// plan keeps the default ones unless a `YIELD` names others).
fn show_indexes(constraints: bool, cx: &Cx) -> Vec<Vec<Value>> {
    let infos = if constraints {
        cx.storage.constraints()
    } else {
        cx.storage.indexes()
    };
    let fulltext = if constraints {
        Vec::new()
    } else {
        cx.storage.fulltext_indexes()
    };
    let first_fulltext = infos.len();
    let mut rows: Vec<Vec<Value>> = infos
        .into_iter()
        .enumerate()
        .map(|(i, info)| {
            if constraints {
                constraint_row(i + 1, &info)
            } else {
                index_row(i + 1, &info)
            }
        })
        .collect();
    rows.extend(
        fulltext
            .into_iter()
            .enumerate()
            .map(|(i, info)| fulltext_row(first_fulltext + i + 1, info)),
    );
    if constraints {
        let first = rows.len();
        rows.extend(
            cx.storage
                .property_constraints()
                .iter()
                .enumerate()
                .map(|(i, spec)| property_constraint_row(first + i + 1, spec)),
        );
    }
    rows
}

/// A name in a statement, in backticks (a backtick inside doubled).
fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `FOR (n:Label)` or `FOR ()-[r:TYPE]-()`, and the properties as `n.a, n.b`.
fn schema_pattern(info: &IndexInfo) -> (String, String) {
    let (var, pattern) = if info.relationship {
        ("r", format!("()-[r:{}]-()", quoted(&info.label)))
    } else {
        ("n", format!("(n:{})", quoted(&info.label)))
    };
    let props = info
        .keys
        .iter()
        .map(|k| format!("{var}.{}", quoted(k)))
        .collect::<Vec<_>>()
        .join(", ");
    (pattern, props)
}

fn entity_type(info: &IndexInfo) -> Value {
    Value::from(if info.relationship {
        "RELATIONSHIP"
    } else {
        "NODE"
    })
}

fn strings_of(names: &[std::sync::Arc<str>]) -> Value {
    Value::from(names.iter().cloned().map(Value::String).collect::<Vec<_>>())
}

fn index_options(kind: IndexKind) -> Value {
    Value::map(
        [
            ("indexProvider".into(), Value::from(kind.provider())),
            ("indexConfig".into(), Value::map(quiver_value::Map::new())),
        ]
        .into_iter()
        .collect::<quiver_value::Map>(),
    )
}

/// A UTC `DATETIME` from milliseconds since the Unix epoch.
fn utc_millis(ms: i64) -> Value {
    let nanos = u32::try_from(ms.rem_euclid(1000) * 1_000_000).unwrap_or(0);
    quiver_value::DateTime::from_instant(
        ms.div_euclid(1000),
        nanos,
        quiver_value::TimeZone::Offset(0),
    )
    .map_or(Value::Null, |dt| Value::DateTime(Box::new(dt)))
}

/// A property index's `SHOW INDEXES` row, every column. `readCount` counts the seeks through
/// the index since `trackedSince` (its creation or the server's start: as in Neo4j, the
/// figures are not kept across restarts) and `lastRead` is when the last one began, null
/// before the first.
fn index_row(id: usize, info: &IndexInfo) -> Vec<Value> {
    let state = match info.state {
        IndexState::Online => "ONLINE",
        IndexState::Populating => "POPULATING",
    };
    let owning = if info.kind.is_constraint() {
        Value::from(info.name.as_str())
    } else {
        Value::Null
    };
    let kind = match info.kind {
        IndexKind::Text => "TEXT",
        IndexKind::Point => "POINT",
        IndexKind::Range | IndexKind::Unique | IndexKind::Key => "RANGE",
    };
    let (pattern, props) = schema_pattern(info);
    vec![
        Value::Int(id as i64),
        Value::from(info.name.as_str()),
        Value::from(state),
        Value::Float(if state == "ONLINE" { 100.0 } else { 0.0 }),
        Value::from(kind),
        entity_type(info),
        Value::from(vec![Value::String(info.label.clone())]),
        strings_of(&info.keys),
        Value::from(info.kind.provider()),
        owning,
        info.last_read_ms.map_or(Value::Null, utc_millis),
        Value::Int(i64::try_from(info.read_count).unwrap_or(i64::MAX)),
        utc_millis(info.tracked_since_ms),
        index_options(info.kind),
        Value::from(""),
        Value::from(format!(
            "CREATE {kind} INDEX {} FOR {pattern} ON ({props})",
            quoted(&info.name)
        )),
        Value::Null,
    ]
}

/// A constraint's `SHOW CONSTRAINTS` row, every column.
fn constraint_row(id: usize, info: &IndexInfo) -> Vec<Value> {
    let (kind, requirement) = match (info.kind, info.relationship) {
        (IndexKind::Key, false) => ("NODE_KEY", "IS NODE KEY"),
        (IndexKind::Key, true) => ("RELATIONSHIP_KEY", "IS RELATIONSHIP KEY"),
        (_, false) => ("UNIQUENESS", "IS UNIQUE"),
        (_, true) => ("RELATIONSHIP_UNIQUENESS", "IS UNIQUE"),
    };
    let (pattern, props) = schema_pattern(info);
    vec![
        Value::Int(id as i64),
        Value::from(info.name.as_str()),
        Value::from(kind),
        entity_type(info),
        Value::from(vec![Value::String(info.label.clone())]),
        strings_of(&info.keys),
        Value::from(info.name.as_str()),
        Value::Null,
        index_options(info.kind),
        Value::from(format!(
            "CREATE CONSTRAINT {} FOR {pattern} REQUIRE ({props}) {requirement}",
            quoted(&info.name)
        )),
    ]
}

/// A full-text index's `SHOW INDEXES` row: the default columns, then `options` (its
/// analyzer and consistency, under Neo4j's keys) and `memoryBytes` (what tantivy holds).
fn fulltext_row(id: usize, info: quiver_storage::FulltextInfo) -> Vec<Value> {
    let spec = info.spec;
    let strings = |v: Vec<std::sync::Arc<str>>| {
        Value::from(v.into_iter().map(Value::String).collect::<Vec<_>>())
    };
    let config: quiver_value::Map = [
        (
            "fulltext.analyzer".into(),
            Value::from(spec.analyzer.as_str()),
        ),
        (
            "fulltext.eventually_consistent".into(),
            Value::Bool(spec.eventually_consistent),
        ),
    ]
    .into_iter()
    .collect();
    let options: quiver_value::Map = [
        (
            "indexProvider".into(),
            Value::from(quiver_storage::FULLTEXT_PROVIDER),
        ),
        ("indexConfig".into(), Value::map(config)),
    ]
    .into_iter()
    .collect();
    vec![
        Value::Int(id as i64),
        Value::from(spec.name.as_str()),
        Value::from("ONLINE"),
        Value::Float(100.0),
        Value::from("FULLTEXT"),
        Value::from(match spec.entity {
            quiver_storage::FulltextEntity::Node => "NODE",
            quiver_storage::FulltextEntity::Relationship => "RELATIONSHIP",
        }),
        strings(spec.tokens.clone()),
        strings(spec.keys.clone()),
        Value::from(quiver_storage::FULLTEXT_PROVIDER),
        Value::Null,
        info.last_read_ms.map_or(Value::Null, utc_millis),
        Value::Int(i64::try_from(info.read_count).unwrap_or(i64::MAX)),
        utc_millis(info.tracked_since_ms),
        Value::map(options),
        Value::from(""),
        Value::from(fulltext_statement(&spec)),
        Value::Int(i64::try_from(info.memory_bytes).unwrap_or(i64::MAX)),
    ]
}

/// The `CREATE FULLTEXT INDEX` statement that makes a full-text index like this one.
fn fulltext_statement(spec: &quiver_storage::FulltextSpec) -> String {
    let (var, pattern) = match spec.entity {
        quiver_storage::FulltextEntity::Node => ("n", format!("(n:{})", joined(&spec.tokens))),
        quiver_storage::FulltextEntity::Relationship => {
            ("r", format!("()-[r:{}]-()", joined(&spec.tokens)))
        }
    };
    let props = spec
        .keys
        .iter()
        .map(|k| format!("{var}.{}", quoted(k)))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "CREATE FULLTEXT INDEX {} FOR {pattern} ON EACH [{props}]",
        quoted(&spec.name)
    )
}

fn joined(tokens: &[std::sync::Arc<str>]) -> String {
    tokens
        .iter()
        .map(|t| quoted(t))
        .collect::<Vec<_>>()
        .join("|")
}

/// `SHOW INDEXES` rows of the vector indexes, numbered after the `before` rows listed first.
fn show_vector_indexes(before: usize, cx: &Cx) -> Vec<Vec<Value>> {
    cx.storage
        .vector_indexes()
        .into_iter()
        .enumerate()
        .map(|(i, info)| {
            vec![
                Value::Int((before + i) as i64 + 1),
                Value::from(info.name.as_str()),
                Value::from("ONLINE"),
                Value::Float(100.0),
                Value::from("VECTOR"),
                Value::from(if info.relationship {
                    "RELATIONSHIP"
                } else {
                    "NODE"
                }),
                Value::from(vec![Value::String(info.token.clone())]),
                Value::from(
                    std::iter::once(&info.key)
                        .chain(&info.with_properties)
                        .map(|k| Value::String(k.clone()))
                        .collect::<Vec<_>>(),
                ),
                Value::from(quiver_storage::VECTOR_PROVIDER),
                Value::Null,
                info.last_read_ms.map_or(Value::Null, utc_millis),
                Value::Int(i64::try_from(info.read_count).unwrap_or(i64::MAX)),
                utc_millis(info.tracked_since_ms),
                crate::search::vector::options_value(&info),
                Value::from(""),
                Value::from(vector_create_statement(&info)),
                // memoryBytes: the graph is not measured.
                Value::Null,
            ]
        })
        .collect()
}

/// The `createStatement` of a vector index, its filterable keys in a `WITH [...]`.
fn vector_create_statement(info: &quiver_storage::VectorIndexInfo) -> String {
    let v = if info.relationship { "r" } else { "n" };
    let entity = if info.relationship {
        format!("()-[r:{}]-()", quoted(&info.token))
    } else {
        format!("(n:{})", quoted(&info.token))
    };
    let mut statement = format!(
        "CREATE VECTOR INDEX {} FOR {entity} ON ({v}.{})",
        quoted(&info.name),
        quoted(&info.key)
    );
    if !info.with_properties.is_empty() {
        let keys: Vec<String> = info
            .with_properties
            .iter()
            .map(|k| format!("{v}.{}", quoted(k)))
            .collect();
        statement.push_str(" WITH [");
        statement.push_str(&keys.join(", "));
        statement.push(']');
    }
    statement
}

/// `SHOW TRANSACTIONS`: the running transactions the user may see (without the admin role,
/// their own).
fn show_transactions(ids: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Vec<Vec<Value>>> {
    let wanted = transaction_ids(ids, row, cx)?;
    let mut out = Vec::new();
    // Every database's transactions, as Neo4j lists them, each with its database's name.
    for db in server_databases(cx) {
        let database = db.names().name;
        for t in db.transactions() {
            if !wanted.is_empty() && !wanted.contains(&t.id) {
                continue;
            }
            // Without the admin role a user sees their own transactions only.
            let owner = db.tx_owner(&t.id).and_then(|o| o.0);
            if !cx.subject.may_manage_transaction_of(owner.as_deref()) {
                continue;
            }
            let named = metadata::transaction_row(t, owner.as_deref(), &database);
            out.push(metadata::in_order(&named, metadata::TRANSACTION_COLUMNS));
        }
    }
    Ok(out)
}

/// The databases of the server open now (this one's state among them), or this one alone.
fn server_databases(cx: &Cx) -> Vec<Arc<crate::state::DatabaseState>> {
    let mut databases: Vec<Arc<crate::state::DatabaseState>> = cx
        .shared
        .catalog()
        .map(|catalog| catalog.open_databases())
        .unwrap_or_default()
        .iter()
        .map(|db| Arc::clone(db.shared()))
        .collect();
    if !databases.iter().any(|db| Arc::ptr_eq(db, &cx.shared)) {
        databases.insert(0, Arc::clone(&cx.shared));
    }
    databases
}

/// `CREATE VECTOR INDEX` (named `name`, with `options` evaluated): its options read and
/// checked, the label or type and the keys made if new, and the index published at commit.
fn create_vector_index(
    name: Option<&str>,
    ix: &VectorIndexCommand,
    options: &Value,
    cx: &mut Cx,
) -> Result<Vec<Vec<Value>>> {
    let config =
        crate::search::vector::config_of(options).map_err(crate::search::vector::options_error)?;
    let token = ix.token.get_or_create(&cx.storage)?;
    let key = PropKeyId(ix.key.get_or_create(&cx.storage)?);
    let with = ix
        .with_keys
        .iter()
        .map(|k| Ok(PropKeyId(k.get_or_create(&cx.storage)?)))
        .collect::<Result<Vec<_>>>()?;
    match cx
        .tx
        .create_vector_index(name, ix.relationship, token, (key, &with), config)
    {
        Ok(()) => cx.counters.indexes_added += 1,
        Err(e) if ix.if_not_exists && e.schema_rule_present() => {}
        Err(e) => return Err(e.into()),
    }
    cx.shared.schema_changed();
    Ok(Vec::new())
}

/// The transaction ids `SHOW`/`TERMINATE TRANSACTIONS` name: each expression is a String or
/// a list of Strings.
fn transaction_ids(ids: &[Expr], row: &mut Row, cx: &mut Cx) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for e in ids {
        let list: Vec<Value> = match e.eval(row, cx)? {
            Value::List(items) => items.to_vec(),
            other => vec![other],
        };
        for id in list {
            let Value::String(id) = id else {
                return Err(Error::type_error("Transaction ids must be Strings"));
            };
            out.push(id.to_string());
        }
    }
    Ok(out)
}

impl Cursor for CommandCursor {
    fn next(&mut self, cx: &mut Cx, row: &mut Row) -> Result<bool> {
        let (command, out) = (&self.command, &self.out);
        if self.rows.is_none() {
            cx.release(std::mem::take(&mut self.held));
            let rows = run(command, row, cx)?;
            hold(&rows, &mut self.held, cx, "a command's result")?;
            self.rows = Some(rows.into_iter());
        }
        let Some(values) = self.rows.as_mut().and_then(Iterator::next) else {
            cx.release(std::mem::take(&mut self.held));
            return Ok(false);
        };
        for (slot, v) in out.iter().zip(values) {
            row[*slot] = v;
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.rows = None;
    }
}

/// Keeps the access-mode error in one place for callers that refuse writes.
pub(crate) fn read_only_error() -> Error {
    Error::request(
        code::ACCESS_MODE,
        "Writing in a read access mode transaction is not allowed",
    )
}
