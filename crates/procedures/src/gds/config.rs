//! A `configuration` map read as Graph Data Science reads one: every key must be one the
//! procedure knows ("Unexpected configuration key: ..."), every value of the type and range
//! the key takes, and what was read (defaults included) is what the `configuration` result
//! column echoes.

use std::cell::RefCell;
use std::sync::Arc;

use quiver_algorithms::{Control, Interrupted};
use quiver_engine::Result;
use quiver_engine::procedures::ProcedureContext;
use quiver_engine::procedures::native::call_failed;
use quiver_value::{Map, Value};

/// Keys every algorithm takes.
pub(crate) const COMMON: &[&str] = &[
    "concurrency",
    "jobId",
    "logProgress",
    "sudo",
    "nodeLabels",
    "relationshipTypes",
];

/// The most threads one call may ask for: each call builds a pool of its own.
pub(crate) const CONCURRENCY_MAX: i64 = 64;

/// A procedure's configuration map, checked against the keys it knows.
pub(crate) struct Config<'a> {
    procedure: &'a str,
    map: Arc<Map>,
    /// The values read, defaults included, in the order they were read.
    read: RefCell<Vec<(Arc<str>, Value)>>,
}

impl<'a> Config<'a> {
    /// The map `value` (null reads as empty); fails on a key not in `known`.
    pub(crate) fn new(procedure: &'a str, value: &Value, known: &[&[&str]]) -> Result<Config<'a>> {
        let map = match value {
            Value::Null => Arc::new(Map::new()),
            Value::Map(m) => m.clone(),
            other => {
                return Err(wrong_type(
                    procedure,
                    "the configuration must be a map",
                    other,
                ));
            }
        };
        let mut unknown: Vec<&str> = map
            .keys()
            .map(|k| &**k)
            .filter(|k| !known.iter().any(|set| set.contains(k)))
            .collect();
        unknown.sort_unstable();
        if let Some(first) = unknown.first() {
            let message = if unknown.len() == 1 {
                format!("Unexpected configuration key: {first}")
            } else {
                format!("Unexpected configuration keys: {}", unknown.join(", "))
            };
            return Err(self::failed(procedure, message));
        }
        Ok(Config {
            procedure,
            map,
            read: RefCell::new(Vec::new()),
        })
    }

    fn raw(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn remember(&self, key: &str, value: Value) {
        self.read.borrow_mut().push((Arc::from(key), value));
    }

    fn wrong_type(&self, key: &str, wanted: &str, got: &Value) -> quiver_engine::Error {
        failed(
            self.procedure,
            format!(
                "The value of `{key}` must be of type `{wanted}` but was `{}`.",
                type_name(got)
            ),
        )
    }

    /// An integer in `min..=max`.
    pub(crate) fn int(&self, key: &str, default: i64, min: i64, max: i64) -> Result<i64> {
        let v = match self.raw(key) {
            None => default,
            Some(Value::Int(i)) => *i,
            Some(other) => return Err(self.wrong_type(key, "Integer", other)),
        };
        if v < min || v > max {
            return Err(failed(
                self.procedure,
                format!(
                    "Value for `{key}` was `{v}`, but must be within the range [{min}, {max}]."
                ),
            ));
        }
        self.remember(key, Value::Int(v));
        Ok(v)
    }

    /// A number in `min..=max` (or `min..max` when `max_open`); integers are taken too.
    pub(crate) fn float(
        &self,
        key: &str,
        default: f64,
        min: f64,
        max: f64,
        max_open: bool,
    ) -> Result<f64> {
        let v = match self.raw(key) {
            None => default,
            Some(Value::Int(i)) => *i as f64,
            Some(Value::Float(f)) => *f,
            Some(other) => return Err(self.wrong_type(key, "Float", other)),
        };
        let above = if max_open { v >= max } else { v > max };
        if v.is_nan() || v < min || above {
            let close = if max_open { ')' } else { ']' };
            return Err(failed(
                self.procedure,
                format!(
                    "Value for `{key}` was `{v}`, but must be within the range [{min:.2}, {max:.2}{close}."
                ),
            ));
        }
        self.remember(key, Value::Float(v));
        Ok(v)
    }

    pub(crate) fn bool(&self, key: &str, default: bool) -> Result<bool> {
        let v = match self.raw(key) {
            None => default,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(self.wrong_type(key, "Boolean", other)),
        };
        self.remember(key, Value::Bool(v));
        Ok(v)
    }

    /// The value of `key` as given, `None` when absent.
    pub(crate) fn value(&self, key: &str) -> Option<Value> {
        let v = self.raw(key).cloned();
        if let Some(v) = &v {
            self.remember(key, v.clone());
        }
        v
    }

    /// A string, `None` when absent.
    pub(crate) fn text(&self, key: &str) -> Result<Option<String>> {
        match self.raw(key) {
            None => Ok(None),
            Some(Value::String(s)) => {
                self.remember(key, Value::String(s.clone()));
                Ok(Some(s.to_string()))
            }
            Some(other) => Err(self.wrong_type(key, "String", other)),
        }
    }

    /// A string the procedure cannot run without.
    pub(crate) fn required_text(&self, key: &str) -> Result<String> {
        self.text(key)?
            .filter(|s| !s.trim().is_empty())
            .ok_or_else(|| {
                failed(
                    self.procedure,
                    format!("No value specified for the mandatory configuration parameter `{key}`"),
                )
            })
    }

    /// A node given as a node or its id.
    pub(crate) fn node(&self, key: &str) -> Result<Option<u64>> {
        match self.raw(key) {
            None => Ok(None),
            Some(v) => {
                let id = node_id(v).ok_or_else(|| self.wrong_type(key, "Node or Integer", v))?;
                self.remember(key, Value::Int(id as i64));
                Ok(Some(id))
            }
        }
    }

    /// Nodes given as one node or id, or a list of them.
    pub(crate) fn nodes(&self, key: &str) -> Result<Vec<u64>> {
        let ids = match self.raw(key) {
            None => Vec::new(),
            Some(Value::List(items)) => items
                .iter()
                .map(|v| {
                    node_id(v).ok_or_else(|| self.wrong_type(key, "List of Node or Integer", v))
                })
                .collect::<Result<Vec<_>>>()?,
            Some(v) => {
                vec![node_id(v).ok_or_else(|| self.wrong_type(key, "List of Node or Integer", v))?]
            }
        };
        self.remember(
            key,
            Value::from(
                ids.iter()
                    .map(|i| Value::Int(*i as i64))
                    .collect::<Vec<_>>(),
            ),
        );
        Ok(ids)
    }

    /// Names given as one string or a list of strings; `["*"]` when absent.
    pub(crate) fn names(&self, key: &str) -> Result<Vec<String>> {
        let names = match self.raw(key) {
            None => vec!["*".to_owned()],
            Some(Value::String(s)) => vec![s.to_string()],
            Some(Value::List(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.to_string()),
                    other => Err(self.wrong_type(key, "List of String", other)),
                })
                .collect::<Result<Vec<_>>>()?,
            Some(other) => return Err(self.wrong_type(key, "List of String", other)),
        };
        self.remember(
            key,
            Value::from(
                names
                    .iter()
                    .map(|s| Value::from(s.as_str()))
                    .collect::<Vec<_>>(),
            ),
        );
        Ok(names)
    }

    /// The `concurrency` key: threads to run on, by default every core.
    pub(crate) fn concurrency(&self, key: &str) -> Result<usize> {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get) as i64;
        Ok(self.int(key, cores.min(CONCURRENCY_MAX), 1, CONCURRENCY_MAX)? as usize)
    }

    /// The configuration as the `configuration` column shows it: what was read, defaults
    /// included, and any other key given.
    pub(crate) fn echo(&self) -> Value {
        Value::map(self.echo_map())
    }

    /// [`Config::echo`]'s map.
    pub(crate) fn echo_map(&self) -> Map {
        let mut out: Map = self
            .map
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in self.read.borrow().iter() {
            out.insert(k.clone(), v.clone());
        }
        out
    }
}

/// A failure of a Graph Data Science procedure: `ProcedureCallFailed` with GDS's message.
pub(crate) fn failed(procedure: &str, message: impl std::fmt::Display) -> quiver_engine::Error {
    call_failed(procedure, message)
}

/// The error for a `value` of the wrong type, `what` saying what it must be (`"The
/// orientation must be a string"`): GDS's message, naming the type it got.
pub(crate) fn wrong_type(procedure: &str, what: &str, value: &Value) -> quiver_engine::Error {
    failed(
        procedure,
        format!("{what}, got {}", value.value_type().name()),
    )
}

fn node_id(v: &Value) -> Option<u64> {
    match v {
        Value::Node(n) => Some(n.id),
        Value::Int(i) if *i >= 0 => Some(*i as u64),
        _ => None,
    }
}

/// The type names GDS's messages use.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Int(_) => "Long",
        Value::Float(_) => "Double",
        Value::String(_) => "String",
        Value::Bool(_) => "Boolean",
        Value::List(_) => "List",
        Value::Map(_) => "Map",
        Value::Node(_) => "Node",
        _ => "Object",
    }
}

/// Runs `work` under a control of the configured concurrency that stops when the caller is
/// cancelled or out of time.
pub(crate) fn controlled<T>(
    ctx: &ProcedureContext<'_>,
    procedure: &str,
    config: &Config<'_>,
    work: impl FnOnce(&Control<'_>) -> std::result::Result<T, Interrupted>,
) -> Result<T> {
    let concurrency = config.concurrency("concurrency")?;
    let workers = ctx.workers(procedure)?;
    let check = || workers.check().map_err(|_| Interrupted);
    let control = Control::new(concurrency, &check);
    work(&control).map_err(|_| match workers.check() {
        Err(e) => e,
        Ok(()) => failed(procedure, "the computation was interrupted"),
    })
}
