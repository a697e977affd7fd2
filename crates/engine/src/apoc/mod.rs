//! APOC's core, implemented natively under APOC's names, signatures and result columns: the
//! procedures tools call (`apoc.merge.node`, `apoc.periodic.iterate`, `apoc.cypher.run`, ...)
//! and the function library (`apoc.coll.*`, `apoc.map.*`, `apoc.text.*`, `apoc.convert.*`).
//!
//! - Procedures that write or run Cypher do it through [`nested`]: a statement runs inside the
//!   calling query's transaction (or, for `apoc.periodic.*`, each batch in a transaction of its
//!   own) through the same planner and write path as a client's query, so constraint checks,
//!   indexes and update counters are the ones `CREATE` and `MERGE` keep. `apoc.merge.node`
//!   is a `MERGE` statement built from its arguments, as APOC builds one.
//! - Functions live in one table ([`functions`]), which the semantic pass and the planner
//!   consult after Neo4j's built-ins.
//! - A bad argument fails with `Neo.ClientError.Procedure.ProcedureCallFailed` naming the
//!   procedure or function and the argument.

pub(crate) mod functions;
pub(crate) mod nested;
mod path;
mod refactor;
mod run;
mod virtuals;
mod write;

use std::sync::Arc;

use quiver_cypher::semantic::{BuiltinFunctions, FunctionCatalog, FunctionSignature};
use quiver_status::Status;
use quiver_value::{Map, Value};

use crate::error::{Error, Result};
use crate::procedures::{
    Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Procedures,
};

/// The version `apoc.version()` reports: the APOC release whose names and signatures these
/// follow. APOC's versions follow Neo4j's and tools compare the two, so it is also the Neo4j
/// version Quiver's Bolt agent announces (the server's tests check they agree). APOC has been
/// released with the same calendar version as Neo4j since 2025.01.
pub const APOC_VERSION: &str = "2026.08.0";

/// Adds the APOC procedures to a registry.
pub(crate) fn register(p: &mut Procedures) {
    for procedure in write::procedures()
        .into_iter()
        .chain(run::procedures())
        .chain(path::procedures())
        .chain(refactor::procedures())
        .chain(virtuals::procedures())
    {
        p.register(Arc::new(procedure));
    }
}

/// The functions the semantic pass knows: Neo4j's built-ins, then the APOC library.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Functions;

impl FunctionCatalog for Functions {
    fn function(&self, qualified_name: &str) -> Option<FunctionSignature> {
        BuiltinFunctions
            .function(qualified_name)
            .or_else(|| functions::lookup(qualified_name).map(functions::LibraryFn::signature))
    }
}

/// The body of a native procedure: rows in the signature's output order.
type Body = fn(&ProcedureContext<'_>, &[Value]) -> Result<Vec<Vec<Value>>>;

/// A procedure given by its signature and a function.
pub(crate) struct Native {
    signature: ProcedureSignature,
    body: Body,
}

impl Procedure for Native {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        (self.body)(ctx, args)
    }
}

/// A native procedure: `inputs` and `outputs` in order, `writes` when it changes the graph.
pub(crate) fn native(
    name: &str,
    inputs: Vec<Field>,
    outputs: &[(&str, FieldType)],
    writes: bool,
    body: Body,
) -> Native {
    Native {
        signature: ProcedureSignature {
            name: name.to_owned(),
            inputs,
            outputs: outputs
                .iter()
                .map(|(n, t)| Field::new(n, t.clone()))
                .collect(),
            writes,
        },
        body,
    }
}

/// A required argument.
pub(crate) fn arg(name: &str, ty: FieldType) -> Field {
    Field::new(name, ty)
}

/// An argument that defaults to the empty map.
pub(crate) fn map_arg(name: &str) -> Field {
    Field::optional(name, FieldType::Map, Value::map(Map::new()))
}

pub(crate) fn list_of(ty: FieldType) -> FieldType {
    FieldType::List(Box::new(ty))
}

/// The failure of a procedure or function call, as Neo4j reports one:
/// `Neo.ClientError.Procedure.ProcedureCallFailed` naming what was called.
pub(crate) fn call_failed(name: &str, message: impl std::fmt::Display) -> Error {
    Error::runtime(
        Status::ProcedureCallFailed,
        None,
        format!("Failed to invoke `{name}`: {message}"),
    )
}

/// A bad argument: the message names the procedure or function and the argument.
pub(crate) fn bad_arg(name: &str, argument: &str, problem: impl std::fmt::Display) -> Error {
    call_failed(name, format!("argument '{argument}' {problem}"))
}

/// An entry of a procedure's `config` map: absent or null gives `default`, a value `read`
/// accepts is taken, and any other fails naming the key and the type `wanted`.
fn config_entry<T>(
    name: &str,
    config: &Map,
    key: &str,
    default: T,
    wanted: &str,
    read: impl Fn(&Value) -> Option<T>,
) -> Result<T> {
    match config.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => read(v).ok_or_else(|| {
            bad_arg(
                name,
                "config",
                format!(
                    "has '{key}' of type {}, expected {wanted}",
                    v.value_type().name()
                ),
            )
        }),
    }
}

pub(crate) fn config_int(name: &str, config: &Map, key: &str, default: i64) -> Result<i64> {
    config_entry(name, config, key, default, "an integer", |v| match v {
        Value::Int(i) => Some(*i),
        _ => None,
    })
}

pub(crate) fn config_bool(name: &str, config: &Map, key: &str, default: bool) -> Result<bool> {
    config_entry(name, config, key, default, "a boolean", |v| match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    })
}

/// A string entry; absent or null reads as the empty string.
pub(crate) fn config_text(name: &str, config: &Map, key: &str) -> Result<String> {
    config_entry(name, config, key, String::new(), "a string", |v| match v {
        Value::String(s) => Some(s.to_string()),
        _ => None,
    })
}

/// A map argument; `null` reads as the empty map.
pub(crate) fn map_value(name: &str, argument: &str, v: &Value) -> Result<Arc<Map>> {
    match v {
        Value::Null => Ok(Arc::new(Map::new())),
        Value::Map(m) => Ok(m.clone()),
        other => Err(bad_arg(
            name,
            argument,
            format!("must be a map, got {}", other.value_type().name()),
        )),
    }
}

/// A string argument that must be present.
pub(crate) fn string_value<'v>(name: &str, argument: &str, v: &'v Value) -> Result<&'v str> {
    match v {
        Value::String(s) => Ok(s),
        Value::Null => Err(bad_arg(name, argument, "must not be null")),
        other => Err(bad_arg(
            name,
            argument,
            format!("must be a string, got {}", other.value_type().name()),
        )),
    }
}

/// A name written as a Cypher identifier: in backticks, a backtick doubled, so any label,
/// type or key (spaces, dashes, backticks) can be spliced into a statement safely. The
/// metadata procedures write names in their type strings (`` :`Person` ``) with it too.
pub(crate) fn escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 2);
    out.push('`');
    for c in name.chars() {
        if c == '`' {
            out.push('`');
        }
        out.push(c);
    }
    out.push('`');
    out
}

/// A map value from string keys.
pub(crate) fn record(entries: Vec<(&str, Value)>) -> Value {
    Value::map(
        entries
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect(),
    )
}
