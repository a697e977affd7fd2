//! Procedures callable with `CALL name(args) YIELD ...`: the built-ins drivers and tools call
//! on connect, and a registry where embedders (and the TCK's fixtures) add their own.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use quiver_storage::{Storage, Transaction as StorageTx};
use quiver_value::{Map, Value};

use crate::error::Result;
use crate::eval::Cx;
use crate::state::DatabaseState;

pub mod native;
pub mod nested;

/// A declared type of a procedure argument or output column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldType {
    Any,
    Boolean,
    Integer,
    Float,
    Number,
    String,
    Map,
    Node,
    Relationship,
    Path,
    List(Box<FieldType>),
}

impl FieldType {
    /// Whether a (non-null) value fits this type.
    pub fn accepts(&self, v: &Value) -> bool {
        match (self, v) {
            (FieldType::Any, _)
            | (FieldType::Boolean, Value::Bool(_))
            | (FieldType::Integer, Value::Int(_))
            | (FieldType::Float, Value::Float(_))
            | (FieldType::Number, Value::Int(_) | Value::Float(_))
            | (FieldType::String, Value::String(_))
            | (FieldType::Map, Value::Map(_))
            | (FieldType::Node, Value::Node(_))
            | (FieldType::Relationship, Value::Relationship(_))
            | (FieldType::Path, Value::Path(_)) => true,
            (FieldType::List(inner), Value::List(items)) => {
                items.iter().all(|i| i.is_null() || inner.accepts(i))
            }
            _ => false,
        }
    }

    pub fn name(&self) -> String {
        match self {
            FieldType::Any => "ANY".into(),
            FieldType::Boolean => "BOOLEAN".into(),
            FieldType::Integer => "INTEGER".into(),
            FieldType::Float => "FLOAT".into(),
            FieldType::Number => "NUMBER".into(),
            FieldType::String => "STRING".into(),
            FieldType::Map => "MAP".into(),
            FieldType::Node => "NODE".into(),
            FieldType::Relationship => "RELATIONSHIP".into(),
            FieldType::Path => "PATH".into(),
            FieldType::List(inner) => format!("LIST OF {}", inner.name()),
        }
    }
}

/// A named, typed argument or output column.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    /// The value of an argument a call may leave out (`params = {}`); trailing arguments
    /// with a default may be omitted, as in Neo4j.
    pub default: Option<Value>,
}

impl Field {
    pub fn new(name: &str, ty: FieldType) -> Self {
        Field {
            name: name.to_owned(),
            ty,
            default: None,
        }
    }

    /// An argument that takes `default` when a call leaves it out.
    pub fn optional(name: &str, ty: FieldType, default: Value) -> Self {
        Field {
            default: Some(default),
            ..Field::new(name, ty)
        }
    }
}

/// What a procedure takes and returns.
#[derive(Clone, Debug, PartialEq)]
pub struct ProcedureSignature {
    /// Dotted name, such as `db.labels`.
    pub name: String,
    pub inputs: Vec<Field>,
    pub outputs: Vec<Field>,
    /// Whether the procedure changes the graph (then it needs a write transaction).
    pub writes: bool,
}

/// What a procedure gets when it runs: the caller's storage transaction (`tx`, over
/// `storage`), who calls and whether they may ([`ProcedureContext::who_calls`],
/// [`ProcedureContext::require_admin`]), the database's settings and running transactions,
/// statements of its own in the caller's transaction or in transactions of their own
/// ([`nested`]), and the caller's limits: its cancel flag, deadline and memory
/// ([`ProcedureContext::tick`], [`ProcedureContext::reserve`], [`ProcedureContext::pause`]).
pub struct ProcedureContext<'a> {
    pub storage: &'a Arc<Storage>,
    pub tx: &'a StorageTx,
    /// The database's shared state and the calling transaction's registry id, for the
    /// metadata procedures (settings, the transaction's metadata).
    pub(crate) shared: &'a DatabaseState,
    pub(crate) tx_id: u64,
    /// The calling query's context; `None` only where a procedure runs outside a query.
    pub(crate) query: Option<RefCell<&'a mut Cx>>,
}

impl ProcedureContext<'_> {
    /// Whether the server has a database or alias named `name` (or it is `system`): the
    /// catalog's, or for a server's only database, its own name.
    pub fn knows_database(&self, name: &str) -> bool {
        let key = crate::catalog::key(name);
        match self.shared.catalog() {
            Some(catalog) => catalog.resolve(&key).is_some(),
            None => key == crate::catalog::SYSTEM_DATABASE || *self.shared.names().name == *key,
        }
    }

    /// Fails with `Forbidden` naming `what` unless the caller has the admin role (with
    /// authentication off, or outside a query, nobody is restricted): for procedures that
    /// administer the server rather than read or write the graph.
    pub fn require_admin(&self, what: &str) -> Result<()> {
        match &self.query {
            Some(cx) => cx
                .borrow()
                .subject
                .require(crate::security::Level::Admin, what),
            None => Ok(()),
        }
    }

    /// The database's effective settings, as `SHOW SETTINGS` lists them: the embedder's
    /// when it set them, the engine's own otherwise.
    pub fn settings(&self) -> Arc<Vec<crate::config::Setting>> {
        self.shared.settings()
    }

    /// The transactions running now, the caller's included, as `SHOW TRANSACTIONS` lists
    /// them.
    pub fn transactions(&self) -> Vec<crate::summary::TransactionInfo> {
        self.shared.transactions()
    }

    /// Who calls: the transaction's user (empty when authentication is off) and the client's
    /// address when the embedder gave it, for the audit log.
    pub fn who_calls(&self) -> (String, Option<std::net::SocketAddr>) {
        let user = self
            .shared
            .tx_user(self.tx_id)
            .as_deref()
            .map(str::to_owned);
        (user.unwrap_or_default(), self.shared.tx_client(self.tx_id))
    }
}

/// A procedure. Implementations must be cheap to share: one instance serves every call.
pub trait Procedure: Send + Sync {
    fn signature(&self) -> &ProcedureSignature;

    /// Runs the procedure: one row per result, values in `outputs` order. Arguments have been
    /// checked against `inputs` (count and type).
    fn call(&self, ctx: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>>;

    /// What `SHOW PROCEDURES` says the procedure does.
    // Implementations may return text they hold, so the borrow is the trait's.
    #[allow(clippy::unnecessary_literal_bound)]
    fn description(&self) -> &str {
        ""
    }
}

impl fmt::Debug for dyn Procedure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Procedure({})", self.signature().name)
    }
}

/// The procedures a database knows, by name.
#[derive(Clone, Default)]
pub struct Procedures {
    by_name: HashMap<String, Arc<dyn Procedure>>,
}

impl Procedures {
    /// The registry's own procedures (`db.labels`, `db.relationshipTypes`,
    /// `db.propertyKeys`, `db.ping`, `dbms.components`); a database adds the metadata
    /// procedures to them.
    pub fn builtin() -> Self {
        let mut p = Procedures::default();
        p.register(Arc::new(Labels::new()));
        p.register(Arc::new(RelationshipTypes::new()));
        p.register(Arc::new(PropertyKeys::new()));
        p.register(Arc::new(Ping::new()));
        p.register(Arc::new(Components::new()));
        p
    }

    /// Adds or replaces a procedure.
    pub fn register(&mut self, procedure: Arc<dyn Procedure>) {
        let name = procedure.signature().name.clone();
        self.by_name.insert(name, procedure);
    }

    /// Looks a procedure up by its exact name, then case-insensitively.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Procedure>> {
        if let Some(p) = self.by_name.get(name) {
            return Some(p.clone());
        }
        self.by_name
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, p)| p.clone())
    }

    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.by_name.keys().cloned().collect();
        names.sort();
        names
    }
}

/// The semantic pass checks calls against the registered signatures.
impl quiver_cypher::semantic::ProcedureCatalog for Procedures {
    fn procedure(
        &self,
        qualified_name: &str,
    ) -> Option<quiver_cypher::semantic::ProcedureSignature> {
        let p = self.get(qualified_name)?;
        let s = p.signature();
        Some(quiver_cypher::semantic::ProcedureSignature {
            inputs: s
                .inputs
                .iter()
                .map(|f| quiver_cypher::semantic::ProcedureInput {
                    name: f.name.clone(),
                    has_default: f.default.is_some(),
                })
                .collect(),
            outputs: s.outputs.iter().map(|f| f.name.clone()).collect(),
        })
    }
}

fn sig(name: &str, outputs: &[(&str, FieldType)]) -> ProcedureSignature {
    ProcedureSignature {
        name: name.to_owned(),
        inputs: Vec::new(),
        outputs: outputs
            .iter()
            .map(|(n, t)| Field::new(n, t.clone()))
            .collect(),
        writes: false,
    }
}

/// `db.labels()`: labels some node has.
struct Labels(ProcedureSignature);

impl Labels {
    fn new() -> Self {
        Labels(sig("db.labels", &[("label", FieldType::String)]))
    }
}

impl Procedure for Labels {
    fn signature(&self) -> &ProcedureSignature {
        &self.0
    }

    fn call(&self, ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        let mut out = Vec::new();
        for (id, name) in ctx.storage.all_labels() {
            if ctx.tx.count_label(id)? > 0 {
                out.push(vec![Value::String(name)]);
            }
        }
        out.sort_by(|a, b| quiver_value::order(&a[0], &b[0]));
        Ok(out)
    }
}

/// `db.relationshipTypes()`: types some relationship has.
struct RelationshipTypes(ProcedureSignature);

impl RelationshipTypes {
    fn new() -> Self {
        RelationshipTypes(sig(
            "db.relationshipTypes",
            &[("relationshipType", FieldType::String)],
        ))
    }
}

impl Procedure for RelationshipTypes {
    fn signature(&self) -> &ProcedureSignature {
        &self.0
    }

    fn call(&self, ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        let mut out = Vec::new();
        for (id, name) in ctx.storage.all_rel_types() {
            if ctx.tx.count_rels_of_type(id)? > 0 {
                out.push(vec![Value::String(name)]);
            }
        }
        out.sort_by(|a, b| quiver_value::order(&a[0], &b[0]));
        Ok(out)
    }
}

/// `db.propertyKeys()`: every property key ever used that the caller may read somewhere.
struct PropertyKeys(ProcedureSignature);

impl PropertyKeys {
    fn new() -> Self {
        PropertyKeys(sig(
            "db.propertyKeys",
            &[("propertyKey", FieldType::String)],
        ))
    }
}

impl Procedure for PropertyKeys {
    fn signature(&self) -> &ProcedureSignature {
        &self.0
    }

    fn call(&self, ctx: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        // A reader with read rules is listed the keys some rule lets them read.
        let visibility = ctx
            .query
            .as_ref()
            .and_then(|cx| cx.borrow().subject.visibility(ctx.storage));
        let mut out: Vec<Vec<Value>> = ctx
            .storage
            .all_property_keys()
            .into_iter()
            .filter(|(id, _)| visibility.as_ref().is_none_or(|v| v.lists_key(id.0)))
            .map(|(_, name)| vec![Value::String(name)])
            .collect();
        out.sort_by(|a, b| quiver_value::order(&a[0], &b[0]));
        Ok(out)
    }
}

/// `db.ping()`: a liveness check drivers use.
struct Ping(ProcedureSignature);

impl Ping {
    fn new() -> Self {
        Ping(sig("db.ping", &[("success", FieldType::Boolean)]))
    }
}

impl Procedure for Ping {
    fn signature(&self) -> &ProcedureSignature {
        &self.0
    }

    fn call(&self, _: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        Ok(vec![vec![Value::Bool(true)]])
    }
}

/// `dbms.components()`: name, versions and edition, which tools show on connect.
struct Components(ProcedureSignature);

impl Components {
    fn new() -> Self {
        Components(sig(
            "dbms.components",
            &[
                ("name", FieldType::String),
                ("versions", FieldType::List(Box::new(FieldType::String))),
                ("edition", FieldType::String),
            ],
        ))
    }
}

impl Procedure for Components {
    fn signature(&self) -> &ProcedureSignature {
        &self.0
    }

    fn call(&self, _: &ProcedureContext<'_>, _: &[Value]) -> Result<Vec<Vec<Value>>> {
        Ok(vec![vec![
            Value::from("Quiver Kernel"),
            Value::from(vec![Value::from(env!("CARGO_PKG_VERSION"))]),
            Value::from("community"),
        ]])
    }
}

/// A procedure defined by a fixed table: a call yields the outputs of every row whose inputs
/// equal the arguments (`null` matching `null`). Embedders use it for simple lookups; the TCK
/// declares its fixture procedures this way.
pub struct TableProcedure {
    signature: ProcedureSignature,
    rows: Vec<(Vec<Value>, Vec<Value>)>,
}

impl TableProcedure {
    /// `rows` are (inputs, outputs) in the signature's order.
    pub fn new(signature: ProcedureSignature, rows: Vec<(Vec<Value>, Vec<Value>)>) -> Self {
        TableProcedure { signature, rows }
    }
}

impl Procedure for TableProcedure {
    fn signature(&self) -> &ProcedureSignature {
        &self.signature
    }

    fn call(&self, _: &ProcedureContext<'_>, args: &[Value]) -> Result<Vec<Vec<Value>>> {
        Ok(self
            .rows
            .iter()
            .filter(|(inputs, _)| {
                inputs.len() == args.len()
                    && inputs
                        .iter()
                        .zip(args)
                        .all(|(a, b)| quiver_value::equivalent(a, b))
            })
            .map(|(_, outputs)| outputs.clone())
            .collect())
    }
}

/// A map with string keys, for procedures that return records.
pub fn record(entries: &[(&str, Value)]) -> Map {
    entries
        .iter()
        .map(|(k, v)| (Arc::from(*k), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_found_by_name() {
        let p = Procedures::builtin();
        assert!(p.get("db.labels").is_some());
        assert!(p.get("DB.LABELS").is_some());
        assert!(p.get("db.nothing").is_none());
    }

    #[test]
    fn field_types_accept_matching_values() {
        assert!(FieldType::Number.accepts(&Value::Int(1)));
        assert!(!FieldType::Integer.accepts(&Value::Float(1.0)));
        let l = Value::from(vec![Value::from("a"), Value::Null]);
        assert!(FieldType::List(Box::new(FieldType::String)).accepts(&l));
    }
}
