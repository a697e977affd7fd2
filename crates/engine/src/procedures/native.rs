//! What writing a procedure takes: [`Native`], a procedure given by a signature and a
//! function, and the readers of arguments and `config` maps that fail as Neo4j's procedures
//! do, with `Neo.ClientError.Procedure.ProcedureCallFailed` naming the procedure and the
//! argument.

use std::borrow::Cow;
use std::sync::Arc;

use quiver_status::Status;
use quiver_value::{Map, Value};

use super::{Field, FieldType, Procedure, ProcedureContext, ProcedureSignature};
use crate::error::{Error, Result};

/// The body of a native procedure: rows in the signature's output order.
pub type Body =
    Box<dyn Fn(&ProcedureContext<'_>, &[Value]) -> Result<Vec<Vec<Value>>> + Send + Sync>;

/// A procedure given by its signature, what `SHOW PROCEDURES` says of it, and a function.
pub struct Native {
    signature: ProcedureSignature,
    description: Cow<'static, str>,
    body: Body,
}

impl Native {
    /// A procedure that reads, with no arguments and no columns yet: add them in order with
    /// [`Native::input`], [`Native::input_or`] and [`Native::output`].
    pub fn new(
        name: &str,
        description: &'static str,
        body: impl Fn(&ProcedureContext<'_>, &[Value]) -> Result<Vec<Vec<Value>>>
        + Send
        + Sync
        + 'static,
    ) -> Native {
        Native {
            signature: ProcedureSignature {
                name: name.to_owned(),
                inputs: Vec::new(),
                outputs: Vec::new(),
                writes: false,
            },
            description: Cow::Borrowed(description),
            body: Box::new(body),
        }
    }

    /// What `SHOW PROCEDURES` says of it.
    pub fn described(mut self, description: impl Into<Cow<'static, str>>) -> Native {
        self.description = description.into();
        self
    }

    /// A required argument.
    pub fn input(mut self, name: &str, ty: FieldType) -> Native {
        self.signature.inputs.push(Field::new(name, ty));
        self
    }

    /// An argument a call may leave out, taking `default`.
    pub fn input_or(mut self, name: &str, ty: FieldType, default: Value) -> Native {
        self.signature
            .inputs
            .push(Field::optional(name, ty, default));
        self
    }

    /// An output column.
    pub fn output(mut self, name: &str, ty: FieldType) -> Native {
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
        &self.description
    }
}

/// A native procedure: `inputs` and `outputs` in order, `writes` when it changes the graph.
pub fn native(
    name: &str,
    inputs: Vec<Field>,
    outputs: &[(&str, FieldType)],
    writes: bool,
    body: impl Fn(&ProcedureContext<'_>, &[Value]) -> Result<Vec<Vec<Value>>> + Send + Sync + 'static,
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
        description: Cow::Borrowed(""),
        body: Box::new(body),
    }
}

/// A required argument.
pub fn arg(name: &str, ty: FieldType) -> Field {
    Field::new(name, ty)
}

/// An argument that defaults to the empty map.
pub fn map_arg(name: &str) -> Field {
    Field::optional(name, FieldType::Map, Value::map(Map::new()))
}

pub fn list_of(ty: FieldType) -> FieldType {
    FieldType::List(Box::new(ty))
}

/// The failure of a procedure or function call, as Neo4j reports one:
/// `Neo.ClientError.Procedure.ProcedureCallFailed` naming what was called.
pub fn call_failed(name: &str, message: impl std::fmt::Display) -> Error {
    Error::runtime(
        Status::ProcedureCallFailed,
        None,
        format!("Failed to invoke `{name}`: {message}"),
    )
}

/// A bad argument: the message names the procedure or function and the argument.
pub fn bad_arg(name: &str, argument: &str, problem: impl std::fmt::Display) -> Error {
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

pub fn config_int(name: &str, config: &Map, key: &str, default: i64) -> Result<i64> {
    config_entry(name, config, key, default, "an integer", |v| match v {
        Value::Int(i) => Some(*i),
        _ => None,
    })
}

pub fn config_bool(name: &str, config: &Map, key: &str, default: bool) -> Result<bool> {
    config_entry(name, config, key, default, "a boolean", |v| match v {
        Value::Bool(b) => Some(*b),
        _ => None,
    })
}

/// A string entry; absent or null reads as the empty string.
pub fn config_text(name: &str, config: &Map, key: &str) -> Result<String> {
    config_entry(name, config, key, String::new(), "a string", |v| match v {
        Value::String(s) => Some(s.to_string()),
        _ => None,
    })
}

/// A map argument; `null` reads as the empty map.
pub fn map_value(name: &str, argument: &str, v: &Value) -> Result<Arc<Map>> {
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
pub fn string_value<'v>(name: &str, argument: &str, v: &'v Value) -> Result<&'v str> {
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
pub fn escape(name: &str) -> String {
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
pub fn record(entries: Vec<(&str, Value)>) -> Value {
    Value::map(
        entries
            .into_iter()
            .map(|(k, v)| (Arc::from(k), v))
            .collect(),
    )
}

/// Java's `String.format` over Cypher values, as `apoc.text.format` and
/// `apoc.util.validate` apply it; `Err` names what in `fmt` it cannot format.
pub use crate::apoc::functions::text::java_format;
