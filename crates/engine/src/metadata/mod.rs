//! What tools ask a server about itself on connect, answered with Neo4j's names and columns:
//! the `SHOW` commands over the database's own registries ([`show`], [`servers`]), the `db.*`,
//! `dbms.*` and `tx.*` procedures that describe the server and the graph ([`dbms`], [`schema`],
//! [`jmx`]), and APOC's metadata procedures, implemented natively ([`apoc`]). Tools parse
//! these answers literally (LangChain's `Neo4jGraph` builds its schema text from
//! `apoc.meta.data`; Neo4j Browser reads `SHOW DATABASES` and `dbms.queryJmx`), so the column
//! names, their order and the spelling of type names are Neo4j's and APOC's own.
//!
//! Descriptions of the graph (property types, label combinations, relationship patterns)
//! come from the store's exact counts and a bounded sample ([`sample`]): a call costs the same
//! on a graph of a billion nodes as on one of a thousand.

mod apoc;
mod dbms;
mod jmx;
mod sample;
mod schema;
mod servers;
pub(crate) mod show;
#[cfg(test)]
mod tests;

use std::sync::Arc;

pub use servers::{ServerDirectory, ServerHealth, ServerInfo, server_id};

use quiver_status::Status;
use quiver_value::{Map, Value};

use crate::config::EngineConfig;
use crate::error::{Error, Result};
use crate::procedures::{
    Field, FieldType, Procedure, ProcedureContext, ProcedureSignature, Procedures,
};

/// One configuration setting, as `SHOW SETTINGS` and `dbms.listConfig` list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// Neo4j's name where Quiver has the same setting (`db.transaction.timeout`), Quiver's
    /// own (`quiver.*`) otherwise.
    pub name: String,
    /// The effective value, as text; `None` when unset.
    pub value: Option<String>,
    pub default_value: Option<String>,
    pub description: String,
    /// Whether it can change while the server runs (none can yet).
    pub dynamic: bool,
    /// Whether the operator set it (flag, environment or file) rather than left the default.
    pub explicitly_set: bool,
}

impl Setting {
    /// A setting the operator has not changed.
    pub fn new(name: &str, value: impl Into<String>, description: &str) -> Setting {
        let value = value.into();
        Setting {
            name: name.to_owned(),
            value: Some(value.clone()),
            default_value: Some(value),
            description: description.to_owned(),
            dynamic: false,
            explicitly_set: false,
        }
    }
}

/// The engine's own settings, under Neo4j's names where Neo4j has the same limit: what
/// `SHOW SETTINGS` lists for an embedded database, and what a server lists beside its own.
pub fn engine_settings(config: &EngineConfig) -> Vec<Setting> {
    let defaults = EngineConfig::default();
    let mut out = Vec::new();
    let mut add = |name: &str, value: String, default: String, description: &str| {
        let mut s = Setting::new(name, value.clone(), description);
        s.explicitly_set = value != default;
        s.default_value = Some(default);
        out.push(s);
    };
    let duration = |d: Option<std::time::Duration>| {
        d.map_or("0s".to_owned(), |d| format!("{}ms", d.as_millis()))
    };
    add(
        "db.transaction.timeout",
        duration(config.query_time_max),
        duration(defaults.query_time_max),
        "The longest a query may run unless its transaction sets a shorter timeout; 0s is no limit.",
    );
    add(
        "db.lock.acquisition.timeout",
        duration(Some(config.lock_wait_max)),
        duration(Some(defaults.lock_wait_max)),
        "How long a writer waits for another transaction's uncommitted change to be committed or rolled back.",
    );
    add(
        "db.memory.transaction.max",
        config.query_memory_bytes_max.to_string(),
        defaults.query_memory_bytes_max.to_string(),
        "The bytes one query may hold in sorts, aggregations, DISTINCT and the values it builds.",
    );
    add(
        "dbms.memory.transaction.total.max",
        config.query_memory_total_bytes_max.to_string(),
        defaults.query_memory_total_bytes_max.to_string(),
        "The bytes all running queries may hold together.",
    );
    add(
        "server.memory.query_cache.per_db_cache_num_entries",
        config.plan_cache_entries_max.to_string(),
        defaults.plan_cache_entries_max.to_string(),
        "The number of compiled query plans kept.",
    );
    add(
        "quiver.plan_cache.bytes.max",
        config.plan_cache_bytes_max.to_string(),
        defaults.plan_cache_bytes_max.to_string(),
        "The estimated bytes the compiled query plans may hold together.",
    );
    add(
        "quiver.query.bytes.max",
        config.query_bytes_max.to_string(),
        defaults.query_bytes_max.to_string(),
        "The longest query text accepted, in bytes.",
    );
    add(
        "quiver.query.var_length_hops.max",
        config.var_length_hops_max.to_string(),
        defaults.var_length_hops_max.to_string(),
        "The longest path a variable-length pattern without an upper bound explores.",
    );
    add(
        "quiver.transaction.open_queries.max",
        config.open_queries_max.to_string(),
        defaults.open_queries_max.to_string(),
        "The queries one explicit transaction may have open at once.",
    );
    out
}

/// Registers the metadata procedures.
pub(crate) fn register(p: &mut Procedures) {
    for procedure in dbms::procedures()
        .into_iter()
        .chain(schema::procedures())
        .chain(jmx::procedures())
        .chain(apoc::procedures())
    {
        p.register(Arc::new(procedure));
    }
}

type Body = fn(&ProcedureContext<'_>, &[Value]) -> Result<Vec<Vec<Value>>>;

/// A procedure defined by its signature (argument defaults included), description and a function.
pub(crate) struct Native {
    signature: ProcedureSignature,
    description: &'static str,
    body: Body,
}

impl Native {
    fn new(name: &str, description: &'static str, body: Body) -> Native {
        Native {
            signature: ProcedureSignature {
                name: name.to_owned(),
                inputs: Vec::new(),
                outputs: Vec::new(),
                writes: false,
            },
            description,
            body,
        }
    }

    fn input(mut self, name: &str, ty: FieldType) -> Native {
        self.signature.inputs.push(Field::new(name, ty));
        self
    }

    fn input_or(mut self, name: &str, ty: FieldType, default: Value) -> Native {
        self.signature
            .inputs
            .push(Field::optional(name, ty, default));
        self
    }

    fn output(mut self, name: &str, ty: FieldType) -> Native {
        self.signature.outputs.push(Field::new(name, ty));
        self
    }
}

impl Procedure for Native {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        (self.body)(ctx, args)
    }

    fn description(&self) -> &str {
        self.description
    }
}

/// A list type, for signatures.
fn list(inner: FieldType) -> FieldType {
    FieldType::List(Box::new(inner))
}

/// A procedure's failure on its arguments or state: `Neo.ClientError.Procedure.ProcedureCallFailed`
/// naming what to fix.
fn call_failed(message: impl Into<String>) -> Error {
    Error::runtime(Status::ProcedureCallFailed, None, message)
}

/// A string list value.
fn strings<I, S>(items: I) -> Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    Value::from(
        items
            .into_iter()
            .map(|s| Value::from(s.as_ref()))
            .collect::<Vec<_>>(),
    )
}

/// A map from string keys.
fn entries<I>(entries: I) -> Map
where
    I: IntoIterator<Item = (String, Value)>,
{
    entries
        .into_iter()
        .map(|(k, v)| (Arc::<str>::from(k), v))
        .collect()
}

/// A map value from string keys.
fn map<I>(items: I) -> Value
where
    I: IntoIterator<Item = (String, Value)>,
{
    Value::map(entries(items))
}
